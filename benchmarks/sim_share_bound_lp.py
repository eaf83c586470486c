"""How often must a *valid* bound miss in a near-unanimous cell? A linear programme over every
randomised rule (the over-covering near-unanimous cells; no simulation, exact under its model).

    .venv/bin/python -m benchmarks sim_share_bound_lp [-- --labels 37 --unlabelled 221]

The model: a cell's realised true count is Y + R, where Y is the number of true items among the
``U`` unlabelled items of one post-stratum whose ``n`` labels gave ``x`` true (x ~ Binomial(n,
q), Y ~ Binomial(U, q), independent given the share q), and R is the rest of the cell, whose
estimate errs by ε ~ N(0, σ²) whatever q is (σ from ``--others``: post-strata U:n:share,
σ² = Σ U²·q(1 − q)/n + U·q(1 − q), the parameter and the binomial spread). An upper bound is
(the rest's estimate) + t with t drawn from a distribution w[x, ·] that may depend on x (any
randomised rule); it misses when Y + ε > t. *Valid* at level β: P(miss) ≤ β at every share
q in [0, 1] (checked on a grid of 191 shares, dense below 0.1). The lower bound of a post-stratum
near 1 is the mirror image (q → 1 − q, x → n − x), with the same numbers.

For each target share q₀ the script solves, with ``scipy.optimize.linprog`` (HiGHS):

* *shortest*: the valid rule with the least expected t at q₀, and how often it misses at q₀;
* *least conservative*: the valid rule that misses most often at q₀;

both among rules whose t never falls below z_β·σ, the bound the rest would have alone if the
post-stratum were known to hold no true item (knowing less never earns a shorter bound).
Without that floor (measured at the defaults) the least conservative rule misses β at q₀ = 0.006 and
even the shortest 0.011–0.025 at 0.002–0.08, by returning t = 0 now and then whatever the labels
say (a miss bought at random): calibrated on paper, and useless.

Defaults: model 1 of design D in ``sim_adaptive_allocation`` at its typical final adaptive
allocation – the judge-false stratum of 258 items with 37 labels (U = 221) at share ≈ 0.006,
the rest (28:12:0.7, 33:12:0.33); the judge-true stratum (221 unlabelled, share ≈ 0.994) is the
mirror image on the lower side. ``--others ""`` (σ = 0) is the check: one post-stratum alone
has valid bounds that miss close to β (shortest 0.022 at q₀ = 0.006, 0.024 at 0.05, against
0.0045 and 0.023 beside the defaults' rest), so the over-cover comes from the rest's noise
added to a post-stratum whose labels are all false, not from the post-stratum itself.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from scipy import optimize, stats

SHARES = np.unique(np.concatenate([np.linspace(0.0, 0.1, 101), np.linspace(0.1, 1.0, 91)]))


def rest_sigma(others: str) -> float:
    """σ of the rest's error from ``U:n:share`` triples (comma-separated; empty: 0)."""
    total = 0.0
    for item in filter(None, others.split(",")):
        u, n, q = (float(v) for v in item.split(":"))
        total += (u * u / n + u) * q * (1 - q)
    return float(np.sqrt(total))


def miss_table(u: int, sigma: float, shares: np.ndarray, steps: np.ndarray) -> np.ndarray:
    """P(Y + ε > t) for Y ~ Binomial(u, q): rows are shares, columns thresholds t."""
    y = np.arange(u + 1)
    py = stats.binom.pmf(y[None, :], u, shares[:, None])  # shares × y
    if sigma == 0:
        above = (y[None, :] > steps[:, None]).astype(float)  # t × y
    else:
        above = stats.norm.sf((steps[:, None] - y[None, :]) / sigma)
    return py @ above.T


def solve(
    u: int, n: int, sigma: float, q0: float, beta: float, *, floor: float, shortest: bool
) -> tuple[float, float]:
    """Miss at q0 and expected t at q0 of the shortest or the least conservative valid rule
    whose t never falls below ``floor``."""
    _, _, miss, expected_t = rule(u, n, sigma, q0, beta, floor=floor, shortest=shortest)
    return miss, expected_t


def rule(
    u: int, n: int, sigma: float, q0: float, beta: float, *, floor: float, shortest: bool
) -> tuple[np.ndarray, np.ndarray, float, float]:
    """:func:`solve`'s rule itself: thresholds t, w[x, t] (rows sum to 1), miss and E t at q0."""
    steps = np.arange(floor, u + 6 * sigma + 2, 0.5)
    grid = np.unique(np.append(SHARES, q0))
    table = miss_table(u, sigma, grid, steps)  # shares × t
    px = stats.binom.pmf(np.arange(n + 1)[None, :], n, grid[:, None])  # shares × x
    rows = (px[:, :, None] * table[:, None, :]).reshape(len(grid), -1)  # miss per w[x, t]
    at = int(np.searchsorted(grid, q0))
    equal = np.kron(np.eye(n + 1), np.ones(len(steps)))
    if shortest:
        cost = (px[at][:, None] * steps[None, :]).ravel()
    else:
        cost = -rows[at]
    result = optimize.linprog(
        cost,
        A_ub=rows,
        b_ub=np.full(len(grid), beta),
        A_eq=equal,
        b_eq=np.ones(n + 1),
        bounds=(0, None),
        method="highs",
    )
    if result.status != 0:
        raise RuntimeError(f"linprog: {result.message}")
    w = result.x
    expected_t = float((px[at][:, None] * steps[None, :]).ravel() @ w)
    return steps, w.reshape(n + 1, len(steps)), float(rows[at] @ w), expected_t


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--labels", type=int, default=37, help="n, labels of the near-unanimous post-stratum")
    parser.add_argument("--unlabelled", type=int, default=221, help="U, its unlabelled items")
    parser.add_argument("--others", default="28:12:0.7,33:12:0.33", help="the rest: U:n:share,…")
    parser.add_argument("--shares", default="0.002,0.006,0.02,0.05,0.08", help="target shares q0")
    parser.add_argument("--beta", default="0.025,0.05", help="allowed miss on this side")
    args = parser.parse_args(argv)
    sigma = rest_sigma(args.others)
    print(
        f"post-stratum: {args.labels} labels, {args.unlabelled} unlabelled; the rest: σ = {sigma:.2f} items"
    )
    for beta in (float(b) for b in args.beta.split(",")):
        floor = float(stats.norm.isf(beta) * sigma) if sigma > 0 else 0.0
        for q0 in (float(q) for q in args.shares.split(",")):
            start = time.perf_counter()
            short_miss, short_t = solve(
                args.unlabelled, args.labels, sigma, q0, beta, floor=floor, shortest=True
            )
            loose_miss, loose_t = solve(
                args.unlabelled, args.labels, sigma, q0, beta, floor=floor, shortest=False
            )
            print(
                f"β {beta:.3f} q0 {q0:<6} (t ≥ {floor:.1f}): shortest valid bound misses {short_miss:.4f}"
                f" (E t {short_t:.1f} items), least conservative {loose_miss:.4f} (E t {loose_t:.1f})"
                f"  ({time.perf_counter() - start:.0f} s)",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
