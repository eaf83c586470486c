"""Active labelling: spend human labels where the judge is unsure, and keep the corrected share
unbiased with a calibrated interval (game-agnostic; pure functions).

*Design.* Active statistical inference (Zrnic & Candès 2024, ICML, "Active Statistical
Inference") draws item i with probability π_i ∝ √(p̂_i(1 − p̂_i)), p̂_i the judge's calibrated
probability that i is true: for a mean, the variance of the inverse-probability-weighted
difference estimator Σ_i [p̂_i + (y_i − p̂_i)·I_i/π_i]/N is Σ_i E(y_i − p̂_i)²/π_i /N² (less a
constant), minimised at fixed E Σ π_i by π_i ∝ √E(y_i − p̂_i)² = √(p̂_i(1 − p̂_i)) when p̂ is
calibrated. Here the probabilities are made constant inside *uncertainty strata*: per cell
(e.g. a player model) × judge verdict, the items are cut into ``bands`` quantile bands of p̂
(:func:`uncertainty_strata`, fixed before any label, so every round samples the same strata).
Each round's labels go to the strata by the greedy allocation of
:func:`wordplay_audit.analysis.allocation.allocate` (minimise the largest predicted half-width
over the cells) with the stratum's predicted share q̃_h = (x_h + a·p̄_h)/(n_h + a) (its ``prior``),
p̄_h the stratum's mean p̂ and a = ``prior`` pseudo-labels: before labels arrive this is Neyman's
allocation with S_h = √(p̄_h(1 − p̄_h)) — the banded form of π_i ∝ √(p̂_i(1 − p̂_i)) — and as
labels arrive the judge's guess gives way to people's labels, so a miscalibrated p̂ costs labels
but not validity. Every stratum used gets ``pilot`` labels first (the interval needs
``MIN_LABELS`` = 5 per post-stratum) and the allocation's floor on q(1 − q) keeps every
stratum, hence every item, drawable (π_i > 0). ``annotate next --sampling uncertainty``
(``wordplay_audit.workflow.campaign_uncertainty``) runs this design on a campaign.

*Estimator and interval.* Inside a stratum the round draws a simple random sample, so π_i is the
same for the stratum's unlabelled items (:func:`uncertainty_design`'s ``draw_probability``); over
rounds :func:`wordplay_audit.corpora.sampling.inclusion_probabilities` gives each label its π
(exact, the strata being the same every round). The corrected share is the engine's
(:func:`wordplay_audit.analysis.correction.engine.corrected_shares` with the stratum's band as a
post-stratum: ``post_strata=["score_band"]``): the post-stratified estimator
θ̂ = (K + Σ_h U_h x_h/n_h)/N — the Horvitz–Thompson (Hájek) estimator with these π inside each
stratum, unbiased given the strata — and the randomised exact interval per stratum, which holds
because each stratum's labels are a simple random sample of it. A per-item π (Poisson sampling
with the difference estimator and its normal interval) was measured beside it and under-covers
at the sizes campaigns use (docs/methods/allocation.md): the banded design is the one
to use.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from wordplay_audit.analysis.allocation import (
    PSEUDO,
    AllocationOptions,
    StrataCounts,
    allocate,
    linear_target,
)
from wordplay_audit.errors import ParameterError

__all__ = [
    "BAND",
    "DEFAULT_BANDS",
    "active_difference_share",
    "draw_probabilities",
    "uncertainty_allocation",
    "uncertainty_design",
    "uncertainty_strata",
]

BAND = "score_band"
"""The items column holding each item's uncertainty band (the engine's post-stratum)."""
DEFAULT_BANDS = 2
"""Bands per cell × verdict: 2 (a judge-sure and a judge-unsure half) needed fewer labels than 3
or 4 in the pilot of ``benchmarks/sim_active_labelling.py`` (each band must hold ``MIN_LABELS``
labels and bounds its own share)."""
MIN_LABELS = 5


def _check_prob(prob: np.ndarray) -> np.ndarray:
    prob = np.asarray(prob, dtype=float)
    bad = ~(np.isfinite(prob) & (prob >= 0) & (prob <= 1))
    if bad.any():
        at = int(np.flatnonzero(bad)[0])
        raise ParameterError(
            f"prob: row {at} is {prob[at]!r}; expected the judge's calibrated probability in [0, 1] "
            "(an item without one needs one: calibrate the score, or give the verdict's rate)"
        )
    return prob


def uncertainty_strata(prob, judge, cell, *, bands: int = DEFAULT_BANDS) -> tuple[np.ndarray, np.ndarray]:
    """``(stratum, band)`` per item: ``band`` = the quantile band (0 … bands − 1, lowest p̂ first)
    of the item's calibrated probability ``prob`` among the items of its ``cell`` × ``judge``
    verdict (equal p̂ share a band), ``stratum`` = ``"cell|verdict|band"``. Depends on the scores
    only, so a campaign's strata are the same in every round.

    >>> s, b = uncertainty_strata([0.1, 0.2, 0.3, 0.9, 0.8], [False] * 3 + [True] * 2, ["m"] * 5, bands=2)
    >>> b.tolist(), s[0], s[3]
    ([0, 0, 1, 1, 0], 'm|False|0', 'm|True|1')
    """
    from wordplay_audit.analysis.correction.bands import _cut

    if isinstance(bands, bool) or not isinstance(bands, int | np.integer) or bands < 1:
        raise ParameterError(f"bands: expected a whole number ≥ 1, got {bands!r}")
    prob = _check_prob(prob)
    judge = np.asarray(judge, dtype=bool)
    cell = np.asarray(cell).astype(str)
    if not len(prob) == len(judge) == len(cell):
        raise ParameterError("prob, judge, cell: one value per item, same length")
    band = np.zeros(len(prob), dtype=int)
    key = pd.Series(list(zip(cell, judge, strict=True)))
    for at in key.groupby(key).indices.values():
        band[at] = _cut(prob[at], bands)
    stratum = np.array([f"{c}|{j}|{b}" for c, j, b in zip(cell, judge, band, strict=True)], dtype=object)
    return stratum, band


def uncertainty_allocation(  # noqa: PLR0913 - keyword-only options, one per setting
    stratum, prob, labelled, human, cell, budget: int, *, pilot: int = MIN_LABELS, prior: float = PSEUDO,
    confidence: float = 0.95, floor: float = 0.01,
) -> pd.DataFrame:  # fmt: skip
    """Labels to add per stratum for the next ``budget`` (module doc). Per item: ``stratum``,
    calibrated ``prob``, ``labelled`` (bool), ``human`` (bool, read where labelled) and ``cell``.
    Returns one row per stratum (sorted): ``stratum``, ``cell``, ``items``, ``labelled``,
    ``labelled_true``, ``mean_prob`` (p̄_h), ``add``."""
    if isinstance(budget, bool) or not isinstance(budget, int | np.integer) or budget < 0:
        raise ParameterError(f"budget: expected a whole number ≥ 0, got {budget!r}")
    frame = pd.DataFrame({
        "stratum": np.asarray(stratum).astype(str), "cell": np.asarray(cell).astype(str), "prob": _check_prob(prob),
        "labelled": np.asarray(labelled, dtype=bool),
    })  # fmt: skip
    frame["true"] = frame["labelled"] & pd.array(human, dtype="boolean").fillna(False).to_numpy(bool)
    table = frame.groupby("stratum", sort=True).agg(
        cell=("cell", "first"), items=("prob", "size"), labelled=("labelled", "sum"),
        labelled_true=("true", "sum"), mean_prob=("prob", "mean"),
    ).reset_index()  # fmt: skip
    big_n, n = table["items"].to_numpy(float), table["labelled"].to_numpy(float)
    counts = StrataCounts(big_n, n)
    x = table["labelled_true"].to_numpy(float)
    cells = table["cell"].to_numpy()
    targets = [linear_target(str(c), counts, cells == c, x) for c in np.unique(cells)]
    options = AllocationOptions(pilot=pilot, pseudo=prior, confidence=confidence, floor=floor)
    with np.errstate(invalid="ignore"):  # inf × 0 for strata a target does not use
        add = allocate(counts, targets, int(budget), options, prior=table["mean_prob"].to_numpy()).add
    return table.assign(add=add.astype(int))


def draw_probabilities(add, remaining) -> np.ndarray:
    """This round's inclusion probability of an undrawn item of each stratum: add_h / R_h (simple
    random sampling of add_h of the R_h items left; 0 where none is left).

    >>> draw_probabilities([2, 0, 0], [8, 5, 0]).tolist()
    [0.25, 0.0, 0.0]
    """
    add, remaining = np.asarray(add, dtype=float), np.asarray(remaining, dtype=float)
    if ((add < 0) | (add > remaining)).any():
        raise ParameterError("add: each stratum's draw must lie in 0 … the items it has left")
    return np.where(remaining > 0, add / np.maximum(remaining, 1), 0.0)


def uncertainty_design(
    frame: pd.DataFrame, *, budget: int, cells: Sequence[str], prob: str = "calibrated", bands: int = DEFAULT_BANDS,
    pilot: int = MIN_LABELS, prior: float = PSEUDO, confidence: float = 0.95,
) -> tuple[pd.DataFrame, pd.DataFrame]:  # fmt: skip
    """The next round of an active-labelling campaign: ``(items, strata)``.

    ``frame``: one row per item with the ``cells`` columns, ``judge`` (bool verdict), ``prob``
    (the judge's calibrated probability of true, in [0, 1]), ``labelled`` (bool) and ``human``
    (nullable boolean, NA where unlabelled). ``items`` is ``frame``'s index with ``stratum``,
    ``score_band`` (write it to items.csv: the engine's post-stratum) and ``draw_probability``
    (this round's inclusion probability of each unlabelled item, add_h / R_h in its stratum; 0
    for a labelled one); ``strata`` is :func:`uncertainty_allocation`'s table with ``remaining``.
    Draw ``add`` items of each stratum by simple random sampling among its unlabelled items
    (:func:`wordplay_audit.corpora.sampling.draw_round`).
    """
    cells = list(cells)
    missing = [c for c in [*cells, "judge", prob, "labelled", "human"] if c not in frame.columns]
    if missing:
        raise ParameterError(f"frame: lacks column(s) {', '.join(map(repr, missing))}")
    cell = (
        frame[cells].astype(str).agg(" / ".join, axis=1).to_numpy() if cells else np.full(len(frame), "all")
    )
    values = pd.to_numeric(frame[prob], errors="coerce").to_numpy(float)
    stratum, band = uncertainty_strata(values, frame["judge"].to_numpy(bool), cell, bands=bands)
    labelled = frame["labelled"].to_numpy(bool)
    strata = uncertainty_allocation(stratum, values, labelled, frame["human"], cell, budget, pilot=pilot,
                                    prior=prior, confidence=confidence)  # fmt: skip
    strata["remaining"] = (strata["items"] - strata["labelled"]).astype(int)
    rate = dict(zip(strata["stratum"], draw_probabilities(strata["add"], strata["remaining"]), strict=True))
    draw = np.where(labelled, 0.0, pd.Series(stratum).map(rate).fillna(0.0).to_numpy(float))
    items = pd.DataFrame({"stratum": stratum, BAND: band, "draw_probability": draw}, index=frame.index)
    return items, strata


def active_difference_share(
    prob, labelled, human, pi, *, confidence: float = 0.95
) -> tuple[float, float, float]:
    """The per-item design's estimator (for comparison; module doc): Poisson sampling with
    inclusion probabilities ``pi``, θ̂ = Σ_i [p̂_i + (y_i − p̂_i)·I_i/π_i]/N (unbiased for any fixed
    p̂), variance estimate Σ_i I_i (1 − π_i)(y_i − p̂_i)²/π_i²/N² (Horvitz–Thompson's for Poisson
    sampling), normal interval clipped to [0, 1]. Returns ``(estimate, low, high)``.

    >>> est, low, high = active_difference_share([0.5, 0.5], [True, False], [True, False], [0.5, 0.5])
    >>> est  # (0.5 + (1 − 0.5)/0.5 + 0.5)/2
    1.0
    """
    from scipy.special import ndtri

    p, lab = _check_prob(prob), np.asarray(labelled, dtype=bool)
    pi = np.asarray(pi, dtype=float)
    if (lab & ~(pi > 0)).any():
        raise ParameterError("pi: a labelled item needs an inclusion probability in (0, 1]")
    y = pd.array(human, dtype="boolean").fillna(False).to_numpy(float)
    r = np.where(lab, (y - p) / np.where(lab, pi, 1.0), 0.0)
    n_total = len(p)
    estimate = float((p.sum() + r.sum()) / n_total)
    var = float(np.sum(np.where(lab, (1 - pi) * ((y - p) / np.where(lab, pi, 1.0)) ** 2, 0.0)) / n_total**2)
    half = float(ndtri(0.5 + confidence / 2)) * np.sqrt(var)
    return estimate, max(estimate - half, 0.0), min(estimate + half, 1.0)
