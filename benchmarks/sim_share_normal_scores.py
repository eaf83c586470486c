"""A candidate interval measured against the toolkit's: the post-strata's randomised
Clopper–Pearson predictives combined by normal scores instead of by convolution (tried
for near-unanimous cells; not adopted – docs/CHANGELOG.md).

    .venv/bin/python -m benchmarks sim_share_normal_scores [-- --cases 4,6 --draws 6000]

*The candidate.* Per post-stratum s, F_s is the cdf of its predictive (the mixture of two
beta-binomials of ``calibration``), m_s its median, and d⁺_s = F_s⁻¹(1 − α/2) − m_s,
d⁻_s = m_s − F_s⁻¹(α/2) its spreads on each side (0 for a unanimous post-stratum on the side it
is anchored on: no true label → it counts 0 in the lower bound, all true → all its items in the
upper). Weights a^±_s = d^±_s / ‖d^±‖; the upper bound is Σ_s F_s⁻¹(Φ(z·a⁺_s)), the lower
Σ_s F_s⁻¹(Φ(−z·a⁻_s)). One post-stratum: its own randomised quantiles (the toolkit's interval);
normal pieces: the Wald interval. Side-specific weights keep a post-stratum that cannot move
on one side from taking that side's share of the error (with one weight per post-stratum the
combination covered 0.81 at (229, 71) items, (5, 5) labels).

Prints (1) its exact coverage on the grids of ``sim_share_coverage_grids`` beside the toolkit's
(``share_misses``) and (2) both intervals' misses by simulation at D model 1's strata of
``sim_adaptive_allocation`` (42, 258, 258, 42 items; shares 0.7, q, 1 − q, 0.33) with 37–76
labels in the two near-unanimous post-strata.
"""

from __future__ import annotations

import argparse
import time
from statistics import NormalDist

import numpy as np

from benchmarks.sim_share_coverage_grids import CASES, grids
from wordplay_audit.analysis.correction import calibration as cal

NORMAL = NormalDist()


def _quantile(cdf: np.ndarray, p: np.ndarray) -> np.ndarray:
    """Smallest count k with cdf[k] ≥ p, per row of ``cdf`` (rows × counts) and entry of ``p``."""
    return (cdf < p[:, None] - 1e-12).sum(axis=1)


def score_bounds(cdfs: list[np.ndarray], x: np.ndarray, n: np.ndarray, u: np.ndarray, confidence: float):
    """(low, high) counts of the candidate for matched rows of the post-strata's predictive cdfs
    (``cdfs[s]``: rows × (u_s + 1)); ``x`` rows × strata."""
    alpha, z = (1 - confidence) / 2, NORMAL.inv_cdf(1 - (1 - confidence) / 2)
    rows = cdfs[0].shape[0]
    none, every = x <= 0, x >= n[None, :]
    at = [lambda level, c=c: _quantile(c, np.full(rows, level)) for c in cdfs]
    med = np.stack([f(0.5) for f in at], axis=1).astype(float)
    up = np.where(every, 0.0, np.clip(np.stack([f(1 - alpha) for f in at], axis=1) - med, 0, None) + 1e-9)
    down = np.where(none, 0.0, np.clip(med - np.stack([f(alpha) for f in at], axis=1), 0, None) + 1e-9)
    a_up = up / np.maximum(np.linalg.norm(up, axis=1, keepdims=True), 1e-12)
    a_down = down / np.maximum(np.linalg.norm(down, axis=1, keepdims=True), 1e-12)
    phi = np.vectorize(NORMAL.cdf)
    high = sum(np.where(every[:, s], u[s], _quantile(c, phi(z * a_up[:, s]))) for s, c in enumerate(cdfs))
    low = sum(np.where(none[:, s], 0, _quantile(c, phi(-z * a_down[:, s]))) for s, c in enumerate(cdfs))
    return low, high


