"""Fit a similarity judge's threshold on human labels, and say how well it does out of sample.

The threshold ``t`` (verdict ``true`` when score ≥ t) maximises the objective on the labelled
items: by default Youden's J = sensitivity + specificity − 1 (Youden 1950, Cancer 3:32), which
weighs both classes (balanced accuracy = (1 + J)/2 picks the same cut); or F1 = 2TP / (2TP +
FP + FN), which with most pairs true rewards calling every pair true. The cut is placed half-way
between the chosen score and the next lower one. A best cut that gives every labelled item the
same verdict is refused (:class:`ParameterError` naming ``objective``): such a "judge" is a
constant. Honest performance comes from stratified K-fold cross-validation (Stone 1974, JRSS B
36:111): the threshold is fitted on K−1 folds and applied to the held-out fold, and sensitivity
(recall), specificity, precision, F1 and J are computed over the pooled out-of-fold verdicts; a
fold whose own cut was constant is counted (``constant_folds``). The in-sample figures are
optimistic by construction (the threshold saw the labels); the cross-validated ones are to report.

*Calibration*: Platt scaling (Platt 1999, "Probabilistic outputs for support vector machines")
maps a score s to P(true) = 1 / (1 + exp(−(slope·s + intercept))), fitted by maximum likelihood
on Platt's smoothed targets (true → (N₊ + 1)/(N₊ + 2), false → 1/(N₋ + 2), which keeps the fit
finite when the scores separate the classes). It is fitted on all labelled items for the judge
to use, and per fold for the out-of-fold probabilities whose Brier score the fit reports.

Human labels: the contract's rows with ``rater_type`` = ``human``, read as true/false, or a final
labels table; several people on one item vote by majority (:mod:`wordplay_audit.corpora.consensus`:
an adjudicator's label wins), and ties are left out and counted.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from wordplay_audit.corpora.consensus import human_labels, people_rows
from wordplay_audit.corpora.contract import bool_labels, is_final_labels, place, validate_labels
from wordplay_audit.corpora.final_labels import validate_final_labels
from wordplay_audit.corpora.thresholds import (  # the one threshold search, below judges and analysis
    DEFAULT_OBJECTIVE,
    OBJECTIVES,  # noqa: F401 (re-exported: judge fit's choices)
    Objective,
    best_threshold,  # noqa: F401 (re-exported)
    cv_threshold,
)
from wordplay_audit.corpora.thresholds import threshold_rates as _rates
from wordplay_audit.corpora.values import parse_number
from wordplay_audit.errors import InputError, ParameterError, at_field, expect_file

SCORE_RANGES = {"tfidf": (0.0, 1.0), "embed": (-1.0, 1.0)}
"""The cosine scores' range: TF-IDF vectors are non-negative, embeddings are not."""
_SLACK = 1e-6  # a fitted cut lies up to 0.5e-6 below the lowest score (best_threshold)


def fit_platt(scores: np.ndarray, truth: np.ndarray) -> tuple[float, float]:
    """``(slope, intercept)`` of Platt scaling on Platt's smoothed targets (module docstring).

    >>> slope, intercept = fit_platt(np.array([0.1, 0.4, 0.6, 0.9]), np.array([0, 1, 0, 1]))
    >>> bool(slope > 0)
    True
    """
    from scipy.optimize import minimize

    s, y = np.asarray(scores, float), np.asarray(truth, bool)
    n_pos, n_neg = int(y.sum()), int((~y).sum())
    target = np.where(y, (n_pos + 1) / (n_pos + 2), 1 / (n_neg + 2))

    def loss(params: np.ndarray) -> tuple[float, np.ndarray]:
        z = params[0] * s + params[1]
        # −[t log σ(z) + (1 − t) log(1 − σ(z))] = log(1 + e^z) − t·z, stably
        value = float(np.sum(np.logaddexp(0.0, z) - target * z))
        residual = 0.5 * (1 + np.tanh(z / 2)) - target  # σ(z) − t
        return value, np.array([residual @ s, residual.sum()])

    start = np.array([0.0, np.log((n_pos + 1) / (n_neg + 1))])
    found = minimize(loss, start, jac=True, method="L-BFGS-B")
    return float(found.x[0]), float(found.x[1])


def platt_probability(scores: Any, slope: float, intercept: float) -> np.ndarray:
    """P(true) = 1 / (1 + exp(−(slope·s + intercept))) for each score.

    >>> platt_probability([0.0], 2.0, 0.0).tolist()
    [0.5]
    """
    z = slope * np.asarray(scores, float) + intercept
    return 0.5 * (1 + np.tanh(z / 2))


