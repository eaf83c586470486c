"""A game that ends without its ending move is unfinished, not lost; a block holding two games is
split into its games.

The reference is LLMike's own game master and reporter (github.com/ejdisgjinika/LLMike,
``source/task.py`` and ``source/reporter.py``), facts only:

* the game master writes a blank line after a game only when the game is over (``round_end``),
  and ends a game on: a right guess; a special ``letter``; a letter not in the riddle (with the
  letter-loss rule); a letter move followed by a guess other than ``PASS``; the round limit
  (``ERROR``). After a wrong *opening* guess it plays on;
* its reporter builds a game (a "round") only when it meets a blank line, so the lines of a run
  that died inside a game are no game at all: it counts the games before them, and its win rate
  is their wins over them;
* a run continued with ``continue_from`` skips every riddle named in the file (the dead game's
  too) and appends its games right after the dead game's lines, without a blank line between.
"""

from __future__ import annotations

import json

import pandas as pd
import pytest

from tests.support.cli_checks import one_line_error
from tests.support.wof_logs import ALPHA, move, report_text
from wordplay_audit.analysis.wof.metrics import wof_metrics
from wordplay_audit.corpora.wof._fast import fast_columns
from wordplay_audit.corpora.wof.game import Rules, play_game
from wordplay_audit.corpora.wof.items import game_table, guess_items
from wordplay_audit.corpora.wof.reader import read_report

# 79 finished games: 35 × (ALPHA 0, a win after T E H; ALPHA 1, a win at the opening) = 70 wins,
# 3 × (ALPHA 2 letter not in the riddle, ALPHA 3 insufficient budget, ALPHA 4 wrong guess) = 9
# losses. Lines: a pair takes 4 + 1 + 1 + 1 = 7 lines, a triple 3 + 1 + 2 + 1 + 2 + 1 = 10, so
# the 79 games fill 35 × 7 + 3 × 10 = 275 lines and the dead game opens on line 276.
FINISHED = [ALPHA[0], ALPHA[1]] * 35 + [ALPHA[2], ALPHA[3], ALPHA[4]] * 3
DEAD = [  # the run died here: the opening, one letter shown, guess PASS, no blank line
    move("_", "___ ___", "PASS", "BIG CAT", 0),
    move("T", "___ __T", "PASS", "BIG CAT", 300, 300, 1),
]
NEXT = [  # the first game of the continued run (another riddle, as continue_from picks it)
    move("_", "___ ____", "PASS", "RED FISH", 0),
    move("S", "___ __S_", "RED FISH", "RED FISH", 400, 400, 1),
]


def lines(game: list[dict]) -> str:
    return "".join(json.dumps(m) + "\n" for m in game)


def died_in_last_game(path):
    path.write_text(report_text(FINISHED) + lines(DEAD), encoding="utf-8")
    return path


def continued(path, next_game=NEXT):
    """The file a run continued after dying leaves: the dead game's lines, then the next game's
    lines with no blank line between, a blank line, then one more game."""
    text = report_text(FINISHED[:3]) + lines(DEAD) + lines(next_game) + "\n" + report_text([ALPHA[1]])
    path.write_text(text, encoding="utf-8")
    return path


# --------------------------------------------------------------------------- the dead last game


def test_a_run_that_died_in_its_last_game_reads_as_the_upstream_reporter(run_cli, tmp_path):
    path = died_in_last_game(tmp_path / "run.jsonl")
    code, out, err = run_cli("wof", "metrics", str(path), "--json")
    assert code == 0, err
    payload = json.loads(out)
    model = payload["models"][0]
    # LLMike's reporter on this file: 79 games, '% win matches' = 70 / 79 × 100 = 88.6075949…
    assert (model["games"], model["wins"], model["losses"], model["unfinished"]) == (79, 70, 9, 1)
    assert 100 * model["win_rate"] == pytest.approx(88.60759493670885)
    # its '% insufficent budget', '% letter not in sentence', '% guess error': 3 of 9 each
    counts = {e["outcome"]: e["count"] for e in payload["errors"] if e["count"]}
    assert counts == {"insufficient_budget": 3, "missing_letter": 3, "wrong_guess": 3}
    assert payload["skipped"]["unfinished_games"] == 1
    assert payload["unfinished"] == [
        {"item_id": "wof:run:79", "model": "run", "file": str(path), "line": 276}
    ]


