"""Eq. 6 convergence, the observed-scale threshold, and the naive verdict's failure at true LKR 1."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from tests.support import balderdash_export as bd
from wordplay_audit.analysis.balderdash.convergence import (
    convergence_round,
    convergence_table,
    observed_threshold,
)
from wordplay_audit.corpora.balderdash import player_round_table, read_export
from wordplay_audit.corpora.balderdash.simulate import SimConfig, simulate_campaign
from wordplay_audit.errors import ParameterError


def test_convergence_round_by_hand():
    # rounds 1..5; threshold .9: rounds 3, 4, 5 exceed it → T = 2
    assert convergence_round([0.95, 0.8, 0.91, 0.99, 0.93], 0.9) == 2
    assert convergence_round([0.95, 0.96], 0.9) == 0  # from the start
    assert math.isnan(convergence_round([0.95, 0.96, 0.9], 0.9))  # "exceeds" is strict
    assert math.isnan(convergence_round([0.95, float("nan")], 0.9))


def test_observed_threshold_by_hand():
    # τ = Se(1 − ε) + (1 − Sp)ε = .74·.9 + .03·.1 = .669
    assert observed_threshold(0.1, 0.74, 0.97) == pytest.approx(0.669)
    assert observed_threshold(0.3, 1.0, 1.0) == pytest.approx(0.7)  # a perfect judge: τ = 1 − ε


def test_naive_verdict_fails_for_a_model_that_knows_every_word():
    config = SimConfig(
        models=("omniscient", "average"),
        games_per_deck=6,
        players_per_model=5,
        n_rounds=20,
        know={"omniscient": {"basic_english_words": 1.0, "balderdash_words": 1.0}},
        judge_se={"omniscient": 0.74, "average": 0.74},
        labels_per_stratum=60,
    )
    campaign = simulate_campaign(config, seed=11)
    table = convergence_table(campaign.obs, campaign.labels, eps=(0.1,), window=10)
    omni = table[table["model"] == "omniscient"]
    assert len(omni) == 2  # one setting per deck
    # true LKR is 1 in every round (converged at T = 0 for any ε), but the judge sees ≈ Se = .74
    # per round (30 definitions: SD ≈ .08), so LKR_n > .9 essentially never holds: not converged
    assert not omni["converged_judge"].any()
    assert omni["judge_unreachable"].all()  # 1 − ε = .9 ≥ estimated Se
    # replacing only the labelled definitions leaves most judge errors in place: still not converged
    assert not omni["converged_replaced"].any()
    # the corrected pooled-window bound clears 1 − ε
    assert omni["window_lower"].gt(0.9).all() and omni["converged_window"].all()
    # τ = Se·.9 + (1 − Sp)·.1 is far below .9
    assert omni["tau"].between(0.6, 0.75).all()


def test_bad_eps_is_refused():
    campaign = simulate_campaign(SimConfig(games_per_deck=1, n_rounds=3, labels_per_stratum=2), seed=0)
    with pytest.raises(ParameterError, match="ε"):
        convergence_table(campaign.obs, eps=(1.2,))


VERDICTS = (
    "converged_judge",
    "converged_replaced",
    "converged_corrected",
    "judge_unreachable",
    "converged_window",
)


@pytest.fixture(scope="module")
def small_campaign():
    config = SimConfig(games_per_deck=2, n_rounds=8, labels_per_stratum=8)
    return simulate_campaign(config, seed=3)


def _only(labels, question):
    return labels[labels["question"] == question].reset_index(drop=True)


def _check_three_valued(table):
    for column in VERDICTS:
        values = table[column].tolist()
        reasons = table[f"{column}_reason"].tolist()
        for value, reason in zip(values, reasons, strict=True):
            assert value is None or isinstance(value, bool | np.bool_), (column, value)
            # None ⇔ a reason; a decided verdict carries none
            assert (value is None) == (isinstance(reason, str) and len(reason) > 0), (column, value, reason)


def test_reference_only_labels_cannot_tell_lkr_verdicts(small_campaign):
    labels = _only(small_campaign.labels, "reference")
    table = convergence_table(small_campaign.obs, labels, eps=(0.05, 0.3), window=3)
    _check_three_valued(table)
    # LKR needs the any_sense question: every verdict built on the judge's LKR accuracy is None
    for column in ("converged_corrected", "judge_unreachable", "converged_window"):
        assert table[column].isna().all()
        assert table[f"{column}_reason"].str.contains("needs any_sense labels").all()
    assert table["tau"].isna().all() and table["window_lower"].isna().all()
    assert table["converged_judge"].map(lambda v: isinstance(v, bool | np.bool_)).all()
    # replaced labels exist (reference labels change knows), so that verdict is decided
    assert table["converged_replaced"].notna().all()


def test_any_sense_only_labels_decide_what_they_can(small_campaign):
    labels = _only(small_campaign.labels, "any_sense")
    table = convergence_table(small_campaign.obs, labels, eps=(0.05, 0.3), window=3)
    _check_three_valued(table)
    assert table["judge_unreachable"].notna().all()
    assert (table["judge_unreachable"] == ((1 - table["eps"]) >= table["se"])).all()
    # Eq. 6 on per-round corrected rates is never offered as a verdict
    assert table["converged_corrected"].isna().all()
    assert table["converged_corrected_reason"].str.startswith("not a verdict").all()
    decided = table["converged_window"].notna()
    assert (
        table.loc[decided, "converged_window"]
        == (table.loc[decided, "window_lower"] > 1 - table.loc[decided, "eps"])
    ).all()


@pytest.mark.slow
def test_window_basis_names_where_the_windows_accuracy_comes_from(small_campaign):
    from wordplay_audit.analysis.correction import JudgeAccuracy

    labels = _only(small_campaign.labels, "any_sense")
    # 8 labels per model × deck × verdict: a window of 3 of 8 rounds holds < 5 own labels per
    # post-stratum and its deck < 10 per verdict stratum to lend, so the estimate rests on the
    # deck's Se and Sp, and there is no bound — with corrected_rates' reason, not a guess
    table = convergence_table(small_campaign.obs, labels, eps=(0.05,), window=3, constant_accuracy=True)
    assert table["window_estimate"].notna().all() and (table["window_basis"] == "stratum").all()
    assert table["window_lower"].isna().all()
    assert (
        table["converged_window_reason"].str.contains("fewer than 10 labels in a judge-verdict stratum").all()
    )
    # without the assumption the window borrows nothing: no estimate, and the reason says why
    plain = convergence_table(small_campaign.obs, labels, eps=(0.05,), window=3)
    assert plain["window_estimate"].isna().all() and plain["window_basis"].isna().all()
    assert plain["converged_window"].isna().all()
    assert plain["converged_window_reason"].str.contains("assuming the judge as accurate here").all()
    # all 8 rounds: whole sampling strata with their own labels
    table = convergence_table(small_campaign.obs, labels, eps=(0.05,), window=8)
    assert table["window_lower"].notna().all() and (table["window_basis"] == "own").all()
    models = small_campaign.obs["model"].unique()
    assumed = {m: JudgeAccuracy(0.8, 0.95, 0.0, 0.0, 0.0, 0, ()) for m in models}
    table = convergence_table(small_campaign.obs, None, accuracy=assumed, eps=(0.05,), window=3)
    assert (table["window_basis"] == "assumed").all()
    # a window longer than the rounds has no estimate and so no basis
    assert convergence_table(small_campaign.obs, labels, eps=(0.05,), window=100)["window_basis"].isna().all()


@pytest.mark.slow
def test_the_window_bound_is_the_benchmarked_window_cell():
    """The rule's bound is corrected_rates' cell for the window inside its model × deck (the call
    whose coverage sim_correction_rounds measures): own labels in a window of 5 of 10 rounds,
    the deck's Se and Sp in windows of 2 and 3 (15 labels per verdict stratum to lend)."""
    from wordplay_audit.analysis.balderdash.corrected import CorrectionOptions, corrected_rates

    campaign = simulate_campaign(SimConfig(games_per_deck=3, n_rounds=10, labels_per_stratum=15), seed=3)
    obs, labels = campaign.obs, _only(campaign.labels, "any_sense")
    seen = set()
    constant = CorrectionOptions(constant_accuracy=True)
    for window in (2, 3, 5):
        table = convergence_table(obs, labels, eps=(0.1,), window=window, constant_accuracy=True)
        last = obs.groupby("deck")["round_id"].transform("max")
        cells = corrected_rates(obs.assign(win=obs["round_id"] > last - window), labels, metrics=("lkr",),
                                by=("deck", "model", "win"), confidence=0.9, options=constant)  # fmt: skip
        both = table.merge(cells[cells["win"]], on=["deck", "model"])
        assert len(both) == len(table) == 6
        assert np.allclose(both["window_estimate"], both["rg"])
        assert np.allclose(both["window_lower"], both["rg_low"])  # the 90 % interval's lower end
        assert (both["window_basis"] == both["rg_basis"]).all()
        seen |= set(both["window_basis"])
    assert seen == {"own", "stratum"}


