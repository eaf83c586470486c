"""A Balderdash rate compared between the levels of a setting, per model, under human labels.

*Cells.* Per model × level of the setting (``correct_definition_points``, ``history_type``,
``deck`` or ``filter_words``), the corrected TDR or LKR is the engine's
(:func:`~wordplay_audit.analysis.correction.engine.cell_share`): the post-stratified realised
share with its randomised exact interval, post-strata the judge's verdict × ``deck`` (the
sampling strata, unless the setting is the deck), coarsened to the verdict where a deck holds
fewer than ``min_labels`` labels of the cell.

*Difference* of level b minus level a (every pair of levels, in sorted order). The two cells hold
disjoint items and disjoint labels, so the realised difference D = S_b − S_a gets the
difference of the two cells' predictives (:mod:`~wordplay_audit.analysis.correction.predictive_draws`:
``draws`` exact draws of each post-stratum's unlabelled true items); the lower bound is the
α/2 quantile of S_b drawn on its low side minus S_a on its high side (the engine's anchoring),
the upper bound the other way round, and the test of D = 0 is the p-value that inverts the
interval. Two targets: the *effect* of the setting, the difference of the rates that generate
each level's definitions (each drawn realised count T of N carried to its rate by the Jeffreys
Beta(T + ½, N − T + ½), :func:`~wordplay_audit.analysis.correction.predictive_draws.rate_draws`):
``ci_low``/``ci_high``, the test and the verdict, so that two levels whose realised shares differ
only by chance are not called different; and the realised difference in the export's definitions
(what the study would report with people's labels everywhere): ``realised_low``/``realised_high``,
for the simulations only — its coverage fell to 0.917 in a design of
``benchmarks/sim_balderdash_compare.py`` (judge FNR 0.35, 150 labels per cell), so the workflow
step does not print it.

*Multiplicity.* One family per call: every model × pair of levels; Holm's step-down adjustment
(``p_holm``) controls the family-wise error rate. The intervals are per row (marginal 95 %).

*Verdict* per row: ``differs`` where ``p_holm`` < 1 − ``confidence``; else, with an interval, the
largest difference it allows, X = ``max(abs(low), abs(high))``: ``no difference detected (the interval
excludes differences larger than X)`` where X ≤ ``margin``, else ``cannot tell`` (the interval
allows X); ``cannot tell`` with the reason where a cell has no interval.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations

import numpy as np
import pandas as pd

from wordplay_audit.analysis.balderdash.corrected_frame import question_frame
from wordplay_audit.analysis.balderdash.recompute import METRIC_QUESTION, labels_for
from wordplay_audit.analysis.correction.cells import level_parts, unlabelled_parts
from wordplay_audit.analysis.correction.engine import cell_share
from wordplay_audit.analysis.correction.intervals import MIN_LABELS, seeded_rng
from wordplay_audit.analysis.correction.predictive_draws import (
    contrast_interval,
    count_draws,
    holm,
    rate_draws,
)
from wordplay_audit.errors import ParameterError, check_choice, check_level

__all__ = [
    "CELL_COLUMNS",
    "DIFF_COLUMNS",
    "SETTINGS",
    "CellDraws",
    "SettingComparison",
    "cell_draws",
    "compare_settings",
    "contrast",
    "setting_cells",
    "verdict_text",
]

SETTINGS = ("correct_definition_points", "history_type", "deck", "filter_words")
"""The settings a comparison may be by (columns of the player-round table)."""
CELL_COLUMNS = ["model", "level", "n", "n_labelled", "judge", "estimate", "ci_low", "ci_high", "reason", "unknown"]  # fmt: skip
"""The columns of a comparison's cells (model × level)."""
DIFF_COLUMNS = ["model", "level_a", "level_b", "judge_difference", "difference", "ci_low", "ci_high", "p", "p_holm",
                "verdict", "realised_low", "realised_high"]  # fmt: skip
"""The columns of a comparison's differences (besides ``reason``)."""