def test_the_unfinished_game_is_named_in_the_text(run_cli, tmp_path):
    path = died_in_last_game(tmp_path / "run.jsonl")
    code, out, err = run_cli("wof", "metrics", str(path))
    assert code == 0, err
    assert "unfinished" in out.splitlines()[0]  # the table has the column
    assert f"1 unfinished game (not counted as played, won or lost): wof:run:79 ({path} line 276)" in out


def test_the_unfinished_game_enters_no_letter_tally(tmp_path):
    model = wof_metrics(read_report(died_in_last_game(tmp_path / "run.jsonl")).moves)
    row = model.models.iloc[0]
    # letter moves: a pair T E H (3), a triple T Z | - | C (3): 35 × 3 + 3 × 3 = 114 (the dead T
    # would make 115); shown: 35 × 3 + 3 × 2 = 111; vowels: the pair's E, 35
    assert (row["letters_chosen"], row["correct_letters"], row["vowels_bought"]) == (114, 111, 35)
    # wrong guesses: the three ICE CREAMS (ICE CREAM), 2 words each, 9 letters vs 8 — the dead
    # game's PASS (1 word, 4 letters vs BIG CAT's 2 and 6) would add one to each count
    assert (row["wrong_guesses"], row["wrong_guess_words"], row["wrong_guess_letters"]) == (3, 0, 3)
    # first consonants: T in the 35 games 0 and the 3 games 2, C in the 3 games 4 (dead: one more T)
    first = model.first_consonants.set_index("letter")["games"]
    assert (first["T"], first["C"]) == (38, 3)
    # first pairs: TE (35 games 0), TZ (3 games 2); the dead game's single T makes no pair
    assert (row["games_with_pair"], row["distinct_first_pairs"]) == (38, 2)


def test_the_unfinished_game_is_no_annotation_item(run_cli, tmp_path):
    path = died_in_last_game(tmp_path / "run.jsonl")
    items, labels = guess_items(read_report(path).moves)
    assert len(items) == len(labels) == 79 and "wof:run:79" not in set(items["item_id"])
    code, _, err = run_cli("wof", "metrics", str(path), "--out", str(tmp_path / "m"))
    assert code == 0, err
    written = pd.read_csv(tmp_path / "m" / "items.csv", keep_default_na=False)
    assert written["item_id"].tolist() == [f"wof:run:{k}" for k in range(79)]


def test_recompute_counts_and_names_the_unfinished_game(run_cli, tmp_path):
    path = died_in_last_game(tmp_path / "run.jsonl")
    human = tmp_path / "human.csv"  # a person calls game 78 (ICE CREAMS) a win
    human.write_text("item_id,rater,rater_type,label\nwof:run:78,ann,human,true\n", encoding="utf-8")
    code, out, err = run_cli("wof", "recompute", "--seed", "0", str(path), "--human", str(human), "--json")
    assert code == 0, err
    payload = json.loads(out)
    rates = payload["win_rates"][0]
    assert rates["n"] == 79 and rates["judge"] == pytest.approx(70 / 79)
    assert rates["replaced"] == pytest.approx(71 / 79)
    assert payload["skipped"]["unfinished_games"] == 1
    assert payload["unfinished"][0]["item_id"] == "wof:run:79"
    code, out, err = run_cli("wof", "recompute", "--seed", "0", str(path), "--human", str(human))
    assert code == 0, err
    assert f"1 unfinished game (not counted as played, won or lost): wof:run:79 ({path} line 276)" in out


# --------------------------------------------------------------------------- which move ends a game


