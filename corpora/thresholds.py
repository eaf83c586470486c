"""The threshold search for a scored judge and its cross-validation (one implementation, used by
``judge fit`` in :mod:`wordplay_audit.judges.fit` and by the judge audit of any scored judge in
:mod:`wordplay_audit.analysis.judge_scores`; it lives below both rooms).

The threshold ``t`` (verdict ``true`` when score ≥ t) maximises the objective on the labelled
items: Youden's J = sensitivity + specificity − 1 (Youden 1950, Cancer 3:32), which weighs both
classes, or F1 = 2TP / (2TP + FP + FN). The cut lies half-way between the chosen score and the next
lower one. Cross-validation is stratified K-fold (Stone 1974, JRSS B 36:111): the cut is fitted
on K − 1 folds and applied to the held-out fold; the rates come from the pooled out-of-fold
verdicts.
"""

from __future__ import annotations

from typing import Literal, NamedTuple

import numpy as np

from wordplay_audit.errors import ParameterError, check_choice

__all__ = [
    "DEFAULT_OBJECTIVE",
    "OBJECTIVES",
    "CvThreshold",
    "best_threshold",
    "cv_threshold",
    "threshold_rates",
]

Objective = Literal["youden", "f1"]
OBJECTIVES: tuple[str, ...] = ("youden", "f1")
DEFAULT_OBJECTIVE = "youden"


def best_threshold(
    scores: np.ndarray, truth: np.ndarray, *, objective: Objective = DEFAULT_OBJECTIVE
) -> tuple[float, float]:
    """``(threshold, value)`` of the cut that maximises ``objective`` (ties: the highest cut).

    ``youden`` = TP/P − FP/N (Youden 1950, Cancer 3:32), which does not reward calling
    everything true when most pairs are true; ``f1`` = 2TP / (2TP + FP + FN).

    >>> best_threshold(np.array([0.9, 0.8, 0.3, 0.1]), np.array([1, 1, 0, 0]))
    (0.55, 1.0)
    """
    check_choice("objective", objective, OBJECTIVES)
    scores, truth = np.asarray(scores, float), np.asarray(truth, bool)
    if len(scores) == 0:
        raise ParameterError("scores: no labelled items to fit a threshold on")
    order = np.argsort(-scores, kind="mergesort")
    s, y = scores[order], truth[order]
    last = np.r_[s[1:] != s[:-1], True]  # last index of each run of equal scores
    tp, fp, cut = np.cumsum(y)[last], np.cumsum(~y)[last], s[last]
    positives, negatives = max(int(y.sum()), 1), max(int((~y).sum()), 1)
    if objective == "f1":
        value = np.where(tp > 0, 2 * tp / (tp + fp + y.sum()), 0.0)  # FN = P − TP
    else:
        value = tp / positives - fp / negatives
    k = int(np.argmax(value))
    lower = cut[k + 1] if k + 1 < len(cut) else cut[k] - 1e-6
    return float((cut[k] + lower) / 2), float(value[k])


def threshold_rates(pred: np.ndarray, truth: np.ndarray) -> dict[str, float]:
    """The four counts, sensitivity (= recall), specificity, precision, F1 and Youden's J of
    boolean predictions (nan where undefined)."""
    pred, truth = np.asarray(pred, bool), np.asarray(truth, bool)
    tp = int(np.sum(pred & truth))
    fp = int(np.sum(pred & ~truth))
    fn = int(np.sum(~pred & truth))
    tn = int(np.sum(~pred & ~truth))
    nan = float("nan")
    sensitivity = tp / (tp + fn) if tp + fn else nan
    specificity = tn / (tn + fp) if tn + fp else nan
    return {
        "tp": tp, "fp": fp, "fn": fn, "tn": tn,
        "precision": tp / (tp + fp) if tp + fp else nan,
        "recall": sensitivity,
        "sensitivity": sensitivity,
        "specificity": specificity,
        "f1": 2 * tp / (2 * tp + fp + fn) if tp + fp + fn else nan,
        "youden": sensitivity + specificity - 1 if tp + fn and tn + fp else nan,
    }  # fmt: skip


class CvThreshold(NamedTuple):
    """A cut fitted on all items and its stratified K-fold cross-validation."""

    threshold: float  # fitted on every item
    oof_pred: np.ndarray  # each item's verdict under the cut fitted without its fold
    thresholds: list  # the cut of each fold
    constant_folds: int  # folds whose own cut gave every training item one verdict
    splits: list  # (train, test) index arrays per fold


def cv_threshold(
    scores: np.ndarray, truth: np.ndarray, *, folds: int = 5, seed: int = 0,
    objective: Objective = DEFAULT_OBJECTIVE,
) -> CvThreshold:  # fmt: skip
    """The ``objective``-best cut on all items and per stratified fold (module doc); a
    ParameterError naming ``folds`` when a class has fewer than ``folds`` items.

    >>> s = np.array([0.9, 0.8, 0.7, 0.6, 0.4, 0.3, 0.2, 0.1])
    >>> fit = cv_threshold(s, s > 0.5, folds=2)
    >>> fit.threshold, fit.oof_pred.tolist() == (s > 0.5).tolist()
    (0.5, True)
    """
    from sklearn.model_selection import StratifiedKFold

    s, y = np.asarray(scores, float), np.asarray(truth, bool)
    if isinstance(folds, bool) or not isinstance(folds, int | np.integer) or folds < 2:
        raise ParameterError(f"folds: expected a whole number ≥ 2, got {folds!r}")
    if y.sum() < folds or (~y).sum() < folds:
        raise ParameterError(f"folds {folds}: need at least {folds} true and {folds} false human labels")
    threshold, _ = best_threshold(s, y, objective=objective)
    oof, cuts, constant, splits = np.zeros(len(y), bool), [], 0, []
    for train, test in StratifiedKFold(n_splits=folds, shuffle=True, random_state=seed).split(s, y):
        cut, _ = best_threshold(s[train], y[train], objective=objective)
        cuts.append(cut)
        constant += int(len(set((s[train] >= cut).tolist())) == 1)
        oof[test] = s[test] >= cut
        splits.append((train, test))
    return CvThreshold(threshold, oof, cuts, constant, splits)
