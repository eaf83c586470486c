"""Coverage of the engine's randomised exact interval in a *fixed* finite population: one cell (one
post-stratum) of N items, M of them true, n labelled by a simple random sample without
replacement, across sampled shares n/N from 0.05 to 0.9.

The engine's target is the realised count Y = M − x among the U = N − n unlabelled items, and its
interval is built from the predictive (1 − v)·BetaBinomial(U, x, n − x + 1) + v·BetaBinomial(U,
x + 1, n − x) (:mod:`wordplay_audit.analysis.correction.calibration`). Its coverage so far was
measured averaged over populations (items true independently with probability q); here it is
computed *given* M – the finite-population question: x ~ Hypergeometric(N, M, n) exactly
(``scipy.stats.hypergeom``), v integrated on a midpoint grid, the interval's quantile rule and its
unanimous-post-stratum rules (anchoring, open side) as the engine applies them, and
``randomised_share_interval`` itself checked on a sample of (x, v) pairs. No simulation noise.

    .venv/bin/python -m benchmarks sim_finite_population -- [--sizes 60,200,1000] [--v-points 2000]
        [--out benchmarks/results]

prints and writes ``sim_finite_population.csv``: per N × n/N × M/N the coverage given M, the
misses below / above and the mean width of the share interval; and the summary per n/N (the
range of coverage over M).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

from wordplay_audit.analysis.correction.calibration import open_side_v, randomised_share_interval

FRACTIONS = (0.05, 0.1, 0.25, 0.5, 0.75, 0.9)
SHARES = (0.02, 0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 0.9, 0.95)


def bounds(
    big_n: int, n: int, v: np.ndarray, confidence: float = 0.95, *, rules: bool = True, widen: bool = True
) -> tuple[np.ndarray, np.ndarray]:
    """The engine's low and high counts of Y for every x = 0 … n (rows) and v (columns);
    ``rules=False`` without its unanimous-post-stratum rules, ``widen=False`` without widening
    to the point: the bare randomised quantiles, i.e. the randomised hypergeometric interval."""
    u, alpha = big_n - n, (1 - confidence) / 2
    k = np.arange(u + 1)
    low = np.zeros((n + 1, len(v)), int)
    high = np.zeros((n + 1, len(v)), int)
    for x in range(n + 1):
        w = open_side_v(v, np.full(len(v), x == 0 and rules), np.full(len(v), x == n and rules), confidence)
        fa = stats.betabinom.cdf(k, u, x, n - x + 1) if x > 0 else np.ones(u + 1)
        fb = stats.betabinom.cdf(k, u, x + 1, n - x) if x < n else (k >= u).astype(float)
        cdf = (1 - w)[:, None] * fa[None, :] + w[:, None] * fb[None, :]
        low[x] = 0 if x == 0 and rules else (cdf < alpha - 1e-12).sum(axis=1)
        high[x] = u if x == n and rules else (cdf < 1 - alpha - 1e-12).sum(axis=1)
        if rules:  # never a zero width with unlabelled items: one item more
            meet = high[x] <= low[x]
            up = meet & (low[x] < u)
            high[x] = np.where(up, low[x] + 1, high[x])
            low[x] = np.where(meet & ~up, high[x] - 1, low[x])
        if widen:  # the engine widens its bounds to hold the point
            point = u * x / n
            low[x] = np.minimum(low[x], int(np.floor(point + 1e-9)))
            high[x] = np.maximum(high[x], int(np.ceil(point - 1e-9)))
    return low, high


def hypergeometric_bounds(
    big_n: int, n: int, v: np.ndarray, confidence: float = 0.95
) -> tuple[np.ndarray, np.ndarray]:
    """The randomised exact interval of Y = M − x by inverting the two randomised hypergeometric
    tests, P_M(X < x) + v·P_M(X = x) > α/2 and P_M(X > x) + (1 − v)·P_M(X = x) > α/2, written
    with ``scipy.stats.hypergeom`` (an independent reference: its coverage is 1 − α at every M).
    An empty set (possible for a randomised interval) is (0, −1)."""
    u, alpha = big_n - n, (1 - confidence) / 2
    y = np.arange(u + 1)
    low = np.zeros((n + 1, len(v)), int)
    high = np.full((n + 1, len(v)), -1)
    for x in range(n + 1):
        m = x + y
        below, at = stats.hypergeom.cdf(x - 1, big_n, m, n), stats.hypergeom.pmf(x, big_n, m, n)
        p_up = below[None, :] + v[:, None] * at[None, :]
        p_low = 1 - p_up
        inside = (p_up > alpha) & (p_low > alpha)
        some = inside.any(axis=1)
        low[x, some] = np.argmax(inside[some], axis=1)
        high[x, some] = u - np.argmax(inside[some, ::-1], axis=1)
    return low, high


def coverage_given_m(
    big_n: int, n: int, m: int, low: np.ndarray, high: np.ndarray
) -> tuple[float, float, float]:
    """(below, above, mean width as a share of N) given M = m true items."""
    x = np.arange(n + 1)
    px = stats.hypergeom.pmf(x, big_n, m, n)
    y = (m - x)[:, None]
    below = (px * (y < low).mean(axis=1)).sum()
    above = (px * (y > high).mean(axis=1)).sum()
    width = (px * ((high - low) / big_n).mean(axis=1)).sum()
    return float(below), float(above), float(width)


def spot_check(big_n: int, n: int, low: np.ndarray, high: np.ndarray, v: np.ndarray, rng) -> None:
    """The tabulated bounds equal ``randomised_share_interval`` on a few (x, v) pairs."""
    for x, j in zip(rng.integers(0, n + 1, 5), rng.integers(0, len(v), 5), strict=True):
        lo, hi = randomised_share_interval([big_n - n], [n], [x], v=[v[j]], known_true=x, n_total=big_n)
        point = x + (big_n - n) * x / n
        lo, hi = min(lo, point / big_n), max(hi, point / big_n)
        got = ((x + low[x, j]) / big_n, (x + high[x, j]) / big_n)
        assert np.allclose(got, (lo, hi), atol=0.5 / big_n), (big_n, n, x, v[j], got, (lo, hi))


def run(sizes: list[int], v_points: int) -> pd.DataFrame:
    v = (np.arange(v_points) + 0.5) / v_points
    rng = np.random.default_rng(0)
    rows = []
    for big_n in sizes:
        for f in FRACTIONS:
            n = max(1, round(f * big_n))
            low, high = bounds(big_n, n, v)
            spot_check(big_n, n, low, high, v, rng)
            bare = bounds(big_n, n, v, rules=False, widen=False)
            no_widen = bounds(big_n, n, v, widen=False)
            hyper = hypergeometric_bounds(big_n, n, v)
            for share in SHARES:
                m = round(share * big_n)
                below, above, width = coverage_given_m(big_n, n, m, low, high)
                b_below, b_above, b_width = coverage_given_m(big_n, n, m, *bare)
                r_below, r_above, _ = coverage_given_m(big_n, n, m, *no_widen)
                h_below, h_above, h_width = coverage_given_m(big_n, n, m, *hyper)
                rows.append({"N": big_n, "n": n, "sampled_share": n / big_n, "M": m, "true_share": m / big_n,
                             "coverage": 1 - below - above, "below": below, "above": above, "mean_width": width,
                             "coverage_unwidened": 1 - r_below - r_above,
                             "coverage_bare": 1 - b_below - b_above, "mean_width_bare": b_width,
                             "coverage_hypergeometric": 1 - h_below - h_above, "mean_width_hypergeometric": h_width})  # fmt: skip
    return pd.DataFrame(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="60,200,1000")
    parser.add_argument("--v-points", type=int, default=2000)
    parser.add_argument("--out", default=None)
    args = parser.parse_args(argv)
    start = time.time()
    table = run([int(s) for s in args.sizes.split(",")], args.v_points)
    summary = (
        table.groupby(["N", "sampled_share"])[["coverage", "coverage_bare", "coverage_hypergeometric"]]
        .agg(["min", "max"])
        .round(4)
    )
    with pd.option_context("display.width", 200, "display.max_rows", 500):
        print(summary.to_string())
    print(f"coverage given M: {table['coverage'].min():.4f}–{table['coverage'].max():.4f} over {len(table)} "
          f"populations ({time.time() - start:.0f} s)")  # fmt: skip
    if args.out:
        Path(args.out).mkdir(parents=True, exist_ok=True)
        table.round(6).to_csv(Path(args.out) / "sim_finite_population.csv", index=False)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
