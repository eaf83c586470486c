"""Fleiss' κ (overall and per category), percent agreement and pairwise Cohen's κ.

Input of the κ functions: a labels DataFrame (contract columns), a :class:`~.tables.RatingTable`
or a prepared count table ``(n_items, n_categories)`` (Fleiss' :math:`n_{ij}`). Items with fewer
than two ratings are left out (see :func:`items_used`). Undefined values are ``nan`` with an
:class:`~._common.UndefinedStatisticWarning`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from wordplay_audit.errors import InputError

from ._common import MAX_PAIRWISE_CELLS, RaterType, warn_undefined
from ._core import (
    Patterns,
    fleiss_functional,
    per_category_functional,
    percent_agreement_functional,
    point_se,
    point_statistic,
    point_value,
    prevalence,
    usable_patterns,
)
from .tables import RatingTable, as_rating_table, resolve_counts

__all__ = [
    "fleiss_kappa",
    "fleiss_kappa_se",
    "per_category_kappa",
    "percent_agreement",
    "items_used",
    "PairwiseAgreement",
    "RatingPairs",
    "rating_pairs",
    "pairwise_agreement",
    "pairwise_fits",
    "cohen_kappa",
    "cohen_kappa_matrix",
    "prevalence_index",
    "pabak",
]


def _patterns(
    data: object, categories: Sequence[str] | None, rater_type: RaterType | None
) -> tuple[Patterns, np.ndarray]:
    counts, names = resolve_counts(data, categories=categories, rater_type=rater_type)
    return usable_patterns(counts), names


def items_used(
    data: object,
    *,
    categories: Sequence[str] | None = None,
    rater_type: RaterType | None = "human",
) -> tuple[int, int]:
    """``(used, dropped)``: items with at least two ratings, and items with one (left out)."""
    pats, _ = _patterns(data, categories, rater_type)
    return pats.n_items, pats.n_dropped


def percent_agreement(
    data: object,
    *,
    categories: Sequence[str] | None = None,
    rater_type: RaterType | None = "human",
) -> float:
    """Mean pairwise agreement :math:`p_a = \\frac1n\\sum_i \\sum_k n_{ik}(n_{ik}-1)/(n_i(n_i-1))`
    over items with :math:`n_i \\ge 2` — Fleiss' :math:`\\bar P` (Fleiss 1971, eq. 2–3)."""
    pats, _ = _patterns(data, categories, rater_type)
    return float(point_value(pats, percent_agreement_functional(pats.patterns)))


def fleiss_kappa(
    data: object,
    *,
    categories: Sequence[str] | None = None,
    rater_type: RaterType | None = "human",
) -> float:
    """Fleiss' κ for many raters, nominal categories.

    :math:`\\kappa = (p_a - p_e)/(1 - p_e)` with :math:`p_a` the mean pairwise agreement
    (:func:`percent_agreement`), :math:`p_e = \\sum_k \\pi_k^2` and
    :math:`\\pi_k = \\frac1n\\sum_i n_{ik}/n_i`.

    With the same number of ratings :math:`m` for every item this is exactly Fleiss (1971)
    (:math:`\\pi_k = \\sum_i n_{ik}/(nm)`) and equals ``statsmodels.stats.inter_rater.fleiss_kappa``.
    When the numbers differ (missing ratings) it is the generalisation of Gwet (2014, Handbook of
    Inter-Rater Reliability, §2.3; irrCAC ``fleiss.kappa.raw``): each item's agreement uses its
    own :math:`n_i`, and :math:`\\pi_k` averages the items' shares. Items with one rating are
    left out.

    Returns nan (with :class:`UndefinedStatisticWarning`) when :math:`p_e = 1`, i.e. every
    rating is in one category.

    Reference: Fleiss, J. L. (1971). Measuring nominal scale agreement among many raters.
    Psychological Bulletin 76(5), 378–382.
    """
    return point_statistic(
        data,
        lambda patterns, _: fleiss_functional(patterns),
        "Fleiss' kappa",
        categories=categories,
        rater_type=rater_type,
    )


