"""Everything about one campaign's agreement in one call: :func:`agreement`."""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from dataclasses import replace

import numpy as np
import pandas as pd

from wordplay_audit.errors import check_choice

from ._common import LEVELS, Level, RaterType, UndefinedStatisticWarning, warn_undefined
from ._core import SINGLE_RATED, Patterns, SingleRated, prevalence, sample_patterns
from .aggregation import majority_vote
from .bootstrap import BootstrapOptions, Interval, bootstrap_intervals
from .graded import graded_statistics
from .inference import SCALE_NAMES, Scale, benchmark
from .kappa import pabak, prevalence_index
from .numbers import equal_numbers, merge_equal_numbers
from .pairwise import pairwise_agreement, pairwise_fits, pairwise_kappa, rating_pairs
from .quality import consensus_confusion, gold_labels, rater_quality
from .result import WEIGHTED_KEYS, AgreementResult
from .tables import RatingTable, as_rating_table
from .weights import WeightName, Weights, weight_matrix

__all__ = ["AgreementResult", "agreement"]

_STATISTICS = (
    "percent_agreement",
    "fleiss_kappa",
    "krippendorff_alpha",
    "gwet_ac1",
    "brennan_prediger",
    "conger_kappa",
    "light_kappa",
    "per_category_kappa",
)
_UNDEFINED = (
    ("fleiss_kappa", "Fleiss' kappa"),
    ("krippendorff_alpha", "Krippendorff's alpha"),
    ("gwet_ac1", "Gwet's AC1"),
    ("brennan_prediger", "the Brennan-Prediger coefficient"),
    ("conger_kappa", "Conger's kappa"),
    ("light_kappa", "Light's kappa"),
    ("gwet_ac2", "Gwet's AC2"),
    ("fleiss_kappa_weighted", "weighted Fleiss' kappa"),
    ("conger_kappa_weighted", "weighted Conger's kappa"),
    ("brennan_prediger_weighted", "the weighted Brennan-Prediger coefficient"),
)


def _warn_undefined(intervals: dict[str, Interval], names: np.ndarray) -> None:
    """One :class:`UndefinedStatisticWarning` per undefined statistic (per-category κ only
    when some, not all, categories are undefined)."""
    for s, label in _UNDEFINED:
        if s in intervals and np.isnan(intervals[s].value):
            warn_undefined(f"{label} is undefined ({intervals[s].reason}); returning nan", stacklevel=4)
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


def _benchmarked(intervals: dict[str, Interval], scale: str | None) -> dict[str, Interval]:
    """Each scalar interval with its :class:`~.inference.Benchmark` on ``scale``."""
    if scale is None:
        return intervals
    return {
        s: v if s == "per_category_kappa" else replace(v, benchmark=benchmark(float(v.value), v.se, scale))  # type: ignore[arg-type]
        for s, v in intervals.items()
    }


def _prepared(labels, categories, rater_type, level) -> tuple[RatingTable, dict]:
    """The rating table, with labels equal as numbers merged at a numeric level."""
    table = as_rating_table(labels, categories=categories, rater_type=rater_type)
    if level == "nominal":  # a label is a name: "1" and "1.0" stay apart, and are listed
        return table, equal_numbers(table.categories)
    return merge_equal_numbers(table)  # a label is a number: names equal as numbers are one category


