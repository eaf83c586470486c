"""Labels needed for a target interval width under proportional, equal and adaptive allocation
(``balderdash plan --adaptive`` and ``benchmarks/sim_adaptive_allocation.py``).

Each simulated campaign draws a population: per model × deck cell N items, each human-true with
the cell's TDR, and a judge verdict with the model's Se/Sp; strata are model × deck × verdict.
People label in batches (default 20) by simple random sampling without replacement within
strata (the sampling design's draw, :mod:`wordplay_audit.corpora.sampling`; within a stratum
only counts matter, so the simulation draws each batch's true count as a hypergeometric
variate per stratum instead of drawing items).
After each batch every model is judged by the interval the toolkit prints for a cell made of
whole sampling strata (``balderdash recompute``): the randomised Clopper–Pearson predictive
interval of the model's realised TDR (``correction.calibration.randomised_share_interval``)
from its strata — U_h = N_h − n_h unlabelled items, n_h labels, x_h true, known true Σ x_h,
total N_model — with one uniform v_h per stratum drawn once per campaign (the toolkit seeds v
from the cell, so re-running it on more labels keeps v). There is no interval (half-width ∞)
until every stratum with unlabelled items has ≥ ``MIN_LABELS`` = 5 labels (a stratum labelled in full needs none). The campaign stops at the
first batch after which every model's half-width (high − low)/2 is ≤ the target (e.g. 0.05);
the labels spent then are "labels needed", and each final interval's coverage of the model's
realised TDR (low ≤ TDR ≤ high) is counted. A model whose strata were all labelled in full has
a known TDR (width 0, covered trivially): it is counted apart (``known``) and left out of the
coverage. The point estimate is the stratified estimate Σ_h W_h q̂_h (W_h = N_h/N_model).
Allocation of each batch:

* ``proportional``: n_h → n·N_h/N, ``equal``: n_h → n/H (the sampling design's fixed shares and
  batch rule, :func:`wordplay_audit.corpora.sampling.top_up`: the batch goes to the largest
  deficits, capped at N_h);
* ``adaptive``: :func:`wordplay_audit.analysis.allocation.allocate_variances` (pilot 5 per
  stratum, floor 0.01 on q(1 − q), minimise the largest predicted half-width z·√(Σ W_h² q̃_h(1 −
  q̃_h) N_h/(N_h − 1)(1/n_h − 1/N_h)) with q̃ = (x + a/2)/(n + a), a = ``pseudo``, default
  :data:`~wordplay_audit.analysis.allocation.PSEUDO` = 6: with a = 2 the allocation followed
  chance extremes and the binding models' intervals covered 0.914–0.926; docs/methods/allocation.md).

The three methods share each campaign's population and v (common random numbers); campaign c
uses the generators ``default_rng([seed, c])`` (population, then v) and
``default_rng([seed, c, k + 1])`` (method k's draws), so results are reproducible for a seed.

>>> d = AdaptiveDesign.even(models=2, decks=1, items=100, rate=[0.3, 0.6], se=[0.9, 0.9], sp=[0.9, 0.9])
>>> d.sizes, d.tdr
([[100], [100]], [[0.3], [0.6]])
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from wordplay_audit.analysis.active import DEFAULT_BANDS, uncertainty_strata
from wordplay_audit.analysis.allocation import (
    PSEUDO,
    AllocationOptions,
    StrataCounts,
    allocate_variances,
    linear_target,
    unit_variances,
)
from wordplay_audit.analysis.correction.calibration import randomised_share_interval
from wordplay_audit.corpora.sampling import fixed_shares, top_up
from wordplay_audit.errors import ParameterError

METHODS = ("proportional", "equal", "adaptive")
PLAN_METHODS = (*METHODS, "uncertainty")
"""The methods ``balderdash plan --adaptive`` simulates: the allocations and uncertainty sampling."""
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


def _items(design: AdaptiveDesign, rng: np.random.Generator):
    """Per item: model index, cell index (model × deck), truth and the judge's verdict."""
    model, cell, truth, verdict = [], [], [], []
    for m, (sizes, tdrs) in enumerate(zip(design.sizes, design.tdr, strict=True)):
        for size, tdr in zip(sizes, tdrs, strict=True):
            true = rng.random(size) < tdr
            verdict.append(np.where(true, rng.random(size) < design.se[m], rng.random(size) >= design.sp[m]))
            model.append(np.full(size, m))
            cell.append(np.full(size, len(truth)))
            truth.append(true)
    return tuple(np.concatenate(x) for x in (model, cell, truth, verdict))


