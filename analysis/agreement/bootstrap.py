"""Item-level bootstrap intervals (percentile and BCa) for κ, α, AC1 and per-category κ.

The bootstrap resamples *items* with replacement (raters fixed). Every statistic here is
:math:`\\theta = g(\\sum_i w_i f_i)` (see :mod:`._core`): a resample only changes the
multiplicities :math:`w_i`, and items with the same count row share :math:`f_i`. So a resample
is fully described by how many items of each *pattern* it draws, and the statistic of the
resample is :math:`g(W F)` with ``W`` ``(B, P)`` and ``F`` ``(P, features)``. Nothing is copied
row by row and nothing is approximated.

Two ways to draw ``W`` (``draws=``):

``"multinomial"`` (default)
    :math:`W_b \\sim \\mathrm{Multinomial}(n, \\mathrm{freq}/n)`, drawn with
    ``rng.multinomial``. When *n* items are drawn uniformly with replacement, the vector of
    draws per pattern has exactly this distribution, so this is the item bootstrap itself at
    :math:`O(B P)` cost instead of :math:`O(B n)`.
``"indices"``
    ``idx = rng.integers(0, n, size=(chunk, n))`` per chunk of resamples, then
    ``W = bincount(pattern[idx])``. It consumes the random stream exactly as a naive loop
    ``for b in range(B): idx = rng.integers(0, n, n)`` — and as ``scipy.stats.bootstrap`` —
    so the intervals equal theirs for the same seed (used in the tests).

BCa (Efron 1987) uses the jackknife acceleration; leaving out one item of pattern *p* gives
:math:`g(S - f_p)`, so the *n* jackknife values take only *P* distinct values.

Conventions follow ``scipy.stats.bootstrap`` (percentiles with linear interpolation;
:math:`\\hat z_0 = \\Phi^{-1}((\\#\\{\\theta^*<\\hat\\theta\\} + \\#\\{\\theta^*\\le\\hat\\theta\\})/2B)`).
Resamples whose statistic is undefined (nan, e.g. every drawn item in one category) are left
out and counted in ``n_undefined``.

References: Efron, B. (1987). Better bootstrap confidence intervals. JASA 82, 171–185;
Efron & Tibshirani (1993), An Introduction to the Bootstrap, ch. 14.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from wordplay_audit.errors import ParameterError, check_choice

from ._common import (
    CI_METHODS,
    DRAWS,
    LEVELS,
    STATISTICS,
    CIMethod,
    Draws,
    Level,
    RaterType,
    Statistic,
    check_confidence,
    check_whole,
)
from ._core import (
    Functional,
    Patterns,
    ac1_functional,
    alpha_functional,
    fleiss_functional,
    linearised_se,
    per_category_functional,
    usable_patterns,
)
from .alpha import category_values
from .reasons import explain
from .resampling import draw_pattern_weights, interval_bounds
from .tables import resolve_counts

__all__ = ["BootstrapOptions", "Interval", "bootstrap_intervals"]

DEFAULT_STATISTICS: tuple[Statistic, ...] = ("fleiss_kappa", "krippendorff_alpha", "gwet_ac1")


@dataclass(frozen=True)
class BootstrapOptions:
    """How to resample and which interval to report (checked when made).

    ``n_boot``
        Resamples (default 1,000); ``0`` skips the bootstrap: point estimates with nan bounds
        and ``method`` ``"none"``.
    ``seed``
        Seed of ``numpy.random.default_rng`` (None: fresh entropy).
    ``confidence``
        Two-sided level, e.g. 0.95 → 2.5 % and 97.5 % limits.
    ``method``
        Which interval fills ``ci_low``/``ci_high``: ``"bca"`` (default) or ``"percentile"``;
        both are always computed. When BCa is undefined (every resample on one side of the
        estimate, so :math:`\\hat z_0 = \\pm\\infty`) the percentile interval is used and
        ``Interval.method`` says so (per category: element-wise, silently).
    ``draws``
        ``"multinomial"`` (fast, default) or ``"indices"`` (same draws as a naive loop or
        ``scipy.stats.bootstrap``); see the module docstring.
    ``max_memory_gb``
        Cap on the memory the resampled statistics may take (8 bytes per statistic value per
        resample, twice for the interval computations); a larger ``n_boot`` is refused before
        any work with a message that states the cap and how to raise it.

    Raises :class:`~wordplay_audit.errors.ParameterError` for a value out of range.
    """

    n_boot: int = 1000
    seed: int | None = 0
    confidence: float = 0.95
    method: CIMethod = "bca"
    draws: Draws = "multinomial"
    max_memory_gb: float = 4.0

    def __post_init__(self) -> None:
        n_boot = check_whole("n_boot", self.n_boot, low=0)
        if n_boot == 1:
            raise ParameterError("n_boot: expected 0 (no bootstrap) or a whole number ≥ 2, got 1")
        object.__setattr__(self, "n_boot", n_boot)
        object.__setattr__(self, "confidence", check_confidence(self.confidence))
        check_choice("method", self.method, CI_METHODS)
        check_choice("draws", self.draws, DRAWS)
        try:
            ok = 0.0 < float(self.max_memory_gb) < float("inf")  # also refuses nan
        except (TypeError, ValueError):
            ok = False
        if not ok:
            raise ParameterError(f"max_memory_gb: expected a number of GB > 0, got {self.max_memory_gb!r}")


@dataclass(frozen=True)
class Interval:
    """A point estimate with its bootstrap interval(s).

    ``value``, ``ci_low``, ``ci_high`` (the interval of ``method``), ``percentile`` and ``bca``
    (both intervals), ``boot_se`` (standard deviation of the bootstrap values, ddof=1), ``se``
    (analytic standard error where one exists, else None), ``n_boot`` (resamples drawn),
    ``n_undefined`` (resamples where the statistic was nan) and ``distribution`` (the
    bootstrap values). For per-category κ the numbers are arrays of length *K* and
    ``categories`` names them. Without bootstrap (``n_boot`` 0) the bounds are nan and
    ``method`` is ``"none"``. ``reason``, ``ci_reason``, ``se_reason``: why the value, the
    interval (and ``boot_se``), the analytic SE is nan, None where it is not (a tuple per
    category; :mod:`.reasons`).
    """

    value: float | np.ndarray
    ci_low: float | np.ndarray
    ci_high: float | np.ndarray
    method: str
    percentile: tuple
    bca: tuple
    boot_se: float | np.ndarray
    se: float | None
    n_boot: int
    n_undefined: int | np.ndarray
    confidence: float
    categories: tuple[str, ...] | None = None
    distribution: np.ndarray = field(default_factory=lambda: np.empty(0), repr=False)
    reason: str | tuple | None = None
    ci_reason: str | tuple | None = None
    se_reason: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """``{value, reason, ci_low, ci_high, ci_reason, se, se_reason, boot_se, method,
        confidence, n_boot, n_undefined}``."""
        return {
            "value": self.value,
            "reason": self.reason,
            "ci_low": self.ci_low,
            "ci_high": self.ci_high,
            "ci_reason": self.ci_reason,
            "se": self.se,
            "se_reason": self.se_reason,
            "boot_se": self.boot_se,
            "method": self.method,
            "confidence": self.confidence,
            "n_boot": self.n_boot,
            "n_undefined": self.n_undefined,
        }

    def frame(self) -> pd.DataFrame:
        """Per-category intervals as a DataFrame indexed by category."""
        if self.categories is None:
            raise ParameterError("frame(): only per-category intervals have one row per category")
        return pd.DataFrame(
            {
                "kappa": self.value,
                "ci_low": self.ci_low,
                "ci_high": self.ci_high,
                "boot_se": self.boot_se,
            },
            index=pd.Index(list(self.categories), name="category"),
        )


def _functional(name: str, patterns: np.ndarray, level: str, values: np.ndarray | None) -> Functional:
    if name == "fleiss_kappa":
        return fleiss_functional(patterns)
    if name == "gwet_ac1":
        return ac1_functional(patterns)
    if name == "krippendorff_alpha":
        return alpha_functional(patterns, level=level, values=values)
    return per_category_functional(patterns)


@dataclass(frozen=True)
class _Features:
    """The statistics' feature blocks side by side, so one product serves all of them."""

    names: tuple[str, ...]
    functionals: dict[str, Functional]
    features: np.ndarray
    bounds: np.ndarray

    @classmethod
    def build(cls, names: Sequence[str], pats: Patterns, level: str, values: np.ndarray | None):
        functionals = {s: _functional(s, pats.patterns, level, values) for s in names}
        blocks = [functionals[s].features for s in names]
        bounds = np.cumsum([0] + [b.shape[1] for b in blocks])
        return cls(tuple(names), functionals, np.concatenate(blocks, axis=1), bounds)

    def evaluate(self, sums: np.ndarray) -> dict[str, np.ndarray]:
        out = {}
        with np.errstate(invalid="ignore", divide="ignore"):
            for s, lo, hi in zip(self.names, self.bounds[:-1], self.bounds[1:], strict=True):
                out[s] = self.functionals[s].evaluate(sums[..., lo:hi])
        return out


