"""The final labels table: one row per item and question, the consensus of the raters after
adjudication (:func:`wordplay_audit.corpora.consensus.consensus`, pull's ``final.csv``), and
its checks. ``docs/DATA.md`` is the prose version; :mod:`wordplay_audit.corpora.contract` holds
the items and per-rater labels tables and tells the two labels tables apart
(:func:`~wordplay_audit.corpora.contract.is_final_labels`).

Final labels
    ``item_id``    str
    ``question``   str, where the labels have one
    ``label``      str, empty where unresolved (a tie nobody adjudicated)
    ``n_raters``   int, the people whose votes counted
    ``n_votes``    int, their votes for ``label`` (for a tie: the votes each tied label got)
    ``settled_by`` one of :class:`SettledBy`
"""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path

import numpy as np
import pandas as pd

from wordplay_audit.corpora.contract import (
    check_nonempty_str,
    check_one_line,
    check_values,
    first_bad_row,
    place,
    require_columns,
    where_prefix,
)
from wordplay_audit.corpora.tables import read_table
from wordplay_audit.errors import InputError

FINAL_LABEL_COLUMNS = ("item_id", "label", "n_raters", "n_votes", "settled_by")
"""The final labels table's columns (with ``question`` after ``item_id`` where labels have one)."""


class SettledBy(StrEnum):
    """How an item's final label was settled (the ``settled_by`` column of final labels)."""

    SINGLE = "single"  # one person rated it
    UNANIMOUS = "unanimous"  # two or more, all the same label
    MAJORITY = "majority"  # one label got more votes than any other
    ADJUDICATED = "adjudicated"  # an adjudicator's label, whatever the vote
    TIE = "tie"  # two or more labels share the most votes: unresolved, label empty
    TIE_FIRST = "tie_first"  # a tie broken by category order (tie policy "first")
    TIE_RANDOM = "tie_random"  # a tie broken by a seeded draw (tie policy "random")


#: How a final label was settled (the values of :class:`SettledBy`).
SETTLED_BY: tuple[str, ...] = tuple(s.value for s in SettledBy)


def _final_counts(frame: pd.DataFrame, column: str, source: str | None) -> pd.api.extensions.ExtensionArray:
    """A count column of final labels as nullable integers (an empty cell: unknown); InputError
    at the first cell that is not a whole number ≥ 0."""
    raw = frame[column]
    text = raw.astype(object).where(raw.notna(), "").astype(str).str.strip()
    empty = (text == "").to_numpy()
    values = pd.to_numeric(text.where(~empty, "0"), errors="coerce").to_numpy(dtype=float)
    bad = ~(np.isfinite(values) & (values >= 0) & (values == np.round(values)))
    if bad.any():
        pos = first_bad_row(bad)
        raise InputError(
            f"{place(frame, pos, source, what='final labels')}{column} {raw.iloc[pos]!r}: expected a "
            "whole number ≥ 0"
        )
    out = pd.array(values.astype(np.int64), dtype="Int64")
    out[empty] = pd.NA
    return out


def validate_final_labels(
    final: pd.DataFrame, *, items: pd.DataFrame | None = None, source: str | None = None
) -> pd.DataFrame:
    """Check a final labels table (see the module docstring); return a copy in its column order.

    ``item_id`` non-empty; ``question`` (optional) text, empty where not given; ``label`` empty
    (missing) only where unresolved; one row per (item, question); ``n_raters`` and ``n_votes``
    whole numbers with ``n_votes`` ≤ ``n_raters``; ``settled_by`` one of :data:`SETTLED_BY`,
    ``tie`` exactly where the label is empty. A hand-made table may leave out the last three
    columns: ``settled_by`` is then ``tie`` where the label is empty and missing (unknown)
    elsewhere, the counts missing. Messages name the place (:func:`place`).
    """
    source = source or final.attrs.get("source")
    require_columns(final, ("item_id", "label"), "final labels", source)
    if "rater" in final.columns:
        raise InputError(
            f"{where_prefix(source)}has column 'rater': a per-rater labels table (as pull's labels.csv); "
            "expected final labels (item_id, label, n_raters, n_votes, settled_by), as pull's final.csv"
        )
    check_nonempty_str(final, "item_id", "final labels", source)
    out = pd.DataFrame(index=final.index)
    out.attrs.update(final.attrs)  # the file's lines (place)
    out["item_id"] = final["item_id"].astype(str).str.strip()
    has_question = "question" in final.columns
    if has_question:
        out["question"] = final["question"].fillna("").astype(str).str.strip()
    label = final["label"].astype(object).where(final["label"].notna(), "").astype(str).str.strip()
    for column, values in (("item_id", out["item_id"]), ("label", label)):
        check_one_line(final, column, values.str.contains("[\r\n]").to_numpy(), source)
    unresolved = (label == "").to_numpy()
    out["label"] = label.where(~unresolved, None)
    keys = ["item_id", *(["question"] if has_question else [])]
    again = out.duplicated(keys).to_numpy()
    if again.any():
        pos = first_bad_row(again)
        what = f"item {out['item_id'].iloc[pos]!r}" + (
            f", question {out['question'].iloc[pos]!r}" if has_question else ""
        )
        raise InputError(
            f"{place(final, pos, source, what='final labels')}{what} has a final label already; "
            "expected one row per item" + (" and question" if has_question else "")
        )
    for column in ("n_raters", "n_votes"):
        out[column] = (
            _final_counts(final, column, source)
            if column in final.columns
            else pd.array([pd.NA] * len(final), dtype="Int64")
        )
    over = (out["n_votes"] > out["n_raters"]).fillna(False).to_numpy(bool)
    if over.any():
        pos = first_bad_row(over)
        raise InputError(
            f"{place(final, pos, source, what='final labels')}n_votes {int(out['n_votes'].iloc[pos])} "
            f"exceeds n_raters {int(out['n_raters'].iloc[pos])}"
        )
    out["settled_by"] = _settled_by(final, unresolved, source)
    if items is not None:
        check_values(out, "item_id", set(items["item_id"].astype(str)), "names no item", source)
    out.attrs["validated"] = "final_labels"
    if source:
        out.attrs["source"] = str(source)
    return out


def _settled_by(final: pd.DataFrame, unresolved: np.ndarray, source: str | None) -> pd.Series:
    """The ``settled_by`` column checked against the labels (``tie`` ⇔ empty label), or filled
    in for a table without it (``tie`` where the label is empty, else missing)."""
    if "settled_by" not in final.columns:
        return pd.Series(np.where(unresolved, SettledBy.TIE.value, None), index=final.index, dtype=object)
    settled = final["settled_by"].fillna("").astype(str).str.strip()
    check_values(final.assign(settled_by=settled), "settled_by", set(SETTLED_BY),
                  "is not one of " + ", ".join(SETTLED_BY), source)  # fmt: skip
    is_tie = (settled == SettledBy.TIE.value).to_numpy()
    clash = is_tie != unresolved
    if clash.any():
        pos = first_bad_row(clash)
        text = (
            "settled_by 'tie' needs an empty label (a tie nobody adjudicated is unresolved)"
            if is_tie[pos]
            else f"label is empty but settled_by is {settled.iloc[pos]!r} (an empty label is a 'tie')"
        )
        raise InputError(f"{place(final, pos, source, what='final labels')}{text}")
    return settled.astype(object)


def read_final_labels(path: str | Path) -> pd.DataFrame:
    """Read and validate a final labels CSV (pull's ``final.csv``); messages name the file's line."""
    return validate_final_labels(read_table(path), source=str(path))