def fleiss_kappa_se(
    data: object,
    *,
    categories: Sequence[str] | None = None,
    rater_type: RaterType | None = "human",
) -> float:
    """Large-sample standard error of :func:`fleiss_kappa` (not only under κ = 0).

    Gwet's linearisation, conditional on the raters (see :func:`._core.linearised_se`):
    :math:`\\widehat{\\mathrm{Var}}(\\kappa) = \\frac{1}{n(n-1)}\\sum_i (\\kappa^*_i - \\kappa)^2`,
    :math:`\\kappa^*_i = \\frac{a_i - p_e}{1-p_e} - 2(1-\\kappa)\\frac{p_{e|i} - p_e}{1-p_e}`,
    :math:`p_{e|i} = \\sum_k \\pi_k n_{ik}/n_i`. Reference: Gwet (2014), ch. 5.
    """
    return point_se(data, "fleiss", categories=categories, rater_type=rater_type)


def per_category_kappa(
    data: object,
    *,
    categories: Sequence[str] | None = None,
    rater_type: RaterType | None = "human",
) -> pd.DataFrame:
    """κ of each category against all others (Fleiss 1971, eq. 13) and its prevalence.

    :math:`\\kappa_k = 1 - \\frac{\\sum_i n_{ik}(n_i - n_{ik})/(n_i(n_i-1))}{n\\,\\pi_k(1-\\pi_k)}`,
    which with equal :math:`n_i = m` is Fleiss' :math:`1 - \\sum_i n_{ik}(m-n_{ik})/(Nm(m-1)p_kq_k)`
    and in general equals Fleiss' κ of the table collapsed to "k" versus "not k".

    Returns a DataFrame indexed by ``category`` with ``kappa`` and ``prevalence``
    (:math:`\\pi_k`). A category never or always used has κ nan (with a warning).
    """
    pats, names = _patterns(data, categories, rater_type)
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


def cohen_kappa(confusion: np.ndarray) -> np.ndarray:
    """Cohen's κ of each ``(..., K, K)`` table of counts (rater *a*'s label × rater *b*'s).

    With :math:`n = \\sum c_{kl}`: :math:`p_o = \\sum_k c_{kk}/n`,
    :math:`p_e = \\sum_k c_{k\\cdot}c_{\\cdot k}/n^2`, :math:`\\kappa = (p_o - p_e)/(1 - p_e)`;
    nan where the table is empty or :math:`p_e = 1` (one label on both sides). The one Cohen's
    κ of the package (pairwise tables and rater quality); the margins' products are exact
    integers, so :math:`p_e` is rounded once.

    >>> round(float(cohen_kappa(np.array([[20, 5], [10, 15]]))), 12)  # p_o .7, p_e .5
    0.4

    Reference: Cohen, J. (1960). A coefficient of agreement for nominal scales.
    Educ. Psychol. Meas. 20, 37–46.
    """
    n = confusion.sum(axis=(-2, -1)).astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        p_o = np.trace(confusion, axis1=-2, axis2=-1) / n
        p_e = (confusion.sum(axis=-1) * confusion.sum(axis=-2)).sum(axis=-1) / n**2
        return np.where((n > 0) & (p_e < 1.0), (p_o - p_e) / (1.0 - p_e), np.nan)


def _rater_frame(values: np.ndarray, raters: np.ndarray) -> pd.DataFrame:
    index = pd.Index(raters, name="rater")
    return pd.DataFrame(values, index=index, columns=index.rename("other"))


def _off_diagonal(frame: pd.DataFrame, cast: type = float) -> dict[str, dict[str, Any]]:
    return {str(a): {str(b): cast(v) for b, v in row.items() if b != a} for a, row in frame.iterrows()}


