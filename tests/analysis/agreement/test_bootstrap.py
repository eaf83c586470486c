"""The pattern-weight bootstrap equals row-copying bootstraps with the same random draws."""

from __future__ import annotations

import warnings

import krippendorff
import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss_kappa

from wordplay_audit.analysis.agreement import (
    BootstrapOptions,
    UndefinedStatisticWarning,
    bootstrap_intervals,
    count_patterns,
)
from wordplay_audit.errors import ParameterError


def gwet_ac1_reference(table: np.ndarray) -> float:
    """Gwet (2008) AC1 for a complete count table, written out independently for the tests."""
    m = table.sum(axis=1)[0]
    p_a = ((table * (table - 1)).sum(axis=1) / (m * (m - 1))).mean()
    pi = table.sum(axis=0) / table.sum()
    p_e = (pi * (1 - pi)).sum() / (table.shape[1] - 1)
    return (p_a - p_e) / (1 - p_e)


def alpha_reference(table: np.ndarray) -> float:
    return krippendorff.alpha(value_counts=table, level_of_measurement="nominal")


def make_table(seed: int, n: int = 70, raters: int = 4, k: int = 3) -> np.ndarray:
    rng = np.random.default_rng(seed)
    truth = rng.choice(k, n, p=np.linspace(2, 1, k) / np.linspace(2, 1, k).sum())
    codes = np.where(rng.random((n, raters)) < 0.55, truth[:, None], rng.integers(0, k, (n, raters)))
    table = np.zeros((n, k), dtype=np.int64)
    for j in range(raters):
        np.add.at(table, (np.arange(n), codes[:, j]), 1)
    return table


def test_indices_draws_equal_naive_row_copying_loop():
    table = make_table(1)
    n, n_boot, seed = len(table), 300, 42
    ours = bootstrap_intervals(
        table,
        statistics=("fleiss_kappa", "krippendorff_alpha", "gwet_ac1"),
        bootstrap=BootstrapOptions(n_boot=n_boot, seed=seed, draws="indices", method="percentile"),
    )
    rng = np.random.default_rng(seed)
    naive = {"fleiss_kappa": [], "krippendorff_alpha": [], "gwet_ac1": []}
    for _ in range(n_boot):
        rows = table[rng.integers(0, n, n)]  # copy the resampled rows
        naive["fleiss_kappa"].append(sm_fleiss_kappa(rows))
        naive["krippendorff_alpha"].append(alpha_reference(rows))
        naive["gwet_ac1"].append(gwet_ac1_reference(rows))
    for name, values in naive.items():
        values = np.array(values)
        assert np.allclose(ours[name].distribution, values, rtol=0, atol=1e-12)
        low, high = np.quantile(values, [0.025, 0.975])
        assert ours[name].ci_low == pytest.approx(low, abs=1e-12)
        assert ours[name].ci_high == pytest.approx(high, abs=1e-12)
        assert ours[name].boot_se == pytest.approx(np.std(values, ddof=1), abs=1e-12)


@pytest.mark.parametrize("method", ["percentile", "BCa"])
def test_indices_draws_equal_scipy_bootstrap(method):
    table = make_table(2, n=50)
    n = len(table)
    ours = bootstrap_intervals(
        table,
        statistics=("fleiss_kappa", "krippendorff_alpha"),
        bootstrap=BootstrapOptions(n_boot=400, seed=7, draws="indices"),
    )
    for name, statistic in (
        ("fleiss_kappa", lambda idx: sm_fleiss_kappa(table[idx])),
        ("krippendorff_alpha", lambda idx: alpha_reference(table[idx])),
    ):
        ref = stats.bootstrap(
            (np.arange(n),),
            statistic,
            n_resamples=400,
            rng=np.random.default_rng(7),
            method=method,
            vectorized=False,
            confidence_level=0.95,
        )
        got = ours[name].percentile if method == "percentile" else ours[name].bca
        assert got[0] == pytest.approx(ref.confidence_interval.low, abs=1e-9)
        assert got[1] == pytest.approx(ref.confidence_interval.high, abs=1e-9)
        assert ours[name].boot_se == pytest.approx(ref.standard_error, abs=1e-12)