def score_misses(u, n, shares, v_points: int = 64, seed: int = 0, confidence: float = 0.95):
    """Exact misses (below, above) of the candidate per row of ``shares`` (as ``share_misses``)."""
    u, n = np.asarray(u), np.asarray(n)
    points, combos, less, px = cal.coverage_frame(u, n, shares, v_points, seed)
    top = less.shape[1] - 1
    xs = [np.arange(k + 1) for k in n]
    pieces = [(cal._beta_binomial(int(us), x, k - x + 1), cal._beta_binomial(int(us), x + 1, k - x)) for us, k, x in zip(u, n, xs, strict=True)]  # fmt: skip
    below, above = np.zeros((len(less), len(combos))), np.zeros((len(less), len(combos)))
    for vs in points:
        cdfs = [
            np.cumsum((1 - vs[s]) * a + vs[s] * b, axis=1)[combos[:, s]] for s, (a, b) in enumerate(pieces)
        ]
        low, high = score_bounds(cdfs, combos, n, u, confidence)
        below += less[:, np.minimum(low, top)]
        above += 1 - less[:, np.minimum(high + 1, top)]
    return (px * below).sum(axis=1) / v_points, (px * above).sum(axis=1) / v_points


def score_interval(u, n, x, v, confidence: float = 0.95) -> tuple[int, int]:
    """The candidate's (low, high) counts for one draw of whole label counts."""
    log_fact = cal.log_factorials(int((np.asarray(u) + np.asarray(n)).max()) + 1)
    cdfs = [np.cumsum(cal._whole_predictive(int(a), int(b), int(c), d, log_fact))[None, :] for a, b, c, d in zip(u, n, x, v, strict=True)]  # fmt: skip
    low, high = score_bounds(cdfs, np.asarray(x)[None, :], np.asarray(n), np.asarray(u), confidence)
    return int(low[0]), int(high[0])


def d_model_1(labels: int, draws: int, seed: int = 11) -> None:
    big_n = np.array([42, 258, 258, 42])
    n = np.array([12, labels, labels, 12])
    for q0 in (0.006, 0.02, 0.05, 0.1):
        q = np.array([0.7, q0, 1 - q0, 0.33])
        rng = np.random.default_rng(seed)
        missed = np.zeros((2, 2))  # (candidate, toolkit) × (below, above)
        for _ in range(draws):
            true = rng.binomial(big_n, q)
            x = rng.hypergeometric(true, big_n - true, n)
            y, v = int((true - x).sum()), rng.random(4)
            low, high = score_interval(big_n - n, n, x, v)
            t_low, t_high = cal.randomised_share_interval(big_n - n, n, x, v=v, n_total=1.0)
            missed += [[y < low, y > high], [y < t_low - 1e-9, y > t_high + 1e-9]]
        m = missed / draws
        print(
            f"  labels {labels:3d}, q {q0:<5}: normal scores {1 - m[0].sum():.3f} ({m[0, 0]:.4f} / {m[0, 1]:.4f}),"
            f" toolkit {1 - m[1].sum():.3f} ({m[1, 0]:.4f} / {m[1, 1]:.4f})",
            flush=True,
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", default=",".join(str(k) for k in CASES))
    parser.add_argument("--v-points", type=int, default=64)
    parser.add_argument("--draws", type=int, default=6000, help="simulated label draws per D model 1 setting")
    parser.add_argument("--labels", default="37,45,60,76")
    args = parser.parse_args(argv)
    for key in (int(k) for k in filter(None, args.cases.split(","))):
        u, n = CASES[key]
        for name, shares in grids(len(u), 20261201).items():
            start = time.perf_counter()
            row = []
            for label, misses in (("normal scores", score_misses), ("toolkit", cal.share_misses)):
                below, above = misses(u, n, shares, v_points=args.v_points)
                cover = 1 - below - above
                row.append(
                    f"{label} {cover.min():.3f}–{cover.max():.3f} (largest one side {max(below.max(), above.max()):.3f})"
                )
            print(
                f"case {key} {u}/{n} {name}: " + "; ".join(row) + f"  ({time.perf_counter() - start:.0f} s)",
                flush=True,
            )
    print("D model 1 (coverage, below / above):")
    for labels in (int(k) for k in filter(None, args.labels.split(","))):
        d_model_1(labels, args.draws)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
