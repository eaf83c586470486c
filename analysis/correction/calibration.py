"""The randomised exact share interval of a cell, and its exact coverage (game-agnostic).

The target is the realised number of true items Y = Σ_s Y_s among the ``U_s`` unlabelled items
of the post-strata of one cell, from ``x_s`` true of ``n_s`` labels per post-stratum.

*The interval* (:func:`randomised_share_interval`). Per post-stratum the share q_s gets the
confidence distribution of the randomised Clopper–Pearson interval (Stevens 1950, Biometrika
37:117; Geyer & Meeden 2005, Stat. Sci. 20:358): with v_s ~ Uniform(0, 1),

    H_s(q) = (1 − v_s) · I_q(x_s, n_s − x_s + 1) + v_s · I_q(x_s + 1, n_s − x_s),

I the regularised incomplete beta function, i.e. the mixture (1 − v)·Beta(x, n − x + 1) +
v·Beta(x + 1, n − x) (a point mass at 0 or 1 where a parameter is 0). Its equal-tailed
quantiles are the randomised Clopper–Pearson interval, whose coverage is exactly the nominal
level at every share q: the discreteness of x no longer makes coverage oscillate with q, which is
what kept the Jeffreys interval from 93–97 % at 5–10 labels. Y_s given q_s is Binomial(U_s, q_s),
so its predictive is the mixture of the two beta-binomials; Y's pmf is their convolution (direct
up to 4096 unlabelled items, by FFT beyond; no Monte-Carlo noise) and the interval is its
(α/2, 1 − α/2) quantiles – except for the *unanimous* post-strata: one with no true label
(x_s = 0) is left out of the convolution that gives the lower bound (its items count 0 there,
their least), one with every label true (x_s = n_s) out of the one for the upper bound (its
items count U_s there). Each beta mixture is drawn towards ½ (mean (x + v)/(n + 1)); summed over
several post-strata near 0 (or near 1) that drift moved a bound past the realised count: exact
coverage 0.696 for four post-strata of (200, 50, 30, 300) items with (6, 5, 5, 8) labels, all
at share 0.001 (0.990 anchored); on the grids of ``benchmarks/sim_share_coverage_grids.py`` one
side misses up to 0.337 unanchored, ≤ 0.046 anchored (docs/methods/corrected-shares.md).
*Unanimous post-strata, the open side* (:func:`open_side_v`). With 0 of n labels true the
mixture is (1 − v)·δ₀ + v·Beta(1, n): for v ≤ α/2 its upper quantile is 0, the anchored lower
bound's value, and a partly labelled cell got a zero-width interval (on Wheel of Fortune models
with 20 of 190–340 lost games labelled, none true, about 1 in 40 campaigns: [0.223, 0.223]
against a realised 0.273). Exact coverage of the share q forces that (at x = 0 an exact upper
bound must fall below every small q with probability α/2), but the target here is the realised
count, so such a post-stratum's v is kept at least α = 1 − ``confidence`` from that end (v ≥ α
at x = 0, v ≤ 1 − α at x = n): its open side is then never below the randomised bound at v = α,
where the predictive's quantile is the median of BetaBinomial(U, 1, n) – the median-unbiased
share. Where the predictive itself puts 1 − α/2 on one count (few unlabelled items beside many
labels: 0 of 180 true, 20 unlabelled, v up to 0.25) the two bounds can still meet; then the
upper one (the lower at the top) moves by one item. Only a fully labelled cell has a
zero-width interval. The cost is coverage where a
unanimous outcome carries the tail: at 20 labels and shares ≥ 0.05 ≤ 0.003 (0.952 → 0.954 at
300 items, q = 0.05); at 5–10 labels and shares ≤ 0.05 the open side is (all but) never missed,
coverage 0.97–0.99 (docs/methods/corrected-shares.md, *Unanimous post-strata*).

``v_s`` comes from a generator seeded by the caller's ``seed`` (the commands record it): a
randomised interval – another seed moves a bound by at most the spread the discreteness of x
leaves – whose coverage is the nominal level averaged over v, i.e. over seeds.

*Its coverage* (:func:`share_coverage`) at given shares is exact under the model the interval
rests on (items of a post-stratum true with probability q_s independently; labels a random
sample of the post-stratum): Σ_x Π_s Bin(x_s; n_s, q_s) · E_v P(low ≤ Y ≤ high), Y ~ ⊛ Bin(U_s,
q_s), every label outcome enumerated and v integrated over [0, 1]^S by a scrambled Sobol set
(seeded). The integrand jumps near v = 0 and 1 (the point masses at a share of 0 or 1 carry
weight 1 − v or v), so a coarse grid misleads: on one cell of 5 + 5 labels a 4-point midpoint
grid gave 0.979, 20 points 0.949, 40 points 0.952; use a few hundred points.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np

from wordplay_audit.errors import check_level

__all__ = ["coverage_frame", "predictive_pmf", "randomised_share_interval", "share_coverage", "share_misses"]


DIRECT_LIMIT = 4096
"""Up to this many unlabelled items the post-strata pmfs are convolved directly, beyond by FFT."""


def _fft_len(total: int) -> int:
    return 1 << int(np.ceil(np.log2(max(total + 1, 2))))


def _beta_binomial(u: int, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Rows BetaBinomial(u, a, b) over 0..u; a point mass at 0 (a = 0) or u (b = 0). The pmf
    C(u, k)·B(k + a, u − k + b)/B(a, b) in logs (``scipy.special``; the formula of
    ``scipy.stats.betabinom``, which costs a second to import). Whole a and b (label counts)
    take log Γ from one table over 1 … u + max(a + b) instead of ``betaln`` per cell.

    >>> from scipy import stats
    >>> k = np.arange(8)[None, :]
    >>> got = _beta_binomial(7, np.array([0.5, 2.0]), np.array([3.0, 1.0]))
    >>> want = stats.betabinom.pmf(k, 7, [[0.5], [2.0]], [[3.0], [1.0]])
    >>> bool(np.allclose(got, want, rtol=1e-12, atol=0))
    True
    >>> k = np.arange(20001)[None, :]  # whole parameters: the table
    >>> got = _beta_binomial(20000, np.array([3.0, 40.0]), np.array([9.0, 1.0]))
    >>> want = stats.betabinom.pmf(k, 20000, [[3.0], [40.0]], [[9.0], [1.0]])
    >>> bool(np.allclose(got, want, rtol=1e-8, atol=1e-300))
    True
    """
    a, b = np.asarray(a, float)[:, None], np.asarray(b, float)[:, None]
    ap, bp = np.where(a <= 0, 1.0, a), np.where(b <= 0, 1.0, b)  # point-mass rows: replaced below
    if ((ap == np.rint(ap)) & (bp == np.rint(bp)) & (ap >= 1) & (bp >= 1)).all():
        out = _whole_beta_binomial(u, ap.astype(int), bp.astype(int))
    else:
        from scipy import special  # effective (weighted) counts only: the label-count paths skip the import

        k = np.arange(u + 1, dtype=float)[None, :]
        log_choose = special.gammaln(u + 1.0) - special.gammaln(k + 1) - special.gammaln(u - k + 1)
        out = np.exp(log_choose + special.betaln(k + ap, u - k + bp) - special.betaln(ap, bp))
    k = np.arange(u + 1)[None, :]
    out = np.where(a <= 0, (k == 0).astype(float), out)
    return np.where(b <= 0, (k == u).astype(float), out)