def test_multinomial_draws_equal_two_stage_row_copying():
    # Drawing n items uniformly with replacement = drawing how many come from each pattern
    # (multinomial with the pattern shares), then which items of that pattern (uniform).
    # The naive loop does both stages and copies rows; the fast path uses only stage one.
    table = make_table(3, n=90)
    n, n_boot, seed = len(table), 200, 5
    ours = bootstrap_intervals(
        table,
        statistics=("fleiss_kappa", "krippendorff_alpha", "gwet_ac1", "per_category_kappa"),
        bootstrap=BootstrapOptions(n_boot=n_boot, seed=seed),
    )
    _, inverse, freq = count_patterns(table)
    members = [np.flatnonzero(inverse == p) for p in range(len(freq))]
    rng = np.random.default_rng(seed)
    stage_one = rng.multinomial(n, freq / n, size=n_boot)
    pick = np.random.default_rng(999)  # stage two: any generator, the statistic does not care
    kappa, alpha, ac1, per_cat = [], [], [], []
    for counts in stage_one:
        idx = np.concatenate([pick.choice(members[p], size=c) for p, c in enumerate(counts)])
        rows = table[idx]
        kappa.append(sm_fleiss_kappa(rows))
        alpha.append(alpha_reference(rows))
        ac1.append(gwet_ac1_reference(rows))
        per_cat.append(
            [
                sm_fleiss_kappa(np.column_stack([rows[:, k], rows.sum(axis=1) - rows[:, k]]))
                for k in range(table.shape[1])
            ]
        )
    assert np.allclose(ours["fleiss_kappa"].distribution, kappa, atol=1e-12)
    assert np.allclose(ours["krippendorff_alpha"].distribution, alpha, atol=1e-12)
    assert np.allclose(ours["gwet_ac1"].distribution, ac1, atol=1e-12)
    assert np.allclose(ours["per_category_kappa"].distribution, per_cat, atol=1e-12)


def test_multinomial_and_indices_draws_agree_in_distribution():
    table = make_table(4, n=120)
    a = bootstrap_intervals(
        table, statistics=("fleiss_kappa",), bootstrap=BootstrapOptions(n_boot=3000, seed=1)
    )["fleiss_kappa"]
    b = bootstrap_intervals(
        table, statistics=("fleiss_kappa",), bootstrap=BootstrapOptions(n_boot=3000, seed=2, draws="indices")
    )["fleiss_kappa"]
    assert stats.ks_2samp(a.distribution, b.distribution).pvalue > 0.01
    assert a.boot_se == pytest.approx(b.boot_se, rel=0.1)


def test_bca_jackknife_by_patterns_equals_leave_one_out():
    # BCa acceleration from P pattern jackknife values (weighted) = from all n leave-one-out
    # values computed by statsmodels on copied tables.
    table = make_table(5, n=40)
    n = len(table)
    loo = np.array([sm_fleiss_kappa(np.delete(table, i, axis=0)) for i in range(n)])
    d = loo.mean() - loo
    accel = (d**3).sum() / (6 * (d**2).sum() ** 1.5)
    theta = sm_fleiss_kappa(table)
    res = bootstrap_intervals(
        table, statistics=("fleiss_kappa",), bootstrap=BootstrapOptions(n_boot=500, seed=3)
    )["fleiss_kappa"]
    dist = res.distribution
    z0 = stats.norm.ppf(((dist < theta).sum() + (dist <= theta).sum()) / (2 * len(dist)))
    z = stats.norm.ppf(0.025)
    lo = stats.norm.cdf(z0 + (z0 + z) / (1 - accel * (z0 + z)))
    hi = stats.norm.cdf(z0 + (z0 - z) / (1 - accel * (z0 - z)))
    assert res.bca[0] == pytest.approx(np.quantile(dist, lo), abs=1e-12)
    assert res.bca[1] == pytest.approx(np.quantile(dist, hi), abs=1e-12)


def test_seeded_and_reproducible():
    table = make_table(6)
    a = bootstrap_intervals(table, bootstrap=BootstrapOptions(n_boot=200, seed=11))
    b = bootstrap_intervals(table, bootstrap=BootstrapOptions(n_boot=200, seed=11))
    c = bootstrap_intervals(table, bootstrap=BootstrapOptions(n_boot=200, seed=12))
    assert a["fleiss_kappa"].ci_low == b["fleiss_kappa"].ci_low
    assert a["fleiss_kappa"].ci_low != c["fleiss_kappa"].ci_low


def test_coverage_small_simulation():
    # Known truth: raters report the true class w.p. s, else a draw from the prevalence ρ,
    # so Fleiss' κ = s² (see benchmarks/sim_agreement_coverage.py for the full study).
    rng = np.random.default_rng(2024)
    rho, s, n, r = np.array([0.6, 0.3, 0.1]), 0.7, 150, 4
    reps, hit_pct, hit_bca = 300, 0, 0
    for rep in range(reps):
        z = rng.choice(3, n, p=rho)
        codes = np.where(rng.random((n, r)) < s, z[:, None], rng.choice(3, (n, r), p=rho))
        table = np.stack([(codes == k).sum(axis=1) for k in range(3)], axis=1)
        est = bootstrap_intervals(
            table, statistics=("fleiss_kappa",), bootstrap=BootstrapOptions(n_boot=400, seed=rep)
        )["fleiss_kappa"]
        hit_pct += est.percentile[0] <= s * s <= est.percentile[1]
        hit_bca += est.bca[0] <= s * s <= est.bca[1]
    # 300 replications: Monte Carlo SE of a 95 % coverage is 1.3 %
    assert 0.91 <= hit_pct / reps <= 0.98
    assert 0.91 <= hit_bca / reps <= 0.98


