"""A scored judge against people's labels: ROC-AUC with its interval, the reliability curve,
expected calibration error, Brier score and a cross-validated threshold (game-agnostic).

Inputs per group: the judge's ``score`` of each item (higher = more likely true: P(yes), a
similarity), optionally its calibrated probability, and people's label. An item whose score is
unknown (empty) is left out and counted (``n_no_score``), never read as 0.

* **ROC-AUC** = P(score of a human-true item > score of a human-false one), ties counting ½: the
  Mann–Whitney statistic over midranks. Its variance is DeLong's (DeLong, DeLong &
  Clarke-Pearson 1988, Biometrics 44:837) from the structural components V10_i (share of false
  items a true item i outscores) and V01_j, in the midrank form of Sun & Xu (2014, IEEE SPL
  21:1389): Var = s²(V10)/m + s²(V01)/n. The interval is taken on the logit scale,
  logit(AUC) ± z·SE/(AUC(1 − AUC)), mapped back (it stays inside [0, 1]; Pepe 2003, *The
  Statistical Evaluation of Medical Tests*, §5.2.3); an AUC of exactly 0 or 1 has no logit and
  gets the interval of the nearest half-count (AUC ± ½/(m·n) in the logit). Coverage measured in
  ``tests/analysis/test_judge_scores.py`` (slow) and stated in docs/methods/judge-audit.md.
* **Reliability curve**: ``bins`` equal-width bins of the probability over [0, 1] (the bins of
  ``sklearn.calibration.calibration_curve(strategy="uniform")``): per non-empty bin its items,
  mean predicted probability and share human-true.
* **Expected calibration error** ``ECE = Σ_b (n_b/n)·|share_b − mean p_b|`` over those bins
  (Naeini, Cooper & Hauskrecht 2015, AAAI); **Brier score** = mean (p − y)² (Brier 1950).
  Both need a probability: the ``calibrated`` value where the judge gives one, else the score
  when its ``score_source`` is a probability (``logprobs``: P(yes); ``share``: share of yes
  votes); a similarity without calibration has none (null with ``calibration_reason``).
* **Threshold**: the Youden-best cut on the group's items with its stratified K-fold
  cross-validated sensitivity and specificity (:func:`wordplay_audit.corpora.thresholds.cv_threshold`,
  the code ``judge fit`` uses).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from wordplay_audit.errors import ParameterError

__all__ = [
    "PROBABILITY_SOURCES",
    "auc_interval",
    "brier_score",
    "delong_variance",
    "expected_calibration_error",
    "reliability_table",
    "roc_auc",
    "roc_points",
    "score_row",
]

PROBABILITY_SOURCES = ("logprobs", "share")
"""``score_source`` values whose score is itself a probability of ``true``."""
NO_CLASS = "needs human-true and human-false items"
NOT_PROBABILITY = "the score is a similarity and no calibrated probability was given"
TOO_FEW_FOR_CV = "fewer human-true or human-false items than folds"


def _placements(scores: np.ndarray, truth: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """DeLong's structural components (V10 per true item, V01 per false item) by midranks."""
    from scipy.stats import rankdata

    pos, neg = scores[truth], scores[~truth]
    m, n = len(pos), len(neg)
    all_rank = rankdata(np.concatenate([pos, neg]))
    v10 = (all_rank[:m] - rankdata(pos)) / n  # false items below each true one (ties ½)
    v01 = 1.0 - (all_rank[m:] - rankdata(neg)) / m  # true items above each false one
    return v10, v01


def roc_auc(scores: Any, truth: Any) -> float:
    """Mann–Whitney AUC (ties ½); nan without both classes.

    Hand check: true items score 0.9, 0.4, false 0.5, 0.4 → pairs (0.9 > 0.5, 0.9 > 0.4,
    0.4 < 0.5, 0.4 = 0.4) → (1 + 1 + 0 + ½)/4 = 0.625:

    >>> roc_auc([0.9, 0.4, 0.5, 0.4], [True, True, False, False])
    0.625
    """
    s, y = np.asarray(scores, float), np.asarray(truth, bool)
    if y.all() or not y.any():
        return float("nan")
    return float(_placements(s, y)[0].mean())


def delong_variance(scores: Any, truth: Any) -> float:
    """DeLong's variance of the AUC: s²(V10)/m + s²(V01)/n (module doc); nan with fewer than
    two items of a class."""
    s, y = np.asarray(scores, float), np.asarray(truth, bool)
    if y.sum() < 2 or (~y).sum() < 2:
        return float("nan")
    v10, v01 = _placements(s, y)
    return float(np.var(v10, ddof=1) / len(v10) + np.var(v01, ddof=1) / len(v01))


