"""Labels needed for a target interval width under proportional, equal and adaptive allocation
(issue 14; ``balderdash plan --adaptive`` and ``benchmarks/sim_adaptive_allocation.py``).

Each simulated campaign draws a population: per model × deck cell N items, each human-true with
the cell's TDR, and a judge verdict with the model's Se/Sp; strata are model × deck × verdict.
People label in batches (default 20) by simple random sampling without replacement within
strata (within a stratum only counts matter, so a batch is a hypergeometric draw per stratum).
After each batch every model's corrected TDR is estimated by the stratified double-sampling
estimator Σ_h W_h q̂_h (W_h = N_h/N_model) with the interval

    Σ W_h q̂_h ± z √(Σ W_h² q̃_h(1 − q̃_h) N_h/(N_h − 1) (1/n_h − 1/N_h)),
    q̃ = (x + z²/2)/(n + z²) (Agresti–Coull, as ``correction.stratified_mean``),

given only when every stratum of the model has ≥ 5 labels or is labelled in full (the toolkit's
``MIN_LABELS``). The campaign stops when every model's half-width is ≤ the target (e.g. 0.05);
the labels spent then are "labels needed", and the final intervals' coverage of each model's
realised TDR is counted. Allocation of each batch:

* ``proportional``: n_h → n·N_h/N, ``equal``: n_h → n/H (the batch goes to the largest deficits,
  capped at N_h);
* ``adaptive``: :func:`wordplay_audit.analysis.allocation.allocate_variances` (pilot 5 per
  stratum, floor 0.01 on q(1 − q), q̃ with a = z² pseudo-observations like the interval,
  minimise the largest predicted half-width).

The three methods share each campaign's population (common random numbers); campaign c uses
the generators ``default_rng([seed, c])`` (population) and ``default_rng([seed, c, k + 1])``
(method k's draws), so results are reproducible for a seed.

>>> d = AdaptiveDesign.even(models=2, decks=1, items=100, rate=[0.3, 0.6], se=[0.9, 0.9], sp=[0.9, 0.9])
>>> d.sizes, d.tdr
([[100], [100]], [[0.3], [0.6]])
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from wordplay_audit.analysis.allocation import (
    AllocationOptions,
    StrataCounts,
    allocate_variances,
    linear_target,
    unit_variances,
)
from wordplay_audit.analysis.proportions import z_value
from wordplay_audit.errors import ParameterError

METHODS = ("proportional", "equal", "adaptive")
MIN_LABELS = 5


@dataclass(frozen=True)
class AdaptiveDesign:
    """A design to plan for: per model the items per deck and true share per deck, and the
    judge's sensitivity and specificity for the model."""

    name: str
    sizes: list  # per model: items per deck
    tdr: list  # per model: true share per deck
    se: list  # per model
    sp: list  # per model

    def __post_init__(self) -> None:
        models = len(self.sizes)
        if models < 1 or not all(len(x) == models for x in (self.tdr, self.se, self.sp)):
            raise ParameterError("design: give sizes, tdr, se and sp for the same models (at least one)")
        for m in range(models):
            if len(self.sizes[m]) != len(self.tdr[m]) or not self.sizes[m]:
                raise ParameterError(f"design: model {m + 1} needs one size and one TDR per deck")
            if any(int(s) < 1 for s in self.sizes[m]):
                raise ParameterError(f"design: model {m + 1} has a deck with no item")
            for what, values in (("tdr", self.tdr[m]), ("se", [self.se[m]]), ("sp", [self.sp[m]])):
                if any(not 0 <= float(v) <= 1 for v in values):
                    raise ParameterError(f"design: {what} of model {m + 1} must lie in [0, 1]")

    @classmethod
    def even(cls, *, models: int, decks: int, items: int, rate, se, sp, name: str = "") -> AdaptiveDesign:
        """``items`` per model split evenly over ``decks`` (the first decks take the remainder),
        every deck of a model at its ``rate``; ``rate``, ``se``, ``sp``: one value per model."""
        if decks < 1 or items < decks:
            raise ParameterError(f"items: {items} per model cannot fill {decks} deck(s)")
        sizes = [items // decks + (1 if d < items % decks else 0) for d in range(decks)]
        return cls(
            name or f"{models} models × {decks} deck(s), {items} items each",
            [list(sizes) for _ in range(models)],
            [[float(rate[m])] * decks for m in range(models)],
            [float(v) for v in se],
            [float(v) for v in sp],
        )


def population(design: AdaptiveDesign, rng: np.random.Generator):
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


def adaptive_batch(big_n, n, x, model, batch, confidence: float = 0.95):
    """The next batch by :func:`allocate_variances`: minimise the largest predicted half-width
    of the models' corrected TDRs (q̃ with z² pseudo-observations, like the interval)."""
    counts = StrataCounts(big_n.astype(float), n.astype(float))
    targets = [linear_target(str(m), counts, model == m, x) for m in np.unique(model)]
    z = z_value(confidence)
    options = AllocationOptions(pilot=MIN_LABELS, pseudo=z**2, confidence=confidence)
    unit = unit_variances(counts, targets, options.floor, options.pseudo)
    return allocate_variances(unit, counts, batch, options)


def run_campaign(pop, method: str, rng, *, half_width: float, batch: int, confidence: float = 0.95):
    """Label in batches until every model's half-width ≤ ``half_width`` (or all is labelled);
    returns (labels spent, estimates, half-widths)."""
    big_n, true, model = pop
    z = z_value(confidence)
    n, x = np.zeros(len(big_n), dtype=int), np.zeros(len(big_n), dtype=int)
    shares = big_n / big_n.sum() if method == "proportional" else np.full(len(big_n), 1 / len(big_n))
    while True:
        est, hw = intervals(big_n, n, x, model, z)
        if (hw <= half_width).all() or (n == big_n).all():
            return int(n.sum()), est, hw
        if method == "adaptive":
            with np.errstate(invalid="ignore"):  # inf × 0 for strata no target uses (harmless)
                add = adaptive_batch(big_n, n, x, model, batch, confidence)
        else:
            add = fixed_batch(big_n, n, batch, shares)
        left_true, left = true - x, big_n - n
        new_true = np.where(add > 0, rng.hypergeometric(left_true, np.maximum(left - left_true, 0), add), 0)
        n, x = n + add, x + new_true


def simulate(
    design: AdaptiveDesign,
    *,
    campaigns: int,
    seed: int,
    half_width: float = 0.05,
    batch: int = 20,
    confidence: float = 0.95,
    methods: Sequence[str] = METHODS,
):
    """Per method: labels needed in each campaign, and per campaign × model whether the final
    interval held the model's realised TDR."""
    _check(campaigns, half_width, batch, methods)
    labels = {m: [] for m in methods}
    covered = {m: [] for m in methods}
    for c in range(campaigns):
        pop = population(design, np.random.default_rng([seed, c]))
        big_n, true, model = pop
        truth = np.array([true[model == m].sum() / big_n[model == m].sum() for m in np.unique(model)])
        for method in methods:
            k = METHODS.index(method)
            spent, est, hw = run_campaign(
                pop,
                method,
                np.random.default_rng([seed, c, k + 1]),
                half_width=half_width,
                batch=batch,
                confidence=confidence,
            )
            labels[method].append(spent)
            covered[method].append(np.abs(est - truth) <= hw + 1e-12)
    return {m: np.array(v) for m, v in labels.items()}, {m: np.array(v) for m, v in covered.items()}


def _check(campaigns: int, half_width: float, batch: int, methods: Sequence[str]) -> None:
    if campaigns < 2:
        raise ParameterError(f"campaigns: {campaigns} must be at least 2 (a standard error needs two)")
    if not 0 < half_width < 0.5:
        raise ParameterError(f"half_width: {half_width} must lie in (0, 0.5)")
    if batch < 1:
        raise ParameterError(f"batch: {batch} must be at least 1")
    for m in methods:
        if m not in METHODS:
            raise ParameterError(f"method: {m!r} is not one of {', '.join(METHODS)}")


def summarise(labels: dict, covered: dict, items: int | None = None) -> dict:
    """Per method: mean labels needed, its SE, median, coverage per model (and with ``items``
    the share of campaigns that labelled every item: the target may not have been reached);
    the adaptive saving against proportional and against the best fixed design (share of
    labels, with the SE of the paired difference over the common-random-number campaigns)."""
    out: dict = {"methods": {}}
    for method, spent in labels.items():
        out["methods"][method] = {
            "labels_mean": float(spent.mean()),
            "labels_se": float(spent.std(ddof=1) / np.sqrt(len(spent))),
            "labels_median": float(np.median(spent)),
            "coverage_per_model": [float(c) for c in covered[method].mean(axis=0)],
        }
        if items is not None:
            out["methods"][method]["all_labelled_share"] = float(np.mean(spent >= items))
    if {"proportional", "equal", "adaptive"} <= set(labels):
        best = min(("proportional", "equal"), key=lambda m: labels[m].mean())
        for key, ref in (("vs_proportional", "proportional"), ("vs_best_fixed", best)):
            diff = labels[ref] - labels["adaptive"]
            out[f"saving_{key}"] = {
                "reference": ref,
                "labels": float(diff.mean()),
                "labels_se": float(diff.std(ddof=1) / np.sqrt(len(diff))),
                "share": float(diff.mean() / labels[ref].mean()),
            }
    return out


def plan_adaptive(
    design: AdaptiveDesign,
    *,
    half_width: float = 0.05,
    campaigns: int = 20,
    batch: int = 20,
    seed: int = 0,
    confidence: float = 0.95,
) -> dict:
    """Simulated labels needed until every model's corrected TDR has a half-width ≤
    ``half_width``, under each allocation, and the adaptive saving (see the module docstring)."""
    labels, covered = simulate(
        design, campaigns=campaigns, seed=seed, half_width=half_width, batch=batch, confidence=confidence
    )
    items = int(sum(sum(s) for s in design.sizes))
    return {
        "design": design.name,
        "items": items,
        "half_width": half_width,
        "confidence": confidence,
        "campaigns": campaigns,
        "batch": batch,
        "seed": seed,
        **summarise(labels, covered, items),
    }
