"""A partly labelled cell never gets a zero-width interval: a unanimous post-stratum's open side
keeps v at least α from the end that would collapse it (analysis/correction/calibration.py,
*Unanimous post-strata*). The randomised Clopper–Pearson distribution of a share with 0 of n
labels true is (1 − v)·δ₀ + v·Beta(1, n); with v ≤ α/2 its 97.5 % quantile was 0, so the cell's
upper bound met its lower one (Wheel of Fortune models with 20 of 190–340 lost games labelled,
none true, got [0.223, 0.223] against a truth of 0.273)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from wordplay_audit.analysis.correction import corrected_shares
from wordplay_audit.analysis.correction.calibration import randomised_share_interval
from wordplay_audit.analysis.correction.ratio import randomised_ratio_interval


@pytest.mark.parametrize("v", [0.0, 0.01, 0.024, 0.05])
def test_no_true_label_and_a_small_v_give_the_median_bound(v):
    """0 of 20 labels true, 300 unlabelled items. With v ≤ α = 0.05 the upper bound is the one at
    v = α: the first y with α + (1 − α)·… — by hand, P(Y ≤ y) = (1 − α) + α·F(y), F the
    BetaBinomial(300, 1, 20) cdf, reaches 0.975 where F(y) ≥ ½: y = F's median (scipy)."""
    low, high = randomised_share_interval([300], [20], [0], v=[v])
    median = stats.betabinom(300, 1, 20).ppf(0.5)
    assert low == 0.0
    assert high == pytest.approx(median / 300)
    assert high > low


def test_every_label_true_and_a_large_v_mirror_it():
    low, high = randomised_share_interval([300], [20], [20], v=[0.99])
    median = stats.betabinom(300, 20, 1).ppf(0.5)  # Y's median when the mixture sits on Beta(20, 1)
    assert high == 1.0
    assert low == pytest.approx(median / 300, abs=1 / 300)
    assert low < high


def test_a_large_v_is_unchanged():
    """v above α: the randomised interval as before (P(Y ≤ y) = 1 − v + v·F(y) ≥ 0.975)."""
    v = 0.5
    f = stats.betabinom(300, 1, 20).cdf(np.arange(301))
    want = int(np.argmax(1 - v + v * f >= 0.975 - 1e-12))
    assert randomised_share_interval([300], [20], [0], v=[v]) == (0.0, want / 300)


def _wof_like_cell(seed: int) -> pd.DataFrame:
    """One model: 40 exact matches (labelled wins), 260 lost games, 20 of them labelled, none won."""
    judge = np.r_[np.ones(40, bool), np.zeros(260, bool)]
    labelled = np.r_[np.ones(40, bool), np.ones(20, bool), np.zeros(240, bool)]
    human = pd.array(np.where(labelled, judge, None), dtype="boolean")
    ids = [f"wof:m:{seed}:{g}" for g in range(300)]
    return pd.DataFrame(
        {"player_model": "m", "item_id": ids, "judge": judge, "labelled": labelled, "human": human}
    )


@pytest.mark.slow
def test_a_partly_labelled_cell_never_gets_a_zero_width_interval():
    """200 campaigns (seeds): before, about α/2 of them (v ≤ 0.025) got low == high."""
    widths = []
    for seed in range(200):
        row = corrected_shares(_wof_like_cell(seed), cells=["player_model"], seed=seed).iloc[0]
        widths.append(row["ci_high"] - row["ci_low"])
    assert min(widths) > 0


def test_the_ratio_interval_keeps_its_open_side_too():
    """A judge's specificity-like ratio with a post-stratum of 0 of 20 labels with the attribute:
    v = 0.01 no longer collapses that post-stratum's predictive onto 0."""
    at_small = randomised_ratio_interval([300, 100], [20, 20], [0, 10], [True, False], v=[0.01, 0.5])
    at_alpha = randomised_ratio_interval([300, 100], [20, 20], [0, 10], [True, False], v=[0.05, 0.5])
    assert at_small == at_alpha


def test_few_unlabelled_items_beside_many_labels_keep_one_item_of_width():
    """0 of 180 labels true, 20 unlabelled, v = 0.1 (≥ α): P(Y = 0) = 1 − v + v·F(0) with F the
    BetaBinomial(20, 1, 180) cdf, F(0) = 180/200 = 0.9 (by hand), so P(Y = 0) = 0.99 ≥ 0.975 and
    both quantiles are 0; the upper bound moves to one item."""
    assert stats.betabinom(20, 1, 180).pmf(0) == pytest.approx(0.9)
    assert randomised_share_interval([20], [180], [0], v=[0.1], n_total=200) == (0.0, 1 / 200)
    # at the top: 180 of 180 true, v = 0.9 – the lower bound moves down one item
    assert randomised_share_interval([20], [180], [180], v=[0.9], known_true=180, n_total=200) == (
        199 / 200,
        1.0,
    )
