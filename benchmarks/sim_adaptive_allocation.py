"""Labels needed for a target interval width: proportional, equal and adaptive allocation.

The simulation (population, batches, the toolkit's randomised Clopper–Pearson interval, the
three allocations) is :mod:`wordplay_audit.analysis.balderdash.plan_adaptive`, the same code as
``balderdash plan --adaptive``; this script runs it on designs A, B, C (and D with
``--designs A,B,C,D``) and prints the table of docs/methods/allocation.md, with every coverage cell
outside 93–97 % and its Wilson interval.

    .venv/bin/python -m benchmarks sim_adaptive_allocation -- --campaigns 500
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from wordplay_audit.analysis.balderdash.plan_adaptive import METHODS, PSEUDO, AdaptiveDesign, simulate

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
    "D": Design(
        "D: 4 models × 2 decks of 300, TDR 0.1–0.95, Se 0.65–0.95, Sp 0.75–0.95",
        [[300, 300]] * 4,
        [[0.1, 0.9], [0.2, 0.5], [0.5, 0.8], [0.85, 0.95]],
        [0.95, 0.85, 0.7, 0.65],
        [0.95, 0.8, 0.75, 0.9],
    ),
}


def wilson(hits: int, total: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson score interval of a binomial share (for a coverage cell)."""
    if total == 0:
        return float("nan"), float("nan")
    p = hits / total
    centre = (p + z * z / (2 * total)) / (1 + z * z / total)
    half = z * np.sqrt(p * (1 - p) / total + z * z / (4 * total * total)) / (1 + z * z / total)
    return centre - half, centre + half


def report(design, labels, covered, known, seconds):
    print(f"\n{design.name}  ({len(labels['adaptive'])} campaigns, {seconds:.0f} s)")
    best_fixed = min(labels["proportional"].mean(), labels["equal"].mean())
    print(
        "method        labels needed (mean ± SE, median)   vs proportional   vs best fixed   coverage per model"
    )
    outside = []
    for method in METHODS:
        spent, cov, full = labels[method], covered[method], known[method]
        se = spent.std(ddof=1) / np.sqrt(len(spent))
        rel = spent.mean() / labels["proportional"].mean() - 1
        rel_best = spent.mean() / best_fixed - 1
        cells = []
        for m in range(cov.shape[1]):
            total = int((~full[:, m]).sum())
            hits = int((cov[:, m] & ~full[:, m]).sum())
            share = hits / total if total else float("nan")
            cells.append(f"{share:.3f}")
            if not 0.93 <= share <= 0.97:
                outside.append((method, m + 1, share, wilson(hits, total), total))
        print(
            f"{method:<13} {spent.mean():7.1f} ± {se:4.1f}  {np.median(spent):6.0f}"
            f"          {rel:+7.1%}          {rel_best:+7.1%}       {' '.join(cells)}"
        )
        if full.any():
            print(
                f"{'':13} known TDR (strata labelled in full, left out of coverage): {full.mean(axis=0).round(3).tolist()}"
            )
    for method, m, share, (lo, hi), total in outside:
        print(
            f"outside 93–97 %: {method}, model {m}: {share:.3f} (Wilson 95 % {lo:.3f}–{hi:.3f}, {total} campaigns)"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--campaigns", type=int, default=500)
    parser.add_argument("--designs", default="A,B,C")
    parser.add_argument("--batch", type=int, default=20)
    parser.add_argument("--half-width", type=float, default=0.05)
    parser.add_argument("--seed", type=int, default=20261130)
    parser.add_argument(
        "--pseudo", type=float, default=PSEUDO, help="a in the adaptive q̃ = (x + a/2)/(n + a)"
    )
    parser.add_argument(
        "--confidence", type=float, default=0.95, help="level of the interval (stop and coverage)"
    )
    parser.add_argument(
        "--confirm", type=int, default=0, help="extra consecutive batches the stop rule must hold"
    )
    args = parser.parse_args()
    print(
        f"target: every model's corrected TDR ± {args.half_width} ({args.confidence:.0%} randomised "
        f"Clopper–Pearson), batches of {args.batch}, seed {args.seed}, adaptive pseudo {args.pseudo:g}, "
        f"confirm {args.confirm}; coverage SE at 500 campaigns ≈ 0.010"
    )
    for key in args.designs.split(","):
        start = time.perf_counter()
        labels, covered, known = simulate(
            DESIGNS[key],
            campaigns=args.campaigns,
            seed=args.seed,
            half_width=args.half_width,
            batch=args.batch,
            pseudo=args.pseudo,
            confidence=args.confidence,
            confirm=args.confirm,
        )
        report(DESIGNS[key], labels, covered, known, time.perf_counter() - start)


if __name__ == "__main__":
    main()
