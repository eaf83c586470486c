"""The study's metrics on hand-made rounds, against values worked out by hand (working in comments).

Points: receiving vote 1, correct vote 2, true definition 3 (the framework's defaults).
"""

from __future__ import annotations

import math

import pandas as pd
import pytest

from wordplay_audit.analysis.balderdash.metrics import (
    balderdash_metrics,
    complete_games,
    game_metrics,
    round_metrics,
    setting_metrics,
)
from wordplay_audit.errors import InputError


def _row(game, rnd, pid, model, true_def, knows, vote, score):
    return {
        "game_id": game,
        "round_id": rnd,
        "player_id": pid,
        "model": model,
        "true_def": true_def,
        "knows": knows,
        "vote": vote,
        "score": score,
        "deck": "rare",
        "filter_words": "all",
        "history_type": "full",
        "judge_model": "j",
        "receiving_vote_points": 1.0,
        "correct_vote_points": 2.0,
        "correct_definition_points": 3.0,
        "item_id": f"bd:{game}:{rnd}:{pid}",
    }


def hand_rounds() -> pd.DataFrame:
    rows = [
        # game 1, round 1: p1 wrote a true definition; p2 → p3, p3 → reference, p4 → p2.
        # n = 4, T = 1, so DR denominators are n − T − 1 = 2.
        # received from others: p1 0, p2 1 (p4), p3 1 (p2), p4 0 → DR 0, .5, .5, 0
        # scores: p1 3; p2 1 (vote from p4); p3 2 + 1 = 3; p4 0
        _row("1", 1, "1", "A", True, True, "", 3),
        _row("1", 1, "2", "A", False, True, "3", 1),
        _row("1", 1, "3", "B", False, False, "-1", 3),
        _row("1", 1, "4", "B", False, False, "2", 0),
        # game 1, round 2: three true definitions, p4 → reference.
        # n − T − 1 = 4 − 3 − 1 = 0 → DR undefined for every player.
        # CGR: model A has 2 players, 2 true → 0/0 undefined; model B: p4 correct → 1/(2 − 1) = 1
        _row("1", 2, "1", "A", True, True, "", 3),
        _row("1", 2, "2", "A", True, True, "", 3),
        _row("1", 2, "3", "B", True, True, "", 3),
        _row("1", 2, "4", "B", False, False, "-1", 2),
        # game 2, round 1: no true definition; p5 → p7, p6 → p6 (a vote for itself, which the
        # study does not count as deception), p7 → p5, p8 → reference. n − T − 1 = 3.
        # received from others: p5 1, p6 0, p7 1, p8 0 → DR 1/3, 0, 1/3, 0
        # recorded scores (the framework credits every vote): p5 1, p6 1, p7 1, p8 2
        _row("2", 1, "5", "A", False, True, "7", 1),
        _row("2", 1, "6", "A", False, False, "6", 1),
        _row("2", 1, "7", "B", False, False, "5", 1),
        _row("2", 1, "8", "B", False, True, "-1", 2),
    ]
    return pd.DataFrame(rows)


def _get(frame: pd.DataFrame, **keys) -> pd.Series:
    mask = pd.Series(True, index=frame.index)
    for k, v in keys.items():
        mask &= frame[k] == v
    assert mask.sum() == 1
    return frame.loc[mask].iloc[0]


def test_round_metrics_by_hand():
    rounds = round_metrics(hand_rounds())
    a1 = _get(rounds, game_id="1", round_id=1, model="A")
    # A in g1r1: knows 2/2, true 1/2, DR mean(0, .5), CGR 0 correct / (2 − 1), AS (3 + 1)/2
    assert (a1.lkr, a1.tdr, a1.dr, a1.cgr, a1["as"]) == pytest.approx((1.0, 0.5, 0.25, 0.0, 2.0))
    b1 = _get(rounds, game_id="1", round_id=1, model="B")
    # B in g1r1: knows 0/2, true 0/2, DR mean(.5, 0), CGR 1/2, AS (3 + 0)/2
    assert (b1.lkr, b1.tdr, b1.dr, b1.cgr, b1["as"]) == pytest.approx((0.0, 0.0, 0.25, 0.5, 1.5))
    a2 = _get(rounds, game_id="1", round_id=2, model="A")
    assert math.isnan(a2.dr) and math.isnan(a2.cgr)  # both denominators are 0
    assert (a2.lkr, a2.tdr, a2["as"]) == pytest.approx((1.0, 1.0, 3.0))
    b2 = _get(rounds, game_id="1", round_id=2, model="B")
    # B in g1r2: knows (p3 yes, p4 no) 1/2; CGR 1/(2 − 1); AS (3 + 2)/2
    assert math.isnan(b2.dr)
    assert (b2.lkr, b2.tdr, b2.cgr, b2["as"]) == pytest.approx((0.5, 0.5, 1.0, 2.5))
    a3 = _get(rounds, game_id="2", round_id=1, model="A")
    # the self vote of p6 is not deception: DR mean(1/3, 0) = 1/6
    assert (a3.lkr, a3.tdr, a3.dr, a3.cgr, a3["as"]) == pytest.approx((0.5, 0.0, 1 / 6, 0.0, 1.0))
    b3 = _get(rounds, game_id="2", round_id=1, model="B")
    assert (b3.lkr, b3.tdr, b3.dr, b3.cgr, b3["as"]) == pytest.approx((0.5, 0.0, 1 / 6, 0.5, 1.5))