@dataclass(frozen=True)
class PairwiseAgreement:
    """Rater × rater tables (DataFrames indexed and columned by rater; diagonal nan).

    ``kappa``: Cohen's κ on the items both rated; ``n_common``: those items;
    ``agreement``: share of them with the same label; ``bias``: Byrt et al.'s bias index
    generalised as :math:`\\frac12\\sum_k |p_{a,k} - p_{b,k}|` (the two raters' label shares on
    the common items; :math:`|b-c|/n` for two categories); ``confusion``: array
    ``(R, R, K, K)`` of counts, ``confusion[a, b, k, l]`` = items rater *a* put in *k* and *b* in *l*.
    """

    kappa: pd.DataFrame
    n_common: pd.DataFrame
    agreement: pd.DataFrame
    bias: pd.DataFrame
    confusion: np.ndarray

    def to_dict(self) -> dict[str, Any]:
        """``{kappa, n_common, agreement, bias}``, each ``{rater: {other rater: value}}``
        (diagonal left out); ``kappa`` and ``n_common`` are the CLI's ``pairwise_cohen`` and
        ``pairwise_n_common``."""
        return {
            "kappa": _off_diagonal(self.kappa),
            "n_common": _off_diagonal(self.n_common, int),
            "agreement": _off_diagonal(self.agreement),
            "bias": _off_diagonal(self.bias),
        }

    def bias_index(self) -> float:
        """Overlap-weighted mean over rater pairs of the bias index (nan when no pair has a
        common item)."""
        n_ab = self.n_common.to_numpy().astype(float)
        b = self.bias.to_numpy()
        ok = (n_ab > 0) & ~np.isnan(b)
        if not ok.any():
            return float("nan")
        return float((b[ok] * n_ab[ok]).sum() / n_ab[ok].sum())


class RatingPairs(NamedTuple):
    """Every unordered pair of ratings of the same item once (arrays of equal length)."""

    rater_a: np.ndarray
    rater_b: np.ndarray
    label_a: np.ndarray
    label_b: np.ndarray


def rating_pairs(table: RatingTable) -> RatingPairs:
    """Every unordered pair of ratings of the same item, once (which rater comes first is
    arbitrary); :math:`\\sum_i n_i(n_i-1)/2` pairs from one vectorised self-join, no Python
    loop. Compute once and pass to :func:`pairwise_agreement` and
    :func:`.quality.rater_quality` (``pairs=``)."""
    item = table.item
    if len(item) > 1 and (np.diff(item) < 0).any():
        order = np.argsort(item, kind="stable")
        item, rater, label = item[order], table.rater[order], table.label[order]
    else:
        rater, label = table.rater, table.label
    # small integer types keep the pairs of millions of ratings within memory (issue 13)
    rater = rater.astype(np.min_scalar_type(max(table.n_raters - 1, 0)))
    label = label.astype(np.min_scalar_type(max(table.n_categories - 1, 0)))
    index = np.int32 if len(item) < 2**31 - 1 else np.int64
    sizes = np.bincount(item, minlength=table.n_items).astype(index)
    starts = np.cumsum(sizes, dtype=np.int64) - sizes
    partners = (sizes[item] - 1 - (np.arange(len(item), dtype=np.int64) - starts[item])).astype(index)
    ends = np.cumsum(partners, dtype=np.int64)
    total = int(ends[-1]) if len(ends) else 0
    index = np.int32 if total < 2**31 - 1 else np.int64
    first = np.repeat(np.arange(len(item), dtype=index), partners)
    second = first + 1
    second += (np.arange(total, dtype=index) - np.repeat((ends - partners).astype(index), partners)).astype(
        index
    )
    return RatingPairs(rater[first], rater[second], label[first], label[second])