def test_only_computes_the_wanted_cells_and_nothing_else_changes(small_campaign):
    """``CorrectionOptions(only=...)`` (what convergence's window asks for) returns exactly the rows
    of the full table where the column is true: same points, intervals and reasons."""
    import pandas as pd

    from wordplay_audit.analysis.balderdash.corrected import CorrectionOptions, corrected_rates

    obs, labels = small_campaign.obs, small_campaign.labels
    obs = obs.assign(win=obs["round_id"] > obs["round_id"].max() - 3)
    by = ("model", "deck", "win")
    for constant in (False, True):
        full = corrected_rates(obs, labels, by=by, options=CorrectionOptions(constant_accuracy=constant))
        some = corrected_rates(
            obs, labels, by=by, options=CorrectionOptions(only="win", constant_accuracy=constant)
        )
        want = full[full["win"]].reset_index(drop=True)
        assert len(some) == len(want) > 0 and len(want) < len(full)
        pd.testing.assert_frame_equal(some, want)
    with pytest.raises(ParameterError, match="only='round_id'"):
        corrected_rates(obs, labels, by=by, options=CorrectionOptions(only="round_id"))


def _two_judges():
    """Two one-deck campaigns joined: the judge finds 95 % of true definitions on the basic deck
    and 55 % on the rare one, so the model's Se pooled over decks fits neither."""
    import pandas as pd

    parts = []
    for tag, deck, se, seed in (("A", "basic_english_words", 0.95, 3), ("B", "balderdash_words", 0.55, 4)):
        config = SimConfig(decks=(deck,), games_per_deck=3, n_rounds=10, labels_per_stratum=15,
                           judge_se={m: se for m in SimConfig().models},
                           know={m: {deck: 0.95} for m in SimConfig().models})  # fmt: skip
        c = simulate_campaign(config, seed=seed)
        obs = c.obs.assign(game_id=tag + c.obs["game_id"], item_id=tag + c.obs["item_id"])  # distinct ids
        parts.append((obs, c.labels.assign(item_id=tag + c.labels["item_id"])))
    obs = pd.concat([p[0] for p in parts], ignore_index=True)
    return obs, _only(pd.concat([p[1] for p in parts], ignore_index=True), "any_sense")


