"""Active labelling's design (uncertainty strata, allocation, draw probabilities) and the
per-item difference estimator, against hand calculations and exact enumeration."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

from wordplay_audit.analysis.active import (
    active_difference_share,
    draw_probabilities,
    uncertainty_allocation,
    uncertainty_design,
    uncertainty_strata,
)
from wordplay_audit.analysis.allocation import AllocationOptions, StrataCounts, allocate, linear_target
from wordplay_audit.corpora.sampling import draw_round, inclusion_probabilities
from wordplay_audit.errors import ParameterError


def _frame(n=400, seed=0):
    rng = np.random.default_rng(seed)
    p = rng.beta(0.5, 0.5, n)
    return pd.DataFrame({"model": np.repeat(["a", "b"], n // 2), "judge": p >= 0.5, "calibrated": p,
                         "labelled": False, "human": pd.array([None] * n, dtype="boolean")}), rng.random(n) < p  # fmt: skip


def test_strata_are_quantile_bands_inside_cell_and_verdict():
    # cell m, judge-false p = 0.1, 0.2, 0.3, 0.35 → bands (rank·2//4) 0, 0, 1, 1; judge-true 0.9, 0.6 → 1, 0
    stratum, band = uncertainty_strata(
        [0.1, 0.2, 0.3, 0.35, 0.9, 0.6], [False] * 4 + [True] * 2, ["m"] * 6, bands=2
    )
    assert band.tolist() == [0, 0, 1, 1, 1, 0]
    assert stratum.tolist() == ["m|False|0", "m|False|0", "m|False|1", "m|False|1", "m|True|1", "m|True|0"]


def test_probability_outside_unit_interval_is_refused():
    with pytest.raises(ParameterError, match="prob: row 1"):
        uncertainty_strata([0.2, np.nan], [False, True], ["m", "m"])


def test_first_round_follows_the_judges_uncertainty():
    frame, _ = _frame()
    _, strata = uncertainty_design(frame, budget=200, cells=["model"], bands=4)
    assert strata["add"].sum() == 200 and (strata["add"] >= 5).all()  # the pilot: every stratum drawable
    # before any label the allocation is Neyman's with S_h = √(p̄(1 − p̄)): the unsure bands (p̄ near ½) get
    # more labels than the sure ones of the same size (p̄ near 0 or 1)
    unsure = strata[(strata["mean_prob"] - 0.5).abs() < 0.2]
    sure = strata[(strata["mean_prob"] - 0.5).abs() > 0.45]
    assert unsure["add"].min() > sure["add"].max()


def test_draw_probabilities_are_constant_in_a_stratum_and_match_two_rounds():
    frame, truth = _frame()
    rng = np.random.default_rng(3)
    items, strata = uncertainty_design(frame, budget=120, cells=["model"], bands=4)
    # π of this round = add_h / R_h for each unlabelled item of stratum h
    rate = (strata["add"] / strata["remaining"]).to_numpy()
    assert np.allclose(
        items["draw_probability"].to_numpy(), rate[pd.Index(strata["stratum"]).get_indexer(items["stratum"])]
    )
    first = draw_round(
        items["stratum"],
        dict(zip(strata["stratum"], strata["add"], strict=True)),
        np.zeros(len(frame), bool),
        rng,
    )
    frame = frame.assign(labelled=first, human=pd.array(np.where(first, truth, None), dtype="boolean"))
    items2, strata2 = uncertainty_design(frame, budget=80, cells=["model"], bands=4)
    assert (items2["stratum"] == items["stratum"]).all()  # the same strata every round (scores only)
    assert (items2.loc[first, "draw_probability"] == 0).all()
    second = draw_round(
        items2["stratum"], dict(zip(strata2["stratum"], strata2["add"], strict=True)), first, rng
    )
    pi = inclusion_probabilities(
        [(items["stratum"].to_numpy(), first), (items2["stratum"].to_numpy(), second)]
    )
    # by hand for each stratum: 1 − (1 − a₁/N)(1 − a₂/(N − a₁))
    s1, s2 = strata.set_index("stratum"), strata2.set_index("stratum")
    for h in s1.index:
        big_n, a1, a2 = s1.loc[h, "items"], s1.loc[h, "add"], s2.loc[h, "add"]
        want = 1 - (1 - a1 / big_n) * (1 - a2 / (big_n - a1))
        assert np.allclose(pi[(items["stratum"] == h).to_numpy()], want)


def test_allocation_budget_and_table():
    table = uncertainty_allocation(
        ["x", "x", "y", "y"], [0.5, 0.5, 0.01, 0.02], [False] * 4, [None] * 4, ["c"] * 4, 2, pilot=1
    )
    assert table["add"].tolist() == [1, 1] and table["items"].tolist() == [2, 2]
    with pytest.raises(ParameterError, match="budget"):
        uncertainty_allocation(["x"], [0.5], [False], [None], ["c"], -1)


def test_difference_estimator_is_unbiased_by_enumeration():
    # 4 items, Poisson sampling: E θ̂ = Σ over the 2⁴ samples of P(sample)·θ̂(sample) = the realised
    # share 0.5 for any p̂ (hand: E[I_i/π_i] = 1)
    y = np.array([True, False, True, False])
    p = np.array([0.7, 0.4, 0.2, 0.1])
    pi = np.array([0.5, 0.8, 0.3, 0.6])
    expected = 0.0
    for flags in itertools.product([False, True], repeat=4):
        lab = np.array(flags)
        prob = np.prod(np.where(lab, pi, 1 - pi))
        expected += prob * active_difference_share(p, lab, np.where(lab, y, False), pi)[0]
    assert expected == pytest.approx(0.5)


def test_the_prior_makes_the_first_allocation_neymans_with_the_judges_probability():
    # two strata of 100 items, no label: q̃ = (0 + a·p̄)/(0 + a) = p̄, so S_h ∝ √(p̄(1 − p̄)) = 0.5 and
    # 0.3 (p̄ = 0.5, 0.1); Neyman's n_h ∝ N_h S_h splits 80 labels 50 : 30 (without the prior, ½
    # everywhere: 40 : 40)
    counts = StrataCounts(np.array([100.0, 100.0]), np.array([0.0, 0.0]))
    target = [linear_target("t", counts, [True, True], np.zeros(2))]
    options = AllocationOptions(pilot=0)
    assert allocate(counts, target, 80, options, prior=[0.5, 0.1]).add.tolist() == [50, 30]
    assert allocate(counts, target, 80, options).add.tolist() == [40, 40]


def test_draw_probabilities_by_hand():
    assert draw_probabilities([3, 0, 2], [12, 7, 2]).tolist() == [0.25, 0.0, 1.0]
    with pytest.raises(ParameterError, match="add"):
        draw_probabilities([5], [4])