@pytest.mark.parametrize(
    ("last", "outcome"),
    [
        (move("_", "___ ___", "PASS", "SUN HAT", 0), "unfinished"),
        (move("_", "___ ___", "SUN CAT", "SUN HAT", 0), "unfinished"),  # LLMike plays on after it
        (move("T", "___ __T", "PASS", "SUN HAT", 200, 200, 1), "unfinished"),
        (move("T", "___ __T", "SUN CAT", "SUN HAT", 200, 200, 1), "wrong_guess"),
        (move("Z", "___ ___", "PASS", "SUN HAT", 0, 400, 0), "missing_letter"),
        (move("T", "___ __T", "SUN HAT", "SUN HAT", 200, 200, 1), "win"),
        (move("_", "___ ___", "SUN HAT", "SUN HAT", 0), "win"),
        (move("ERROR", "___ __T", "PASS", "SUN HAT", 200), "round_limit"),
        (move("INSUFFICENT BUDGET", "___ ___", "PASS", "SUN HAT", -250), "insufficient_budget"),
    ],
)
def test_only_an_ending_move_ends_a_game(tmp_path, last, outcome):
    game = [move("_", "___ ___", "PASS", "SUN HAT", 0)] if last["letter"] != "_" else []
    path = tmp_path / "m.jsonl"
    path.write_text(report_text([ALPHA[1], [*game, last]]), encoding="utf-8")  # with its blank line
    games = game_table(read_report(path).moves)
    assert games["outcome"].tolist() == ["win", outcome]
    assert games["finished"].tolist() == [True, outcome != "unfinished"]


def _cut_after_a_miss(tmp_path, letter_loss: bool):
    """A game master run on the riddle SUN HAT by a player naming Z (absent) — which ends the game
    under the letter-loss rule and sets the budget to 0 without it — then T, then H and the guess;
    the file cut after the first game's Z (the second game's opening and Z)."""

    class Player:
        def __init__(self):
            self.letters = iter("ZTH")

        def opening(self, view):
            return "PASS"

        def action(self, view):
            return "spin"

        def consonant(self, view, reward):
            return next(self.letters)

        def vowel(self, view):
            return "A"

        def guess(self, view):
            return view.solution if "H" in view.masked else "PASS"

    rules = Rules(letter_loss=letter_loss)
    played = [play_game("SUN HAT", "Thing", Player(), _Rng(), rules) for _ in range(2)]
    path = tmp_path / "m.jsonl"
    path.write_text(report_text([played[0]]) + lines(played[1][:2]), encoding="utf-8")
    return played[0], path


class _Rng:
    def choice(self, values):
        return values[0]


def test_a_miss_at_the_cut_is_unfinished_when_the_run_plays_on_after_misses(tmp_path):
    first, path = _cut_after_a_miss(tmp_path, letter_loss=False)
    assert [m["letter"] for m in first] == ["_", "Z", "T", "H"]  # the game went on after Z
    assert game_table(read_report(path).moves)["outcome"].tolist() == ["win", "unfinished"]
    first, path = _cut_after_a_miss(tmp_path, letter_loss=True)
    assert [m["letter"] for m in first] == ["_", "Z"]  # Z ended it
    assert game_table(read_report(path).moves)["outcome"].tolist() == ["missing_letter", "missing_letter"]


def test_a_miss_on_the_20th_round_then_error_is_no_sign_of_playing_on(tmp_path):
    # with the letter-loss rule a miss ends the game, and on the 20th round LLMike still logs ERROR
    # after it: a miss followed by ERROR says nothing about the rule, so the cut game below (its
    # last move a miss) is a missing_letter loss, as in any letter-loss file
    twentieth = [
        move("_", "___ ___", "PASS", "SUN HAT", 0),
        *[move("T", "___ __T", "PASS", "SUN HAT", 200, 200, 1)] * 19,
        move("Z", "___ __T", "PASS", "SUN HAT", 200, 300, 0),
        move("ERROR", "___ __T", "PASS", "SUN HAT", 200),
    ]
    missed = [move("_", "___ ___", "PASS", "SUN HAT", 0), move("Z", "___ ___", "PASS", "SUN HAT", 0, 300, 0)]
    path = tmp_path / "m.jsonl"
    path.write_text(report_text([twentieth, missed]), encoding="utf-8")
    assert game_table(read_report(path).moves)["outcome"].tolist() == ["round_limit", "missing_letter"]


