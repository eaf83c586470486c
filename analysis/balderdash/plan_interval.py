"""A fast copy of the toolkit's randomised Clopper–Pearson predictive interval for the
adaptive-allocation simulation (issue 14, :mod:`.plan_adaptive`).

:func:`share_interval` computes what
:func:`wordplay_audit.analysis.correction.calibration.randomised_share_interval` computes for
whole-count inputs — the interval ``balderdash recompute`` prints for a cell made of whole
sampling strata — but with the beta-binomial pmfs from ``scipy.special.betaln``/``gammaln`` in
numpy and a direct convolution instead of ``scipy.stats.betabinom`` and an FFT (the simulation
calls it tens of thousands of times). Per stratum with U unlabelled items, n labels and x true,
and the stratum's v ∈ [0, 1], the predictive pmf of the true items among the U is the mixture
(1 − v)·BetaBinomial(U, x, n − x + 1) + v·BetaBinomial(U, x + 1, n − x) (a point mass at 0 where
the first parameter is 0, at U where the second is 0); the model's pmf is their convolution,
and the interval of the realised share (known_true + Y)/n_total is its (α/2, 1 − α/2)
quantiles. ``tests/test_balderdash_adaptive.py`` checks it against the toolkit's function.

One stratum, 10 unlabelled items, 0 of 5 labels true, v = 0.5 (the toolkit's own doctest):

>>> share_interval([10], [5], [0], [0.5])
(0.0, 0.5)
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy.special import betaln, gammaln

__all__ = ["share_interval", "stratum_pmf"]


_LOG_GAMMA = gammaln(np.arange(1, 2049, dtype=float))  # _LOG_GAMMA[j - 1] = log Γ(j)


def _log_gamma_from(start: int, length: int) -> np.ndarray:
    """log Γ(start), …, log Γ(start + length − 1) for a whole ``start`` ≥ 1, from a table."""
    global _LOG_GAMMA
    if start + length > len(_LOG_GAMMA):
        _LOG_GAMMA = gammaln(np.arange(1, 2 * (start + length) + 1, dtype=float))
    return _LOG_GAMMA[start - 1 : start - 1 + length]


def _beta_binomial(u: int, a: float, b: float) -> np.ndarray:
    """BetaBinomial(u, a, b) pmf over 0 … u; a point mass at 0 (a = 0) or at u (b = 0).
    log C(u, k) + log B(k + a, u − k + b) − log B(a, b) by log Γ, from a table when a and b are
    whole numbers (the simulation's counts), else by ``gammaln``."""
    if a <= 0 or b <= 0:
        out = np.zeros(u + 1)
        out[0 if a <= 0 else u] = 1.0
        return out
    if float(a).is_integer() and float(b).is_integer():
        a_, b_ = int(a), int(b)
        fact = _log_gamma_from(1, u + 1)  # log k!, k = 0 … u
        ga, gb = _log_gamma_from(a_, u + 1), _log_gamma_from(b_, u + 1)[::-1]
        const = _log_gamma_from(u + 1, 1)[0] - _log_gamma_from(u + a_ + b_, 1)[0]
        const -= _log_gamma_from(a_, 1)[0] + _log_gamma_from(b_, 1)[0] - _log_gamma_from(a_ + b_, 1)[0]
        return np.exp(const - fact - fact[::-1] + ga + gb)
    k = np.arange(u + 1, dtype=float)
    log_choose = gammaln(u + 1.0) - gammaln(k + 1.0) - gammaln(u - k + 1.0)
    return np.exp(log_choose + betaln(k + a, u - k + b) - betaln(a, b))


def stratum_pmf(u: int, n: float, x: float, v: float) -> np.ndarray:
    """Predictive pmf of the true items among ``u`` unlabelled ones of a stratum with ``x``
    true of ``n`` labels, under the randomised Clopper–Pearson confidence distribution (``v``).

    0 of 4 labels true and v = 0: the share is 0 with certainty, so is every unlabelled item:

    >>> stratum_pmf(3, 4, 0, 0.0).tolist()
    [1.0, 0.0, 0.0, 0.0]
    """
    return (1 - v) * _beta_binomial(u, x, n - x + 1) + v * _beta_binomial(u, x + 1, n - x)


def share_interval(
    unlabelled: Sequence[int],
    labelled: Sequence[int],
    labelled_true: Sequence[int],
    v: Sequence[float],
    *,
    known_true: float = 0.0,
    n_total: float | None = None,
    confidence: float = 0.95,
) -> tuple[float, float]:
    """Interval of the realised share (known_true + Y)/n_total, Y the true items among the
    unlabelled ones (module doc); ``v`` one value per stratum. (nan, nan) when a stratum with
    unlabelled items has no label; (known, known) when every stratum is labelled in full."""
    u = np.asarray(unlabelled, dtype=int)
    n = np.asarray(labelled, dtype=float)
    x = np.asarray(labelled_true, dtype=float)
    vs = np.asarray(v, dtype=float)
    total = float(u.sum()) if n_total is None else float(n_total)
    if total <= 0 or np.any((u > 0) & (n <= 0)):
        return np.nan, np.nan
    keep = np.flatnonzero(u > 0)
    if not len(keep):
        return known_true / total, known_true / total
    pmf = stratum_pmf(int(u[keep[0]]), n[keep[0]], x[keep[0]], vs[keep[0]])
    for h in keep[1:]:
        pmf = np.convolve(pmf, stratum_pmf(int(u[h]), n[h], x[h], vs[h]))
    cdf = np.cumsum(np.clip(pmf, 0.0, None))
    cdf /= cdf[-1]
    alpha = (1 - confidence) / 2
    low = int((cdf < alpha - 1e-12).sum())
    high = int((cdf < 1 - alpha - 1e-12).sum())
    return (known_true + low) / total, (known_true + high) / total
