"""Every chance-corrected statistic here is a smooth function of a few sums over items.

For item *i* with counts :math:`n_{ik}` and :math:`n_i = \\sum_k n_{ik}` ratings, a *feature
row* :math:`f_i` holds per-item quantities (is it rated twice or more, its pairwise agreement,
its category shares, …). A statistic is :math:`\\theta = g(\\sum_i w_i f_i)` with weights
:math:`w_i = 1` for the data, bootstrap multiplicities for a resample, and :math:`w = 1 - e_j`
for the jackknife.

Items with equal count rows have equal features, so with ``patterns`` ``(P, K)`` and
``freq`` ``(P,)`` the sum is ``freq @ F`` — exact, and independent of the number of items.
A bootstrap resample only changes how many items of each pattern are drawn, so 1,000
resamples cost one ``(B, P) @ (P, F)`` product.

**Items rated once** (``single_rated``). ``"gwet"`` (the default): they are items of the
sample — they count in the category shares :math:`\\pi_k` and in *n*, while the agreement
:math:`p_a` averages the :math:`n'` items with two or more ratings (Gwet 2014, §2.3–2.4 and
ch. 5; R irrCAC ``fleiss.kappa.raw``, ``gwet.ac1.raw``, ``conger.kappa.raw``,
``bp.coeff.raw``). ``"drop"``: they are left out before anything is computed (``usable_patterns``).
Krippendorff's α leaves them out under both (they hold no pairable value).

This module builds the count-table feature matrices and the maps *g*; the rater-identity
statistics (Conger, Light) are in :mod:`._raters`, α in :mod:`.alpha`, the standard errors in
:mod:`._variance`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal, get_args

import numpy as np

from wordplay_audit.errors import InputError, check_choice

from ._common import warn_undefined
from .tables import count_patterns, resolve_counts

#: What a statistic does with an item rated once: keep it in the category shares (Gwet) or
#: leave it out first.
SingleRated = Literal["gwet", "drop"]
SINGLE_RATED: tuple[str, ...] = get_args(SingleRated)
Chance = Literal["fleiss", "gwet", "bp", "none"]


@dataclass(frozen=True)
class Patterns:
    """Distinct count rows of the items in the sample.

    ``patterns`` ``(P, K)``, ``freq`` ``(P,)``; ``inverse`` ``(n_items,)`` the pattern of each
    item of the sample, in table order; ``n_items`` items in the sample (``freq.sum()``),
    ``n_dropped`` items left out (no rating; under ``single_rated="drop"`` also one rating),
    ``n_single`` items with one rating (in the sample or not), ``single_rated`` the rule.
    """

    patterns: np.ndarray
    freq: np.ndarray
    inverse: np.ndarray
    n_items: int
    n_dropped: int
    n_single: int = 0
    single_rated: str = "drop"

    @property
    def n_multi(self) -> int:
        """Items with two or more ratings (those that carry agreement)."""
        return int(self.freq[self.patterns.sum(axis=1) >= 2].sum())


def sample_patterns(counts: np.ndarray, single_rated: SingleRated = "gwet") -> Patterns:
    """Patterns of the items in the sample: rated at least once (``"gwet"``) or at least twice
    (``"drop"``); InputError when no item has two ratings."""
    check_choice("single_rated", single_rated, SINGLE_RATED)
    patterns, inverse, freq = count_patterns(counts)
    sizes = patterns.sum(axis=1)
    if not (sizes >= 2).any():
        raise InputError(
            "no item has two or more ratings, so agreement is undefined "
            f"({counts.shape[0]} items, at most one rating each; one rater?)"
        )
    keep = sizes >= (2 if single_rated == "drop" else 1)
    n_dropped = int(freq[~keep].sum())
    if n_dropped:
        new_index = np.cumsum(keep) - 1
        inverse = new_index[inverse[keep[inverse]]]
    return Patterns(
        patterns[keep],
        freq[keep],
        inverse,
        int(freq[keep].sum()),
        n_dropped,
        int(freq[sizes == 1].sum()),
        single_rated,
    )


def usable_patterns(counts: np.ndarray) -> Patterns:
    """Patterns of the rows with :math:`n_i \\ge 2` (``single_rated="drop"``)."""
    return sample_patterns(counts, "drop")


@dataclass(frozen=True)
class Functional:
    """A statistic as feature rows ``(P, F)`` and a map from summed features to the value.

    ``evaluate(S)`` takes ``S`` of shape ``(..., F)`` and returns ``(...)`` (scalar statistic)
    or ``(..., K)`` (one value per category); it returns nan where the statistic is undefined.
    """

    features: np.ndarray
    evaluate: Callable[[np.ndarray], np.ndarray]
    undefined: str  # what it means when evaluate returns nan


def safe_divide(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """``num / den``, nan where ``den`` is 0."""
    num, den = np.broadcast_arrays(np.asarray(num, dtype=float), np.asarray(den, dtype=float))
    out = np.full(num.shape, np.nan)
    np.divide(num, den, out=out, where=den != 0)
    return out


def agreement_rows(
    patterns: np.ndarray, weights: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per-pattern ``n_i``, ``m_i = [n_i ≥ 2]``, pairwise agreement ``a_i`` (0 where
    :math:`n_i < 2`) and category shares ``n_ik / n_i``.

    :math:`a_i = \\sum_k n_{ik}(n^*_{ik}-1) / (n_i(n_i-1))` with :math:`n^*_{ik} = \\sum_l w_{kl}
    n_{il}` — with identity weights the share of ordered rater pairs that agree on item *i*.
    """
    p = patterns.astype(float)
    n_i = p.sum(axis=1)
    multi = n_i >= 2
    weighted = p if weights is None else p @ np.asarray(weights, dtype=float).T
    pairs = np.where(multi, n_i * (n_i - 1), 1.0)
    a = np.where(multi, (p * (weighted - 1.0)).sum(axis=1) / pairs, 0.0)
    share = p / np.where(n_i > 0, n_i, 1.0)[:, None]
    return n_i, multi.astype(float), a, share


