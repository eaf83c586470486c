"""Intervals for corrected rates that hold in small post-strata (game-agnostic).

The normal (delta-method) intervals of :mod:`.ppi` and :mod:`.rogan_gladen` rest on
q̂(1 − q̂)/n with a handful of labels per post-stratum; at 5–20 labels and shares near 0 or 1
they under-cover in some cells and over-cover in others. Here every binomial piece is treated
exactly instead, by posterior-predictive simulation with the Jeffreys prior:

* a post-stratum with ``n`` labels of which ``x`` are true has share q ~ Beta(x + ½, n − x + ½)
  (the Jeffreys interval, Brown, Cai & DasGupta 2001, Stat. Sci. 16:101, has near-nominal
  frequentist coverage on average, oscillating with the true share for small n);
* its ``U`` unlabelled items hold Y ~ Binomial(U, q) true ones (the realised share is the target,
  not q: the study reports the share in its own definitions).

:func:`stratified_share_interval` gives the interval of the realised share of a cell from its
post-strata (the double-sampling / stratified PPI estimator). :func:`accuracy_draws` draws the
judge's realised Se and Sp over a population of judged items, :func:`generating_accuracy_draws` the
Se and Sp that generate its verdicts (what a part of that population, one round, borrows), and
:func:`rogan_gladen_interval` propagates them through θ = (p + Sp − 1)/(Se + Sp − 1), adding the
cell's own departure from that accuracy as a normal term (the Balderdash cells do not use
it). :func:`mixture_share_interval` is what a cell that is part of one sampling stratum (one
round) gets under the Rogan–Gladen model: per draw of the stratum's Se and Sp, the cell's own
prevalence from its verdicts and labels, then its unlabelled true items (randomised, so a small
count does not over-cover). Intervals are quantiles of ``draws`` simulated values with a seeded
generator (same input, same interval).

A post-stratum with fewer than ``min_labels`` labels (default 5) was not calibrated: the
functions return nan and the caller reports why (:data:`TOO_FEW`).
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence

import numpy as np
import pandas as pd

from wordplay_audit.errors import ParameterError, check_level

__all__ = [
    "MIN_LABELS",
    "MIN_LABELS_BORROWED",
    "NOT_ASSUMED",
    "BORROWED_FEW",
    "TOO_FEW",
    "accuracy_draws",
    "generating_accuracy_draws",
    "mixture_share_interval",
    "rogan_gladen_interval",
    "se_sp_from_true",
    "seeded_rng",
    "stratified_share_interval",
    "true_count_draws",
]

MIN_LABELS = 5
"""Fewest labels per post-stratum given an interval. Per-cell coverage was measured at 5, 10 and
20 labels (docs/methods/corrected-shares.md, "Coverage"); below 5 it was not, so no interval is
given."""

#: The reason given when a post-stratum has fewer than ``k`` labels (``TOO_FEW.format(k=…)``).
TOO_FEW = "fewer than {k} labels in a judge-verdict post-stratum: no calibrated interval"
MIN_LABELS_BORROWED = 10
"""Fewest labels per judge-verdict stratum of the sampling stratum (model × deck) whose Se and Sp
a cell inside it borrows (one round, a window of rounds). Fixed by the design, not by the labels'
values: at 5 a weak judge's Se + Sp ≤ 1 in enough draws to withhold most rounds' intervals, and
the ones printed were a selected subset (0.845 coverage in design R4 of ``benchmarks/sim_correction_rounds.py``; docs/CHANGELOG.md)."""
BORROWED_FEW = (
    "the Se and Sp this cell borrows from its model's labels rest on fewer than {k} labels in a "
    "judge-verdict stratum: no calibrated interval"
)
NOT_ASSUMED = (
    "fewer than {k} own labels in a post-stratum of this part of a sampling stratum (e.g. one round): "
    "Rogan–Gladen would borrow the stratum's Se and Sp, assuming the judge as accurate here as over "
    "the stratum (constant_accuracy=True, --assume-constant-accuracy)"
)
"""Why a part of a sampling stratum without enough labels of its own gets no Rogan–Gladen value
unless the caller assumes constant accuracy: a judge whose Se drifts over the rounds makes the
borrowed intervals miss (design R3, docs/methods/rogan-gladen-ppi.md), and ≈ 2 labels per verdict per round
cannot show the drift."""
DEFAULT_DRAWS = 4000


SEED_NOTE = (
    "randomised intervals: seed {seed} (a fresh one per run unless given; pass it to reproduce this run)"
)
"""The line a command prints under its corrected intervals (the seed is also in ``--json``)."""


def randomisation_seed(seed: int | None) -> int:
    """The seed of a command's randomised intervals: ``seed`` checked (a whole number in
    0 … 2³² − 1), or a fresh one from the operating system when None. A randomised exact interval
    covers at the nominal level averaged over its randomisation, so a fixed default seed (the
    same v for every campaign with the same model names) would leave each user one draw of it;
    commands draw a fresh seed and record it, and the same seed reproduces a run.

    >>> randomisation_seed(7)
    7
    >>> 0 <= randomisation_seed(None) < 2**32
    True
    """
    if seed is None:
        import secrets

        return secrets.randbelow(2**32)
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or not 0 <= seed < 2**32:
        raise ParameterError(f"seed: expected a whole number in 0 … 4294967295 or None, got {seed!r}")
    return int(seed)


def seeded_rng(seed: int, *keys: object) -> np.random.Generator:
    """A generator that depends only on ``seed`` and ``keys`` (e.g. the model name)."""
    return np.random.default_rng([seed, *(zlib.crc32(str(k).encode()) for k in keys)])


def _check(confidence: float, draws: int) -> None:
    check_level(confidence)
    if draws < 100:
        raise ParameterError(f"draws must be at least 100, got {draws}")


def _predictive_true(
    rng: np.random.Generator, n: np.ndarray, x: np.ndarray, unlabelled: np.ndarray, draws: int
) -> np.ndarray:
    """Draws × strata of true items among the unlabelled ones (Jeffreys posterior predictive)."""
    q = rng.beta(x + 0.5, n - x + 0.5, size=(draws, len(n)))
    return rng.binomial(unlabelled.astype(np.int64), q)


def stratified_share_interval(
    unlabelled: Sequence[int],
    labelled: Sequence[int],
    labelled_true: Sequence[int],
    *,
    known_true: float = 0.0,
    n_total: float | None = None,
    confidence: float = 0.95,
    draws: int = DEFAULT_DRAWS,
    rng: np.random.Generator | None = None,
) -> tuple[float, float]:
    """Interval for the realised share (known_true + Σ_s Y_s)/n_total, Y_s the true items among
    the ``unlabelled[s]`` of post-stratum s, from ``labelled_true[s]`` of ``labelled[s]``.

    ``n_total`` defaults to Σ unlabelled (the share among the unlabelled items). Returns
    (nan, nan) when a post-stratum with unlabelled items has no label; callers refuse
    post-strata with fewer than :data:`MIN_LABELS` labels (not calibrated).

    One post-stratum, 5 of 10 labels true, 50 unlabelled: Y ~ BetaBinomial(50, 5.5, 5.5), whose
    2.5 % and 97.5 % quantiles are 10 and 40 (``scipy.stats.betabinom(50, 5.5, 5.5).ppf``):

    >>> lo, hi = stratified_share_interval([50], [10], [5], rng=seeded_rng(0))
    >>> round(lo, 2), round(hi, 2)
    (0.2, 0.8)
    """
    _check(confidence, draws)
    u = np.asarray(unlabelled, dtype=float)
    n = np.asarray(labelled, dtype=float)
    x = np.asarray(labelled_true, dtype=float)
    total = float(u.sum()) if n_total is None else float(n_total)
    if total <= 0:
        return np.nan, np.nan
    if np.any((u > 0) & (n < 1)):
        return np.nan, np.nan
    keep = u > 0
    if not keep.any():
        value = known_true / total
        return value, value
    rng = rng if rng is not None else seeded_rng(0)
    y = _predictive_true(rng, n[keep], x[keep], u[keep], draws).sum(axis=1)
    share = (known_true + y) / total
    alpha = 1 - confidence
    low, high = np.quantile(share, [alpha / 2, 1 - alpha / 2])
    return float(low), float(high)


def accuracy_draws(
    counts: pd.DataFrame,
    *,
    draws: int = DEFAULT_DRAWS,
    rng: np.random.Generator | None = None,
    fallback: tuple[float, float] = (np.nan, np.nan),
) -> tuple[np.ndarray, np.ndarray]:
    """Draws of the judge's realised Se and Sp over the items of ``counts``.

    ``counts``: one row per post-stratum with ``judge`` (bool), ``N`` judged, ``nq`` labelled and
    ``xq`` human-true (as :func:`.poststratify.poststratified_accuracy` builds them, borrowed
    from coarser strata where a post-stratum has no label). T_s = x_s + Y_s true items with Y_s
    the posterior-predictive true items among the N_s − n_s unlabelled;
    Se = Σ_{f=1} T_s / Σ T_s, Sp = Σ_{f=0} (N_s − T_s) / Σ (N_s − T_s). A draw without a true
    (false) item has no Se (Sp); it gets ``fallback`` (e.g. the pooled point estimate) — with no
    true item the rate is 0 whatever Se is, with no false item it is 1 whatever Sp is.
    """
    true = true_count_draws(counts, draws=draws, rng=rng)
    return se_sp_from_true(counts, true, fallback=fallback)


def generating_accuracy_draws(
    counts: pd.DataFrame,
    *,
    draws: int = DEFAULT_DRAWS,
    rng: np.random.Generator | None = None,
    fallback: tuple[float, float] = (np.nan, np.nan),
) -> tuple[np.ndarray, np.ndarray]:
    """Draws of the Se and Sp that *generate* the judge's verdicts on items like those of
    ``counts`` (columns as for :func:`accuracy_draws`), not the realised ones of these items.

    Per post-stratum a share q_s ~ Beta(xq_s + ½, nq_s − xq_s + ½) (Jeffreys), then
    Se = Σ_{f=1} N_s q_s / Σ N_s q_s and Sp = Σ_{f=0} N_s (1 − q_s) / Σ N_s (1 − q_s). A part of
    the stratum (one round) has its verdicts drawn with these Se and Sp, and its own realised
    accuracy departs from the stratum's by its own sampling noise, which
    :func:`mixture_share_interval` adds; the realised draws of :func:`accuracy_draws` are narrower
    than that by the stratum's labelled items and cost 0.003–0.005 coverage per round
    (``benchmarks/sim_round_accuracy_sources.py``, designs R1/R5). Unlike the realised draws they vary even when every item
    is labelled: the generating accuracy is never known exactly.
    """
    rng = rng if rng is not None else seeded_rng(0)
    nq, xq = counts["nq"].to_numpy(float), counts["xq"].to_numpy(float)
    q = rng.beta(xq + 0.5, nq - xq + 0.5, size=(draws, len(nq)))
    return se_sp_from_true(counts, counts["N"].to_numpy(float) * q, fallback=fallback)


def se_sp_from_true(
    counts: pd.DataFrame, true: np.ndarray, *, fallback: tuple[float, float] = (np.nan, np.nan)
) -> tuple[np.ndarray, np.ndarray]:
    """Se and Sp per draw from draws × post-strata true counts — realised (:func:`accuracy_draws`)
    or expected (:func:`generating_accuracy_draws`)."""
    big_n = counts["N"].to_numpy(float)
    f = counts["judge"].to_numpy(bool)
    false = big_n - true
    with np.errstate(divide="ignore", invalid="ignore"):
        se = true[:, f].sum(axis=1) / true.sum(axis=1)
        sp = false[:, ~f].sum(axis=1) / false.sum(axis=1)
    se = np.where(np.isfinite(se), se, fallback[0])
    sp = np.where(np.isfinite(sp), sp, fallback[1])
    return se, sp


def true_count_draws(
    counts: pd.DataFrame, *, draws: int = DEFAULT_DRAWS, rng: np.random.Generator | None = None
) -> np.ndarray:
    """Draws × post-strata of the realised number of true items T_s = x_s + Y_s, Y_s the
    posterior-predictive true items among the N_s − n_s unlabelled (shares drawn from the
    borrowed counts ``nq``, ``xq`` where a post-stratum has no label of its own)."""
    rng = rng if rng is not None else seeded_rng(0)
    big_n = counts["N"].to_numpy(float)
    own_n = np.minimum(counts["n"].to_numpy(float), big_n)
    own_x = counts["x"].to_numpy(float)
    unl = np.maximum(big_n - own_n, 0)
    return own_x + _predictive_true(
        rng, counts["nq"].to_numpy(float), counts["xq"].to_numpy(float), unl, draws
    )


def rogan_gladen_interval(
    p: float,
    se: np.ndarray,
    sp: np.ndarray,
    *,
    noise_var: float = 0.0,
    confidence: float = 0.95,
    rng: np.random.Generator | None = None,
    max_invalid: float = 0.01,
) -> tuple[float, float]:
    """Equal-tailed interval of θ = (p + Sp − 1)/(Se + Sp − 1) + e over draws of (Se, Sp), with
    e ~ N(0, ``noise_var``) the cell's own departure from the accuracy the draws describe.

    Returns (nan, nan) when more than ``max_invalid`` of the draws have Se + Sp ≤ 1 (the judge
    may carry no information: no interval can be calibrated). Clipped to [0, 1].
    """
    _check(confidence, max(len(se), 100))
    rng = rng if rng is not None else seeded_rng(0)
    j = se + sp - 1
    valid = np.isfinite(j) & (j > 0)
    if valid.mean() < 1 - max_invalid:
        return np.nan, np.nan
    theta = (p + sp[valid] - 1) / j[valid]
    if noise_var > 0:
        theta = theta + rng.normal(0.0, np.sqrt(noise_var), size=theta.shape)
    alpha = 1 - confidence
    low, high = np.quantile(theta, [alpha / 2, 1 - alpha / 2])
    return float(np.clip(low, 0, 1)), float(np.clip(high, 0, 1))


_GRID = 200
"""Grid points of the cell's prevalence π in :func:`mixture_share_interval`."""


