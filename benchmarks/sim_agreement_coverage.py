"""Coverage of the item-bootstrap intervals for κ, α and AC1 when the true value is known.

Model (per replication): n items, true class z ~ Cat(ρ); each of r raters reports z with
probability s, otherwise a class drawn from ρ. Then every rater's label distribution is ρ and

* true Fleiss κ = s²   (p_a = s² + (1 - s²) Σρ², p_e = Σρ²),
* true AC1 = (p_a - p_e^γ) / (1 - p_e^γ) with p_e^γ = Σ ρ_k(1 - ρ_k)/(K - 1),
* Krippendorff's α → κ as the number of ratings grows (α = κ + (1-κ)/N at N ratings with
  complete data; with N ≥ 640 here that shift is < 0.001 and is included).

Scenario "missing" drops each rating with probability 0.2 (items keep ≥ 2 ratings mostly;
items with one rating are left out as in the library). Prints, per statistic and interval
method, the share of replications whose interval covers the truth. Expected ≈ 95 %; the Monte
Carlo standard error with R replications is √(.95·.05/R) (0.7 % at R = 1000).

Run:  .venv/bin/python benchmarks/sim_agreement_coverage.py [--reps 1000] [--boot 1000]
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
from scipy.special import ndtri

from benchmarks import seed_loop
from wordplay_audit.analysis.agreement import (
    BootstrapOptions,
    UndefinedStatisticWarning,
    bootstrap_intervals,
)


def simulate_counts(
    rng: np.random.Generator, n: int, r: int, rho: np.ndarray, s: float, p_missing: float
) -> np.ndarray:
    k = len(rho)
    z = rng.choice(k, size=n, p=rho)
    keep_truth = rng.random((n, r)) < s
    noise = rng.choice(k, size=(n, r), p=rho)
    labels = np.where(keep_truth, z[:, None], noise)
    present = rng.random((n, r)) >= p_missing
    counts = np.zeros((n, k), dtype=np.int64)
    for j in range(r):
        np.add.at(counts, (np.arange(n)[present[:, j]], labels[present[:, j], j]), 1)
    return counts


def truths(rho: np.ndarray, s: float) -> dict[str, float]:
    k = len(rho)
    sum_sq = float(rho @ rho)
    p_a = s * s + (1 - s * s) * sum_sq
    pe_gamma = float(rho @ (1 - rho)) / (k - 1)
    return {
        "fleiss_kappa": s * s,
        "gwet_ac1": (p_a - pe_gamma) / (1 - pe_gamma),
        "krippendorff_alpha": s * s,
    }


def run(args: argparse.Namespace, p_missing: float) -> dict:
    """Coverage counts over ``args.reps`` simulated campaigns (``args``: see :func:`main`)."""
    reps, n, r, seed = args.reps, args.items, args.raters, args.seed
    options = dict(n_boot=args.boot, confidence=args.confidence)
    z = float(ndtri(0.5 + args.confidence / 2))
    rho = np.array([0.7, 0.2, 0.1])
    s = 0.7
    truth = truths(rho, s)
    rng = np.random.default_rng(seed)
    stats = ("fleiss_kappa", "krippendorff_alpha", "gwet_ac1")
    hits = {(st, m): 0 for st in stats for m in ("percentile", "bca", "wald")}
    valid = {(st, m): 0 for st in stats for m in ("percentile", "bca", "wald")}
    for rep in seed_loop(range(reps), desc="reps"):
        counts = simulate_counts(rng, n, r, rho, s, p_missing)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UndefinedStatisticWarning)
            res = bootstrap_intervals(
                counts, statistics=stats, bootstrap=BootstrapOptions(seed=seed + rep + 1, **options)
            )
        for st in stats:
            est = res[st]
            target = truth[st]
            if st == "krippendorff_alpha":
                n_ratings = int(counts[counts.sum(axis=1) >= 2].sum())
                target = truth[st] + (1 - truth[st]) / n_ratings
            for m, (lo, hi) in (("percentile", est.percentile), ("bca", est.bca)):
                if np.isfinite(lo) and np.isfinite(hi):
                    valid[(st, m)] += 1
                    hits[(st, m)] += lo <= target <= hi
            if est.se is not None and np.isfinite(est.se):
                lo, hi = est.value - z * est.se, est.value + z * est.se
                valid[(st, "wald")] += 1
                hits[(st, "wald")] += lo <= target <= hi
    return {"truth": truth, "hits": hits, "valid": valid}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--reps", type=int, default=1000)
    parser.add_argument("--boot", type=int, default=1000)
    parser.add_argument("--items", type=int, default=200)
    parser.add_argument("--raters", type=int, default=4)
    parser.add_argument("--seed", type=int, default=20240601)
    parser.add_argument("--confidence", type=float, default=0.95, help="interval level")
    args = parser.parse_args(argv)
    for label, p_missing in (("complete", 0.0), ("missing", 0.2)):
        start = time.perf_counter()
        out = run(args, p_missing)
        took = time.perf_counter() - start
        print(
            f"scenario {label}: {args.reps} replications, {args.items} items × {args.raters} raters, "
            f"3 categories (prevalence .7/.2/.1), {args.boot} resamples each, {took:.1f} s"
        )
        print("  truth: " + ", ".join(f"{k} = {v:.4f}" for k, v in out["truth"].items()))
        level = args.confidence
        mc_se = np.sqrt(level * (1 - level) / args.reps)
        print(f"  coverage of nominal {level:.0%} intervals (Monte Carlo SE {mc_se:.3f}):")
        for st in ("fleiss_kappa", "krippendorff_alpha", "gwet_ac1"):
            parts = []
            for m in ("percentile", "bca", "wald"):
                v = out["valid"][(st, m)]
                if v:
                    parts.append(f"{m} {out['hits'][(st, m)] / v:.3f}")
            print(f"    {st:20s} " + "  ".join(parts))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
