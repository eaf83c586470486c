"""Every chance-corrected statistic here is a smooth function of a few sums over items.

For item *i* with counts :math:`n_{ik}` and :math:`n_i = \\sum_k n_{ik} \\ge 2` ratings, let a
*feature row* :math:`f_i` hold per-item quantities (its pairwise agreement, its category shares,
…). A statistic is :math:`\\theta = g(\\sum_i w_i f_i)` with weights :math:`w_i = 1` for the
data, bootstrap multiplicities for a resample, and :math:`w = 1 - e_j` for the jackknife.

Items with equal count rows have equal features, so with ``patterns`` ``(P, K)`` and
``freq`` ``(P,)`` the sum is ``freq @ F`` — exact, and independent of the number of items.
A bootstrap resample only changes how many items of each pattern are drawn, so 1,000
resamples cost one ``(B, P) @ (P, F)`` product.

This module builds the feature matrices and the maps *g*; the public functions live in
:mod:`.kappa`, :mod:`.alpha`, :mod:`.ac1` and :mod:`.bootstrap`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from wordplay_audit.errors import InputError, check_choice

from ._common import LEVELS, warn_undefined
from .tables import count_patterns, resolve_counts


@dataclass(frozen=True)
class Patterns:
    """Distinct count rows of the items that have at least two ratings.

    ``patterns`` ``(P, K)``, ``freq`` ``(P,)``; ``inverse`` ``(n_items,)`` the pattern of each
    usable item, in table order; ``n_items`` usable items (``freq.sum()``), ``n_dropped`` items
    with fewer than two ratings (left out of every statistic).
    """

    patterns: np.ndarray
    freq: np.ndarray
    inverse: np.ndarray
    n_items: int
    n_dropped: int


def usable_patterns(counts: np.ndarray) -> Patterns:
    """Patterns of the rows with :math:`n_i \\ge 2`; InputError when there is none."""
    patterns, inverse, freq = count_patterns(counts)
    keep = patterns.sum(axis=1) >= 2
    if not keep.any():
        raise InputError(
            "no item has two or more ratings, so agreement is undefined "
            f"({counts.shape[0]} items, at most one rating each; one rater?)"
        )
    n_dropped = int(freq[~keep].sum())
    if n_dropped:
        new_index = np.cumsum(keep) - 1
        inverse = new_index[inverse[keep[inverse]]]
    return Patterns(patterns[keep], freq[keep], inverse, int(freq[keep].sum()), n_dropped)


@dataclass(frozen=True)
class Functional:
    """A statistic as feature rows ``(P, F)`` and a map from summed features to the value.

    ``evaluate(S)`` takes ``S`` of shape ``(..., F)`` and returns ``(...)`` (scalar statistic)
    or ``(..., K)`` (one value per category); it returns nan where the statistic is undefined.
    """

    features: np.ndarray
    evaluate: Callable[[np.ndarray], np.ndarray]
    undefined: str  # what it means when evaluate returns nan


def _safe_divide(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    num, den = np.broadcast_arrays(np.asarray(num, dtype=float), np.asarray(den, dtype=float))
    out = np.full(num.shape, np.nan)
    np.divide(num, den, out=out, where=den != 0)
    return out


def _agreement_rows(patterns: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per-pattern ``n_i``, pairwise agreement ``a_i`` and category shares ``n_ik / n_i``.

    :math:`a_i = \\sum_k n_{ik}(n_{ik}-1) / (n_i(n_i-1))`, the share of ordered rater pairs
    that agree on item *i*.
    """
    p = patterns.astype(float)
    n_i = p.sum(axis=1)
    a = ((p * p).sum(axis=1) - n_i) / (n_i * (n_i - 1))
    return n_i, a, p / n_i[:, None]


def percent_agreement_functional(patterns: np.ndarray) -> Functional:
    """:math:`p_a = \\frac{1}{n}\\sum_i a_i` (mean pairwise agreement)."""
    _, a, _ = _agreement_rows(patterns)
    features = np.column_stack([np.ones(len(a)), a])

    def evaluate(s: np.ndarray) -> np.ndarray:
        return _safe_divide(s[..., 1], s[..., 0])

    return Functional(features, evaluate, "no items")


def _chance_corrected(patterns: np.ndarray, chance: Callable[[np.ndarray], np.ndarray]) -> Functional:
    _, a, share = _agreement_rows(patterns)
    features = np.column_stack([np.ones(len(a)), a, share])

    def evaluate(s: np.ndarray) -> np.ndarray:
        w = s[..., 0]
        p_a = _safe_divide(s[..., 1], w)
        pi = _safe_divide(s[..., 2:], w[..., None])
        p_e = chance(pi)
        return _safe_divide(p_a - p_e, 1.0 - p_e)

    return Functional(features, evaluate, "")


