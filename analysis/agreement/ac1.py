"""Gwet's AC1: agreement corrected for chance in a way that does not collapse under skew."""

from __future__ import annotations

from collections.abc import Sequence

from ._common import RaterType
from ._core import ac1_functional, point_se, point_statistic

__all__ = ["gwet_ac1", "gwet_ac1_se"]


def gwet_ac1(
    data: object,
    *,
    categories: Sequence[str] | None = None,
    rater_type: RaterType | None = "human",
) -> float:
    """Gwet's first-order agreement coefficient for many raters and *q* categories.

    :math:`AC_1 = (p_a - p_e)/(1 - p_e)` with :math:`p_a` the mean pairwise agreement over items
    with :math:`n_i \\ge 2` (as in :func:`.kappa.fleiss_kappa`) and
    :math:`p_e = \\frac{1}{q-1}\\sum_k \\pi_k(1-\\pi_k)`, :math:`\\pi_k = \\frac1n\\sum_i n_{ik}/n_i`.
    *q* is the number of declared categories (columns of the count table), used or not.

    Unlike κ, :math:`p_e` is small when one category dominates, so AC1 stays near
    :math:`p_a` under skew (the "kappa paradox"). Undefined (nan with a warning) only when
    fewer than two categories are declared.

    Reference: Gwet, K. L. (2008). Computing inter-rater reliability and its variance in the
    presence of high agreement. Br. J. Math. Stat. Psychol. 61, 29–48.
    """
    return point_statistic(
        data,
        lambda patterns, _: ac1_functional(patterns),
        "Gwet's AC1",
        categories=categories,
        rater_type=rater_type,
    )


def gwet_ac1_se(
    data: object,
    *,
    categories: Sequence[str] | None = None,
    rater_type: RaterType | None = "human",
) -> float:
    """Gwet's (2008) linearisation standard error of AC1, conditional on raters:
    :math:`\\frac{1}{n(n-1)}\\sum_i(AC_{1,i}^* - AC_1)^2` with
    :math:`AC^*_{1,i} = \\frac{a_i - p_e}{1-p_e} - 2(1-AC_1)\\frac{p_{e|i}-p_e}{1-p_e}`,
    :math:`p_{e|i} = \\frac{1}{q-1}\\sum_k \\frac{n_{ik}}{n_i}(1-\\pi_k)`."""
    return point_se(data, "ac1", categories=categories, rater_type=rater_type)
