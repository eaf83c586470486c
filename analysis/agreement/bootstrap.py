"""Item-level bootstrap intervals (percentile and BCa) for every coefficient of the package.

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

Conger's and Light's κ depend on who gave which rating, so their features live on the distinct
rows of the item × rater code matrix (*code patterns*, each inside one count pattern). Each
resample then draws the count patterns as above and splits each count pattern's draws among its
code patterns by a multinomial (:func:`.resampling.draw_weights`): together exactly the
multinomial over code patterns, and the count-table statistics see the same draws as without
them.

References: Efron, B. (1987). Better bootstrap confidence intervals. JASA 82, 171–185;
Efron & Tibshirani (1993), An Introduction to the Bootstrap, ch. 14.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from wordplay_audit.corpora.progress import bar
from wordplay_audit.errors import ParameterError, check_choice

from ._common import LEVELS, STATISTICS, Level, RaterType, Statistic
from ._core import SINGLE_RATED, Functional, SingleRated, sample_patterns
from ._raters import light_pairs, rater_patterns
from ._statistics import (
    MAX_FEATURE_CELLS,
    RATER_STATISTICS,
    Sample,
    analytic_se,
    check_statistics,
    fits,
    functional,
    rater_value_se,
)
from .alpha import category_values
from .inference import t_test
from .intervals import BootstrapOptions, Interval
from .reasons import explain
from .resampling import draw_weights, interval_bounds
from .tables import RatingTable, as_rating_table, looks_like_labels, resolve_counts
from .weights import WeightName, matrix_of

__all__ = ["BootstrapOptions", "Interval", "bootstrap_intervals"]

DEFAULT_STATISTICS: tuple[Statistic, ...] = ("fleiss_kappa", "krippendorff_alpha", "gwet_ac1")


class _Block:
    """The statistics of one pattern level side by side, so one product serves all of them."""

    def __init__(self, names: Sequence[str], sample: Sample, freq: np.ndarray):
        self.names = tuple(names)
        self.functionals: dict[str, Functional] = {s: functional(s, sample) for s in self.names}
        parts = [self.functionals[s].features for s in self.names]
        self.bounds = np.cumsum([0] + [p.shape[1] for p in parts])
        self.features = np.concatenate(parts, axis=1) if parts else np.zeros((len(freq), 0))
        self.freq = freq
        self.full = freq @ self.features
        # statistics share feature columns (the rater one-hots of Conger's and Light's κ, the
        # item counts): resample each distinct column once
        self.distinct, self.expand = _distinct_columns(self.features)

    def sums(self, weights: np.ndarray) -> np.ndarray:
        """``weights @ features`` through the distinct columns."""
        return (weights @ self.distinct)[..., self.expand]

    def evaluate(self, sums: np.ndarray) -> dict[str, np.ndarray]:
        out = {}
        with np.errstate(invalid="ignore", divide="ignore"):
            for s, lo, hi in zip(self.names, self.bounds[:-1], self.bounds[1:], strict=True):
                out[s] = self.functionals[s].evaluate(sums[..., lo:hi])
        return out

    def jackknife(self) -> dict[str, np.ndarray]:
        """Each statistic with one item of each pattern left out, ``(P, J)``."""
        return {
            s: v.reshape(len(self.freq), -1)
            for s, v in self.evaluate(self.full[None, :] - self.features).items()
        }


def _distinct_columns(features: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct columns of ``features`` and, for each column, the index of its copy (equal
    columns found by a random projection, then compared exactly)."""
    if features.shape[1] == 0:
        return features, np.zeros(0, dtype=np.int64)
    key = np.random.default_rng(12345).standard_normal(len(features)) @ features
    _, first, inverse = np.unique(key, return_index=True, return_inverse=True)
    candidate = features[:, first]
    if not np.array_equal(candidate[:, inverse], features):  # a collision: keep every column
        return features, np.arange(features.shape[1])
    return candidate, inverse.reshape(-1)


def _pick(scalar: bool):
    return (lambda a: float(a[0])) if scalar else (lambda a: np.asarray(a))


def _base(
    name: str, theta_hat: np.ndarray, se: float | None, sample: Sample, options: BootstrapOptions
) -> dict:
    """The fields every interval has: value, analytic SE, the t test and Wald/t interval."""
    scalar = name != "per_category_kappa"
    test = t_test(float(theta_hat[0]), se, sample.pats.n_items, options.confidence) if scalar else {}
    return {
        "value": _pick(scalar)(theta_hat),
        "se": se,
        "confidence": options.confidence,
        "categories": None if scalar else tuple(str(n) for n in sample.names),
        **test,
    }


