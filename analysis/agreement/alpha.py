"""Krippendorff's α from the item × category count table (``value_counts``), its feature
form for the bootstrap and its standard error (Gwet 2014, as R irrCAC ``krippen.alpha.raw``)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from wordplay_audit.corpora.values import parse_number
from wordplay_audit.errors import InputError, check_choice

from ._common import LEVELS, Level, RaterType
from ._core import Functional, point_statistic, safe_divide

__all__ = [
    "krippendorff_alpha",
    "krippendorff_alpha_se",
    "category_values",
    "alpha_functional",
    "alpha_se",
    "alpha_weights",
]


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
    return np.where(total != 0, safe_divide(diff, total), 0.0) ** 2


def alpha_functional(
    patterns: np.ndarray, *, level: str = "nominal", values: np.ndarray | None = None
) -> Functional:
    """Krippendorff's α: :math:`\\alpha = 1 - (N-1)\\frac{\\sum_{c,k}\\delta^2_{ck}o_{ck}}
    {\\sum_{c,k}\\delta^2_{ck} n_c n_k}` with coincidences
    :math:`o_{ck} = \\sum_u n_{uc}n_{uk}/(m_u-1)` (off the diagonal), :math:`n_c = \\sum_u n_{uc}`,
    :math:`N = \\sum_c n_c`, over units with :math:`m_u \\ge 2` (Krippendorff 2011): the
    features of a unit with one value are 0, so it is in a resample without counting in α."""
    check_choice("level", level, LEVELS)
    p = patterns.astype(float)
    k = p.shape[1]
    pairable = p.sum(axis=1) >= 2
    p = p * pairable[:, None]
    m = np.where(pairable, p.sum(axis=1), 2.0)  # 2: any value > 1 (the row is 0)
    if level == "ordinal":
        outer = (p[:, :, None] * p[:, None, :]) / (m - 1)[:, None, None]
        features = np.column_stack([m * pairable, p, outer.reshape(len(p), k * k)])

        def evaluate(s: np.ndarray) -> np.ndarray:
            n_tot = s[..., 0]
            totals = s[..., 1 : 1 + k]
            coinc = s[..., 1 + k :].reshape(s.shape[:-1] + (k, k))
            delta = ordinal_distances(totals)
            observed = (delta * coinc).sum(axis=(-2, -1))
            expected = np.einsum("...c,...ck,...k->...", totals, delta, totals)
            return 1.0 - safe_divide((n_tot - 1.0) * observed, expected)

        return Functional(features, evaluate, "no variation among pairable values (D_e = 0)")
    delta = fixed_distances(level, values, k)
    q = np.einsum("pc,ck,pk->p", p, delta, p) / (m - 1)
    features = np.column_stack([m * pairable, q, p])

    def evaluate_fixed(s: np.ndarray) -> np.ndarray:
        n_tot = s[..., 0]
        totals = s[..., 2:]
        expected = np.einsum("...c,ck,...k->...", totals, delta, totals)
        return 1.0 - safe_divide((n_tot - 1.0) * s[..., 1], expected)

    return Functional(features, evaluate_fixed, "no variation among pairable values (D_e = 0)")


def alpha_weights(level: str, values: np.ndarray | None, k: int) -> np.ndarray | None:
    """The agreement weights :math:`1 - \\delta^2/\\max\\delta^2` of α's distance at a fixed
    level (irrCAC's identity, quadratic and ratio weights); None for ordinal, whose distances
    depend on the data."""
    if level == "ordinal":
        return None
    delta = fixed_distances(level, values, k)
    top = delta.max()
    return 1.0 - delta / top if top > 0 else np.eye(k)


def alpha_se(patterns: np.ndarray, freq: np.ndarray, weights: np.ndarray | None) -> float:
    """Gwet's (2014) linearisation SE of α over the units with two or more values, as R irrCAC
    ``krippen.alpha.raw``: with :math:`\\bar r` the mean values per unit,
    :math:`p'_a = \\frac1n\\sum_i \\frac{\\sum_k n_{ik}(n^*_{ik}-1)}{\\bar r(r_i-1)}`,
    :math:`\\pi_k = \\frac1n\\sum_i n_{ik}/\\bar r`, :math:`p_e = \\sum w_{kl}\\pi_k\\pi_l`,
    :math:`\\alpha' = (p'_a-p_e)/(1-p_e)`; per unit
    :math:`p_{a|i} = \\frac{\\sum_k n_{ik}(n^*_{ik}-1)}{\\bar r(r_i-1)} - p'_a\\frac{r_i-\\bar r}{\\bar r}`,
    :math:`p_{e|i} = \\frac{\\sum_k n_{ik}\\bar\\pi_{w,k}}{\\bar r} - p_e\\frac{r_i-\\bar r}{\\bar r}`
    (:math:`\\bar\\pi_w = (W\\pi + W^T\\pi)/2`), :math:`\\alpha^*_i = \\frac{p_{a|i}-p_e}{1-p_e}
    - 2(1-\\alpha')\\frac{p_{e|i}-p_e}{1-p_e}` and
    :math:`\\widehat{\\mathrm{Var}} = \\frac{1}{n(n-1)}\\sum_i(\\alpha^*_i-\\alpha')^2`.
    nan for ordinal (``weights`` None), fewer than 2 units, or :math:`p_e = 1`."""
    p = patterns.astype(float)
    r_i = p.sum(axis=1)
    keep = r_i >= 2
    w, p, r_i = freq[keep].astype(float), p[keep], r_i[keep]
    n = w.sum()
    if weights is None or n < 2:
        return float("nan")
    r_bar = (w @ r_i) / n
    sum_q = (p * (p @ weights.T - 1.0)).sum(axis=1) / (r_bar * (r_i - 1.0))
    pa_prime = (w @ sum_q) / n
    pi = (w @ p) / (n * r_bar)
    p_e = float(pi @ weights @ pi)
    if p_e >= 1.0:
        return float("nan")
    alpha_prime = (pa_prime - p_e) / (1.0 - p_e)
    pa_i = sum_q - pa_prime * (r_i - r_bar) / r_bar
    pi_w = (weights @ pi + weights.T @ pi) / 2.0
    pe_i = (p @ pi_w) / r_bar - p_e * (r_i - r_bar) / r_bar
    star = (pa_i - p_e) / (1.0 - p_e) - 2.0 * (1.0 - alpha_prime) * (pe_i - p_e) / (1.0 - p_e)
    return float(np.sqrt(w @ (star - alpha_prime) ** 2 / (n * (n - 1.0))))


def category_values(names: Sequence[object], level: Level) -> np.ndarray | None:
    """Numeric values of category names for interval/ratio α (None for nominal/ordinal).

    Names are parsed by :func:`wordplay_audit.corpora.values.parse_number`; raises
    :class:`InputError` naming the first name that is not a finite number.
    """
    check_choice("level", level, LEVELS)
    if level in ("nominal", "ordinal"):
        return None
    values = [parse_number(n) for n in names]
    if None in values:
        bad = names[values.index(None)]
        raise InputError(f"level {level!r} needs numeric labels, got {bad!r}; use 'nominal' or 'ordinal'")
    return np.asarray(values, dtype=float)


def krippendorff_alpha(
    data: object,
    *,
    level: Level = "nominal",
    categories: Sequence[str] | None = None,
    rater_type: RaterType | None = "human",
) -> float:
    """Krippendorff's α for any number of raters with missing ratings.

    With the ``(n, K)`` table :math:`n_{uc}` (Krippendorff's ``value_counts``), :math:`m_u`
    values in unit *u*, only units with :math:`m_u \\ge 2` (pairable) counted:

    * coincidences :math:`o_{ck} = \\sum_u (n_{uc}n_{uk} - [c=k]n_{uc})/(m_u - 1)`,
      :math:`n_c = \\sum_k o_{ck}`, :math:`N = \\sum_c n_c`;
    * :math:`\\alpha = 1 - D_o/D_e = 1 - (N-1)\\frac{\\sum_{c,k} o_{ck}\\,\\delta^2_{ck}}
      {\\sum_{c,k} n_c n_k\\,\\delta^2_{ck}}`.

    ``level``: ``nominal`` (:math:`\\delta^2 = [c \\ne k]`), ``ordinal`` (rank distances from the
    pairable totals, category order = column order / declared ``categories``), ``interval``
    :math:`(v_c - v_k)^2` or ``ratio`` :math:`((v_c-v_k)/(v_c+v_k))^2` — numeric category names.
    Same semantics as ``krippendorff.alpha(value_counts=..., level_of_measurement=...)``.

    nan (with a warning) when :math:`D_e = 0` (one value only among pairable ratings).
    Raises :class:`~wordplay_audit.errors.ParameterError` for an unknown ``level`` and
    :class:`InputError` for non-numeric labels at interval/ratio level.

    Reference: Krippendorff, K. (2011). Computing Krippendorff's alpha-reliability.
    Annenberg School for Communication, University of Pennsylvania.
    """
    check_choice("level", level, LEVELS)

    def build(patterns: np.ndarray, names: Sequence[object]) -> Functional:
        return alpha_functional(patterns, level=level, values=category_values(names, level))

    return point_statistic(data, build, "Krippendorff's alpha", categories=categories, rater_type=rater_type)


def krippendorff_alpha_se(
    data: object,
    *,
    level: Level = "nominal",
    categories: Sequence[str] | None = None,
    rater_type: RaterType | None = "human",
) -> float:
    """Standard error of :func:`krippendorff_alpha` by Gwet's linearisation (:func:`alpha_se`,
    R irrCAC ``krippen.alpha.raw`` with the identity, quadratic or ratio weights that are α's
    nominal, interval and ratio distances). nan at the ordinal level: its distances depend on
    the data, and irrCAC's ordinal weights are another coefficient."""
    from ._core import sample_patterns
    from .tables import resolve_counts

    check_choice("level", level, LEVELS)
    counts, names = resolve_counts(data, categories=categories, rater_type=rater_type)
    pats = sample_patterns(counts, "drop")
    weights = alpha_weights(level, category_values(names, level), len(names))
    return alpha_se(pats.patterns, pats.freq, weights)
