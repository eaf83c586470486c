"""Rescoring after relabelling when voided votes were for players (hand calculations), and the
judge audit built from the player-round table against the same audit from labels rows."""

from __future__ import annotations

import pandas as pd
import pytest

from wordplay_audit.analysis.balderdash.recompute import recompute_scores, replace_labels
from wordplay_audit.analysis.balderdash.summary import judge_audit_tables, strata_items
from wordplay_audit.analysis.judge_audit import judge_confusion
from wordplay_audit.corpora.balderdash import judge_labels_from_table
from wordplay_audit.corpora.balderdash.simulate import SimConfig, simulate_campaign
from wordplay_audit.errors import InputError


def _row(pid, true_def, vote, score):
    return {
        "game_id": "7",
        "round_id": 1,
        "player_id": pid,
        "model": "A",
        "true_def": true_def,
        "knows": true_def,
        "vote": vote,
        "score": score,
        "deck": "d",
        "judge_model": "j",
        "receiving_vote_points": 1,
        "correct_vote_points": 2,
        "correct_definition_points": 3,
        "item_id": f"bd:7:1:{pid}",
    }


def _people(items):
    rows = [(item, rater, "human", "true", "reference") for item in items for rater in ("r1", "r2")]
    return pd.DataFrame(rows, columns=["item_id", "rater", "rater_type", "label", "question"])


def test_two_voided_votes_for_one_player_each_take_a_point_back():
    # p1 and p2 voted for p4 (1 point each to p4); p3 and p4 voted for the reference (2 each)
    obs = pd.DataFrame(
        [
            _row("1", False, "4", 0),
            _row("2", False, "4", 0),
            _row("3", False, "-1", 2),
            _row("4", False, "-1", 4),
        ]
    )
    rescored = recompute_scores(replace_labels(obs, _people(["bd:7:1:1", "bd:7:1:2"]))).set_index("player_id")
    # p1, p2 turned true and drew no vote: each earns 3, their votes are void, p4 loses 1 + 1
    assert set(rescored["round_status"]) == {"recomputed"}
    assert rescored["score"].to_dict() == {"1": 3.0, "2": 3.0, "3": 2.0, "4": 2.0}
    assert rescored["vote"].to_dict() == {"1": "", "2": "", "3": "-1", "4": "-1"}


def test_a_voided_vote_for_a_player_and_one_for_the_reference():
    obs = pd.DataFrame(
        [
            _row("1", True, "", 3),
            _row("2", False, "3", 0),
            _row("3", False, "-1", 3),
            _row("4", False, "-1", 2),
        ]
    )
    rescored = recompute_scores(replace_labels(obs, _people(["bd:7:1:2", "bd:7:1:4"]))).set_index("player_id")
    # p2: 0 + 3, its vote for p3 void (p3: 3 − 1); p4: 2 − 2 (reference vote void) + 3
    assert rescored["score"].to_dict() == {"1": 3.0, "2": 3.0, "3": 2.0, "4": 3.0}


@pytest.fixture(scope="module")
def campaign():
    return simulate_campaign(SimConfig(games_per_deck=2, n_rounds=4, labels_per_stratum=6), seed=5)


def test_audit_from_the_table_is_the_audit_from_judge_label_rows(campaign):
    obs, labels = campaign.obs, campaign.labels
    combined = pd.concat([labels, judge_labels_from_table(obs)], ignore_index=True)
    for question, table in judge_audit_tables(obs, labels).items():
        expected = judge_confusion(combined, strata_items(obs), question=question, strata=("deck",))
        pd.testing.assert_frame_equal(table, expected)
        assert table.attrs["skipped"] == expected.attrs["skipped"]


def test_audit_with_a_repeated_item_id_is_refused_as_on_the_label_rows(campaign):
    # the direct route needs every id once (checked in Arrow): a repeated one takes the
    # judge-label-rows route and its error
    obs = campaign.obs.astype({"item_id": "str"})
    obs.loc[1, "item_id"] = obs.loc[0, "item_id"]
    with pytest.raises(InputError, match=f"item '{obs.loc[0, 'item_id']}' is judged twice"):
        judge_audit_tables(obs, campaign.labels)


def test_audit_with_two_judges_is_still_refused(campaign):
    obs = campaign.obs.assign(judge_model=["j1", "j2"] * (len(campaign.obs) // 2))
    with pytest.raises(InputError, match="several judges"):
        judge_audit_tables(obs, campaign.labels)


def _rescored_by_loop(frame: pd.DataFrame) -> tuple[list[str], list[float], list[str]]:
    """Status, score and vote per row by the rules, one round at a time in a plain loop."""
    rows = frame.to_dict(orient="records")
    status, score, vote = [""] * len(rows), [r["score"] for r in rows], [r["vote"] for r in rows]
    rounds: dict[tuple, list[int]] = {}
    for i, r in enumerate(rows):
        rounds.setdefault((r["game_id"], r["round_id"]), []).append(i)
    for members in rounds.values():
        changed = {i for i in members if rows[i]["true_def"] != rows[i]["true_def_judge"]}
        if not changed:
            for i in members:
                status[i] = "unchanged"
            continue

        def drew(i, members=members):
            return any(
                rows[j]["vote"] == rows[i]["player_id"] and rows[j]["vote"] not in ("", "-1")
                and rows[j]["vote"] != rows[j]["player_id"]
                for j in members
            )  # fmt: skip

        replay = any(not rows[i]["true_def"] or drew(i) for i in changed)
        for i in members:
            status[i] = "needs_replay" if replay else "recomputed"
            if replay:
                score[i] = float("nan")
        if replay:
            continue
        for i in sorted(changed):  # all turned true here
            r = rows[i]
            score[i] += r["correct_definition_points"]
            if r["vote"] == "-1":
                score[i] -= r["correct_vote_points"]
            elif r["vote"] != "":
                for k in members:
                    if rows[k]["player_id"] == r["vote"]:
                        score[k] -= r["receiving_vote_points"]
            vote[i] = ""
    return status, score, vote


@pytest.mark.parametrize("seed", range(40))
def test_rescoring_equals_a_plain_loop_over_random_rounds(seed):
    """Random rounds with votes for players, the reference, oneself and strangers, verdicts
    turned either way, and (on some seeds) a player listed twice in a round."""
    import numpy as np

    rng = np.random.default_rng(seed)
    rows = []
    for game, rnd in [("1", 1), ("1", 2), ("2", 1), ("10", 1)]:
        players = ["1", "2", "3", "4"][: int(rng.integers(2, 5))]
        if seed % 4 == 0:
            players = [*players, players[0]]
        for pid in players:
            judge = bool(rng.random() < 0.3)
            vote = "" if judge else str(rng.choice([*players, "-1", "9", ""]))
            rows.append(
                {**_row(pid, judge, vote, float(rng.integers(0, 6))), "game_id": game, "round_id": rnd}
            )
    frame = pd.DataFrame(rows)
    frame["true_def_judge"] = frame["true_def"]
    flip = rng.random(len(frame)) < 0.25
    frame["true_def"] = frame["true_def"] ^ flip
    got = recompute_scores(frame)
    status, score, vote = _rescored_by_loop(frame)
    assert got["round_status"].tolist() == status
    np.testing.assert_allclose(got["score"].to_numpy(float), score, equal_nan=True)
    assert got["vote"].tolist() == vote