def population(design: AdaptiveDesign, rng: np.random.Generator, items=None):
    """Per stratum (model, deck, verdict): N_h, true count T_h, model index (``items``: the
    population of :func:`_items`, drawn from ``rng`` when not given)."""
    model, cell, truth, verdict = _items(design, rng) if items is None else items
    big_n, true, of = [], [], []
    for k in np.unique(cell):
        for v in (True, False):
            at = (cell == k) & (verdict == v)
            big_n.append(int(at.sum()))
            true.append(int((truth & at).sum()))
            of.append(int(model[cell == k][0]))
    return np.array(big_n), np.array(true), np.array(of)


def judge_probabilities(design: AdaptiveDesign, items, rng: np.random.Generator) -> np.ndarray:
    """A calibrated judge score per item, consistent with the verdicts: a latent score
    s ~ N(μ₁, 1) for a true item, N(μ₀, 1) for a false one, μ₁ = Φ⁻¹(Se), μ₀ = −Φ⁻¹(Sp) (Se, Sp
    clipped to [0.001, 0.999]), drawn on the verdict's side of 0 (the judge says true iff s > 0:
    P = Se, Sp as designed); its calibrated probability P(true | s) = expit(logit t + (μ₁ − μ₀)
    (s − (μ₁ + μ₀)/2)), t the cell's TDR (the equal-variance binormal model)."""
    from scipy.special import expit, logit, ndtr, ndtri

    model, cell, truth, verdict = items
    tdr = np.array([t for rates in design.tdr for t in rates], dtype=float)[cell]
    mu1 = ndtri(np.clip(np.asarray(design.se, dtype=float), 1e-3, 1 - 1e-3))[model]
    mu0 = -ndtri(np.clip(np.asarray(design.sp, dtype=float), 1e-3, 1 - 1e-3))[model]
    mu = np.where(truth, mu1, mu0)
    cut = ndtr(-mu)  # P(s ≤ 0)
    low, high = np.where(verdict, cut, 0.0), np.where(verdict, 1.0, cut)
    s = mu + ndtri(np.clip(low + (high - low) * rng.random(len(mu)), 1e-12, 1 - 1e-12))
    with np.errstate(divide="ignore"):  # logit(0) = −∞, logit(1) = ∞: the probability is 0 or 1
        return expit(logit(tdr) + (mu1 - mu0) * (s - (mu1 + mu0) / 2))


def uncertainty_population(
    design: AdaptiveDesign, items, rng: np.random.Generator, bands: int = DEFAULT_BANDS
):
    """Per uncertainty stratum (model × deck × verdict × ``bands`` quantile bands of the judge's
    probability, :func:`~wordplay_audit.analysis.active.uncertainty_strata`): N_h, true count
    T_h, model index and the mean probability p̄_h (the allocation's prior)."""
    model, cell, truth, verdict = items
    prob = judge_probabilities(design, items, rng)
    stratum, _ = uncertainty_strata(prob, verdict, cell, bands=bands)
    _keys, first, at = np.unique(stratum, return_index=True, return_inverse=True)
    big_n = np.bincount(at)
    true = np.bincount(at, weights=truth.astype(float)).astype(int)
    return big_n, true, model[first], np.bincount(at, weights=prob) / big_n


def estimates(big_n, n, x, model) -> np.ndarray:
    """Per model the stratified estimate Σ_h W_h q̂_h (W_h = N_h/N_model; q̂_h = 0 unlabelled)."""
    q = np.where(n > 0, x / np.maximum(n, 1), 0.0)
    return np.array(
        [np.sum(big_n[model == m] * q[model == m]) / big_n[model == m].sum() for m in np.unique(model)]
    )


def model_interval(big_n, n, x, v, confidence: float = 0.95) -> tuple[float, float]:
    """The toolkit's randomised Clopper–Pearson predictive interval of one model's realised TDR
    from its strata (:func:`~wordplay_audit.analysis.correction.calibration.randomised_share_interval`);
    (nan, nan) until every stratum with unlabelled items has ≥ ``MIN_LABELS`` labels."""
    if not ((n >= np.minimum(MIN_LABELS, big_n)) | (big_n == 0)).all():
        return np.nan, np.nan
    return randomised_share_interval(big_n - n, n, x, v=v, known_true=float(x.sum()), n_total=float(big_n.sum()), confidence=confidence)  # fmt: skip