def mixture_share_interval(
    se: np.ndarray,
    sp: np.ndarray,
    *,
    verdicts: tuple[int, int],
    labelled: tuple[int, int],
    labelled_true: tuple[int, int],
    confidence: float = 0.95,
    rng: np.random.Generator | None = None,
    max_invalid: float = 0.01,
) -> tuple[float, float]:
    """Interval of the realised share of a cell that is not a whole sampling stratum (one round)
    under the Rogan–Gladen model: each item true with the cell's own prevalence π, the judge's
    verdict Bernoulli(Se) on a true item and Bernoulli(1 − Sp) on a false one, with one Se and Sp
    for the whole stratum the cell lies in (``se``, ``sp``: posterior draws of them).

    ``verdicts`` = (positive, negative) judge verdicts in the cell; ``labelled`` = labelled items
    among them (drawn within the verdicts, so independent of the truth given the verdict) and
    ``labelled_true`` their human-true counts. Per draw of (Se, Sp), π is drawn from its posterior
    on a grid (Jeffreys prior) given the cell's verdicts and labels; the unlabelled positive
    (negative) items are then true with probability Se·π/p (π(1 − Se)/(1 − p)), p = Se·π +
    (1 − Sp)(1 − π), and the interval is the equal-tailed quantiles of the cell's realised share.
    Exact for the binomial pieces: the verdicts given the true count are Bin(T, Se) +
    Bin(n − T, 1 − Sp). (nan, nan) when more than ``max_invalid`` of the draws have Se + Sp ≤ 1.

    With Se = Sp = 1 the verdicts are the truth, so the interval is the judge's rate:

    >>> mixture_share_interval(np.full(200, 1.0), np.full(200, 1.0), verdicts=(7, 13),
    ...                        labelled=(0, 0), labelled_true=(0, 0))
    (0.35, 0.35)
    """
    _check(confidence, max(len(se), 100))
    rng = rng if rng is not None else seeded_rng(0)
    se, sp = np.asarray(se, float), np.asarray(sp, float)
    j = se + sp - 1
    valid = np.isfinite(j) & (j > 0)
    if valid.mean() < 1 - max_invalid:
        return np.nan, np.nan
    (k1, k0), (n1, n0), (x1, x0) = verdicts, labelled, labelled_true
    if k1 + k0 <= 0:
        return np.nan, np.nan
    if k1 - n1 <= 0 and k0 - n0 <= 0:  # every item labelled: the share is known
        return (x1 + x0) / (k1 + k0), (x1 + x0) / (k1 + k0)
    se = np.clip(se[valid], 1e-9, 1 - 1e-9)[:, None]
    sp = np.clip(sp[valid], 1e-9, 1 - 1e-9)[:, None]
    pi = (np.arange(_GRID) + 0.5) / _GRID
    p = se * pi + (1 - sp) * (1 - pi)
    # log of: Jeffreys prior × p^(k1 − n1) (1 − p)^(k0 − n0) (unlabelled verdicts) × the labels'
    # Π Se·π, (1 − Sp)(1 − π) (positive verdicts), (1 − Se)·π, Sp(1 − π) (negative) — the factors
    # in Se and Sp alone are constant along a row and drop out (the stratum's draws hold them)
    true_lab, false_lab = x1 + x0, n1 - x1 + n0 - x0
    log_pi = (true_lab - 0.5) * np.log(pi) + (false_lab - 0.5) * np.log1p(-pi)
    log_post = (k1 - n1) * np.log(p) + (k0 - n0) * np.log1p(-p) + log_pi
    post = np.exp(log_post - log_post.max(axis=1, keepdims=True))
    cdf = np.cumsum(post, axis=1)
    pick = (cdf < rng.random((len(se), 1)) * cdf[:, -1:]).sum(axis=1)
    rows = np.arange(len(se))
    se, sp, pi, p = se[:, 0], sp[:, 0], pi[pick], p[rows, pick]
    pos = rng.binomial(k1 - n1, np.clip(se * pi / p, 0, 1))
    neg = rng.binomial(k0 - n0, np.clip((1 - se) * pi / (1 - p), 0, 1))
    low, high = randomised_count_bounds(x1 + x0 + pos + neg, confidence, rng)
    return low / (k1 + k0), high / (k1 + k0)


def randomised_count_bounds(
    count: np.ndarray, confidence: float, rng: np.random.Generator
) -> tuple[float, float]:
    """Equal-tailed bounds of a whole count from its draws, randomised so the discreteness of a
    small count does not over-cover: quantiles of the count plus a uniform jitter, the bounds
    shifted by one shared uniform and rounded inwards (a tie goes to their rounded middle)."""
    count = np.asarray(count, dtype=float) + rng.random(len(count))
    alpha, shift = 1 - confidence, rng.random()
    low, high = np.quantile(count, [alpha / 2, 1 - alpha / 2])
    low, high = np.ceil(low - shift), np.floor(high - shift)
    if high < low:
        low = high = float(np.round((low + high) / 2))
    return float(low), float(high)
