"""Proportions: the one Wilson interval, the normal quantile of a confidence level, ratios
with a stated zero-division policy and the exact McNemar test of two paired proportions.
Every room's rates go through here.
"""

from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np

from wordplay_audit.errors import check_level

__all__ = ["z_value", "wilson_interval", "wilson_halfwidth", "ratio", "mcnemar_exact_p"]


def z_value(confidence: float) -> float:
    """The two-sided normal quantile z with ``P(|Z| ≤ z)`` = ``confidence``.

    >>> round(z_value(0.95), 4)
    1.96
    >>> from scipy.stats import norm  # the standard library's quantile, checked against scipy
    >>> all(abs(z_value(c) - norm.ppf(0.5 + c / 2)) < 1e-12 for c in (0.5, 0.8, 0.9, 0.95, 0.99, 0.999999))
    True
    """
    check_level(confidence)
    return NormalDist().inv_cdf(0.5 + confidence / 2)  # = scipy.stats.norm.ppf, without importing scipy


def wilson_interval(successes, n, *, confidence: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """Wilson score interval for a binomial proportion (vectorised).

    With p̂ = x/n and z the (1 + c)/2 normal quantile,
    centre = (p̂ + z²/2n) / (1 + z²/n), half-width = z √(p̂(1 − p̂)/n + z²/4n²) / (1 + z²/n).
    Where n = 0 both ends are nan. Reference: Wilson (1927), JASA 22:209; Brown, Cai &
    DasGupta (2001), Statistical Science 16:101.

    >>> lo, hi = wilson_interval(0, 10)
    >>> round(float(lo), 4), round(float(hi), 4)
    (0.0, 0.2775)
    """
    x = np.asarray(successes, dtype=float)
    m = np.asarray(n, dtype=float)
    z = z_value(confidence)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = x / m
        denom = 1 + z**2 / m
        centre = (p + z**2 / (2 * m)) / denom
        half = z * np.sqrt(p * (1 - p) / m + z**2 / (4 * m**2)) / denom
        low = np.where(m > 0, np.clip(centre - half, 0.0, 1.0), np.nan)
        high = np.where(m > 0, np.clip(centre + half, 0.0, 1.0), np.nan)
    return low, high


def wilson_halfwidth(p: float, n: float, *, confidence: float = 0.95) -> float:
    """Half-width of the Wilson interval at observed proportion ``p`` with ``n`` trials
    (inf for n ≤ 0): z √(p(1 − p)/n + z²/4n²) / (1 + z²/n).

    >>> round(wilson_halfwidth(0.5, 100), 4)  # 1.96·√(0.0025 + 1.96²/40000)/(1 + 1.96²/100)
    0.0962
    """
    z = z_value(confidence)
    if n <= 0:
        return math.inf
    return z * math.sqrt(p * (1 - p) / n + z**2 / (4 * n**2)) / (1 + z**2 / n)


def ratio(numerator: float, denominator: float) -> float:
    """``numerator / denominator``, or nan when the denominator is 0 (an undefined rate is
    unknown, never 0).

    >>> ratio(1, 4), ratio(0, 0)
    (0.25, nan)
    """
    return numerator / denominator if denominator > 0 else math.nan


def mcnemar_exact_p(table) -> float:
    """Exact McNemar p-value of a paired 2×2 table [[a, b], [c, d]]: the two-sided binomial test
    of the discordant cells, ``min(1, 2 · P(X ≤ min(b, c)))`` with X ~ Binomial(b + c, 1/2) —
    what ``statsmodels.stats.contingency_tables.mcnemar(table, exact=True)`` gives (the tests
    compare the two), at the import cost of ``scipy.special`` rather than ``scipy.stats``.

    >>> mcnemar_exact_p([[10, 1], [6, 3]])  # 2 · P(X ≤ 1), X ~ Bin(7, 1/2) = 2 · 8/128
    0.125
    >>> mcnemar_exact_p([[5, 0], [0, 5]])  # no discordant pair
    1.0
    """
    from scipy.special import bdtr  # the binomial CDF; scipy.stats would cost seconds of import

    b, c = int(table[0][1]), int(table[1][0])
    return float(min(1.0, 2.0 * bdtr(min(b, c), b + c, 0.5)))
