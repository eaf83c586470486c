"""Everything about one campaign's agreement in one call: :func:`agreement`."""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from wordplay_audit.errors import check_choice

from ._common import LEVELS, Level, RaterType, UndefinedStatisticWarning, warn_undefined
from ._core import Patterns, percent_agreement_functional, point_value, prevalence, usable_patterns
from .aggregation import majority_vote
from .bootstrap import BootstrapOptions, Interval, bootstrap_intervals
from .kappa import (
    PairwiseAgreement,
    pabak,
    pairwise_agreement,
    pairwise_fits,
    prevalence_index,
    rating_pairs,
)
from .numbers import equal_numbers, merge_equal_numbers
from .quality import consensus_confusion, gold_labels, rater_quality
from .reasons import index_reason
from .tables import RatingTable, as_rating_table

__all__ = ["AgreementResult", "agreement"]

_STATISTICS = ("fleiss_kappa", "krippendorff_alpha", "gwet_ac1", "per_category_kappa")
_UNDEFINED = (
    ("fleiss_kappa", "Fleiss' kappa (every rating is in one category)"),
    ("krippendorff_alpha", "Krippendorff's alpha (no variation among pairable values)"),
    ("gwet_ac1", "Gwet's AC1 (fewer than two categories)"),
)


@dataclass(frozen=True)
class AgreementResult:
    """Agreement of one set of ratings. ``to_dict()`` gives the JSON of ``analyze agreement``.

    ``per_category``: DataFrame indexed by category with ``kappa``, ``ci_low``, ``ci_high``,
    ``prevalence``. ``consensus``: :func:`.majority.majority_vote` (ties adjudicated).
    ``consensus_confusion``: ``(R, K, K)`` counts of consensus label × each rater's label
    (:func:`.quality.consensus_confusion`). ``table``: the :class:`RatingTable` (codes of every
    rating).
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

    def to_dict(self) -> dict[str, Any]:
        """Plain dict (JSON keys documented in docs/AGREEMENT.md)."""
        per_category = {
            str(cat): {
                "kappa": row.kappa,
                "reason": row.reason,
                "ci_low": row.ci_low,
                "ci_high": row.ci_high,
                "ci_reason": row.ci_reason,
                "prevalence": row.prevalence,
            }
            for cat, row in self.per_category.iterrows()
        }
        pairwise = self.pairwise.to_dict() if self.pairwise is not None else {}
        out = {
            "items": self.n_items,
            "items_used": self.n_items_used,
            "items_single_rating": self.n_items_single,
            "ratings": self.n_ratings,
            "raters": len(self.raters),
            "rater_names": list(self.raters),
            "rater_type": self.rater_type or "all",
            "categories": list(self.categories),
            "level": self.level,
            "percent_agreement": self.percent_agreement,
            "fleiss_kappa": self.fleiss_kappa.to_dict(),
            "krippendorff_alpha": self.krippendorff_alpha.to_dict(),
            "gwet_ac1": self.gwet_ac1.to_dict(),
            "pabak": self.pabak,
            "pabak_reason": index_reason(len(self.categories)),
            "prevalence_index": self.prevalence_index,
            "prevalence_index_reason": index_reason(len(self.categories)),
            "bias_index": self.bias_index,
            "bias_index_reason": _bias_reason(self),
            "per_category": per_category,
            "pairwise_cohen": pairwise.get("kappa"),
            "pairwise_n_common": pairwise.get("n_common"),
            "rater_quality": self.rater_quality.reset_index().to_dict(orient="records"),
            "consensus_ties": int(self.consensus["tie"].sum()),
        }
        if self.gold_rows is not None:
            out.update(gold_rows=self.gold_rows, gold_unmatched=self.gold_unmatched)
        out["labels_equal_as_numbers"] = self.equal_as_numbers or {}
        out["labels_equal_as_numbers_merged"] = self.merged_numbers
        return out


def _bias_reason(result: AgreementResult) -> str | None:
    """Why the bias index is nan (None when it is not)."""
    if result.bias_index == result.bias_index:
        return None
    if result.pairwise is None:
        return "no pairwise table (too many raters × categories)"
    return "no two raters rated a common item"


def _warn_undefined(intervals: dict[str, Interval], names: np.ndarray) -> None:
    """One :class:`UndefinedStatisticWarning` per undefined statistic (per-category κ only
    when some, not all, categories are undefined)."""
    for s, label in _UNDEFINED:
        if np.isnan(intervals[s].value):
            warn_undefined(f"{label} is undefined; returning nan", stacklevel=4)
    values = intervals["per_category_kappa"].value
    undefined = [str(c) for c, v in zip(names, values, strict=True) if np.isnan(v)]
    if undefined and len(undefined) < len(names):
        warn_undefined(
            f"per-category kappa is undefined for {', '.join(undefined)} (never or always used)",
            stacklevel=4,
        )


def _per_category(per_cat: Interval, pats: Patterns, names: np.ndarray) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "kappa": per_cat.value,
            "reason": list(per_cat.reason),
            "ci_low": per_cat.ci_low,
            "ci_high": per_cat.ci_high,
            "ci_reason": list(per_cat.ci_reason),
            "prevalence": prevalence(pats),
        },
        index=pd.Index([str(c) for c in names], name="category"),
    )


def agreement(
    labels: pd.DataFrame | RatingTable,
    *,
    categories: Sequence[str] | None = None,
    rater_type: RaterType | None = "human",
    level: Level = "nominal",
    bootstrap: BootstrapOptions | None = None,
    gold: pd.Series | pd.DataFrame | Mapping[str, str] | None = None,
) -> AgreementResult:
    """Percent agreement, Fleiss' κ, Krippendorff's α, Gwet's AC1 (each with an item-bootstrap
    interval and, for κ and AC1, Gwet's analytic SE), per-category κ with intervals and
    prevalence, pairwise Cohen's κ, prevalence/bias indices, PABAK, rater quality and the
    majority-vote consensus.

    ``bootstrap``: :class:`~.bootstrap.BootstrapOptions` (default 1,000 resamples, seed 0,
    95 % BCa); ``BootstrapOptions(n_boot=0)`` skips the bootstrap (intervals nan). The
    statistics are defined in :mod:`.kappa`, :mod:`.alpha`, :mod:`.ac1`; the intervals in
    :mod:`.bootstrap`. The rating pairs are joined once and shared by the pairwise tables and
    rater quality.

    With ``gold``, its rows naming no item of the table (e.g. of another kind) are left out of
    the honeypot accuracy and counted (``gold_unmatched``).

    At a numeric ``level`` labels equal as numbers (``1``, ``1.0``, ``01``) are one category; at
    the nominal level they stay apart and are listed (``labels_equal_as_numbers``).

    Undefined statistics are nan with one :class:`UndefinedStatisticWarning` each and a reason
    (``reason``/``ci_reason`` of the intervals, ``*_reason`` in ``to_dict()``). Raises
    :class:`InputError` for an empty table, a label outside ``categories``, a duplicate
    rating, or when no item has two ratings (e.g. a single rater);
    :class:`~wordplay_audit.errors.ParameterError` for a bad option.
    """
    check_choice("level", level, LEVELS)
    options = bootstrap if bootstrap is not None else BootstrapOptions()
    table = as_rating_table(labels, categories=categories, rater_type=rater_type)
    if level == "nominal":  # a label is a name: "1" and "1.0" stay apart, and are listed
        equal = equal_numbers(table.categories)
    else:  # a label is a number: names equal as numbers are one category
        table, equal = merge_equal_numbers(table)
    names = table.categories
    pats = usable_patterns(table.counts)
    pairs = rating_pairs(table)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedStatisticWarning)
        intervals = bootstrap_intervals(
            table.counts,
            statistics=_STATISTICS,
            bootstrap=options,
            level=level,
            categories=list(names),
        )
        fits = pairwise_fits(table.n_raters, table.n_categories)
        pairwise = pairwise_agreement(table, pairs=pairs) if fits else None
    _warn_undefined(intervals, names)
    p_a = float(point_value(pats, percent_agreement_functional(pats.patterns)))
    per_category = _per_category(intervals["per_category_kappa"], pats, names)
    consensus = majority_vote(table)
    truth = gold_labels(gold) if gold is not None else None
    return AgreementResult(
        n_items=table.n_items,
        n_items_used=pats.n_items,
        n_items_single=pats.n_dropped,
        n_ratings=int(len(table.label)),
        raters=tuple(str(r) for r in table.raters),
        categories=tuple(str(c) for c in names),
        rater_type=rater_type,
        level=level,
        percent_agreement=p_a,
        fleiss_kappa=intervals["fleiss_kappa"],
        krippendorff_alpha=intervals["krippendorff_alpha"],
        gwet_ac1=intervals["gwet_ac1"],
        per_category=per_category,
        pairwise=pairwise,
        prevalence_index=prevalence_index(per_category["prevalence"].to_numpy()),
        bias_index=pairwise.bias_index() if pairwise is not None else float("nan"),
        pabak=pabak(p_a, table.n_categories),
        rater_quality=rater_quality(table, gold=gold, pairs=pairs),
        consensus=consensus,
        consensus_confusion=consensus_confusion(table, consensus),
        table=table,
        gold_rows=None if truth is None else len(truth),
        gold_unmatched=None if truth is None else int((~truth.index.isin(table.item_ids)).sum()),
        equal_as_numbers=equal,
        merged_numbers=bool(equal) and level != "nominal",
    )
