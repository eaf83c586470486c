"""Rater quality: accuracy on honeypots, agreement with the others, κ against the others' majority."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from wordplay_audit.corpora.contract import place
from wordplay_audit.errors import InputError, ParameterError, at_line

from ._common import RaterType
from .kappa import cohen_kappa
from .pairwise import RatingPairs, rating_pairs
from .tables import RatingTable, as_rating_table

__all__ = ["gold_codes", "rater_quality", "gold_labels", "consensus_confusion"]


def gold_labels(gold: pd.Series | pd.DataFrame | Mapping[str, str]) -> pd.Series:
    """Gold (honeypot) labels as a str Series indexed by ``item_id``.

    Accepts a Series indexed by item_id, a mapping, or a DataFrame with ``item_id`` and
    ``label`` (or ``gold``) columns. A missing or empty label is an :class:`InputError` naming
    its place (the file's line for a table read by ``read_table``).
    """
    if isinstance(gold, pd.DataFrame):
        column = "label" if "label" in gold.columns else "gold" if "gold" in gold.columns else None
        if "item_id" not in gold.columns or column is None:
            raise InputError(
                f"{at_line(gold.attrs.get('source'))}gold table needs columns 'item_id' and "
                f"'label' (has {', '.join(map(str, gold.columns))})"
            )
        series = pd.Series(gold[column].to_numpy(), index=gold["item_id"].astype(str).str.strip())
        _check_filled(gold, series, column)
    elif isinstance(gold, pd.Series):
        series = gold.copy()
        series.index = series.index.astype(str).str.strip()
        _check_filled(None, series, "label")
    elif isinstance(gold, Mapping):
        series = pd.Series(dict(gold), dtype=object)
        series.index = series.index.astype(str).str.strip()
        _check_filled(None, series, "label")
    else:
        raise ParameterError(f"gold: expected a Series, mapping or DataFrame, got {type(gold).__name__}")
    if series.index.duplicated().any():
        pos = int(np.flatnonzero(series.index.duplicated())[0])
        where = place(gold, pos, what="gold") if isinstance(gold, pd.DataFrame) else ""
        raise InputError(f"{where}gold labels name item {series.index[pos]!r} twice")
    return series.astype(str).str.strip()


def gold_codes(table: RatingTable, gold: pd.Series | pd.DataFrame | Mapping[str, str]) -> np.ndarray:
    """Each item's known class code (``(n,)``, -1 where not gold); InputError for a gold label
    outside the categories. Gold items nobody rated are ignored."""
    series = gold_labels(gold)
    codes = pd.Index(np.asarray(table.categories).astype(str)).get_indexer(series.to_numpy())
    if (codes < 0).any():
        bad = int(np.flatnonzero(codes < 0)[0])
        raise InputError(
            f"gold: item {series.index[bad]!r} has label {series.iloc[bad]!r}, not one of the "
            f"categories {list(table.categories)}"
        )
    known = np.full(table.n_items, -1, dtype=np.int64)
    where = pd.Index(pd.Series(table.item_ids).astype(str)).get_indexer(series.index)
    known[where[where >= 0]] = codes[where >= 0]
    return known


def _check_filled(frame: pd.DataFrame | None, series: pd.Series, column: str) -> None:
    """InputError at the first gold label that is missing or empty (its file line for a table
    read by ``read_table``)."""
    empty = series.isna().to_numpy() | (series.astype(str).str.strip() == "").to_numpy()
    if empty.any():
        pos = int(np.flatnonzero(empty)[0])
        where = place(frame, pos, what="gold") if frame is not None else ""
        raise InputError(f"{where}gold label of item {series.index[pos]!r} is empty (column {column!r})")


def _agreement_with_others(n_raters: int, pairs: RatingPairs) -> np.ndarray:
    """Per rater: the share of rating pairs (this rater, another) with the same label."""
    ra, rb, la, lb = pairs
    same = la == lb
    total = np.bincount(ra, minlength=n_raters) + np.bincount(rb, minlength=n_raters)
    agree = np.bincount(ra, weights=same, minlength=n_raters) + np.bincount(
        rb, weights=same, minlength=n_raters
    )
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(total > 0, agree / total, np.nan)


def _versus_rest(table: RatingTable) -> np.ndarray:
    """``(R, K, K)`` counts: rater's label × the unique plurality label of the *other* raters of
    the item (items where the others have no unique plurality left out)."""
    r, k = table.n_raters, table.n_categories
    small = np.int8 if table.n_raters < 127 else np.int32  # counts per item ≤ raters (memory)
    others = table.counts.astype(small)[table.item]
    others[np.arange(len(table.label)), table.label] -= 1
    top = others.max(axis=1)
    unique_top = (others == top[:, None]).sum(axis=1) == 1
    usable = (top > 0) & unique_top
    rest = others.argmax(axis=1)
    code = table.rater[usable].astype(np.int64)
    code *= k
    code += table.label[usable]
    code *= k
    code += rest[usable]
    return np.bincount(code, minlength=r * k * k).reshape(r, k, k)


def _honeypots(table: RatingTable, gold: object) -> tuple[np.ndarray, np.ndarray]:
    """Per rater: ``(accuracy, n)`` on the items that have a gold label."""
    r = table.n_raters
    truth = gold_labels(gold)
    gold_code = pd.Index(table.categories).get_indexer(truth.to_numpy())
    item_pos = pd.Index(table.item_ids).get_indexer(truth.index)
    per_item = np.full(table.n_items, -2, dtype=np.int64)  # -2: no gold label
    found = item_pos >= 0
    outside = found & (gold_code < 0)
    if outside.any():  # a gold label that is no category of a rated item: refused at its place
        pos = int(np.flatnonzero(outside)[0])
        where = place(gold, pos, what="gold") if isinstance(gold, pd.DataFrame) else ""
        known = ", ".join(map(str, table.categories))
        raise InputError(
            f"{where}gold label {truth.iloc[pos]!r} of item {truth.index[pos]!r} is not a category "
            f"(expected one of {known})"
        )
    per_item[item_pos[found]] = gold_code[found]
    g = per_item[table.item]
    on_gold = g != -2
    hits = np.bincount(table.rater[on_gold], weights=table.label[on_gold] == g[on_gold], minlength=r)
    n_gold = np.bincount(table.rater[on_gold], minlength=r)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(n_gold > 0, hits / n_gold, np.nan), n_gold


def rater_quality(
    data: pd.DataFrame | RatingTable,
    *,
    gold: pd.Series | pd.DataFrame | Mapping[str, str] | None = None,
    categories: Sequence[str] | None = None,
    rater_type: RaterType | None = "human",
    pairs: RatingPairs | None = None,
) -> pd.DataFrame:
    """One row per rater: how well each rater agrees with the others and with gold labels.

    Columns
    -------
    ``n_ratings``
        Ratings given.
    ``agreement_with_others``
        Over every pair (this rater, another rater) rating the same item: the share with the
        same label.
    ``kappa_vs_rest``, ``n_vs_rest``
        Cohen's κ (:func:`.kappa.cohen_kappa`) between the rater's labels and the plurality
        label of the *other* raters of each item (leave-one-rater-out), on the items where the
        others have a unique plurality; ``n_vs_rest`` counts them. nan when no such item or κ
        is undefined.
    ``honeypot_accuracy``, ``n_honeypots``
        With ``gold``: share of the rater's ratings on gold items that match the gold label
        (nan when the rater rated no gold item).

    ``pairs``: the :func:`.pairwise.rating_pairs` of the table when already computed.

    Comparing each rater with the consensus of the *others* keeps a rater's own labels out of
    the reference they are judged against.
    """
    table = as_rating_table(data, categories=categories, rater_type=rater_type)
    pairs = pairs if pairs is not None else rating_pairs(table)
    cells = _versus_rest(table)
    frame = pd.DataFrame(
        {
            "n_ratings": np.bincount(table.rater, minlength=table.n_raters),
            "agreement_with_others": _agreement_with_others(table.n_raters, pairs),
            "kappa_vs_rest": cohen_kappa(cells),
            "n_vs_rest": cells.sum(axis=(1, 2)),
        },
        index=pd.Index(table.raters, name="rater"),
    )
    if gold is not None:
        frame["honeypot_accuracy"], frame["n_honeypots"] = _honeypots(table, gold)
    return frame


def consensus_confusion(table: RatingTable, consensus: pd.DataFrame) -> np.ndarray:
    """``(R, K, K)`` counts: the consensus label (rows) × each rater's label (columns), on the
    items whose consensus label is set (tied items under ``tie="adjudicate"`` left out).

    ``consensus``: a frame with ``item_id`` and ``label`` (e.g. :func:`.aggregation.majority_vote`).
    """
    k = table.n_categories
    by_item = consensus.set_index("item_id")["label"]
    cons_label = by_item.reindex(pd.Index(table.item_ids)).to_numpy(dtype=object)
    cons_code = pd.Index(table.categories).get_indexer(pd.Series(cons_label).fillna("\0").to_numpy())
    code = cons_code[table.item]
    ok = code >= 0
    cell = table.rater[ok].astype(np.int64)
    cell *= k
    cell += code[ok]
    cell *= k
    cell += table.label[ok]
    return np.bincount(cell, minlength=table.n_raters * k * k).reshape(table.n_raters, k, k)
