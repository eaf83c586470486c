"""The result of :func:`.summary.agreement`: :class:`AgreementResult` and its ``to_dict()``
(the JSON of ``analyze agreement``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from .graded import Graded
from .intervals import Interval
from .pairwise import PairwiseAgreement, PairwiseKappa
from .reasons import index_reason
from .tables import RatingTable
from .weights import Weights

__all__ = ["AgreementResult", "WEIGHTED_KEYS"]

#: The weighted statistics of a result, by name.
WEIGHTED_KEYS = ("gwet_ac2", "fleiss_kappa_weighted", "conger_kappa_weighted", "brennan_prediger_weighted")
"""The weighted coefficients of ``agreement(weights=…)``, in JSON order."""


@dataclass(frozen=True)
class AgreementResult:
    """Agreement of one set of ratings. ``to_dict()`` gives the JSON of ``analyze agreement``.

    ``n_items_used``: items rated twice or more (they carry agreement); ``n_items_single``:
    items rated once, kept in the category shares and in *n* under ``single_rated="gwet"``,
    left out under ``"drop"``. ``per_category``: DataFrame indexed by category with ``kappa``,
    ``ci_low``, ``ci_high``, ``prevalence``. ``weighted``: the :data:`WEIGHTED_KEYS` intervals
    (empty without ``weights``); ``pairwise_kappa`` / ``pairwise_weighted``: Cohen's κ of every
    rater pair with SE and test, unweighted / weighted. ``consensus``:
    :func:`.aggregation.majority_vote` (ties adjudicated). ``consensus_confusion``: ``(R, K,
    K)`` counts of consensus label × each rater's label. ``table``: the :class:`RatingTable`.
    ``graded``: ICC forms and Kendall's *W* (:class:`.graded.Graded`).
    """

    n_items: int
    n_items_used: int
    n_items_single: int
    n_ratings: int
    raters: tuple[str, ...]
    categories: tuple[str, ...]
    rater_type: str | None
    level: str
    percent_agreement: float
    fleiss_kappa: Interval
    krippendorff_alpha: Interval
    gwet_ac1: Interval
    per_category: pd.DataFrame
    pairwise: PairwiseAgreement | None
    prevalence_index: float
    bias_index: float
    pabak: float
    rater_quality: pd.DataFrame
    consensus: pd.DataFrame
    consensus_confusion: np.ndarray
    table: RatingTable
    gold_rows: int | None = None  # with gold: its rows, and those naming no item of the table
    gold_unmatched: int | None = None
    equal_as_numbers: dict[str, list[str]] | None = None  # labels equal as numbers (numbers.py)
    merged_numbers: bool = False  # … merged into one category (numeric levels)
    single_rated: str = "gwet"
    percent_agreement_interval: Interval | None = None
    brennan_prediger: Interval | None = None
    conger_kappa: Interval | None = None
    light_kappa: Interval | None = None
    weighted: dict[str, Interval] = field(default_factory=dict)
    weights: Weights | None = None
    pairwise_kappa: PairwiseKappa | None = None
    pairwise_weighted: PairwiseKappa | None = None
    benchmark: str | None = None
    graded: Graded | None = None  # ICC and Kendall's W (graded.py)

    def to_dict(self) -> dict[str, Any]:
        """Plain dict (JSON keys documented in docs/AGREEMENT.md)."""
        pairwise = self.pairwise.to_dict() if self.pairwise is not None else {}
        out = {
            "items": self.n_items,
            "items_used": self.n_items_used,
            "items_single_rating": self.n_items_single,
            "single_rated": self.single_rated,
            "ratings": self.n_ratings,
            "raters": len(self.raters),
            "rater_names": list(self.raters),
            "rater_type": self.rater_type or "all",
            "categories": list(self.categories),
            "level": self.level,
            "percent_agreement": self.percent_agreement,
            "percent_agreement_interval": _entry(self.percent_agreement_interval),
            "fleiss_kappa": self.fleiss_kappa.to_dict(),
            "krippendorff_alpha": self.krippendorff_alpha.to_dict(),
            "gwet_ac1": self.gwet_ac1.to_dict(),
            "brennan_prediger": _entry(self.brennan_prediger),
            "conger_kappa": _entry(self.conger_kappa),
            "light_kappa": _entry(self.light_kappa),
            "pabak": self.pabak,
            "pabak_reason": index_reason(len(self.categories)),
            "prevalence_index": self.prevalence_index,
            "prevalence_index_reason": index_reason(len(self.categories)),
            "bias_index": self.bias_index,
            "bias_index_reason": _bias_reason(self),
            "per_category": _per_category_dict(self.per_category),
            "pairwise_cohen": pairwise.get("kappa"),
            "pairwise_n_common": pairwise.get("n_common"),
            "cohen_kappa": self.pairwise_kappa.to_dict() if self.pairwise_kappa is not None else None,
            "rater_quality": self.rater_quality.reset_index().to_dict(orient="records"),
            "consensus_ties": int(self.consensus["tie"].sum()),
            "benchmark_scale": self.benchmark,
        }
        if self.weights is not None:
            out["weights"] = self.weights.to_dict()
            out.update({key: self.weighted[key].to_dict() for key in WEIGHTED_KEYS})
            pw = self.pairwise_weighted
            out["cohen_kappa_weighted"] = pw.to_dict() if pw is not None else None
        if self.gold_rows is not None:
            out.update(gold_rows=self.gold_rows, gold_unmatched=self.gold_unmatched)
        if self.graded is not None:
            out.update(self.graded.to_dict())
        out["labels_equal_as_numbers"] = self.equal_as_numbers or {}
        out["labels_equal_as_numbers_merged"] = self.merged_numbers
        return out


def _entry(interval: Interval | None) -> dict[str, Any] | None:
    return interval.to_dict() if interval is not None else None


def _per_category_dict(frame: pd.DataFrame) -> dict[str, dict[str, Any]]:
    return {
        str(cat): {
            "kappa": row.kappa,
            "reason": row.reason,
            "ci_low": row.ci_low,
            "ci_high": row.ci_high,
            "ci_reason": row.ci_reason,
            "prevalence": row.prevalence,
        }
        for cat, row in frame.iterrows()
    }


def _bias_reason(result: AgreementResult) -> str | None:
    """Why the bias index is nan (None when it is not)."""
    if result.bias_index == result.bias_index:
        return None
    if result.pairwise is None:
        return "no pairwise table (too many raters × categories)"
    return "no two raters rated a common item"
