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

__all__ = ["ppi_mean", "stratified_mean"]


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
    values = np.array([1 - lam, 1.0, -lam, 0.0])
    cells = [(y == 1) & (f == 1), (y == 1) & (f == 0), (y == 0) & (f == 1), (y == 0) & (f == 0)]
    counts = np.array([np.sum(c) for c in cells], dtype=float) + 0.5
    weights = counts / counts.sum()
    centre = float(np.sum(weights * values))
    s2 = float(np.sum(weights * (values - centre) ** 2))
    return theta, s2 * (1 / n + 1 / n_u), lam


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
