"""The linear programme of benchmarks/sim_share_bound_lp.py (why near-unanimous cells over-cover):
a case solved by hand, and the rule it returns checked by simulation."""

import numpy as np
import pytest


@pytest.fixture(scope="module")
def bench(load_benchmark):
    return load_benchmark("sim_share_bound_lp")


def test_by_hand_one_unlabelled_item_no_labels(bench):
    # No label, one unlabelled item Y ~ Bernoulli(q), no rest (σ = 0). A bound t < 1 misses
    # when Y = 1, t ≥ 1 never. Valid at every q ≤ 1 ⇔ P(t < 1) ≤ β. Shortest: t = 0 with
    # probability β, else t = 1: E t = 1 − β, miss at q0 = β·q0; the least conservative rule
    # misses the same β·q0 (no rule misses more while valid at q = 1).
    beta, q0 = 0.025, 0.5
    miss, expected_t = bench.solve(1, 0, 0.0, q0, beta, floor=0.0, shortest=True)
    assert miss == pytest.approx(beta * q0, abs=1e-9)
    assert expected_t == pytest.approx(1 - beta, abs=1e-9)
    loose, _ = bench.solve(1, 0, 0.0, q0, beta, floor=0.0, shortest=False)
    assert loose == pytest.approx(beta * q0, abs=1e-9)


def test_rule_valid_and_its_miss_confirmed_by_simulation(bench):
    u, n, sigma, q0, beta = 40, 10, 3.0, 0.02, 0.025
    floor = 1.959964 * sigma
    steps, w, miss, expected_t = bench.rule(u, n, sigma, q0, beta, floor=floor, shortest=True)
    assert steps.min() >= floor - 1e-12 and np.allclose(w.sum(axis=1), 1, atol=1e-8)
    cum = np.cumsum(np.clip(w, 0, None), axis=1)
    rng = np.random.default_rng(7)
    draws = 400_000
    for q in (0.0, q0, 0.1, 0.3, 0.7):
        x, y = rng.binomial(n, q, draws), rng.binomial(u, q, draws)
        t = steps[np.minimum((cum[x] < rng.random(draws)[:, None] * cum[x, -1:]).sum(axis=1), len(steps) - 1)]
        simulated = float(np.mean(y + rng.normal(0, sigma, draws) > t))
        se = np.sqrt(beta * (1 - beta) / draws)
        assert simulated <= beta + 4 * se, q  # valid where the programme says it is
        if q == q0:
            assert simulated == pytest.approx(miss, abs=4 * se)
            assert float(t.mean()) == pytest.approx(expected_t, rel=0.01)
    # the rest's noise makes the shortest valid bound over-cover at a near-zero share; the
    # post-stratum alone (σ = 0) has a shortest valid bound that misses close to β there
    alone, _ = bench.solve(u, n, 0.0, q0, beta, floor=0.0, shortest=True)
    assert miss < 0.2 * beta < 0.7 * beta < alone <= beta + 1e-9
