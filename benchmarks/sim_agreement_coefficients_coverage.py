"""Coverage of the intervals of the coefficients beyond κ and α: the bootstrap (BCa) and the
Wald/t interval from the analytic SE, when the true value is known.

Model (as ``sim_agreement_coverage``): true class z ~ Cat(ρ); each of r raters reports z with
probability s, otherwise a class drawn from ρ. Every rater then has label distribution ρ and
every pair the same agreement, so with W the weights (quadratic on 1..K)

* Fleiss' κ = Conger's κ = Light's κ = weighted Fleiss' κ = s²;
* p_a = s² + (1 − s²) ρᵀWρ (weighted), Brennan–Prediger = (p_a − T_w/K²)/(1 − T_w/K²),
  AC2 = (p_a − p_e)/(1 − p_e) with p_e = T_w Σρ(1−ρ)/(K(K−1)).

Designs: n items × r raters, complete or with each rating missing with probability 0.25 (so
some items are rated once: kept in the shares, Gwet's rule). Prints, per design and statistic,
the share of replications whose interval covers the truth (Monte Carlo SE √(.95·.05/R)).

Run:  .venv/bin/python benchmarks/sim_agreement_coefficients_coverage.py [--reps 300] [--boot 500]
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
import pandas as pd

from benchmarks import seed_loop
from wordplay_audit.analysis.agreement import (
    BootstrapOptions,
    UndefinedStatisticWarning,
    bootstrap_intervals,
    weight_matrix,
)

STATISTICS = ("conger_kappa", "light_kappa", "brennan_prediger", "gwet_ac2", "fleiss_kappa_weighted")
RHO = np.array([0.6, 0.25, 0.15])
S = 0.7


def truths(k: int) -> dict[str, float]:
    w = weight_matrix("quadratic", [str(c) for c in range(1, k + 1)]).matrix
    total = float(w.sum())
    p_a_unweighted = S * S + (1 - S * S) * float(RHO @ RHO)
    p_a = S * S + (1 - S * S) * float(RHO @ w @ RHO)
    pe_bp = 1.0 / k
    pe_ac2 = total * float(RHO @ (1 - RHO)) / (k * (k - 1))
    return {
        "conger_kappa": S * S,
        "light_kappa": S * S,
        "fleiss_kappa_weighted": S * S,
        "brennan_prediger": (p_a_unweighted - pe_bp) / (1 - pe_bp),
        "gwet_ac2": (p_a - pe_ac2) / (1 - pe_ac2),
    }


def simulate(rng: np.random.Generator, n: int, r: int, p_missing: float) -> pd.DataFrame:
    k = len(RHO)
    z = rng.choice(k, size=n, p=RHO)
    labels = np.where(rng.random((n, r)) < S, z[:, None], rng.choice(k, size=(n, r), p=RHO))
    present = rng.random((n, r)) >= p_missing
    items, raters = np.nonzero(present)
    return pd.DataFrame(
        {
            "item_id": [f"i{i}" for i in items],
            "rater": [f"r{j}" for j in raters],
            "rater_type": "human",
            "label": [str(v + 1) for v in labels[items, raters]],
        }
    )


def run(n: int, r: int, p_missing: float, reps: int, boot: int, seed: int) -> dict[str, tuple[float, float]]:
    truth = truths(len(RHO))
    covered = {s: [0, 0] for s in STATISTICS}
    rng = np.random.default_rng(seed)
    for rep in seed_loop(range(reps), desc="reps"):
        labels = simulate(rng, n, r, p_missing)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UndefinedStatisticWarning)
            res = bootstrap_intervals(
                labels,
                statistics=STATISTICS,
                weights="quadratic",
                categories=["1", "2", "3"],
                bootstrap=BootstrapOptions(n_boot=boot, seed=seed + rep),
            )
        for s in STATISTICS:
            covered[s][0] += res[s].ci_low <= truth[s] <= res[s].ci_high
            covered[s][1] += res[s].wald_low <= truth[s] <= res[s].wald_high
    return {s: (b / reps, t / reps) for s, (b, t) in covered.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--reps", type=int, default=300)
    parser.add_argument("--boot", type=int, default=500)
    parser.add_argument("--seed", type=int, default=20)
    args = parser.parse_args(argv)
    print(f"truths: {truths(len(RHO))}; Monte Carlo SE {np.sqrt(0.95 * 0.05 / args.reps):.3f}")
    for n, r, p_missing in ((100, 4, 0.0), (100, 4, 0.25), (300, 3, 0.25)):
        start = time.perf_counter()
        cover = run(n, r, p_missing, args.reps, args.boot, args.seed)
        design = f"{n} items × {r} raters, {p_missing:.0%} missing"
        for s, (bca, wald) in cover.items():
            print(f"{design:30s} {s:26s} BCa {bca:.3f}  Wald/t {wald:.3f}")
        print(f"  ({time.perf_counter() - start:.0f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
