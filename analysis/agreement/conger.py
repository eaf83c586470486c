"""Conger's κ and Light's κ: the many-rater κ that keep each rater's own category shares.

Both need who gave each rating, so they take a labels DataFrame or a
:class:`~.tables.RatingTable` (a count table has lost the raters). The formulas are in
:mod:`._raters`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from wordplay_audit.errors import InputError

from ._common import RaterType, warn_undefined
from ._core import Patterns, SingleRated, sample_patterns
from ._raters import RaterPatterns, conger_value_se, light_pairs, light_value_se, rater_patterns
from .tables import RatingTable, as_rating_table
from .weights import WeightName, matrix_of

__all__ = ["conger_kappa", "conger_kappa_se", "light_kappa", "light_kappa_se", "rater_sample"]


def rater_sample(
    data: object,
    name: str,
    *,
    categories: Sequence[str] | None = None,
    rater_type: RaterType | None = "human",
    single_rated: SingleRated = "gwet",
) -> tuple[RatingTable, Patterns, RaterPatterns]:
    """The table, its count patterns and its code patterns; InputError for a count table."""
    if not isinstance(data, pd.DataFrame | RatingTable) or (
        isinstance(data, pd.DataFrame) and "rater" not in data.columns
    ):
        raise InputError(
            f"{name} needs who gave each rating: pass the labels table or a RatingTable, not a count table"
        )
    table = as_rating_table(data, categories=categories, rater_type=rater_type)
    pats = sample_patterns(table.counts, single_rated)
    return table, pats, rater_patterns(table, pats)


def conger_kappa(
    data: pd.DataFrame | RatingTable,
    *,
    weights: WeightName | object | None = None,
    categories: Sequence[str] | None = None,
    rater_type: RaterType | None = "human",
    single_rated: SingleRated = "gwet",
) -> float:
    """Conger's (1980) κ: :math:`(p_a - p_e)/(1 - p_e)` with :math:`p_a` Fleiss' (weighted)
    agreement and :math:`p_e = \\frac{1}{r(r-1)}\\sum_{g\\ne h}\\sum_{kl}w_{kl}p_{gk}p_{hl}`,
    :math:`p_{gk}` rater *g*'s share of category *k* over the items of the sample (Gwet 2014,
    §2.4; R irrCAC ``conger.kappa.raw``). For two raters it is Cohen's κ. nan (with a warning)
    when :math:`p_e = 1`.

    Reference: Conger, A. J. (1980). Integration and generalization of kappas for multiple
    raters. Psychol. Bull. 88, 322–328.
    """
    table, pats, rp = rater_sample(
        data, "conger_kappa", categories=categories, rater_type=rater_type, single_rated=single_rated
    )
    with np.errstate(invalid="ignore", divide="ignore"):
        value, _ = conger_value_se(rp, pats.patterns, matrix_of(weights, list(table.categories)))
    if np.isnan(value):
        warn_undefined(
            "Conger's kappa is undefined: every rating is in one category (p_e = 1); returning nan"
        )
    return value


def conger_kappa_se(
    data: pd.DataFrame | RatingTable,
    *,
    weights: WeightName | object | None = None,
    categories: Sequence[str] | None = None,
    rater_type: RaterType | None = "human",
    single_rated: SingleRated = "gwet",
) -> float:
    """Gwet's linearisation SE of :func:`conger_kappa` (:func:`._raters.conger_value_se`)."""
    table, pats, rp = rater_sample(
        data, "conger_kappa", categories=categories, rater_type=rater_type, single_rated=single_rated
    )
    with np.errstate(invalid="ignore", divide="ignore"):
        return conger_value_se(rp, pats.patterns, matrix_of(weights, list(table.categories)))[1]


def _light(data, weights, categories, rater_type, single_rated) -> tuple[float, float]:
    table, _, rp = rater_sample(
        data, "light_kappa", categories=categories, rater_type=rater_type, single_rated=single_rated
    )
    pairs = light_pairs(rp)
    with np.errstate(invalid="ignore", divide="ignore"):
        return light_value_se(rp, pairs, matrix_of(weights, list(table.categories)))


def light_kappa(
    data: pd.DataFrame | RatingTable,
    *,
    weights: WeightName | object | None = None,
    categories: Sequence[str] | None = None,
    rater_type: RaterType | None = "human",
    single_rated: SingleRated = "gwet",
) -> float:
    """Light's (1971) κ: the mean over rater pairs of Cohen's κ (weighted with ``weights``),
    each pair on the items both rated; pairs with no common item are left out. R irr
    ``kappam.light`` keeps only the items every rater rated — the same value when no rating is
    missing. nan (with a warning) when a pair's κ is undefined.

    Reference: Light, R. J. (1971). Measures of response agreement for qualitative data: some
    generalizations and alternatives. Psychol. Bull. 76, 365–377.
    """
    value, _ = _light(data, weights, categories, rater_type, single_rated)
    if np.isnan(value):
        warn_undefined(
            "Light's kappa is undefined: a rater pair's kappa is (one label on both sides); returning nan"
        )
    return value


def light_kappa_se(
    data: pd.DataFrame | RatingTable,
    *,
    weights: WeightName | object | None = None,
    categories: Sequence[str] | None = None,
    rater_type: RaterType | None = "human",
    single_rated: SingleRated = "gwet",
) -> float:
    """Delta-method SE of :func:`light_kappa` (:func:`._raters.light_value_se`); neither irrCAC
    nor irr publishes one (irr's ``kappam.light`` z-test uses another, null-hypothesis
    variance)."""
    return _light(data, weights, categories, rater_type, single_rated)[1]
