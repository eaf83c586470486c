"""The candidate interval of benchmarks/sim_share_normal_scores.py (normal-score combination of
the post-strata's predictives): one post-stratum gives the toolkit's interval, and its exact
coverage calculator agrees with a simulation of the interval itself."""

import numpy as np
import pytest

from wordplay_audit.analysis.correction.calibration import randomised_share_interval


@pytest.fixture(scope="module")
def bench(load_benchmark):
    return load_benchmark("sim_share_normal_scores")


@pytest.mark.parametrize(
    ("u", "n", "x", "v"), [(40, 10, 3, 0.4), (200, 6, 0, 0.9), (55, 8, 8, 0.2), (9, 5, 2, 0.7)]
)
def test_one_post_stratum_is_the_toolkits_interval(bench, u, n, x, v):
    low, high = bench.score_interval([u], [n], [x], [v])
    t_low, t_high = randomised_share_interval([u], [n], [x], v=[v])
    assert (low, high) == (round(t_low * u), round(t_high * u))


def test_exact_misses_agree_with_a_simulation(bench):
    u, n, q = np.array([150, 60]), np.array([6, 5]), np.array([0.08, 0.6])
    below, above = bench.score_misses(u, n, q[None, :], v_points=128)
    rng = np.random.default_rng(5)
    reps, counts = 3000, np.zeros(2)
    for _ in range(reps):
        x, y = rng.binomial(n, q), rng.binomial(u, q).sum()
        low, high = bench.score_interval(u, n, x, rng.random(2))
        counts += [y < low, y > high]
    for got, exact in zip(counts / reps, (below[0], above[0]), strict=True):
        assert abs(got - exact) < 4 * np.sqrt(max(exact, 0.005) * (1 - exact) / reps)
