"""From the long labels table to the arrays every agreement statistic works on.

Shapes (``n`` items, ``R`` raters, ``K`` categories, ``M`` ratings):

* ``counts``  int64 ``(n, K)``: :math:`n_{ik}`, how many raters put item *i* in category *k*
  (Fleiss' table; Krippendorff's ``value_counts``). Rows may have different sums
  :math:`n_i` (missing ratings).
* ``item``, ``rater``, ``label``  int ``(M,)``: one entry per rating, as codes into
  ``item_ids``, ``raters`` and ``categories``.
* patterns: the distinct rows of ``counts`` ``(P, K)``, with ``inverse`` ``(n,)`` mapping each
  item to its pattern and ``freq`` ``(P,)`` the number of items per pattern. With *R* raters and
  *K* categories there are at most :math:`\\binom{R+K-1}{K-1}` patterns (792 for R=5, K=8), so
  sums over items become short weighted sums over patterns.

Building ``counts`` from 5 million ratings uses pandas codes (categorical columns are used as
they are, other columns are factorised) and one :func:`numpy.bincount`; no Python loop.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from pandas.api.types import CategoricalDtype

from wordplay_audit.corpora.contract import LABEL_COLUMNS, place, validate_labels
from wordplay_audit.corpora.votes import order_categories  # the one category order
from wordplay_audit.errors import InputError, ParameterError

from ._common import RATER_TYPES, RaterType, check_rater_type

__all__ = [
    "RatingTable",
    "rating_table",
    "as_rating_table",
    "as_counts",
    "count_patterns",
    "order_categories",
    "looks_like_labels",
    "resolve_counts",
]


@dataclass(frozen=True)
class RatingTable:
    """Ratings as integer codes plus the item × category count table.

    Attributes
    ----------
    item_ids
        The item ids, shape ``(n,)`` (objects).
    raters
        The raters, shape ``(R,)`` (objects).
    categories
        The categories, shape ``(K,)`` (objects).
    item
        Each rating's item code, shape ``(M,)`` (ints; one entry per rating).
    rater
        Each rating's rater code, shape ``(M,)``.
    label
        Each rating's category code, shape ``(M,)``.
    counts
        The item × category count table, shape ``(n, K)`` (int64).
    """

    item_ids: np.ndarray
    raters: np.ndarray
    categories: np.ndarray
    item: np.ndarray
    rater: np.ndarray
    label: np.ndarray
    counts: np.ndarray

    @property
    def n_items(self) -> int:
        return int(self.counts.shape[0])

    @property
    def n_raters(self) -> int:
        return int(len(self.raters))

    @property
    def n_categories(self) -> int:
        return int(len(self.categories))

    def codes_matrix(self) -> np.ndarray:
        """Dense ``(n, R)`` matrix of category codes, ``-1`` where a rater did not rate."""
        out = np.full((self.n_items, self.n_raters), -1, dtype=np.int64)
        out[self.item, self.rater] = self.label
        return out

    def count_frame(self) -> pd.DataFrame:
        """``counts`` as a DataFrame indexed by item with one column per category."""
        return pd.DataFrame(
            self.counts,
            index=pd.Index(self.item_ids, name="item_id"),
            columns=pd.Index(self.categories, name="category"),
        )


def _codes(column: pd.Series, *, sort: bool) -> tuple[np.ndarray, np.ndarray]:
    """Integer codes and the distinct values of a column (categoricals used as they are)."""
    if isinstance(column.dtype, CategoricalDtype):
        codes = column.cat.codes.to_numpy().astype(np.int64)
        names = column.cat.categories
        stripped = names.astype(str).str.strip()
        used = np.bincount(codes, minlength=len(names)) > 0
        if used.all() and stripped.is_unique:
            return codes, np.asarray(stripped, dtype=object)
        # drop unused categories and merge names that are equal after stripping
        remap, values = pd.factorize(stripped[used], sort=sort)
        lookup = np.full(len(names), -1, dtype=np.int64)
        lookup[np.flatnonzero(used)] = remap
        return lookup[codes], np.asarray(values, dtype=object)
    codes, uniques = pd.factorize(column, sort=sort)
    return codes.astype(np.int64), np.asarray(uniques, dtype=object)


def _declared(categories: Sequence[str] | None) -> list[str] | None:
    """The declared categories, stripped; ParameterError when empty or repeated."""
    if categories is None:
        return None
    if isinstance(categories, str):
        raise ParameterError(f"categories: expected a list of names, got the string {categories!r}")
    declared = [str(c).strip() for c in categories]
    if len(set(declared)) != len(declared):
        raise ParameterError(f"categories: a name appears twice in {declared}")
    if len(declared) == 0:
        raise ParameterError("categories: empty; declare at least one category")
    return declared


def _keep_rater_type(frame: pd.DataFrame, rater_type: str | None) -> np.ndarray:
    """Boolean mask of the rows of ``rater_type`` (categorical columns read by their codes); None:
    the ratings of people and judges. An adjudicator's rows are never ratings (they settle an
    item's consensus, :mod:`wordplay_audit.corpora.consensus`; counting them as a rater would
    raise the agreement by the adjudicator agreeing with the majority it settled)."""
    column = frame["rater_type"]
    wanted = list(RATER_TYPES) if rater_type is None else [rater_type]
    if isinstance(column.dtype, CategoricalDtype):
        type_names = column.cat.categories.astype(str).str.strip()
        hit = np.append(np.asarray(type_names.isin(wanted)), False)  # code -1 → False
        keep = hit[column.cat.codes.to_numpy()]
    else:
        keep = column.isin(wanted).to_numpy()
    if not keep.any():
        which = "human or judge" if rater_type is None else repr(rater_type)
        raise InputError(f"labels table has no ratings with rater_type {which}")
    return keep


def _sorted_raters(
    frame: pd.DataFrame, rater: np.ndarray, raters: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Rater codes and names with the names in sorted order (categoricals come unsorted)."""
    if not isinstance(frame["rater"].dtype, CategoricalDtype):
        return rater, raters
    order = np.argsort(raters, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    return rank[rater], raters[order]


def _check_one_rating_each(
    labels: pd.DataFrame, positions: np.ndarray, codes: tuple[np.ndarray, np.ndarray], names: tuple
) -> None:
    """InputError naming the second rating when a rater rated an item twice.

    The place is the file's line when ``labels`` came from ``read_table`` (see
    :func:`wordplay_audit.corpora.contract.place`), else the 1-based data row.
    """
    (item, rater), (item_ids, raters) = codes, names
    pair = item * len(raters) + rater
    seen_pairs = np.bincount(pair, minlength=len(item_ids) * len(raters))
    if seen_pairs.max() > 1:
        dup = int(pd.Series(pair).duplicated().to_numpy().argmax())  # first repeated rating
        raise InputError(
            f"{place(labels, int(positions[dup]))}rater {raters[rater[dup]]!r} rated item "
            f"{item_ids[item[dup]]!r} twice (keep one rating per rater and item; filter by "
            "'question' first if an item was asked several questions)"
        )


def rating_table(
    labels: pd.DataFrame,
    *,
    categories: Sequence[str] | None = None,
    rater_type: RaterType | None = "human",
) -> RatingTable:
    """Validate a long labels table and turn it into a :class:`RatingTable`.

    Parameters
    ----------
    labels
        Contract labels table (``item_id``, ``rater``, ``rater_type``, ``label``). Columns may
        be ``category`` dtype (fastest for millions of rows) or strings.
    categories
        The declared label set, in order (the order matters for ordinal/interval α). A label
        outside it raises :class:`InputError` naming the row. Default: the labels seen, sorted
        numerically when all are numbers, else as text.
    rater_type
        Keep only ratings of this type (``"human"`` default, ``"judge"``, or None for both).
        Rows of ``rater_type`` ``adjudicator`` are never ratings.

    Raises
    ------
    InputError
        empty table, bad column, label outside ``categories``, no rating of ``rater_type``, or
        a rater rating the same item twice (the message names the file's line for a table read
        by ``corpora.contract.read_table``, else the 1-based data row; filter by ``question``
        first when one item was asked several questions).
    ParameterError
        ``rater_type`` not human/judge/None, ``categories`` empty or with a repeated name.
    """
    rater_type = check_rater_type(rater_type)
    if not isinstance(labels, pd.DataFrame):
        raise InputError(f"labels must be a pandas DataFrame, got {type(labels).__name__}")
    if len(labels) == 0:
        raise InputError("labels table is empty: no ratings to analyse")
    declared = _declared(categories)
    # one validator (corpora.contract); categorical columns are checked on their categories
    frame = validate_labels(labels, allowed=declared)[list(LABEL_COLUMNS)]
    positions = np.arange(len(frame))
    keep = _keep_rater_type(frame, rater_type)
    if not keep.all():
        frame, positions = frame[keep], positions[keep]
    item, item_ids = _codes(frame["item_id"], sort=False)
    rater, raters = _sorted_raters(frame, *_codes(frame["rater"], sort=True))
    label, seen = _codes(frame["label"], sort=False)
    names = declared if declared is not None else order_categories(seen)
    label = pd.Index(names).get_indexer(seen)[label]
    _check_one_rating_each(labels, positions, (item, rater), (item_ids, raters))
    n_items, n_cat = len(item_ids), len(names)
    counts = np.bincount(item * n_cat + label, minlength=n_items * n_cat).reshape(n_items, n_cat)
    return RatingTable(
        item_ids=item_ids,
        raters=np.asarray(raters, dtype=object),
        categories=np.asarray(names, dtype=object),
        item=item,
        rater=rater,
        label=label,
        counts=counts.astype(np.int64, copy=False),
    )


def as_rating_table(
    data: pd.DataFrame | RatingTable,
    *,
    categories: Sequence[str] | None = None,
    rater_type: RaterType | None = "human",
) -> RatingTable:
    """``data`` itself when it is a :class:`RatingTable`, else :func:`rating_table` of it."""
    if isinstance(data, RatingTable):
        return data
    return rating_table(data, categories=categories, rater_type=rater_type)


def looks_like_labels(data: object) -> bool:
    """A DataFrame with any contract column is a labels table (so a missing column is named)."""
    return isinstance(data, pd.DataFrame) and any(c in data.columns for c in LABEL_COLUMNS)


def as_counts(data: object) -> np.ndarray:
    """The ``(n, K)`` int64 count table of ``data``.

    ``data`` may be a :class:`RatingTable`, a labels DataFrame (all ratings, any rater type —
    call :func:`rating_table` to choose), a DataFrame of counts (items × categories) or a 2-D
    array of non-negative integers (Fleiss' table, Krippendorff's ``value_counts``).
    """
    if isinstance(data, RatingTable):
        return data.counts
    if looks_like_labels(data):
        return rating_table(data, rater_type=None).counts
    array = np.asarray(data)
    if array.ndim != 2:
        raise InputError(f"count table must be 2-D (items × categories), got shape {array.shape}")
    if array.size == 0:
        raise InputError("count table is empty: no items or no categories")
    if array.dtype.kind == "f":
        if not np.all(np.isfinite(array)) or not np.all(array == np.round(array)):
            raise InputError("count table must hold whole numbers (counts of raters)")
        array = array.astype(np.int64)
    elif array.dtype.kind not in "iub":
        raise InputError(f"count table must be numeric, got dtype {array.dtype}")
    if (array < 0).any():
        row = int(np.argmax((array < 0).any(axis=1)))
        raise InputError(f"count table row {row + 1}: negative count")
    return array.astype(np.int64, copy=False)


def count_patterns(counts: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Distinct rows of a count table.

    Returns ``patterns`` ``(P, K)``, ``inverse`` ``(n,)`` with
    ``patterns[inverse] == counts`` and ``freq`` ``(P,)`` = items per pattern.

    Rows are encoded as one integer in base ``max+1`` when that fits (then distinct values are
    found with a bincount or a 1-D unique); otherwise :func:`numpy.unique` over rows is used.
    """
    n, k = counts.shape
    base = int(counts.max()) + 1 if counts.size else 1
    if k * np.log2(max(base, 2)) < 62:
        powers = base ** np.arange(k, dtype=np.int64)
        keys = counts @ powers
        top = int(keys.max()) + 1 if n else 1
        if top <= max(4 * n, 1 << 20):
            present = np.bincount(keys, minlength=top)
            distinct = np.flatnonzero(present)
            lookup = np.empty(top, dtype=np.int64)
            lookup[distinct] = np.arange(len(distinct))
            inverse = lookup[keys]
            freq = present[distinct]
            first = np.empty(len(distinct), dtype=np.int64)
            first[inverse] = np.arange(n)  # any representative row: all rows of a pattern are equal
        else:
            distinct, first, inverse, freq = np.unique(
                keys, return_index=True, return_inverse=True, return_counts=True
            )
        return counts[first], inverse.reshape(-1), freq.astype(np.int64)
    patterns, inverse, freq = np.unique(counts, axis=0, return_inverse=True, return_counts=True)
    return patterns, inverse.reshape(-1), freq.astype(np.int64)


def resolve_counts(
    data: object,
    *,
    categories: Sequence[str] | None = None,
    rater_type: RaterType | None = "human",
) -> tuple[np.ndarray, np.ndarray]:
    """``(counts, category names)`` of a labels DataFrame, a :class:`RatingTable` or a
    prepared count table (array or DataFrame of counts, whose columns name the categories).

    For a labels DataFrame, ``categories`` and ``rater_type`` are passed to
    :func:`rating_table`; for a count table ``categories`` only names the columns.
    """
    if isinstance(data, RatingTable):
        return data.counts, data.categories
    if looks_like_labels(data):
        table = rating_table(data, categories=categories, rater_type=rater_type)
        return table.counts, table.categories
    counts = as_counts(data)
    if categories is not None:
        names = np.asarray([str(c) for c in categories], dtype=object)
        if len(names) != counts.shape[1]:
            raise ParameterError(
                f"categories: {len(names)} names but the count table has {counts.shape[1]} columns"
            )
    elif isinstance(data, pd.DataFrame):
        names = np.asarray([str(c) for c in data.columns], dtype=object)
    else:
        names = np.asarray([str(k) for k in range(counts.shape[1])], dtype=object)
    return counts, names
