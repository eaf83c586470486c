"""The engine's interval in a fixed finite population (benchmarks/sim_finite_population.py):
coverage of the realised count given the cell's true count M, with ``scipy.stats.hypergeom`` as
the reference for the sampling of labels without replacement."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from wordplay_audit.analysis.correction.calibration import randomised_share_interval


@pytest.mark.parametrize(
    ("u", "n", "x", "m"), [(50, 150, 3, 5), (50, 150, 40, 50), (20, 180, 100, 130), (5, 45, 0, 2)]
)
def test_the_hypergeometric_tail_is_a_beta_binomial_one(u, n, x, m):
    """P_M(X ≤ x) = P(BetaBinomial(U, x + 1, n − x) ≥ M − x) (N = U + n)."""
    lhs = stats.hypergeom.cdf(x, u + n, m, n)
    rhs = stats.betabinom.sf(m - x - 1, u, x + 1, n - x)
    assert lhs == pytest.approx(rhs, rel=1e-9, abs=1e-15)


def test_the_end_components_are_the_hypergeometric_clopper_pearson_limits():
    """v = 1 for the upper bound, v = 0 for the lower (non-unanimous x): the largest M with
    P_M(X ≤ x) > α/2 and the smallest with P_M(X ≥ x) > α/2, by scipy over every M."""
    big_n, n, x = 80, 60, 21
    ms = np.arange(x, x + big_n - n + 1)
    upper = ms[stats.hypergeom.cdf(x, big_n, ms, n) > 0.025].max()
    lower = ms[stats.hypergeom.sf(x - 1, big_n, ms, n) > 0.025].min()
    _, high = randomised_share_interval([big_n - n], [n], [x], v=[1.0], known_true=x, n_total=big_n)
    low, _ = randomised_share_interval([big_n - n], [n], [x], v=[0.0], known_true=x, n_total=big_n)
    assert (round(low * big_n), round(high * big_n)) == (lower, upper)


@pytest.mark.parametrize("fraction", [0.1, 0.5, 0.9])
def test_coverage_given_m_holds_and_the_reference_is_exact(load_benchmark, fraction):
    sim = load_benchmark("sim_finite_population")
    big_n, n = 40, round(40 * fraction)
    v = (np.arange(400) + 0.5) / 400
    engine, reference = sim.bounds(big_n, n, v), sim.hypergeometric_bounds(big_n, n, v)
    sim.spot_check(big_n, n, *engine, v, np.random.default_rng(1))
    for m in range(0, big_n + 1, 4):
        below, above, _ = sim.coverage_given_m(big_n, n, m, *engine)
        assert 1 - below - above >= 0.95 - 0.003
        below, above, _ = sim.coverage_given_m(big_n, n, m, *reference)
        assert 1 - below - above == pytest.approx(0.95, abs=0.003)
