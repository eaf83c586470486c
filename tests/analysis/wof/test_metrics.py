"""LLMike metrics on hand-made logs (tests/support/wof_logs.py); every expected value worked by hand."""

from __future__ import annotations

import math

import pytest

from tests.support.wof_logs import write_logs
from wordplay_audit.analysis.wof.metrics import wof_metrics
from wordplay_audit.corpora.wof.reader import read_reports


@pytest.fixture(scope="module")
def result(tmp_path_factory):
    folder = write_logs(tmp_path_factory.mktemp("wof"))
    return wof_metrics(read_reports(folder).moves)


def row(result, model):
    return result.models.set_index("model").loc[model]


def errors(result, model):
    table = result.errors[result.errors["model"] == model].set_index("outcome")
    return table["count"].to_dict(), table["percent_of_losses"].to_dict()


def test_alpha_counts(result):
    a = row(result, "alpha")
    assert (a["games"], a["wins"], a["losses"]) == (5, 2, 3)
    assert a["win_rate"] == pytest.approx(2 / 5)
    # won games: 850 $ (game 0) + 0 $ (game 1, won at the opening); lost games take nothing
    assert a["final_budget_total"] == 850
    assert a["final_budget_mean_won"] == pytest.approx(425)
    # letters: T E H | - | T Z | - | C = 6; shown: T E H, T, C = 5 (Z absent)
    assert a["letters_chosen"] == 6
    assert a["pct_correct_letters"] == pytest.approx(100 * 5 / 6)
    # completion when the right guess came: "THE __T" 4 of 6 letters; "___" 0 of 3
    assert a["completion_at_win"] == pytest.approx((100 * 4 / 6 + 0) / 2)
    assert a["vowels_bought"] == 1


def test_alpha_errors_and_shapes(result):
    counts, percent = errors(result, "alpha")
    assert counts == {
        "insufficient_budget": 1,
        "action_na": 0,
        "consonant_na": 0,
        "vowel_na": 0,
        "missing_letter": 1,
        "wrong_guess": 1,
        "round_limit": 0,
    }
    assert percent["missing_letter"] == pytest.approx(100 / 3)
    assert percent["round_limit"] == 0
    a = row(result, "alpha")
    # "ICE CREAMS" vs "ICE CREAM": 2 words each, 9 letters vs 8
    assert (a["wrong_guesses"], a["wrong_guess_words"], a["wrong_guess_letters"]) == (1, 0, 1)


def test_alpha_first_letters(result):
    a = row(result, "alpha")
    # games with two letters: TE(H), TZ -> 2 distinct pairs; one triplet TEH
    assert (a["games_with_pair"], a["distinct_first_pairs"]) == (2, 2)
    assert (a["games_with_triplet"], a["distinct_first_triplets"]) == (1, 1)
    fc = result.first_consonants
    fc = fc[fc["model"] == "alpha"].set_index("letter")
    # first consonants: T (game 0), T (game 2), C (game 4)
    assert fc.loc["T", "games"] == 2 and fc.loc["T", "percent"] == pytest.approx(200 / 3)
    assert fc.loc["C", "percent"] == pytest.approx(100 / 3)
    assert fc.loc["N", "games"] == 0 and fc.loc["N", "english_percent"] == 6.7
    assert fc.loc["T", "english_percent"] == 9.1
    assert math.isnan(fc.loc["C", "english_percent"])


def test_beta_every_other_error(result):
    counts, percent = errors(result, "beta")
    assert counts == {
        "insufficient_budget": 0,
        "action_na": 1,
        "consonant_na": 1,
        "vowel_na": 1,
        "missing_letter": 0,
        "wrong_guess": 1,
        "round_limit": 1,
    }
    assert all(percent[k] == pytest.approx(20) for k, v in counts.items() if v == 1)
    b = row(result, "beta")
    # the game whose ERROR move carries the right guess counts as won (last guess = solution)
    assert (b["games"], b["wins"]) == (6, 1)
    assert b["final_budget_total"] == 100
    assert b["completion_at_win"] == pytest.approx(50)  # "G_"
    # letters T, N, T, G: all shown
    assert b["letters_chosen"] == 4 and b["pct_correct_letters"] == pytest.approx(100)
    # "HOTDOG" vs "HOT DOG": 1 word vs 2, 6 letters each
    assert (b["wrong_guess_words"], b["wrong_guess_letters"]) == (1, 0)
    assert b["distinct_first_pairs"] == 0 and b["vowels_bought"] == 0
    fc = result.first_consonants
    fc = fc[fc["model"] == "beta"].set_index("letter")
    assert fc.loc["T", "percent"] == pytest.approx(50) and fc.loc["G", "percent"] == pytest.approx(25)


def test_order_of_moves_does_not_matter(result, tmp_path):
    moves = read_reports(write_logs(tmp_path)).moves
    shuffled = moves.sample(frac=1.0, random_state=3)
    again = wof_metrics(shuffled)
    cols = ["model", "games", "wins", "letters_chosen", "distinct_first_pairs", "completion_at_win"]
    assert again.models[cols].equals(result.models[cols])


def test_undefined_shares_are_nan(tmp_path):
    from tests.support.wof_logs import BETA, report_text

    (tmp_path / "m.jsonl").write_text(report_text(BETA[:1]), encoding="utf-8")
    r = wof_metrics(read_reports(tmp_path).moves)
    m = r.models.iloc[0]
    assert m["wins"] == 0 and math.isnan(m["completion_at_win"]) and math.isnan(m["pct_correct_letters"])
    assert math.isnan(m["final_budget_mean_won"])