def log_factorials(m: int) -> np.ndarray:
    """log j! for j = 0 … m − 1, as float64 (read-only): a running sum of log j in extended
    precision (``np.longdouble``), so the table matches ``scipy.special.gammaln(j + 1)`` to
    float64 rounding without importing scipy (≈ 0.15 s of a command's start-up). One table is
    kept and grown (doubling), so repeated calls cost a slice.

    >>> from scipy.special import gammaln
    >>> j = np.arange(200001, dtype=float)
    >>> bool(np.allclose(log_factorials(200001), gammaln(j + 1), rtol=1e-14, atol=1e-14))
    True
    >>> log_factorials(4).tolist() == [0.0, 0.0, float(np.log(2)), float(np.log(6))]
    True
    """
    global _LOG_FACT
    m = max(int(m), 0)
    if m > len(_LOG_FACT):
        size = max(m, 2 * len(_LOG_FACT))
        table = np.zeros(size, dtype=np.longdouble)
        np.cumsum(np.log(np.arange(1, size, dtype=np.longdouble)), out=table[1:])
        _LOG_FACT = table.astype(float)
        _LOG_FACT.flags.writeable = False
    return _LOG_FACT[:m]


_LOG_FACT = np.zeros(1)


def _whole_beta_binomial(u: int, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """:func:`_beta_binomial` for whole a, b ≥ 1 (columns): every log Γ read from one table."""
    log_gamma = log_factorials(u + int((a + b).max()))  # [j] = log Γ(j + 1)
    k = np.arange(u + 1)
    log_fact = log_gamma[k]  # log Γ(k + 1) = log k!
    body = log_gamma[k[None, :] + a - 1] + log_gamma[u - k[None, :] + b - 1]
    const = (
        log_gamma[u] - log_gamma[u + a + b - 1] - log_gamma[a - 1] - log_gamma[b - 1] + log_gamma[a + b - 1]
    )
    return np.exp(const + body - log_fact[None, :] - log_fact[::-1][None, :])


def _whole_predictive(u: int, n: int, x: int, v: float, log_fact: np.ndarray) -> np.ndarray:
    """:func:`predictive_pmf` for whole counts 0 ≤ x ≤ n, one row, from ``log_fact`` (log j! for
    j = 0 … ≥ u + n): the per-cell path of :func:`randomised_share_interval` (the adaptive
    simulation calls it tens of thousands of times)."""
    k = np.arange(u + 1)

    def pmf(a: int, b: int) -> np.ndarray:  # BetaBinomial(u, a, b); point mass where a or b is 0
        if a == 0 or b == 0:
            return (k == (0 if a == 0 else u)).astype(float)
        # C(u, k) Γ(k + a) Γ(u − k + b) Γ(a + b) / (Γ(u + a + b) Γ(a) Γ(b)), Γ(m) = (m − 1)!
        const = (
            log_fact[u] + log_fact[a + b - 1] - log_fact[u + a + b - 1] - log_fact[a - 1] - log_fact[b - 1]
        )
        return np.exp(const + log_fact[k + a - 1] + log_fact[u - k + b - 1] - log_fact[k] - log_fact[u - k])

    return (1 - v) * pmf(x, n - x + 1) + v * pmf(x + 1, n - x)


def predictive_pmf(u: int, n: float, x: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Rows (one per pair x[i], v[i]) of the predictive pmf of the true items among ``u``
    unlabelled ones, under the randomised Clopper–Pearson confidence distribution of the share.

    0 of 4 labels true and v = 0: the share is 0 with certainty, so is every unlabelled item:

    >>> predictive_pmf(3, 4, np.array([0]), np.array([0.0])).round(3).tolist()
    [[1.0, 0.0, 0.0, 0.0]]
    """
    x, v = np.asarray(x, float), np.asarray(v, float)[:, None]
    both = _beta_binomial(u, np.concatenate([x, x + 1]), np.concatenate([n - x + 1, n - x]))
    return (1 - v) * both[: len(x)] + v * both[len(x) :]


def open_side_v(v: np.ndarray, none: np.ndarray, every: np.ndarray, confidence: float) -> np.ndarray:
    """v with a unanimous post-stratum's kept at least α = 1 − ``confidence`` from the end that
    would make its open side degenerate: v ≥ α where no label is true (``none``), v ≤ 1 − α
    where every one is (``every``); the others unchanged (module doc, *Unanimous post-strata*).

    >>> open_side_v(np.array([0.01, 0.01, 0.99, 0.5]), np.array([True, False, False, False]),
    ...             np.array([False, False, True, False]), 0.95).round(2).tolist()
    [0.05, 0.01, 0.95, 0.5]
    """
    alpha = 1 - confidence
    return np.where(none, np.maximum(v, alpha), np.where(every, np.minimum(v, 1 - alpha), v))


def _sum_cdf(pmfs: Sequence[np.ndarray], length: int) -> np.ndarray:
    """CDF of the sum over strata for rows matched across ``pmfs`` (each rows × ·)."""
    spec = np.ones((pmfs[0].shape[0], length // 2 + 1), dtype=complex)
    for pmf in pmfs:
        spec = spec * np.fft.rfft(pmf, n=length, axis=1)
    cdf = np.cumsum(np.clip(np.fft.irfft(spec, n=length, axis=1), 0.0, None), axis=1)
    return cdf / cdf[:, -1:]


def _quantile_counts(cdf: np.ndarray, confidence: float) -> tuple[np.ndarray, np.ndarray]:
    alpha = (1 - confidence) / 2
    return (cdf < alpha - 1e-12).sum(axis=1), (cdf < 1 - alpha - 1e-12).sum(axis=1)


def randomised_share_interval(
    unlabelled: Sequence[int],
    labelled: Sequence[int],
    labelled_true: Sequence[int],
    *,
    known_true: float = 0.0,
    n_total: float | None = None,
    confidence: float = 0.95,
    rng: np.random.Generator | None = None,
    v: Sequence[float] | None = None,
) -> tuple[float, float]:
    """Interval of the realised share (known_true + Y)/n_total (module doc); ``v`` (one per
    post-stratum) is drawn from ``rng`` unless given. ``labelled``/``labelled_true`` may be
    effective (weighted) counts, used as beta parameters unrounded. (nan, nan) when a
    post-stratum with unlabelled items has no label.

    One post-stratum, 10 unlabelled items, 0 of 5 labels true, v = 0.5: the share's
    distribution is ½·δ₀ + ½·Beta(1, 5), so P(Y ≤ y) = ½ + ½·F(y), F the BetaBinomial(10, 1, 5)
    cdf (``scipy.stats.betabinom(10, 1, 5).cdf``: F(0) = 1/3, F(4) = 0.916, F(5) = 0.958). The
    2.5 % quantile is 0 and the 97.5 % one the first y with F(y) ≥ 0.95, i.e. 5:

    >>> randomised_share_interval([10], [5], [0], v=[0.5])
    (0.0, 0.5)
    """
    check_level(confidence)
    u = np.rint(np.asarray(unlabelled, dtype=float)).astype(int)
    n = np.asarray(labelled, dtype=float)  # may be effective (Kish) sizes: not rounded
    x = np.asarray(labelled_true, dtype=float)
    total = float(u.sum()) if n_total is None else float(n_total)
    if total <= 0 or np.any((u > 0) & (n <= 0)):
        return np.nan, np.nan
    keep = u > 0
    if not keep.any():
        return known_true / total, known_true / total
    if v is None:
        rng = rng if rng is not None else np.random.default_rng(0)
        v = rng.random(len(u))
    v = np.asarray(v, dtype=float)[keep]
    u, n, x = u[keep], n[keep], x[keep]
    none, every = x <= 0, x >= n  # unanimous post-strata: anchored, their open side conservative (module doc)
    v = open_side_v(v, none, every, confidence)
    if np.all(n == np.rint(n)) and np.all(x == np.rint(x)):  # label counts: one log-factorial table
        log_fact = log_factorials(int((u + n).max()) + 1)
        pmfs = [_whole_predictive(int(us), int(ns), int(xs), vs, log_fact)[None, :] for us, ns, xs, vs in zip(u, n, x, v, strict=True)]  # fmt: skip
    else:  # effective (weighted) counts
        pmfs = [predictive_pmf(int(us), ns, np.array([xs]), np.array([vs])) for us, ns, xs, vs in zip(u, n, x, v, strict=True)]  # fmt: skip
    if not (none.any() or every.any()):  # one convolution serves both bounds
        low, high = _quantile_counts(_cdf(pmfs), confidence)
    else:
        low = _quantile_counts(_cdf([p for p, z in zip(pmfs, none, strict=True) if not z]), confidence)[0]
        high = _quantile_counts(_cdf([p for p, f in zip(pmfs, every, strict=True) if not f]), confidence)[1]
    low_count, high_count = float(low[0]), float(u[every].sum() + high[0])
    if high_count <= low_count:  # never a zero width with unlabelled items (module doc): one item more
        high_count, low_count = (
            (low_count + 1, low_count) if low_count < u.sum() else (high_count, high_count - 1)
        )
    return (known_true + low_count) / total, (known_true + high_count) / total


def _cdf(pmfs: list) -> np.ndarray:
    """CDF (one row) of the sum of the one-row ``pmfs`` (of 0 when there is none): directly up to
    :data:`DIRECT_LIMIT` items (faster than FFTs at simulation sizes), by FFT beyond."""
    if not pmfs:
        return np.ones((1, 1))
    total = sum(p.shape[1] - 1 for p in pmfs)
    if total > DIRECT_LIMIT:
        return _sum_cdf(pmfs, _fft_len(total))
    pmf = pmfs[0][0]
    for other in pmfs[1:]:
        pmf = np.convolve(pmf, other[0])
    cdf = np.cumsum(np.clip(pmf, 0.0, None))[None, :]
    return cdf / cdf[:, -1:]


def share_coverage(
    unlabelled: Sequence[int], labelled: Sequence[int], shares: np.ndarray, **options
) -> np.ndarray:
    """Exact coverage of :func:`randomised_share_interval` at each row of ``shares`` (G × S),
    for post-strata of ``unlabelled`` items with ``labelled`` labels (module doc): 1 − the misses
    of :func:`share_misses`, whose keyword ``options`` it takes (``confidence``, ``v_points``,
    ``seed``, ``anchor``).

    One post-stratum of 4000 unlabelled items and 3 labels: the realised share is all but q,
    and the randomised Clopper–Pearson interval covers q with probability exactly 0.95 at every q
    (Stevens 1950), so coverage is 0.95 up to the v integration and the binomial spread of Y –
    where the open-side floor of a unanimous post-stratum (module doc) does not bind: at q = 0.05
    three labels are all false 86 % of the time and the upper side is (all but) never missed:

    >>> cover = share_coverage([4000], [3], np.array([[0.3], [0.5], [0.05]]), v_points=256)
    >>> bool(np.all(np.abs(cover[:2] - 0.95) < 0.003)), round(float(cover[2]), 3)
    (True, 0.975)
    """
    below, above = share_misses(unlabelled, labelled, shares, **options)
    return 1.0 - below - above


def share_misses(
    unlabelled: Sequence[int],
    labelled: Sequence[int],
    shares: np.ndarray,
    *,
    confidence: float = 0.95,
    v_points: int = 256,
    seed: int = 0,
    anchor: bool = True,
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`share_coverage`'s misses by side: per row of ``shares`` P(Y < low) (the realised
    count below the interval) and P(Y > high) (above it); an equal-tailed interval aims at α/2
    each. v is integrated by ``v_points`` scrambled Sobol points (a power of 2); costs
    2·Π_s (n_s + 1)·v_points convolutions (the lower and the upper bound's). ``anchor=False`` convolves unanimous post-strata like the others (the unanchored
    interval, for comparison; the toolkit's intervals anchor).

    >>> below, above = share_misses([4000], [3], np.array([[0.3]]), v_points=256)
    >>> bool(abs(below[0] - 0.025) < 0.003 and abs(above[0] - 0.025) < 0.003)
    True
    """
    u = np.asarray(unlabelled, dtype=int)
    n = np.asarray(labelled, dtype=int)
    length = _fft_len(int(u.sum()))
    points, combos, less, px = coverage_frame(u, n, shares, v_points, seed)
    missed = np.zeros((2, len(less), len(combos)))  # below, above
    # the two beta-binomials of each post-stratum do not depend on v: tabulate them once
    pieces = [
        (_beta_binomial(int(us), combos[:, s], n[s] - combos[:, s] + 1), _beta_binomial(int(us), combos[:, s] + 1, n[s] - combos[:, s]))
        for s, us in enumerate(u)
    ]  # fmt: skip
    none, every = (combos == 0) & anchor, (combos == n[None, :]) & anchor  # unanimous (module doc)
    ends = [(np.eye(1, us + 1, 0), np.eye(1, us + 1, us)) for us in u]
    for vs in points:
        # a unanimous post-stratum's open side: the conservative end of its mixture (module doc)
        w = [open_side_v(np.full(len(combos), vs[s]), none[:, s], every[:, s], confidence)[:, None] for s in range(len(u))]  # fmt: skip
        pmfs = [(1 - w[s]) * a + w[s] * b for s, (a, b) in enumerate(pieces)]
        lower = [np.where(none[:, [s]], ends[s][0], p) for s, p in enumerate(pmfs)]
        upper = [np.where(every[:, [s]], ends[s][1], p) for s, p in enumerate(pmfs)]
        low = _quantile_counts(_sum_cdf(lower, length), confidence)[0]
        high = _quantile_counts(_sum_cdf(upper, length), confidence)[1]
        missed[0] += less[:, low]
        missed[1] += 1.0 - less[:, np.minimum(high + 1, less.shape[1] - 1)]
    return (px * missed[0]).sum(axis=1) / len(points), (px * missed[1]).sum(axis=1) / len(points)


def coverage_frame(u: np.ndarray, n: np.ndarray, shares: np.ndarray, v_points: int, seed: int):
    """What an exact coverage computation needs besides the interval, for post-strata of ``u``
    unlabelled items with ``n`` labels at each row of ``shares``: the scrambled Sobol points for
    v (``v_points`` × strata), every label outcome (combos × strata), P(Y < k) of the realised
    count (rows × k) and the probability of each label outcome (rows × combos)."""
    from scipy import stats  # the coverage calculators only (benchmarks, tests)

    q = np.atleast_2d(np.asarray(shares, dtype=float))
    length = _fft_len(int(u.sum()))
    points = stats.qmc.Sobol(d=len(u), scramble=True, seed=seed).random(v_points)
    combos = np.array(list(itertools.product(*[range(k + 1) for k in n])), dtype=int)
    spec = np.ones((len(q), length // 2 + 1), dtype=complex)
    for s, us in enumerate(u):
        spec = spec * np.fft.rfft(stats.binom.pmf(np.arange(us + 1)[None], us, q[:, [s]]), n=length, axis=1)
    cdf = np.cumsum(np.clip(np.fft.irfft(spec, n=length, axis=1), 0, None), axis=1)
    less = np.concatenate([np.zeros((len(q), 1)), cdf], axis=1)
    px = np.ones((len(q), len(combos)))
    for s in range(len(u)):
        px = px * stats.binom.pmf(combos[None, :, s], n[s], q[:, [s]])
    return points, combos, less, px