def test_undefined_resamples_are_counted_not_fatal():
    # 3 items, one of them the only disagreement: some resamples have every rating in "a"
    table = np.array([[2, 0], [2, 0], [1, 1]])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedStatisticWarning)
        res = bootstrap_intervals(
            table, statistics=("fleiss_kappa",), bootstrap=BootstrapOptions(n_boot=200, seed=0)
        )["fleiss_kappa"]
    assert res.n_undefined > 0
    assert np.isfinite(res.percentile[0]) and np.isfinite(res.percentile[1])
    # every defined resample is ≤ κ̂ here, so BCa's z0 is infinite: percentile is used instead
    assert np.isnan(res.bca[0])
    assert res.method == "percentile"
    assert (res.ci_low, res.ci_high) == res.percentile


def test_bad_options_raise_parameter_error():
    table = make_table(7)
    with pytest.raises(ParameterError, match="statistics: expected one of fleiss_kappa, "):
        bootstrap_intervals(table, statistics=("kappa",))
    with pytest.raises(ParameterError, match="draws: expected one of multinomial, indices"):
        BootstrapOptions(draws="fast")
    with pytest.raises(ParameterError, match="method: expected one of bca, percentile"):
        BootstrapOptions(method="BCa")
    with pytest.raises(ParameterError, match="n_boot"):
        BootstrapOptions(n_boot=1)
    with pytest.raises(ParameterError, match="n_boot"):
        BootstrapOptions(n_boot=2.5)
    with pytest.raises(ParameterError, match="confidence"):
        BootstrapOptions(confidence=95)
    with pytest.raises(ParameterError, match="level"):
        bootstrap_intervals(table, level="cardinal")


@pytest.mark.parametrize("level", ["ordinal", "interval"])
def test_non_nominal_alpha_bootstrap_equals_naive_loop(level):
    table = make_table(8, n=60, raters=3, k=4)
    values = np.arange(1, 5)
    ours = bootstrap_intervals(
        table,
        statistics=("krippendorff_alpha",),
        level=level,
        categories=[str(v) for v in values],
        bootstrap=BootstrapOptions(n_boot=60, seed=9, draws="indices"),
    )["krippendorff_alpha"]
    rng = np.random.default_rng(9)
    naive = [
        krippendorff.alpha(
            value_counts=table[rng.integers(0, 60, 60)],
            value_domain=values,
            level_of_measurement=level,
        )
        for _ in range(60)
    ]
    assert np.allclose(ours.distribution, naive, atol=1e-12)


def test_no_bootstrap_gives_the_point_estimates_with_nan_bounds():
    table = make_table(7)
    every = ("fleiss_kappa", "krippendorff_alpha", "gwet_ac1", "per_category_kappa")
    res = bootstrap_intervals(table, statistics=every, bootstrap=BootstrapOptions(n_boot=0))
    # references: statsmodels, krippendorff, and the independent AC1 written out above
    assert res["fleiss_kappa"].value == pytest.approx(sm_fleiss_kappa(table), abs=1e-12)
    assert res["gwet_ac1"].value == pytest.approx(gwet_ac1_reference(table), abs=1e-12)
    alpha_ref = krippendorff.alpha(value_counts=table, level_of_measurement="nominal")
    assert res["krippendorff_alpha"].value == pytest.approx(alpha_ref, abs=1e-12)
    # α has Gwet's (irrCAC's) linearisation SE at the nominal level (values in
    # tests/analysis/agreement/test_irrcac_raw.py)
    assert res["krippendorff_alpha"].se > 0 and res["fleiss_kappa"].se > 0
    for name in ("fleiss_kappa", "krippendorff_alpha", "gwet_ac1"):
        est = res[name]
        assert est.method == "none" and est.n_boot == 0 and est.n_undefined == 0
        assert np.isnan(est.ci_low) and np.isnan(est.ci_high) and np.isnan(est.boot_se)
    per = res["per_category_kappa"]
    for k in range(table.shape[1]):  # Fleiss (1971): κ_k is κ of the table collapsed to k vs rest
        collapsed = np.column_stack([table[:, k], table.sum(axis=1) - table[:, k]])
        assert per.frame()["kappa"].iloc[k] == pytest.approx(sm_fleiss_kappa(collapsed), abs=1e-12)
    assert np.isnan(per.ci_low).all() and (per.n_undefined == 0).all()
    with pytest.raises(ParameterError, match="statistics: expected a tuple"):
        bootstrap_intervals(table, statistics="fleiss_kappa")
    with pytest.raises(ParameterError, match="only per-category intervals"):
        res["fleiss_kappa"].frame()


def test_identical_items_have_no_interval():
    counts = np.array([[2, 1], [2, 1], [2, 1]])  # every resample is the data itself
    result = bootstrap_intervals(counts, bootstrap=BootstrapOptions(n_boot=50))["fleiss_kappa"]
    assert result.value == pytest.approx(-0.5, abs=1e-12)
    assert np.isnan(result.ci_low) and "same ratings" in result.ci_reason