@dataclass
class CellDraws:
    """What a cell's predictive draws need: its labelled-true count, items, and per post-stratum
    (unlabelled, labelled, labelled true) of the level the engine used, the unknown items aside."""

    known: float
    total: int
    parts: list
    unknown: int

    def shares(self, side: str, *, draws: int, rng: np.random.Generator, rate: bool = False) -> np.ndarray:
        """``draws`` realised shares of the cell drawn on ``side`` (``low``/``high``/``free``);
        ``rate``: the rate behind each (:func:`~wordplay_audit.analysis.correction.predictive_draws.rate_draws`)."""
        if self.unknown and side == "free":
            raise ParameterError("side: a cell with unknown post-strata has no free draws")
        u, n, x = (list(t) for t in zip(*self.parts, strict=True))
        count = count_draws(u, n, x, side=side, draws=draws, rng=rng).sum(axis=1)
        true = self.known + count + (self.unknown if side == "high" else 0)
        return rate_draws(true, self.total, rng=rng) if rate else true / self.total


def cell_draws(cell: pd.DataFrame, keys: list[str], finest: list[str]) -> CellDraws:
    """:class:`CellDraws` of a cell on the engine's level ``keys`` (finest ``finest``): as
    :func:`~wordplay_audit.analysis.correction.cells.own_interval` splits it."""
    known = float(cell.loc[cell["labelled"].to_numpy(bool), "human"].astype(bool).sum())
    unknown = unlabelled_parts(cell, finest) if len(keys) < len(finest) else np.zeros(len(cell), bool)
    parts = level_parts(cell[~unknown], keys, 0) if unknown.any() else level_parts(cell, keys, 0)
    return CellDraws(known, len(cell), parts or [(0, 1, 0)], int(unknown.sum()))


def verdict_text(p_holm: float, low: float, high: float, alpha: float, margin: float, reason=None) -> str:
    """The one-line verdict of a difference (module doc).

    >>> verdict_text(0.2, -0.04, 0.03, 0.05, 0.1)
    'no difference detected (the interval excludes differences larger than 0.040)'
    >>> verdict_text(0.001, 0.05, 0.2, 0.05, 0.1)
    'differs'
    >>> verdict_text(0.5, -0.3, 0.2, 0.05, 0.1)
    'cannot tell (the interval allows differences up to 0.300)'
    """
    if reason is not None:
        return f"cannot tell ({reason})"
    if np.isfinite(p_holm) and p_holm < alpha:
        return "differs"
    largest = max(abs(low), abs(high))
    if largest <= margin:
        return f"no difference detected (the interval excludes differences larger than {largest:.3f})"
    return f"cannot tell (the interval allows differences up to {largest:.3f})"


@dataclass
class SettingComparison:
    """``cells`` (model × level, :data:`CELL_COLUMNS`) and ``differences`` (:data:`DIFF_COLUMNS`)."""

    by: str
    metric: str
    cells: pd.DataFrame
    differences: pd.DataFrame
    confidence: float
    margin: float


def _check(obs, by, metric, confidence, margin, draws) -> None:
    check_choice("by", by, SETTINGS)
    check_choice("metric", metric, tuple(METRIC_QUESTION))
    check_level(confidence)
    if by not in obs.columns:
        raise ParameterError(f"by: column {by!r} is not in the player-round table")
    if not (isinstance(margin, int | float) and 0 < margin <= 1):
        raise ParameterError(f"margin: expected a difference in (0, 1], got {margin!r}")
    if isinstance(draws, bool) or not isinstance(draws, int) or draws < 1000:
        raise ParameterError(f"draws: expected a whole number ≥ 1000, got {draws!r}")


def contrast(
    b: CellDraws, a: CellDraws, *, draws: int, confidence: float, rng: np.random.Generator, point: float
) -> dict:
    """The difference b − a of two cells with disjoint labels: ``ci_low``/``ci_high`` and ``p``
    for the difference of the rates behind them, ``realised_low``/``realised_high`` for the
    difference of their realised shares (module doc); bounds widened to hold ``point``."""
    out = {}
    for rate, names in ((True, ("ci_low", "ci_high", "p")), (False, ("realised_low", "realised_high", None))):
        low_d = b.shares("low", draws=draws, rng=rng, rate=rate) - a.shares(
            "high", draws=draws, rng=rng, rate=rate
        )
        high_d = b.shares("high", draws=draws, rng=rng, rate=rate) - a.shares(
            "low", draws=draws, rng=rng, rate=rate
        )
        low, high, p = contrast_interval(low_d, high_d, confidence=confidence)
        out.update({names[0]: min(low, point), names[1]: max(high, point)})
        if names[2]:
            out[names[2]] = p
    return out


