"""Draws of a cell's realised counts from the engine's predictive, for differences between cells
and ranks of cells (game-agnostic).

The engine's interval of one cell (:func:`.calibration.randomised_share_interval`) is a quantile
of the predictive of Y_s, the true items among the ``U_s`` unlabelled ones of each post-stratum:
the randomised Clopper–Pearson confidence distribution of the share, mixed over
Binomial(U_s, q), one seeded v_s ~ Uniform(0, 1) per post-stratum. A contrast of two cells
whose labels are disjoint (two levels of a setting, two models) combines their predictives: the
draws here sample each Y_s exactly from its pmf (:func:`.calibration.predictive_pmf`, by its
inverse cdf), and the contrast's bounds are quantiles of the contrast over the draws.

*Sides* (the engine's anchoring). A unanimous post-stratum (no true label) is held at 0 on the
``"low"`` side — the side whose draws give a lower bound of the quantity rising with its true
items — and one with every label true at U_s on the ``"high"`` side; a post-stratum with
unlabelled items and no label at all is 0 on the low side, U_s on the high one (unknown).
``"free"``: every post-stratum drawn from its predictive (rank probabilities).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from wordplay_audit.analysis.correction.calibration import _whole_predictive, log_factorials, predictive_pmf
from wordplay_audit.errors import ParameterError

__all__ = ["SIDES", "contrast_interval", "count_draws", "holm", "rate_draws"]

SIDES = ("low", "high", "free")
"""The sides a post-stratum is drawn on (module doc)."""


def _pmf(u: int, n: float, x: float, v: float) -> np.ndarray:
    if float(n).is_integer() and float(x).is_integer():
        return _whole_predictive(u, int(n), int(x), v, log_factorials(u + int(n) + 2))
    return predictive_pmf(u, n, np.array([x]), np.array([v]))[0]


def count_draws(
    unlabelled: Sequence[int],
    labelled: Sequence[float],
    labelled_true: Sequence[float],
    *,
    side: str | Sequence[str] = "free",
    draws: int = 10000,
    v: Sequence[float] | None = None,
    rng: np.random.Generator,
) -> np.ndarray:
    """Draws × post-strata of the true items among each post-stratum's ``unlabelled`` ones
    (module doc); ``side`` one of :data:`SIDES`, or one per post-stratum. ``v`` (one per
    post-stratum) is drawn from ``rng`` first unless given.

    Five of five labels true: on the high side all 7 unlabelled items are true; free, the share's
    confidence distribution with v = 1 is Beta(6, 0), a point mass at 1, so again all 7:

    >>> rng = np.random.default_rng(0)
    >>> np.unique(count_draws([7], [5], [5], side="high", rng=rng)).tolist()
    [7]
    >>> np.unique(count_draws([7], [5], [5], v=[1.0], rng=rng)).tolist()
    [7]
    """
    u = np.rint(np.asarray(unlabelled, dtype=float)).astype(int)
    n, x = np.asarray(labelled, dtype=float), np.asarray(labelled_true, dtype=float)
    sides = [side] * len(u) if isinstance(side, str) else list(side)
    if len(sides) != len(u) or any(s not in SIDES for s in sides):
        raise ParameterError(
            f"side: expected one of {', '.join(SIDES)} (or one per post-stratum), got {side!r}"
        )
    if isinstance(draws, bool) or not isinstance(draws, int | np.integer) or draws < 100:
        raise ParameterError(f"draws: expected a whole number ≥ 100, got {draws!r}")
    v = rng.random(len(u)) if v is None else np.asarray(v, dtype=float)
    out = np.zeros((draws, len(u)), dtype=np.int64)
    for s in np.flatnonzero(u > 0):
        fixed = None
        if n[s] <= 0:  # no label: unknown
            fixed = 0 if sides[s] == "low" else u[s] if sides[s] == "high" else None
            if fixed is None:
                raise ParameterError(
                    "labelled: a post-stratum with unlabelled items has no label (free side)"
                )
        elif sides[s] == "low" and x[s] <= 0:
            fixed = 0
        elif sides[s] == "high" and x[s] >= n[s]:
            fixed = u[s]
        if fixed is not None:
            out[:, s] = fixed
            continue
        cdf = np.cumsum(np.clip(_pmf(int(u[s]), n[s], x[s], float(v[s])), 0.0, None))
        out[:, s] = np.minimum(np.searchsorted(cdf / cdf[-1], rng.random(draws), side="right"), u[s])
    return out


def rate_draws(true: np.ndarray, total: np.ndarray | float, *, rng: np.random.Generator) -> np.ndarray:
    """Per draw of a realised count ``true`` of ``total`` items, a draw of the rate that generated
    them, from its Jeffreys posterior Beta(true + ½, total − true + ½): what carries a cell's
    realised share to the rate behind it (a setting's effect, a judge's propensity), so that two
    cells whose realised shares differ only by chance are not called different.

    30 of 100: Beta(30.5, 70.5), whose 97.5 % quantile is 0.395 (``scipy.stats.beta.ppf``):

    >>> draws = rate_draws(np.full(20000, 30), 100, rng=np.random.default_rng(0))
    >>> round(float(draws.mean()), 2), round(float(np.quantile(draws, 0.975)), 2)
    (0.3, 0.4)
    """
    true = np.asarray(true, dtype=float)
    total = np.broadcast_to(np.asarray(total, dtype=float), true.shape)
    return rng.beta(true + 0.5, np.maximum(total - true, 0.0) + 0.5)


def contrast_interval(
    low_draws: np.ndarray, high_draws: np.ndarray, *, confidence: float = 0.95
) -> tuple[float, float, float]:
    """(low, high, p): the equal-tailed bounds of a contrast from its low-side draws (the lower
    bound's) and high-side draws (the upper bound's), and the two-sided p-value of "the contrast
    is 0" that inverts them: p = min(1, 2·min(P_low(D ≤ 0), P_high(D ≥ 0))), so p < α exactly when
    0 lies outside the 1 − α interval (up to the draws' resolution).

    >>> d = np.linspace(-1, 3, 4001)
    >>> low, high, p = contrast_interval(d, d)
    >>> round(low, 2), round(high, 2), round(p, 3)
    (-0.9, 2.9, 0.5)
    """
    alpha = 1 - confidence
    low = float(np.quantile(low_draws, alpha / 2))
    high = float(np.quantile(high_draws, 1 - alpha / 2))
    p = min(1.0, 2 * min(float(np.mean(low_draws <= 0)), float(np.mean(high_draws >= 0))))
    return low, high, p


def holm(p_values: Sequence[float]) -> np.ndarray:
    """Holm's (1979, Scand. J. Statist. 6:65) step-down adjusted p-values, which control the
    family-wise error rate over the family given: the k-th smallest of m is multiplied by
    m − k + 1, made non-decreasing and capped at 1; a nan (no test) stays nan and is not counted.

    >>> holm([0.01, 0.04, 0.03, float("nan")]).round(2).tolist()
    [0.03, 0.06, 0.06, nan]
    """
    p = np.asarray(p_values, dtype=float)
    out = np.full(p.shape, np.nan)
    ok = np.flatnonzero(np.isfinite(p))
    order = ok[np.argsort(p[ok], kind="stable")]
    m = len(order)
    adjusted = np.maximum.accumulate(p[order] * (m - np.arange(m)))
    out[order] = np.minimum(adjusted, 1.0)
    return out
