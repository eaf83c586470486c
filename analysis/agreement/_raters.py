"""The coefficients that need to know who gave which rating: Conger's κ and Light's κ.

Their per-item features depend on each rater's label, so the patterns are the distinct rows of
the ``(n, R)`` code matrix (``-1`` where a rater did not rate), each tied to its count pattern
(``group``). Conger's κ (Conger 1980; Gwet 2014, §2.4; R irrCAC ``conger.kappa.raw``) uses each
rater's own category shares :math:`p_{gk}` for chance:

:math:`p_e = \\frac{1}{r(r-1)}\\sum_{g \\ne h}\\sum_{kl} w_{kl}p_{gk}p_{hl}
= \\sum_{kl} w_{kl}(\\bar p_k\\bar p_l - s^2_{kl}/r)`,

with :math:`p_a` as Fleiss' (items rated twice or more) and the rater shares over every item of
the sample. Light's κ (Light 1971; R irr ``kappam.light``) is the mean over rater pairs of
Cohen's κ, each pair on the items both rated (irr uses only items every rater rated: equal when
no rating is missing).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._core import Functional, Patterns, agreement_rows, safe_divide
from .tables import RatingTable, count_patterns

__all__ = [
    "RaterPatterns",
    "rater_patterns",
    "conger_functional",
    "conger_value_se",
    "light_pairs",
    "light_functional",
    "light_value_se",
]


@dataclass(frozen=True)
class RaterPatterns:
    """Distinct code rows of the items in the sample: ``codes`` ``(Pc, R)`` (``-1`` not rated),
    ``freq`` ``(Pc,)``, ``inverse`` ``(n_items,)`` each item's code pattern, ``group`` ``(Pc,)``
    each code pattern's count pattern (index into the :class:`Patterns` it was built with)."""

    codes: np.ndarray
    freq: np.ndarray
    inverse: np.ndarray
    group: np.ndarray
    n_categories: int

    @property
    def n_raters(self) -> int:
        return int(self.codes.shape[1])


def rater_patterns(table: RatingTable, pats: Patterns) -> RaterPatterns:
    """The code patterns of ``table``'s items in the sample of ``pats`` (built from
    ``table.counts`` with the same ``single_rated`` rule)."""
    sizes = table.counts.sum(axis=1)
    keep = sizes >= (2 if pats.single_rated == "drop" else 1)
    codes = table.codes_matrix()[keep]
    distinct, inverse, freq = count_patterns(codes + 1)
    group = np.empty(len(freq), dtype=np.int64)
    group[inverse] = pats.inverse
    return RaterPatterns(distinct - 1, freq, inverse, group, table.n_categories)


def _onehot(codes: np.ndarray, k: int) -> np.ndarray:
    """``(P, R, K)`` indicator of each rater's label (all 0 where not rated)."""
    return (codes[:, :, None] == np.arange(k)).astype(float)