def auc_interval(
    scores: Any, truth: Any, *, confidence: float = 0.95
) -> tuple[float, float, float, str | None]:
    """``(auc, low, high, reason)``: the AUC and its logit-scale DeLong interval (module doc);
    nan ends with the reason where there is none."""
    from scipy.special import expit, logit, ndtri

    s, y = np.asarray(scores, float), np.asarray(truth, bool)
    auc = roc_auc(s, y)
    if auc != auc:
        return auc, float("nan"), float("nan"), NO_CLASS
    var = delong_variance(s, y)
    if var != var:
        return auc, float("nan"), float("nan"), "needs two human-true and two human-false items"
    m, n = int(y.sum()), int((~y).sum())
    half = 0.5 / (m * n)
    at = float(np.clip(auc, half, 1 - half))
    se = max(float(np.sqrt(var)), half)  # a perfect separation has s² = 0: a half-count floor
    z = float(ndtri(0.5 + confidence / 2))
    centre, spread = float(logit(at)), z * se / (at * (1 - at))
    return auc, float(expit(centre - spread)), float(expit(centre + spread)), None


def roc_points(scores: Any, truth: Any, *, most: int = 201) -> dict[str, list[float]]:
    """The ROC curve: false- and true-positive rates at every distinct cut (from (0, 0) to
    (1, 1)), thinned to at most ``most`` points (always keeping the ends); empty lists without
    both classes. The points of ``sklearn.metrics.roc_curve(drop_intermediate=False)``.

    >>> roc_points([0.9, 0.4, 0.5, 0.4], [True, True, False, False])
    {'fpr': [0.0, 0.0, 0.5, 1.0], 'tpr': [0.0, 0.5, 0.5, 1.0]}
    """
    s, y = np.asarray(scores, float), np.asarray(truth, bool)
    if y.all() or not y.any():
        return {"fpr": [], "tpr": []}
    order = np.argsort(-s, kind="mergesort")
    s, y = s[order], y[order]
    last = np.r_[s[1:] != s[:-1], True]
    tpr = np.r_[0.0, np.cumsum(y)[last] / y.sum()]
    fpr = np.r_[0.0, np.cumsum(~y)[last] / (~y).sum()]
    if len(tpr) > most:
        keep = np.unique(np.rint(np.linspace(0, len(tpr) - 1, most)).astype(int))
        tpr, fpr = tpr[keep], fpr[keep]
    return {"fpr": fpr.tolist(), "tpr": tpr.tolist()}


def reliability_table(prob: Any, truth: Any, *, bins: int = 10) -> pd.DataFrame:
    """Per non-empty equal-width bin of ``prob`` over [0, 1]: ``bin_low``, ``bin_high``, ``n``,
    ``mean_predicted``, ``share_true`` (the bins of ``sklearn.calibration.calibration_curve``).

    >>> reliability_table([0.1, 0.15, 0.8], [False, True, True], bins=2).round(3).to_dict(orient="list")
    {'bin_low': [0.0, 0.5], 'bin_high': [0.5, 1.0], 'n': [2, 1], 'mean_predicted': [0.125, 0.8], 'share_true': [0.5, 1.0]}
    """
    p, y = np.asarray(prob, float), np.asarray(truth, bool)
    if isinstance(bins, bool) or not isinstance(bins, int | np.integer) or bins < 1:
        raise ParameterError(f"bins: expected a whole number ≥ 1, got {bins!r}")
    if len(p) and (np.nanmin(p) < 0 or np.nanmax(p) > 1):
        raise ParameterError("prob: probabilities must lie in [0, 1]")
    edges = np.linspace(0.0, 1.0, bins + 1)
    at = np.searchsorted(edges[1:-1], p)
    total = np.bincount(at, minlength=bins)
    sums = np.bincount(at, weights=p, minlength=bins)
    hits = np.bincount(at, weights=y.astype(float), minlength=bins)
    keep = total > 0
    return pd.DataFrame({
        "bin_low": edges[:-1][keep], "bin_high": edges[1:][keep], "n": total[keep].astype(int),
        "mean_predicted": sums[keep] / total[keep], "share_true": hits[keep] / total[keep],
    })  # fmt: skip


