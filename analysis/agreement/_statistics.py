"""What each statistic of :func:`.bootstrap.bootstrap_intervals` is: its functional (features
over count patterns, or over code patterns for the rater-identity coefficients) and its
analytic standard error."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from wordplay_audit.errors import InputError, ParameterError

from ._core import Functional, Patterns, chance_corrected_functional, per_category_functional
from ._raters import RaterPatterns, conger_functional, conger_value_se, light_functional, light_value_se
from ._variance import gwet_se
from .alpha import alpha_functional, alpha_se, alpha_weights

__all__ = [
    "Sample",
    "COUNT_CHANCE",
    "RATER_STATISTICS",
    "WEIGHTED",
    "functional",
    "analytic_se",
    "rater_value_se",
]

COUNT_CHANCE = {
    "percent_agreement": "none",
    "fleiss_kappa": "fleiss",
    "fleiss_kappa_weighted": "fleiss",
    "gwet_ac1": "gwet",
    "gwet_ac2": "gwet",
    "brennan_prediger": "bp",
    "brennan_prediger_weighted": "bp",
}
RATER_STATISTICS = ("conger_kappa", "conger_kappa_weighted", "light_kappa")
WEIGHTED = ("fleiss_kappa_weighted", "gwet_ac2", "brennan_prediger_weighted", "conger_kappa_weighted")
MAX_FEATURE_CELLS = 1 << 25
"""Largest code-pattern × feature matrix a rater-identity statistic is resampled with (33.5
million cells, 268 MB); above it the statistic has its value and SE but no bootstrap interval."""


@dataclass(frozen=True)
class Sample:
    """The items of one analysis: count patterns, code patterns (None when no statistic needs
    raters), category names, the weight matrix (None: no weighted statistic), α's level and
    category values, and the rater pairs of Light's κ."""

    pats: Patterns
    rp: RaterPatterns | None
    names: np.ndarray
    weights: np.ndarray | None
    level: str
    values: np.ndarray | None
    pairs: tuple[tuple[int, int], ...] = ()

    def weights_for(self, name: str) -> np.ndarray | None:
        return self.weights if name in WEIGHTED else None


def check_statistics(statistics: Sequence[str], weights: object, table_given: bool) -> None:
    """ParameterError for a weighted statistic without ``weights``; InputError for a rater
    statistic on a count table."""
    missing = [s for s in statistics if s in WEIGHTED]
    if missing and weights is None:
        raise ParameterError(f"weights: needed for {', '.join(missing)} (a weight family, matrix or file)")
    raters = [s for s in statistics if s in RATER_STATISTICS]
    if raters and not table_given:
        raise InputError(
            f"{', '.join(raters)} need who gave each rating: pass the labels table or a RatingTable, not a count table"
        )


def fits(name: str, sample: Sample) -> bool:
    """Whether a rater statistic's feature matrix stays within :data:`MAX_FEATURE_CELLS`."""
    if name not in RATER_STATISTICS or sample.rp is None:
        return True
    k, r = len(sample.names), sample.rp.n_raters
    width = len(sample.pairs) * (2 * k + 2) if name == "light_kappa" else 3 + r * k
    return len(sample.rp.freq) * width <= MAX_FEATURE_CELLS


def functional(name: str, sample: Sample) -> Functional:
    """The feature form of ``name`` (over ``sample.rp`` for the rater statistics)."""
    patterns = sample.pats.patterns
    if name in COUNT_CHANCE:
        return chance_corrected_functional(patterns, COUNT_CHANCE[name], sample.weights_for(name))  # type: ignore[arg-type]
    if name == "krippendorff_alpha":
        return alpha_functional(patterns, level=sample.level, values=sample.values)
    if name == "per_category_kappa":
        return per_category_functional(patterns)
    assert sample.rp is not None
    if name == "light_kappa":
        return light_functional(sample.rp, list(sample.pairs))
    return conger_functional(sample.rp, patterns, sample.weights_for(name))


def analytic_se(name: str, sample: Sample) -> float | None:
    """Gwet's linearisation SE (delta method for Light's κ); None for per-category κ and
    ordinal α."""
    pats = sample.pats
    if name in COUNT_CHANCE:
        return gwet_se(pats.patterns, pats.freq, COUNT_CHANCE[name], sample.weights_for(name))  # type: ignore[arg-type]
    if name == "krippendorff_alpha":
        weights = alpha_weights(sample.level, sample.values, len(sample.names))
        return None if weights is None else alpha_se(pats.patterns, pats.freq, weights)
    if name == "per_category_kappa":
        return None
    return rater_value_se(name, sample)[1]


def rater_value_se(name: str, sample: Sample) -> tuple[float, float]:
    """Value and SE of a rater statistic, without its feature matrix (memory :math:`O(P R)`)."""
    assert sample.rp is not None
    with np.errstate(invalid="ignore", divide="ignore"):
        if name == "light_kappa":
            return light_value_se(sample.rp, list(sample.pairs))
        return conger_value_se(sample.rp, sample.pats.patterns, sample.weights_for(name))
