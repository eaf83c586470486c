"""The simulator: deterministic, written in the exact export format, scored by the rules."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from wordplay_audit.corpora.balderdash import PLAYER_ROUND_COLUMNS, player_round_table, read_export
from wordplay_audit.corpora.balderdash.frames import CATEGORY_COLUMNS
from wordplay_audit.corpora.balderdash.simulate import SimConfig, simulate_campaign
from wordplay_audit.corpora.balderdash.writer import write_campaign
from wordplay_audit.corpora.contract import read_labels
from wordplay_audit.errors import InputError

SMALL = SimConfig(games_per_deck=2, n_rounds=6, labels_per_stratum=5)


def test_same_seed_same_campaign():
    a, b = simulate_campaign(SMALL, seed=3), simulate_campaign(SMALL, seed=3)
    pd.testing.assert_frame_equal(a.obs, b.obs)
    pd.testing.assert_frame_equal(a.labels, b.labels)
    assert not simulate_campaign(SMALL, seed=4).obs["knows"].equals(a.obs["knows"])


def test_written_export_reads_back_identically(tmp_path):
    campaign = simulate_campaign(SMALL, seed=5)
    write_campaign(campaign, tmp_path)
    first = json.loads((tmp_path / "rounds.jsonl").read_text().splitlines()[0])
    assert set(first["_id"]) == {"$oid"} and len(first["_id"]["$oid"]) == 24
    export = read_export(tmp_path)
    table = player_round_table(export)
    columns = [*PLAYER_ROUND_COLUMNS, "vote", "score"]
    expected = campaign.obs[columns].copy()
    key = ["game_id", "round_id", "player_id"]
    got = table[columns].sort_values(key, key=lambda s: s.astype(int)).reset_index(drop=True)
    assert isinstance(got["model"].dtype, pd.CategoricalDtype)  # the reader's table; the simulator's is str
    got = got.astype({c: "str" for c in CATEGORY_COLUMNS if c in columns})
    expected = expected.sort_values(key, key=lambda s: s.astype(int)).reset_index(drop=True)
    pd.testing.assert_frame_equal(got, expected, check_dtype=False)
    assert export.skipped == {}
    assert set(export.items["frequency_band"]) == {"common", "rare"}
    labels = read_labels(tmp_path / "labels.csv", items=export.items)
    assert len(labels) == len(campaign.labels)
    truth = pd.read_csv(tmp_path / "truth.csv")
    assert (truth["true_ref"] <= truth["true_any"]).all()


def test_scores_follow_the_rules():
    obs = simulate_campaign(SMALL, seed=6).obs
    received = (
        obs[(obs["vote"] != "") & (obs["vote"] != "-1")].groupby(["game_id", "round_id", "vote"]).size()
    )
    for row in obs.itertuples():
        expected = (
            3 * row.true_def
            + 2 * (row.vote == "-1")
            + received.get((row.game_id, row.round_id, row.player_id), 0)
        )
        assert row.score == expected
        assert not (row.true_def and row.vote)  # true definitions do not vote
        assert row.knows or not row.true_def  # the framework's "knows" includes the reference


def test_judge_accuracy_is_what_was_asked_for():
    config = SimConfig(
        models=("m",),
        games_per_deck=10,
        players_per_model=5,
        n_rounds=40,
        judge_se={"m": 0.7},
        judge_sp={"m": 0.9},
        labels_per_stratum=0,
    )
    campaign = simulate_campaign(config, seed=8)
    truth, obs = campaign.truth, campaign.obs
    # 4000 definitions: binomial SE of each rate ≲ .012, so ±.04 is > 3 SE
    for judged, true in (("true_def", "true_ref"), ("knows", "true_any")):
        se = obs.loc[truth[true].to_numpy(), judged].mean()
        sp = 1 - obs.loc[~truth[true].to_numpy(), judged].mean()
        assert se == pytest.approx(0.7, abs=0.04) and sp == pytest.approx(0.9, abs=0.04)


def test_learning_slope_raises_knowledge():
    config = SimConfig(
        models=("m",),
        decks=("d",),
        games_per_deck=20,
        n_rounds=20,
        know={"m": {"d": 0.2}},
        slope={"m": 0.03},
        labels_per_stratum=0,
    )
    truth = simulate_campaign(config, seed=9).truth
    assert np.allclose(truth.groupby("round_id")["p_know"].first().diff().dropna(), 0.03)


def test_bad_config_is_refused():
    with pytest.raises(InputError, match="rater_accuracy"):
        simulate_campaign(SimConfig(rater_accuracy=1.5))
