"""Rater quality: accuracy on honeypots, agreement with the others, κ against the others' majority."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from wordplay_audit.errors import InputError

from .kappa import rating_pairs
from .tables import RatingTable, rating_table

__all__ = ["rater_quality", "gold_labels"]


def gold_labels(gold: pd.Series | pd.DataFrame | Mapping[str, str]) -> pd.Series:
    """Gold (honeypot) labels as a str Series indexed by ``item_id``.

    Accepts a Series indexed by item_id, a mapping, or a DataFrame with ``item_id`` and
    ``label`` (or ``gold``) columns.
    """
    if isinstance(gold, pd.DataFrame):
        column = "label" if "label" in gold.columns else "gold" if "gold" in gold.columns else None
        if "item_id" not in gold.columns or column is None:
            raise InputError(
                f"gold table needs columns 'item_id' and 'label' (has {', '.join(map(str, gold.columns))})"
            )
        series = pd.Series(gold[column].to_numpy(), index=gold["item_id"].astype(str).str.strip())
    elif isinstance(gold, pd.Series):
        series = gold.copy()
        series.index = series.index.astype(str).str.strip()
    elif isinstance(gold, Mapping):
        series = pd.Series(dict(gold))
        series.index = series.index.astype(str).str.strip()
    else:
        raise InputError(f"gold must be a Series, mapping or DataFrame, got {type(gold).__name__}")
    if series.index.duplicated().any():
        dup = series.index[series.index.duplicated()][0]
        raise InputError(f"gold labels name item {dup!r} twice")
    return series.astype(str).str.strip()


def _kappa(confusion: np.ndarray) -> np.ndarray:
    """Cohen's κ of each ``(..., K, K)`` confusion table (nan when undefined or empty)."""
    n = confusion.sum(axis=(-2, -1)).astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        p_o = np.trace(confusion, axis1=-2, axis2=-1) / n
        p_e = (confusion.sum(axis=-1) * confusion.sum(axis=-2)).sum(axis=-1) / n**2
        return np.where((n > 0) & (p_e < 1.0), (p_o - p_e) / (1.0 - p_e), np.nan)


def rater_quality(
    data: pd.DataFrame | RatingTable,
    *,
    gold: pd.Series | pd.DataFrame | Mapping[str, str] | None = None,
    categories: Sequence[str] | None = None,
    rater_type: str | None = "human",
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
        Cohen's κ between the rater's labels and the plurality label of the *other* raters of
        each item (leave-one-rater-out), on the items where the others have a unique plurality;
        ``n_vs_rest`` counts them. nan when no such item or κ is undefined.
    ``honeypot_accuracy``, ``n_honeypots``
        With ``gold``: share of the rater's ratings on gold items that match the gold label
        (nan when the rater rated no gold item).

    Comparing each rater with the consensus of the *others* keeps a rater's own labels out of
    the reference they are judged against. κ: Cohen, J. (1960). A coefficient of agreement for
    nominal scales. Educ. Psychol. Meas. 20, 37–46.
    """
    table = (
        data
        if isinstance(data, RatingTable)
        else rating_table(data, categories=categories, rater_type=rater_type)
    )
    r, k = table.n_raters, table.n_categories
    n_ratings = np.bincount(table.rater, minlength=r)
    ra, rb, la, lb = rating_pairs(table)
    same = la == lb
    pairs = np.bincount(ra, minlength=r) + np.bincount(rb, minlength=r)
    agree = np.bincount(ra, weights=same, minlength=r) + np.bincount(rb, weights=same, minlength=r)
    with np.errstate(invalid="ignore", divide="ignore"):
        agreement = np.where(pairs > 0, agree / pairs, np.nan)
    # plurality of the other raters of each rating's item
    others = table.counts.astype(np.int32)[table.item]
    others[np.arange(len(table.label)), table.label] -= 1
    top = others.max(axis=1)
    unique_top = (others == top[:, None]).sum(axis=1) == 1
    usable = (top > 0) & unique_top
    rest = others.argmax(axis=1)
    cells = np.bincount(
        (table.rater[usable] * k + table.label[usable]) * k + rest[usable], minlength=r * k * k
    ).reshape(r, k, k)
    frame = pd.DataFrame(
        {
            "n_ratings": n_ratings,
            "agreement_with_others": agreement,
            "kappa_vs_rest": _kappa(cells),
            "n_vs_rest": cells.sum(axis=(1, 2)),
        },
        index=pd.Index(table.raters, name="rater"),
    )
    if gold is not None:
        truth = gold_labels(gold)
        gold_code = pd.Index(table.categories).get_indexer(truth.to_numpy())
        item_pos = pd.Index(table.item_ids).get_indexer(truth.index)
        per_item = np.full(table.n_items, -2, dtype=np.int64)  # -2: no gold label
        found = item_pos >= 0
        per_item[item_pos[found]] = gold_code[found]  # -1: gold label outside the categories
        g = per_item[table.item]
        on_gold = g != -2
        hits = np.bincount(
            table.rater[on_gold], weights=table.label[on_gold] == g[on_gold], minlength=r
        )
        n_gold = np.bincount(table.rater[on_gold], minlength=r)
        with np.errstate(invalid="ignore", divide="ignore"):
            frame["honeypot_accuracy"] = np.where(n_gold > 0, hits / n_gold, np.nan)
        frame["n_honeypots"] = n_gold
    return frame
