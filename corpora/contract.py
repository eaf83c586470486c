"""The one data contract: an *items* table and a long-format *labels* table.

Every reader in :mod:`corpora` produces these two tables, every exporter in :mod:`annotate`
and every statistic in :mod:`analysis` consumes them.  ``docs/DATA.md`` is the prose version;
this module is the executable one.

Items (one row per thing a rater or judge decides about)
    ``item_id``  str, unique, stable across runs (see :func:`game_key` and docs/DATA.md)
    ``game``     str, one of :data:`GAMES`
    ``kind``     str, one of :data:`KINDS`
    texts shown  ``context`` (what the item is about, e.g. the four words or the rare word),
                 ``reference`` (the gold text), ``candidate`` (the generated text); any may be
                 empty for a kind that does not show it
    strata       any further columns (``player_model``, ``difficulty``, ``knowledge_type`` …)

Labels (one row per rating)
    ``item_id``    str, must name an item when the items table is given
    ``rater``      str, who rated (a person's pseudonym or a judge's name)
    ``rater_type`` ``human``, ``judge`` or ``adjudicator`` (a person who settled a disputed item:
                   not a rater in agreement statistics; the consensus takes the label)
    ``label``      str, the decision; equivalence kinds use ``true``/``false``
    optional ``comment``, ``question`` (which question was asked of the item), ``score`` (a
                   judge's number for the item, higher = more likely ``true``: P(yes), a
                   similarity; empty where unknown, never 0 for unknown; read it with
                   :func:`label_scores`)

Final labels (one row per item and question: the consensus after adjudication,
:func:`wordplay_audit.corpora.consensus.consensus`)
    ``item_id``    str
    ``question``   str, where the labels have one
    ``label``      str, empty where unresolved (a tie nobody adjudicated)
    ``n_raters``   int, the people whose votes counted
    ``n_votes``    int, their votes for ``label`` (for a tie: the votes each tied label got)
    ``settled_by`` one of :class:`SettledBy`
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from enum import StrEnum
from pathlib import Path

import numpy as np
import pandas as pd

from wordplay_audit.corpora.tables import read_table  # the one table reader, re-exported here
from wordplay_audit.corpora.values import parse_number
from wordplay_audit.errors import InputError, at_line

GAMES = ("connections", "balderdash", "wof", "demo")
KINDS = (
    "category_name",  # does a model's category name mean the same as the gold name?
    "knowledge_type",  # which knowledge type does a gold category need?
    "definition",  # does a generated definition mean the same as the reference?
    "guess",  # is a guess the same as the answer?
)
RATER_TYPES = ("human", "judge", "adjudicator")
ITEM_COLUMNS = ("item_id", "game", "kind")
TEXT_COLUMNS = ("context", "reference", "candidate")
LABEL_COLUMNS = ("item_id", "rater", "rater_type", "label")
OPTIONAL_LABEL_COLUMNS = ("comment", "question", "score")
FINAL_LABEL_COLUMNS = ("item_id", "label", "n_raters", "n_votes", "settled_by")
"""The final labels table's columns (with ``question`` after ``item_id`` where labels have one)."""
_RATER_TYPE_TEXT = "is not 'human', 'judge' or 'adjudicator'"


class SettledBy(StrEnum):
    """How an item's final label was settled (the ``settled_by`` column of final labels)."""

    SINGLE = "single"  # one person rated it
    UNANIMOUS = "unanimous"  # two or more, all the same label
    MAJORITY = "majority"  # one label got more votes than any other
    ADJUDICATED = "adjudicated"  # an adjudicator's label, whatever the vote
    TIE = "tie"  # two or more labels share the most votes: unresolved, label empty
    TIE_FIRST = "tie_first"  # a tie broken by category order (tie policy "first")
    TIE_RANDOM = "tie_random"  # a tie broken by a seeded draw (tie policy "random")


SETTLED_BY: tuple[str, ...] = tuple(s.value for s in SettledBy)