def expected_calibration_error(prob: Any, truth: Any, *, bins: int = 10) -> float:
    """``Σ_b (n_b/n)·|share_b − mean p_b|`` over :func:`reliability_table`'s bins; nan for no item.

    Hand check (bins=2): bin [0, ½) holds 0.1, 0.15 (one true): ``|0.5 − 0.125|`` = 0.375, weight ⅔;
    bin [½, 1] holds 0.8 (true): ``|1 − 0.8|`` = 0.2, weight ⅓; ECE = 0.25 + 0.0667 = 0.3167:

    >>> round(expected_calibration_error([0.1, 0.15, 0.8], [False, True, True], bins=2), 4)
    0.3167
    """
    table = reliability_table(prob, truth, bins=bins)
    if table.empty:
        return float("nan")
    w = table["n"].to_numpy(float) / table["n"].sum()
    return float(np.sum(w * np.abs(table["share_true"] - table["mean_predicted"])))


def brier_score(prob: Any, truth: Any) -> float:
    """mean (p − y)²; nan for no item.

    >>> brier_score([0.1, 0.15, 0.8], [False, True, True])  # (0.01 + 0.7225 + 0.04)/3
    0.2575
    """
    p, y = np.asarray(prob, float), np.asarray(truth, float)
    return float(np.mean((p - y) ** 2)) if len(p) else float("nan")


def _interval(value: float, low: float, high: float, n: int, reason: str | None) -> dict[str, Any]:
    return {"value": value, "ci_low": low, "ci_high": high, "n": n, "ci_reason": reason}


def score_row(
    part: pd.DataFrame, *, confidence: float = 0.95, bins: int = 10, folds: int = 5, seed: int = 0
) -> dict[str, Any]:
    """The score metrics of one group: ``part`` has ``human`` (bool), ``score`` (float, nan where
    unknown), optional ``calibrated`` (float) and ``score_source`` (str) columns, one row per
    item with a parsed verdict and a human label. Returns ``n_scored``, ``n_no_score``, ``auc``
    (an interval dict), ``roc`` (:func:`roc_points`), ``brier``, ``ece``, ``reliability`` (rows of :func:`reliability_table`),
    ``calibration_source`` / ``calibration_reason`` and ``cv_threshold`` (a dict)."""
    from wordplay_audit.corpora.thresholds import cv_threshold, threshold_rates

    score = part["score"].to_numpy(float)
    known = np.isfinite(score)
    s, y = score[known], part["human"].to_numpy(bool)[known]
    auc, low, high, why = auc_interval(s, y, confidence=confidence)
    row: dict[str, Any] = {
        "n_scored": int(known.sum()), "n_no_score": int((~known).sum()),
        "auc": _interval(auc, low, high, int(known.sum()), why if known.any() else "no item has a score"),
        "roc": roc_points(s, y),
    }  # fmt: skip
    prob, source = _probability(part, known)
    if prob is None:
        row.update(brier=float("nan"), ece=float("nan"), reliability=[], calibration_source=None,
                   calibration_reason=NOT_PROBABILITY if known.any() else "no item has a score")  # fmt: skip
    else:
        usable = np.isfinite(prob)
        row.update(
            brier=brier_score(prob[usable], y[usable]),
            ece=expected_calibration_error(prob[usable], y[usable], bins=bins),
            reliability=reliability_table(prob[usable], y[usable], bins=bins).to_dict(orient="records"),
            calibration_source=source, calibration_reason=None,
        )  # fmt: skip
    if y.sum() >= folds and (~y).sum() >= folds:
        fit = cv_threshold(s, y, folds=folds, seed=seed)
        rates = threshold_rates(fit.oof_pred, y)
        row["cv_threshold"] = {
            "threshold": fit.threshold, "folds": folds, "objective": "youden",
            "cv_sensitivity": rates["sensitivity"], "cv_specificity": rates["specificity"],
            "cv_f1": rates["f1"], "constant_folds": fit.constant_folds, "reason": None,
        }  # fmt: skip
    else:
        row["cv_threshold"] = {"threshold": float("nan"), "folds": folds, "reason": TOO_FEW_FOR_CV}
    return row


def _probability(part: pd.DataFrame, known: np.ndarray) -> tuple[np.ndarray | None, str | None]:
    """The scored items' probabilities of ``true`` and where they come from (module doc)."""
    if "calibrated" in part.columns:
        cal = part["calibrated"].to_numpy(float)[known]
        if np.isfinite(cal).any():
            return cal, "calibrated"
    if "score_source" in part.columns:
        sources = set(part["score_source"][known].dropna().astype(str))
        if sources and sources <= set(PROBABILITY_SOURCES):
            return part["score"].to_numpy(float)[known], "score"
    return None, None
