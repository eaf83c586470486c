"""Score-aware correction: score-band post-strata in the engine and PPI++ with a continuous
score, against hand calculations; a seeded coverage smoke test (slow)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from wordplay_audit.analysis.correction import corrected_shares
from wordplay_audit.analysis.correction.bands import score_bands
from wordplay_audit.analysis.correction.ppi import ppi_mean, ppi_share
from wordplay_audit.errors import ParameterError


def test_bands_are_quantiles_inside_each_verdict():
    # judge-false scores 0.1 … 0.4, judge-true 0.6 … 0.9, every item labelled: two bands per
    # verdict by rank (rank · 2 // 4): (0.1, 0.2), (0.3, 0.4) and (0.6, 0.7), (0.8, 0.9)
    f = pd.DataFrame({"judge": [False] * 4 + [True] * 4, "s": [0.1, 0.2, 0.3, 0.4, 0.6, 0.7, 0.8, 0.9],
                      "labelled": True})  # fmt: skip
    assert score_bands(f, score="s", bands=2, min_labels=1).tolist() == [0, 0, 1, 1, 0, 0, 1, 1]
    # equal scores stay in one band; an unknown score gets its own band (−1), never a score of 0
    g = pd.DataFrame({"judge": False, "s": [0.2, 0.2, 0.2, 0.9, np.nan], "labelled": True})
    assert score_bands(g, score="s", bands=2, min_labels=1).tolist() == [0, 0, 0, 1, -1]


def test_engine_with_bands_by_hand():
    # one verdict (judge false), 12 items with scores 0 … 11; bands=2 → scores 0–5 and 6–11.
    # Labels: items 0–4 (low band, 0 true) and 6–10 (high band, 3 true); unlabelled 5 and 11.
    # θ̂ = (K + Σ U_s x_s/n_s)/N = (3 + 1·0/5 + 1·3/5)/12 = 3.6/12 = 0.3
    y = [False] * 6 + [True, True, True, False, False, False]
    lab = [True] * 5 + [False] + [True] * 5 + [False]
    f = pd.DataFrame({"item_id": [f"i{k}" for k in range(12)], "c": "x", "judge": False, "s": np.arange(12.0),
                      "human": pd.array([v if seen else None for v, seen in zip(y, lab, strict=True)], dtype="boolean")})  # fmt: skip
    row = corrected_shares(f, cells=["c"], score="s", bands=2).iloc[0]
    assert row["estimate"] == pytest.approx(0.3)
    assert row["ci_low"] <= 0.3 <= row["ci_high"] and row["reason"] is None
    # the verdict alone: (3 + 2·3/10)/12 = 0.3 as well here, but it pools the two bands
    assert corrected_shares(f, cells=["c"]).iloc[0]["estimate"] == pytest.approx(3.6 / 12)


def test_engine_band_options_are_checked():
    f = pd.DataFrame(
        {"item_id": ["a"], "c": "x", "judge": [True], "human": pd.array([True], dtype="boolean")}
    )
    with pytest.raises(ParameterError, match="score, bands"):
        corrected_shares(f, cells=["c"], score="s")
    with pytest.raises(ParameterError, match="score: column 's'"):
        corrected_shares(f, cells=["c"], score="s", bands=2)


def test_ppi_continuous_by_hand():
    # y = (1, 0, 1, 1), f = (0.9, 0.2, 0.7, 0.8), unlabelled f = (0.9, 0.1, 0.6, 0.5):
    # s²(f) = 0.29/3, Cov = 0.45/3, λ = Cov/((1 + 4/4) s²(f)) = 0.15/0.19333 = 0.775862;
    # μ̂ = λ·0.525 + 0.75 − λ·0.65 = 0.653017; residuals y − λf = (0.301724, −0.155172,
    # 0.456897, 0.379310), mean 0.245690, squared deviations sum 0.226292, s² = 0.075431
    # (n − 1); Var = s²(1/4 + 1/4) = 0.037716
    theta, var, lam = ppi_mean(
        np.array([1, 0, 1, 1.0]), np.array([0.9, 0.2, 0.7, 0.8]), np.array([0.9, 0.1, 0.6, 0.5])
    )
    assert lam == pytest.approx(0.775862, abs=1e-6)
    assert theta == pytest.approx(0.653017, abs=1e-6)
    r = np.array([1, 0, 1, 1.0]) - lam * np.array([0.9, 0.2, 0.7, 0.8])
    assert var == pytest.approx(r.var(ddof=1) * 0.5) and var == pytest.approx(0.037716, abs=1e-6)
    est, low, high, _ = ppi_share([1, 0, 1, 1], [0.9, 0.2, 0.7, 0.8], [0.9, 0.1, 0.6, 0.5])
    half = 1.959963984540054 * 4 * np.sqrt(var) / 8
    assert (est, low, high) == pytest.approx(
        ((3 + 4 * theta) / 8, (3 + 4 * theta) / 8 - half, min((3 + 4 * theta) / 8 + half, 1))
    )


def test_ppi_binary_path_unchanged():
    # 0/1 predictions keep the smoothed 2 × 2 variance (hand: cells +0.5 each)
    y, f, fu = np.array([1, 1, 0, 0.0]), np.array([1, 1, 0, 0.0]), np.array([1, 0.0])
    theta, var, lam = ppi_mean(y, f, fu)
    # Cov(y, f) = 1/3, s²(f) = 1/3, n/N_u = 4/2: λ = (1/3)/((1 + 2)·(1/3)) = 1/3
    assert lam == pytest.approx(1 / 3)
    assert var > 0


@pytest.mark.slow
def test_band_interval_covers_seeded_smoke():
    # 300 populations of 600 items, p ~ Beta(0.5·0.4, 0.5·0.6), 40 labels at random: the band
    # engine's interval holds the realised share in ≥ 93 %
    hits = 0
    for c in range(300):
        rng = np.random.default_rng([7, c])
        p = rng.beta(0.2, 0.3, 600)
        y = rng.random(600) < p
        lab = np.zeros(600, bool)
        lab[rng.choice(600, 40, replace=False)] = True
        f = pd.DataFrame({"item_id": [f"i{k}" for k in range(600)], "c": "x", "judge": p >= 0.5, "s": p,
                          "human": pd.array(np.where(lab, y, None), dtype="boolean")})  # fmt: skip
        row = corrected_shares(f, cells=["c"], score="s", bands=4, seed=c).iloc[0]
        hits += row["ci_low"] <= y.mean() <= row["ci_high"]
    assert hits / 300 >= 0.93