_TRUE = {"true", "yes", "y", "1", "t"}
_FALSE = {"false", "no", "n", "0", "f"}


def game_key(words: Iterable[str]) -> str:
    """Short stable key of a game: first 10 hex digits of SHA-1 over its sorted, stripped,
    upper-cased words joined by newlines.

    >>> game_key(["b", " A"]) == game_key(["A", "B"])
    True
    """
    canon = "\n".join(sorted(w.strip().upper() for w in words))
    return hashlib.sha1(canon.encode("utf-8")).hexdigest()[:10]


def normalize_bool_label(value: object) -> str:
    """Map yes/no, true/false, 1/0 (any case) to ``"true"``/``"false"``; raise ValueError else.

    >>> normalize_bool_label(" Yes "), normalize_bool_label(0)
    ('true', 'false')
    """
    text = str(value).strip().lower()
    if text in _TRUE:
        return "true"
    if text in _FALSE:
        return "false"
    raise ValueError(f"expected a yes/no or true/false label, got {value!r}")


def bool_labels(frame: pd.DataFrame, column: str = "label", *, source: str | None = None) -> pd.Series:
    """The one boolean-label normaliser over a column: ``"true"``/``"false"`` strings.

    Vectorised over the distinct values (a million rows with two spellings cost two look-ups); a
    column that holds only ``"true"``/``"false"`` already (normalised earlier in the command) is
    returned after one pass over its distinct values. Raises :class:`InputError` naming the first bad row (see :func:`place`).
    """
    raw = frame[column]
    if raw.dtype == object or isinstance(raw.dtype, pd.StringDtype):
        distinct = raw.unique()
        if len(distinct) <= 2 and all(isinstance(v, str) and v in ("true", "false") for v in distinct):
            return raw.astype(str)  # already normalised (a table validated earlier in the command)
    values = raw.astype(str).str.strip().str.lower()
    mapping = {v: ("true" if v in _TRUE else "false" if v in _FALSE else None) for v in values.unique()}
    mapped = values.map(mapping)
    bad = mapped.isna()
    if bad.any():
        pos = _first_bad_row(bad)
        raise InputError(
            f"{place(frame, pos, source)}{column} {frame[column].iloc[pos]!r} is not true/false "
            "(or yes/no, 1/0)"
        )
    return mapped.astype(str)


def place(frame: pd.DataFrame, pos: int, source: str | None = None, *, what: str = "labels") -> str:
    """The place prefix of row ``pos`` (0-based) of ``frame`` (see :mod:`wordplay_audit.errors`).

    A frame read by :func:`read_table` carries its file (``attrs["source"]``) and has the file's
    line numbers as its index, so the place is ``<file> line <N>: `` even after rows were
    filtered out; any other frame is named by its 1-based row: ``labels row <N>: ``.
    """
    source = source or frame.attrs.get("source")
    if frame.attrs.get("line_index") and len(frame.index) > pos:
        return at_line(source, int(frame.index[pos]))
    prefix = f"{source}: " if source else ""
    return f"{prefix}{what} row {pos + 1}: "


def _where(source: str | None) -> str:
    return f"{source}: " if source else ""


def require_columns(
    frame: pd.DataFrame, required: Iterable[str], what: str, source: str | None = None
) -> None:
    """Raise InputError unless ``frame`` is a DataFrame with every ``required`` column."""
    if not isinstance(frame, pd.DataFrame):
        raise InputError(f"{_where(source)}{what} must be a pandas DataFrame, got {type(frame).__name__}")
    source = source or frame.attrs.get("source")
    missing = [c for c in required if c not in frame.columns]
    if missing:
        raise InputError(
            f"{_where(source)}{what} table lacks column {missing[0]!r} "
            f"(has {', '.join(map(str, frame.columns)) or 'no columns'})"
        )


def _first_bad_row(mask: pd.Series | np.ndarray) -> int:
    """Position (0-based) of the first True in a boolean mask."""
    return int(np.asarray(mask).nonzero()[0][0])


