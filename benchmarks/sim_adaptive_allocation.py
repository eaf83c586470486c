"""Labels needed for a target interval width: proportional, equal and adaptive allocation (issue 14).

The simulation (population, batches, the stratified interval, the three allocations) is
:mod:`wordplay_audit.analysis.balderdash.plan_adaptive`, the same code as ``balderdash plan
--adaptive``; this script runs it on three designs and prints the table of docs/ANNOTATE.md.

    .venv/bin/python -m benchmarks sim_adaptive_allocation -- --campaigns 500
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from wordplay_audit.analysis.balderdash.plan_adaptive import METHODS, AdaptiveDesign, simulate

Design = AdaptiveDesign

DESIGNS = {
    "A": Design(
        "A: 4 models × 1 deck, 500 items each, every judge Se = Sp = 0.9",
        [[500]] * 4,
        [[0.3], [0.45], [0.55], [0.7]],
        [0.9] * 4,
        [0.9] * 4,
    ),
    "B": Design(
        "B: as A, but model 4's judge Se 0.6, Sp 0.55",
        [[500]] * 4,
        [[0.3], [0.45], [0.55], [0.7]],
        [0.9, 0.9, 0.9, 0.6],
        [0.9, 0.9, 0.9, 0.55],
    ),
    "C": Design(
        "C: 5 models × 2 decks, 1,750 items, unequal sizes, Se 0.75–0.95",
        [[400, 200], [300, 150], [200, 100], [150, 75], [100, 50]],
        [[0.2, 0.5], [0.35, 0.6], [0.5, 0.4], [0.65, 0.3], [0.8, 0.55]],
        [0.95, 0.9, 0.85, 0.75, 0.9],
        [0.95, 0.85, 0.9, 0.8, 0.9],
    ),
}


def report(key, design, labels, covered, seconds):
    print(f"\n{design.name}  ({len(labels['adaptive'])} campaigns, {seconds:.0f} s)")
    best_fixed = min(labels["proportional"].mean(), labels["equal"].mean())
    print(
        "method        labels needed (mean ± SE, median)   vs proportional   vs best fixed   coverage per model"
    )
    for method in METHODS:
        spent, cov = labels[method], covered[method]
        se = spent.std(ddof=1) / np.sqrt(len(spent))
        rel = spent.mean() / labels["proportional"].mean() - 1
        rel_best = spent.mean() / best_fixed - 1
        cells = " ".join(f"{c:.3f}" for c in cov.mean(axis=0))
        print(
            f"{method:<13} {spent.mean():7.1f} ± {se:4.1f}  {np.median(spent):6.0f}"
            f"          {rel:+7.1%}          {rel_best:+7.1%}       {cells}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--campaigns", type=int, default=500)
    parser.add_argument("--designs", default="A,B,C")
    parser.add_argument("--batch", type=int, default=20)
    parser.add_argument("--half-width", type=float, default=0.05)
    parser.add_argument("--seed", type=int, default=20261130)
    args = parser.parse_args()
    print(
        f"target: every model's corrected TDR ± {args.half_width} (95 %), batches of {args.batch}, "
        f"seed {args.seed}; coverage SE at 500 campaigns ≈ 0.010"
    )
    for key in args.designs.split(","):
        start = time.perf_counter()
        labels, covered = simulate(
            DESIGNS[key],
            campaigns=args.campaigns,
            seed=args.seed,
            half_width=args.half_width,
            batch=args.batch,
        )
        report(key, DESIGNS[key], labels, covered, time.perf_counter() - start)


if __name__ == "__main__":
    main()