def setting_cells(
    obs: pd.DataFrame, labels: pd.DataFrame, *, by: str, metric: str, confidence: float = 0.95,
    min_labels: int = MIN_LABELS, seed: int = 0, strata: Sequence[str] = ("deck",),
) -> tuple[pd.DataFrame, dict]:  # fmt: skip
    """The engine's corrected cells per model × level of ``by`` and their :class:`CellDraws`
    (None without an interval), keyed by (model, level)."""
    frame = question_frame(obs, labels_for(obs, labels), metric)
    data = frame.data
    post = [c for c in strata if c != by and c in data.columns]
    rows, pieces = [], {}
    for (model, level), cell in data.groupby(["model", by], sort=True, observed=True):
        level = int(level) if isinstance(level, float) and level.is_integer() else level  # points: 0, 50
        rng = seeded_rng(seed, f"compare:{metric}", *frame.seed_key(cell))  # as the engine seeds a stream
        share = cell_share(cell, post, confidence=confidence, min_labels=min_labels, rng=rng)
        rows.append((model, level, len(cell), int(cell["labelled"].sum()), float(cell["judge"].mean()),
                     share.estimate, share.low, share.high, share.reason, share.unknown))  # fmt: skip
        ok = share.keys is not None
        pieces[model, level] = cell_draws(cell, share.keys, ["judge", *post]) if ok else None
    return pd.DataFrame(rows, columns=CELL_COLUMNS), pieces


def compare_settings(  # noqa: PLR0913 - keyword-only options, one per setting
    obs: pd.DataFrame, labels: pd.DataFrame, *, by: str, metric: str = "tdr", confidence: float = 0.95,
    margin: float = 0.10, min_labels: int = MIN_LABELS, draws: int = 20000, seed: int = 0,
) -> SettingComparison:  # fmt: skip
    """Per model, the corrected ``metric`` in each level of ``by`` and the difference between
    every two levels with its interval, test, Holm-adjusted p-value and verdict (module doc).

    ``obs``: the player-round table; ``labels``: people's labels (question ``reference`` for
    TDR, ``any_sense`` for LKR); ``margin``: the largest difference called no difference."""
    _check(obs, by, metric, confidence, margin, draws)
    cells, pieces = setting_cells(
        obs, labels, by=by, metric=metric, confidence=confidence, min_labels=min_labels, seed=seed
    )
    rows = []
    for model, part in cells.groupby("model", sort=True):
        for (_, a), (_, b) in combinations(part.iterrows(), 2):
            row = {"model": model, "level_a": a["level"], "level_b": b["level"],
                   "judge_difference": b["judge"] - a["judge"], "difference": b["estimate"] - a["estimate"]}  # fmt: skip
            da, db = pieces[model, a["level"]], pieces[model, b["level"]]
            if da is None or db is None:
                why = a["reason"] if da is None else b["reason"]
                rows.append({**row, "ci_low": np.nan, "ci_high": np.nan, "p": np.nan, "realised_low": np.nan,
                             "realised_high": np.nan, "reason": why})  # fmt: skip
                continue
            rng = seeded_rng(seed, "compare-diff", metric, model, a["level"], b["level"])
            rows.append({**row, **contrast(db, da, draws=draws, confidence=confidence, rng=rng,
                                           point=row["difference"]), "reason": None})  # fmt: skip
    diffs = pd.DataFrame(rows, columns=[*DIFF_COLUMNS[:8], *DIFF_COLUMNS[10:], "reason"])
    diffs["p_holm"] = holm(diffs["p"].to_numpy(float)) if len(diffs) else []
    alpha = 1 - confidence
    diffs["verdict"] = [
        verdict_text(r.p_holm, r.ci_low, r.ci_high, alpha, margin, r.reason) for r in diffs.itertuples()
    ]
    diffs = diffs[[*DIFF_COLUMNS, "reason"]]
    diffs["reason"] = diffs["reason"].astype(object).where(diffs["reason"].notna(), None)
    return SettingComparison(by, metric, cells, diffs, confidence, margin)