def _check_nonempty_str(frame: pd.DataFrame, column: str, what: str, source: str | None):
    values = frame[column]
    bad = values.isna() | (values.astype(str).str.strip() == "")
    if bad.any():
        pos = _first_bad_row(bad)
        raise InputError(f"{place(frame, pos, source, what=what)}column {column!r} is empty")


def validate_items(items: pd.DataFrame, *, source: str | None = None) -> pd.DataFrame:
    """Check an items table; return it with ``item_id``, ``game``, ``kind`` as str.

    Messages name the place by :func:`place` (the file's line for a table from :func:`read_table`).
    """
    require_columns(items, ITEM_COLUMNS, "items", source)
    for column in ITEM_COLUMNS:
        _check_nonempty_str(items, column, "items", source)
    out = items.copy()
    for column in ITEM_COLUMNS:
        out[column] = out[column].astype(str)
    dup = out["item_id"].duplicated()
    if dup.any():
        pos = _first_bad_row(dup)
        raise InputError(
            f"{place(out, pos, source, what='items')}item_id {out['item_id'].iloc[pos]!r} "
            "appears twice (item_id must be unique)"
        )
    bad_kind = ~out["kind"].isin(KINDS)
    if bad_kind.any():
        pos = _first_bad_row(bad_kind)
        raise InputError(
            f"{place(out, pos, source, what='items')}kind {out['kind'].iloc[pos]!r} "
            f"is not one of {', '.join(KINDS)}"
        )
    for column in TEXT_COLUMNS:
        if column not in out.columns:
            out[column] = ""
        out[column] = out[column].fillna("").astype(str)
    return out


def validate_labels(
    labels: pd.DataFrame,
    *,
    items: pd.DataFrame | None = None,
    source: str | None = None,
    allowed: Iterable[str] | None = None,
) -> pd.DataFrame:
    """Check a long-format labels table; return a copy with the contract columns as str.

    With ``items``, every ``item_id`` must name an item. With ``allowed``, every label must be
    one of those values. No ``item_id``, ``rater`` or ``label`` may hold a line break (a stray
    quote in a CSV swallows the following rows into one field). A final labels table (one label
    per item, :func:`is_final_labels`) is refused with a message that says so.
    """
    if isinstance(labels, pd.DataFrame) and is_final_labels(labels):
        where = _where(source or labels.attrs.get("source"))
        raise InputError(
            f"{where}is a final labels table (one consensus label per item, as pull's final.csv); "
            "expected per-rater labels (item_id, rater, rater_type, label), as pull's labels.csv"
        )
    require_columns(labels, LABEL_COLUMNS, "labels", source)
    if labels.attrs.get("validated") == "labels" and items is None and allowed is None:
        return labels  # checked once already (validated once)
    if all(isinstance(labels[c].dtype, pd.CategoricalDtype) for c in LABEL_COLUMNS):
        stripped = {c: _stripped_categories(labels[c]) for c in LABEL_COLUMNS}
        stripped = {c: v for c, v in stripped.items() if v is not None}
        if stripped:
            labels = labels.assign(**stripped)
        _validate_categorical_labels(labels, items=items, source=source, allowed=allowed)
        return labels  # checks on categories cost next to nothing, so no marker is needed
    for column in ("item_id", "rater", "rater_type", "label"):
        _check_nonempty_str(labels, column, "labels", source)
        _check_one_line(labels, column, labels[column].astype(str).str.contains("[\r\n]").to_numpy(), source)
    out = labels.copy()
    for column in LABEL_COLUMNS:
        out[column] = out[column].astype(str).str.strip()
    _check_values(out, "rater_type", set(RATER_TYPES), _RATER_TYPE_TEXT, source)
    if allowed is not None:
        allowed_set = {str(a) for a in allowed}
        _check_values(out, "label", allowed_set, "is not one of " + ", ".join(sorted(allowed_set)), source)
    if items is not None:
        _check_values(out, "item_id", set(items["item_id"].astype(str)), "names no item", source)
    out.attrs["validated"] = "labels"
    return out


