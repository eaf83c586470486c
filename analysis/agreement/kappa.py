"""Fleiss' κ (overall, weighted and per category), percent agreement, Cohen's κ of a confusion
table and the kappa-paradox indices.

Input of the κ functions: a labels DataFrame (contract columns), a :class:`~.tables.RatingTable`
or a prepared count table ``(n_items, n_categories)`` (Fleiss' :math:`n_{ij}`). Items rated once
follow ``single_rated`` (see :mod:`._core`: ``"gwet"`` keeps them in the category shares,
``"drop"`` leaves them out); items never rated are left out. Undefined values are ``nan``
with an :class:`~._common.UndefinedStatisticWarning`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from ._common import RaterType, warn_undefined
from ._core import (
    Patterns,
    SingleRated,
    fleiss_functional,
    per_category_functional,
    percent_agreement_functional,
    point_statistic,
    point_value,
    prevalence,
    sample_patterns,
)
from ._variance import cohen_kappa_se, point_se
from .tables import resolve_counts
from .weights import WeightName, matrix_of

__all__ = [
    "fleiss_kappa",
    "fleiss_kappa_se",
    "per_category_kappa",
    "percent_agreement",
    "percent_agreement_se",
    "items_used",
    "cohen_kappa",
    "cohen_kappa_se",
    "prevalence_index",
    "pabak",
]


def _patterns(
    data: object, categories: Sequence[str] | None, rater_type: RaterType | None, single_rated: SingleRated
) -> tuple[Patterns, np.ndarray]:
    counts, names = resolve_counts(data, categories=categories, rater_type=rater_type)
    return sample_patterns(counts, single_rated), names


def items_used(
    data: object,
    *,
    categories: Sequence[str] | None = None,
    rater_type: RaterType | None = "human",
    single_rated: SingleRated = "gwet",
) -> tuple[int, int]:
    """``(in the sample, left out)``: items the statistics use (under ``single_rated``) and
    items they leave out (never rated; under ``"drop"`` also rated once)."""
    pats, _ = _patterns(data, categories, rater_type, single_rated)
    return pats.n_items, pats.n_dropped


def percent_agreement(
    data: object,
    *,
    weights: WeightName | object | None = None,
    categories: Sequence[str] | None = None,
    rater_type: RaterType | None = "human",
) -> float:
    """Mean pairwise agreement :math:`p_a = \\frac{1}{n'}\\sum_i \\sum_k n_{ik}(n^*_{ik}-1)/(n_i(n_i-1))`
    over the :math:`n'` items with :math:`n_i \\ge 2` — Fleiss' :math:`\\bar P` (Fleiss 1971,
    eq. 2–3); with ``weights`` the weighted agreement of Gwet (2014), :math:`n^*_{ik} =
    \\sum_l w_{kl}n_{il}` (:math:`n^* = n` unweighted)."""
    pats, names = _patterns(data, categories, rater_type, "drop")
    return float(
        point_value(pats, percent_agreement_functional(pats.patterns, matrix_of(weights, list(names))))
    )


def percent_agreement_se(
    data: object,
    *,
    weights: WeightName | object | None = None,
    categories: Sequence[str] | None = None,
    rater_type: RaterType | None = "human",
    single_rated: SingleRated = "gwet",
) -> float:
    """Standard error of :func:`percent_agreement` (R irrCAC ``pa.coeff.raw``): each item's
    agreement scaled by :math:`n/n'`, :math:`\\frac{1}{n(n-1)}\\sum_i(\\frac{n}{n'}a_i - p_a)^2`."""
    return point_se(
        data, "none", weights=weights, categories=categories, rater_type=rater_type, single_rated=single_rated
    )


def fleiss_kappa(
    data: object,
    *,
    weights: WeightName | object | None = None,
    categories: Sequence[str] | None = None,
    rater_type: RaterType | None = "human",
    single_rated: SingleRated = "gwet",
) -> float:
    """Fleiss' κ for many raters: :math:`\\kappa = (p_a - p_e)/(1 - p_e)` with :math:`p_a` the
    mean pairwise agreement over items rated twice or more (:func:`percent_agreement`),
    :math:`p_e = \\sum_{kl} w_{kl}\\pi_k\\pi_l` and :math:`\\pi_k = \\frac1n\\sum_i n_{ik}/n_i`
    over the *n* items of the sample.

    With the same number of ratings for every item and no ``weights`` this is exactly Fleiss
    (1971) and equals ``statsmodels.stats.inter_rater.fleiss_kappa``. With missing ratings it is
    Gwet's generalisation (2014, §2.3; R irrCAC ``fleiss.kappa.raw``): each item's agreement
    uses its own :math:`n_i`, and :math:`\\pi_k` averages the items' shares — under the default
    ``single_rated="gwet"`` also those of the items rated once, as irrCAC does;
    ``single_rated="drop"`` leaves those out first. ``weights``: a family of :mod:`.weights`
    (``"quadratic"``, …), a matrix or a CSV file — the weighted κ of Gwet (2014, ch. 3).

    Returns nan (with :class:`UndefinedStatisticWarning`) when :math:`p_e = 1`, i.e. every
    rating is in one category.

    Reference: Fleiss, J. L. (1971). Measuring nominal scale agreement among many raters.
    Psychological Bulletin 76(5), 378–382.
    """
    return point_statistic(
        data,
        lambda patterns, names: fleiss_functional(patterns, matrix_of(weights, list(names))),
        "Fleiss' kappa",
        categories=categories,
        rater_type=rater_type,
        single_rated=single_rated,
    )


def fleiss_kappa_se(
    data: object,
    *,
    weights: WeightName | object | None = None,
    categories: Sequence[str] | None = None,
    rater_type: RaterType | None = "human",
    single_rated: SingleRated = "gwet",
) -> float:
    """Large-sample standard error of :func:`fleiss_kappa` (not only under κ = 0).

    Gwet's linearisation, conditional on the raters (see :mod:`._variance`, as R irrCAC
    ``fleiss.kappa.raw``): :math:`\\widehat{\\mathrm{Var}}(\\kappa) = \\frac{1}{n(n-1)}\\sum_i
    (\\kappa^*_i - \\kappa)^2`, :math:`\\kappa^*_i = \\frac{n}{n'}\\frac{a_i - p_e m_i}{1-p_e}
    - 2(1-\\kappa)\\frac{p_{e|i} - p_e}{1-p_e}`, :math:`p_{e|i} = \\sum_k \\bar\\pi_{w,k} n_{ik}/n_i`.
    Reference: Gwet (2014), ch. 5.
    """
    return point_se(
        data,
        "fleiss",
        weights=weights,
        categories=categories,
        rater_type=rater_type,
        single_rated=single_rated,
    )


def per_category_kappa(
    data: object,
    *,
    categories: Sequence[str] | None = None,
    rater_type: RaterType | None = "human",
    single_rated: SingleRated = "gwet",
) -> pd.DataFrame:
    """κ of each category against all others (Fleiss 1971, eq. 13) and its prevalence.

    :math:`\\kappa_k = 1 - \\frac{\\frac{1}{n'}\\sum_i n_{ik}(n_i - n_{ik})/(n_i(n_i-1))}{\\pi_k(1-\\pi_k)}`,
    which with equal :math:`n_i = m` is Fleiss' :math:`1 - \\sum_i n_{ik}(m-n_{ik})/(Nm(m-1)p_kq_k)`
    and in general equals :func:`fleiss_kappa` of the table collapsed to "k" versus "not k"
    (same ``single_rated`` rule).

    Returns a DataFrame indexed by ``category`` with ``kappa`` and ``prevalence``
    (:math:`\\pi_k`). A category never or always used has κ nan (with a warning).
    """
    pats, names = _patterns(data, categories, rater_type, single_rated)
    f = per_category_functional(pats.patterns)
    values = point_value(pats, f)
    undefined = [str(n) for n, v in zip(names, values, strict=True) if np.isnan(v)]
    if undefined:
        warn_undefined(f"per-category kappa is undefined for {', '.join(undefined)}: {f.undefined}")
    return pd.DataFrame(
        {"kappa": values, "prevalence": prevalence(pats)}, index=pd.Index(names, name="category")
    )


def prevalence_index(prevalence: np.ndarray) -> float:
    """Prevalence index of category shares :math:`\\pi` (sum 1) over *q* categories:
    :math:`PI = \\frac{q}{2(q-1)}\\sum_k |\\pi_k - 1/q|`, 0 for uniform use, 1 when one category
    takes every rating. For two categories it is Byrt, Bishop & Carlin's (1993)
    :math:`|\\pi_1 - \\pi_2|` = :math:`|a-d|/n`."""
    pi = np.asarray(prevalence, dtype=float)
    q = pi.shape[-1]
    if q < 2:
        return float("nan")
    return float(q / (2.0 * (q - 1)) * np.abs(pi - 1.0 / q).sum(axis=-1))


def pabak(p_a: float, q: int) -> float:
    """Prevalence- and bias-adjusted κ, :math:`(q p_a - 1)/(q - 1)` (Byrt, Bishop & Carlin
    1993, for *q* = 2: :math:`2p_o - 1`): κ with chance fixed at uniform use of *q* categories."""
    if q < 2:
        return float("nan")
    return float((q * p_a - 1.0) / (q - 1.0))


def cohen_kappa(confusion: np.ndarray, weights: np.ndarray | None = None) -> np.ndarray:
    """Cohen's κ of each ``(..., K, K)`` table of counts (rater *a*'s label × rater *b*'s).

    With :math:`n = \\sum c_{kl}`: :math:`p_o = \\sum_{kl} w_{kl}c_{kl}/n`,
    :math:`p_e = \\sum_{kl} w_{kl}c_{k\\cdot}c_{\\cdot l}/n^2`, :math:`\\kappa = (p_o - p_e)/(1 - p_e)`
    (identity weights unless ``weights``, a ``(K, K)`` agreement matrix — Cohen's 1968 weighted
    κ with :math:`w = 1 -` disagreement weight); nan where the table is empty or :math:`p_e = 1`
    (one label on both sides). The one Cohen's κ of the package (pairwise tables and rater
    quality); unweighted, the margins' products are exact integers, so :math:`p_e` is rounded once.

    >>> round(float(cohen_kappa(np.array([[20, 5], [10, 15]]))), 12)  # p_o .7, p_e .5
    0.4

    Reference: Cohen, J. (1960). A coefficient of agreement for nominal scales.
    Educ. Psychol. Meas. 20, 37–46; Cohen, J. (1968). Weighted kappa. Psychol. Bull. 70, 213–220.
    """
    n = confusion.sum(axis=(-2, -1)).astype(float)
    rows, cols = confusion.sum(axis=-1), confusion.sum(axis=-2)
    with np.errstate(invalid="ignore", divide="ignore"):
        if weights is None:
            p_o = np.trace(confusion, axis1=-2, axis2=-1) / n
            p_e = (rows * cols).sum(axis=-1) / n**2
        else:
            w = np.asarray(weights, dtype=float)
            p_o = (confusion * w).sum(axis=(-2, -1)) / n
            p_e = np.einsum("...k,kl,...l->...", rows.astype(float), w, cols.astype(float)) / n**2
        return np.where((n > 0) & (p_e < 1.0), (p_o - p_e) / (1.0 - p_e), np.nan)
