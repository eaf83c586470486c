"""Corrected shares and the judge's accuracy under the latent truth (:mod:`.latent`), with an item
bootstrap within the sampling strata that refits the rater model in every resample.

*Target.* Per cell, the realised share of truly-true items among all its items (labelled or
not): ``T_c / N_c``.

*Estimator.* Post-stratified on the judge's verdict as :mod:`.engine` is, with each labelled
item's consensus 0/1 replaced by its posterior p_i = P(true | its ratings) under the fitted
model: per post-stratum s with ``U_s`` unlabelled items,

    T̂_s = Σ_{i labelled in s} p_i + U_s · m_s,   m_s = x_s / n_s = Σ v_i p_i / Σ v_i,

v_i = 1/π_i − 1 with a ``sampling_weight`` column (the weights :func:`.cells.label_counts`
gives each label for the unlabelled rest), else 1. The cell's share is Σ_s T̂_s / N_c; the
judge's sensitivity in a group is T̂ over its judge-true strata / T̂ over all (FNR = 1 − that),
its specificity the same with N_s − T̂_s.

*Interval.* B resamples, each: the labelled items of every post-stratum drawn with replacement
(a multinomial over its patterns) and the rater model refitted to them (warm-started at the
point fit, all B at once) – the rater model's uncertainty; then, under the refitted model, the
realised truth drawn: each labelled item true with its posterior p*_i, the stratum's share of
the unlabelled rest from the Jeffreys posterior Beta(x*_s + ½, n_s − x*_s + ½) of its labels'
posterior mass x*_s = Σ p*_i (Kish effective n_s, x*_s with weights), and its U_s items
Binomial(U_s, m*_s) – the sampling of the labels and the rest's own variation. (A plain
bootstrap of m_s has no spread in a stratum whose labels are unanimous, and gave zero-width
intervals there; the Beta does not.) The bounds are the
(1 ± confidence)/2 quantiles of the draws of each ratio, widened to hold the point. A
post-stratum with unlabelled items and fewer than ``min_labels`` labels gives its cells no
interval (:data:`~.intervals.TOO_FEW`), one with none no estimate (:data:`~.engine.NO_LABEL`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from wordplay_audit.analysis.correction.engine import NO_LABEL
from wordplay_audit.analysis.correction.intervals import MIN_LABELS, TOO_FEW, seeded_rng
from wordplay_audit.analysis.correction.latent import (
    MIN_OVERLAP,
    MIN_RATER_ITEMS,
    LatentDesign,
    LatentFit,
    check_identified,
    dependence_check,
    fit_latent,
    latent_design,
)
from wordplay_audit.errors import ParameterError, check_level

__all__ = ["AUDIT_COLUMNS", "LatentTruth", "latent_truth", "resample_weights"]

AUDIT_COLUMNS = ["n_labelled", "recall_w", "fnr_w", "fnr_w_low", "fnr_w_high", "specificity_w",
                 "specificity_w_low", "specificity_w_high", "precision_w"]  # fmt: skip
"""The judge-audit columns :meth:`LatentTruth.judge_accuracy` fills (the consensus audit's names)."""
BOOT_TOL = 1e-6
"""EM stopping threshold of the refits (parameters move < 1e-6; at 5,000 items the refitted
prevalences differ from a 1e-7 stop by < 1e-4, a hundredth of an interval's width)."""


def resample_weights(design: LatentDesign, n_boot: int, rng: np.random.Generator) -> np.ndarray:
    """(n_boot, K) pattern counts of item resamples drawn with replacement inside each post-stratum."""
    w = np.zeros((n_boot, len(design.count)))
    for s in np.unique(design.stratum):
        at = np.flatnonzero(design.stratum == s)
        n = int(design.count[at].sum())
        w[:, at] = rng.multinomial(n, design.count[at] / n, size=n_boot)
    return w


def _onehot(design: LatentDesign) -> np.ndarray:
    out = np.zeros((len(design.count), design.n_strata))
    out[np.arange(len(design.count)), design.stratum] = 1.0
    return out


def _rest_share(design: LatentDesign, p: np.ndarray, onehot: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(n_s, x_s) per post-stratum, each (B, S): the labels that stand for its unlabelled rest and
    their posterior true mass, at the original counts (Kish effective counts with the weights v,
    as :func:`.cells.label_counts`; the counts themselves when v is constant)."""
    c, v = design.count, design.weight
    n_plain = np.broadcast_to(c @ onehot, (len(p), design.n_strata))
    x_plain = (c * p) @ onehot
    sum_v, sum_v2 = (c * v) @ onehot, (c * v * v) @ onehot
    weighted = (sum_v > 0) & ~np.isclose(sum_v2 * (c @ onehot), sum_v**2)
    n_eff = np.where(weighted, sum_v**2 / np.where(sum_v2 > 0, sum_v2, 1), n_plain)
    share = np.where(
        weighted, (c * v * p) @ onehot / np.where(sum_v > 0, sum_v, 1), x_plain / np.maximum(n_plain, 1)
    )
    return n_eff, n_eff * share


def _true_counts(design: LatentDesign, p: np.ndarray, m: np.ndarray) -> np.ndarray:
    unl = design.strata["unlabelled"].to_numpy(float)
    return (design.count * p) @ _onehot(design) + np.where(unl > 0, unl * m, 0.0)


@dataclass
class LatentTruth:
    """The fitted model, the point true count per post-stratum and B draws of the realised ones.

    ``point`` (S,), ``draws`` (B, S) true items per post-stratum; ``rater_draws`` (se, sp) each
    (B, R) of the refitted raters; ``dependence`` :func:`~.latent.dependence_check`."""

    design: LatentDesign
    fit: LatentFit
    model: str
    point: np.ndarray
    draws: np.ndarray
    rater_draws: tuple[np.ndarray, np.ndarray]
    dependence: pd.DataFrame
    confidence: float
    min_labels: int

    def _groups(self, by: Sequence[str]):
        strata = self.design.strata
        missing = [c for c in by if c not in strata.columns]
        if missing:
            raise ParameterError(
                f"by: {missing[0]!r} is not a post-stratum column ({', '.join(strata.columns)})"
            )
        return strata.groupby(list(by), sort=True, dropna=False).indices.items() if by else [((), np.arange(len(strata)))]  # fmt: skip

    def _bounds(self, point: float, draws: np.ndarray) -> tuple[float, float]:
        a = (1 - self.confidence) / 2
        low, high = np.nanquantile(draws, [a, 1 - a]) if np.isfinite(draws).any() else (np.nan, np.nan)
        return float(min(low, point)), float(max(high, point))

    def _reason(self, at: np.ndarray) -> str | None:
        strata = self.design.strata.iloc[at]
        labels = strata["n_items"] - strata["unlabelled"]
        rest = strata["unlabelled"] > 0
        if (rest & (labels == 0)).any():
            return NO_LABEL
        if (rest & (labels < self.min_labels)).any():
            return TOO_FEW.format(k=self.min_labels)
        return None

    def shares(self, by: Sequence[str]) -> pd.DataFrame:
        """Per ``by`` group of post-strata: ``n``, ``n_labelled``, ``estimate``, ``ci_low``,
        ``ci_high``, ``reason`` (None where both are given)."""
        rows = []
        for key, at in self._groups(by):
            key = key if isinstance(key, tuple) else (key,)
            strata = self.design.strata.iloc[at]
            n = int(strata["n_items"].sum())
            reason = self._reason(at)
            point = float(self.point[at].sum() / n) if reason != NO_LABEL else np.nan
            low, high = self._bounds(point, self.draws[:, at].sum(axis=1) / n) if reason is None else (np.nan, np.nan)  # fmt: skip
            rows.append((*key, n, n - int(strata["unlabelled"].sum()), point, low, high, reason))
        return pd.DataFrame(rows, columns=[*by, "n", "n_labelled", "estimate", "ci_low", "ci_high", "reason"])

    def judge_accuracy(self, by: Sequence[str], *, judge: str = "judge") -> pd.DataFrame:
        """The judge's sensitivity (``recall_w``), FNR, specificity and precision per ``by`` group
        under the latent truth, with intervals (:data:`AUDIT_COLUMNS`; nan with ``reason``)."""
        rows = []
        for key, at in self._groups(by):
            key = key if isinstance(key, tuple) else (key,)
            strata = self.design.strata.iloc[at]
            said = strata[judge].astype(bool).to_numpy()
            size = strata["n_items"].to_numpy(float)
            reason = self._reason(at)
            values = []
            for t in (self.point[at][None, :], self.draws[:, at]):
                tp, fn = t[:, said].sum(axis=1), t[:, ~said].sum(axis=1)
                fp, tn = size[said].sum() - tp, size[~said].sum() - fn
                with np.errstate(invalid="ignore", divide="ignore"):
                    values.append((tp / (tp + fn), tn / (tn + fp), tp / (tp + fp)))
            (recall, spec, prec), (recall_d, spec_d, _) = values
            recall, spec, prec = float(recall[0]), float(spec[0]), float(prec[0])
            if reason == NO_LABEL:
                recall = spec = prec = np.nan
            ok = reason is None
            fnr_low, fnr_high = self._bounds(1 - recall, 1 - recall_d) if ok else (np.nan, np.nan)
            sp_low, sp_high = self._bounds(spec, spec_d) if ok else (np.nan, np.nan)
            n_lab = int((strata["n_items"] - strata["unlabelled"]).sum())
            rows.append(
                (*key, n_lab, recall, 1 - recall, fnr_low, fnr_high, spec, sp_low, sp_high, prec, reason)
            )
        return pd.DataFrame(rows, columns=[*by, *AUDIT_COLUMNS, "reason"])

    def rater_accuracy(self) -> pd.DataFrame:
        """Per rater: ``n`` ratings, ``se``, ``se_low``, ``se_high``, ``sp``, ``sp_low``, ``sp_high``
        (bootstrap percentile intervals of the refitted model)."""
        n = self.design.count @ (self.design.ratings >= 0)
        out = {"rater": self.design.raters, "n": n.astype(int)}
        for name, point, draws in (("se", self.fit.se[0], self.rater_draws[0]),
                                   ("sp", self.fit.sp[0], self.rater_draws[1])):  # fmt: skip
            a = (1 - self.confidence) / 2
            out[name] = point
            out[f"{name}_low"] = np.minimum(np.quantile(draws, a, axis=0), point)
            out[f"{name}_high"] = np.maximum(np.quantile(draws, 1 - a, axis=0), point)
        return pd.DataFrame(out)


def latent_truth(  # noqa: PLR0913 - keyword-only options, one per setting
    items: pd.DataFrame,
    ratings: pd.DataFrame,
    *,
    strata: Sequence[str],
    model: str = "full",
    gold: str | None = None,
    rest: pd.DataFrame | None = None,
    n_boot: int = 1000,
    confidence: float = 0.95,
    min_labels: int = MIN_LABELS,
    seed: int = 0,
    min_overlap: int = MIN_OVERLAP,
    min_rater_items: int = MIN_RATER_ITEMS,
) -> LatentTruth:
    """Fit the latent-truth model to ``items`` × ``ratings`` (:func:`~.latent.latent_design`;
    post-strata ``strata``, e.g. the cell columns and ``judge``; ``rest``: unlabelled items as
    counts, see there), refuse a design that cannot
    identify it (:func:`~.latent.check_identified`), and bootstrap it ``n_boot`` times (module
    doc). Read the result with :meth:`LatentTruth.shares` and :meth:`LatentTruth.judge_accuracy`.

    Three raters, perfect on 40 items of one stratum (half true) and 4 unlabelled items: the
    estimate of the 44 items' true share is (20 + 4 · 0.5)/44 = 0.5:

    >>> items = pd.DataFrame({"item_id": range(44), "judge": True})
    >>> ratings = pd.DataFrame([(i, r, i % 2 == 0) for i in range(40) for r in "abc"],
    ...                        columns=["item_id", "rater", "label"])
    >>> truth = latent_truth(items, ratings, strata=["judge"], n_boot=200)
    >>> round(float(truth.shares([])["estimate"].iloc[0]), 3)
    0.5
    """
    check_level(confidence)
    if isinstance(n_boot, bool) or not isinstance(n_boot, int | np.integer) or n_boot < 100:
        raise ParameterError(f"n_boot: expected a whole number ≥ 100, got {n_boot!r}")
    design = latent_design(items, ratings, strata=list(strata), gold=gold, rest=rest)
    check_identified(design, min_overlap=min_overlap, min_rater_items=min_rater_items)
    point_fit = fit_latent(design, model=model)
    onehot = _onehot(design)
    p = point_fit.posterior
    n_s, x_s = _rest_share(design, p, onehot)
    with np.errstate(invalid="ignore", divide="ignore"):
        point = _true_counts(design, p[0], (x_s / n_s)[0])
    rng = seeded_rng(seed, "latent")
    w = resample_weights(design, n_boot, rng)
    boot = fit_latent(design, model=model, weights=w, start=point_fit, tol=BOOT_TOL)
    p_star = boot.posterior
    n_s, x_s = _rest_share(design, p_star, onehot)
    m_star = rng.beta(x_s + 0.5, np.maximum(n_s - x_s, 0) + 0.5)  # Jeffreys, at the refitted posteriors
    lab_true = rng.binomial(np.broadcast_to(design.count.astype(int), p_star.shape), p_star) @ onehot
    unl = design.strata["unlabelled"].to_numpy()
    rest = rng.binomial(np.broadcast_to(unl, m_star.shape), m_star)
    draws = lab_true + np.where((n_s > 0) | (unl == 0), rest, np.nan)
    return LatentTruth(
        design=design, fit=point_fit, model=model, point=point, draws=draws, rater_draws=(boot.se, boot.sp),
        dependence=dependence_check(design, point_fit), confidence=confidence, min_labels=min_labels,
    )  # fmt: skip