def chance_agreement(chance: str, pi: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """:math:`p_e` of ``pi`` ``(..., K)``: Fleiss :math:`\\sum_{kl} w_{kl}\\pi_k\\pi_l`; Gwet
    :math:`T_w \\sum_k \\pi_k(1-\\pi_k)/(q(q-1))`; Brennan–Prediger :math:`T_w/q^2`; none 0
    (:math:`T_w = \\sum_{kl} w_{kl}`, *q* declared categories)."""
    q = pi.shape[-1]
    if chance == "none":
        return np.zeros(pi.shape[:-1])
    if chance == "fleiss":
        return np.einsum("...k,kl,...l->...", pi, weights, pi)
    if q < 2:
        return np.full(pi.shape[:-1], np.nan)
    total = float(weights.sum())
    if chance == "bp":
        return np.full(pi.shape[:-1], total / q**2)
    return total * (pi * (1.0 - pi)).sum(axis=-1) / (q * (q - 1))


_UNDEFINED = {
    "fleiss": "every rating is in one category (p_e = 1)",
    "gwet": "fewer than two categories declared",
    "bp": "fewer than two categories declared, or every weight is 1",
    "none": "no item with two ratings",
}


def chance_corrected_functional(
    patterns: np.ndarray, chance: Chance = "fleiss", weights: np.ndarray | None = None
) -> Functional:
    """:math:`(p_a - p_e)/(1 - p_e)` with :math:`p_a = \\frac{1}{n'}\\sum_{i: n_i \\ge 2} a_i`
    and :math:`p_e` of :math:`\\pi_k = \\frac1n\\sum_i n_{ik}/n_i` (over every item of the
    sample) by :func:`chance_agreement`; ``chance="none"`` is the percent agreement."""
    w = np.eye(patterns.shape[1]) if weights is None else np.asarray(weights, dtype=float)
    _, multi, a, share = agreement_rows(patterns, w)
    features = np.column_stack([np.ones(len(a)), multi, a, share])

    def evaluate(s: np.ndarray) -> np.ndarray:
        p_a = safe_divide(s[..., 2], s[..., 1])
        pi = safe_divide(s[..., 3:], s[..., :1])
        p_e = chance_agreement(chance, pi, w)
        return safe_divide(p_a - p_e, 1.0 - p_e)

    return Functional(features, evaluate, _UNDEFINED[chance])


def percent_agreement_functional(patterns: np.ndarray, weights: np.ndarray | None = None) -> Functional:
    """:math:`p_a = \\frac{1}{n'}\\sum_{i: n_i \\ge 2} a_i` (mean pairwise agreement)."""
    return chance_corrected_functional(patterns, "none", weights)


def fleiss_functional(patterns: np.ndarray, weights: np.ndarray | None = None) -> Functional:
    """Fleiss' κ, generalised to unequal :math:`n_i` (Gwet 2014, §2.3) and to weights:
    :math:`p_e = \\sum_{kl} w_{kl}\\pi_k\\pi_l`. With equal :math:`n_i` and identity weights
    this is Fleiss (1971)."""
    return chance_corrected_functional(patterns, "fleiss", weights)


def ac1_functional(patterns: np.ndarray, weights: np.ndarray | None = None) -> Functional:
    """Gwet's AC1 (identity weights) or AC2: :math:`p_e = T_w\\sum_k \\pi_k(1-\\pi_k)/(q(q-1))`
    (Gwet 2008, 2014); for identity weights :math:`\\frac{1}{q-1}\\sum_k \\pi_k(1-\\pi_k)`."""
    return chance_corrected_functional(patterns, "gwet", weights)


def bp_functional(patterns: np.ndarray, weights: np.ndarray | None = None) -> Functional:
    """Brennan & Prediger (1981): :math:`p_e = T_w / q^2` (:math:`1/q` unweighted)."""
    return chance_corrected_functional(patterns, "bp", weights)


def per_category_functional(patterns: np.ndarray) -> Functional:
    """Fleiss (1971) per-category κ: κ of the table collapsed to *k* versus not-*k*.

    :math:`\\kappa_k = 1 - \\frac{\\frac{1}{n'}\\sum_{i: n_i\\ge2} n_{ik}(n_i-n_{ik})/(n_i(n_i-1))}
    {\\pi_k(1-\\pi_k)}` with :math:`\\pi_k` over the sample (so it is Fleiss' κ of the collapsed
    table under either ``single_rated`` rule); with equal :math:`n_i = m` this is Fleiss'
    :math:`1 - \\sum_i n_{ik}(m-n_{ik}) / (N m (m-1) p_k q_k)`.
    """
    p = patterns.astype(float)
    n_i, multi, _, share = agreement_rows(patterns)
    pairs = np.where(multi > 0, n_i * (n_i - 1), 1.0)
    u = p * (n_i[:, None] - p) * multi[:, None] / pairs[:, None]
    k = p.shape[1]
    features = np.column_stack([np.ones(len(p)), multi, u, share])

    def evaluate(s: np.ndarray) -> np.ndarray:
        dis = safe_divide(s[..., 2 : 2 + k], s[..., 1:2])
        pi = safe_divide(s[..., 2 + k :], s[..., :1])
        return 1.0 - safe_divide(dis, pi * (1.0 - pi))

    return Functional(features, evaluate, "the category is never or always used (π_k(1-π_k) = 0)")


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
    single_rated: SingleRated = "gwet",
) -> float:
    """A scalar statistic of ``data`` (labels, RatingTable or count table): its sample
    patterns, ``build(patterns, category names)``, the value; nan with :class:`UndefinedStatisticWarning`
    (``"<name> is undefined: …"``) pointing at the caller of the public function."""
    counts, names = resolve_counts(data, categories=categories, rater_type=rater_type)
    pats = sample_patterns(counts, single_rated)
    f = build(pats.patterns, names)
    value = float(point_value(pats, f))
    if np.isnan(value):
        warn_undefined(f"{name} is undefined: {f.undefined}; returning nan", stacklevel=4)
    return value


def prevalence(pats: Patterns) -> np.ndarray:
    """Category shares :math:`\\pi_k = \\frac1n\\sum_i n_{ik}/n_i` over the items of the sample."""
    sizes = pats.patterns.sum(axis=1, keepdims=True)
    shares = pats.patterns / np.where(sizes > 0, sizes, 1)
    return (pats.freq @ shares) / pats.n_items
