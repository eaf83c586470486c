"""Analytic standard errors of the count-table coefficients and of Cohen's κ, as Gwet (2008,
2014 ch. 5) derives them and R irrCAC computes them (conditional on the raters, infinite item
population).

For percent agreement, Fleiss' κ, Gwet's AC1/AC2 and Brennan–Prediger, with *n* items in the
sample, :math:`n'` of them rated twice or more (:math:`m_i = [n_i \\ge 2]`):

* :math:`\\theta_i = \\frac{n}{n'}\\frac{a_i - p_e m_i}{1 - p_e}` — each item's term scaled by
  :math:`n/n'` (1 under ``single_rated="drop"``);
* :math:`p_{e|i}` the item's chance term: :math:`\\sum_k \\frac{n_{ik}}{n_i}\\bar\\pi_{w,k}`
  (Fleiss, :math:`\\bar\\pi_w = (W\\pi + W^T\\pi)/2`), :math:`\\frac{T_w}{q(q-1)}\\sum_k
  \\frac{n_{ik}}{n_i}(1-\\pi_k)` (Gwet), :math:`p_e` (Brennan–Prediger: fixed chance), 0
  (percent agreement);
* :math:`\\theta^*_i = \\theta_i - 2(1-\\theta)\\frac{p_{e|i} - p_e}{1-p_e}`,
  :math:`\\widehat{\\mathrm{Var}}(\\theta) = \\frac{1}{n(n-1)}\\sum_i(\\theta^*_i - \\theta)^2`.

References: Gwet, K. L. (2008). Computing inter-rater reliability and its variance in the
presence of high agreement. Br. J. Math. Stat. Psychol. 61, 29–48; Gwet, K. L. (2014).
Handbook of Inter-Rater Reliability, 4th ed., ch. 5; Fleiss, Cohen & Everitt (1969). Large
sample standard errors of kappa and weighted kappa. Psychol. Bull. 72, 323–327.
"""

from __future__ import annotations

import numpy as np

from ._core import Chance, SingleRated, agreement_rows, chance_agreement, sample_patterns
from .tables import resolve_counts
from .weights import matrix_of

__all__ = ["gwet_se", "point_se", "cohen_kappa_se"]


def gwet_se(
    patterns: np.ndarray, freq: np.ndarray, chance: Chance, weights: np.ndarray | None = None
) -> float:
    """The linearisation SE above over the patterns of the sample (``freq`` items each); nan
    with fewer than 2 items or :math:`p_e = 1`."""
    q = patterns.shape[1]
    w_mat = np.eye(q) if weights is None else np.asarray(weights, dtype=float)
    _, multi, a, share = agreement_rows(patterns, w_mat)
    w = freq.astype(float)
    n, n_multi = w.sum(), w @ multi
    if n < 2 or n_multi == 0:
        return float("nan")
    pi = (w @ share) / n
    p_e = float(chance_agreement(chance, pi, w_mat))
    if not np.isfinite(p_e) or p_e >= 1.0:
        return float("nan")
    p_a = (w @ a) / n_multi
    theta = (p_a - p_e) / (1.0 - p_e)
    if chance == "fleiss":
        pe_i = share @ ((w_mat @ pi + w_mat.T @ pi) / 2.0)
    elif chance == "gwet":
        pe_i = float(w_mat.sum()) / (q * (q - 1)) * (share @ (1.0 - pi))
    else:  # Brennan–Prediger: p_e is fixed; percent agreement: p_e = 0
        pe_i = np.full(len(a), p_e)
    theta_i = (n / n_multi) * (a - p_e * multi) / (1.0 - p_e)
    star = theta_i - 2.0 * (1.0 - theta) * (pe_i - p_e) / (1.0 - p_e)
    return float(np.sqrt(w @ (star - theta) ** 2 / (n * (n - 1.0))))


def point_se(
    data: object,
    chance: Chance,
    *,
    weights: object = None,
    categories: object = None,
    rater_type: str | None = "human",
    single_rated: SingleRated = "gwet",
) -> float:
    """:func:`gwet_se` of ``data`` (labels, RatingTable or count table); ``weights`` a name,
    matrix or file (:func:`.weights.weight_matrix`) or None (identity)."""
    counts, names = resolve_counts(data, categories=categories, rater_type=rater_type)
    pats = sample_patterns(counts, single_rated)
    return gwet_se(pats.patterns, pats.freq, chance, matrix_of(weights, list(names)))


def cohen_kappa_se(confusion: np.ndarray, weights: np.ndarray | None = None) -> np.ndarray:
    """Large-sample SE of (weighted) Cohen's κ of each ``(..., K, K)`` table of counts (Fleiss,
    Cohen & Everitt 1969; Gwet 2014, R irrCAC ``kappa2.table``).

    With :math:`p_{kl}` the cell shares, :math:`\\bar w_{k\\cdot} = \\sum_l w_{kl} p_{\\cdot l}`,
    :math:`\\bar w_{\\cdot l} = \\sum_k w_{kl} p_{k\\cdot}`:
    :math:`\\widehat{\\mathrm{Var}} = \\frac{\\sum_{kl} p_{kl}(w_{kl} - (1-\\kappa)(\\bar w_{k\\cdot}
    + \\bar w_{\\cdot l}))^2 - (p_a - 2(1-\\kappa)p_e)^2}{n(1-p_e)^2}`; nan where κ is.
    """
    k = confusion.shape[-1]
    w = np.eye(k) if weights is None else np.asarray(weights, dtype=float)
    n = confusion.sum(axis=(-2, -1)).astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = confusion / n[..., None, None]
        rows, cols = p.sum(axis=-1), p.sum(axis=-2)
        p_a = (w * p).sum(axis=(-2, -1))
        p_e = np.einsum("...k,kl,...l->...", rows, w, cols)
        kappa = (p_a - p_e) / (1.0 - p_e)
        row_w = np.einsum("kl,...l->...k", w, cols)
        col_w = np.einsum("kl,...k->...l", w, rows)
        inner = w - (1.0 - kappa)[..., None, None] * (row_w[..., :, None] + col_w[..., None, :])
        sum1 = (p * inner**2).sum(axis=(-2, -1))
        var = (sum1 - (p_a - 2.0 * (1.0 - kappa) * p_e) ** 2) / (n * (1.0 - p_e) ** 2)
        ok = (n > 0) & (p_e < 1.0)
        return np.where(ok, np.sqrt(np.maximum(var, 0.0)), np.nan)
