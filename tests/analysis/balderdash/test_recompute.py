"""Replacing the judge by people, and the two corrected estimators (hand calculations + a seeded
Monte-Carlo check whose tolerance comes from benchmarks/sim_balderdash_coverage.py)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from wordplay_audit.analysis.balderdash.corrected import corrected_rates
from wordplay_audit.analysis.balderdash.recompute import (
    recompute_scores,
    replace_labels,
    replaced_round_metrics,
)
from wordplay_audit.analysis.correction import JudgeAccuracy, ppi_mean, rogan_gladen
from wordplay_audit.corpora.balderdash.simulate import SimConfig, simulate_campaign, true_rates
from wordplay_audit.errors import InputError


def _row(rnd, pid, true_def, knows, vote, score):
    return {
        "game_id": "1",
        "round_id": rnd,
        "player_id": pid,
        "model": "A" if pid in "12" else "B",
        "true_def": true_def,
        "knows": knows,
        "vote": vote,
        "score": score,
        "deck": "d",
        "judge_model": "j",
        "receiving_vote_points": 1.0,
        "correct_vote_points": 2.0,
        "correct_definition_points": 3.0,
        "item_id": f"bd:1:{rnd}:{pid}",
    }


def hand_game() -> pd.DataFrame:
    return pd.DataFrame(
        [
            # round 1: p2 voted for the reference (score 2) and drew no vote; p3 → p4, p4 → reference
            _row(1, "1", True, True, "", 3),
            _row(1, "2", False, False, "-1", 2),
            _row(1, "3", False, False, "4", 0),
            _row(1, "4", False, True, "-1", 3),
            # round 2: p3 drew a vote from p4
            _row(2, "1", False, False, "-1", 2),
            _row(2, "2", False, False, "-1", 2),
            _row(2, "3", False, False, "-1", 3),
            _row(2, "4", False, False, "3", 0),
            # round 3: nobody relabelled
            _row(3, "1", True, True, "", 3),
            _row(3, "2", False, False, "1", 0),
            _row(3, "3", False, False, "-1", 2),
            _row(3, "4", False, False, "-1", 2),
        ]
    )


def _people(pairs, question="reference"):
    rows = []
    for item, label in pairs:
        rows += [(item, "r1", "human", label, question), (item, "r2", "human", label, question)]
    return pd.DataFrame(rows, columns=["item_id", "rater", "rater_type", "label", "question"])


def test_replace_and_rescore_by_hand():
    labels = _people([("bd:1:1:2", "true"), ("bd:1:2:3", "true"), ("bd:1:3:1", "true")])
    rescored = recompute_scores(replace_labels(hand_game(), labels))
    r1 = rescored[rescored["round_id"] == 1].set_index("player_id")
    # p2 turned true and drew no vote: its reference vote (2) is void, it earns 3 → 2 − 2 + 3 = 3
    assert set(r1["round_status"]) == {"recomputed"}
    assert r1.loc["2", "score"] == 3 and r1.loc["2", "vote"] == "" and bool(r1.loc["2", "true_def"])
    assert r1.loc["2", "knows"]  # a reference sense people accept is a known sense
    assert list(r1.loc[["1", "3", "4"], "score"]) == [3, 0, 3]  # unchanged
    # round 2: p3 turned true but p4 had voted for it → the ballot changes, replay needed
    r2 = rescored[rescored["round_id"] == 2]
    assert set(r2["round_status"]) == {"needs_replay"} and r2["score"].isna().all()
    assert set(rescored[rescored["round_id"] == 3]["round_status"]) == {"unchanged"}
    rounds = replaced_round_metrics(rescored)
    a1 = rounds[(rounds["round_id"] == 1) & (rounds["model"] == "A")].iloc[0]
    # model A in round 1 after relabelling: both true → TDR 1, LKR 1, CGR undefined (0 guessers)
    assert (a1.tdr, a1.lkr) == (1.0, 1.0) and math.isnan(a1.cgr)
    assert rounds.loc[rounds["round_id"] == 2, ["dr", "cgr", "as"]].isna().all().all()


def test_turned_false_needs_replay_and_knows_becomes_undetermined():
    labels = _people([("bd:1:3:1", "false")])
    replaced = replace_labels(hand_game(), labels)
    row = replaced[replaced["item_id"] == "bd:1:3:1"].iloc[0]
    # the judge's "knows" rested on its reference verdict only; other senses were never judged
    assert not row["true_def"] and not row["knows"] and row["knows_undetermined"]
    rescored = recompute_scores(replaced)
    assert set(rescored[rescored["round_id"] == 3]["round_status"]) == {"needs_replay"}


def test_any_sense_label_replaces_knows():
    labels = _people([("bd:1:1:3", "true")], question="any_sense")
    replaced = replace_labels(hand_game(), labels)
    row = replaced[replaced["item_id"] == "bd:1:1:3"].iloc[0]
    assert row["knows"] and not row["true_def"] and not row["relabelled"]


def test_labels_for_unknown_items_are_refused():
    with pytest.raises(InputError, match="names no definition"):
        replace_labels(hand_game(), _people([("bd:9:9:9", "true")]))


def test_rogan_gladen_by_hand():
    acc = JudgeAccuracy(se=0.8, sp=0.9, var_se=0.01, var_sp=0.0025, cov=0.0, n_labelled=0, strata=())
    theta, var = rogan_gladen(0.5, acc, 100)
    # θ = (.5 + .9 − 1)/(.8 + .9 − 1) = .4/.7
    t = 0.4 / 0.7
    # Var = [θ²·.01 + (1 − θ)²·.0025]/.49 + [θ·.8·.2 + (1 − θ)·.9·.1]/(100·.49)
    expected = (t**2 * 0.01 + (1 - t) ** 2 * 0.0025) / 0.49 + (t * 0.16 + (1 - t) * 0.09) / 49
    assert theta == pytest.approx(t) and var == pytest.approx(expected)
    assert math.isnan(rogan_gladen(0.5, JudgeAccuracy(0.5, 0.5, 0, 0, 0, 0, ()), 10)[0])  # J = 0


def test_rogan_gladen_cell_share_by_hand():
    acc = JudgeAccuracy(se=0.8, sp=0.9, var_se=0.01, var_sp=0.0025, cov=0.0, n_labelled=0, strata=())
    t = 0.4 / 0.7
    base = (t**2 * 0.01 + (1 - t) ** 2 * 0.0025) / 0.49
    # the cell holds 30 % of the model's true and 60 % of its false definitions:
    # cell-vs-model term [θ·.16·(1 − .3) + (1 − θ)·.09·(1 − .6)]/(100·.49)
    _, var = rogan_gladen(0.5, acc, 100, share_pos=0.3, share_neg=0.6)
    assert var == pytest.approx(base + (t * 0.16 * 0.7 + (1 - t) * 0.09 * 0.4) / 49)
    # a cell that is the whole model has only the term for estimating Se and Sp
    _, whole = rogan_gladen(0.5, acc, 100, share_pos=1.0, share_neg=1.0)
    assert whole == pytest.approx(base)


def test_ppi_mean_by_hand():
    y, f = np.array([1, 1, 0, 0]), np.array([1, 1, 0, 1])
    fu = np.array([1, 1, 0, 0, 1, 0, 1, 1])
    theta, var, lam = ppi_mean(y, f, fu)
    # Cov(y, f) = [(.5)(.25) + (.5)(.25) + (−.5)(−.75) + (−.5)(.25)]/3 = 1/6; Var(f) = .75/3 = .25
    # λ = (1/6) / ((1 + 4/8)·.25) = 4/9; θ = λ·5/8 + (.5 − λ·.75) = 4/9
    assert lam == pytest.approx(4 / 9) and theta == pytest.approx(4 / 9)
    # variance: (Y, f) cells (1,1) 2, (1,0) 0, (0,1) 1, (0,0) 1, each + .5 → weights 2.5, .5, 1.5, 1.5 of 6
    values = np.array([1 - 4 / 9, 1, -4 / 9, 0])
    w = np.array([2.5, 0.5, 1.5, 1.5]) / 6
    s2 = np.sum(w * (values - np.sum(w * values)) ** 2)
    assert var == pytest.approx(s2 * (1 / 4 + 1 / 8))
    # with λ = 1 the estimate is the classical PPI: f̄_u + mean(y − f) = 5/8 − 1/4
    assert ppi_mean(y, f, fu, lam=1.0)[0] == pytest.approx(0.375)


@pytest.mark.slow
@pytest.mark.parametrize("design", ["stratified", "random"])
def test_corrected_rates_cover_the_truth_in_seeded_campaigns(design):
    # 8 small campaigns × 3 models × 2 decks × 2 metrics = 96 intervals per method. The benchmark
    # (500 campaigns, docs/BALDERDASH.md) measured ≥ .93 coverage; for 96 intervals at .93 the
    # binomial SD is .026, so a floor of .83 (≈ 4 SD below) fails only when a method is broken.
    config = SimConfig(
        design=design, games_per_deck=2, n_rounds=15, labels_per_stratum=20 if design == "stratified" else 40
    )
    hits = {"rg": [], "ppi": []}
    errors = {"rg": [], "ppi": [], "judge": []}
    for seed in range(8):
        campaign = simulate_campaign(config, seed=seed)
        table = corrected_rates(campaign.obs, campaign.labels, design=design)
        truth = true_rates(campaign).melt(
            id_vars=["model", "deck", "n"], value_vars=["lkr", "tdr"], var_name="metric", value_name="truth"
        )
        merged = table.merge(truth, on=["model", "deck", "metric"])
        for m in ("rg", "ppi"):
            hits[m] += list(
                (merged[f"{m}_low"] <= merged["truth"]) & (merged["truth"] <= merged[f"{m}_high"])
            )
            errors[m] += list(merged[m] - merged["truth"])
        errors["judge"] += list(merged["judge"] - merged["truth"])
    for m in ("rg", "ppi"):
        assert np.mean(hits[m]) >= 0.83
        assert abs(np.mean(errors[m])) < 0.025  # unbiased within Monte-Carlo error (SD ≈ .008)
    assert np.mean(errors["judge"]) < -0.05  # the judge's rate is biased low (Se .74)


@pytest.fixture(scope="module")
def small_campaign():
    return simulate_campaign(SimConfig(games_per_deck=2, n_rounds=8, labels_per_stratum=8), seed=3)


@pytest.mark.parametrize(
    ("question", "missing", "present"), [("reference", "lkr", "tdr"), ("any_sense", "tdr", "lkr")]
)
def test_corrected_rates_say_why_a_metric_cannot_be_corrected(small_campaign, question, missing, present):
    labels = small_campaign.labels[small_campaign.labels["question"] == question]
    table = corrected_rates(small_campaign.obs, labels)
    other = "any_sense" if question == "reference" else "reference"
    gone, kept = table[table["metric"] == missing], table[table["metric"] == present]
    for est in ("rg", "ppi"):
        assert gone[[est, f"{est}_low", f"{est}_high"]].isna().all().all()
        assert (gone[f"{est}_reason"] == f"needs {other} labels").all()
        assert kept[est].notna().all()
    # flags only where something was computed
    assert gone["ppi_pooled"].isna().all() and gone["accuracy_pooled"].isna().all()
    assert kept["ppi_pooled"].map(lambda v: isinstance(v, bool)).all()
    assert kept["accuracy_pooled"].map(lambda v: isinstance(v, bool)).all()
    # a shown interval has no reason; a missing one has
    for est in ("rg", "ppi"):
        shown = kept[f"{est}_low"].notna()
        assert kept.loc[shown, f"{est}_reason"].isna().all()
        assert kept.loc[~shown, f"{est}_reason"].notna().all()


def test_too_few_labels_give_no_interval_but_a_reason(small_campaign):
    # 2 labels per model × deck × verdict: below the 5 the intervals were checked for
    campaign = simulate_campaign(SimConfig(games_per_deck=2, n_rounds=8, labels_per_stratum=2), seed=4)
    table = corrected_rates(campaign.obs, campaign.labels, metrics=("tdr",))
    assert table["ppi"].notna().all()
    assert table["ppi_low"].isna().all() and table["ppi_reason"].str.contains("no calibrated interval").all()
    assert table["ppi_reason"].str.contains("fewer than 5 labels").any()


def test_replaced_rates_are_a_separate_sensitivity_view(small_campaign):
    from wordplay_audit.analysis.balderdash.recompute import REPLACED_NOTE, replaced_rates

    view = replaced_rates(small_campaign.obs, small_campaign.labels)
    assert "biased" in REPLACED_NOTE and view.attrs["note"] == REPLACED_NOTE
    replaced = replace_labels(small_campaign.obs, small_campaign.labels)
    tdr = view[(view["metric"] == "tdr")].set_index(["model", "deck"])
    by_hand = replaced.groupby(["model", "deck"])["true_def"].mean()
    assert np.allclose(tdr["replaced"].loc[by_hand.index], by_hand.to_numpy())
    assert "replaced" not in corrected_rates(small_campaign.obs, small_campaign.labels).columns


def test_share_interval_is_the_beta_binomial_predictive():
    # one post-stratum: Y ~ BetaBinomial(U, x + ½, n − x + ½) exactly (Jeffreys posterior predictive)
    from scipy import stats

    from wordplay_audit.analysis.correction import seeded_rng, stratified_share_interval

    u, n, x = 200, 12, 3
    low, high = stratified_share_interval([u], [n], [x], draws=40_000, rng=seeded_rng(1))
    exact = stats.betabinom(u, x + 0.5, n - x + 0.5)
    # 40 000 draws: the 2.5 % quantile of a count with SD ≈ 27 moves by about 1 count; allow 3
    assert low * u == pytest.approx(exact.ppf(0.025), abs=3)
    assert high * u == pytest.approx(exact.ppf(0.975), abs=3)
    # labelled items count in full and shift the share: (x_known + Y)/n_total
    lo2, hi2 = stratified_share_interval(
        [u], [n], [x], known_true=x, n_total=u + n, draws=40_000, rng=seeded_rng(1)
    )
    assert lo2 == pytest.approx((x + low * u) / (u + n), abs=1e-9) and hi2 == pytest.approx(
        (x + high * u) / (u + n)
    )


def test_accuracy_draws_are_exact_when_everything_is_labelled():
    from wordplay_audit.analysis.correction import accuracy_draws

    # judge true on 10 items (7 human-true), false on 20 (4 human-true), all labelled:
    # Se = 7/11, Sp = 16/19 in every draw
    counts = pd.DataFrame(
        {
            "judge": [True, False],
            "N": [10, 20],
            "n": [10, 20],
            "x": [7, 4],
            "nq": [10.0, 20.0],
            "xq": [7.0, 4.0],
        }
    )
    se, sp = accuracy_draws(counts, draws=200)
    assert np.allclose(se, 7 / 11) and np.allclose(sp, 16 / 19)


def test_rogan_gladen_interval_with_known_accuracy_is_the_point():
    from wordplay_audit.analysis.correction import rogan_gladen_interval

    se, sp = np.full(500, 0.8), np.full(500, 0.9)
    low, high = rogan_gladen_interval(0.5, se, sp)
    assert low == pytest.approx(0.4 / 0.7) and high == pytest.approx(0.4 / 0.7)
    # the judge carries no information in most draws: no interval
    assert all(math.isnan(v) for v in rogan_gladen_interval(0.5, np.full(500, 0.5), np.full(500, 0.5)))


@pytest.mark.parametrize("dtype", ["str", "category", "object"])
def test_item_rows_finds_each_id_whatever_the_column_type(dtype):
    # positions by hand: 'b' is keys[1], 'a' keys[0]; an unknown or missing id is -1
    from wordplay_audit.analysis.balderdash.recompute import item_rows

    values = pd.Series(["b", "x", None, "a", "b"], dtype="str").astype(dtype)
    assert item_rows(values, ["a", "b"]).tolist() == [1, -1, -1, 0, 1]