def _point_only(name: str, base: dict, n_values: int) -> Interval:
    """An interval without bootstrap: nan bounds, ``method`` none."""
    scalar = name != "per_category_kappa"
    nan = float("nan") if scalar else np.full(n_values, np.nan)
    return Interval(
        ci_low=nan,
        ci_high=nan,
        method="none",
        percentile=(nan, nan),
        bca=(nan, nan),
        boot_se=nan,
        n_boot=0,
        n_undefined=0 if scalar else np.zeros(n_values, int),
        **base,
    )


def _interval(
    name: str, base: dict, resampled: np.ndarray, jack: np.ndarray, freq: np.ndarray, options
) -> Interval:
    """The :class:`Interval` of one statistic from its resampled and jackknife values."""
    theta_hat = np.atleast_1d(np.asarray(base["value"], dtype=float))
    ints = interval_bounds(theta_hat, resampled, jack, freq, options.confidence)
    chosen, used_method = ints[options.method], options.method
    scalar = name != "per_category_kappa"
    if options.method == "bca":  # BCa undefined (z0 infinite: all resamples on one side)
        fallback = np.isnan(chosen[0]) | np.isnan(chosen[1])
        if fallback.any():
            chosen = tuple(np.where(fallback, p, b) for p, b in zip(ints["percentile"], chosen, strict=True))
            used_method = "percentile" if scalar else used_method
    pick = _pick(scalar)
    return Interval(
        ci_low=pick(chosen[0]),
        ci_high=pick(chosen[1]),
        method=used_method,
        percentile=(pick(ints["percentile"][0]), pick(ints["percentile"][1])),
        bca=(pick(ints["bca"][0]), pick(ints["bca"][1])),
        boot_se=pick(ints["boot_se"]),
        n_boot=options.n_boot,
        n_undefined=int(ints["n_undefined"][0]) if scalar else ints["n_undefined"],
        distribution=resampled[:, 0] if scalar else resampled,
        **base,
    )


def _resample(
    blocks: tuple[_Block, _Block | None], sample: Sample, options: BootstrapOptions
) -> dict[str, np.ndarray]:
    """Each statistic on every resample, ``(n_boot, J)`` (see the module docstring)."""
    rng = np.random.default_rng(options.seed)
    count_block, rater_block = blocks
    rp = sample.rp if rater_block is not None else None
    chunks: dict[str, list[np.ndarray]] = {s: [] for b in blocks if b is not None for s in b.names}
    draws = draw_weights(sample.pats, rp, options.n_boot, rng, draws=options.draws)
    with bar(total=options.n_boot, desc="bootstrap", unit="resample", enabled=options.progress) as shown:
        for w_count, w_code in draws:
            for block, w in ((count_block, w_count), (rater_block, w_code)):
                if block is not None and block.names:
                    for s, v in block.evaluate(block.sums(w)).items():
                        chunks[s].append(v)
            shown.update(len(w_count))
    return {s: np.concatenate(v, axis=0).reshape(options.n_boot, -1) for s, v in chunks.items()}


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


def _sample(data, statistics, level, weights, categories, rater_type, single_rated) -> Sample:
    """The patterns, names, weights and α values of ``data`` for ``statistics``."""
    check_statistics(statistics, weights, isinstance(data, RatingTable) or looks_like_labels(data))
    raters = any(s in RATER_STATISTICS for s in statistics)
    table = as_rating_table(data, categories=categories, rater_type=rater_type) if raters else None
    counts, names = (
        (table.counts, table.categories)
        if table is not None
        else resolve_counts(data, categories=categories, rater_type=rater_type)
    )
    values = category_values(names, level) if "krippendorff_alpha" in statistics else None
    pats = sample_patterns(counts, single_rated)
    rp = rater_patterns(table, pats) if table is not None else None
    pairs = tuple(light_pairs(rp)) if rp is not None and "light_kappa" in statistics else ()
    return Sample(pats, rp, names, matrix_of(weights, list(names)), level, values, pairs)


def _too_big(name: str, sample: Sample) -> str:
    return (
        f"too many distinct rating rows ({len(sample.rp.freq):,}) × features for a bootstrap of {name} "
        f"(limit {MAX_FEATURE_CELLS:,} cells)"
    )


