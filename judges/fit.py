"""Fit a similarity judge's threshold on human labels, and say how well it does out of sample.

The threshold ``t`` (verdict ``true`` when score ≥ t) maximises F1 = 2TP / (2TP + FP + FN) on
the labelled items; it is placed half-way between the chosen score and the next lower one. Its
honest performance is measured by stratified K-fold cross-validation (Stone 1974, JRSS B 36:111):
the threshold is fitted on K−1 folds and applied to the held-out fold, and precision, recall and
F1 are computed over the pooled out-of-fold verdicts. The in-sample F1 is optimistic by
construction (the threshold saw the labels); the cross-validated F1 is the one to report.

Human labels: the contract's rows with ``rater_type`` = ``human``, read as true/false, or a final
labels table; several people on one item vote by majority (:mod:`wordplay_audit.corpora.consensus`:
an adjudicator's label wins), and ties are left out and counted.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np
import pandas as pd

from wordplay_audit.corpora.consensus import human_labels, people_rows
from wordplay_audit.corpora.contract import (
    bool_labels,
    is_final_labels,
    place,
    validate_final_labels,
    validate_labels,
)
from wordplay_audit.corpora.values import parse_number
from wordplay_audit.errors import InputError, ParameterError, at_field, check_choice, expect_file

Objective = Literal["f1", "youden"]
OBJECTIVES: tuple[str, ...] = ("f1", "youden")
SCORE_RANGES = {"tfidf": (0.0, 1.0), "embed": (-1.0, 1.0)}
"""The cosine scores' range: TF-IDF vectors are non-negative, embeddings are not."""
_SLACK = 1e-6  # a fitted cut lies up to 0.5e-6 below the lowest score (best_threshold)


def best_threshold(
    scores: np.ndarray, truth: np.ndarray, *, objective: Objective = "f1"
) -> tuple[float, float]:
    """``(threshold, value)`` of the cut that maximises ``objective`` (ties: the highest cut).

    ``f1`` = 2TP / (2TP + FP + FN); ``youden`` = TP/P − FP/N (Youden 1950, Cancer 3:32), which
    does not reward calling everything true when most pairs are true.

    >>> best_threshold(np.array([0.9, 0.8, 0.3, 0.1]), np.array([1, 1, 0, 0]))
    (0.55, 1.0)
    """
    check_choice("--objective", objective, OBJECTIVES)
    scores, truth = np.asarray(scores, float), np.asarray(truth, bool)
    if len(scores) == 0:
        raise ParameterError("threshold fit: no labelled items to fit on")
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


def _prf(pred: np.ndarray, truth: np.ndarray) -> dict[str, float]:
    """Precision, recall, F1 and Youden's J of boolean predictions (nan where undefined)."""
    tp = int(np.sum(pred & truth))
    fp = int(np.sum(pred & ~truth))
    fn = int(np.sum(~pred & truth))
    tn = int(np.sum(~pred & ~truth))
    nan = float("nan")
    recall = tp / (tp + fn) if tp + fn else nan
    return {
        "precision": tp / (tp + fp) if tp + fp else nan,
        "recall": recall,
        "f1": 2 * tp / (2 * tp + fp + fn) if tp + fp + fn else nan,
        "youden": recall - fp / (fp + tn) if fp + tn and tp + fn else nan,
    }


@dataclass
class ThresholdFit:
    """A fitted threshold with its in-sample and cross-validated performance."""

    judge: str
    threshold: float
    n: int
    positives: int
    in_sample: dict[str, float]
    cv: dict[str, Any]
    judge_id: str = ""
    ties_left_out: int = 0
    labels_unmatched: int = 0
    items_unlabelled: int = 0
    objective: str = "f1"
    oof_pred: np.ndarray = field(default=None, repr=False)  # type: ignore[assignment]
    item_ids: list[str] = field(default_factory=list, repr=False)

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out.pop("oof_pred")
        out.pop("item_ids")
        return out

    def save(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps(self.to_dict(), indent=2) + "\n", encoding="utf-8")

    def oof_labels(self) -> pd.DataFrame:
        """Out-of-fold verdicts as contract labels (rater = judge id + ``,cv``)."""
        return pd.DataFrame({
            "item_id": self.item_ids,
            "rater": f"{self.judge_id},cv",
            "rater_type": "judge",
            "label": np.where(self.oof_pred, "true", "false"),
        })  # fmt: skip


def load_fit(path: str | Path, *, judge: str) -> ThresholdFit:
    """Read a fit written by :meth:`ThresholdFit.save`; it must be for ``judge``."""
    path = expect_file(path, "a threshold fit JSON file (from `judge fit`)")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: not a JSON threshold fit ({exc})") from None
    if not isinstance(data, dict) or "threshold" not in data:
        raise InputError(f"{path}: threshold: missing (write the file with `judge fit`)")
    if data.get("judge") != judge:
        raise InputError(f"{path}: judge: fitted for {data.get('judge')!r}, not for {judge!r}")
    low, high = SCORE_RANGES.get(judge, (-np.inf, np.inf))
    value = data["threshold"]
    threshold = None if isinstance(value, str) else parse_number(value)  # also nan, inf, true
    if threshold is None or not low - _SLACK <= threshold <= high + _SLACK:
        raise InputError(
            f"{at_field(path, 'threshold')}expected a finite number in [{low:g}, {high:g}] "
            f"(the {judge} score range), got {json.dumps(value)[:40]}"
        )
    # the figures besides the threshold only describe the fit; a file without them still runs
    return ThresholdFit(
        judge, threshold, data.get("n", 0), data.get("positives", 0), data.get("in_sample", {}),
        data.get("cv", {}), judge_id=data.get("judge_id", ""), ties_left_out=data.get("ties_left_out", 0),
    )  # fmt: skip


