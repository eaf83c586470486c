"""Scores of single games, computed by hand (the working is in each test)."""

import math

import pandas as pd
import pytest

from wordplay_audit.analysis.connections import (
    histogram,
    paired_tests,
    reasoning_ratio,
    score_game,
    taxonomy_column,
)

GOLD = [
    ["LEMON", "LIME", "ORANGE", "GRAPEFRUIT"],  # yellow, weight 1
    ["SOLE", "HEEL", "TONGUE", "LACE"],  # green, weight 2
    ["KING", "QUEEN", "ROOK", "BISHOP"],  # blue, weight 3
    ["SWORD", "CAT", "STAR", "JELLY"],  # purple, weight 4
]


def test_all_four_groups_in_any_order_and_named():
    answer = {
        "fish": ["JELLY", "STAR", "CAT", "SWORD"],
        "chess": ["ROOK", "KING", "BISHOP", "QUEEN"],
        "shoe": ["LACE", "SOLE", "HEEL", "TONGUE"],
        "citrus": ["LIME", "LEMON", "GRAPEFRUIT", "ORANGE"],
    }
    yes = {("Fish", 3), ("chess", 2), ("shoe", 1)}  # "citrus" judged No (absent)
    score = score_game(GOLD, answer, yes=yes)
    # 4 groups; weighted 1+2+3+4 = 10; named: purple, blue, green = 3
    assert (score.unweighted, score.weighted, score.categorical) == (4, 10, 3)


def test_malformed_answer_scores_zero():
    for answer in (None, "", ["LEMON"], 3):
        assert score_game(GOLD, answer) == score_game(GOLD, {})
        assert score_game(GOLD, answer).unweighted == 0


def test_duplicated_words_across_groups():
    # LIME appears in two groups: the first group is still exactly yellow; the second is wrong.
    answer = {
        "a": ["LEMON", "LIME", "ORANGE", "GRAPEFRUIT"],
        "b": ["LIME", "HEEL", "TONGUE", "LACE"],
        "c": ["KING", "QUEEN", "ROOK", "SOLE"],
        "d": ["SWORD", "CAT", "STAR", "BISHOP"],
    }
    score = score_game(GOLD, answer, yes={("a", 0), ("b", 1)})
    # only yellow reproduced -> unweighted 1, weighted 1; "b" was judged Yes but not clustered
    assert (score.unweighted, score.weighted, score.categorical) == (1, 1, 1)
    assert score.reproduced == (True, False, False, False)


def test_repeated_word_within_a_group_is_not_the_gold_group():
    answer = {"x": ["SWORD", "CAT", "STAR", "STAR"], "y": ["SWORD", "CAT", "STAR", "JELLY", "KING"]}
    # neither a multiset with STAR twice nor a 5-word superset equals purple
    assert score_game(GOLD, answer).unweighted == 0


def test_right_words_under_a_wrong_name():
    answer = {"Things in the sea": ["SWORD", "CAT", "STAR", "JELLY"]}
    score = score_game(GOLD, answer, yes=set())  # the human said No
    # purple reproduced: unweighted 1, weighted 4, categorical 0
    assert (score.unweighted, score.weighted, score.categorical) == (1, 4, 0)
    named = score_game(GOLD, answer, yes={("THINGS IN THE SEA", 3)})
    assert named.categorical == 1
    wrong_gold = score_game(GOLD, answer, yes={("THINGS IN THE SEA", 2)})  # Yes for another gold group
    assert wrong_gold.categorical == 0


def test_letter_case_and_spaces():
    answer = {"c": [" lemon", "LIME ", "Orange", "GRAPEFRUIT"]}
    # exact (the study's rule): stripped but case-sensitive -> 0; casefold -> 1
    assert score_game(GOLD, answer).unweighted == 0
    assert score_game(GOLD, answer, match="casefold").unweighted == 1
    with pytest.raises(ValueError):
        score_game(GOLD, answer, match="fuzzy")


def test_gold_must_have_four_groups():
    with pytest.raises(ValueError):
        score_game(GOLD[:3], {})


def test_reasoning_ratio_by_hand():
    scores = pd.DataFrame({"unweighted": [2, 0, 4, 1], "categorical": [1, 0, 4, 0]})
    # games with unweighted > 0: 1/2, 4/4, 0/1 -> mean (0.5 + 1 + 0) / 3 = 0.5
    assert reasoning_ratio(scores) == pytest.approx(0.5)
    assert math.isnan(reasoning_ratio(scores.iloc[[1]]))


def test_histogram():
    assert histogram(pd.Series([0, 4, 4, 2]), 5) == [1, 0, 1, 0, 2]
    with pytest.raises(ValueError):
        histogram(pd.Series([5]), 5)


@pytest.mark.parametrize(
    ("label", "column"),
    [
        ("semantic relations", "Semantic Relations"),
        ("phonology", "Phonology/Orthography/Morphology"),
        ("orthography", "Phonology/Orthography/Morphology"),
        ("morphology", "Phonology/Orthography/Morphology"),
        ("multiword expressions", "Multiword Expressions"),
        ("encyclopedic + orthographical", "Word Meaning + Word Form"),
        ("semantic relations + multiword expressions", "Word Meaning + Word Form"),
        ("phonology + orthography", None),  # two form types: not one of the six columns
        ("", None),
        (None, None),
    ],
)
def test_taxonomy_columns(label, column):
    assert taxonomy_column(label) == column


def test_paired_tests_by_hand():
    # Human beats the model by 1, 2, 3 and 4 groups on four games and ties on a fifth.
    human = pd.DataFrame({"game_key": list("abcde"), "unweighted": [1, 2, 3, 4, 2]})
    model = pd.DataFrame({"game_key": list("abcde"), "unweighted": [0, 0, 0, 0, 2]})
    result = paired_tests(human, model)
    # Wilcoxon: zero difference dropped, n = 4, all ranks positive -> W- = 0;
    # exact two-sided p = 2 * P(W- = 0) = 2 * (1 / 2**4) = 0.125
    assert result["wilcoxon_p"] == pytest.approx(0.125)
    # "solved all four": human only on game d, model never -> discordant b = 1, c = 0;
    # exact McNemar p = 2 * 0.5**1 = 1.0 (capped at 1)
    assert result["solved_table"] == [[0, 1], [0, 4]]
    assert result["mcnemar_p"] == pytest.approx(1.0)
    assert result["unweighted_hist"] == [4, 0, 1, 0, 0]


def test_paired_mcnemar_three_discordant():
    human = pd.DataFrame({"game_key": list("abcd"), "unweighted": [4, 4, 4, 0]})
    model = pd.DataFrame({"game_key": list("abcd"), "unweighted": [1, 2, 3, 0]})
    # b = 3, c = 0: exact p = 2 * 0.5**3 = 0.25
    assert paired_tests(human, model)["mcnemar_p"] == pytest.approx(0.25)


def test_paired_tests_all_equal_is_nan():
    same = pd.DataFrame({"game_key": list("ab"), "unweighted": [1, 4]})
    result = paired_tests(same, same)
    assert math.isnan(result["wilcoxon_p"]) and math.isnan(result["mcnemar_p"])
