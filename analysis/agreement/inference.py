"""The test of θ = 0, the Wald/t interval and benchmarking of an agreement coefficient from its
value and analytic standard error.

* **Test of θ = 0** (Gwet 2014, ch. 5; R irrCAC): :math:`z = \\hat\\theta/\\widehat{SE}` with the
  SE of :mod:`._variance` (not an SE under the null), two-sided p-value from Student's *t* with
  *n* − 1 degrees of freedom, *n* the items of the sample. irrCAC's R functions print the
  one-sided :math:`1 - F_t(z)` (half of this p); its Python port prints this one.
* **Wald/t interval**: :math:`\\hat\\theta \\pm t_{n-1,(1+c)/2}\\widehat{SE}`, the upper bound at
  most 1 (as irrCAC).
* **Benchmarking** (Gwet 2014, ch. 6; irrCAC ``landis.koch.bf``, ``fleiss.bf``, ``altman.bf``):
  the probability that the coefficient lies in each band of a scale when it is normal with mean
  :math:`\\hat\\theta` and sd :math:`\\widehat{SE}` truncated to [−1, 1]:
  :math:`P(a < \\theta \\le b) = (\\Phi((\\hat\\theta - a)/SE) - \\Phi((\\hat\\theta - b)/SE)) /
  (\\Phi((\\hat\\theta + 1)/SE) - \\Phi((\\hat\\theta - 1)/SE))`; bands from the top, with their
  cumulative probability; the benchmark ``level`` is the first (highest) band whose cumulative
  probability reaches 0.95, ``band`` the one the estimate lies in.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, get_args

import numpy as np

from wordplay_audit.errors import check_choice

__all__ = ["Scale", "SCALES", "Benchmark", "benchmark", "t_test"]

#: A published benchmark scale for κ-like coefficients.
Scale = Literal["landis-koch", "fleiss", "altman"]
SCALE_NAMES: tuple[str, ...] = get_args(Scale)

# (lower, upper, label) from the top; Landis & Koch (1977), Fleiss (1981), Altman (1991), as
# tabulated in Gwet (2014, ch. 6) and R irrCAC's landis.koch, fleiss and altman data sets
SCALES: dict[str, tuple[tuple[float, float, str], ...]] = {
    "landis-koch": (
        (0.8, 1.0, "Almost Perfect"),
        (0.6, 0.8, "Substantial"),
        (0.4, 0.6, "Moderate"),
        (0.2, 0.4, "Fair"),
        (0.0, 0.2, "Slight"),
        (-1.0, 0.0, "Poor"),
    ),
    "fleiss": ((0.75, 1.0, "Excellent"), (0.4, 0.75, "Intermediate to Good"), (-1.0, 0.4, "Poor")),
    "altman": (
        (0.8, 1.0, "Very Good"),
        (0.6, 0.8, "Good"),
        (0.4, 0.6, "Moderate"),
        (0.2, 0.4, "Fair"),
        (-1.0, 0.2, "Poor"),
    ),
}
THRESHOLD = 0.95


def t_test(value: float, se: float | None, n: int, confidence: float) -> dict[str, Any]:
    """``{z, p_value, df, wald_low, wald_high, test_reason}`` of ``value`` with SE ``se`` on
    ``n`` items; nan with a reason where the SE is missing or 0 or *n* < 2."""
    from scipy.special import stdtr, stdtrit  # not scipy.stats: its import takes seconds

    nan = float("nan")
    out: dict[str, Any] = {"z": nan, "p_value": nan, "df": max(n - 1, 0), "wald_low": nan, "wald_high": nan}
    if value != value:
        return {**out, "test_reason": "no value"}
    if se is None or se != se:
        return {**out, "test_reason": "no standard error"}
    if se <= 0:
        return {**out, "test_reason": "the standard error is 0 (every item carries the same agreement)"}
    if n < 2:
        return {**out, "test_reason": "fewer than 2 items"}
    z = value / se
    half = float(stdtrit(n - 1, (1.0 + confidence) / 2.0)) * se
    return {
        "z": float(z),
        "p_value": float(2.0 * stdtr(n - 1, -abs(z))),
        "df": n - 1,
        "wald_low": float(value - half),
        "wald_high": float(min(1.0, value + half)),
        "test_reason": None,
    }


@dataclass(frozen=True)
class Benchmark:
    """Gwet's probabilistic benchmarking of one coefficient on one scale (see the module
    docstring). ``bands``: ``(low, high, label, probability, cumulative)`` from the top."""

    scale: str
    bands: tuple[tuple[float, float, str, float, float], ...]
    level: str | None
    band: str | None
    reason: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """``{scale, level, band, threshold, reason, bands: [{label, low, high, probability,
        cumulative}]}``."""
        return {
            "scale": self.scale,
            "level": self.level,
            "band": self.band,
            "threshold": THRESHOLD,
            "reason": self.reason,
            "bands": [
                {"label": lab, "low": lo, "high": hi, "probability": p, "cumulative": c}
                for lo, hi, lab, p, c in self.bands
            ],
        }


def _band_of(value: float, bands: tuple[tuple[float, float, str], ...]) -> str | None:
    for low, high, label in bands:
        if low < value <= high or (value == low == -1.0):
            return label
    return None


def benchmark(value: float, se: float | None, scale: Scale) -> Benchmark:
    """Membership probabilities of ``value`` ± ``se`` in the bands of ``scale``; without a
    (positive) SE the probabilities are nan, ``level`` None and ``reason`` says why."""
    from scipy.special import ndtr

    check_choice("benchmark", scale, SCALE_NAMES)
    bands = SCALES[scale]
    band = _band_of(value, bands) if value == value else None
    if value != value or se is None or not se > 0:
        why = "no value" if value != value else "no standard error"
        return Benchmark(
            scale, tuple((lo, hi, lab, np.nan, np.nan) for lo, hi, lab in bands), None, band, why
        )
    low, high = np.array([b[0] for b in bands]), np.array([b[1] for b in bands])
    scale_total = ndtr((value + 1.0) / se) - ndtr((value - 1.0) / se)
    prob = (ndtr((value - low) / se) - ndtr((value - high) / se)) / scale_total
    cum = np.cumsum(prob)
    reached = np.flatnonzero(cum >= THRESHOLD - 1e-12)
    level = bands[int(reached[0])][2] if len(reached) else None
    rows = tuple(
        (lo, hi, lab, float(p), float(c)) for (lo, hi, lab), p, c in zip(bands, prob, cum, strict=True)
    )
    return Benchmark(scale, rows, level, band)
