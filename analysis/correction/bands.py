"""Score bands as post-strata: a judge's continuous score cut into bands inside each verdict, so
the engine's post-stratified estimator and randomised exact interval use the score beyond its
side of the threshold (game-agnostic).

Within each group of ``keys`` (the judge's verdict × the engine's other post-strata) the items
are cut at the ``bands``-quantiles of their score (ties kept together: a band is a run of
scores), and adjacent bands are then merged, the one with the fewest labels into its neighbour
with fewer labels, until every band with unlabelled items holds ``min_labels`` labels (or one
band is left). The cut uses the scores of every item of the group and the merge only where the
labels fell, never the labels' values: given the labelled set the bands are fixed, so under a
simple random sample within the group (or a sample stratified by these bands) the labels inside a
band are a simple random sample of it, which is what the engine's interval rests on
(:mod:`~wordplay_audit.analysis.correction.engine`). An item without a score gets band −1 (its
own post-stratum of unscored items, never read as a score of 0).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from wordplay_audit.errors import ParameterError

__all__ = ["BAND", "score_bands"]

BAND = "score_band"
"""The column :func:`score_bands` gives (and the engine adds to the post-strata)."""


def _cut(score: np.ndarray, bands: int) -> np.ndarray:
    """Band codes 0 … ≤ bands − 1 by the quantiles of ``score`` (equal scores in one band)."""
    order = np.argsort(score, kind="mergesort")
    rank = np.empty(len(score))
    rank[order] = np.arange(len(score))
    # ties: every item takes the band of the first of its run of equal scores
    first = pd.Series(rank).groupby(score).transform("min").to_numpy()
    return np.minimum((first * bands // max(len(score), 1)).astype(int), bands - 1)


def _merge(code: np.ndarray, labelled: np.ndarray, min_labels: int) -> np.ndarray:
    """Merge adjacent bands until each with unlabelled items holds ``min_labels`` labels."""
    bands = sorted(set(code.tolist()))
    groups = [[b] for b in bands]
    while len(groups) > 1:
        sizes = [
            (int(labelled[np.isin(code, g)].sum()), int((~labelled[np.isin(code, g)]).sum())) for g in groups
        ]
        short = [k for k, (n, u) in enumerate(sizes) if u > 0 and n < min_labels]
        if not short:
            break
        k = min(short, key=lambda j: (sizes[j][0], j))
        if k == 0:
            other = 1
        elif k == len(groups) - 1:
            other = k - 1
        else:
            other = k - 1 if sizes[k - 1][0] <= sizes[k + 1][0] else k + 1
        low, high = sorted((k, other))
        groups[low : high + 1] = [groups[low] + groups[high]]
    out = np.empty(len(code), dtype=int)
    for k, g in enumerate(groups):
        out[np.isin(code, g)] = k
    return out


def score_bands(
    frame: pd.DataFrame, *, score: str, bands: int, keys: Sequence[str] = ("judge",), min_labels: int = 5
) -> np.ndarray:
    """Band per row of ``frame`` (module doc): ``score`` (float, nan unknown), ``labelled``
    (bool) and the ``keys`` columns. Bands are numbered within each ``keys`` group from the lowest
    score up; unscored rows get −1.

    Ten judge-false items, scores 0.0 … 0.9, four bands of the quantiles ((0, 1, 2), (3, 4),
    (5, 6, 7), (8, 9)) and labels on items 0, 1, 3, 4, 9 (2, 2, 0, 1 per band): with
    ``min_labels=2`` the third band (no label) merges into its neighbour with fewer labels, the
    last (one), and the pair, still one label short, into the second:

    >>> f = pd.DataFrame({"judge": False, "s": np.arange(10) / 10,
    ...                   "labelled": [True, True, False, True, True, False, False, False, False, True]})
    >>> score_bands(f, score="s", bands=4, min_labels=2).tolist()
    [0, 0, 0, 1, 1, 1, 1, 1, 1, 1]
    """
    if isinstance(bands, bool) or not isinstance(bands, int | np.integer) or bands < 1:
        raise ParameterError(f"bands: expected a whole number ≥ 1, got {bands!r}")
    values = pd.to_numeric(frame[score], errors="coerce").to_numpy(float)
    labelled = frame["labelled"].to_numpy(bool)
    out = np.full(len(frame), -1, dtype=int)
    groups = (
        frame.groupby(list(keys), sort=False, dropna=False, observed=True).indices
        if keys
        else {(): np.arange(len(frame))}
    )
    for at in groups.values():
        at = np.asarray(at)
        at = at[np.isfinite(values[at])]
        if len(at):
            out[at] = _merge(_cut(values[at], bands), labelled[at], min_labels)
    return out
