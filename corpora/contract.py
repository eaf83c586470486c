"""The one data contract: an *items* table and a long-format *labels* table.

Every reader in :mod:`corpora` produces these two tables, every exporter in :mod:`annotate`
and every statistic in :mod:`analysis` consumes them.  ``docs/DATA.md`` is the prose version;
this module is the executable one.

Items (one row per thing a rater or judge decides about):

* ``item_id`` — str, unique, stable across runs (see :func:`game_key` and docs/DATA.md)
* ``game`` — str, one of :data:`GAMES`
* ``kind`` — str, one of :data:`KINDS`
* texts shown — ``context`` (what the item is about, e.g. the four words or the rare word),
  ``reference`` (the gold text), ``candidate`` (the generated text); any may be empty for a
  kind that does not show it
* strata — any further columns (``player_model``, ``difficulty``, ``knowledge_type`` …)

Labels (one row per rating):

* ``item_id`` — str, must name an item when the items table is given
* ``rater`` — str, who rated (a person's pseudonym or a judge's name)
* ``rater_type`` — ``human``, ``judge`` or ``adjudicator`` (a person who settled a disputed
  item: not a rater in agreement statistics; the consensus takes the label)
* ``label`` — str, the decision; equivalence kinds use ``true``/``false``
* optional — ``comment``, ``question`` (which question was asked of the item), ``score`` (a
  judge's number for the item, higher = more likely ``true``: P(yes), a similarity; empty
  where unknown, never 0 for unknown; read it with :func:`label_scores`)

Final labels (one row per item and question: the consensus after adjudication) are the third
table: :mod:`wordplay_audit.corpora.final_labels` checks them; :func:`is_final_labels` tells
them from per-rater labels.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from pathlib import Path

import numpy as np
import pandas as pd

from wordplay_audit.corpora.tables import read_table  # the one table reader, re-exported here
from wordplay_audit.corpora.values import parse_number
from wordplay_audit.errors import InputError, at_line

#: The games.
GAMES = ("connections", "balderdash", "wof", "demo")
#: The item kinds.
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
_RATER_TYPE_TEXT = "is not 'human', 'judge' or 'adjudicator'"


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
        pos = first_bad_row(bad)
        raise InputError(
            f"{place(frame, pos, source)}{column} {frame[column].iloc[pos]!r} is not true/false "
            "(or yes/no, 1/0)"
        )
    return mapped.astype(str)


def place(frame: pd.DataFrame, pos: int, source: str | None = None, *, what: str = "labels") -> str:
    """The place prefix of row ``pos`` (0-based) of ``frame`` (see :mod:`wordplay_audit.errors`).

    A frame read by :func:`read_table` carries its file (``attrs["source"]``) and has the file's
    line numbers as its index, so the place is ``<file> line <N>:`` even after rows were
    filtered out; any other frame is named by its 1-based row: ``labels row <N>:``.
    """
    source = source or frame.attrs.get("source")
    if frame.attrs.get("line_index") and len(frame.index) > pos:
        return at_line(source, int(frame.index[pos]))
    prefix = f"{source}: " if source else ""
    return f"{prefix}{what} row {pos + 1}: "


def where_prefix(source: str | None) -> str:
    """``<source>:`` and a space (nothing without a source): the place of a whole table."""
    return f"{source}: " if source else ""


def require_columns(
    frame: pd.DataFrame, required: Iterable[str], what: str, source: str | None = None
) -> None:
    """Raise InputError unless ``frame`` is a DataFrame with every ``required`` column."""
    if not isinstance(frame, pd.DataFrame):
        raise InputError(
            f"{where_prefix(source)}{what} must be a pandas DataFrame, got {type(frame).__name__}"
        )
    source = source or frame.attrs.get("source")
    missing = [c for c in required if c not in frame.columns]
    if missing:
        raise InputError(
            f"{where_prefix(source)}{what} table lacks column {missing[0]!r} "
            f"(has {', '.join(map(str, frame.columns)) or 'no columns'})"
        )


def first_bad_row(mask: pd.Series | np.ndarray) -> int:
    """Position (0-based) of the first True in a boolean mask."""
    return int(np.asarray(mask).nonzero()[0][0])


def check_nonempty_str(frame: pd.DataFrame, column: str, what: str, source: str | None):
    """Raise InputError at the first row whose ``column`` is missing or blank."""
    values = frame[column]
    bad = values.isna() | (values.astype(str).str.strip() == "")
    if bad.any():
        pos = first_bad_row(bad)
        raise InputError(f"{place(frame, pos, source, what=what)}column {column!r} is empty")


def validate_items(items: pd.DataFrame, *, source: str | None = None) -> pd.DataFrame:
    """Check an items table; return it with ``item_id``, ``game``, ``kind`` as str.

    Messages name the place by :func:`place` (the file's line for a table from :func:`read_table`).
    """
    require_columns(items, ITEM_COLUMNS, "items", source)
    for column in ITEM_COLUMNS:
        check_nonempty_str(items, column, "items", source)
    out = items.copy()
    for column in ITEM_COLUMNS:
        out[column] = out[column].astype(str)
    dup = out["item_id"].duplicated()
    if dup.any():
        pos = first_bad_row(dup)
        raise InputError(
            f"{place(out, pos, source, what='items')}item_id {out['item_id'].iloc[pos]!r} "
            "appears twice (item_id must be unique)"
        )
    bad_kind = ~out["kind"].isin(KINDS)
    if bad_kind.any():
        pos = first_bad_row(bad_kind)
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
        where = where_prefix(source or labels.attrs.get("source"))
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
        check_nonempty_str(labels, column, "labels", source)
        check_one_line(labels, column, labels[column].astype(str).str.contains("[\r\n]").to_numpy(), source)
    out = labels.copy()
    for column in LABEL_COLUMNS:
        out[column] = out[column].astype(str).str.strip()
    check_values(out, "rater_type", set(RATER_TYPES), _RATER_TYPE_TEXT, source)
    if allowed is not None:
        allowed_set = {str(a) for a in allowed}
        check_values(out, "label", allowed_set, "is not one of " + ", ".join(sorted(allowed_set)), source)
    if items is not None:
        check_values(out, "item_id", set(items["item_id"].astype(str)), "names no item", source)
    out.attrs["validated"] = "labels"
    return out


def check_one_line(frame: pd.DataFrame, column: str, broken: np.ndarray, source: str | None) -> None:
    """InputError at the first row whose ``column`` holds a line break: a stray quote that
    swallowed the next rows into one field (the row is named by the line it starts on)."""
    if broken.any():
        pos = first_bad_row(broken)
        raise InputError(
            f"{place(frame, pos, source)}column {column!r} holds a line break: a quote opened on "
            "this line runs over the following lines (a stray quote?)"
        )


def check_values(frame: pd.DataFrame, column: str, allowed: set[str], text: str, source: str | None) -> None:
    """Raise InputError at the first row whose ``column`` is not in ``allowed``."""
    outside = ~frame[column].isin(allowed)
    if outside.any():
        pos = first_bad_row(outside)
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
        check_one_line(labels, column, broken, source)
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
    ``final.csv``) is recognised and returned as
    :func:`~wordplay_audit.corpora.final_labels.validate_final_labels` checks it
    (``attrs["validated"] == "final_labels"``); without it, such a file is refused with a message
    that says what it is.
    """
    table = read_table(path, categorical=categorical)
    if accept_final and is_final_labels(table):
        from wordplay_audit.corpora.final_labels import validate_final_labels  # it imports this module

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
        pos = first_bad_row(bad)
        raise InputError(
            f"{place(labels, pos, source)}{column} {raw.iloc[pos]!r}: expected a finite number or empty"
        )
    return values.astype(float).rename(column)
