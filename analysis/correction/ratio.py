"""The randomised exact interval of a realised ratio of two sums over post-strata (game-agnostic):
a judge's realised sensitivity and specificity over all the items it judged.

Post-stratum s holds ``a_s`` items with the attribute among its ``n_s`` labelled ones and
``U_s`` unlabelled items, W_s of which have it (unknown). The target is

    R = P / (P + Q),   P = Σ_{s ∈ num} (a_s + W_s),   Q = Σ_{s ∉ num} (a_s + W_s).

The judge's realised sensitivity is R with the attribute "human-true" and ``num`` = the
post-strata of positive verdicts; its specificity is R with "human-false" and ``num`` = the
negative verdicts. R rises with every W_s of ``num`` and falls with every other one.

Each W_s gets the predictive of :mod:`.calibration` (the randomised Clopper–Pearson confidence
distribution of the post-stratum's share, mixed over Binomial(U_s, q), with one seeded
v_s ~ Uniform(0, 1)); P and Q are the convolutions of their post-strata (independent), and the
bounds are the α/2 and 1 − α/2 quantiles of R = P/(P + Q), found exactly by bisection on
F(r) = P(R ≤ r) = Σ_p P(P = p) · P(Q ≥ p(1 − r)/r) (no Monte-Carlo noise). As in
:func:`.calibration.randomised_share_interval`, a unanimous post-stratum (no label, or every
label, with the attribute) is anchored at its extreme on the side where that extreme lowers
(raises) R – its W_s counts 0 or U_s in the convolution of that bound – and a post-stratum with
unlabelled items but no label at all is unknown: the extreme that lowers R in the lower bound's
convolution, the one that raises it in the upper's (its items could all or none have the
attribute). Draws with P + Q = 0 (R undefined) are left out.

A delta-method normal interval (Tenenbein 1970's variances) is too short on the low side of a
specificity near 0.97: in ``benchmarks/sim_judge_audit_balderdash.py`` the truth lies below its
lower bound in 8.2 % of the cells (coverage 0.916; docs/methods/judge-audit.md).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from wordplay_audit.analysis.correction.calibration import (
    _cdf,
    _whole_predictive,
    log_factorials,
    open_side_v,
)
from wordplay_audit.errors import check_level

__all__ = ["randomised_ratio_interval", "ratio_cdf"]

_TAIL = 1e-15
_BISECTIONS = 60
"""Most halvings of [0, 1] per bound (fewer when the counts are small: :func:`_quantile`)."""


def _sum_pmf(offset: int, pmfs: list[np.ndarray]) -> tuple[int, np.ndarray]:
    """(offset, pmf) of a fixed count plus independent parts, the pmf over offset … offset + Σ U
    with tails of less than 10⁻¹⁵ cut off (thousands of items concentrate on a few hundred
    values: the bisection's cost follows the kept length)."""
    cdf = _cdf([p[None, :] for p in pmfs])[0]
    start = int(np.searchsorted(cdf, _TAIL, side="right"))
    stop = int(np.searchsorted(cdf, 1 - _TAIL, side="left")) + 1
    pmf = np.diff(np.concatenate([[0.0], cdf]))[start:stop]
    return offset + start, pmf / pmf.sum()


def ratio_cdf(r: float, p: tuple[int, np.ndarray], q: tuple[int, np.ndarray]) -> float:
    """P(P/(P + Q) ≤ r) for independent P and Q given as (offset, pmf), draws with P + Q = 0 left
    out (nan when they are all of it).

    P uniform on {0, 1}, Q = 1: R is 0 or ½ with probability ½ each.

    >>> ratio_cdf(0.25, (0, np.array([0.5, 0.5])), (1, np.array([1.0])))
    0.5
    """
    return _RatioCdf(p, q)(r)


class _RatioCdf:
    """r ↦ P(R ≤ r) with what every evaluation shares computed once (the bisection calls it
    ≈ 40 times per bound)."""

    def __init__(self, p: tuple[int, np.ndarray], q: tuple[int, np.ndarray]) -> None:
        self.p, self.q = p, q
        (self.p0, self.pp), (self.q0, pq) = p, q
        self.values = (self.p0 + np.arange(len(self.pp))).astype(float)
        self.survival = np.concatenate([[1.0], 1.0 - np.cumsum(pq)[:-1], [0.0]])  # P(Q ≥ q0 + j)
        self.empty = float(self.pp[0] * pq[0]) if self.p0 == 0 and q[0] == 0 else 0.0  # P = Q = 0
        self.longest = self.p0 + len(self.pp) + q[0] + len(pq)  # bounds P + Q

    def __call__(self, r: float) -> float:
        if self.empty >= 1 - 1e-15:
            return float("nan")
        if r >= 1:
            return 1.0
        if r <= 0:
            return float((self.pp[0] if self.p0 == 0 else 0.0) - self.empty) / (1 - self.empty)
        need = np.ceil(self.values * ((1 - r) / r) - 1e-9)  # R ≤ r ⇔ Q ≥ P(1 − r)/r
        at = np.clip(need - self.q0, 0, len(self.survival) - 1).astype(np.intp)
        return float(np.dot(self.pp, self.survival[at]) - self.empty) / (1 - self.empty)


def _quantile(level: float, cdf: _RatioCdf) -> float:
    """Smallest r with P(R ≤ r) ≥ level (the convention of the share interval's counts): bisection
    until the bracket is narrower than half the gap between two values R can take, then
    :func:`_snap`."""
    if cdf(0.0) >= level - 1e-12:
        return 0.0
    low, high = 0.0, 1.0
    steps = min(_BISECTIONS, int(np.ceil(np.log2(4.0 * float(cdf.longest) ** 2))) + 2)
    for _ in range(steps):
        mid = (low + high) / 2
        if cdf(mid) >= level - 1e-12:
            high = mid
        else:
            low = mid
    return _snap(high, cdf.p, cdf.q)


def _snap(r: float, p: tuple[int, np.ndarray], q: tuple[int, np.ndarray]) -> float:
    """The value p/(p + q) that R takes nearest to ``r`` (two values of R differ by at least
    1/(P + Q)², and the bisection stops within a quarter of that, 2⁻⁶⁰ at most: no doubt below
    ~10⁷ items).
    Returned as the float division of the two counts, the way a realised ratio is computed."""
    (p0, pp), (q0, pq) = p, q
    values = (p0 + np.flatnonzero(pp > 0)).astype(float)
    qs = q0 + np.flatnonzero(pq > 0)
    if r <= 0 or not len(values):
        return 0.0
    q_near = np.clip(np.rint(values * (1 - r) / r), qs.min(), qs.max())
    # the nearest q with positive probability, per p (qs is sorted)
    at = np.clip(np.searchsorted(qs, q_near), 0, len(qs) - 1)
    with np.errstate(invalid="ignore", divide="ignore"):  # P = Q = 0: not a value of R
        cands = np.concatenate([values / (values + qs[at]), values / (values + qs[np.maximum(at - 1, 0)])])
    cands = cands[np.isfinite(cands)]
    return float(cands[np.argmin(np.abs(cands - r))])


def randomised_ratio_interval(
    unlabelled: Sequence[int],
    labelled: Sequence[int],
    labelled_attr: Sequence[int],
    numerator: Sequence[bool],
    *,
    confidence: float = 0.95,
    rng: np.random.Generator | None = None,
    v: Sequence[float] | None = None,
) -> tuple[float, float]:
    """Interval of the realised R = P/(P + Q) (module doc) from whole counts per post-stratum;
    ``v`` (one per post-stratum) is drawn from ``rng`` unless given. (nan, nan) when R is
    undefined with certainty (no item can have the attribute).

    Everything labelled: R is known.

    >>> randomised_ratio_interval([0, 0], [4, 6], [3, 1], [True, False])
    (0.75, 0.75)
    """
    check_level(confidence)
    u = np.rint(np.asarray(unlabelled, dtype=float)).astype(int)
    n = np.rint(np.asarray(labelled, dtype=float)).astype(int)
    a = np.rint(np.asarray(labelled_attr, dtype=float)).astype(int)
    num = np.asarray(numerator, dtype=bool)
    if v is None:
        rng = rng if rng is not None else np.random.default_rng(0)
        v = rng.random(len(u))
    v = open_side_v(np.asarray(v, dtype=float), (a <= 0) & (n > 0), (a >= n) & (n > 0), confidence)
    log_fact = log_factorials(int((u + n).max(initial=0)) + 2)
    pmf = {}  # (post-stratum, side) → pmf of W_s for that bound's convolution
    for s in np.flatnonzero(u > 0):
        # extreme that lowers R: 0 in the numerator, U in the denominator only; raises: the other
        lowers, raises = (0, u[s]) if num[s] else (u[s], 0)
        free = _whole_predictive(int(u[s]), int(n[s]), int(a[s]), float(v[s]), log_fact) if n[s] > 0 else None
        for side, extreme, unanimous in (("low", lowers, a[s] == (0 if num[s] else n[s])),
                                         ("high", raises, a[s] == (n[s] if num[s] else 0))):  # fmt: skip
            pmf[s, side] = np.eye(1, u[s] + 1, extreme)[0] if free is None or unanimous else free
    bounds = []
    for side, level in (("low", (1 - confidence) / 2), ("high", 1 - (1 - confidence) / 2)):
        parts = [
            _sum_pmf(int(a[num].sum()), [pmf[s, side] for s in np.flatnonzero((u > 0) & num)]),
            _sum_pmf(int(a[~num].sum()), [pmf[s, side] for s in np.flatnonzero((u > 0) & ~num)]),
        ]
        cdf = _RatioCdf(*parts)
        if cdf.empty >= 1 - 1e-15:
            return np.nan, np.nan
        bounds.append(_quantile(level, cdf))
    return float(bounds[0]), float(bounds[1])
