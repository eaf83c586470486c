"""Labels needed for a target interval width: proportional, equal and adaptive allocation (issue 14).

Each simulated campaign draws a population: per model × deck cell N items, each human-true with
the cell's TDR, and a judge verdict with the model's Se/Sp; strata are model × deck × verdict.
People label in batches (default 20) by simple random sampling without replacement within
strata (within a stratum only counts matter, so a batch is a hypergeometric draw per stratum).
After each batch every model's corrected TDR is estimated by the stratified double-sampling
estimator Σ_h W_h q̂_h (W_h = N_h/N_model) with the interval

    Σ W_h q̂_h ± z √(Σ W_h² q̃_h(1 − q̃_h) N_h/(N_h − 1) (1/n_h − 1/N_h)),
    q̃ = (x + z²/2)/(n + z²) (Agresti–Coull, as ``correction.stratified_mean``),

given only when every stratum of the model has ≥ 5 labels or is labelled in full (the toolkit's
``MIN_LABELS``). The campaign stops when every model's half-width is ≤ the target (default
0.05); the labels spent then are "labels needed", and the final intervals' coverage of each
model's realised TDR is counted per cell. Allocation of each batch:

* ``proportional``: n_h → n·N_h/N, ``equal``: n_h → n/H (the batch goes to the largest deficits,
  capped at N_h);
* ``adaptive``: :func:`wordplay_audit.analysis.allocation.allocate` (pilot 5 per stratum, floor
  0.01 on q(1 − q), q̃ with a = z² pseudo-observations like the interval, minimise the largest
  predicted half-width).

The three methods share each campaign's population (common random numbers).

    .venv/bin/python -m benchmarks sim_adaptive_allocation -- --campaigns 500
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass

import numpy as np

from wordplay_audit.analysis.allocation import (
    AllocationOptions,
    StrataCounts,
    allocate_variances,
    linear_target,
    unit_variances,
)

METHODS = ("proportional", "equal", "adaptive")
MIN_LABELS = 5
Z = 1.959963984540054


@dataclass(frozen=True)
class Design:
    name: str
    sizes: list  # per model: items per deck
    tdr: list  # per model: true share per deck
    se: list  # per model
    sp: list  # per model


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


def population(design: Design, rng: np.random.Generator):
    """Per stratum (model, deck, verdict): N_h, true count T_h, model index."""
    big_n, true, model = [], [], []
    for m, (sizes, tdrs) in enumerate(zip(design.sizes, design.tdr, strict=True)):
        for size, tdr in zip(sizes, tdrs, strict=True):
            truth = rng.random(size) < tdr
            verdict = np.where(truth, rng.random(size) < design.se[m], rng.random(size) >= design.sp[m])
            for v in (True, False):
                big_n.append(int((verdict == v).sum()))
                true.append(int((truth & (verdict == v)).sum()))
                model.append(m)
    return np.array(big_n), np.array(true), np.array(model)


def intervals(big_n, n, x, model, z):
    """Per model: estimate and half-width (inf where some stratum has < 5 labels)."""
    models = np.unique(model)
    est, hw = np.zeros(len(models)), np.zeros(len(models))
    q = np.where(n > 0, x / np.maximum(n, 1), 0.0)
    qa = (x + z**2 / 2) / (n + z**2)
    fpc = np.where(n > 0, 1 / np.maximum(n, 1) - 1 / np.maximum(big_n, 1), np.inf)
    term = qa * (1 - qa) * big_n / np.maximum(big_n - 1, 1) * np.where(big_n > 0, fpc, 0.0)
    ready = (n >= np.minimum(MIN_LABELS, big_n)) | (big_n == 0)
    for i, m in enumerate(models):
        at = model == m
        w = big_n[at] / big_n[at].sum()
        est[i] = np.sum(w * q[at])
        hw[i] = z * np.sqrt(np.sum(w**2 * term[at])) if ready[at].all() else np.inf
    return est, hw


def fixed_batch(big_n, n, batch, shares):
    """Give ``batch`` labels to the strata furthest below their share of the new total."""
    add = np.zeros(len(big_n), dtype=int)
    goal = (n.sum() + batch) * shares
    for _ in range(batch):
        room = n + add < big_n
        if not room.any():
            break
        deficit = np.where(room, goal - (n + add), -np.inf)
        add[np.argmax(deficit)] += 1
    return add


def adaptive_batch(big_n, n, x, model, batch):
    counts = StrataCounts(big_n.astype(float), n.astype(float))
    targets = [linear_target(str(m), counts, model == m, x) for m in np.unique(model)]
    options = AllocationOptions(pilot=MIN_LABELS, pseudo=Z**2)
    unit = unit_variances(counts, targets, options.floor, options.pseudo)
    return allocate_variances(unit, counts, batch, options)


def run_campaign(pop, method, rng, args):
    big_n, true, model = pop
    n, x = np.zeros(len(big_n), dtype=int), np.zeros(len(big_n), dtype=int)
    shares = big_n / big_n.sum() if method == "proportional" else np.full(len(big_n), 1 / len(big_n))
    while True:
        est, hw = intervals(big_n, n, x, model, args.z)
        if (hw <= args.half_width).all() or (n == big_n).all():
            return int(n.sum()), est, hw
        if method == "adaptive":
            add = adaptive_batch(big_n, n, x, model, args.batch)
        else:
            add = fixed_batch(big_n, n, args.batch, shares)
        left_true, left = true - x, big_n - n
        new_true = np.where(add > 0, rng.hypergeometric(left_true, np.maximum(left - left_true, 0), add), 0)
        n, x = n + add, x + new_true


def simulate(design: Design, args):
    labels = {m: [] for m in METHODS}
    covered = {m: [] for m in METHODS}
    for c in range(args.campaigns):
        pop = population(design, np.random.default_rng([args.seed, c]))
        big_n, true, model = pop
        truth = np.array([true[model == m].sum() / big_n[model == m].sum() for m in np.unique(model)])
        for k, method in enumerate(METHODS):
            spent, est, hw = run_campaign(pop, method, np.random.default_rng([args.seed, c, k + 1]), args)
            labels[method].append(spent)
            covered[method].append(np.abs(est - truth) <= hw + 1e-12)
    return {m: np.array(v) for m, v in labels.items()}, {m: np.array(v) for m, v in covered.items()}


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
    args.z = Z
    print(
        f"target: every model's corrected TDR ± {args.half_width} (95 %), batches of {args.batch}, "
        f"seed {args.seed}; coverage SE at 500 campaigns ≈ 0.010"
    )
    for key in args.designs.split(","):
        start = time.perf_counter()
        labels, covered = simulate(DESIGNS[key], args)
        report(key, DESIGNS[key], labels, covered, time.perf_counter() - start)


if __name__ == "__main__":
    main()
