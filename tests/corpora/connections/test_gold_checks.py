"""``connections score``: a gold group that is not 4 distinct words of the game's 16 is refused —
one line naming the file, the game (its record) and the category, exit code 2, nothing written."""

from __future__ import annotations

import json

import pytest

from tests.support.cli_checks import one_line_error
from wordplay_audit.analysis.connections import analyze_connections
from wordplay_audit.corpora.connections import read_connections
from wordplay_audit.corpora.demo import write_demo_corpus
from wordplay_audit.errors import InputError

# game 1 of the demo corpus: PLANETS MARS VENUS SATURN MERCURY | KITCHEN UTENSILS WHISK LADLE
# SPATULA TONGS | MUSICAL TEMPOS ADAGIO PRESTO LARGO ALLEGRO | ___BALL FOOT BASE SNOW EYE


@pytest.fixture
def folder(tmp_path):
    return write_demo_corpus(tmp_path / "cx")


def edit_game(folder, index, change):
    path = folder / "gold_data.json"
    records = json.loads(path.read_text(encoding="utf-8"))
    change(records[index])
    path.write_text(json.dumps(records, indent=1), encoding="utf-8")


def moved(record):  # MARS moved from PLANETS to ___BALL: 3 words and 5 words, the 16 all there
    record["categories"]["PLANETS"].remove("MARS")
    record["categories"]["___BALL"].append("MARS")


def fifth(record):  # PLUTO, not one of the game's 16 words, as a fifth planet
    record["categories"]["PLANETS"].append("PLUTO")


def outsider(record):  # four words, one of them not in the game
    record["categories"]["PLANETS"][0] = "PLUTO"


def in_two_groups(record):  # MARS in PLANETS and in ___BALL (EYE gone from the groups)
    record["categories"]["___BALL"][3] = "MARS"


def twice(record):  # MARS twice in PLANETS (VENUS gone from the groups)
    record["categories"]["PLANETS"][1] = "MARS"


def seventeen(record):  # a 17th word in allwords that no group holds
    record["allwords"] += ", PLUTO"


CASES = {
    "3 words, the 4th in another group": (moved, "[1].categories: category 'PLANETS' has 3 words"),
    "5 words, one not of the game": (fifth, "[1].categories: category 'PLANETS' has 5 words; a gold"),
    "a word not of the game": (
        outsider,
        "[1].categories: category 'PLANETS' holds 'PLUTO', which is not one of the game's 16 words",
    ),
    "a word in two groups": (
        in_two_groups,
        "[1].categories: category '___BALL' holds 'MARS', which category 'PLANETS' holds too",
    ),
    "a word twice in a group": (twice, "[1].categories: category 'PLANETS' holds 'MARS' twice"),
    "17 words in allwords": (seventeen, "[1].allwords: 17 words; expected the game's 16 distinct words"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_gold_game_that_is_not_4_groups_of_4_distinct_words_of_its_16_is_refused(
    run_cli, folder, tmp_path, case
):
    change, message = CASES[case]
    edit_game(folder, 1, change)
    out = tmp_path / "out"
    code, stdout, err = run_cli("connections", "score", "--data", str(folder), "--out", str(out))
    one_line_error(code, stdout, err, f"{folder / 'gold_data.json'}: {message}")
    assert not out.exists() and sorted(p.name for p in tmp_path.iterdir()) == ["cx"]
    with pytest.raises(InputError, match="gold_data.json: "):
        read_connections(folder)


def test_the_few_shot_games_are_checked_too(folder):
    def fifth_letter(record):
        record["categories"]["GREEK LETTERS"].append("PLUTO")

    edit_game(folder, 6, fifth_letter)
    with pytest.raises(InputError, match=r"gold_data.json: \[6\].categories: category 'GREEK LETTERS' has 5"):
        read_connections(folder)


def test_a_game_whose_words_are_not_text_is_counted_not_checked(folder):
    # the study's game 147 lost its emoji in encoding: '?' sixteen times, groups of '?' and '??'
    def question_marks(record):
        words = ["?"] * 5 + ["??"] * 2 + ["?"] * 7 + ["??", "?"]
        record["allwords"] = ", ".join(words)
        record["categories"] = {name: words[4 * k : 4 * k + 4] for k, name in enumerate(record["categories"])}

    edit_game(folder, 1, question_marks)
    data = read_connections(folder)
    assert data.quirks[("gold_data.json", "game whose words are not text")] == 1
    assert not data.games.set_index("game_index").loc[1, "scored"]


def test_the_well_formed_demo_is_scored_as_before(folder):
    result = analyze_connections(read_connections(folder), plots=False)
    assert result.games == 6  # 7 games less the few-shot example


def test_the_study_gold_is_accepted(connections_dir):
    # 442 games: every text game is 4 groups of 4 distinct words of its 16; 438 are scored
    data = read_connections(connections_dir)
    assert len(data.games) == 442 and int(data.games["scored"].sum()) == 438
