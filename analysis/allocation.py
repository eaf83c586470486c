"""Where to spend the next human labels: adaptive stratified allocation (pure functions).

A campaign labels items inside strata h (e.g. player model × deck × judge verdict) of sizes
N_h, n_h labelled so far. A *target* is a corrected estimate θ_t = φ_t(q_1, …, q_H) of the
strata's realised shares q_th (share of human-true items in stratum h for target t): the
stratified double-sampling estimator Σ_h W_th q_th (Tenenbein 1970; ``stratified_mean`` and
``poststratified_accuracy`` in :mod:`wordplay_audit.analysis.correction`) is the linear case,
W_th = N_h / Σ_{h∈t} N_h over the target's strata; a ratio such as a judge's FNR is linearised
(delta method). Its predicted variance with n_h labels is (Cochran, *Sampling Techniques*,
3rd ed. 1977, §5.3)

    V_t(n) = Σ_h g_th² S²_th (1/n_h − 1/N_h),   g_th = ∂φ_t/∂q_h,
    S²_th = max(q̃_th(1 − q̃_th), floor) · N_h/(N_h − 1),   q̃ = (x + a/2)/(n + a),

(a = 6 pseudo-observations by default, :data:`PSEUDO`), the floor keeping a stratum where people agreed
with every verdict from being starved, and the predicted half-width is z·√V_t. :func:`allocate` first
brings every stratum that a target uses up to a pilot minimum, then gives the remaining labels one at a
time to the stratum whose extra label lowers the largest (``objective="max"``) or the summed (``"sum"``)
half-width most. For one linear target this greedy rule is the exact integer optimum of the separable
convex problem and approaches Neyman's allocation n_h ∝ N_h S_h (Neyman 1934; :func:`neyman_allocation`).

Rates that change between rounds: the strata counts, the draw and each item's inclusion
probability π_i across rounds are the sampling design's
(:mod:`wordplay_audit.corpora.sampling`); :func:`weighted_share` and
:func:`weighted_stratified_share` weight each labelled item by 1/π_i (Horvitz–Thompson; Hájek
within strata), so a design whose rates changed in round 2 stays unbiased.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from scipy.special import ndtri  # = scipy.stats.norm.ppf, without importing scipy.stats

from wordplay_audit.errors import ParameterError

__all__ = [
    "PSEUDO",
    "Allocation",
    "AllocationOptions",
    "StrataCounts",
    "Target",
    "allocate",
    "allocate_variances",
    "fnr_target",
    "linear_target",
    "neyman_allocation",
    "predicted_half_widths",
    "unit_variances",
    "weighted_share",
    "weighted_stratified_share",
]

OBJECTIVES = ("max", "sum")
SMOOTH_POWER = 16
"""The largest variance is minimised through Σ_t (V_t/max V)^16: a plain max gives no gain to
a label that helps only one of two tied targets, and the greedy rule then stalls."""


@dataclass(frozen=True)
class StrataCounts:
    """Stratum sizes N_h and labels so far n_h (0 ≤ n_h ≤ N_h)."""

    population: np.ndarray
    labelled: np.ndarray

    def __post_init__(self) -> None:
        big_n = np.asarray(self.population, dtype=float)
        n = np.asarray(self.labelled, dtype=float)
        if big_n.shape != n.shape or big_n.ndim != 1:
            raise ParameterError("population, labelled: one count per stratum, same length")
        if (n < 0).any() or (n > big_n).any():
            raise ParameterError("labelled: each count must lie in 0 … population")
        object.__setattr__(self, "population", big_n)
        object.__setattr__(self, "labelled", n)


@dataclass(frozen=True)
class Target:
    """A corrected estimate: its gradient g_h = ∂θ/∂q_h and the labelled true counts x_h."""

    name: str
    gradient: np.ndarray
    labelled_true: np.ndarray


PSEUDO = 6.0
"""Default a in the predicted share q̃ = (x + a/2)/(n + a). A smaller a (2 needs the fewest labels) lets
the allocation follow chance extremes – a stratum whose first labels happen to be nearly unanimous gets
fewer labels just when its share is off – and the binding models' intervals then cover 0.914–0.926;
a = 6 keeps every model of designs A and B in 93–97 % (docs/methods/allocation.md)."""


@dataclass(frozen=True)
class AllocationOptions:
    """``objective``: "max" (largest half-width) or "sum"; ``floor`` on q(1 − q); ``pilot``
    labels every used stratum gets first; ``confidence`` of the predicted intervals;
    ``pseudo`` = a in q̃ = (x + a/2)/(n + a) (:data:`PSEUDO`; z² predicts Agresti–Coull intervals)."""

    objective: str = "max"
    confidence: float = 0.95
    floor: float = 0.01
    pilot: int = 5
    pseudo: float = PSEUDO

    def __post_init__(self) -> None:
        if self.objective not in OBJECTIVES:
            raise ParameterError(f"objective: {self.objective!r} is not one of {', '.join(OBJECTIVES)}")
        if not 0 < self.confidence < 1:
            raise ParameterError(f"confidence: {self.confidence} must lie strictly between 0 and 1")
        if not 0 <= self.floor <= 0.25:
            raise ParameterError(f"floor: {self.floor} must lie in 0 … 0.25")
        if self.pilot < 0:
            raise ParameterError(f"pilot: {self.pilot} must be 0 or more")
        if self.pseudo < 0:
            raise ParameterError(f"pseudo: {self.pseudo} must be 0 or more")

    @property
    def z(self) -> float:
        return float(ndtri(0.5 + self.confidence / 2))


@dataclass(frozen=True)
class Allocation:
    """Labels to add per stratum and the predicted half-widths per target before and after."""

    add: np.ndarray
    names: tuple[str, ...]
    before: np.ndarray
    after: np.ndarray
    notes: tuple[str, ...] = field(default=())

    def to_dict(self) -> dict[str, object]:
        def finite(values):  # an infinite prediction (a used stratum without labels) → None
            return [float(v) if np.isfinite(v) else None for v in values]

        return {
            "add": [int(a) for a in self.add],
            "half_width_before": dict(zip(self.names, finite(self.before), strict=True)),
            "half_width_after": dict(zip(self.names, finite(self.after), strict=True)),
            "notes": list(self.notes),
        }


def linear_target(name: str, counts: StrataCounts, members: Sequence[bool], labelled_true) -> Target:
    """θ = Σ_{h∈t} W_h q_h with W_h = N_h / Σ_{h∈t} N_h (e.g. a model's corrected TDR over its
    deck × verdict strata; ``labelled_true`` = human-true among the labelled items)."""
    mask = np.asarray(members, dtype=bool)
    weights = np.where(mask, counts.population, 0.0)
    total = weights.sum()
    if total <= 0:
        raise ParameterError(f"target {name}: its strata hold no item")
    return Target(name, weights / total, np.asarray(labelled_true, dtype=float))


def fnr_target(
    name: str,
    counts: StrataCounts,
    members: Sequence[bool],
    judge_false,
    labelled_true,
    pseudo: float = PSEUDO,
) -> Target:
    """A judge's false-negative rate over the target's strata, θ = B/(A + B) with A = Σ_{f_h=1} N_h q_h,
    B = Σ_{f_h=0} N_h q_h (q_h = share human-true); gradient ∂θ/∂q_h = N_h A/(A + B)² where the judge
    said false, −N_h B/(A + B)² where it said true, at q̃_h = (x_h + a/2)/(n_h + a), a = ``pseudo``."""
    mask = np.asarray(members, dtype=bool)
    false = np.asarray(judge_false, dtype=bool)
    x = np.asarray(labelled_true, dtype=float)
    q = (x + pseudo / 2) / (counts.labelled + pseudo)
    mass = np.where(mask, counts.population * q, 0.0)
    a, b = mass[~false].sum(), mass[false].sum()
    if a + b <= 0:
        raise ParameterError(f"target {name}: its strata hold no item")
    grad = np.where(false, counts.population * a, -counts.population * b) / (a + b) ** 2
    return Target(name, np.where(mask, grad, 0.0), x)


def unit_variances(
    counts: StrataCounts, targets: Sequence[Target], floor: float, pseudo: float = PSEUDO, prior=None
):
    """The matrix g_th² S²_th (targets × strata), S² = max(q̃(1 − q̃), floor)·N/(N − 1) with
    q̃ = (x + a·m)/(n + a), a = ``pseudo``, m = ``prior`` per stratum (default ½: q̃ = (x + a/2)/
    (n + a); a judge's mean calibrated probability over the stratum makes the allocation follow
    its uncertainty before labels arrive, :mod:`wordplay_audit.analysis.active`), m where n + a = 0."""
    big_n, n = counts.population, counts.labelled
    mean = np.full(len(big_n), 0.5) if prior is None else np.asarray(prior, dtype=float)
    rows = []
    for target in targets:
        q = np.where(
            n + pseudo > 0, (target.labelled_true + pseudo * mean) / np.maximum(n + pseudo, 1e-300), mean
        )
        s2 = np.maximum(q * (1 - q), floor) * np.where(big_n > 1, big_n / np.maximum(big_n - 1, 1), 0.0)
        rows.append(np.asarray(target.gradient, dtype=float) ** 2 * s2)
    return np.array(rows, dtype=float).reshape(len(targets), len(big_n))


def _variances(unit: np.ndarray, n: np.ndarray, big_n: np.ndarray) -> np.ndarray:
    """V_t = Σ_h unit_th (1/n_h − 1/N_h); inf where a used stratum has no label."""
    used = unit > 0
    with np.errstate(divide="ignore", invalid="ignore"):  # 0 · inf in unused strata: masked
        term = np.where(n > 0, 1 / np.maximum(n, 1) - 1 / np.maximum(big_n, 1), np.inf)
        return np.where(used, unit * term, 0.0).sum(axis=1)


def predicted_half_widths(unit: np.ndarray, counts: StrataCounts, add=None, *, confidence: float = 0.95):
    """z·√V_t for each target with ``add`` more labels per stratum (none by default)."""
    n = counts.labelled + (0 if add is None else np.asarray(add, dtype=float))
    z = AllocationOptions(confidence=confidence).z
    return z * np.sqrt(_variances(unit, n, counts.population))


def _pilot(unit: np.ndarray, counts: StrataCounts, budget: int, pilot: int) -> np.ndarray:
    """Top every used stratum up to min(max(pilot, 1), N_h) (an unlabelled stratum has no
    finite variance), one label per round over the strata in order of their largest unit
    variance, until the budget runs out."""
    big_n, n = counts.population, counts.labelled
    want = np.where(unit.max(axis=0, initial=0) > 0, np.minimum(max(pilot, 1), big_n), 0) - n
    want = np.maximum(want, 0).astype(int)
    order = np.argsort(-unit.max(axis=0, initial=0), kind="stable")
    add = np.zeros(len(big_n), dtype=int)
    while budget > 0 and (want > add).any():
        for h in order:
            if budget > 0 and want[h] > add[h]:
                add[h] += 1
                budget -= 1
    return add


def allocate_variances(unit: np.ndarray, counts: StrataCounts, budget: int, options: AllocationOptions):
    """Greedy allocation of ``budget`` labels given the unit variances g²S² (targets × strata).

    After the pilot, each label goes to the stratum h (with n_h < N_h) that minimises the
    objective after it: max_t V_t (through the smooth Σ_t (V_t/max V)^16, see
    :data:`SMOOTH_POWER`) or Σ_t √V_t (ties: the larger total variance reduction).
    The marginal reduction of V_t is unit_th (1/n_h − 1/(n_h + 1)). Returns the labels to add.
    """
    if budget < 0:
        raise ParameterError(f"budget: {budget} must be 0 or more")
    unit = np.atleast_2d(np.asarray(unit, dtype=float))
    big_n = counts.population
    add = _pilot(unit, counts, budget, options.pilot)
    left = budget - int(add.sum())
    n = counts.labelled + add
    var = _variances(unit, n, big_n)
    useful = unit.max(axis=0, initial=0) > 0
    while left > 0 and np.isfinite(var).all():
        open_ = useful & (n < big_n)
        if not open_.any():
            break
        gain = unit / (np.maximum(n, 1) * (np.maximum(n, 1) + 1))
        after = var[:, None] - np.where(open_, gain, 0.0)
        after = np.maximum(after, 0)
        if options.objective == "max":
            score = ((after / var.max()) ** SMOOTH_POWER).sum(axis=0)
        else:
            score = np.sqrt(after).sum(axis=0)
        score = np.where(open_, score, np.inf)
        best = np.flatnonzero(score <= score.min() * (1 + 1e-12) + 1e-300)
        h = best[np.argmax(gain[:, best].sum(axis=0))]
        add[h] += 1
        n[h] += 1
        var = var - gain[:, h]
        left -= 1
    return _exchange(unit, counts, add, options)


def _objective(var: np.ndarray, objective: str) -> np.ndarray:
    """max_t V_t or Σ_t √V_t over the first axis."""
    return var.max(axis=0) if objective == "max" else np.sqrt(np.maximum(var, 0)).sum(axis=0)


def _exchange(unit: np.ndarray, counts: StrataCounts, add: np.ndarray, options: AllocationOptions):
    """Move single added labels from one stratum to another while the exact objective falls
    (the greedy order is not optimal for a maximum over targets); the pilot minimum is kept."""
    big_n = counts.population
    floor = np.where(unit.max(axis=0, initial=0) > 0, np.minimum(options.pilot, big_n), 0)
    for _ in range(int(add.sum())):
        n = counts.labelled + add
        var = _variances(unit, n, big_n)
        if not np.isfinite(var).all():
            break
        safe = np.maximum(n, 2)
        loss = np.where((add > 0) & (n - 1 >= np.maximum(floor, 1)), unit / (safe * (safe - 1)), np.inf)
        gain = np.where(n < big_n, unit / (np.maximum(n, 1) * (np.maximum(n, 1) + 1)), 0.0)
        new = var[:, None, None] + loss[:, :, None] - gain[:, None, :]
        score = _objective(new, options.objective)
        a, b = np.unravel_index(np.argmin(score), score.shape)
        if not score[a, b] < _objective(var[:, None], options.objective)[0] * (1 - 1e-12):
            break
        add[a] -= 1
        add[b] += 1
    return add


def allocate(
    counts: StrataCounts, targets: Sequence[Target], budget: int, options=None, *, prior=None
) -> Allocation:
    """Allocate the next ``budget`` labels over the strata for ``targets`` (see the module
    docstring); the predicted half-widths before and after use the same variance formula.
    ``prior``: :func:`unit_variances`' (per stratum the share q̃ leans on before labels; the
    judge's mean calibrated probability for active labelling, :mod:`wordplay_audit.analysis.active`)."""
    options = options or AllocationOptions()
    if not targets:
        raise ParameterError("targets: give at least one target")
    unit = unit_variances(counts, targets, options.floor, options.pseudo, prior=prior)
    add = allocate_variances(unit, counts, budget, options)
    notes = []
    if add.sum() < budget:
        notes.append(f"only {int(add.sum())} of {budget} labels could be placed (strata used up)")
    names = tuple(t.name for t in targets)
    before = predicted_half_widths(unit, counts, confidence=options.confidence)
    after = predicted_half_widths(unit, counts, add, confidence=options.confidence)
    return Allocation(add, names, before, after, tuple(notes))