def _analytic_se(name: str, pats: Patterns) -> float | None:
    """Gwet's linearisation SE for κ and AC1; None for the others."""
    if name not in ("fleiss_kappa", "gwet_ac1"):
        return None
    chance = "fleiss" if name == "fleiss_kappa" else "ac1"
    return linearised_se(pats.patterns, pats.freq, chance=chance)


def _pick(scalar: bool):
    return (lambda a: float(a[0])) if scalar else (lambda a: np.asarray(a))


def _point_only(
    name: str, theta_hat: np.ndarray, pats: Patterns, options: BootstrapOptions, names: tuple
) -> Interval:
    """An interval without bootstrap (``n_boot`` 0): the value, nan bounds, ``method`` none."""
    scalar = name != "per_category_kappa"
    pick = _pick(scalar)
    nan = pick(np.full(theta_hat.shape, np.nan))
    return Interval(
        value=pick(theta_hat),
        ci_low=nan,
        ci_high=nan,
        method="none",
        percentile=(nan, nan),
        bca=(nan, nan),
        boot_se=nan,
        se=_analytic_se(name, pats),
        n_boot=0,
        n_undefined=0 if scalar else np.zeros(len(theta_hat), int),
        confidence=options.confidence,
        categories=None if scalar else names,
    )


def _interval(
    name: str,
    estimates: tuple[np.ndarray, np.ndarray, np.ndarray],
    pats: Patterns,
    options: BootstrapOptions,
    names: tuple,
) -> Interval:
    """The :class:`Interval` of one statistic from ``(theta_hat, resampled, jackknife)``."""
    theta_hat, theta_b, jack = estimates
    ints = interval_bounds(theta_hat, theta_b, jack, pats.freq, options.confidence)
    chosen, used_method = ints[options.method], options.method
    scalar = name != "per_category_kappa"
    if options.method == "bca":  # BCa undefined (z0 infinite: all resamples on one side)
        fallback = np.isnan(chosen[0]) | np.isnan(chosen[1])
        if fallback.any():
            chosen = tuple(np.where(fallback, p, b) for p, b in zip(ints["percentile"], chosen, strict=True))
            used_method = "percentile" if scalar else used_method
    pick = _pick(scalar)
    return Interval(
        value=pick(theta_hat),
        ci_low=pick(chosen[0]),
        ci_high=pick(chosen[1]),
        method=used_method,
        percentile=(pick(ints["percentile"][0]), pick(ints["percentile"][1])),
        bca=(pick(ints["bca"][0]), pick(ints["bca"][1])),
        boot_se=pick(ints["boot_se"]),
        se=_analytic_se(name, pats),
        n_boot=options.n_boot,
        n_undefined=int(ints["n_undefined"][0]) if scalar else ints["n_undefined"],
        confidence=options.confidence,
        categories=None if scalar else names,
        distribution=theta_b[:, 0] if scalar else theta_b,
    )


