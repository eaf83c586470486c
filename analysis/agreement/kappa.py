"""Fleiss' κ (overall and per category), percent agreement and pairwise Cohen's κ.

Input of the κ functions: a labels DataFrame (contract columns), a :class:`~.tables.RatingTable`
or a prepared count table ``(n_items, n_categories)`` (Fleiss' :math:`n_{ij}`). Items with fewer
than two ratings are left out (see :func:`items_used`). Undefined values are ``nan`` with an
:class:`~._common.UndefinedStatisticWarning`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from wordplay_audit.errors import InputError

from ._common import warn_undefined
from ._core import (
    Patterns,
    fleiss_functional,
    linearised_se,
    per_category_functional,
    percent_agreement_functional,
    usable_patterns,
)
from .tables import RatingTable, rating_table, resolve_counts

__all__ = [
    "fleiss_kappa",
    "fleiss_kappa_se",
    "per_category_kappa",
    "percent_agreement",
    "items_used",
    "PairwiseAgreement",
    "pairwise_agreement",
    "cohen_kappa_matrix",
    "prevalence_index",
    "pabak",
]


def _patterns(
    data: object, categories: Sequence[str] | None, rater_type: str | None
) -> tuple[Patterns, np.ndarray]:
    counts, names = resolve_counts(data, categories=categories, rater_type=rater_type)
    return usable_patterns(counts), names


def items_used(
    data: object, *, categories: Sequence[str] | None = None, rater_type: str | None = "human"
) -> tuple[int, int]:
    """``(used, dropped)``: items with at least two ratings, and items with one (left out)."""
    pats, _ = _patterns(data, categories, rater_type)
    return pats.n_items, pats.n_dropped


def percent_agreement(
    data: object, *, categories: Sequence[str] | None = None, rater_type: str | None = "human"
) -> float:
    """Mean pairwise agreement :math:`p_a = \\frac1n\\sum_i \\sum_k n_{ik}(n_{ik}-1)/(n_i(n_i-1))`
    over items with :math:`n_i \\ge 2` — Fleiss' :math:`\\bar P` (Fleiss 1971, eq. 2–3)."""
    pats, _ = _patterns(data, categories, rater_type)
    f = percent_agreement_functional(pats.patterns)
    return float(f.evaluate(pats.freq @ f.features))


