"""The corrected-metric engine: a judge's rate per cell corrected by a human sample, with the
randomised exact interval of the realised share (one estimator, one interval, one minimum-labels
rule for every game).

*Target.* Per cell (a group of items, e.g. one player model), the realised share of items that
people call true: what the study would report had people labelled every item of the cell.

*Estimator.* Post-stratified on the judge's verdict (× optional ``post_strata`` columns): with
``K`` labelled-true items in the cell and, per post-stratum s, ``U_s`` unlabelled items and
``x_s`` true of its ``n_s`` labels,

    θ̂ = (K + Σ_s U_s · x_s / n_s) / N,

the double-sampling estimator (Tenenbein 1970, JASA 65:1350) restricted to the unlabelled rest;
labelled items count as labelled. With a ``sampling_weight`` column (1/π) n_s and x_s are the
Kish effective counts of :func:`~wordplay_audit.analysis.correction.cells.label_counts`. The
post-strata are the finest (verdict × ``post_strata``) where each with unlabelled items holds
``min_labels`` labels, else the verdict alone; there a finer post-stratum without a label counts
as *unknown* in the interval (none of its items true in the low bound, all in the high one; the
``unknown`` column) – the coarse share stands for it only on average over where labels fall.

*Interval.* The randomised exact (Stevens 1950, Biometrika 37:117; Geyer & Meeden 2005, Stat.
Sci. 20:358) predictive interval of the realised count: each post-stratum's share gets the
randomised Clopper–Pearson confidence distribution, its unlabelled items a beta-binomial mixture
of true ones, the cell's count their convolution, the bounds its 2.5 / 97.5 % quantiles (at
``confidence`` 0.95), unanimous post-strata anchored at their extreme
(:func:`~wordplay_audit.analysis.correction.calibration.randomised_share_interval`). The bounds
are widened to hold the point where the randomisation leaves it outside. Randomised: each cell's
v is drawn from a generator seeded by (``seed``, ``stream``, the cell's first ``seed_column``
value), so the same input gives the same interval.

*Score bands* (``score``, ``bands``): the judge's score cut into quantile bands inside each
verdict, merged until each band holds ``min_labels`` labels, become the finest post-strata
(:mod:`~wordplay_audit.analysis.correction.bands`); the estimator and interval are unchanged. A
judge that ranks items well leaves less variation inside a band than inside a verdict, so the
same labels give a narrower interval; a badly calibrated score bands by rank, so its calibration
does not matter here (docs/SCORES.md).

*When it is valid.* Inside each post-stratum of a cell the labelled items are a simple random
sample of its items (given how many): a sample drawn within the judge's verdicts (stratified),
or a simple random sample of the cell (conditional on the verdict counts it is one of each
verdict), or one drawn with known inclusion probabilities (``sampling_weight``); people's
consensus is the truth the share is of. A post-stratum with unlabelled items and fewer than
``min_labels`` (:data:`~wordplay_audit.analysis.correction.intervals.MIN_LABELS`, 5) labels gets
no interval (``reason`` :data:`~wordplay_audit.analysis.correction.intervals.TOO_FEW`): coverage
was measured at 5–40 labels per post-stratum (docs/methods/corrected-shares.md, "Coverage"), not
below. One with no label gets no
estimate either (:data:`NO_LABEL`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
import pandas as pd

from wordplay_audit.analysis.correction.bands import BAND, score_bands
from wordplay_audit.analysis.correction.cells import level_parts, own_interval
from wordplay_audit.analysis.correction.intervals import MIN_LABELS, TOO_FEW, seeded_rng
from wordplay_audit.errors import ParameterError, check_level

__all__ = ["NO_LABEL", "SHARE_COLUMNS", "CellShare", "cell_share", "corrected_shares", "own_share"]

#: The reason given when a post-stratum with unlabelled items has no label.
NO_LABEL = "a judge-verdict post-stratum with unlabelled items has no label: no estimate"
SHARE_COLUMNS = ["n", "n_labelled", "judge", "estimate", "ci_low", "ci_high", "reason", "unknown"]
"""The columns :func:`corrected_shares` adds after the cell columns."""


class CellShare(NamedTuple):
    """One cell's corrected share (:func:`cell_share`)."""

    estimate: float  # nan: a post-stratum with unlabelled items has no label
    low: float  # nan: no calibrated interval (``reason``)
    high: float
    reason: str | None
    unknown: int | None  # items counted unknown in the interval; None without an interval
    keys: list[str] | None  # the post-strata the interval used (None without one)


def _point(parts: list, known: float, total: int) -> float:
    u, n, x = (np.asarray(v, float) for v in zip(*parts, strict=True))
    return float((known + np.sum(u * x / n)) / total)


def _levels(post_strata: Sequence[str]) -> list[list[str]]:
    return [["judge", *post_strata], ["judge"]] if post_strata else [["judge"]]