def neyman_allocation(population: Sequence[float], sd: Sequence[float], n: float) -> np.ndarray:
    """Neyman's (1934) closed form n_h = n · N_h S_h / Σ_k N_k S_k (continuous, no caps)."""
    big_n, s = np.asarray(population, dtype=float), np.asarray(sd, dtype=float)
    weight = big_n * s
    if weight.sum() <= 0:
        raise ParameterError("population, sd: Σ N_h S_h must be positive")
    return n * weight / weight.sum()


def weighted_share(y, pi) -> tuple[float, float]:
    """Hájek share Σ y_i/π_i / Σ 1/π_i over labelled items and its linearised variance
    Σ w_i²(y_i − θ)²/(Σ w_i)² · n/(n − 1) (with replacement; Särndal et al. 1992, §5.7)."""
    y, pi = np.asarray(y, dtype=float), np.asarray(pi, dtype=float)
    if len(y) == 0:
        return float("nan"), float("nan")
    if (pi <= 0).any() or (pi > 1).any():
        raise ParameterError("pi: inclusion probabilities must lie in (0, 1]")
    w = 1 / pi
    theta = float(np.sum(w * y) / w.sum())
    n = len(y)
    var = float(np.sum(w**2 * (y - theta) ** 2) / w.sum() ** 2 * (n / (n - 1))) if n > 1 else float("nan")
    return theta, var


def weighted_stratified_share(population: dict, stratum, y, pi) -> float:
    """Σ_h W_h q̂_h with W_h = N_h/Σ N and q̂_h the Hájek share of stratum h's labelled items
    (``stratum``, ``y``, ``pi`` per labelled item; ``population`` = {h: N_h}); with equal π
    inside each stratum this is the double-sampling estimator Σ W_h q_h."""
    stratum, y, pi = np.asarray(stratum), np.asarray(y, dtype=float), np.asarray(pi, dtype=float)
    total = float(sum(population.values()))
    estimate = 0.0
    for h, size in population.items():
        at = stratum == h
        if size and not at.any():
            raise ParameterError(f"stratum {h!r}: no labelled item")
        if size:
            estimate += size / total * weighted_share(y[at], pi[at])[0]
    return estimate