def _check_one_line(frame: pd.DataFrame, column: str, broken: np.ndarray, source: str | None) -> None:
    """InputError at the first row whose ``column`` holds a line break: a stray quote that
    swallowed the next rows into one field (the row is named by the line it starts on)."""
    if broken.any():
        pos = _first_bad_row(broken)
        raise InputError(
            f"{place(frame, pos, source)}column {column!r} holds a line break: a quote opened on "
            "this line runs over the following lines (a stray quote?)"
        )


def _check_values(frame: pd.DataFrame, column: str, allowed: set[str], text: str, source: str | None) -> None:
    """Raise InputError at the first row whose ``column`` is not in ``allowed``."""
    outside = ~frame[column].isin(allowed)
    if outside.any():
        pos = _first_bad_row(outside)
        raise InputError(f"{place(frame, pos, source)}{column} {frame[column].iloc[pos]!r} {text}")


def _stripped_categories(series: pd.Series) -> pd.Series | None:
    """A categorical column with white space stripped from its categories (merging names that
    become equal); None when no category has any to strip."""
    names = series.cat.categories.astype(str)
    stripped = names.str.strip()
    if (stripped == names).all():
        return None
    if stripped.is_unique:
        return series.cat.rename_categories(list(stripped))
    return series.astype(str).str.strip().astype("category")


def _validate_categorical_labels(
    labels: pd.DataFrame,
    *,
    items: pd.DataFrame | None,
    source: str | None,
    allowed: Iterable[str] | None,
) -> None:
    """The checks of :func:`validate_labels` done on the categories of categorical columns
    (millions of rows in well under a second); the same messages, naming the first bad row."""
    checks: dict[str, tuple[set[str], str]] = {"rater_type": (set(RATER_TYPES), _RATER_TYPE_TEXT)}
    if allowed is not None:
        allowed_set = {str(a) for a in allowed}
        checks["label"] = (allowed_set, "is not one of " + ", ".join(sorted(allowed_set)))
    if items is not None:
        checks["item_id"] = (set(items["item_id"].astype(str)), "names no item")
    for column in LABEL_COLUMNS:
        series = labels[column]
        names = series.cat.categories.astype(str).str.strip()
        codes = series.cat.codes.to_numpy()
        empty = np.append(np.asarray(names == ""), True)  # code -1 (missing) maps to the last slot
        bad = empty[codes]
        if bad.any():
            pos = int(np.argmax(bad))
            raise InputError(f"{place(labels, pos, source)}column {column!r} is empty")
        broken = np.append(np.asarray(names.str.contains("[\r\n]")), False)[codes]
        _check_one_line(labels, column, broken, source)
        if column in checks:
            ok_values, text = checks[column]
            outside = np.append(np.asarray(~names.isin(list(ok_values))), False)[codes]
            if outside.any():
                pos = int(np.argmax(outside))
                raise InputError(f"{place(labels, pos, source)}{column} {names[codes[pos]]!r} {text}")


def is_final_labels(frame: pd.DataFrame) -> bool:
    """Whether ``frame`` is a final labels table: it has ``settled_by``, or ``item_id`` and
    ``label`` without the per-rater columns ``rater`` and ``rater_type`` (a hand-made table of
    one label per item)."""
    columns = set(frame.columns)
    if "settled_by" in columns:
        return True
    return {"item_id", "label"} <= columns and not columns & {"rater", "rater_type"}


