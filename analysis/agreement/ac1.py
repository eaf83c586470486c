"""Gwet's AC1 and AC2, and Brennan & Prediger's coefficient: agreement corrected for chance
in ways that do not collapse under skew."""

from __future__ import annotations

from collections.abc import Sequence

from ._common import RaterType
from ._core import SingleRated, ac1_functional, bp_functional, point_statistic
from ._variance import point_se
from .weights import WeightName, matrix_of

__all__ = ["gwet_ac1", "gwet_ac1_se", "gwet_ac2", "gwet_ac2_se", "brennan_prediger", "brennan_prediger_se"]


def gwet_ac1(
    data: object,
    *,
    categories: Sequence[str] | None = None,
    rater_type: RaterType | None = "human",
    single_rated: SingleRated = "gwet",
) -> float:
    """Gwet's first-order agreement coefficient for many raters and *q* categories.

    :math:`AC_1 = (p_a - p_e)/(1 - p_e)` with :math:`p_a` the mean pairwise agreement over items
    with :math:`n_i \\ge 2` (as in :func:`.kappa.fleiss_kappa`) and
    :math:`p_e = \\frac{1}{q-1}\\sum_k \\pi_k(1-\\pi_k)`, :math:`\\pi_k = \\frac1n\\sum_i n_{ik}/n_i`
    over the items of the sample (``single_rated="gwet"``: also those rated once, as R irrCAC
    ``gwet.ac1.raw``; ``"drop"``: not). *q* is the number of declared categories (columns of
    the count table), used or not.

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
        single_rated=single_rated,
    )


def gwet_ac1_se(
    data: object,
    *,
    categories: Sequence[str] | None = None,
    rater_type: RaterType | None = "human",
    single_rated: SingleRated = "gwet",
) -> float:
    """Gwet's (2008) linearisation standard error of AC1, conditional on raters:
    :math:`\\frac{1}{n(n-1)}\\sum_i(AC_{1,i}^* - AC_1)^2` with
    :math:`AC^*_{1,i} = \\frac{n}{n'}\\frac{a_i - p_e m_i}{1-p_e} - 2(1-AC_1)\\frac{p_{e|i}-p_e}{1-p_e}`,
    :math:`p_{e|i} = \\frac{1}{q-1}\\sum_k \\frac{n_{ik}}{n_i}(1-\\pi_k)` (see :mod:`._variance`)."""
    return point_se(data, "gwet", categories=categories, rater_type=rater_type, single_rated=single_rated)


def gwet_ac2(
    data: object,
    *,
    weights: WeightName | object,
    categories: Sequence[str] | None = None,
    rater_type: RaterType | None = "human",
    single_rated: SingleRated = "gwet",
) -> float:
    """Gwet's AC2, the weighted AC1 (Gwet 2014, ch. 3; R irrCAC ``gwet.ac1.raw(weights=…)``):
    :math:`p_a` weighted as in :func:`.kappa.percent_agreement` and
    :math:`p_e = \\frac{T_w}{q(q-1)}\\sum_k \\pi_k(1-\\pi_k)`, :math:`T_w = \\sum_{kl} w_{kl}`.
    ``weights``: a family name of :mod:`.weights`, a matrix or a CSV file; identity weights
    give AC1."""
    return point_statistic(
        data,
        lambda patterns, names: ac1_functional(patterns, matrix_of(weights, list(names))),
        "Gwet's AC2",
        categories=categories,
        rater_type=rater_type,
        single_rated=single_rated,
    )


def gwet_ac2_se(
    data: object,
    *,
    weights: WeightName | object,
    categories: Sequence[str] | None = None,
    rater_type: RaterType | None = "human",
    single_rated: SingleRated = "gwet",
) -> float:
    """Linearisation SE of :func:`gwet_ac2`: :math:`p_{e|i} = \\frac{T_w}{q(q-1)}\\sum_k
    \\frac{n_{ik}}{n_i}(1-\\pi_k)` in :mod:`._variance`."""
    return point_se(
        data, "gwet", weights=weights, categories=categories, rater_type=rater_type, single_rated=single_rated
    )


def brennan_prediger(
    data: object,
    *,
    weights: WeightName | object | None = None,
    categories: Sequence[str] | None = None,
    rater_type: RaterType | None = "human",
    single_rated: SingleRated = "gwet",
) -> float:
    """Brennan & Prediger's (1981) coefficient: chance fixed at uniform use of the *q* declared
    categories, :math:`p_e = T_w/q^2` (:math:`1/q` unweighted, so it is PABAK for
    unweighted ratings), :math:`(p_a - p_e)/(1 - p_e)` (R irrCAC ``bp.coeff.raw``). The items
    rated once change only its SE (they count in *n*). nan when :math:`p_e = 1`.

    Reference: Brennan, R. L. & Prediger, D. J. (1981). Coefficient kappa: some uses, misuses,
    and alternatives. Educ. Psychol. Meas. 41, 687–699.
    """
    return point_statistic(
        data,
        lambda patterns, names: bp_functional(patterns, matrix_of(weights, list(names))),
        "Brennan-Prediger coefficient",
        categories=categories,
        rater_type=rater_type,
        single_rated=single_rated,
    )


def brennan_prediger_se(
    data: object,
    *,
    weights: WeightName | object | None = None,
    categories: Sequence[str] | None = None,
    rater_type: RaterType | None = "human",
    single_rated: SingleRated = "gwet",
) -> float:
    """Linearisation SE of :func:`brennan_prediger` (fixed :math:`p_e`, so
    :math:`\\frac{1}{n(n-1)}\\sum_i(\\frac{n}{n'}\\frac{a_i - p_e m_i}{1-p_e} - BP)^2`)."""
    return point_se(
        data, "bp", weights=weights, categories=categories, rater_type=rater_type, single_rated=single_rated
    )