# --------------------------------------------------------------------------- a continued run


@pytest.mark.parametrize("on_error", ["raise", "skip"])
def test_a_block_holding_two_games_is_split_into_its_games(run_cli, tmp_path, on_error):
    path = continued(tmp_path / "m.jsonl")
    code, out, err = run_cli("wof", "metrics", str(path), "--on-error", on_error, "--json")
    assert code == 0, err
    payload = json.loads(out)
    skipped = payload["skipped"]
    assert (skipped["games_dropped"], skipped["games_split_off"], skipped["unfinished_games"]) == (0, 1, 1)
    model = payload["models"][0]
    # ALPHA 0 (win), 1 (win), 0 (win), the dead game, NEXT (win), ALPHA 1 (win): 5 finished, all won
    assert (model["games"], model["wins"], model["unfinished"]) == (5, 5, 1)
    # ALPHA 0 on lines 1-4, ALPHA 1 on 6, ALPHA 0 on 8-11, the dead game on 13-14, NEXT on 15-16
    assert payload["unfinished"] == [{"item_id": "wof:m:3", "model": "m", "file": str(path), "line": 13}]
    games = game_table(read_report(path, on_error=on_error).moves).set_index("item_id")
    assert games.loc["wof:m:4", ["first_line", "line", "solution", "outcome"]].tolist() == [
        15,
        16,
        "RED FISH",
        "win",
    ]


def test_a_continued_run_reads_as_the_continuing_reporter(run_cli, tmp_path):
    # continue_from on the dead run: its reporter reads the 79 games before the dead lines, plays
    # NEXT (a win) and reports 80 games, '% win matches' = 71 / 80 × 100 = 88.75
    path = tmp_path / "run.jsonl"
    path.write_text(report_text(FINISHED) + lines(DEAD) + lines(NEXT) + "\n", encoding="utf-8")
    code, out, err = run_cli("wof", "metrics", str(path), "--json")
    assert code == 0, err
    model = json.loads(out)["models"][0]
    assert (model["games"], model["wins"], model["unfinished"]) == (80, 71, 1)
    assert 100 * model["win_rate"] == pytest.approx(88.75)


def test_a_continued_run_on_the_same_riddle_is_split_too(tmp_path):
    # the same solution in both games: nothing else tells them apart than the second opening '_'
    path = continued(tmp_path / "m.jsonl", next_game=[move("_", "___ ___", "BIG CAT", "BIG CAT", 0)])
    assert fast_columns(path) is None  # the fast path hands it to the careful one
    games = game_table(read_report(path).moves)
    assert games["outcome"].tolist() == ["win", "win", "win", "unfinished", "win", "win"]
    assert games.loc[3, "n_moves"] == 2 and games.loc[4, "n_moves"] == 1


def test_a_broken_line_drops_only_its_own_game_of_the_block(tmp_path):
    path = continued(tmp_path / "m.jsonl")
    text = path.read_text(encoding="utf-8").splitlines(keepends=True)
    assert '"guess": "RED FISH"' in text[15]
    text[15] = "not json\n"  # line 16: NEXT's second move
    path.write_text("".join(text), encoding="utf-8")
    log = read_report(path, on_error="skip")
    assert (log.skipped["games_dropped"], log.skipped["lines_dropped"]) == (1, 2)
    assert sorted(set(log.moves["game"])) == [0, 1, 2, 3, 5]  # the dead game 3 stays (unfinished)


def test_a_line_nested_too_deeply_is_named_by_its_line(run_cli, tmp_path):
    # every line of a block is parsed now (to find the games in it): 100,000 '[' on line 2 must
    # be a broken line like any other, not a RecursionError (it was one on line 1 already)
    for at in (1, 2):
        path = tmp_path / f"deep{at}.jsonl"
        text = lines(ALPHA[0]).splitlines(keepends=True)
        text[at - 1] = "[" * 100_000 + "\n"
        path.write_text("".join(text), encoding="utf-8")
        code, out, err = run_cli("wof", "metrics", str(path))
        one_line_error(
            code, out, err, f"{path} line {at}: expected a JSON object (one move)", "nested too deeply"
        )