def fleiss_kappa(
    data: object, *, categories: Sequence[str] | None = None, rater_type: str | None = "human"
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
    pats, _ = _patterns(data, categories, rater_type)
    f = fleiss_functional(pats.patterns)
    value = float(f.evaluate(pats.freq @ f.features))
    if np.isnan(value):
        warn_undefined(f"Fleiss' kappa is undefined: {f.undefined}; returning nan")
    return value


def fleiss_kappa_se(
    data: object, *, categories: Sequence[str] | None = None, rater_type: str | None = "human"
) -> float:
    """Large-sample standard error of :func:`fleiss_kappa` (not only under κ = 0).

    Gwet's linearisation, conditional on the raters (see :func:`._core.linearised_se`):
    :math:`\\widehat{\\mathrm{Var}}(\\kappa) = \\frac{1}{n(n-1)}\\sum_i (\\kappa^*_i - \\kappa)^2`,
    :math:`\\kappa^*_i = \\frac{a_i - p_e}{1-p_e} - 2(1-\\kappa)\\frac{p_{e|i} - p_e}{1-p_e}`,
    :math:`p_{e|i} = \\sum_k \\pi_k n_{ik}/n_i`. Reference: Gwet (2014), ch. 5.
    """
    pats, _ = _patterns(data, categories, rater_type)
    return linearised_se(pats.patterns, pats.freq, chance="fleiss")


def per_category_kappa(
    data: object, *, categories: Sequence[str] | None = None, rater_type: str | None = "human"
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
    values = f.evaluate(pats.freq @ f.features)
    shares = pats.patterns / pats.patterns.sum(axis=1, keepdims=True)
    prevalence = (pats.freq @ shares) / pats.n_items
    undefined = [str(n) for n, v in zip(names, values, strict=True) if np.isnan(v)]
    if undefined:
        warn_undefined(f"per-category kappa is undefined for {', '.join(undefined)}: {f.undefined}")
    return pd.DataFrame(
        {"kappa": values, "prevalence": prevalence}, index=pd.Index(names, name="category")
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


def rating_pairs(table: RatingTable) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Every unordered pair of ratings of the same item, once: ``(rater_a, rater_b, label_a,
    label_b)`` (which rater comes first is arbitrary); :math:`\\sum_i n_i(n_i-1)/2` pairs,
    no Python loop."""
    item = table.item
    if len(item) > 1 and (np.diff(item) < 0).any():
        order = np.argsort(item, kind="stable")
        item, rater, label = item[order], table.rater[order], table.label[order]
    else:
        rater, label = table.rater, table.label
    sizes = np.bincount(item, minlength=table.n_items)
    starts = np.cumsum(sizes) - sizes
    partners = sizes[item] - 1 - (np.arange(len(item)) - starts[item])
    ends = np.cumsum(partners)
    first = np.repeat(np.arange(len(item)), partners)
    total = int(ends[-1]) if len(ends) else 0
    within = np.arange(total) - np.repeat(ends - partners, partners)  # j-th later partner
    second = first + 1 + within
    return rater[first], rater[second], label[first], label[second]


_MAX_CONFUSION_CELLS = 50_000_000


def pairwise_agreement(
    data: pd.DataFrame | RatingTable,
    *,
    categories: Sequence[str] | None = None,
    rater_type: str | None = "human",
) -> PairwiseAgreement:
    """Cohen's κ, raw agreement, overlap and bias index for every pair of raters.

    For raters *a*, *b* and the :math:`n_{ab}` items both rated, with confusion counts
    :math:`c_{kl}`: :math:`p_o = \\sum_k c_{kk}/n_{ab}`, :math:`p_e = \\sum_k c_{k\\cdot}c_{\\cdot k}/n_{ab}^2`,
    :math:`\\kappa = (p_o - p_e)/(1 - p_e)` — ``sklearn.metrics.cohen_kappa_score`` on the same
    items with ``labels`` = all categories. A pair with no common item has nan everywhere;
    a pair whose common items all carry one label has κ nan (with a warning).

    Reference: Cohen, J. (1960). A coefficient of agreement for nominal scales.
    Educ. Psychol. Meas. 20, 37–46.
    """
    table = (
        data
        if isinstance(data, RatingTable)
        else rating_table(data, categories=categories, rater_type=rater_type)
    )
    r, k = table.n_raters, table.n_categories
    if r * r * k * k > _MAX_CONFUSION_CELLS:
        raise InputError(
            f"{r} raters × {k} categories give too many rater pairs for a pairwise table "
            "(limit 50 million confusion cells); select fewer raters"
        )
    ra, rb, la, lb = rating_pairs(table)
    cells = np.bincount(((ra * r + rb) * k + la) * k + lb, minlength=r * r * k * k)
    confusion = cells.reshape(r, r, k, k)
    confusion = confusion + confusion.transpose(1, 0, 3, 2)  # each pair counted from both sides
    n_ab = confusion.sum(axis=(2, 3)).astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        p_o = np.trace(confusion, axis1=2, axis2=3) / n_ab
        rows = confusion.sum(axis=3) / n_ab[..., None]
        cols = confusion.sum(axis=2) / n_ab[..., None]
        p_e = (rows * cols).sum(axis=2)
        kappa = np.where(p_e < 1.0, (p_o - p_e) / (1.0 - p_e), np.nan)
        bias = 0.5 * np.abs(rows - cols).sum(axis=2)
    eye = np.eye(r, dtype=bool)
    for arr in (kappa, p_o, bias):
        arr[eye] = np.nan
    bad = (n_ab > 0) & ~eye & (p_e >= 1.0)
    if bad.any():
        a, b = np.argwhere(np.triu(bad))[0]
        warn_undefined(
            f"Cohen's kappa is undefined for raters {table.raters[a]!r} and {table.raters[b]!r} "
            "(their common items all carry one label); returning nan"
        )
    index = pd.Index(table.raters, name="rater")
    frame = lambda arr: pd.DataFrame(arr, index=index, columns=index.rename("other"))  # noqa: E731
    return PairwiseAgreement(
        kappa=frame(kappa),
        n_common=frame(n_ab.astype(np.int64)),
        agreement=frame(p_o),
        bias=frame(bias),
        confusion=confusion,
    )


def cohen_kappa_matrix(
    data: pd.DataFrame | RatingTable,
    *,
    categories: Sequence[str] | None = None,
    rater_type: str | None = "human",
) -> pd.DataFrame:
    """Rater × rater Cohen's κ (see :func:`pairwise_agreement`); diagonal nan."""
    return pairwise_agreement(data, categories=categories, rater_type=rater_type).kappa