def agreement(  # noqa: PLR0913 (one keyword per option of the analysis)
    labels: pd.DataFrame | RatingTable,
    *,
    categories: Sequence[str] | None = None,
    rater_type: RaterType | None = "human",
    level: Level = "nominal",
    bootstrap: BootstrapOptions | None = None,
    gold: pd.Series | pd.DataFrame | Mapping[str, str] | None = None,
    weights: WeightName | object | None = None,
    benchmark: Scale | None = None,
    single_rated: SingleRated = "gwet",
    icc: Sequence[str] | str | None = "auto",
) -> AgreementResult:
    """Percent agreement, Fleiss' κ, Krippendorff's α, Gwet's AC1, Brennan–Prediger, Conger's
    κ and Light's κ, each with an item-bootstrap interval, Gwet's analytic SE, the t test of
    θ = 0 and the Wald/t interval; per-category κ with intervals and prevalence, pairwise
    Cohen's κ with SEs, prevalence/bias indices, PABAK, rater quality and the majority-vote
    consensus.

    ``weights`` (a family of :mod:`.weights`, a *q* × *q* matrix or a CSV file) adds Gwet's
    AC2 and the weighted Fleiss', Conger's and Brennan–Prediger coefficients
    (:data:`~.result.WEIGHTED_KEYS`) and the weighted pairwise Cohen's κ. ``benchmark``
    (``"landis-koch"``, ``"fleiss"``, ``"altman"``) adds Gwet's probabilistic benchmarking to
    every coefficient (:func:`.inference.benchmark`). ``single_rated``: ``"gwet"`` keeps the
    items rated once in the category shares and in *n* (Gwet 2014, irrCAC), ``"drop"`` leaves
    them out (:mod:`._core`). ``icc``: ICC forms, Kendall's *W* and judges' scores vs people
    (:func:`.graded.graded_statistics`; ``"auto"``: all six ICC forms for numeric labels; None: off).

    ``bootstrap``: :class:`~.bootstrap.BootstrapOptions` (default 1,000 resamples, seed 0,
    95 % BCa); ``BootstrapOptions(n_boot=0)`` skips the bootstrap (intervals nan). The rating
    pairs are joined once and shared by the pairwise tables and rater quality.

    With ``gold``, its rows naming no item of the table (e.g. of another kind) are left out of
    the honeypot accuracy and counted (``gold_unmatched``). At a numeric ``level`` labels equal
    as numbers (``1``, ``1.0``, ``01``) are one category; at the nominal level they stay apart
    and are listed (``labels_equal_as_numbers``).

    Undefined statistics are nan with one :class:`UndefinedStatisticWarning` each and a reason
    (``reason``/``ci_reason`` of the intervals, ``*_reason`` in ``to_dict()``). Raises
    :class:`InputError` for an empty table, a label outside ``categories``, a duplicate
    rating, or when no item has two ratings (e.g. a single rater);
    :class:`~wordplay_audit.errors.ParameterError` for a bad option.
    """
    check_choice("level", level, LEVELS)
    check_choice("single_rated", single_rated, SINGLE_RATED)
    if benchmark is not None:
        check_choice("benchmark", benchmark, SCALE_NAMES)
    options = bootstrap if bootstrap is not None else BootstrapOptions()
    table, equal = _prepared(labels, categories, rater_type, level)
    names = table.categories
    checked = weight_matrix(weights, list(names)) if weights is not None else None
    pats = sample_patterns(table.counts, single_rated)
    pairs = rating_pairs(table)
    statistics = _STATISTICS + (WEIGHTED_KEYS if checked is not None else ())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedStatisticWarning)
        intervals = bootstrap_intervals(
            table,
            statistics=statistics,
            bootstrap=options,
            level=level,
            weights=checked,
            single_rated=single_rated,
        )
        fits = pairwise_fits(table.n_raters, table.n_categories)
        pairwise = pairwise_agreement(table, pairs=pairs) if fits else None
    _warn_undefined(intervals, names)
    intervals = _benchmarked(intervals, benchmark)
    per_category = _per_category(intervals["per_category_kappa"], pats, names)
    consensus = majority_vote(table)
    truth = gold_labels(gold) if gold is not None else None
    p_a = float(intervals["percent_agreement"].value)
    return AgreementResult(
        n_items=table.n_items,
        n_items_used=pats.n_multi,
        n_items_single=pats.n_single,
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
        single_rated=single_rated,
        benchmark=benchmark,
        graded=_graded(table, labels, icc, level, options.confidence),
        **_added(intervals, pairwise, checked, options.confidence),
    )


def _graded(table: RatingTable, labels: object, icc, level: str, confidence: float):
    """ICC, Kendall's W and judges' scores (:func:`.graded.graded_statistics`)."""
    return graded_statistics(
        table, forms=icc, confidence=confidence, ordered=level != "nominal", labels=labels
    )


def _added(intervals: dict[str, Interval], pairwise, checked: Weights | None, confidence: float) -> dict:
    """The fields of the coefficients beyond κ, α and AC1: intervals, weights, pairwise tests."""
    weighted = None
    if pairwise is not None and checked is not None:
        weighted = pairwise_kappa(pairwise, checked.matrix, name=checked.name, confidence=confidence)
    return {
        "percent_agreement_interval": intervals["percent_agreement"],
        "brennan_prediger": intervals["brennan_prediger"],
        "conger_kappa": intervals["conger_kappa"],
        "light_kappa": intervals["light_kappa"],
        "weighted": {key: intervals[key] for key in WEIGHTED_KEYS if key in intervals},
        "weights": checked,
        "pairwise_kappa": pairwise_kappa(pairwise, confidence=confidence) if pairwise is not None else None,
        "pairwise_weighted": weighted,
    }