@pytest.mark.slow
def test_corrected_T_reads_the_reports_per_round_rates():
    """T_corrected is Eq. 6 on the per-round corrected LKR the report plots: each round inside its
    model × deck with the deck's Se and Sp (it used the model's pooled over decks, which differ
    from both decks' here)."""
    from wordplay_audit.analysis.balderdash.corrected import CorrectionOptions, corrected_rates

    obs, labels = _two_judges()
    constant = CorrectionOptions(constant_accuracy=True)
    rounds = corrected_rates(
        obs, labels, metrics=("lkr",), by=("model", "deck", "round_id"), options=constant
    )
    table = convergence_table(obs, labels, eps=(0.1, 0.2, 0.3), window=3, constant_accuracy=True)
    checked = 0
    for row in table.itertuples():
        part = rounds[(rounds["model"] == row.model) & (rounds["deck"] == row.deck)].sort_values("round_id")
        expected = convergence_round(part["rg_unclipped"].to_numpy(), 1 - row.eps)
        assert (math.isnan(expected) and math.isnan(row.T_corrected)) or expected == row.T_corrected, row
        checked += not math.isnan(expected)
    assert checked > 0  # some model reaches 1 − ε, so the comparison is not between two nans
    # without the assumption the rounds have no corrected LKR: T_corrected is unknown (not
    # "never"), and the reason says which round and why
    plain = convergence_table(obs, labels, eps=(0.1,), window=3)
    assert plain["T_corrected"].isna().all() and plain["converged_corrected"].isna().all()
    why = plain["converged_corrected_reason"]
    assert why.str.contains("T_corrected unknown: a round has no corrected LKR").all()
    assert why.str.contains("assuming the judge as accurate here").all()


