"""One collection file read as a stream of documents, and field access with one-line errors."""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from wordplay_audit.corpora.balderdash.extended_json import iter_file_documents
from wordplay_audit.corpora.balderdash.model import SUFFIXES
from wordplay_audit.corpora.values import check_number
from wordplay_audit.errors import InputError, at_line


def collection_path(folder: Path, name: str) -> Path:
    """The one ``<name>.jsonl`` or ``<name>.json`` file in ``folder``."""
    found = [p for p in (folder / f"{name}{suffix}" for suffix in SUFFIXES) if p.is_file()]
    for path in (folder / f"{name}{suffix}" for suffix in SUFFIXES):
        if path.is_dir():
            raise InputError(f"{path}: is a folder, expected the {name!r} collection as a file")
    if not found:
        raise InputError(
            f"{folder}: no {name}.json or {name}.jsonl (export the {name!r} collection with mongoexport)"
        )
    if len(found) > 1:
        raise InputError(f"{folder}: both {found[0].name} and {found[1].name} exist; keep one")
    return found[0]


def json_kind(value: Any) -> str:
    """The JSON name of a decoded value's type (``null``, not ``NoneType``)."""
    if value is None or isinstance(value, bool):
        return {None: "null", True: "true", False: "false"}[value]
    kinds = ((str, "a string"), (int | float, "a number"), (list, "an array"), (dict, "an object"))
    return next((name for kind, name in kinds if isinstance(value, kind)), type(value).__name__)


def iter_objects(path: Path) -> Iterator[tuple[int, dict]]:
    """``(line, document)`` of every document in ``path``; each must be a JSON object."""
    for line, document in iter_file_documents(path):
        if not isinstance(document, dict):
            raise InputError(f"{path} line {line}: expected a JSON object, got {json_kind(document)}")
        yield line, document


def read_collection(folder: Path, name: str) -> tuple[str, list[tuple[int, dict]]]:
    """All documents of one collection (decoded), with the line each starts on."""
    path = collection_path(folder, name)
    return str(path), list(iter_objects(path))


# --------------------------------------------------------------------------- field access

_MISSING = object()
ID_LIMIT = 10**18 - 1
"""Largest integer (id, round number) accepted; :data:`corpora.values.MAX_INT_DIGITS` digits."""


def shown(value: Any) -> str:
    """``repr(value)``, cut to 40 characters so that a message stays one short line."""
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


class Doc:
    """A decoded document with its file and line, for one-line error messages."""

    def __init__(self, source: str, line: int, data: dict) -> None:
        self.source, self.line, self.data = source, line, data

    def fail(self, message: str) -> InputError:
        return InputError(f"{at_line(self.source, self.line)}{message}")

    def get(self, name: str, default: Any = _MISSING) -> Any:
        value = self.data.get(name, _MISSING)
        if value is _MISSING or value is None:
            if default is _MISSING:
                raise self.fail(f"field {name!r} is missing")
            return default
        return value

    def ident(self, name: str, value: Any = _MISSING) -> str:
        value = self.get(name) if value is _MISSING else value
        if isinstance(value, bool) or not isinstance(value, int | str | float):
            raise self.fail(f"field {name!r} must be an id (integer or string), got {shown(value)}")
        if isinstance(value, float) and not (math.isfinite(value) and value.is_integer()):
            raise self.fail(f"field {name!r} must be an integer id, got {value!r}")
        if not isinstance(value, str):
            value = self._whole(name, value)
        text = str(value).strip()
        if not text:
            raise self.fail(f"field {name!r} is empty")
        return text

    def _whole(self, name: str, value: Any) -> int:
        """A whole number of fewer than 19 digits (a bigger id is a parser trap, not an id)."""
        where = f"{at_line(self.source, self.line)}field {name!r}"
        number = int(value) if isinstance(value, str) else value  # integer() passes digits only
        if abs(number) > ID_LIMIT:
            raise self.fail(f"field {name!r} must be a whole number of at most 18 digits, got {shown(value)}")
        return int(check_number(value, where, integer=True, low=-ID_LIMIT, high=ID_LIMIT))

    def integer(self, name: str, default: Any = _MISSING, *, low: int | None = None) -> int:
        """An integer field (a whole float or a string of digits too), below 10^18 in size."""
        value = self.get(name, default)
        if isinstance(value, str) and value.strip().lstrip("-").isdigit():
            value = value.strip()
        elif (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or (isinstance(value, float) and not (math.isfinite(value) and value.is_integer()))
        ):
            raise self.fail(f"field {name!r} must be an integer, got {shown(value)}")
        number = self._whole(name, value)
        if low is not None and number < low:
            raise self.fail(f"field {name!r} must be {low} or more, got {number}")
        return int(number)

    def number(self, name: str, default: Any = _MISSING) -> float:
        """A finite number (NaN, ±Infinity and 1e400 are refused)."""
        value = self.get(name, default)
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise self.fail(f"field {name!r} must be a number, got {shown(value)}")
        return float(check_number(value, f"{at_line(self.source, self.line)}field {name!r}"))

    def text(self, name: str, default: Any = _MISSING) -> str:
        value = self.get(name, default)
        if not isinstance(value, str):
            raise self.fail(f"field {name!r} must be a string, got {shown(value)}")
        return value

    def boolean(self, value: Any, what: str) -> bool:
        if isinstance(value, bool):
            return value
        if isinstance(value, int) and value in (0, 1):
            return bool(value)
        if isinstance(value, str) and value.strip().lower() in ("true", "false"):
            return value.strip().lower() == "true"
        raise self.fail(f"{what} must be true or false, got {shown(value)}")
