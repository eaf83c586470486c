"""A score-producing judge against people's graded labels: rank correlations with intervals, and
ICC when the judge answers on the people's scale.

For each judge, item *i* pairs the judge's number :math:`x_i` (its ``score`` where the judge's
rows have one, else its numeric ``label``) with the people's mean graded label :math:`\\bar y_i`
(items with both; the others are counted in ``n_left_out``). Then

* Spearman's :math:`r_s` with the Fisher-*z* interval of Bonett & Wright (2000):
  :math:`\\tanh(\\operatorname{atanh} r_s \\pm z_{q}\\sqrt{(1 + r_s^2/2)/(n-3)})`;
* Kendall's :math:`\\tau_b` with the Fisher-*z* interval of Fieller, Hartley & Pearson (1957):
  :math:`\\tanh(\\operatorname{atanh}\\tau_b \\pm z_q\\sqrt{0.437/(n-4)})`;
* p-values of no association from :func:`scipy.stats.spearmanr` and :func:`scipy.stats.kendalltau`;
* when the judge's numbers are labels on the people's scale, ICC2 (absolute agreement) and ICC3
  (consistency) of the two columns judge × people's mean (:mod:`.icc`). A score on its own scale
  (a probability, a similarity) has no ICC: only ranks compare across scales.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from wordplay_audit.corpora.contract import label_scores
from wordplay_audit.corpora.values import parse_number

from ._matrix import ScoreMatrix
from .icc import icc_of_matrix

__all__ = ["JudgeScore", "judge_score_agreement", "rank_correlation"]


def rank_correlation(
    x: np.ndarray, y: np.ndarray, *, method: str, confidence: float = 0.95
) -> dict[str, Any]:
    """``{value, ci_low, ci_high, p_value, reason}`` of Spearman's (``method="spearman"``) or
    Kendall's τ-b (``"kendall"``) between ``x`` and ``y``, with its Fisher-*z* interval."""
    n = len(x)
    need = 4 if method == "spearman" else 5
    out: dict[str, Any] = {"value": None, "ci_low": None, "ci_high": None, "p_value": None, "reason": None}
    if n < need:
        out["reason"] = f"{n} items with both numbers: the interval needs {need} or more"
        return out
    if np.ptp(x) == 0 or np.ptp(y) == 0:
        out["reason"] = "one side gives every item the same number: no rank correlation"
        return out
    test = stats.spearmanr(x, y) if method == "spearman" else stats.kendalltau(x, y)
    r = float(test.statistic)
    var = (1 + r * r / 2) / (n - 3) if method == "spearman" else 0.437 / (n - 4)
    z = stats.norm.ppf(1 - (1 - confidence) / 2)
    centre = np.arctanh(np.clip(r, -1 + 1e-15, 1 - 1e-15))
    out.update(value=r, p_value=float(test.pvalue), ci_low=float(np.tanh(centre - z * np.sqrt(var))),
               ci_high=float(np.tanh(centre + z * np.sqrt(var))))  # fmt: skip
    return out


@dataclass(frozen=True)
class JudgeScore:
    """One judge against the people's mean label: ``source`` (``score`` or ``label``), ``n_items``
    paired, ``n_left_out`` judge-rated items with no numeric people's label (or no judge number),
    ``spearman`` and ``kendall_tau`` (:func:`rank_correlation`), ``icc`` (ICC2, ICC3; None with
    ``icc_reason`` for a score on its own scale)."""

    judge: str
    source: str
    n_items: int
    n_left_out: int
    spearman: dict[str, Any]
    kendall_tau: dict[str, Any]
    icc: dict[str, Any] | None
    icc_reason: str | None

    def to_dict(self) -> dict[str, Any]:
        return {"source": self.source, "items": self.n_items, "items_left_out": self.n_left_out,
                "spearman": self.spearman, "kendall_tau": self.kendall_tau, "icc": self.icc,
                "icc_reason": self.icc_reason}  # fmt: skip


def _numbers(column: pd.Series) -> np.ndarray:
    """Each value of ``column`` as a float (nan where it is not a number), one parse per distinct value."""
    codes, uniques = pd.factorize(column.astype(str).str.strip())
    parsed = np.array([np.nan if (v := parse_number(u)) is None else v for u in uniques] + [np.nan])
    return parsed[codes]  # code -1 (missing) reads the trailing nan


def _is(column: pd.Series, kind: str) -> np.ndarray:
    """Rows whose ``rater_type`` is ``kind`` (a categorical column read by its codes)."""
    if isinstance(column.dtype, pd.CategoricalDtype):
        hit = np.append(np.asarray(column.cat.categories.astype(str).str.strip() == kind), False)
        return hit[column.cat.codes.to_numpy()]  # code -1 (missing) → False
    return (column.astype(str).str.strip() == kind).to_numpy()


def _people_means(people: pd.DataFrame) -> pd.Series:
    values = _numbers(people["label"])
    frame = pd.DataFrame({"item_id": people["item_id"].astype(str).to_numpy(), "y": values})
    return frame.dropna().groupby("item_id", sort=False)["y"].mean()


def judge_score_agreement(
    labels: pd.DataFrame, *, confidence: float = 0.95
) -> tuple[dict[str, JudgeScore], str | None]:
    """Every judge of ``labels`` (rows of ``rater_type`` ``judge``) against the people's mean
    numeric label (rows ``human``), by judge; ``({}, reason)`` when there is nothing to compare."""
    is_judge = _is(labels["rater_type"], "judge")
    if not is_judge.any():  # the common case, checked on codes (no string work on millions of rows)
        return {}, "needs rows of both people (human) and a judge"
    people, judges = labels[_is(labels["rater_type"], "human")], labels[is_judge]
    if len(judges) == 0 or len(people) == 0:
        return {}, "needs rows of both people (human) and a judge"
    means = _people_means(people)
    if len(means) == 0:
        return {}, "people's labels are not numbers: a graded comparison needs numeric labels"
    out: dict[str, JudgeScore] = {}
    for name, rows in judges.groupby(judges["rater"].astype(str).to_numpy(), sort=True):
        own = label_scores(rows).to_numpy()
        source = "score" if np.isfinite(own).any() else "label"
        x = own if source == "score" else _numbers(rows["label"])
        y = means.reindex(rows["item_id"].astype(str).to_numpy()).to_numpy()
        both = np.isfinite(x) & np.isfinite(y)
        x, y = x[both], y[both]
        forms = None
        reason = "the judge's score is on its own scale: ICC needs one scale (the rank correlations do not)"
        if source == "label":
            matrix = ScoreMatrix(np.column_stack([x, y]), 0, (str(name), "people"))
            forms, reason = (
                icc_of_matrix(matrix, forms=("ICC2", "ICC3"), confidence=confidence).to_dict(),
                None,
            )
        out[str(name)] = JudgeScore(str(name), source, int(both.sum()), int((~both).sum()),
                                    rank_correlation(x, y, method="spearman", confidence=confidence),
                                    rank_correlation(x, y, method="kendall", confidence=confidence), forms, reason)  # fmt: skip
    return out, None
