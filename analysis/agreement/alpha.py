"""Krippendorff's α from the item × category count table (``value_counts``)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from wordplay_audit.errors import InputError

from ._common import warn_undefined
from ._core import LEVELS, alpha_functional, usable_patterns
from .tables import resolve_counts

__all__ = ["krippendorff_alpha", "category_values"]


def category_values(names: Sequence[object], level: str) -> np.ndarray | None:
    """Numeric values of category names for interval/ratio α (None for nominal/ordinal).

    Raises :class:`InputError` when a name is not a number.
    """
    if level in ("nominal", "ordinal"):
        return None
    try:
        return np.asarray([float(str(n)) for n in names], dtype=float)
    except ValueError:
        bad = next(n for n in names if not _is_float(str(n)))
        raise InputError(
            f"level {level!r} needs numeric labels, got {bad!r}; use 'nominal' or 'ordinal'"
        ) from None


def _is_float(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def krippendorff_alpha(
    data: object,
    *,
    level: str = "nominal",
    categories: Sequence[str] | None = None,
    rater_type: str | None = "human",
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

    Reference: Krippendorff, K. (2011). Computing Krippendorff's alpha-reliability.
    Annenberg School for Communication, University of Pennsylvania.
    """
    if level not in LEVELS:
        raise InputError(f"level must be one of {', '.join(LEVELS)}, got {level!r}")
    counts, names = resolve_counts(data, categories=categories, rater_type=rater_type)
    values = category_values(names, level)
    pats = usable_patterns(counts)
    f = alpha_functional(pats.patterns, level=level, values=values)
    value = float(f.evaluate(pats.freq @ f.features))
    if np.isnan(value):
        warn_undefined(f"Krippendorff's alpha is undefined: {f.undefined}; returning nan")
    return value
