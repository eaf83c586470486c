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
    ``rater_type`` ``human`` or ``judge``
    ``label``      str, the decision; equivalence kinds use ``true``/``false``
    optional ``comment``, ``question`` (which question was asked of the item)
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from pathlib import Path

import numpy as np
import pandas as pd

from wordplay_audit.errors import InputError

GAMES = ("connections", "balderdash", "wof", "demo")
KINDS = (
    "category_name",  # does a model's category name mean the same as the gold name?
    "knowledge_type",  # which knowledge type does a gold category need?
    "definition",  # does a generated definition mean the same as the reference?
    "guess",  # is a guess the same as the answer?
)
RATER_TYPES = ("human", "judge")
ITEM_COLUMNS = ("item_id", "game", "kind")
TEXT_COLUMNS = ("context", "reference", "candidate")
LABEL_COLUMNS = ("item_id", "rater", "rater_type", "label")
OPTIONAL_LABEL_COLUMNS = ("comment", "question")

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
    """Map yes/no, true/false, 1/0 (any case) to ``"true"``/``"false"``; raise ValueError else."""
    text = str(value).strip().lower()
    if text in _TRUE:
        return "true"
    if text in _FALSE:
        return "false"
    raise ValueError(f"expected a yes/no or true/false label, got {value!r}")


def _where(source: str | None) -> str:
    return f"{source}: " if source else ""


def require_columns(frame: pd.DataFrame, required: Iterable[str], what: str, source: str | None = None) -> None:
    """Raise InputError unless ``frame`` is a DataFrame with every ``required`` column."""
    if not isinstance(frame, pd.DataFrame):
        raise InputError(f"{_where(source)}{what} must be a pandas DataFrame, got {type(frame).__name__}")
    missing = [c for c in required if c not in frame.columns]
    if missing:
        raise InputError(
            f"{_where(source)}{what} table lacks column {missing[0]!r} "
            f"(has {', '.join(map(str, frame.columns)) or 'no columns'})"
        )


def _first_bad_row(mask: pd.Series) -> int:
    """Position (0-based) of the first True in a boolean mask."""
    return int(mask.to_numpy().nonzero()[0][0])


def _check_nonempty_str(frame: pd.DataFrame, column: str, what: str, source: str | None, row_offset: int):
    values = frame[column]
    bad = values.isna() | (values.astype(str).str.strip() == "")
    if bad.any():
        pos = _first_bad_row(bad)
        raise InputError(f"{_where(source)}{what} row {pos + row_offset}: column {column!r} is empty")


def validate_items(items: pd.DataFrame, *, source: str | None = None, row_offset: int = 1) -> pd.DataFrame:
    """Check an items table; return it with ``item_id``, ``game``, ``kind`` as str.

    ``row_offset`` turns a 0-based position into the row number shown in messages (2 for a CSV
    file with a header line, so the number is the file's line).
    """
    require_columns(items, ITEM_COLUMNS, "items", source)
    for column in ITEM_COLUMNS:
        _check_nonempty_str(items, column, "items", source, row_offset)
    out = items.copy()
    for column in ITEM_COLUMNS:
        out[column] = out[column].astype(str)
    dup = out["item_id"].duplicated()
    if dup.any():
        pos = _first_bad_row(dup)
        raise InputError(
            f"{_where(source)}items row {pos + row_offset}: item_id {out['item_id'].iloc[pos]!r} "
            "appears twice (item_id must be unique)"
        )
    bad_kind = ~out["kind"].isin(KINDS)
    if bad_kind.any():
        pos = _first_bad_row(bad_kind)
        raise InputError(
            f"{_where(source)}items row {pos + row_offset}: kind {out['kind'].iloc[pos]!r} "
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
    row_offset: int = 1,
    allowed: Iterable[str] | None = None,
) -> pd.DataFrame:
    """Check a long-format labels table; return a copy with the contract columns as str.

    With ``items``, every ``item_id`` must name an item. With ``allowed``, every label must be
    one of those values.
    """
    require_columns(labels, LABEL_COLUMNS, "labels", source)
    if all(isinstance(labels[c].dtype, pd.CategoricalDtype) for c in LABEL_COLUMNS):
        _validate_categorical_labels(labels, items=items, source=source, row_offset=row_offset, allowed=allowed)
        return labels
    for column in ("item_id", "rater", "rater_type", "label"):
        _check_nonempty_str(labels, column, "labels", source, row_offset)
    out = labels.copy()
    for column in LABEL_COLUMNS:
        out[column] = out[column].astype(str).str.strip()
    bad_type = ~out["rater_type"].isin(RATER_TYPES)
    if bad_type.any():
        pos = _first_bad_row(bad_type)
        raise InputError(
            f"{_where(source)}labels row {pos + row_offset}: rater_type "
            f"{out['rater_type'].iloc[pos]!r} is not 'human' or 'judge'"
        )
    if allowed is not None:
        allowed_set = {str(a) for a in allowed}
        outside = ~out["label"].isin(allowed_set)
        if outside.any():
            pos = _first_bad_row(outside)
            raise InputError(
                f"{_where(source)}labels row {pos + row_offset}: label {out['label'].iloc[pos]!r} "
                f"is not one of {', '.join(sorted(allowed_set))}"
            )
    if items is not None:
        known = set(items["item_id"].astype(str))
        unknown = ~out["item_id"].isin(known)
        if unknown.any():
            pos = _first_bad_row(unknown)
            raise InputError(
                f"{_where(source)}labels row {pos + row_offset}: item_id "
                f"{out['item_id'].iloc[pos]!r} names no item"
            )
    return out


def _validate_categorical_labels(
    labels: pd.DataFrame,
    *,
    items: pd.DataFrame | None,
    source: str | None,
    row_offset: int,
    allowed: Iterable[str] | None,
) -> None:
    """The checks of :func:`validate_labels` done on the categories of categorical columns
    (millions of rows in well under a second); the same messages, naming the first bad row."""
    checks: dict[str, tuple[set[str], str]] = {"rater_type": (set(RATER_TYPES), "is not 'human' or 'judge'")}
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
            raise InputError(f"{_where(source)}labels row {pos + row_offset}: column {column!r} is empty")
        if column in checks:
            ok_values, text = checks[column]
            outside = np.append(np.asarray(~names.isin(list(ok_values))), False)[codes]
            if outside.any():
                pos = int(np.argmax(outside))
                raise InputError(
                    f"{_where(source)}labels row {pos + row_offset}: {column} {names[codes[pos]]!r} {text}"
                )


def read_table(path: str | Path) -> pd.DataFrame:
    """Read a CSV (or JSON lines, by suffix ``.jsonl``) table as strings; one-line errors."""
    path = Path(path)
    if not path.exists():
        raise InputError(f"{path}: no such file")
    if path.is_dir():
        raise InputError(f"{path}: is a folder, expected a CSV file")
    try:
        if path.suffix == ".jsonl":
            return pd.read_json(path, lines=True, dtype=False).astype(str)
        return pd.read_csv(path, dtype=str, keep_default_na=False)
    except (ValueError, pd.errors.ParserError, UnicodeDecodeError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise InputError(f"{path}: not a readable table ({first})") from None


def read_labels(path: str | Path, *, items: pd.DataFrame | None = None) -> pd.DataFrame:
    """Read and validate a labels CSV; messages name the file and its line."""
    frame = read_table(path)
    return validate_labels(frame, items=items, source=str(path), row_offset=2)


def read_items(path: str | Path) -> pd.DataFrame:
    """Read and validate an items CSV; messages name the file and its line."""
    frame = read_table(path)
    return validate_items(frame, source=str(path), row_offset=2)
