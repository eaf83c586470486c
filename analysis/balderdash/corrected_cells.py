"""One cell of :func:`~wordplay_audit.analysis.balderdash.corrected.corrected_rates`: the
Rogan–Gladen and PPI estimates, their intervals, and the reason where there is none.

Two interval methods (``CorrectionOptions.method``):

* ``"exact"`` (default): exact for the binomial pieces. A cell made of whole sampling strata of
  its model (model × deck) gets the randomised Clopper–Pearson predictive interval of its
  realised share from its own post-strata (:mod:`wordplay_audit.analysis.correction.calibration`),
  for PPI and for Rogan–Gladen alike — Rogan–Gladen then uses the cell's own post-stratified Se
  and Sp, so its point is the post-stratified share and is not biased where the judge's accuracy
  differs by deck. A cell inside one sampling stratum (one round or a window of rounds of a
  deck) does the same from its own labels where each of its post-strata holds ``min_labels``
  (labels are a simple random sample of model × deck × verdict, so of the cell's part of it);
  else, with ``constant_accuracy`` (the judge as accurate in every round), Rogan–Gladen gets the interval of the cell's realised share under the Rogan–Gladen model
  with the Se and Sp of its stratum (model × deck: Jeffreys posterior draws of the Se and Sp
  that generate its verdicts, then the cell's prevalence and its unlabelled true items given its verdicts
  and labels, :func:`~wordplay_audit.analysis.correction.intervals.mixture_share_interval`) and
  PPI none (borrowing the stratum's share of each verdict is biased when the share changes over
  rounds); Rogan–Gladen borrows only from ≥ ``min_labels_borrowed`` labels per verdict stratum.
  A cell across strata, or with accuracy passed in, uses the model's draws. A post-stratum
  with fewer than ``min_labels`` labels gets no interval (``*_reason`` says so).
* ``"normal"``: the delta-method intervals (point ± z·SE), for comparison.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, NamedTuple

import numpy as np
import pandas as pd

from wordplay_audit.analysis.correction import (
    MIN_LABELS,
    JudgeAccuracy,
    accuracy_counts,
    generating_accuracy_draws,
    ppi_mean,
    rogan_gladen,
    seeded_rng,
    stratified_mean,
)
from wordplay_audit.analysis.correction.cells import own_interval, strata_parts, unlabelled_parts
from wordplay_audit.analysis.correction.engine import own_share
from wordplay_audit.analysis.correction.intervals import (
    BORROWED_FEW,
    MIN_LABELS_BORROWED,
    NOT_ASSUMED,
    TOO_FEW,
    mixture_share_interval,
)
from wordplay_audit.analysis.correction.poststratify import poststratified_accuracy
from wordplay_audit.analysis.proportions import z_value
from wordplay_audit.errors import ParameterError, check_choice

IntervalMethod = Literal["exact", "normal"]
INTERVAL_METHODS = ("exact", "normal")
NO_INFORMATION = "Se + Sp ≤ 1: the judge's verdict carries no information about this rate"
BORROWED = "a judge-verdict stratum of this cell has no label (the model's share was borrowed): no calibrated interval"


@dataclass(frozen=True)
class CorrectionOptions:
    """Options of :func:`corrected_rates`: sampling ``strata`` (besides the judge's verdicts),
    interval ``method``, fewest labels per post-stratum for an interval (``min_labels``) and per
    verdict stratum lending its Se/Sp to a round (``min_labels_borrowed``), ``draws``, ``seed``;
    ``only``: a boolean column among ``by`` — only the cells where it is true are computed and
    returned (the judge's accuracy and what a cell borrows still come from every row);
    ``constant_accuracy``: a part of a stratum (one round) may borrow its Se/Sp (:data:`NOT_ASSUMED`)."""

    strata: tuple[str, ...] = ("deck",)
    method: IntervalMethod = "exact"
    min_labels: int = MIN_LABELS
    min_labels_borrowed: int = MIN_LABELS_BORROWED
    draws: int = 4000
    seed: int = 0
    only: str | None = None
    constant_accuracy: bool = False

    def __post_init__(self) -> None:
        check_choice("method", self.method, INTERVAL_METHODS)
        for name in ("min_labels", "min_labels_borrowed"):
            if getattr(self, name) < 1:
                raise ParameterError(f"{name} must be at least 1, got {getattr(self, name)}")
        if self.draws < 100:
            raise ParameterError(f"draws must be at least 100, got {self.draws}")


@dataclass(frozen=True)
class ModelAccuracy:
    """The judge's accuracy for one model: the point estimate, posterior draws of the Se and Sp
    that generate its verdicts (None with ``reason`` when no calibrated interval is possible)."""

    acc: JudgeAccuracy
    se_draws: np.ndarray | None = None
    sp_draws: np.ndarray | None = None
    reason: str | None = None
    counts: pd.DataFrame | None = None

    @classmethod
    def assumed(cls, acc: JudgeAccuracy, draws: int, rng: np.random.Generator) -> ModelAccuracy:
        """Given accuracy: constant draws when its variance is 0, normal draws otherwise."""
        se = acc.se + np.sqrt(max(acc.var_se, 0.0)) * rng.standard_normal(draws)
        sp = acc.sp + np.sqrt(max(acc.var_sp, 0.0)) * rng.standard_normal(draws)
        return cls(acc, np.clip(se, 0, 1), np.clip(sp, 0, 1))


def draws_for_model(part: pd.DataFrame, acc: JudgeAccuracy, levels: list[list[str]], opts) -> ModelAccuracy:
    """Posterior draws of the Se and Sp generating the model's verdicts
    (:func:`~wordplay_audit.analysis.correction.intervals.generating_accuracy_draws`), on the finest strata ``levels`` whose
    every post-stratum holds ``min_labels`` labels (or is labelled in full); no draws (reason)
    when none does."""
    model = str(part["model"].iloc[0]) if len(part) else ""
    for strata in levels:
        counts = accuracy_counts(part, strata)
        # a post-stratum labelled in full is known exactly; only the others need min_labels
        if counts is not None and ((counts["n"] >= opts.min_labels) | (counts["n"] >= counts["N"])).all():
            rng = seeded_rng(opts.seed, model, *strata)
            se, sp = generating_accuracy_draws(counts, draws=opts.draws, rng=rng, fallback=(acc.se, acc.sp))
            return ModelAccuracy(acc, se, sp, counts=counts[[*strata, "judge", "n", "N"]])
    return ModelAccuracy(acc, reason=TOO_FEW.format(k=opts.min_labels))


def missing_reason(question: str, has_question: bool) -> str:
    if not has_question:
        return f"needs {question} labels"
    return "the judge's accuracy could not be estimated for this model (no labelled definition)"


class CellUse(NamedTuple):
    """How :func:`rg_cell` treats a cell: its ``own`` post-strata columns (None: it may not use
    its own labels), whether it is ``whole`` sampling strata, the ``seed`` of its intervals, and
    the ``basis`` of the accuracy it is given (:data:`BASES`) for ``rg_basis``."""

    own: tuple[str, ...] | None = None
    whole: bool = True
    seed: tuple = ()
    basis: str = "model"
    part: bool = False  # neither one whole stratum nor all its model's items: borrows only if assumed


BASES = {
    "own": "the cell's own labels",
    "stratum": "the sampling stratum the cell lies in (e.g. the deck of a round), assumed as accurate in all of it",
    "model": "the model's, over its sampling strata",
    "given": "passed in (assumed or estimated elsewhere)",
}
"""Where the Se and Sp behind a cell's Rogan–Gladen point and interval come from (``rg_basis``)."""


def rg_cell(
    cell: pd.DataFrame,
    model_acc: ModelAccuracy,
    shares,
    confidence: float,
    opts,
    why_missing: str,
    use: CellUse | None = None,
) -> dict:
    """Rogan–Gladen on the whole cell with its interval, or None values and ``rg_reason``.

    ``use`` (:class:`CellUse`) — ``own``: the cell's finest post-strata columns besides the judge's decision (e.g.
    ``("knows",)``) when it may use its own labels: with the exact method it then uses its own
    Se and Sp (:func:`_rg_own`) — a cell made of whole sampling strata of its model (``whole``)
    must (no interval otherwise), a part of one stratum (one round of a deck, ``whole`` False)
    does where each of its post-strata holds ``min_labels`` labels, and else gets the interval of
    :func:`_rg_exact` (its stratum's Se and Sp in ``model_acc``); ``seed``: what seeds the
    randomised intervals besides ``opts.seed`` (the cell's first item id)."""
    own, whole, seed, basis, part = use or CellUse()
    acc, z = model_acc.acc, z_value(confidence)
    n, p = len(cell), float(cell["judge"].mean())
    out = {"se": acc.se, "sp": acc.sp, "rg": np.nan, "rg_unclipped": np.nan, "rg_low": np.nan,
           "rg_high": np.nan, "rg_reason": None, "rg_basis": None, "rg_unknown": np.nan}  # fmt: skip
    if own is not None and opts.method == "exact" and np.isfinite(acc.se) and np.isfinite(acc.sp):
        mine = _rg_own(cell, own, acc, confidence, opts, seed)
        if mine is not None:
            return {**out, **mine}
    known = bool(np.isfinite(acc.se) and np.isfinite(acc.sp))
    if not known or (part and basis != "given" and not opts.constant_accuracy):  # borrowing: assumed?
        return {**out, "rg_reason": why_missing if not known else NOT_ASSUMED.format(k=opts.min_labels)}
    j = acc.se + acc.sp - 1
    if j <= 0:
        return {**out, "rg_reason": NO_INFORMATION}
    rg, var_rg = rogan_gladen(p, acc, n, share_pos=shares[0], share_neg=shares[1])
    out.update(rg=rg, rg_unclipped=float((p + acc.sp - 1) / j), rg_basis=basis)
    if opts.method == "normal":
        half = z * np.sqrt(var_rg)
        out.update(rg_low=float(np.clip(rg - half, 0, 1)), rg_high=float(np.clip(rg + half, 0, 1)))
        return out
    if own is not None and whole:
        return {**out, "rg_reason": TOO_FEW.format(k=opts.min_labels)}
    out.update(_rg_exact(cell, model_acc, confidence, opts, rg, seed))
    return out


def _rg_own(
    cell: pd.DataFrame, own: tuple[str, ...], model: JudgeAccuracy, confidence: float, opts, seed: tuple
) -> dict | None:
    """Rogan–Gladen with the cell's own post-stratified Se and Sp (post-strata: judge × ``own``,
    coarsened to the judge's decision), which makes its point the post-stratified share
    Σ_s N_s q_s / N (Tenenbein 1970); the randomised exact interval of that share: the engine's
    :func:`~wordplay_audit.analysis.correction.engine.own_share`. None when a post-stratum of the
    cell has fewer than ``min_labels`` labels. The share needs no J > 0; where the cell's labels
    hold no human-true (human-false) definition its Se (Sp) is undefined and the model's
    (``model``) is shown instead. Coarsened, a finer post-stratum without a label of the cell
    counts as unknown in the interval (0 in the low bound, all its items in the high one;
    ``rg_unknown`` items): the coarse share stands for it only on average over where the labels
    fall (docs/methods/corrected-shares.md, *Coarsening*)."""
    rng = seeded_rng(opts.seed, "rg", *seed)
    found = own_share(cell, own, confidence=confidence, min_labels=opts.min_labels, rng=rng)
    if found is None:
        return None
    acc = poststratified_accuracy(cell, strata=found.keys[1:])
    se = acc.se if np.isfinite(acc.se) else model.se
    sp = acc.sp if np.isfinite(acc.sp) else model.sp
    return {"se": se, "sp": sp, "rg": found.estimate, "rg_unclipped": found.estimate, "rg_low": found.low,
            "rg_high": found.high, "rg_reason": None, "rg_basis": "own", "rg_unknown": found.unknown}  # fmt: skip


def _rg_exact(cell: pd.DataFrame, model_acc: ModelAccuracy, confidence: float, opts, rg, seed: tuple) -> dict:
    """The exact interval of a Rogan–Gladen cell that is not made of whole sampling strata
    (e.g. one round): per draw of the Se and Sp generating the verdicts of the stratum it lies in
    (``model_acc``),
    the cell's prevalence from its verdicts and labels, then its unlabelled true items
    (:func:`~wordplay_audit.analysis.correction.intervals.mixture_share_interval`)."""
    if model_acc.se_draws is None:
        return {"rg_reason": model_acc.reason}
    if _too_few_to_borrow(model_acc.counts, opts.min_labels_borrowed):
        return {"rg_reason": BORROWED_FEW.format(k=opts.min_labels_borrowed)}
    judge, lab = cell["judge"].to_numpy(bool), cell["labelled"].to_numpy(bool)
    true = cell["human"].fillna(False).to_numpy(bool) & lab
    low, high = mixture_share_interval(
        model_acc.se_draws, model_acc.sp_draws, verdicts=(int(judge.sum()), int((~judge).sum())),
        labelled=(int((lab & judge).sum()), int((lab & ~judge).sum())),
        labelled_true=(int((true & judge).sum()), int((true & ~judge).sum())),
        confidence=confidence, rng=seeded_rng(opts.seed, "rg", *seed),
    )  # fmt: skip
    if not np.isfinite(low):
        return {"rg_reason": "Se + Sp ≤ 1 in more than 1 % of the posterior draws: no calibrated interval"}
    return {"rg_low": min(low, rg), "rg_high": max(high, rg)}


def _too_few_to_borrow(counts: pd.DataFrame | None, k: int) -> bool:
    """Whether a judge-verdict stratum behind borrowed Se and Sp (``counts`` of :func:`draws_for_model`,
    post-strata such as ``knows`` summed) holds fewer than ``k`` labels and is not labelled in full.

    >>> c = pd.DataFrame({"knows": [1, 0, 0], "judge": [1, 0, 0], "n": [5, 6, 6], "N": [90, 900, 4000]})
    >>> _too_few_to_borrow(c, 10), _too_few_to_borrow(c, 5), _too_few_to_borrow(c.assign(N=5), 10)
    (True, False, False)
    """
    if counts is None:  # accuracy passed in
        return False
    keys = [c for c in counts.columns if c not in ("n", "N", "knows", "true_def")]
    totals = counts.groupby(keys, observed=True, dropna=False)[["n", "N"]].sum()
    return not ((totals["n"] >= k) | (totals["n"] >= totals["N"])).all()


def ppi_cell(
    cell: pd.DataFrame,
    pooled: pd.DataFrame,
    other_col: str,
    design: str,
    confidence: float,
    opts,
    seed: tuple = (),
) -> dict:
    """PPI++ (random design) or the stratified double-sampling estimate of the cell's realised
    share, human labels where present; the interval by ``opts.method`` (exact: from the cell's
    own post-strata, verdict × other decision first, in both designs – :func:`own_interval`)."""
    out = {"ppi": np.nan, "ppi_low": np.nan, "ppi_high": np.nan, "ppi_lambda": np.nan, "ppi_pooled": None,
           "ppi_reason": None, "ppi_unknown": np.nan}  # fmt: skip
    lab, unl = cell[cell["labelled"]], cell[~cell["labelled"]]
    n, n_u, z = len(cell), len(unl), z_value(confidence)
    pos_lab = float(lab["human"].astype(bool).sum()) if len(lab) else 0.0
    if design == "random":
        y, f = lab["human"].astype(bool).to_numpy(float), lab["judge"].to_numpy(float)
        th_p, var_p, out["ppi_lambda"] = ppi_mean(y, f, unl["judge"].to_numpy(float))
        used_pool, levels = False, [["judge", other_col], ["judge"], []]
    else:
        th_p, var_p, used_pool = _ppi_stratified(cell, pooled, other_col, z)
        levels = [["judge", other_col], ["judge"]]
    if not np.isfinite(th_p):
        return {**out, "ppi_reason": "no labelled item in a judge-verdict stratum of this model"}
    ppi = (pos_lab + n_u * th_p) / n if n_u else pos_lab / n
    out.update(ppi=float(np.clip(ppi, 0, 1)), ppi_pooled=bool(used_pool))
    if opts.method == "normal":
        half = z * (n_u / n) * np.sqrt(var_p)
        out.update(ppi_low=float(np.clip(ppi - half, 0, 1)), ppi_high=float(np.clip(ppi + half, 0, 1)))
        return out
    # the interval rests on the cell's own labels only, a post-stratum without one unknown (so
    # also where the point borrowed the model's share for a finer post-stratum: ppi_pooled)
    rng = seeded_rng(opts.seed, "ppi", *seed)
    found = own_interval(
        cell, levels, levels[0], opts.min_labels, known_true=pos_lab, confidence=confidence, rng=rng
    )
    if found is None:
        empty = used_pool and bool(unlabelled_parts(cell, ["judge"]).any())
        return {**out, "ppi_reason": BORROWED if empty else TOO_FEW.format(k=opts.min_labels)}
    out.update(
        ppi_low=min(found.low, out["ppi"]), ppi_high=max(found.high, out["ppi"]), ppi_unknown=found.unknown
    )
    return out


def _ppi_stratified(
    cell: pd.DataFrame, pooled: pd.DataFrame, other_col: str, z: float
) -> tuple[float, float, bool]:
    """Σ_s W_s q_s over post-strata (judge, other judge decision) of the cell's unlabelled rows,
    coarsened to the judge's decision when a finer stratum has no label in cell or model."""
    if not (~cell["labelled"]).any():
        return 0.0, 0.0, False
    used_pool = False
    for keys in (["judge", other_col], ["judge"]):
        parts, used_pool = strata_parts(cell, pooled, keys)
        if parts:
            theta, var = stratified_mean(*zip(*parts, strict=True), z=z)
            return theta, var, used_pool
    return np.nan, np.nan, used_pool