def fleiss_functional(patterns: np.ndarray) -> Functional:
    """Fleiss' κ, generalised to unequal :math:`n_i` (Gwet 2014, §2.3):
    :math:`\\kappa = (p_a - p_e)/(1 - p_e)`, :math:`p_e = \\sum_k \\pi_k^2`,
    :math:`\\pi_k = \\frac{1}{n}\\sum_i n_{ik}/n_i`. With equal :math:`n_i` this is Fleiss (1971)."""
    f = _chance_corrected(patterns, lambda pi: (pi * pi).sum(axis=-1))
    return Functional(f.features, f.evaluate, "every rating is in one category (p_e = 1)")


def ac1_functional(patterns: np.ndarray) -> Functional:
    """Gwet's AC1: :math:`p_e = \\frac{1}{q-1}\\sum_k \\pi_k(1-\\pi_k)` (Gwet 2008)."""
    q = patterns.shape[1]

    def chance(pi: np.ndarray) -> np.ndarray:
        if q < 2:
            return np.full(pi.shape[:-1], np.nan)
        return (pi * (1.0 - pi)).sum(axis=-1) / (q - 1)

    f = _chance_corrected(patterns, chance)
    return Functional(f.features, f.evaluate, "fewer than two categories declared")


def per_category_functional(patterns: np.ndarray) -> Functional:
    """Fleiss (1971) per-category κ: κ of the table collapsed to *k* versus not-*k*.

    :math:`\\kappa_k = 1 - \\frac{\\frac1n\\sum_i n_{ik}(n_i-n_{ik})/(n_i(n_i-1))}{\\pi_k(1-\\pi_k)}`;
    with equal :math:`n_i = m` this is Fleiss' :math:`1 - \\sum_i n_{ik}(m-n_{ik}) /
    (N m (m-1) p_k q_k)`.
    """
    p = patterns.astype(float)
    n_i = p.sum(axis=1)
    u = p * (n_i[:, None] - p) / (n_i * (n_i - 1))[:, None]
    share = p / n_i[:, None]
    k = p.shape[1]
    features = np.column_stack([np.ones(len(p)), u, share])

    def evaluate(s: np.ndarray) -> np.ndarray:
        w = s[..., :1]
        dis = _safe_divide(s[..., 1 : 1 + k], w)
        pi = _safe_divide(s[..., 1 + k :], w)
        return 1.0 - _safe_divide(dis, pi * (1.0 - pi))

    return Functional(features, evaluate, "the category is never or always used (π_k(1-π_k) = 0)")


def ordinal_distances(totals: np.ndarray) -> np.ndarray:
    """Krippendorff's ordinal :math:`\\delta^2_{ck} = (\\sum_{g=c}^{k} n_g - (n_c+n_k)/2)^2`.

    ``totals`` ``(..., K)`` pairable values per category (in rank order); returns ``(..., K, K)``.
    """
    k = totals.shape[-1]
    cum = np.concatenate([np.zeros(totals.shape[:-1] + (1,)), np.cumsum(totals, axis=-1)], axis=-1)
    idx = np.arange(k)
    lo, hi = np.minimum.outer(idx, idx), np.maximum.outer(idx, idx)
    between = cum[..., hi + 1] - cum[..., lo]
    half = (totals[..., :, None] + totals[..., None, :]) / 2.0
    return (between - half) ** 2


def fixed_distances(level: str, values: np.ndarray | None, k: int) -> np.ndarray:
    """:math:`\\delta^2` for nominal (0/1), interval :math:`(v_c-v_k)^2` and ratio
    :math:`((v_c-v_k)/(v_c+v_k))^2` (0 when :math:`v_c+v_k=0`), as in ``krippendorff``."""
    if level == "nominal":
        return 1.0 - np.eye(k)
    if values is None:
        raise InputError(f"level {level!r} needs numeric category values")
    v = np.asarray(values, dtype=float)
    diff = v[:, None] - v[None, :]
    if level == "interval":
        return diff**2
    total = v[:, None] + v[None, :]
    return np.where(total != 0, _safe_divide(diff, total), 0.0) ** 2


def alpha_functional(
    patterns: np.ndarray, *, level: str = "nominal", values: np.ndarray | None = None
) -> Functional:
    """Krippendorff's α: :math:`\\alpha = 1 - (N-1)\\frac{\\sum_{c,k}\\delta^2_{ck}o_{ck}}
    {\\sum_{c,k}\\delta^2_{ck} n_c n_k}` with coincidences
    :math:`o_{ck} = \\sum_u n_{uc}n_{uk}/(m_u-1)` (off the diagonal), :math:`n_c = \\sum_u n_{uc}`,
    :math:`N = \\sum_c n_c`, over units with :math:`m_u \\ge 2` (Krippendorff 2011)."""
    check_choice("level", level, LEVELS)
    p = patterns.astype(float)
    k = p.shape[1]
    m = p.sum(axis=1)
    if level == "ordinal":
        outer = (p[:, :, None] * p[:, None, :]) / (m - 1)[:, None, None]
        features = np.column_stack([m, p, outer.reshape(len(p), k * k)])

        def evaluate(s: np.ndarray) -> np.ndarray:
            n_tot = s[..., 0]
            totals = s[..., 1 : 1 + k]
            coinc = s[..., 1 + k :].reshape(s.shape[:-1] + (k, k))
            delta = ordinal_distances(totals)
            observed = (delta * coinc).sum(axis=(-2, -1))
            expected = np.einsum("...c,...ck,...k->...", totals, delta, totals)
            return 1.0 - _safe_divide((n_tot - 1.0) * observed, expected)

        return Functional(features, evaluate, "no variation among pairable values (D_e = 0)")
    delta = fixed_distances(level, values, k)
    q = np.einsum("pc,ck,pk->p", p, delta, p) / (m - 1)
    features = np.column_stack([m, q, p])

    def evaluate_fixed(s: np.ndarray) -> np.ndarray:
        n_tot = s[..., 0]
        totals = s[..., 2:]
        expected = np.einsum("...c,ck,...k->...", totals, delta, totals)
        return 1.0 - _safe_divide((n_tot - 1.0) * s[..., 1], expected)

    return Functional(features, evaluate_fixed, "no variation among pairable values (D_e = 0)")


