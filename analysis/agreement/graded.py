"""Agreement on graded ratings inside :func:`.summary.agreement`: ICC and Kendall's *W* when the
labels are numbers (or, for *W*, ordered categories), null with a reason otherwise."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd

from wordplay_audit.corpora.values import parse_number

from ._matrix import category_numbers, score_matrix
from .icc import ICC_FORMS, ICCResult, check_forms, icc_of_matrix
from .judge_scores import JudgeScore, judge_score_agreement
from .kendall import KendallW, kendall_w_of_matrix
from .tables import RatingTable

__all__ = ["Graded", "graded_statistics"]


@dataclass(frozen=True)
class Graded:
    """``icc`` (None with ``icc_reason``) and ``kendall_w`` (None with ``kendall_reason``)."""

    icc: ICCResult | None
    icc_reason: str | None
    kendall_w: KendallW | None
    kendall_reason: str | None
    judge_scores: dict[str, JudgeScore] | None = None
    judge_scores_reason: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """The ``icc``, ``icc_reason``, ``icc_items``, ``icc_items_left_out``, ``kendall_w`` and
        ``kendall_w_reason`` entries of ``analyze agreement --json``."""
        found = self.icc
        return {
            "icc": found.to_dict() if found is not None else None,
            "icc_reason": self.icc_reason,
            "icc_items": found.n_items if found is not None else None,
            "icc_items_left_out": found.n_left_out if found is not None else None,
            "kendall_w": self.kendall_w.to_dict() if self.kendall_w is not None else None,
            "kendall_w_reason": self.kendall_reason,
            "judge_scores": None
            if self.judge_scores is None
            else {k: v.to_dict() for k, v in self.judge_scores.items()},
            "judge_scores_reason": self.judge_scores_reason,
        }


def graded_statistics(
    table: RatingTable, *, forms: Sequence[str] | str | None = "auto", confidence: float = 0.95,
    ordered: bool = False, labels: object = None,
) -> Graded:  # fmt: skip
    """ICC in ``forms`` (``"auto"``: all six when every label is a number; None or empty: off)
    and Kendall's *W* (tie-corrected) of ``table``. *W* ranks numeric labels, or with
    ``ordered`` (an ordinal, interval or ratio level) the declared category order. With the
    labels DataFrame ``labels``, each judge's score against the people's mean label
    (:mod:`wordplay_audit.analysis.agreement.judge_scores`)."""
    if forms is None or (not isinstance(forms, str) and len(forms) == 0):
        off = "not requested (icc off)"
        return Graded(None, off, None, off, None, off)
    graded = _graded(table, forms, confidence, ordered)
    if not isinstance(labels, pd.DataFrame):
        return replace(graded, judge_scores_reason="no labels table (a prepared rating table)")
    found, reason = judge_score_agreement(labels, confidence=confidence)
    return replace(graded, judge_scores=found or None, judge_scores_reason=reason)


def _graded(table: RatingTable, forms: Sequence[str] | str, confidence: float, ordered: bool) -> Graded:
    chosen = ICC_FORMS if forms == "auto" else check_forms(forms, "icc")
    numbers = category_numbers(table.categories)
    if numbers is None:
        bad = next(str(c) for c in table.categories if parse_number(c) is None)
        icc_reason = f"labels are not numbers ({bad!r}): ICC reads numeric ratings"
        if not ordered:
            return Graded(None, icc_reason, None, f"labels are not numbers ({bad!r}) and the level is "
                          "nominal: W needs ordered labels (an ordinal level ranks the declared order)")  # fmt: skip
        matrix = score_matrix(table, numbers=np.arange(table.n_categories, dtype=float))
        return Graded(None, icc_reason, kendall_w_of_matrix(matrix), None)
    matrix = score_matrix(table, numbers=numbers)
    return Graded(icc_of_matrix(matrix, forms=chosen, confidence=confidence), None,
                  kendall_w_of_matrix(matrix), None)  # fmt: skip
