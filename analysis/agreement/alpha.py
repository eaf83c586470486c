"""Krippendorff's α from the item × category count table (``value_counts``)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from wordplay_audit.corpora.values import parse_number
from wordplay_audit.errors import InputError, check_choice

from ._common import LEVELS, Level, RaterType
from ._core import Functional, alpha_functional, point_statistic

__all__ = ["krippendorff_alpha", "category_values"]


def category_values(names: Sequence[object], level: Level) -> np.ndarray | None:
    """Numeric values of category names for interval/ratio α (None for nominal/ordinal).

    Names are parsed by :func:`wordplay_audit.corpora.values.parse_number`; raises
    :class:`InputError` naming the first name that is not a finite number.
    """
    check_choice("level", level, LEVELS)
    if level in ("nominal", "ordinal"):
        return None
    values = [parse_number(n) for n in names]
    if None in values:
        bad = names[values.index(None)]
        raise InputError(f"level {level!r} needs numeric labels, got {bad!r}; use 'nominal' or 'ordinal'")
    return np.asarray(values, dtype=float)


def krippendorff_alpha(
    data: object,
    *,
    level: Level = "nominal",
    categories: Sequence[str] | None = None,
    rater_type: RaterType | None = "human",
) -> float:
    """Krippendorff's α for any number of raters with missing ratings.

    With the ``(n, K)`` table :math:`n_{uc}` (Krippendorff's ``value_counts``), :math:`m_u`
    values in unit *u*, only units with :math:`m_u \\ge 2` (pairable) counted:

    * coincidences :math:`o_{ck} = \\sum_u (n_{uc}n_{uk} - [c=k]n_{uc})/(m_u - 1)`,
      :math:`n_c = \\sum_k o_{ck}`, :math:`N = \\sum_c n_c`;
    * :math:`\\alpha = 1 - D_o/D_e = 1 - (N-1)\\frac{\\sum_{c,k} o_{ck}\\,\\delta^2_{ck}}
      {\\sum_{c,k} n_c n_k\\,\\delta^2_{ck}}`.

    ``level``: ``nominal`` (:math:`\\delta^2 = [c \\ne k]`), ``ordinal`` (rank distances from the
    pairable totals, category order = column order / declared ``categories``), ``interval``
    :math:`(v_c - v_k)^2` or ``ratio`` :math:`((v_c-v_k)/(v_c+v_k))^2` — numeric category names.
    Same semantics as ``krippendorff.alpha(value_counts=..., level_of_measurement=...)``.

    nan (with a warning) when :math:`D_e = 0` (one value only among pairable ratings).
    Raises :class:`~wordplay_audit.errors.ParameterError` for an unknown ``level`` and
    :class:`InputError` for non-numeric labels at interval/ratio level.

    Reference: Krippendorff, K. (2011). Computing Krippendorff's alpha-reliability.
    Annenberg School for Communication, University of Pennsylvania.
    """
    check_choice("level", level, LEVELS)

    def build(patterns: np.ndarray, names: Sequence[object]) -> Functional:
        return alpha_functional(patterns, level=level, values=category_values(names, level))

    return point_statistic(data, build, "Krippendorff's alpha", categories=categories, rater_type=rater_type)
