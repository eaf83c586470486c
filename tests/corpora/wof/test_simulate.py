"""The game master, the scripted players, and the round trip through the reader."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from wordplay_audit.analysis.wof.metrics import wof_metrics
from wordplay_audit.corpora.wof.game import Rules, format_report, play_game, reveal
from wordplay_audit.corpora.wof.items import guess_items
from wordplay_audit.corpora.wof.players import near_miss
from wordplay_audit.corpora.wof.reader import read_reports
from wordplay_audit.corpora.wof.riddles import read_riddles
from wordplay_audit.corpora.wof.simulate import simulate_games, write_simulation
from wordplay_audit.errors import ParameterError


class Scripted:
    """Answers from fixed lists, in order (for hand-checked games)."""

    def __init__(self, actions, letters, guesses, opening="PASS"):
        self.actions, self.letters, self.guesses = list(actions), list(letters), list(guesses)
        self.first = opening

    def opening(self, view):
        return self.first

    def action(self, view):
        return self.actions.pop(0)

    def consonant(self, view, reward):
        return self.letters.pop(0)

    def vowel(self, view):
        return self.letters.pop(0)

    def guess(self, view):
        return self.guesses.pop(0)


RNG = np.random.default_rng(0)
FIXED = Rules(wheel=(300,))


def _rows(moves):
    return [
        (m["letter"], m["masked"], m["guess"], m["budget"], m["wheel_reward"], m["letter_occurences"])
        for m in moves
    ]


def test_a_won_game_move_by_move():
    player = Scripted(["spin", "buy", "spin"], ["T", "E", "H"], ["PASS", "PASS", "THE CAT"])
    moves = play_game("THE CAT", "Living things", player, RNG, FIXED)
    assert _rows(moves) == [
        ("_", "___ ___", "PASS", 0, "/", "/"),
        ("T", "T__ __T", "PASS", 600, 300, 2),  # 300 $ x 2 T
        ("E", "T_E __T", "PASS", 350, "/", 1),  # a vowel costs 250 $
        ("H", "THE __T", "THE CAT", 650, 300, 1),
    ]
    assert all(m["solution"] == "THE CAT" for m in moves)


@pytest.mark.parametrize(
    ("actions", "letters", "guesses", "last"),
    [
        (["dance"], [], [], ("INSTRUCTION ERROR", "___ ___", "PASS", -250, "/", "/")),
        (["spin"], ["E"], [], ("VOWEL NOT ALLOWED", "___ ___", "PASS", 0, "/", "/")),
        (["buy"], ["T"], [], ("CONSONANT NOT ALLOWED", "___ ___", "PASS", -250, "/", "/")),
        (["buy"], ["PASS"], [], ("INSTRUCTION ERROR", "___ ___", "PASS", -250, "/", "/")),
        (["buy"], ["E"], [], ("INSUFFICENT BUDGET", "___ ___", "PASS", -250, "/", "/")),
        (["spin"], ["Z"], [], ("Z", "___ ___", "PASS", 0, 300, 0)),
        (["spin", "spin"], ["T", "T"], ["PASS"], ("T", "T__ __T", "PASS", 600, 300, 0)),  # shown again
        (["spin"], ["C"], ["THE KAT"], ("C", "___ C__", "THE KAT", 300, 300, 1)),
    ],
)
def test_each_way_to_lose(actions, letters, guesses, last):
    moves = play_game("THE CAT", "x", Scripted(actions, letters, guesses), RNG, FIXED)
    assert _rows(moves)[-1] == last


def test_no_letter_loss_resets_budget_and_round_limit():
    rules = Rules(wheel=(300,), letter_loss=False, max_rounds=3)
    player = Scripted(["spin"] * 3, ["T", "Z", "C"], ["PASS", "PASS"])
    moves = play_game("THE CAT", "x", player, RNG, rules)
    assert _rows(moves) == [
        ("_", "___ ___", "PASS", 0, "/", "/"),
        ("T", "T__ __T", "PASS", 600, 300, 2),
        ("Z", "T__ __T", "PASS", 600, 300, 0),  # logged before the budget is reset
        ("C", "T__ C_T", "PASS", 300, 300, 1),  # 0 + 300
        ("ERROR", "T__ C_T", "PASS", 300, "/", "/"),
    ]


def test_report_text_format():
    moves = play_game("GO", "x", Scripted([], [], [], opening="GO"), RNG, FIXED)
    assert format_report([moves, moves]).count("\n\n") == 2
    assert format_report([moves]).startswith(
        '{"letter": "_", "masked": "__", "guess": "GO", "solution": "GO", "budget": 0'
    )


def test_reveal_counts_newly_shown_only():
    assert reveal("T", "___ ___", "THE CAT") == ("T__ __T", 2)
    assert reveal("T", "T__ __T", "THE CAT") == ("T__ __T", 0)


@pytest.mark.parametrize("seed", [0, 1, 2, 3, 4])
def test_near_miss_differs_and_keeps_words(seed):
    rng = np.random.default_rng(seed)
    for solution in ("A VASE FULL OF FLOWERS", "CLOSET ORGANIZER", "I HAVE A DREAM", "GO"):
        kind, text = near_miss(solution, rng)
        assert text != solution and kind in ("article", "dropped", "doubled", "swapped")
        if kind == "article":
            assert len(text.split()) == len(solution.split()) - 1


@pytest.fixture(scope="module")
def riddles(wof_dir):
    return read_riddles(wof_dir / "WoF.jsonl")


def test_round_trip_over_the_real_riddles(riddles, tmp_path):
    runs = {
        p: simulate_games(riddles, p, n_games=80, seed=7)
        for p in ("frequent-consonant", "random", "overconfident")
    }
    write_simulation(tmp_path, runs)
    log = read_reports(tmp_path)
    assert log.skipped["broken_lines"] == 0 and log.skipped["unterminated_last_game"] == 0
    for model, games in runs.items():
        assert sorted(g.solution for g in games) == sorted(riddles["sentence"])  # each riddle once
        got = log.moves[log.moves["model"] == model]
        written = pd.DataFrame([{**m, "game": g.index} for g in games for m in g.moves])
        written["wheel_reward"] = written["wheel_reward"].replace("/", None)
        written["letter_occurences"] = written["letter_occurences"].replace("/", None)
        for column in ("game", "letter", "masked", "guess", "solution", "budget"):
            assert got[column].astype(str).tolist() == written[column].astype(str).tolist(), column
        for column in ("wheel_reward", "letter_occurences"):
            assert (
                got[column].astype("Float64").fillna(-1).tolist()
                == written[column].astype("Float64").fillna(-1).tolist()
            )
    truth = pd.read_csv(tmp_path / "truth.csv", keep_default_na=False)
    items, labels = guess_items(log.moves)
    merged = labels.merge(truth, on="item_id", validate="one_to_one")
    assert len(merged) == 240
    assert (merged["label"] == np.where(merged["exact_match"], "true", "false")).all()


def test_policies_in_the_expected_direction(riddles):
    games = {
        p: simulate_games(riddles, p, n_games=240, seed=11)
        for p in ("frequent-consonant", "random", "overconfident")
    }
    wins = {p: np.mean([g.final_guess == g.solution for g in gs]) for p, gs in games.items()}
    assert wins["frequent-consonant"] > wins["random"]
    near = [g for g in games["overconfident"] if g.near_miss]
    assert len(near) > 0 and all(not g.moves[-1]["guess"] == g.solution for g in near)
    assert not any(g.near_miss for g in games["frequent-consonant"] + games["random"])
    truly = np.mean([g.truly_solved for g in games["overconfident"]])
    assert truly > np.mean([g.final_guess == g.solution for g in games["overconfident"]])


def test_seeded_and_independent_of_other_policies(riddles):
    a = simulate_games(riddles, "random", n_games=20, seed=3)
    b = simulate_games(riddles, "random", n_games=20, seed=3)
    c = simulate_games(riddles, "random", n_games=20, seed=4)
    assert [g.moves for g in a] == [g.moves for g in b]
    assert [g.moves for g in a] != [g.moves for g in c]


def test_random_breaks_every_rule(riddles, tmp_path):
    write_simulation(tmp_path, {"random": simulate_games(riddles, "random", n_games=400, seed=5)})
    errors = wof_metrics(read_reports(tmp_path).moves).errors.set_index("outcome")["count"]
    for outcome in ("insufficient_budget", "action_na", "consonant_na", "vowel_na", "missing_letter"):
        assert errors[outcome] > 0, outcome


def test_bad_simulation_options(riddles):
    with pytest.raises(
        ParameterError, match="policy: expected one of frequent-consonant, random, overconfident"
    ):
        simulate_games(riddles, "smart", n_games=1)
    with pytest.raises(ParameterError, match="^n_games: expected a positive number of games"):
        simulate_games(riddles, "random", n_games=0)