def human_truth(
    labels: pd.DataFrame, *, item_ids: Iterable[str] | None = None, source: str | None = None
) -> tuple[pd.Series, int]:
    """Human label per item as bool (index ``item_id``), and the number of ties left out.

    The consensus of :func:`wordplay_audit.corpora.consensus.human_labels` on the labels read as
    true/false: majority of the people's votes, an adjudicator's label winning, a tie nobody
    adjudicated left out and counted. ``labels``: per rater, or a final labels table (pull's
    ``final.csv``). With ``item_ids``, only the rows about those items are read (other kinds may
    hold other labels).
    """
    final = is_final_labels(labels)
    checked = (
        validate_final_labels(labels, source=source) if final else validate_labels(labels, source=source)
    )
    human = people_rows(checked)[0]
    if not final:
        keys = ["item_id", "rater", *(["question"] if "question" in human else [])]
        again = human.duplicated(keys, keep="first")
        if again.any():  # one rater's second vote on an item would count twice
            pos = int(again.to_numpy().argmax())
            raise InputError(
                f"{place(human, pos, source)}rater {human['rater'].iloc[pos]!r} labelled item "
                f"{human['item_id'].iloc[pos]!r} already; expected one label per rater and item"
            )
    if item_ids is not None:
        human = human[human["item_id"].isin(set(item_ids))]
    if human.empty:
        raise InputError(f"{source or 'labels'}: no rows with rater_type 'human'")
    asked = sorted(set(human["question"].dropna().astype(str)) - {""}) if "question" in human else []
    if len(asked) > 1:  # e.g. Balderdash's reference and any_sense: one judge, one question
        raise InputError(
            f"{source or 'labels'}: question: holds answers to {len(asked)} questions ({', '.join(asked)}); "
            "expected one – keep the rows of the question the judge answers (e.g. reference)"
        )
    human = human.copy()
    resolved = human["label"].notna().to_numpy()
    human.loc[resolved, "label"] = bool_labels(human[resolved], source=source).to_numpy()
    people = human_labels(human, source=source)
    truth = people.labels == "true"
    return truth.rename("human"), people.counts["ties"]


def fit_threshold(
    scores: pd.Series,
    truth: pd.Series,
    *,
    judge: str,
    folds: int = 5,
    seed: int = 0,
    objective: Objective = "f1",
) -> ThresholdFit:
    """Fit the F1-best threshold on all pairs and cross-validate it (see the module docstring).

    ``scores`` and ``truth`` are indexed by ``item_id``; items in only one are left out.
    """
    from sklearn.model_selection import StratifiedKFold

    common = scores.index.intersection(truth.index)
    s = scores.loc[common].to_numpy(float)
    y = truth.loc[common].to_numpy(bool)
    if y.sum() < folds or (~y).sum() < folds:
        raise ParameterError(f"--folds {folds}: need at least {folds} true and {folds} false human labels")
    threshold, _ = best_threshold(s, y, objective=objective)
    oof = np.zeros(len(y), bool)
    cuts = []
    for train, test in StratifiedKFold(n_splits=folds, shuffle=True, random_state=seed).split(s, y):
        cut, _ = best_threshold(s[train], y[train], objective=objective)
        cuts.append(cut)
        oof[test] = s[test] >= cut
    cv = {"folds": folds, "seed": seed, "thresholds": cuts, **_prf(oof, y)}
    in_sample = _prf(s >= threshold, y)
    in_sample["degenerate"] = bool(threshold <= s.min() or threshold > s.max())
    return ThresholdFit(
        judge, threshold, int(len(y)), int(y.sum()), in_sample, cv, objective=objective,
        oof_pred=oof, item_ids=[str(i) for i in common],
    )  # fmt: skip


def fit_judge(
    spec: str,
    items: pd.DataFrame,
    labels: pd.DataFrame,
    *,
    kind: str | None = None,
    folds: int = 5,
    seed: int = 0,
    objective: Objective = "f1",
    labels_source: str | None = None,
) -> ThresholdFit:
    """Score the human-labelled items (of ``kind``) with the unfitted ``spec`` judge and fit it."""
    from wordplay_audit.judges.make import SIMILARITY, make_judge

    if spec not in SIMILARITY:
        raise ParameterError(f"--judge: expected one of {', '.join(SIMILARITY)}; got {spec!r}")
    chosen = items if kind is None else items[items["kind"] == kind]
    truth, ties = human_truth(labels, item_ids=chosen["item_id"], source=labels_source)
    human = people_rows(labels)[0]
    unmatched = int((~human["item_id"].astype(str).isin(set(items["item_id"].astype(str)))).sum())
    chosen = chosen[chosen["item_id"].isin(truth.index)]
    if chosen.empty:
        raise InputError(
            f"{labels_source or 'labels'}: no human label names an item{'' if kind is None else f' of kind {kind!r}'}"
        )
    refs, cands = chosen["reference"].astype(str).tolist(), chosen["candidate"].astype(str).tolist()
    judge = make_judge(spec, corpus=[*refs, *cands])
    scores = pd.Series(judge.scores(refs, cands), index=chosen["item_id"].to_numpy())
    fit = fit_threshold(scores, truth, judge=spec, folds=folds, seed=seed, objective=objective)
    fit.judge_id = make_judge(spec, threshold=fit.threshold).judge_id
    fit.ties_left_out = ties
    fit.labels_unmatched = unmatched  # human rows naming no item of the items file (counted, said)
    fit.items_unlabelled = int(len(items if kind is None else items[items["kind"] == kind]) - len(chosen))
    return fit