def _resample(block: _Features, pats: Patterns, options: BootstrapOptions) -> dict[str, np.ndarray]:
    """Each statistic on every resample, ``(n_boot, J)`` (see the module docstring)."""
    rng = np.random.default_rng(options.seed)
    chunks: dict[str, list[np.ndarray]] = {s: [] for s in block.names}
    for weights in draw_pattern_weights(pats, options.n_boot, rng, draws=options.draws):
        for s, v in block.evaluate(weights @ block.features).items():
            chunks[s].append(v)
    return {s: np.concatenate(chunks[s], axis=0).reshape(options.n_boot, -1) for s in block.names}


def _check_memory(options: BootstrapOptions, n_values: int) -> None:
    """Refuse a number of resamples whose statistics would not fit in ``max_memory_gb``."""
    per_resample = 16 * max(n_values, 1)
    budget = options.max_memory_gb * 2**30  # may be inf for a huge cap: compare before dividing
    if options.n_boot * per_resample > budget:
        cap = int(budget // per_resample)
        raise ParameterError(
            f"n_boot: {options.n_boot} resamples would hold about "
            f"{options.n_boot * per_resample / 2**30:.3g} GB of resampled statistics; the cap at "
            f"{options.max_memory_gb:g} GB is {cap}: lower n_boot or raise max_memory_gb"
        )


def bootstrap_intervals(
    data: object,
    *,
    statistics: Sequence[Statistic] = DEFAULT_STATISTICS,
    bootstrap: BootstrapOptions | None = None,
    level: Level = "nominal",
    categories: Sequence[str] | None = None,
    rater_type: RaterType | None = "human",
) -> dict[str, Interval]:
    """Point estimates and item-bootstrap intervals of several statistics in one pass.

    Parameters
    ----------
    data
        Labels DataFrame, :class:`~.tables.RatingTable` or count table ``(n, K)``.
    statistics
        Any of ``fleiss_kappa``, ``krippendorff_alpha`` (at ``level``), ``gwet_ac1``,
        ``per_category_kappa``. All use the same resamples.
    bootstrap
        :class:`BootstrapOptions` (resamples, seed, ``confidence``, interval ``method``,
        ``draws``); default ``BootstrapOptions()``: 1,000 multinomial resamples, seed 0, 95 %
        BCa. ``n_boot=0`` gives the point estimates with nan bounds (``method`` ``"none"``).
    level, categories, rater_type
        Krippendorff's α level; the declared categories and the rater type kept (labels only).

    Returns
    -------
    dict statistic name → :class:`Interval`. Analytic SEs (Gwet's linearisation) are filled
    for ``fleiss_kappa`` and ``gwet_ac1``; Krippendorff's α has none (``se`` None).
    Undefined values are nan without a warning (the caller decides what to say), each with its
    ``reason``; fewer than 2 items, or items that all carry the same ratings, give no interval
    (``ci_reason``).
    """
    options = bootstrap if bootstrap is not None else BootstrapOptions()
    if isinstance(statistics, str):
        raise ParameterError(f"statistics: expected a tuple of names, got the string {statistics!r}")
    for s in statistics:
        check_choice("statistics", s, STATISTICS)
    check_choice("level", level, LEVELS)
    counts, names = resolve_counts(data, categories=categories, rater_type=rater_type)
    values = category_values(names, level) if "krippendorff_alpha" in statistics else None
    pats = usable_patterns(counts)
    block = _Features.build(statistics, pats, level, values)
    full = pats.freq @ block.features
    point = block.evaluate(full)
    labels = tuple(str(n) for n in names)
    if options.n_boot == 0:
        out = {
            s: _point_only(s, np.atleast_1d(point[s]).astype(float), pats, options, labels)
            for s in statistics
        }
        return {s: explain(v, s, pats) for s, v in out.items()}
    _check_memory(options, sum(np.atleast_1d(point[s]).size for s in statistics))
    resampled = _resample(block, pats, options)
    jack = block.evaluate(full[None, :] - block.features)  # one item of each pattern left out
    theta = {
        s: (np.atleast_1d(point[s]).astype(float), resampled[s], jack[s].reshape(len(pats.freq), -1))
        for s in statistics
    }
    return {s: explain(_interval(s, theta[s], pats, options, labels), s, pats) for s in statistics}