@dataclass
class ThresholdFit:
    """A fitted threshold with its in-sample and cross-validated performance, and the Platt
    calibration of the score (``calibration``: method, slope, intercept; None when unknown)."""

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
    objective: str = DEFAULT_OBJECTIVE
    calibration: dict[str, Any] | None = None
    oof_pred: np.ndarray = field(default=None, repr=False)  # type: ignore[assignment]
    oof_prob: np.ndarray = field(default=None, repr=False)  # type: ignore[assignment]
    scores: np.ndarray = field(default=None, repr=False)  # type: ignore[assignment]
    item_ids: list[str] = field(default_factory=list, repr=False)

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        for name in ("oof_pred", "oof_prob", "scores", "item_ids"):
            out.pop(name)
        return out

    def save(self, path: str | Path) -> None:
        """Write the fit as JSON to ``path`` (what :func:`load_fit` reads)."""
        Path(path).write_text(json.dumps(self.to_dict(), indent=2) + "\n", encoding="utf-8")

    def calibrate(self, scores: Any) -> np.ndarray | None:
        """The calibrated P(true) of ``scores`` (None without a calibration)."""
        if not self.calibration:
            return None
        return platt_probability(scores, self.calibration["slope"], self.calibration["intercept"])

    def oof_labels(self) -> pd.DataFrame:
        """Out-of-fold verdicts as contract labels (rater = judge id + ``,cv``), with the
        similarity as ``score`` and the out-of-fold Platt probability as ``calibrated``."""
        return pd.DataFrame({
            "item_id": self.item_ids,
            "rater": f"{self.judge_id},cv",
            "rater_type": "judge",
            "label": np.where(self.oof_pred, "true", "false"),
            "score": self.scores,
            "score_source": "similarity",
            "calibrated": self.oof_prob,
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
    in_sample = data.get("in_sample") if isinstance(data.get("in_sample"), dict) else {}
    if in_sample.get("degenerate") is True:
        raise InputError(
            f"{at_field(path, 'in_sample.degenerate')}the fit judges every labelled item the same "
            "(a constant, not a judge); fit again with `judge fit` (its default objective, youden)"
        )
    # the figures besides the threshold only describe the fit; a file without them still runs
    return ThresholdFit(
        judge, threshold, data.get("n", 0), data.get("positives", 0), in_sample,
        data.get("cv", {}), judge_id=data.get("judge_id", ""), ties_left_out=data.get("ties_left_out", 0),
        objective=str(data.get("objective", "")), calibration=_calibration(path, data.get("calibration")),
    )  # fmt: skip


def _calibration(path: Path, value: Any) -> dict[str, Any] | None:
    """A fit file's ``calibration`` (absent or null: none); one-line errors for anything else."""
    if value is None:
        return None
    ok = isinstance(value, dict) and value.get("method") == "platt"
    numbers = {k: parse_number(value.get(k)) if ok and not isinstance(value.get(k), str) else None
               for k in ("slope", "intercept")}  # fmt: skip
    if not ok or None in numbers.values():
        raise InputError(
            f'{at_field(path, "calibration")}expected {{"method": "platt", "slope": <number>, '
            f'"intercept": <number>}} or null, got {json.dumps(value)[:60]}'
        )
    return {"method": "platt", **numbers}


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
    objective: Objective = DEFAULT_OBJECTIVE,
) -> ThresholdFit:
    """Fit the ``objective``-best threshold and the Platt calibration on all pairs and
    cross-validate both (see the module docstring); a constant best cut is refused.

    ``scores`` and ``truth`` are indexed by ``item_id``; items in only one are left out.
    """
    common = scores.index.intersection(truth.index)
    s = scores.loc[common].to_numpy(float)
    y = truth.loc[common].to_numpy(bool)
    found = cv_threshold(s, y, folds=folds, seed=seed, objective=objective)
    threshold, oof = found.threshold, found.oof_pred
    _refuse_constant(s >= threshold, y, threshold, objective)
    oof_prob = np.zeros(len(y))
    for train, test in found.splits:
        oof_prob[test] = platt_probability(s[test], *fit_platt(s[train], y[train]))
    cv = {"folds": folds, "seed": seed, "thresholds": found.thresholds, "constant_folds": found.constant_folds,
          **_rates(oof, y), "brier": float(np.mean((oof_prob - y) ** 2))}  # fmt: skip
    slope, intercept = fit_platt(s, y)
    in_sample = {**_rates(s >= threshold, y),
                 "brier": float(np.mean((platt_probability(s, slope, intercept) - y) ** 2))}  # fmt: skip
    return ThresholdFit(
        judge, threshold, int(len(y)), int(y.sum()), in_sample, cv, objective=objective,
        calibration={"method": "platt", "slope": slope, "intercept": intercept},
        oof_pred=oof, oof_prob=oof_prob, scores=s, item_ids=[str(i) for i in common],
    )  # fmt: skip


def _refuse_constant(pred: np.ndarray, truth: np.ndarray, threshold: float, objective: str) -> None:
    """ParameterError naming ``objective`` when the fitted cut gives every item one verdict."""
    if len(set(pred.tolist())) > 1:
        return
    why = (
        "with most items of one class F1 rewards a constant; `objective` 'youden' weighs both classes"
        if objective == "f1"
        else "the scores do not separate the human labels (Youden's J ≤ 0 at every cut)"
    )
    raise ParameterError(
        f"objective: {objective!r} gives a constant: its best threshold ({threshold:.4f}) judges all {len(pred)} labelled "
        f"items {'true' if pred[0] else 'false'} ({int(truth.sum())} of them true by the human labels): "
        f"a constant, not a judge; {why}"
    )


def fit_judge(
    spec: str,
    items: pd.DataFrame,
    labels: pd.DataFrame,
    *,
    kind: str | None = None,
    folds: int = 5,
    seed: int = 0,
    objective: Objective = DEFAULT_OBJECTIVE,
    labels_source: str | None = None,
) -> ThresholdFit:
    """Score the human-labelled items (of ``kind``) with the unfitted ``spec`` judge and fit it."""
    from wordplay_audit.judges.make import SIMILARITY, make_judge

    if spec not in SIMILARITY:
        raise ParameterError(f"judge: expected one of {', '.join(SIMILARITY)}; got {spec!r}")
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
    fit.judge_id = make_judge(spec, threshold=fit.threshold, corpus=[*refs, *cands]).judge_id
    fit.ties_left_out = ties
    fit.labels_unmatched = unmatched  # human rows naming no item of the items file (counted, said)
    fit.items_unlabelled = int(len(items if kind is None else items[items["kind"] == kind]) - len(chosen))
    return fit