def _conger_chance(shares: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """:math:`p_e` of rater shares ``(..., R, K)``: the mean over ordered pairs of raters."""
    r = shares.shape[-2]
    total = shares.sum(axis=-2)
    both = np.einsum("...k,kl,...l->...", total, weights, total)
    own = np.einsum("...gk,kl,...gl->...", shares, weights, shares)
    return (both - own) / (r * (r - 1)) if r >= 2 else np.full(both.shape, np.nan)


def conger_functional(
    rp: RaterPatterns, patterns: np.ndarray, weights: np.ndarray | None = None
) -> Functional:
    """Conger's κ as features ``[1, m_i, a_i, rater one-hots (R·K)]`` over code patterns."""
    k, r = rp.n_categories, rp.n_raters
    w = np.eye(k) if weights is None else np.asarray(weights, dtype=float)
    _, multi, a, _ = agreement_rows(patterns[rp.group], w)
    features = np.column_stack([np.ones(len(a)), multi, a, _onehot(rp.codes, k).reshape(len(a), r * k)])

    def evaluate(s: np.ndarray) -> np.ndarray:
        p_a = safe_divide(s[..., 2], s[..., 1])
        cells = s[..., 3:].reshape(s.shape[:-1] + (r, k))
        shares = safe_divide(cells, cells.sum(axis=-1, keepdims=True))
        p_e = _conger_chance(shares, w)
        return safe_divide(p_a - p_e, 1.0 - p_e)

    return Functional(features, evaluate, "every rating is in one category (p_e = 1)")


def _rater_cells(rp: RaterPatterns) -> np.ndarray:
    """``(R, K)``: items of the sample rater *g* put in category *k* (a loop over raters)."""
    k = rp.n_categories
    cells = np.zeros((rp.n_raters, k))
    for g in range(rp.n_raters):
        rated = rp.codes[:, g] >= 0
        cells[g] = np.bincount(rp.codes[rated, g], weights=rp.freq[rated], minlength=k)
    return cells


def conger_value_se(
    rp: RaterPatterns, patterns: np.ndarray, weights: np.ndarray | None = None
) -> tuple[float, float]:
    """Conger's κ and Gwet's linearisation SE (R irrCAC ``conger.kappa.raw``): with
    :math:`v_g = \\sum_{h \\ne g} p_h`, :math:`t_g = W^T v_g`, :math:`s_g = t_g \\cdot p_g`, the
    item's chance term is :math:`p_{e|i} = \\frac{1}{r(r-1)}\\sum_g (s_g + [g \\text{ rated } i]
    \\frac{n}{n_g}(t_{g,x_{ig}} - s_g))` and the SE follows :mod:`._variance` (terms scaled by
    :math:`n/n'`). Memory :math:`O(P R)`."""
    k, r = rp.n_categories, rp.n_raters
    w_mat = np.eye(k) if weights is None else np.asarray(weights, dtype=float)
    _, multi, a, _ = agreement_rows(patterns[rp.group], w_mat)
    w = rp.freq.astype(float)
    n, n_multi = w.sum(), w @ multi
    cells = _rater_cells(rp)
    n_g = cells.sum(axis=1)
    if r < 2 or (n_g == 0).any():
        return float("nan"), float("nan")
    shares = cells / n_g[:, None]
    p_e = float(_conger_chance(shares, w_mat))
    if p_e >= 1.0:
        return float("nan"), float("nan")
    kappa = (w @ a / n_multi - p_e) / (1.0 - p_e)
    if n < 2:
        return float(kappa), float("nan")
    t = (shares.sum(axis=0)[None, :] - shares) @ w_mat  # t_g[l] = Σ_k v_gk w_kl
    s = (t * shares).sum(axis=1)
    rated = rp.codes >= 0
    own = np.where(rated, t[np.arange(r)[None, :], np.maximum(rp.codes, 0)] - s, 0.0)
    pe_i = (s.sum() + own @ (n / n_g)) / (r * (r - 1))
    theta_i = (n / n_multi) * (a - p_e * multi) / (1.0 - p_e)
    star = theta_i - 2.0 * (1.0 - kappa) * (pe_i - p_e) / (1.0 - p_e)
    return float(kappa), float(np.sqrt(w @ (star - kappa) ** 2 / (n * (n - 1.0))))


def light_pairs(rp: RaterPatterns) -> list[tuple[int, int]]:
    """Rater pairs ``(a, b)``, ``a < b``, with at least one item both rated."""
    rated = (rp.codes >= 0).astype(float) * rp.freq[:, None]
    common = rated.T @ (rp.codes >= 0)
    return [(a, b) for a in range(rp.n_raters) for b in range(a + 1, rp.n_raters) if common[a, b] > 0]


def _pair_blocks(rp: RaterPatterns, a: int, b: int, w: np.ndarray) -> np.ndarray:
    """``(P, 2K+2)``: both rated, weighted agreement, rater *a*'s and *b*'s label one-hots."""
    k = rp.n_categories
    xa, xb = rp.codes[:, a], rp.codes[:, b]
    both = ((xa >= 0) & (xb >= 0)).astype(float)
    agree = np.where(both > 0, w[np.maximum(xa, 0), np.maximum(xb, 0)], 0.0)
    rows = (xa[:, None] == np.arange(k)) * both[:, None]
    cols = (xb[:, None] == np.arange(k)) * both[:, None]
    return np.column_stack([both, agree, rows, cols])


def _pair_kappa(s: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, ...]:
    """Cohen's κ of pair sums ``(..., 2K+2)`` and its pieces ``(κ, N, p_o, p_e)``."""
    k = w.shape[0]
    n_ab = s[..., 0]
    p_o = safe_divide(s[..., 1], n_ab)
    p_e = safe_divide(np.einsum("...k,kl,...l->...", s[..., 2 : 2 + k], w, s[..., 2 + k :]), n_ab**2)
    return safe_divide(p_o - p_e, 1.0 - p_e), n_ab, p_o, p_e


def light_functional(
    rp: RaterPatterns, pairs: list[tuple[int, int]], weights: np.ndarray | None = None
) -> Functional:
    """Light's κ as pair blocks ``(P, pairs·(2K+2))``: the mean of the pairs' Cohen's κ."""
    k = rp.n_categories
    w = np.eye(k) if weights is None else np.asarray(weights, dtype=float)
    width = 2 * k + 2
    features = np.concatenate([_pair_blocks(rp, a, b, w) for a, b in pairs], axis=1)

    def evaluate(s: np.ndarray) -> np.ndarray:
        blocks = s.reshape(s.shape[:-1] + (len(pairs), width))
        return _pair_kappa(blocks, w)[0].mean(axis=-1)

    return Functional(
        features, evaluate, "Cohen's kappa is undefined for a rater pair (one label on both sides)"
    )


def light_value_se(
    rp: RaterPatterns, pairs: list[tuple[int, int]], weights: np.ndarray | None = None
) -> tuple[float, float]:
    """Light's κ and its delta-method SE: with :math:`\\nabla_{ab}` the gradient of pair
    *ab*'s κ in its sums :math:`(N, A, R, C)` (:math:`\\partial\\kappa/\\partial A = 1/(N(1-p_e))`,
    :math:`\\partial\\kappa/\\partial R = -(1-\\kappa)WC/(N^2(1-p_e))`, …), each item's influence
    is :math:`\\psi_i = \\frac{n}{|pairs|}\\sum_{ab}\\nabla_{ab}\\cdot f_{i,ab}` and
    :math:`\\widehat{\\mathrm{Var}} = \\sum_i \\psi_i^2/(n(n-1))`. Loops over pairs, memory
    :math:`O(P)`."""
    k = rp.n_categories
    w = np.eye(k) if weights is None else np.asarray(weights, dtype=float)
    freq = rp.freq.astype(float)
    n = freq.sum()
    kappas, influence = [], np.zeros(len(freq))
    for a, b in pairs:
        f = _pair_blocks(rp, a, b, w)
        s = freq @ f
        kappa, n_ab, p_o, p_e = (float(x) for x in _pair_kappa(s, w))
        kappas.append(kappa)
        if not np.isfinite(kappa):
            continue
        den = 1.0 - p_e
        scale = (1.0 - kappa) / (den * n_ab**2)
        grad = np.concatenate(
            [
                [(2.0 * (1.0 - kappa) * p_e - p_o) / (n_ab * den), 1.0 / (n_ab * den)],
                -scale * (w @ s[2 + k :]),
                -scale * (w.T @ s[2 : 2 + k]),
            ]
        )
        influence += f @ grad
    value = float(np.mean(kappas)) if kappas else float("nan")
    if not np.isfinite(value) or n < 2:
        return value, float("nan")
    psi = influence * n / len(pairs)
    return value, float(np.sqrt(freq @ psi**2 / (n * (n - 1.0))))
