"""Why a value, an interval or a standard error of :mod:`.bootstrap` is missing.

Unknown is not 0: every statistic that cannot be computed is nan (``null`` in JSON) *and* says
why, in words a reader of the output understands. :func:`explain` fills the ``reason``,
``ci_reason`` and ``se_reason`` of an :class:`~.bootstrap.Interval` and blanks an interval that
the bootstrap cannot give (one item, or items that all carry the same ratings: every resample is
then the data itself and the "interval" a point).
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np

from ._core import Patterns, prevalence

if TYPE_CHECKING:
    from .intervals import Interval

__all__ = ["explain", "index_reason"]

NO_RESAMPLES = "no resamples (bootstrap 0)"
FEW_ITEMS = "fewer than 2 items"
ONE_PATTERN = "every item carries the same ratings, so every resample is the data itself"
ONE_CATEGORY = "every rating is in one category"
FEW_CATEGORIES = "only one category, none other declared"
NO_ALPHA_SE = "no analytic SE for ordinal Krippendorff's alpha (its distances depend on the data)"
GWET_FAMILY = ("gwet_ac1", "gwet_ac2", "brennan_prediger", "brennan_prediger_weighted")


def _value_reasons(name: str, values: np.ndarray, pats: Patterns) -> list[str | None]:
    share = prevalence(pats)
    used = int((share > 0).sum())
    out: list[str | None] = []
    for k, v in enumerate(values):
        if not np.isnan(v):
            out.append(None)
        elif name == "per_category_kappa":
            out.append(
                "never used" if share[k] == 0 else "used in every rating" if share[k] == 1 else "undefined"
            )
        elif name in GWET_FAMILY and len(share) < 2:
            out.append(FEW_CATEGORIES)
        elif name.startswith("brennan_prediger"):
            out.append("every weight is 1, so chance agreement is 1")
        elif name == "light_kappa":
            out.append("Cohen's kappa is undefined for a rater pair (their common items all carry one label)")
        elif used <= 1:
            out.append(ONE_CATEGORY)
        elif name == "krippendorff_alpha":
            out.append("no variation among pairable values (D_e = 0)")
        else:
            out.append("a rater used no category (no rating in the sample)")
    return out


def _interval_reason(value_reason: str | None, pats: Patterns, n_boot: int, n_undefined: int) -> str | None:
    if value_reason is not None:
        return value_reason
    if n_boot == 0:
        return NO_RESAMPLES
    if pats.n_items < 2:
        return FEW_ITEMS
    if len(pats.freq) < 2:
        return ONE_PATTERN
    if n_undefined >= n_boot:
        return "undefined in every resample"
    return None


def explain(interval: Interval, name: str, pats: Patterns) -> Interval:
    """``interval`` with its reasons filled and, where the interval has a reason, nan bounds,
    nan bootstrap SE and ``method`` ``"none"`` (per category: element by element)."""
    scalar = interval.categories is None
    values = np.atleast_1d(np.asarray(interval.value, dtype=float))
    undefined = np.atleast_1d(np.asarray(interval.n_undefined))
    reasons = _value_reasons(name, values, pats)
    ci = [_interval_reason(r, pats, interval.n_boot, int(u)) for r, u in zip(reasons, undefined, strict=True)]
    if interval.se is None:
        se_reasons: list[str | None] = [NO_ALPHA_SE if name == "krippendorff_alpha" else None]
    else:
        se_reasons = [r or (FEW_ITEMS if pats.n_items < 2 else None) for r in reasons]
    blank = np.array([c is not None for c in ci])

    def cut(x: float | np.ndarray) -> float | np.ndarray:
        out = np.where(blank, np.nan, np.atleast_1d(np.asarray(x, dtype=float)))
        return float(out[0]) if scalar else out

    one = (lambda xs: xs[0]) if scalar else tuple
    method = "none" if scalar and blank[0] else interval.method
    return replace(
        interval,
        ci_low=cut(interval.ci_low),
        ci_high=cut(interval.ci_high),
        percentile=tuple(cut(x) for x in interval.percentile),
        bca=tuple(cut(x) for x in interval.bca),
        boot_se=cut(interval.boot_se),
        method=method,
        reason=one(reasons),
        ci_reason=one(ci),
        se_reason=one(se_reasons) if scalar else None,
    )


def index_reason(q: int) -> str | None:
    """Why PABAK or the prevalence index is undefined: None when ``q`` ≥ 2 categories."""
    return FEW_CATEGORIES if q < 2 else None