def _stop_check(big_n, n, x, v, model, half_width: float, confidence: float, first: int):
    """(stop?, lows, highs, first failing model): the models' intervals, model ``first`` (the
    one that failed last batch) tried first and the rest skipped once one is wider than
    ``half_width`` (the stop decision does not depend on the order)."""
    models = np.unique(model)
    low, high = np.full(len(models), np.nan), np.full(len(models), np.nan)
    for i in [first, *(j for j in range(len(models)) if j != first)]:
        at = model == models[i]
        low[i], high[i] = model_interval(big_n[at], n[at], x[at], v[at], confidence)
        if not (high[i] - low[i]) / 2 <= half_width:  # nan (no interval yet) fails too
            return False, low, high, i
    return True, low, high, first


def adaptive_batch(big_n, n, x, model, batch, confidence: float = 0.95, pseudo: float = PSEUDO, prior=None):
    """The next batch by :func:`allocate_variances`: minimise the largest predicted half-width
    of the models' corrected TDRs (q̃ = (x + a·m)/(n + a), a = ``pseudo``, m = ``prior`` per
    stratum, ½ by default; the judge's mean calibrated probability for active labelling,
    :mod:`wordplay_audit.analysis.active`). A one-item stratum
    has no variance to predict (the allocation would never label it) but the interval waits
    for its label: it gets it first."""
    lone = ((big_n == 1) & (n == 0)).astype(int)
    lone[np.cumsum(lone) > batch] = 0
    counts = StrataCounts(big_n.astype(float), (n + lone).astype(float))
    targets = [linear_target(str(m), counts, model == m, x) for m in np.unique(model)]
    options = AllocationOptions(pilot=MIN_LABELS, pseudo=pseudo, confidence=confidence)
    unit = unit_variances(counts, targets, options.floor, options.pseudo, prior=prior)
    return lone + allocate_variances(unit, counts, batch - int(lone.sum()), options)


def run_campaign(pop, method: str, rng, *, half_width: float, batch: int, confidence: float = 0.95, pseudo: float = PSEUDO, confirm: int = 0, prior=None):  # noqa: PLR0913  # fmt: skip
    """Label in batches until every model's half-width ≤ ``half_width`` (or all is labelled).
    ``pop`` = (N_h, T_h, model, v_h); ``prior``: :func:`adaptive_batch`'s; returns (labels spent, estimates, lows, highs, known),
    known = the model's strata were labelled in full (its TDR is known, width 0)."""
    big_n, true, model, v = pop
    n, x = np.zeros(len(big_n), dtype=int), np.zeros(len(big_n), dtype=int)
    shares = fixed_shares(big_n, method) if method != "adaptive" else None
    first, held = 0, 0
    while True:
        stop, low, high, first = _stop_check(big_n, n, x, v, model, half_width, confidence, first)
        held = held + 1 if stop else 0
        if held > confirm or (
            stop and (n == big_n).all()
        ):  # (with every item labelled every interval is the known share: width 0)
            known = np.array([(n[model == m] == big_n[model == m]).all() for m in np.unique(model)])
            return int(n.sum()), estimates(big_n, n, x, model), low, high, known
        if method == "adaptive":
            with np.errstate(invalid="ignore"):  # inf × 0 for strata no target uses (harmless)
                add = adaptive_batch(big_n, n, x, model, batch, confidence, pseudo, prior)
        else:
            add = top_up(big_n, n, batch, shares)
        left_true, left = true - x, big_n - n
        new_true = np.where(add > 0, rng.hypergeometric(left_true, np.maximum(left - left_true, 0), add), 0)
        n, x = n + add, x + new_true


SETTINGS = {"half_width": 0.05, "batch": 20, "confidence": 0.95, "pseudo": PSEUDO, "confirm": 0}
"""Campaign settings of :func:`simulate` and their defaults (``confirm``: extra consecutive
batches after which the stop rule must still hold before the campaign stops)."""


