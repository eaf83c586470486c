"""Everything about one campaign's agreement in one call: :func:`agreement`."""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from wordplay_audit.errors import InputError

from ._common import UndefinedStatisticWarning, warn_undefined
from ._core import (
    LEVELS,
    ac1_functional,
    alpha_functional,
    fleiss_functional,
    linearised_se,
    per_category_functional,
    percent_agreement_functional,
    usable_patterns,
)
from .aggregation import majority_vote
from .alpha import category_values
from .bootstrap import Interval, bootstrap_intervals
from .kappa import PairwiseAgreement, pabak, pairwise_agreement, prevalence_index
from .quality import rater_quality
from .tables import RatingTable, rating_table

__all__ = ["AgreementResult", "agreement"]


@dataclass(frozen=True)
class AgreementResult:
    """Agreement of one set of ratings. ``to_dict()`` gives the JSON of ``analyze agreement``.

    ``per_category``: DataFrame indexed by category with ``kappa``, ``ci_low``, ``ci_high``,
    ``prevalence``. ``consensus``: :func:`.aggregation.majority_vote` (ties adjudicated).
    ``table``: the :class:`RatingTable` (codes of every rating), for plots.
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
    table: RatingTable

    def to_dict(self) -> dict[str, Any]:
        """Plain dict (JSON keys documented in docs/AGREEMENT.md)."""
        per_category = {
            str(cat): {
                "kappa": row.kappa,
                "ci_low": row.ci_low,
                "ci_high": row.ci_high,
                "prevalence": row.prevalence,
            }
            for cat, row in self.per_category.iterrows()
        }
        pairwise = None
        n_common = None
        if self.pairwise is not None:
            pairwise = {
                str(a): {str(b): v for b, v in row.items() if b != a}
                for a, row in self.pairwise.kappa.iterrows()
            }
            n_common = {
                str(a): {str(b): int(v) for b, v in row.items() if b != a}
                for a, row in self.pairwise.n_common.iterrows()
            }
        quality = self.rater_quality.reset_index().to_dict(orient="records")
        return {
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
            "fleiss_kappa": self.fleiss_kappa.as_dict(),
            "krippendorff_alpha": self.krippendorff_alpha.as_dict(),
            "gwet_ac1": self.gwet_ac1.as_dict(),
            "pabak": self.pabak,
            "prevalence_index": self.prevalence_index,
            "bias_index": self.bias_index,
            "per_category": per_category,
            "pairwise_cohen": pairwise,
            "pairwise_n_common": n_common,
            "rater_quality": quality,
            "consensus_ties": int(self.consensus["tie"].sum()),
        }


def _point_only(
    value: float | np.ndarray, se: float | None, confidence: float, *, categories: Sequence[str] | None = None
) -> Interval:
    """An interval without bootstrap (``n_boot`` 0): the value, nan bounds; per category when
    ``categories`` is given (``value`` then an array)."""
    if categories is None:
        nan: float | np.ndarray = float("nan")
        undefined: int | np.ndarray = 0
        extra = {}
    else:
        nan = np.full(len(categories), np.nan)
        undefined = np.zeros(len(categories), int)
        extra = {"categories": tuple(map(str, categories))}
    return Interval(
        value=value,
        ci_low=nan,
        ci_high=nan,
        method="none",
        percentile=(nan, nan),
        bca=(nan, nan),
        boot_se=nan,
        se=se,
        n_boot=0,
        n_undefined=undefined,
        confidence=confidence,
        **extra,
    )


def agreement(
    labels: pd.DataFrame | RatingTable,
    *,
    categories: Sequence[str] | None = None,
    rater_type: str | None = "human",
    level: str = "nominal",
    n_boot: int = 1000,
    seed: int | None = 0,
    confidence: float = 0.95,
    method: str = "bca",
    draws: str = "multinomial",
    gold: pd.Series | pd.DataFrame | Mapping[str, str] | None = None,
) -> AgreementResult:
    """Percent agreement, Fleiss' κ, Krippendorff's α, Gwet's AC1 (each with an item-bootstrap
    interval and, for κ and AC1, Gwet's analytic SE), per-category κ with intervals and
    prevalence, pairwise Cohen's κ, prevalence/bias indices, PABAK, rater quality and the
    majority-vote consensus.

    ``n_boot=0`` skips the bootstrap (intervals nan). The statistics are defined in
    :mod:`.kappa`, :mod:`.alpha`, :mod:`.ac1`; the intervals in :mod:`.bootstrap`.

    Undefined statistics are nan with one :class:`UndefinedStatisticWarning` each. Raises
    :class:`InputError` for an empty table, a label outside ``categories``, a duplicate
    rating, or when no item has two ratings (e.g. a single rater).
    """
    if level not in LEVELS:
        raise InputError(f"level must be one of {', '.join(LEVELS)}, got {level!r}")
    if int(n_boot) != n_boot or n_boot < 0 or n_boot == 1:
        raise InputError(f"n_boot must be 0 (no bootstrap) or a whole number ≥ 2, got {n_boot}")
    table = (
        labels
        if isinstance(labels, RatingTable)
        else rating_table(labels, categories=categories, rater_type=rater_type)
    )
    names = table.categories
    values = category_values(names, level)
    pats = usable_patterns(table.counts)
    q = table.n_categories
    stats = ("fleiss_kappa", "krippendorff_alpha", "gwet_ac1", "per_category_kappa")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedStatisticWarning)
        if n_boot:
            intervals = bootstrap_intervals(
                table.counts,
                statistics=stats,
                n_boot=n_boot,
                seed=seed,
                confidence=confidence,
                method=method,
                draws=draws,
                level=level,
                categories=list(names),
            )
        else:
            builders = {
                "fleiss_kappa": fleiss_functional(pats.patterns),
                "krippendorff_alpha": alpha_functional(pats.patterns, level=level, values=values),
                "gwet_ac1": ac1_functional(pats.patterns),
                "per_category_kappa": per_category_functional(pats.patterns),
            }
            intervals = {}
            for s, f in builders.items():
                with np.errstate(invalid="ignore", divide="ignore"):
                    v = f.evaluate(pats.freq @ f.features)
                se = None
                if s in ("fleiss_kappa", "gwet_ac1"):
                    se = linearised_se(
                        pats.patterns, pats.freq, chance="fleiss" if s == "fleiss_kappa" else "ac1"
                    )
                if s == "per_category_kappa":
                    intervals[s] = _point_only(v, None, confidence, categories=names)
                else:
                    intervals[s] = _point_only(float(v), se, confidence)
        pairwise = None
        if table.n_raters**2 * q * q <= 50_000_000:
            pairwise = pairwise_agreement(table)
    pa_f = percent_agreement_functional(pats.patterns)
    p_a = float(pa_f.evaluate(pats.freq @ pa_f.features))
    shares = pats.patterns / pats.patterns.sum(axis=1, keepdims=True)
    prevalence = (pats.freq @ shares) / pats.n_items
    for s, label in (
        ("fleiss_kappa", "Fleiss' kappa (every rating is in one category)"),
        ("krippendorff_alpha", "Krippendorff's alpha (no variation among pairable values)"),
        ("gwet_ac1", "Gwet's AC1 (fewer than two categories)"),
    ):
        if np.isnan(intervals[s].value):
            warn_undefined(f"{label} is undefined; returning nan")
    per_cat = intervals["per_category_kappa"]
    undefined = [str(c) for c, v in zip(names, per_cat.value, strict=True) if np.isnan(v)]
    if undefined and len(undefined) < q:
        warn_undefined(
            f"per-category kappa is undefined for {', '.join(undefined)} (never or always used)"
        )
    per_category = pd.DataFrame(
        {
            "kappa": per_cat.value,
            "ci_low": per_cat.ci_low,
            "ci_high": per_cat.ci_high,
            "prevalence": prevalence,
        },
        index=pd.Index([str(c) for c in names], name="category"),
    )
    bias = float("nan")
    if pairwise is not None:
        n_ab = pairwise.n_common.to_numpy().astype(float)
        b = pairwise.bias.to_numpy()
        ok = (n_ab > 0) & ~np.isnan(b)
        if ok.any():
            bias = float((b[ok] * n_ab[ok]).sum() / n_ab[ok].sum())
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
        prevalence_index=prevalence_index(prevalence),
        bias_index=bias,
        pabak=pabak(p_a, q),
        rater_quality=rater_quality(table, gold=gold),
        consensus=majority_vote(table),
        table=table,
    )