def test_game_and_setting_levels_by_hand():
    games = game_metrics(round_metrics(hand_rounds()))
    a = _get(games, game_id="1", model="A")
    # LKR mean(1, 1); TDR mean(.5, 1); DR .25 (round 2 undefined, left out); CGR 0 (same); AS mean(2, 3)
    assert (a.lkr, a.tdr, a.dr, a.cgr, a["as"]) == pytest.approx((1.0, 0.75, 0.25, 0.0, 2.5))
    b = _get(games, game_id="1", model="B")
    # CGR mean(.5, 1) = .75; AS mean(1.5, 2.5) = 2
    assert (b.lkr, b.tdr, b.dr, b.cgr, b["as"]) == pytest.approx((0.25, 0.25, 0.25, 0.75, 2.0))
    settings = setting_metrics(games)
    sa = _get(settings, model="A")
    # over games 1 and 2: LKR (1, .5) → mean .75, population SD .25; TDR (.75, 0) → .375 ± .375
    # DR (.25, 1/6) → 5/24 ± 1/24; CGR (0, 0) → 0 ± 0; AS (2.5, 1) → 1.75 ± .75
    assert sa.n_games == 2
    assert (sa.lkr_mean, sa.lkr_sd, sa.tdr_mean, sa.tdr_sd) == pytest.approx((0.75, 0.25, 0.375, 0.375))
    assert (sa.dr_mean, sa.dr_sd, sa.cgr_mean, sa.cgr_sd) == pytest.approx((5 / 24, 1 / 24, 0.0, 0.0))
    assert (sa.as_mean, sa.as_sd) == pytest.approx((1.75, 0.75))
    sb = _get(settings, model="B")
    # CGR (.75, .5) → .625 ± .125; AS (2, 1.5) → 1.75 ± .25
    assert (sb.cgr_mean, sb.cgr_sd, sb.as_mean, sb.as_sd) == pytest.approx((0.625, 0.125, 1.75, 0.25))


def test_a_game_with_only_undefined_rounds_is_left_out_of_dr_and_cgr():
    # game 3: every player wrote a true definition: n − T − 1 = −1 and no guesser → both undefined
    extra = pd.DataFrame(
        [_row("3", 1, str(p), m, True, True, "", 3) for p, m in ((9, "A"), (10, "A"), (11, "B"), (12, "B"))]
    )
    obs = pd.concat([hand_rounds(), extra], ignore_index=True)
    settings = balderdash_metrics(obs)["settings"]
    sa = _get(settings, model="A")
    assert sa.n_games == 3
    assert (sa.dr_mean, sa.cgr_mean) == pytest.approx((5 / 24, 0.0))  # games 1 and 2 only
    # LKR over (1, .5, 1): mean 5/6, population SD √(((1/6)² + (1/3)² + (1/6)²)/3) = √(1/18)
    assert (sa.lkr_mean, sa.lkr_sd) == pytest.approx((5 / 6, math.sqrt(1 / 18)))


def test_metrics_do_not_depend_on_row_order():
    obs = hand_rounds()
    shuffled = obs.sample(frac=1.0, random_state=3).reset_index(drop=True)
    pd.testing.assert_frame_equal(round_metrics(obs), round_metrics(shuffled))


def test_complete_games_drops_games_missing_a_round():
    obs = hand_rounds()
    kept, dropped = complete_games(obs, pd.Series({"1": 2, "2": 2}))
    assert dropped == ["2"] and set(kept["game_id"]) == {"1"}


def test_missing_column_is_an_input_error():
    with pytest.raises(InputError, match="'vote'"):
        round_metrics(hand_rounds().drop(columns=["vote"]))


def _deception_by_loop(obs: pd.DataFrame) -> list[float]:
    """v_p / (n − T − 1) per row, by a plain loop over the rows of each row's round."""
    rows = obs.to_dict(orient="records")
    missing = [pd.isna(r["game_id"]) or pd.isna(r["round_id"]) for r in rows]
    out = []
    for i, row in enumerate(rows):
        if missing[i]:
            out.append(math.nan)
            continue
        mates = [
            r for k, r in enumerate(rows)
            if not missing[k] and (r["game_id"], r["round_id"]) == (row["game_id"], row["round_id"])
        ]  # fmt: skip
        n, t = len(mates), sum(bool(r["true_def"]) for r in mates)
        v = sum(
            1
            for r in mates
            if not pd.isna(r["vote"]) and r["vote"] not in ("", "-1") and r["vote"] != r["player_id"]
            and not pd.isna(row["player_id"]) and r["vote"] == row["player_id"]
        )  # fmt: skip
        out.append(v / (n - t - 1) if n - t - 1 > 0 else math.nan)
    return out


@pytest.mark.parametrize("seed", range(40))
def test_deception_ratio_equals_a_plain_loop_on_random_rounds(seed):
    """Self votes, votes for strangers or for the reference, no vote, missing values, players
    of the same id in other rounds, repeated players: the vectorised count equals the loop's."""
    import numpy as np

    from wordplay_audit.analysis.balderdash.metrics import player_deception

    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 40))
    ids = ["1", "2", "3", "4", "10"]
    vote_choices = [*ids, "", "-1", "99", None]
    obs = pd.DataFrame(
        {
            "game_id": pd.array(rng.choice(["a", "b", None], n, p=[0.45, 0.45, 0.1]), dtype="str"),
            "round_id": rng.integers(1, 3, n),
            "player_id": pd.array(rng.choice([*ids, None], n, p=[0.19] * 5 + [0.05]), dtype="str"),
            "model": "m",
            "true_def": rng.random(n) < 0.3,
            "knows": True,
            "vote": pd.array([vote_choices[k] for k in rng.integers(0, len(vote_choices), n)], dtype="str"),
            "score": 0.0,
        }
    )
    got = player_deception(obs).to_numpy()
    np.testing.assert_allclose(got, _deception_by_loop(obs), equal_nan=True)