def own_share(
    cell: pd.DataFrame,
    post_strata: Sequence[str] = (),
    *,
    confidence: float = 0.95,
    min_labels: int = MIN_LABELS,
    rng: np.random.Generator,
) -> CellShare | None:
    """The cell's estimate and randomised exact interval (module doc) on the finest post-strata
    whose every one with unlabelled items holds ``min_labels`` labels; None when none does.
    ``cell``: ``judge``, ``labelled``, ``human`` (and ``post_strata``, optional
    ``sampling_weight``) columns, one row per item."""
    known = float(cell.loc[cell["labelled"].to_numpy(bool), "human"].astype(bool).sum())
    levels = _levels(post_strata)
    found = own_interval(
        cell, levels, levels[0], min_labels, known_true=known, confidence=confidence, rng=rng
    )
    if found is None:
        return None
    point = _point(found.parts, known, len(cell))
    return CellShare(point, min(found.low, point), max(found.high, point), None, found.unknown, found.keys)


def cell_share(
    cell: pd.DataFrame,
    post_strata: Sequence[str] = (),
    *,
    confidence: float = 0.95,
    min_labels: int = MIN_LABELS,
    rng: np.random.Generator,
) -> CellShare:
    """:func:`own_share`, or without an interval the estimate on the finest post-strata whose
    every one with unlabelled items holds a label and ``reason`` :data:`TOO_FEW` (nan and
    :data:`NO_LABEL` when none does).

    Two unlabelled judge-false items and 5 labels of that verdict, 1 true; 3 judge-true items
    labelled, all true: θ̂ = (3 + 1 + 2 · 1/5)/10 = 0.44 (no interval with ``min_labels=6``):

    >>> cell = pd.DataFrame({"judge": [True] * 3 + [False] * 7, "labelled": [True] * 8 + [False] * 2,
    ...                      "human": pd.array([True] * 4 + [False] * 4 + [None] * 2, dtype="boolean")})
    >>> share = cell_share(cell, min_labels=6, rng=np.random.default_rng(0))
    >>> round(share.estimate, 3), share.low, share.reason == TOO_FEW.format(k=6)
    (0.44, nan, True)
    """
    found = own_share(cell, post_strata, confidence=confidence, min_labels=min_labels, rng=rng)
    if found is not None:
        return found
    known = float(cell.loc[cell["labelled"].to_numpy(bool), "human"].astype(bool).sum())
    for keys in _levels(post_strata):
        parts = level_parts(cell, keys, 1)
        if parts is not None:
            return CellShare(_point(parts, known, len(cell)), np.nan, np.nan, TOO_FEW.format(k=min_labels), None, None)  # fmt: skip
    return CellShare(np.nan, np.nan, np.nan, NO_LABEL, None, None)


def _check_options(
    frame: pd.DataFrame, cells: list[str], post_strata: list[str], confidence: float, min_labels: int,
    seed_column: str,
) -> None:  # fmt: skip
    """ParameterError naming the parameter for a bad option or a missing column."""
    if not isinstance(frame, pd.DataFrame):
        raise ParameterError(f"frame: expected a pandas DataFrame, got {type(frame).__name__}")
    check_level(confidence)
    if isinstance(min_labels, bool) or not isinstance(min_labels, int | np.integer) or min_labels < 1:
        raise ParameterError(f"min_labels: expected a whole number ≥ 1, got {min_labels!r}")
    has = ", ".join(map(str, frame.columns))
    for name, column in [*(("cells", c) for c in cells), *(("post_strata", c) for c in post_strata)]:
        if column not in frame.columns:
            raise ParameterError(f"{name}: column {column!r} is not in frame (has {has})")
        if column in ("judge", "labelled", "human", *SHARE_COLUMNS):
            raise ParameterError(f"{name}: {column!r} is a column the engine reads or writes; rename it")
    for what, column in (("frame", "judge"), ("frame", "human"), ("seed_column", seed_column)):
        if column not in frame.columns:
            raise ParameterError(f"{what}: frame lacks column {column!r} (has {has})")


def _checked(
    frame: pd.DataFrame, cells: list[str], post_strata: list[str], confidence: float, min_labels: int,
    seed_column: str,
) -> pd.DataFrame:  # fmt: skip
    """The columns the engine reads, ``judge``/``labelled`` as bool and ``human`` as boolean;
    ParameterError naming the parameter otherwise."""
    _check_options(frame, cells, post_strata, confidence, min_labels, seed_column)
    weight = [c for c in ("sampling_weight",) if c in frame.columns]
    data = frame[list(dict.fromkeys([*cells, *post_strata, seed_column, *weight]))].reset_index(drop=True)
    judge = frame["judge"].reset_index(drop=True)
    wrong = ~judge.isin([True, False]).to_numpy(bool)
    if wrong.any():
        at = int(np.flatnonzero(wrong)[0])
        raise ParameterError(f"frame: 'judge' in row {at} is {judge.iloc[at]!r}; expected the judge's verdict, True or False")  # fmt: skip
    human = pd.array(frame["human"].reset_index(drop=True), dtype="boolean")
    labelled = (
        frame["labelled"].reset_index(drop=True).astype(bool).to_numpy()
        if "labelled" in frame.columns else ~pd.isna(human).astype(bool)
    )  # fmt: skip
    bad = labelled & pd.isna(human).astype(bool)
    if bad.any():
        raise ParameterError(f"frame: row {int(np.flatnonzero(bad)[0])} is labelled but its 'human' verdict is missing")  # fmt: skip
    human[~labelled] = pd.NA
    return data.assign(judge=judge.astype(bool).to_numpy(), labelled=labelled, human=human)


