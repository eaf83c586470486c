"""Prediction-powered estimates of a mean over unlabelled items (game-agnostic).

* :func:`ppi_mean` — PPI++ with power tuning for a simple random human sample
  (Angelopoulos, Duchi & Zrnic 2023, "PPI++: Efficient prediction-powered inference").
* :func:`stratified_mean` — the sample drawn within strata of the judge's output (e.g. its
  verdict): inside a stratum the judge's output is constant, so λ cancels and the estimate is
  Σ_s W_s q_s, the double-sampling estimator (Tenenbein 1970, JASA 65:1350).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["ppi_mean", "ppi_share", "stratified_mean"]


def _tuned_lambda(y: np.ndarray, f: np.ndarray, n_unlabelled: int) -> float:
    """λ = Cov(Y, f) / ((1 + n/N_u) Var(f)), clipped to [0, 1]; 0 when Var(f) = 0."""
    n = len(y)
    var_f = float(np.var(f, ddof=1)) if n > 1 else 0.0
    cov = float(np.cov(y, f, ddof=1)[0, 1]) if n > 1 else 0.0
    if var_f <= 0 or n_unlabelled == 0:
        return 0.0
    return float(np.clip(cov / ((1 + n / n_unlabelled) * var_f), 0.0, 1.0))


def ppi_mean(
    y_labelled: np.ndarray,
    f_labelled: np.ndarray,
    f_unlabelled: np.ndarray,
    *,
    lam: float | None = None,
) -> tuple[float, float, float]:
    """PPI++ estimate of the mean of Y over the unlabelled items, its variance and λ.

    θ̂ = λ f̄_u + ȳ_L − λ f̄_L, with λ = Cov(Y, f) / ((1 + n/N_u) Var(f)) on the labelled
    items (power tuning for mean estimation), clipped to [0, 1], and 0 when Var(f) = 0.
    Variance of θ̂ − Ȳ_u: s²(Y − λf) (1/n + 1/N_u), s² taken from the (Y, f) table with 0.5
    added to each cell (Agresti & Min 2005, Stat. Med. 24:729), so a sample where judge and
    people always agree does not claim zero variance.
    A continuous ``f`` (a score or calibrated probability, not only 0/1) takes s² as the
    sample variance of Y − λf (n − 1 divisor; PPI++'s plug-in, Angelopoulos et al. 2023, §3).
    Returns ``(theta, variance, lam)``; nan when no labelled item.
    """
    y = np.asarray(y_labelled, dtype=float)
    f = np.asarray(f_labelled, dtype=float)
    fu = np.asarray(f_unlabelled, dtype=float)
    n, n_u = len(y), len(fu)
    if n == 0:
        return np.nan, np.nan, np.nan
    if lam is None:
        lam = _tuned_lambda(y, f, n_u)
    if n_u == 0:
        return float(y.mean()), 0.0, lam
    theta = lam * float(fu.mean()) + float((y - lam * f).mean())
    if not np.isin(f, (0.0, 1.0)).all():  # a score: the plug-in variance of Y − λf
        s2 = float(np.var(y - lam * f, ddof=1)) if n > 1 else np.nan
        return theta, s2 * (1 / n + 1 / n_u), lam
    values = np.array([1 - lam, 1.0, -lam, 0.0])
    cells = [(y == 1) & (f == 1), (y == 1) & (f == 0), (y == 0) & (f == 1), (y == 0) & (f == 0)]
    counts = np.array([np.sum(c) for c in cells], dtype=float) + 0.5
    weights = counts / counts.sum()
    centre = float(np.sum(weights * values))
    s2 = float(np.sum(weights * (values - centre) ** 2))
    return theta, s2 * (1 / n + 1 / n_u), lam


def ppi_share(
    y_labelled: np.ndarray, f_labelled: np.ndarray, f_unlabelled: np.ndarray, *, confidence: float = 0.95
) -> tuple[float, float, float, float]:
    """A cell's realised share with PPI++ for a simple random sample of labels: the labelled
    items count as labelled and the unlabelled rest's share is :func:`ppi_mean`'s, so
    θ̂ = (Σ y_L + N_u·μ̂_u)/N with the normal interval θ̂ ± z·N_u·√Var/N clipped to [0, 1].
    Returns ``(estimate, low, high, lam)`` (nan without two labels).

    By hand: f̄_L = 0.65, s²(f) = 0.29/3, Cov(Y, f) = 0.45/3, λ = 0.15/(2 · 0.29/3) = 0.7759;
    μ̂_u = λ·0.525 + (0.75 − λ·0.65) = 0.6530; θ̂ = (3 + 4 · 0.6530)/8 = 0.7015:

    >>> est, low, high, lam = ppi_share([1, 0, 1, 1], [0.9, 0.2, 0.7, 0.8], [0.9, 0.1, 0.6, 0.5])
    >>> round(est, 4), round(lam, 4)
    (0.7015, 0.7759)
    """
    from scipy.special import ndtri

    y = np.asarray(y_labelled, dtype=float)
    n_u, total = len(f_unlabelled), len(y) + len(f_unlabelled)
    mean, var, lam = ppi_mean(y, f_labelled, f_unlabelled)
    if len(y) < 2 or not np.isfinite(var):
        return np.nan, np.nan, np.nan, lam
    estimate = (y.sum() + n_u * mean) / total
    half = float(ndtri(0.5 + confidence / 2)) * n_u * np.sqrt(var) / total
    return float(estimate), float(max(estimate - half, 0.0)), float(min(estimate + half, 1.0)), lam


def stratified_mean(
    unlabelled: Sequence[int], labelled: Sequence[int], labelled_true: Sequence[int], *, z: float
) -> tuple[float, float]:
    """Σ_s W_s q_s over strata of the unlabelled items and its variance.

    ``unlabelled[s]`` items of stratum s are unlabelled, ``labelled[s]`` labelled of which
    ``labelled_true[s]`` are true; W_s = unlabelled share, q_s = x_s/n_s.
    Var = Σ W_s² q̃_s(1 − q̃_s)(1/(n_s + z²) + 1/N_us) with the Agresti–Coull share
    q̃ = (x + z²/2)/(n + z²). Returns ``(0, 0)`` when nothing is unlabelled.
    """
    n_us = np.asarray(unlabelled, dtype=float)
    n_s = np.asarray(labelled, dtype=float)
    x_s = np.asarray(labelled_true, dtype=float)
    total = n_us.sum()
    if total == 0:
        return 0.0, 0.0
    w = n_us / total
    q = x_s / n_s
    qa = (x_s + z**2 / 2) / (n_s + z**2)
    theta = float(np.sum(w * q))
    var = float(np.sum(w**2 * qa * (1 - qa) * (1 / (n_s + z**2) + 1 / n_us)))
    return theta, var