def _final_counts(frame: pd.DataFrame, column: str, source: str | None) -> pd.api.extensions.ExtensionArray:
    """A count column of final labels as nullable integers (an empty cell: unknown); InputError
    at the first cell that is not a whole number ≥ 0."""
    raw = frame[column]
    text = raw.astype(object).where(raw.notna(), "").astype(str).str.strip()
    empty = (text == "").to_numpy()
    values = pd.to_numeric(text.where(~empty, "0"), errors="coerce").to_numpy(dtype=float)
    bad = ~(np.isfinite(values) & (values >= 0) & (values == np.round(values)))
    if bad.any():
        pos = _first_bad_row(bad)
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
            f"{_where(source)}has column 'rater': a per-rater labels table (as pull's labels.csv); "
            "expected final labels (item_id, label, n_raters, n_votes, settled_by), as pull's final.csv"
        )
    _check_nonempty_str(final, "item_id", "final labels", source)
    out = pd.DataFrame(index=final.index)
    out.attrs.update(final.attrs)  # the file's lines (place)
    out["item_id"] = final["item_id"].astype(str).str.strip()
    has_question = "question" in final.columns
    if has_question:
        out["question"] = final["question"].fillna("").astype(str).str.strip()
    label = final["label"].astype(object).where(final["label"].notna(), "").astype(str).str.strip()
    for column, values in (("item_id", out["item_id"]), ("label", label)):
        _check_one_line(final, column, values.str.contains("[\r\n]").to_numpy(), source)
    unresolved = (label == "").to_numpy()
    out["label"] = label.where(~unresolved, None)
    keys = ["item_id", *(["question"] if has_question else [])]
    again = out.duplicated(keys).to_numpy()
    if again.any():
        pos = _first_bad_row(again)
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
        pos = _first_bad_row(over)
        raise InputError(
            f"{place(final, pos, source, what='final labels')}n_votes {int(out['n_votes'].iloc[pos])} "
            f"exceeds n_raters {int(out['n_raters'].iloc[pos])}"
        )
    out["settled_by"] = _settled_by(final, unresolved, source)
    if items is not None:
        _check_values(out, "item_id", set(items["item_id"].astype(str)), "names no item", source)
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
    _check_values(final.assign(settled_by=settled), "settled_by", set(SETTLED_BY),
                  "is not one of " + ", ".join(SETTLED_BY), source)  # fmt: skip
    is_tie = (settled == SettledBy.TIE.value).to_numpy()
    clash = is_tie != unresolved
    if clash.any():
        pos = _first_bad_row(clash)
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


def read_labels(
    path: str | Path,
    *,
    items: pd.DataFrame | None = None,
    categorical: bool = False,
    accept_final: bool = False,
) -> pd.DataFrame:
    """Read and validate a labels CSV; messages name the file and its line. ``categorical``:
    see :func:`read_table` (the statistics of :mod:`wordplay_audit.analysis.agreement` take it).

    With ``accept_final``, a final labels table (:func:`is_final_labels`, e.g. pull's
    ``final.csv``) is recognised and returned as :func:`validate_final_labels` checks it
    (``attrs["validated"] == "final_labels"``); without it, such a file is refused with a message
    that says what it is.
    """
    table = read_table(path, categorical=categorical)
    if accept_final and is_final_labels(table):
        return validate_final_labels(table, items=items, source=str(path))
    return validate_labels(table, items=items, source=str(path))


def read_items(path: str | Path) -> pd.DataFrame:
    """Read and validate an items CSV; messages name the file and its line."""
    return validate_items(read_table(path), source=str(path))


def label_scores(labels: pd.DataFrame, column: str = "score", *, source: str | None = None) -> pd.Series:
    """The ``score`` column as floats, NaN where empty (unknown); all NaN when there is no such
    column. A value that is not a finite number is an :class:`InputError` naming its row.

    >>> label_scores(pd.DataFrame({"score": ["0.25", "", None, "0"]})).tolist()
    [0.25, nan, nan, 0.0]
    """
    if column not in labels.columns:
        return pd.Series(np.nan, index=labels.index, name=column)
    raw = labels[column]
    empty = raw.isna() | (raw.astype(str).str.strip() == "")
    values = raw.map(
        lambda v: parse_number(v) if not (v is None or (isinstance(v, float) and v != v)) else None
    )
    bad = values.isna() & ~empty
    if bad.any():
        pos = _first_bad_row(bad)
        raise InputError(
            f"{place(labels, pos, source)}{column} {raw.iloc[pos]!r}: expected a finite number or empty"
        )
    return values.astype(float).rename(column)