def corrected_shares(  # noqa: PLR0913 - keyword-only options, one per setting
    frame: pd.DataFrame,
    *,
    cells: Sequence[str],
    post_strata: Sequence[str] = (),
    confidence: float = 0.95,
    min_labels: int = MIN_LABELS,
    seed: int = 0,
    seed_column: str = "item_id",
    stream: str | None = None,
    score: str | None = None,
    bands: int | None = None,
) -> pd.DataFrame:
    """Per cell, the judge's rate and the realised share under people's labels, corrected with
    its randomised exact interval (module doc).

    Parameters
    ----------
    frame
        One row per item: the ``cells`` columns, ``judge`` (bool: the judge's verdict),
        ``human`` (nullable boolean: people's consensus, NA where unlabelled), ``labelled``
        (bool; default: ``human`` is not NA), the ``post_strata`` columns, optional
        ``sampling_weight`` (1/π of each sampled item) and ``seed_column``.
    cells
        The columns whose values make a cell (``[]``: the whole frame is one cell).
    post_strata
        Columns that split the judge's verdicts into finer post-strata (verdict × these first,
        coarsened to the verdict where one holds fewer than ``min_labels`` labels).
    confidence, min_labels
        Interval level; fewest labels in a post-stratum with unlabelled items for an interval.
    seed, seed_column, stream
        Each cell's generator is seeded by (``seed``, ``stream`` when given, the cell's first
        ``seed_column`` value in frame order).
    score, bands
        Score-band post-strata: the ``score`` column (the judge's score or calibrated
        probability; nan unknown) cut into ``bands`` quantile bands inside each verdict ×
        ``post_strata`` group of a cell, merged until each holds ``min_labels`` labels
        (:func:`~wordplay_audit.analysis.correction.bands.score_bands`), are the finest
        post-strata. Give both or neither.

    Returns
    -------
    DataFrame, one row per cell (sorted): the ``cells`` columns, ``n`` items, ``n_labelled``,
    ``judge`` (the judge's rate), ``estimate`` (nan with ``reason`` when a post-stratum with
    unlabelled items has no label), ``ci_low``, ``ci_high`` (nan with ``reason`` when such a
    post-stratum holds fewer than ``min_labels`` labels), ``reason`` (None where both are
    given), ``unknown`` (items counted unknown in the interval; <NA> without one).

    A fully labelled cell has the zero-width interval at its realised share:

    >>> f = pd.DataFrame({"model": "m", "item_id": ["a", "b", "c", "d"], "judge": [True, True, False, False],
    ...                   "human": pd.array([True, False, True, True], dtype="boolean")})
    >>> corrected_shares(f, cells=["model"])[["estimate", "ci_low", "ci_high"]].to_numpy().tolist()
    [[0.75, 0.75, 0.75]]
    """
    cells, post_strata = list(cells), list(post_strata)
    if (score is None) != (bands is None):
        raise ParameterError(f"score, bands: give both or neither (got score={score!r}, bands={bands!r})")
    if score is not None:
        if not isinstance(frame, pd.DataFrame) or score not in frame.columns:
            raise ParameterError(f"score: column {score!r} is not in frame")
        if isinstance(bands, bool) or not isinstance(bands, int | np.integer) or bands < 1:
            raise ParameterError(f"bands: expected a whole number ≥ 1, got {bands!r}")
    data = _checked(frame, cells, post_strata, confidence, min_labels, seed_column)
    if score is not None:
        data[score] = pd.to_numeric(frame[score], errors="coerce").to_numpy(float)
        post_strata = [*post_strata, BAND]
    groups = data.groupby(cells, sort=True, dropna=False, observed=True) if cells else [((), data)]
    streams = [] if stream is None else [stream]
    rows = []
    for key, cell in groups:
        key = key if isinstance(key, tuple) else (key,)
        rng = seeded_rng(seed, *streams, data[seed_column].iloc[cell.index[0]])
        if score is not None:
            keys = ["judge", *post_strata[:-1]]
            cell = cell.assign(
                **{BAND: score_bands(cell, score=score, bands=bands, keys=keys, min_labels=min_labels)}
            )
        share = cell_share(cell, post_strata, confidence=confidence, min_labels=min_labels, rng=rng)
        rows.append(
            (*key, len(cell), int(cell["labelled"].sum()), float(cell["judge"].mean()), share.estimate,
             share.low, share.high, share.reason, share.unknown)
        )  # fmt: skip
    table = pd.DataFrame(rows, columns=[*cells, *SHARE_COLUMNS])
    return table.assign(
        reason=table["reason"].astype(object).where(table["reason"].notna(), None),
        unknown=pd.array(table["unknown"].tolist(), dtype="Int64"),
    )