def pairwise_fits(n_raters: int, n_categories: int) -> bool:
    """Whether the ``(R, R, K, K)`` pairwise confusion array stays within
    :data:`~._common.MAX_PAIRWISE_CELLS`."""
    return n_raters * n_raters * n_categories * n_categories <= MAX_PAIRWISE_CELLS


def _pair_confusion(table: RatingTable, pairs: RatingPairs) -> np.ndarray:
    """``(R, R, K, K)`` counts, each pair counted from both sides."""
    r, k = table.n_raters, table.n_categories
    ra, rb, la, lb = pairs
    code = ra.astype(np.int64 if r * r * k * k >= 2**31 else np.int32)  # one array, updated in place
    for factor, part in ((r, rb), (k, la), (k, lb)):
        code *= factor
        code += part
    cells = np.bincount(code, minlength=r * r * k * k)
    confusion = cells.reshape(r, r, k, k)
    return confusion + confusion.transpose(1, 0, 3, 2)


def pairwise_agreement(
    data: pd.DataFrame | RatingTable,
    *,
    categories: Sequence[str] | None = None,
    rater_type: RaterType | None = "human",
    pairs: RatingPairs | None = None,
) -> PairwiseAgreement:
    """Cohen's κ, raw agreement, overlap and bias index for every pair of raters.

    For raters *a*, *b* and the :math:`n_{ab}` items both rated, with confusion counts
    :math:`c_{kl}`: Cohen's κ by :func:`cohen_kappa` — ``sklearn.metrics.cohen_kappa_score`` on
    the same items with ``labels`` = all categories. A pair with no common item has nan
    everywhere; a pair whose common items all carry one label has κ nan (with a warning).
    ``pairs``: the :func:`rating_pairs` of the table when already computed.

    Raises :class:`InputError` when :math:`R^2K^2` exceeds
    :data:`~._common.MAX_PAIRWISE_CELLS` (see :func:`pairwise_fits`).
    """
    table = as_rating_table(data, categories=categories, rater_type=rater_type)
    r = table.n_raters
    if not pairwise_fits(r, table.n_categories):
        raise InputError(
            f"{r} raters × {table.n_categories} categories give too many rater pairs for a "
            f"pairwise table (limit {MAX_PAIRWISE_CELLS:,} confusion cells); select fewer raters"
        )
    confusion = _pair_confusion(table, pairs if pairs is not None else rating_pairs(table))
    n_ab = confusion.sum(axis=(2, 3)).astype(float)
    kappa = cohen_kappa(confusion)
    with np.errstate(invalid="ignore", divide="ignore"):
        p_o = np.trace(confusion, axis1=2, axis2=3) / n_ab
        rows = confusion.sum(axis=3) / n_ab[..., None]
        cols = confusion.sum(axis=2) / n_ab[..., None]
        bias = 0.5 * np.abs(rows - cols).sum(axis=2)
    eye = np.eye(r, dtype=bool)
    for arr in (kappa, p_o, bias):
        arr[eye] = np.nan
    bad = (n_ab > 0) & ~eye & np.isnan(kappa)
    if bad.any():
        a, b = np.argwhere(np.triu(bad))[0]
        warn_undefined(
            f"Cohen's kappa is undefined for raters {table.raters[a]!r} and {table.raters[b]!r} "
            "(their common items all carry one label); returning nan"
        )
    return PairwiseAgreement(
        kappa=_rater_frame(kappa, table.raters),
        n_common=_rater_frame(n_ab.astype(np.int64), table.raters),
        agreement=_rater_frame(p_o, table.raters),
        bias=_rater_frame(bias, table.raters),
        confusion=confusion,
    )


def cohen_kappa_matrix(
    data: pd.DataFrame | RatingTable,
    *,
    categories: Sequence[str] | None = None,
    rater_type: RaterType | None = "human",
) -> pd.DataFrame:
    """Rater × rater Cohen's κ (see :func:`pairwise_agreement`); diagonal nan."""
    return pairwise_agreement(data, categories=categories, rater_type=rater_type).kappa
