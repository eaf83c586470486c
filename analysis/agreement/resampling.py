"""The resampling arithmetic of :mod:`.bootstrap`: pattern multiplicities per resample,
quantiles, the BCa acceleration and both intervals (see that module's docstring)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from wordplay_audit.errors import check_choice

from ._common import DRAWS, Draws
from ._core import Patterns
from ._raters import RaterPatterns

__all__ = ["draw_pattern_weights", "draw_weights", "interval_bounds"]


def _chunk(n_boot: int, width: int) -> int:
    """Resamples per chunk: about 4 million pattern weights at a time."""
    return max(1, min(n_boot, (1 << 22) // max(width, 1)))


def draw_pattern_weights(
    pats: Patterns,
    n_boot: int,
    rng: np.random.Generator,
    *,
    draws: Draws = "multinomial",
    width: int | None = None,
) -> Iterator[np.ndarray]:
    """Yield chunks of bootstrap pattern multiplicities ``W`` ``(chunk, P)`` (float64).

    Each row sums to ``pats.n_items``. See the module docstring for ``draws``; ``width`` sizes
    the chunks (default: the number of patterns).
    """
    check_choice("draws", draws, DRAWS)
    n, n_pat = pats.n_items, len(pats.freq)
    if draws == "multinomial":
        probs = pats.freq / n
        chunk = _chunk(n_boot, width or n_pat)
        for start in range(0, n_boot, chunk):
            size = min(chunk, n_boot - start)
            yield rng.multinomial(n, probs, size=size).astype(float)
        return
    chunk = max(1, min(n_boot, (1 << 23) // max(n, 1)))
    for start in range(0, n_boot, chunk):
        size = min(chunk, n_boot - start)
        idx = rng.integers(0, n, size=(size, n))
        flat = pats.inverse[idx] + (np.arange(size) * n_pat)[:, None]
        yield np.bincount(flat.ravel(), minlength=size * n_pat).reshape(size, n_pat).astype(float)


@dataclass(frozen=True)
class _SplitPlan:
    """How each count pattern's draws are split among its code patterns: sequential
    conditional binomials, all count patterns at once per position ``t`` (``steps``: code
    patterns, their count patterns, the probability of each given the ones before it); the
    commonest code pattern of each count pattern comes last and takes the rest (no draw)."""

    steps: tuple[tuple[np.ndarray, np.ndarray, np.ndarray], ...]
    last: tuple[np.ndarray, np.ndarray]

    @classmethod
    def of(cls, rp: RaterPatterns) -> _SplitPlan:
        order = np.lexsort((rp.freq, rp.group))  # rarest first: the commonest takes the rest
        group, freq = rp.group[order], rp.freq[order].astype(float)
        first = np.flatnonzero(np.r_[True, group[1:] != group[:-1]])
        sizes = np.diff(np.r_[first, len(group)])
        position = np.arange(len(group)) - np.repeat(first, sizes)
        tail = np.concatenate([np.cumsum(f[::-1])[::-1] for f in np.split(freq, first[1:])])
        is_last = position == np.repeat(sizes, sizes) - 1
        steps = tuple(
            (order[at], group[at], freq[at] / tail[at])
            for at in ((position == t) & ~is_last for t in range(int(sizes.max()) - 1))
        )
        return cls(steps, (order[is_last], group[is_last]))


def _split(counts: np.ndarray, plan: _SplitPlan, n_code: int, rng: np.random.Generator) -> np.ndarray:
    """Code-pattern multiplicities ``(B, Pc)`` given count-pattern ones ``(B, P)``: the draws of
    each count pattern split among its code patterns by sequential conditional binomials —
    one multinomial per count pattern."""
    remaining = counts.astype(np.int64)
    out = np.empty((len(counts), n_code))
    for codes, groups, cond in plan.steps:
        drawn = rng.binomial(remaining[:, groups], cond)
        out[:, codes] = drawn
        remaining[:, groups] -= drawn
    codes, groups = plan.last
    out[:, codes] = remaining[:, groups]
    return out


def draw_weights(
    pats: Patterns,
    rp: RaterPatterns | None,
    n_boot: int,
    rng: np.random.Generator,
    *,
    draws: Draws = "multinomial",
) -> Iterator[tuple[np.ndarray, np.ndarray | None]]:
    """Yield chunks ``(W_count, W_code)`` of multiplicities per count pattern and, with code
    patterns ``rp``, per code pattern (None without).

    ``"multinomial"``: ``W_count`` is drawn exactly as without ``rp`` (same stream), then each
    count pattern's draws are split among its code patterns by a multinomial from a generator
    spawned off ``rng`` — together the multinomial over code patterns, the item bootstrap.
    ``"indices"``: item indices as a naive loop draws them, counted per code pattern and summed
    per count pattern.
    """
    if rp is None:
        for weights in draw_pattern_weights(pats, n_boot, rng, draws=draws):
            yield weights, None
        return
    check_choice("draws", draws, DRAWS)
    width = len(rp.freq)
    if draws == "multinomial":
        splitter, plan = rng.spawn(1)[0], _SplitPlan.of(rp)
        for counts in draw_pattern_weights(pats, n_boot, rng, draws=draws, width=width):
            yield counts, _split(counts, plan, width, splitter)
        return
    code_pats = Patterns(rp.codes, rp.freq, rp.inverse, pats.n_items, 0)
    n_count = len(pats.freq)
    for codes in draw_pattern_weights(code_pats, n_boot, rng, draws="indices"):
        counts = np.zeros((len(codes), n_count))
        np.add.at(counts.T, rp.group, codes.T)
        yield counts, codes


def _quantile(values: np.ndarray, probs: np.ndarray) -> np.ndarray:
    """Linear-interpolation quantile of each column ``values[:, j]`` at ``probs[j]`` (nan kept
    out); ``values`` ``(B, J)``, ``probs`` ``(J,)``."""
    out = np.full(values.shape[1], np.nan)
    for j in range(values.shape[1]):
        col = values[:, j]
        col = col[~np.isnan(col)]
        if col.size and np.isfinite(probs[j]):
            out[j] = np.quantile(col, probs[j])
    return out


def _acceleration(jack: np.ndarray, jack_weights: np.ndarray) -> np.ndarray:
    """BCa acceleration from the jackknife values ``(P, J)`` with multiplicities ``(P,)``:
    :math:`\\hat a = \\sum w d^3 / (6 (\\sum w d^2)^{3/2})`, :math:`d` = mean − value."""
    w = jack_weights[:, None].astype(float)
    jack_ok = ~np.isnan(jack)
    wj = np.where(jack_ok, w, 0.0)
    jack0 = np.where(jack_ok, jack, 0.0)
    mean = (wj * jack0).sum(axis=0) / wj.sum(axis=0)
    d = np.where(jack_ok, mean - jack0, 0.0)
    return (wj * d**3).sum(axis=0) / (6.0 * ((wj * d**2).sum(axis=0)) ** 1.5)


def interval_bounds(
    theta_hat: np.ndarray,
    theta_b: np.ndarray,
    jack: np.ndarray,
    jack_weights: np.ndarray,
    confidence: float,
) -> dict:
    """Percentile and BCa intervals for each column (``theta_hat`` ``(J,)``, ``theta_b``
    ``(B, J)``, jackknife values ``(P, J)`` with multiplicities ``jack_weights`` ``(P,)``)."""
    from scipy.special import ndtr, ndtri  # here, not at import: commands without intervals skip scipy

    tail = (1.0 - confidence) / 2.0
    valid = ~np.isnan(theta_b)
    n_valid = valid.sum(axis=0)
    j = theta_b.shape[1]
    pct_low = _quantile(theta_b, np.full(j, tail))
    pct_high = _quantile(theta_b, np.full(j, 1.0 - tail))
    with np.errstate(invalid="ignore", divide="ignore"):
        below = (theta_b < theta_hat).sum(axis=0) + (theta_b <= theta_hat).sum(axis=0)
        z0 = ndtri(below / (2.0 * n_valid))
        accel = _acceleration(jack, jack_weights)
        z_a = ndtri(tail)
        num1 = z0 + z_a
        a1 = ndtr(z0 + num1 / (1.0 - accel * num1))
        num2 = z0 - z_a
        a2 = ndtr(z0 + num2 / (1.0 - accel * num2))
    bca_low = _quantile(theta_b, np.where(np.isnan(a1), np.nan, a1))
    bca_high = _quantile(theta_b, np.where(np.isnan(a2), np.nan, a2))
    boot_se = np.array(
        [np.std(theta_b[valid[:, c], c], ddof=1) if n_valid[c] > 1 else np.nan for c in range(j)]
    )
    return {
        "percentile": (pct_low, pct_high),
        "bca": (bca_low, bca_high),
        "boot_se": boot_se,
        "n_undefined": theta_b.shape[0] - n_valid,
    }