def test_no_labels_leaves_every_label_verdict_open(small_campaign):
    table = convergence_table(small_campaign.obs, None, eps=(0.1,))
    _check_three_valued(table)
    for column in ("converged_replaced", "converged_corrected", "judge_unreachable", "converged_window"):
        assert table[column].isna().all()


@pytest.mark.slow
def test_a_window_longer_than_the_rounds_is_no_verdict(small_campaign):
    """8 rounds per setting: a window of 8 pools them all and decides; a window of 9 or 100 is
    not the rule asked for (it used to pool the 8 rounds and report window_rounds 100): the
    window's estimate, bound and verdict are None with the reason."""
    labels = _only(small_campaign.labels, "any_sense")
    assert small_campaign.obs.groupby("deck")["round_id"].nunique().eq(8).all()
    fits = convergence_table(small_campaign.obs, labels, eps=(0.05, 0.3), window=8)
    assert fits["converged_window"].notna().any()
    assert not fits["converged_window_reason"].fillna("").str.contains("longer than").any()
    for window in (9, 100):
        table = convergence_table(small_campaign.obs, labels, eps=(0.05, 0.3), window=window)
        _check_three_valued(table)
        assert table["converged_window"].isna().all()
        assert table["window_lower"].isna().all() and table["window_estimate"].isna().all()
        expected = f"window of {window} rounds is longer than the 8 rounds of this setting"
        assert table["converged_window_reason"].eq(expected).all(), table["converged_window_reason"].unique()
        # the other verdicts do not depend on the window
        for column in ("converged_judge", "judge_unreachable", "T_judge", "se"):
            assert table[column].equals(fits[column]), column


def test_convergence_leaves_a_model_without_labels_unknown(tmp_path):
    export = read_export(bd.write(tmp_path / "e", bd.documents()))
    obs = player_round_table(export)
    # people label only m-a's four definitions, agreeing with the judge's "knows" each time:
    # 11/r1 true, 12/r1 false, 11/r2 false, 12/r2 true → m-a's Se = 1, Sp = 1
    labels = pd.DataFrame(
        {
            "item_id": ["bd:7:1:11", "bd:7:1:12", "bd:7:2:11", "bd:7:2:12"],
            "rater": "r1",
            "rater_type": "human",
            "label": [True, False, False, True],
            "question": "any_sense",
        }
    )
    table = convergence_table(obs, labels, eps=[0.3], window=1)
    a = table[table["model"] == "m-a"].iloc[0]
    b = table[table["model"] == "m-b"].iloc[0]
    assert a["se"] == 1.0 and a["judge_unreachable"] is False  # 1 − 0.3 = 0.7 < Se = 1
    assert a["accuracy_pooled"] is False
    assert math.isnan(b["se"]) and math.isnan(b["sp"]) and math.isnan(b["tau"])
    assert b["judge_unreachable"] is None and b["accuracy_pooled"] is None
    assert "could not be estimated for this model (no labelled definition)" in b["judge_unreachable_reason"]
    assert b["converged_window"] is None
