"""The post-strata of one cell as (unlabelled, labelled, labelled true) triples, and the
randomised exact interval of the cell's realised share from its own labels (game-agnostic).

A *cell* is a frame of one row per item with ``judge`` (bool, the judge's verdict), ``labelled``
(bool), ``human`` (nullable boolean, NA where unlabelled), optional post-strata columns and an
optional ``sampling_weight`` (1/π). Its post-strata are the judge's verdict × those columns,
coarsened to the verdict (:func:`own_interval`). Balderdash's corrected rates and the engine
(:func:`~wordplay_audit.analysis.correction.engine.corrected_shares`) both build their cells'
intervals here.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pandas as pd

from wordplay_audit.analysis.correction.calibration import randomised_share_interval
from wordplay_audit.analysis.correction.poststratify import counts_by

__all__ = [
    "UNKNOWN_PART",
    "WEIGHT",
    "OwnInterval",
    "key_counts",
    "label_counts",
    "level_parts",
    "own_interval",
    "strata_parts",
    "unlabelled_parts",
]

UNKNOWN_PART = "a post-stratum (judge verdict × other decision) without a label"
"""What :func:`own_interval` counts as unknown (said beside the ``*_unknown`` counts)."""

WEIGHT = "sampling_weight"
"""Optional column of the items: 1/π of each sampled item (an adaptive campaign's items.csv); the
stratified estimate then weights each label by 1/π − 1 (:func:`label_counts`)."""


class OwnInterval(NamedTuple):
    keys: list[str]  # the level used
    parts: list  # its (unlabelled, labelled, labelled true) per post-stratum: the point
    low: float
    high: float
    unknown: int  # items counted as unknown


def own_interval(
    cell: pd.DataFrame, levels: list[list[str]], finest: list[str], min_labels: int, *, known_true: float,
    confidence: float, rng: np.random.Generator,
) -> OwnInterval | None:  # fmt: skip
    """The interval of the first of ``levels`` whose every post-stratum with unlabelled items
    holds ``min_labels`` labels of the cell (:func:`level_parts`); None when none does. On a
    level coarser than ``finest`` a ``finest`` post-stratum without a label of the cell counts as
    *unknown* in the interval: 0 of its items true in the low bound, all of them in the high one
    (``unknown`` items). The coarse share stands for such a post-stratum only on average over
    where the labels fall, not given that none fell there (docs/methods/corrected-shares.md,
    *Coarsening*)."""
    for keys in levels:
        parts = level_parts(cell, keys, min_labels)
        if parts is None:
            continue
        coarser = len(keys) < len(finest)
        unknown = unlabelled_parts(cell, finest) if coarser else np.zeros(len(cell), bool)
        used = level_parts(cell[~unknown], keys, 0) if unknown.any() else parts
        low, high = randomised_share_interval(
            *zip(*used, strict=True), known_true=known_true, n_total=len(cell), confidence=confidence, rng=rng
        )
        return OwnInterval(keys, parts, low, high + float(unknown.sum()) / len(cell), int(unknown.sum()))
    return None


def strata_parts(cell: pd.DataFrame, pooled: pd.DataFrame, keys: list[str]) -> tuple[list, bool]:
    """(unlabelled, labelled, labelled true) per ``keys`` stratum of the cell's unlabelled rows
    (in sorted order); a stratum without a label in the cell borrows ``pooled``'s labels (e.g.
    the model's). With sampling weights the labelled counts are :func:`label_counts`' effective
    ones."""
    counts = key_counts(cell, keys)
    parts, used_pool, pool_counts = [], False, None
    for key in sorted(k for k, (u, _, _) in counts.items() if u > 0):
        u, n, x = counts[key]
        source = cell
        if n == 0:
            pool_counts = key_counts(pooled, keys) if pool_counts is None else pool_counts
            _, n, x = pool_counts.get(key, (0, 0, 0))
            source, used_pool = pooled, True
        if n == 0:
            return [], used_pool
        if WEIGHT in source.columns:
            inside = np.logical_and.reduce([_equal(source[k], v) for k, v in zip(keys, key, strict=True)])
            n, x = label_counts(source[inside & source["labelled"].to_numpy(bool)])
        parts.append((u, n, x))
    return parts, used_pool


def _equal(column: pd.Series, value) -> np.ndarray:
    """Rows of ``column`` equal to ``value``, a missing value matching missing ones."""
    if pd.isna(value):
        return column.isna().to_numpy()
    return (column == value).fillna(False).to_numpy(bool)


def label_counts(lab: pd.DataFrame) -> tuple[float, float]:
    """(n, x) of the labels that stand for a post-stratum's unlabelled rest: the counts, or with
    a ``sampling_weight`` column (1/π, a campaign whose sampling rates changed between rounds)
    the Kish effective size n = (Σv)²/Σv² and x = n·Σ v y/Σ v with v = 1/π − 1, the unlabelled
    items each label stands for (a label without π, e.g. a honeypot, gets v = 0; equal π → the
    counts). Counts when no label has v > 0.

    >>> lab = pd.DataFrame({"human": [True, False, False], "sampling_weight": [2.0, 2.0, 5.0]})
    >>> n, x = label_counts(lab)
    >>> round(n, 3), round(x / n, 3)
    (2.0, 0.167)
    """
    y = lab["human"].astype(bool).to_numpy(float)
    if WEIGHT not in lab.columns:
        return len(lab), int(y.sum())
    v = np.clip(np.nan_to_num(lab[WEIGHT].to_numpy(float) - 1, nan=0.0), 0, None)
    if v.sum() <= 0:
        return len(lab), int(y.sum())
    n_eff = float(v.sum() ** 2 / (v**2).sum())
    return n_eff, n_eff * float(v @ y / v.sum())


def level_parts(cell: pd.DataFrame, keys: list[str], min_labels: int) -> list | None:
    """The cell's ``keys`` post-strata (no borrowing; ``[]``: the whole cell) if every one with
    unlabelled items holds ``min_labels`` labels of the cell, else None. A cell labelled in full
    has nothing to predict: one empty post-stratum (its share is known)."""
    if not (~cell["labelled"].to_numpy(bool)).any():
        return [(0, 1, 0)]
    parts, used_pool = strata_parts(cell, cell, keys) if keys else (_whole(cell), False)
    return parts if parts and not used_pool and all(n >= min_labels for _, n, _ in parts) else None


def _whole(cell: pd.DataFrame) -> list:
    lab = cell[cell["labelled"]]
    return [(int((~cell["labelled"]).sum()), *label_counts(lab))]


def unlabelled_parts(frame: pd.DataFrame, keys: list[str]) -> np.ndarray:
    """Rows of ``frame`` whose ``keys`` post-stratum holds none of ``frame``'s labels (a missing
    value is a value of its own).

    >>> f = pd.DataFrame({"judge": [True, True, False, False], "labelled": [True, False, False, False],
    ...                   "knows": [1, 1, 0, None]})
    >>> unlabelled_parts(f, ["judge", "knows"]).tolist()
    [False, False, True, True]
    """
    seen = frame.groupby(keys, observed=True, dropna=False, sort=False)["labelled"].transform("any")
    return ~seen.to_numpy(bool)


def key_counts(frame: pd.DataFrame, keys: list[str]) -> dict[tuple, tuple[int, int, int]]:
    """Per ``keys`` value (sorted): (unlabelled, labelled, labelled human-true) rows of ``frame``,
    counted by :func:`~wordplay_audit.analysis.correction.poststratify.counts_by`.

    >>> f = pd.DataFrame({"judge": [True, True, False], "labelled": [True, False, True],
    ...                   "human": [True, None, False], "deck": ["b", "a", "b"]})
    >>> key_counts(f, ["judge"])
    {(False,): (0, 1, 0), (True,): (1, 1, 1)}
    >>> key_counts(f, ["judge", "deck"])
    {(False, 'b'): (0, 1, 0), (True, 'a'): (1, 0, 0), (True, 'b'): (0, 1, 1)}
    """
    counts = counts_by(frame, keys)
    values = zip(*(counts[k].tolist() for k in keys), strict=True)
    totals = zip(counts["N"].tolist(), counts["n"].tolist(), counts["x"].tolist(), strict=True)
    return {key: (big_n - n, n, x) for key, (big_n, n, x) in zip(values, totals, strict=True)}
