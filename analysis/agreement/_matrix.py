"""The item × rater matrix of numeric ratings that ICC and Kendall's W read.

``values`` float ``(n, R)``: the rating rater *r* gave item *i*, nan where *r* did not rate *i*.
Built from a :class:`~.tables.RatingTable` with one scatter (``values[item, rater] =
number[label]``), no Python loop over ratings. Both statistics are listwise: they read the
*complete* rows (items every rater of the table rated); :class:`ScoreMatrix` counts the rest.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from wordplay_audit.corpora.values import parse_number
from wordplay_audit.errors import InputError

from ._common import RaterType
from .tables import RatingTable, as_rating_table

__all__ = ["ScoreMatrix", "category_numbers", "score_matrix"]


@dataclass(frozen=True)
class ScoreMatrix:
    """Complete rows of the item × rater matrix: ``values`` ``(n, k)`` (items rated by every one
    of the ``k`` raters), ``n_left_out`` items rated by some raters only (left out, counted)."""

    values: np.ndarray
    n_left_out: int
    raters: tuple[str, ...]

    @property
    def n_items(self) -> int:
        return int(self.values.shape[0])

    @property
    def n_raters(self) -> int:
        return int(self.values.shape[1])


def category_numbers(categories: Sequence[object]) -> np.ndarray | None:
    """Each category name as a number (:func:`~wordplay_audit.corpora.values.parse_number`), or
    None when some name is not a number."""
    numbers = [parse_number(c) for c in categories]
    if any(x is None for x in numbers):
        return None
    return np.asarray(numbers, dtype=float)


def _complete(values: np.ndarray, raters: tuple[str, ...]) -> ScoreMatrix:
    keep = ~np.isnan(values).any(axis=1)
    return ScoreMatrix(values[keep], int((~keep).sum()), raters)


def score_matrix(
    data: pd.DataFrame | RatingTable | np.ndarray,
    *,
    numbers: np.ndarray | None = None,
    rater_type: RaterType | None = "human",
) -> ScoreMatrix:
    """The complete rows of the numeric item × rater matrix of ``data``.

    ``data``: a labels table or :class:`~.tables.RatingTable` whose labels are numbers (or whose
    categories ``numbers`` maps to numbers, e.g. their rank in an ordinal scale), or a 2-D
    array ``(n items, k raters)`` with nan for a missing rating. InputError when a label is not
    a number.
    """
    if isinstance(data, np.ndarray | list):
        array = np.asarray(data, dtype=float)
        if array.ndim != 2:
            raise InputError(f"ratings: expected a 2-D array (items × raters), got shape {array.shape}")
        if np.isinf(array).any():
            raise InputError("ratings: infinite rating; expected finite numbers (nan for a missing rating)")
        return _complete(array, tuple(str(r) for r in range(array.shape[1])))
    table = as_rating_table(data, rater_type=rater_type)
    if numbers is None:
        numbers = category_numbers(table.categories)
        if numbers is None:
            bad = next(c for c in table.categories if parse_number(c) is None)
            raise InputError(f"label: {bad!r} is not a number (ICC and Kendall's W read numeric labels)")
    values = np.full((table.n_items, table.n_raters), np.nan)
    values[table.item, table.rater] = np.asarray(numbers, dtype=float)[table.label]
    return _complete(values, tuple(str(r) for r in table.raters))