def _check_options(statistics: Sequence[str], level: str, single_rated: str) -> None:
    if isinstance(statistics, str):
        raise ParameterError(f"statistics: expected a tuple of names, got the string {statistics!r}")
    for s in statistics:
        check_choice("statistics", s, STATISTICS)
    check_choice("level", level, LEVELS)
    check_choice("single_rated", single_rated, SINGLE_RATED)


def _bases(statistics: Sequence[str], count_block: _Block, sample: Sample, options: BootstrapOptions) -> dict:
    """Value, analytic SE and t test of every statistic (rater statistics without features)."""
    point = count_block.evaluate(count_block.full)
    bases = {}
    for s in statistics:
        if s in RATER_STATISTICS:
            value, se = rater_value_se(s, sample)
            bases[s] = _base(s, np.array([value]), se, sample, options)
        else:
            theta = np.atleast_1d(point[s]).astype(float)
            bases[s] = _base(s, theta, analytic_se(s, sample), sample, options)
    return bases


def bootstrap_intervals(
    data: object,
    *,
    statistics: Sequence[Statistic] = DEFAULT_STATISTICS,
    bootstrap: BootstrapOptions | None = None,
    level: Level = "nominal",
    weights: WeightName | object | None = None,
    categories: Sequence[str] | None = None,
    rater_type: RaterType | None = "human",
    single_rated: SingleRated = "gwet",
) -> dict[str, Interval]:
    """Point estimates, analytic SEs, t tests and item-bootstrap intervals of several
    statistics in one pass.

    Parameters
    ----------
    data
        Labels DataFrame, :class:`~.tables.RatingTable` or count table ``(n, K)`` (not for
        ``conger_kappa*`` and ``light_kappa``, which need the raters).
    statistics
        Any of :data:`~._common.STATISTICS`: ``percent_agreement``, ``fleiss_kappa``,
        ``gwet_ac1``, ``brennan_prediger``, ``conger_kappa``, ``light_kappa``,
        ``krippendorff_alpha`` (at ``level``), ``per_category_kappa`` and the weighted
        ``fleiss_kappa_weighted``, ``gwet_ac2``, ``brennan_prediger_weighted``,
        ``conger_kappa_weighted`` (with ``weights``). All use the same resamples.
    bootstrap
        :class:`BootstrapOptions` (resamples, seed, ``confidence``, interval ``method``,
        ``draws``); default ``BootstrapOptions()``: 1,000 multinomial resamples, seed 0, 95 %
        BCa. ``n_boot=0`` gives the point estimates with nan bounds (``method`` ``"none"``).
    level, weights, categories, rater_type, single_rated
        Krippendorff's α level; the weights of the weighted statistics (:mod:`.weights`); the
        declared categories and the rater type kept (labels only); the items rated once
        (:mod:`._core`).

    Returns
    -------
    dict statistic name → :class:`Interval`, with Gwet's analytic SE (delta method for Light's
    κ; none for ordinal α and per-category κ) and the t test and Wald/t interval from it.
    Undefined values are nan without a warning (the caller decides what to say), each with its
    ``reason``; fewer than 2 items, or items that all carry the same ratings, give no interval
    (``ci_reason``).
    """
    options = bootstrap if bootstrap is not None else BootstrapOptions()
    _check_options(statistics, level, single_rated)
    sample = _sample(data, statistics, level, weights, categories, rater_type, single_rated)
    rater_names = [s for s in statistics if s in RATER_STATISTICS]
    blocks = (
        _Block([s for s in statistics if s not in RATER_STATISTICS], sample, sample.pats.freq),
        _Block([s for s in rater_names if fits(s, sample)], sample, sample.rp.freq) if rater_names else None,
    )
    bases = _bases(statistics, blocks[0], sample, options)
    out = {s: _point_only(s, bases[s], len(sample.names)) for s in statistics}
    if options.n_boot > 0:
        _check_memory(options, sum(np.atleast_1d(bases[s]["value"]).size for s in statistics))
        draws = _resample(blocks, sample, options)
        for block in (b for b in blocks if b is not None and b.names):
            jack = block.jackknife()
            for s in block.names:
                out[s] = _interval(s, bases[s], draws[s], jack[s], block.freq, options)
    done = {s: explain(v, s, sample.pats) for s, v in out.items()}
    for s in rater_names:
        if options.n_boot > 0 and not fits(s, sample) and done[s].reason is None:
            done[s] = replace(done[s], ci_reason=_too_big(s, sample))
    return done
