"""The randomised exact share interval (analysis/correction/calibration.py) and its use for
per-cell Rogan–Gladen / PPI intervals (per-cell calibration)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import optimize, special

from wordplay_audit.analysis.balderdash.corrected import CorrectionOptions, corrected_rates
from wordplay_audit.analysis.correction.calibration import (
    randomised_share_interval,
    share_coverage,
    share_misses,
)


def _stevens_bounds(x: int, n: int, v: float, alpha: float = 0.05) -> tuple[float, float]:
    """Randomised Clopper–Pearson bounds from Stevens (1950), by root finding: the share p where
    P_p(X > x) + (1 − v)·P_p(X = x) = α/2 (lower) and P_p(X < x) + v·P_p(X = x) = α/2 (upper),
    written with binomial tails rather than the beta mixture the code uses."""

    def tail_above(p):  # P(X > x) + (1 − v) P(X = x)
        return special.bdtrc(x, n, p) + (1 - v) * special.binom(n, x) * p**x * (1 - p) ** (n - x)

    def tail_below(p):  # P(X < x) + v P(X = x)
        below = special.bdtr(x - 1, n, p) if x > 0 else 0.0
        return below + v * special.binom(n, x) * p**x * (1 - p) ** (n - x)

    lo = (
        optimize.brentq(lambda p: tail_above(p) - alpha / 2, 1e-12, 1 - 1e-12)
        if tail_above(1e-12) < alpha / 2
        else 0.0
    )
    hi = (
        optimize.brentq(lambda p: tail_below(p) - alpha / 2, 1e-12, 1 - 1e-12)
        if tail_below(1 - 1e-12) < alpha / 2
        else 1.0
    )
    return lo, hi


@pytest.mark.parametrize(("x", "n", "v"), [(0, 5, 0.3), (2, 5, 0.5), (5, 5, 0.8), (7, 10, 0.1)])
def test_one_large_stratum_gives_the_randomised_clopper_pearson_interval(x, n, v):
    # with 20 000 unlabelled items the realised share is the share q up to ±0.007 (binomial spread
    # and rounding to whole items), so the interval is Stevens' randomised interval for q
    lo, hi = randomised_share_interval([20_000], [n], [x], v=[v])
    ref_lo, ref_hi = _stevens_bounds(x, n, v)
    assert lo == pytest.approx(ref_lo, abs=0.01)
    assert hi == pytest.approx(ref_hi, abs=0.01)


def test_exact_coverage_matches_a_simulation():
    # two post-strata of 150 and 60 unlabelled items, 5 labels each, shares 0.9 and 0.3:
    # simulate campaigns (labels and unlabelled truth drawn from the shares, v from the
    # generator) and compare the coverage with the exact sum; 1500 campaigns: SE ≈ 0.006,
    # allow 4 SE
    u, n, q = [150, 60], [5, 5], np.array([0.9, 0.3])
    rng = np.random.default_rng(11)
    hits = 0
    reps = 1500
    for _ in range(reps):
        x = rng.binomial(n, q)
        y = rng.binomial(u, q).sum()
        lo, hi = randomised_share_interval(u, n, x, rng=rng)
        hits += lo <= y / sum(u) <= hi
    exact = share_coverage(u, n, q[None, :], v_points=256)[0]
    se = np.sqrt(0.95 * 0.05 / reps)
    assert abs(hits / reps - exact) < 4 * se


def _two_deck_frame():
    """One model, two decks; the judge is right on deck 'a' and poor on deck 'b'; every
    post-stratum holds 5 labels. Rows: deck, judge verdict, human answer (None = unlabelled)."""
    rows = []

    def add(deck, judge, true_lab, false_lab, unlabelled):
        rows.extend((deck, judge, True) for _ in range(true_lab))
        rows.extend((deck, judge, False) for _ in range(false_lab))
        rows.extend((deck, judge, None) for _ in range(unlabelled))

    add("a", True, 5, 0, 35)  # judge true on 40 of deck a: 5/5 labels true
    add("a", False, 1, 4, 55)  # judge false on 60: 1/5 true
    add("b", True, 3, 2, 15)  # judge true on 20 of deck b: 3/5 true
    add("b", False, 2, 3, 75)  # judge false on 80: 2/5 true
    frame = pd.DataFrame(rows, columns=["deck", "judge", "human"])
    frame["item_id"] = [f"i{k}" for k in range(len(frame))]
    obs = frame.assign(model="m", true_def=frame["judge"], knows=frame["judge"])[
        ["model", "deck", "item_id", "true_def", "knows"]
    ]
    lab = frame[frame["human"].notna()]
    labels = pd.DataFrame(
        {
            "item_id": lab["item_id"],
            "rater": "r1",
            "rater_type": "human",
            "label": np.where(lab["human"].astype(bool), "true", "false"),
            "question": "reference",
        }  # fmt: skip
    )
    return obs, labels


def test_rogan_gladen_per_deck_uses_the_decks_own_accuracy():
    obs, labels = _two_deck_frame()
    table = corrected_rates(obs, labels, metrics=("tdr",)).set_index("deck")
    # by hand, the post-stratified share of deck a: (40·5/5 + 60·1/5)/100 = 0.52;
    # deck b: (20·3/5 + 80·2/5)/100 = 0.44 — the same as PPI's, whatever the model's pooled Se/Sp
    assert table.loc["a", "rg"] == pytest.approx(0.52)
    assert table.loc["b", "rg"] == pytest.approx(0.44)
    assert table.loc["a", "ppi"] == pytest.approx(0.52) and table.loc["b", "ppi"] == pytest.approx(0.44)
    # the deck's own Se and Sp: deck a Se = 40/(40 + 12) (judge-true items all true, 12 true
    # among the judge-false), Sp = 48/48; deck b Se = 12/(12 + 32), Sp = 48/(48 + 8)
    assert table.loc["a", "se"] == pytest.approx(40 / 52) and table.loc["a", "sp"] == pytest.approx(1.0)
    assert table.loc["b", "se"] == pytest.approx(12 / 44) and table.loc["b", "sp"] == pytest.approx(48 / 56)
    for deck in "ab":
        row = table.loc[deck]
        assert row["rg_low"] <= row["rg"] <= row["rg_high"] and row["rg_reason"] is None


def test_a_deck_with_too_few_labels_gets_no_rogan_gladen_interval():
    obs, labels = _two_deck_frame()
    # drop two labels of deck b's judge-false stratum: 3 < 5 labels there
    b_false = obs[(obs["deck"] == "b") & ~obs["true_def"]]["item_id"]
    labels = labels[~labels["item_id"].isin(b_false.iloc[:2])]
    table = corrected_rates(obs, labels, metrics=("tdr",), options=CorrectionOptions()).set_index("deck")
    assert np.isnan(table.loc["b", "rg_low"]) and "fewer than 5 labels" in table.loc["b", "rg_reason"]
    assert np.isfinite(table.loc["b", "rg"])  # the point is kept
    assert np.isfinite(table.loc["a", "rg_low"])


def _reference_interval(u, n, x, v, confidence=0.95):
    """The interval built from ``scipy.stats.betabinom`` and ``np.convolve`` (module doc's recipe):
    for the lower bound a post-stratum with no true label counts 0, for the upper one a
    post-stratum with every label true counts all its items."""
    from scipy import stats

    def convolved(anchor):  # anchor(x, n) → the post-stratum is fixed at its bound
        pmf = np.ones(1)
        for us, ns, xs, vs in zip(u, n, x, v, strict=True):
            k = np.arange(us + 1)
            if anchor(xs, ns):
                part = (k == (0 if xs == 0 else us)).astype(float)
            else:
                first = (k == 0).astype(float) if xs == 0 else stats.betabinom.pmf(k, us, xs, ns - xs + 1)
                second = (k == us).astype(float) if xs == ns else stats.betabinom.pmf(k, us, xs + 1, ns - xs)
                part = (1 - vs) * first + vs * second
            pmf = np.convolve(pmf, part)
        return np.cumsum(pmf) / pmf.sum()

    alpha = (1 - confidence) / 2
    low = convolved(lambda xs, ns: xs == 0)
    high = convolved(lambda xs, ns: xs == ns)
    return int(np.searchsorted(low, alpha - 1e-12)), int(np.searchsorted(high, 1 - alpha - 1e-12))


@pytest.mark.parametrize(
    "u, n, x, v",
    [
        ([120, 35, 300], [5, 5, 10], [0, 5, 4], [0.3, 0.8, 0.55]),  # direct convolution
        ([3000, 2500, 40], [20, 7, 5], [17, 0, 2], [0.1, 0.95, 0.5]),  # > 4096 items: FFT
    ],
)
def test_interval_equals_a_scipy_reference(u, n, x, v):
    low, high = randomised_share_interval(u, n, x, v=v)
    total = sum(u)
    ref_low, ref_high = _reference_interval(u, n, x, v)
    assert (round(low * total), round(high * total)) == (ref_low, ref_high)


def test_whole_count_pmf_equals_scipy_betabinom():
    # the whole-count path (one log-factorial table) against scipy.stats.betabinom's mixture
    from scipy import stats

    from wordplay_audit.analysis.correction.calibration import _whole_predictive

    log_fact = special.gammaln(np.arange(1, 1200, dtype=float))
    for u, n, x, v in [
        (0, 5, 2, 0.3),
        (10, 5, 0, 0.5),
        (10, 5, 5, 0.5),
        (37, 1, 1, 0.9),
        (700, 40, 17, 0.25),
    ]:
        k = np.arange(u + 1)
        first = stats.betabinom.pmf(k, u, x, n - x + 1) if x > 0 else (k == 0).astype(float)
        second = stats.betabinom.pmf(k, u, x + 1, n - x) if x < n else (k == u).astype(float)
        want = (1 - v) * first + v * second
        got = _whole_predictive(u, n, x, v, log_fact)
        assert np.allclose(got, want, rtol=1e-9, atol=1e-300), (u, n, x, v)


@pytest.mark.slow
def test_post_strata_all_near_zero_are_covered():
    # three post-strata of 200 unlabelled items, 6 labels each, every share 0.005 (a model that
    # almost never gives the true definition). Unanchored, each post-stratum's mixture (mean
    # (x + v)/(n + 1), drawn towards ½) lifts the convolution's lower bound above the few true
    # items there are; anchored, at least the nominal level on each side. A simulation of the
    # interval itself (3000 campaigns) checks the exact sums by side.
    u, n, q = [200, 200, 200], [6, 6, 6], 0.005
    shares = np.full((1, 3), q)
    plain_below, _ = share_misses(u, n, shares, v_points=128, anchor=False)
    assert plain_below[0] > 0.10  # 15 % of the unanchored intervals lie wholly above the truth
    below, above = share_misses(u, n, shares, v_points=128)
    assert below[0] <= 0.025 and above[0] <= 0.025
    rng = np.random.default_rng(3)
    counts = np.zeros(2)
    reps = 3000
    for _ in range(reps):
        x, y = rng.binomial(n, q), rng.binomial(u, q).sum()
        low, high = randomised_share_interval(u, n, x, rng=rng)
        counts += [y < low * 600 - 1e-9, y > high * 600 + 1e-9]
    for got, exact in zip(counts / reps, (below[0], above[0]), strict=True):
        assert abs(got - exact) < 4 * np.sqrt(max(exact, 0.005) * (1 - exact) / reps)