def linearised_se(patterns: np.ndarray, freq: np.ndarray, *, chance: str) -> float:
    """Gwet's linearisation standard error of Fleiss' κ (``chance="fleiss"``) or AC1
    (``chance="ac1"``), conditional on the raters, for an infinite population of items.

    With :math:`\\theta_i = (a_i - p_e)/(1-p_e)`, :math:`p_{e|i}` the item's chance term
    (:math:`\\sum_k (n_{ik}/n_i)\\pi_k` for κ, :math:`\\frac{1}{q-1}\\sum_k (n_{ik}/n_i)(1-\\pi_k)`
    for AC1) and :math:`\\theta^*_i = \\theta_i - 2(1-\\theta)(p_{e|i}-p_e)/(1-p_e)`:
    :math:`\\widehat{\\mathrm{Var}}(\\theta) = \\frac{1}{n(n-1)}\\sum_i(\\theta^*_i-\\theta)^2`.

    Gwet, K. L. (2008). Computing inter-rater reliability and its variance in the presence of
    high agreement. Br. J. Math. Stat. Psychol. 61, 29–48; Gwet (2014), Handbook of
    Inter-Rater Reliability, 4th ed., ch. 5 (as in the R package irrCAC).
    """
    _, a, share = _agreement_rows(patterns)
    w = freq.astype(float)
    n = w.sum()
    if n < 2:
        return float("nan")
    q = patterns.shape[1]
    pi = (w @ share) / n
    p_a = (w @ a) / n
    if chance == "fleiss":
        p_e = float(pi @ pi)
        pe_i = share @ pi
    else:
        if q < 2:
            return float("nan")
        p_e = float(pi @ (1.0 - pi)) / (q - 1)
        pe_i = share @ (1.0 - pi) / (q - 1)
    if p_e == 1.0:
        return float("nan")
    theta = (p_a - p_e) / (1.0 - p_e)
    theta_i = (a - p_e) / (1.0 - p_e)
    theta_star = theta_i - 2.0 * (1.0 - theta) * (pe_i - p_e) / (1.0 - p_e)
    var = float(w @ (theta_star - theta) ** 2) / (n * (n - 1.0))
    return float(np.sqrt(var))


def point_value(pats: Patterns, functional: Functional) -> float | np.ndarray:
    """The statistic on the data itself: ``evaluate(freq @ features)``."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return functional.evaluate(pats.freq @ functional.features)


def point_statistic(
    data: object,
    build: Callable[[np.ndarray, np.ndarray], Functional],
    name: str,
    *,
    categories: object = None,
    rater_type: str | None = "human",
) -> float:
    """A scalar statistic of ``data`` (labels, RatingTable or count table): its usable
    patterns, ``build(patterns, category names)``, the value; nan with :class:`UndefinedStatisticWarning`
    (``"<name> is undefined: …"``) pointing at the caller of the public function."""
    counts, names = resolve_counts(data, categories=categories, rater_type=rater_type)
    pats = usable_patterns(counts)
    f = build(pats.patterns, names)
    value = float(point_value(pats, f))
    if np.isnan(value):
        warn_undefined(f"{name} is undefined: {f.undefined}; returning nan", stacklevel=4)
    return value


def point_se(
    data: object, chance: str, *, categories: object = None, rater_type: str | None = "human"
) -> float:
    """:func:`linearised_se` of ``data`` (labels, RatingTable or count table) for Fleiss' κ
    (``chance="fleiss"``) or AC1 (``chance="ac1"``)."""
    counts, _ = resolve_counts(data, categories=categories, rater_type=rater_type)
    pats = usable_patterns(counts)
    return linearised_se(pats.patterns, pats.freq, chance=chance)


def prevalence(pats: Patterns) -> np.ndarray:
    """Category shares :math:`\\pi_k = \\frac1n\\sum_i n_{ik}/n_i` over the usable items."""
    shares = pats.patterns / pats.patterns.sum(axis=1, keepdims=True)
    return (pats.freq @ shares) / pats.n_items