def simulate(
    design: AdaptiveDesign, *, campaigns: int, seed: int, methods: Sequence[str] = METHODS, **settings
):
    """Per method: labels needed in each campaign, per campaign × model whether the final
    interval held the model's realised TDR, and whether that TDR was known (strata labelled
    in full, width 0: it holds trivially). ``settings``: see :data:`SETTINGS`."""
    unknown = sorted(set(settings) - set(SETTINGS))
    if unknown:
        raise ParameterError(f"simulate: unknown setting(s) {', '.join(unknown)}")
    settings = {**SETTINGS, **settings}
    if int(settings["confirm"]) != settings["confirm"] or settings["confirm"] < 0:
        raise ParameterError(f"confirm: {settings['confirm']} must be a whole number ≥ 0")
    _check(campaigns, settings["half_width"], settings["batch"], methods)
    labels, covered, known = ({m: [] for m in methods} for _ in range(3))
    for c in range(campaigns):
        pop_rng = np.random.default_rng([seed, c])
        items = _items(design, pop_rng)
        big_n, true, model = population(design, pop_rng, items)
        pop = (big_n, true, model, pop_rng.random(len(big_n)))  # v per stratum, fixed for the campaign
        truth = np.array([true[model == m].sum() / big_n[model == m].sum() for m in np.unique(model)])
        for method in methods:
            k = PLAN_METHODS.index(method)
            how, prior, strata = method, None, pop
            if method == "uncertainty":  # the judge's scores from their own stream, then v per stratum
                score_rng = np.random.default_rng([seed, c, 0])
                *fine, prior = uncertainty_population(design, items, score_rng)
                how, strata = "adaptive", (*fine, score_rng.random(len(fine[0])))
            spent, _, low, high, full = run_campaign(
                strata, how, np.random.default_rng([seed, c, k + 1]), prior=prior, **settings
            )
            labels[method].append(spent)
            covered[method].append((low - 1e-12 <= truth) & (truth <= high + 1e-12))
            known[method].append(full)
    return tuple({m: np.array(v) for m, v in d.items()} for d in (labels, covered, known))


def _check(campaigns: int, half_width: float, batch: int, methods: Sequence[str]) -> None:
    if campaigns < 2:
        raise ParameterError(f"campaigns: {campaigns} must be at least 2 (a standard error needs two)")
    if not 0 < half_width < 0.5:
        raise ParameterError(f"half_width: {half_width} must lie in (0, 0.5)")
    if batch < 1:
        raise ParameterError(f"batch: {batch} must be at least 1")
    for m in methods:
        if m not in PLAN_METHODS:
            raise ParameterError(f"method: {m!r} is not one of {', '.join(PLAN_METHODS)}")


def summarise(labels: dict, covered: dict, known: dict, items: int | None = None) -> dict:
    """Per method: mean labels needed, its SE, median, per model the share of campaigns whose
    TDR was known (strata labelled in full) and the coverage over the other campaigns (None if
    there is none), and with ``items`` the share of campaigns that labelled every item; the
    adaptive saving against proportional and against the best fixed design (share of labels,
    with the SE of the paired difference over the common-random-number campaigns)."""
    out: dict = {"methods": {}}
    for method, spent in labels.items():
        cov, full = covered[method], known[method]
        open_ = (~full).sum(axis=0)
        out["methods"][method] = {
            "labels_mean": float(spent.mean()),
            "labels_se": float(spent.std(ddof=1) / np.sqrt(len(spent))),
            "labels_median": float(np.median(spent)),
            "coverage_per_model": [
                float((c & ~f).sum() / k) if k else None for c, f, k in zip(cov.T, full.T, open_, strict=True)
            ],
            "known_share_per_model": [float(f) for f in full.mean(axis=0)],
        }
        if items is not None:
            out["methods"][method]["all_labelled_share"] = float(np.mean(spent >= items))
    if {"proportional", "equal", "adaptive"} <= set(labels):
        best = min(("proportional", "equal"), key=lambda m: labels[m].mean())
        for key, ref in (("vs_proportional", "proportional"), ("vs_best_fixed", best)):
            out[f"saving_{key}"] = _saving(labels, ref, "adaptive")
    if {"adaptive", "uncertainty"} <= set(labels):
        out["saving_uncertainty_vs_adaptive"] = _saving(labels, "adaptive", "uncertainty")
    return out


def _saving(labels: dict, ref: str, method: str) -> dict:
    """Labels ``method`` saves against ``ref`` (mean paired difference, its SE, share of ``ref``'s)."""
    diff = labels[ref] - labels[method]
    return {
        "reference": ref,
        "labels": float(diff.mean()),
        "labels_se": float(diff.std(ddof=1) / np.sqrt(len(diff))),
        "share": float(diff.mean() / labels[ref].mean()),
    }


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
    labels, covered, known = simulate(
        design, campaigns=campaigns, seed=seed, methods=PLAN_METHODS, half_width=half_width, batch=batch,
        confidence=confidence,
    )  # fmt: skip
    items = int(sum(sum(s) for s in design.sizes))
    return {
        "design": design.name,
        "items": items,
        "half_width": half_width,
        "confidence": confidence,
        "campaigns": campaigns,
        "batch": batch,
        "seed": seed,
        **summarise(labels, covered, known, items),
    }
