"""One collection file read into documents, and field access with one-line errors."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from wordplay_audit.corpora.balderdash.extended_json import (
    decode_extended_json,
    iter_json_documents,
)
from wordplay_audit.corpora.balderdash.model import SUFFIXES
from wordplay_audit.errors import InputError


def read_collection(folder: Path, name: str) -> tuple[str, list[tuple[int, dict]]]:
    candidates = [folder / f"{name}{suffix}" for suffix in SUFFIXES]
    found = [p for p in candidates if p.is_file()]
    if not found:
        raise InputError(
            f"{folder}: no {name}.json or {name}.jsonl (export the {name!r} collection with mongoexport)"
        )
    if len(found) > 1:
        raise InputError(f"{folder}: both {found[0].name} and {found[1].name} exist; keep one")
    path = found[0]
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise InputError(f"{path}: not UTF-8 text (expected mongoexport JSON)") from None
    documents = []
    for line, raw in iter_json_documents(text, str(path)):
        if not isinstance(raw, dict):
            raise InputError(f"{path} line {line}: expected a JSON object, got {type(raw).__name__}")
        try:
            documents.append((line, decode_extended_json(raw)))
        except (ValueError, OverflowError) as exc:
            raise InputError(f"{path} line {line}: bad Extended JSON value ({exc})") from None
    return str(path), documents


# --------------------------------------------------------------------------- field access

_MISSING = object()


class Doc:
    """A decoded document with its file and line, for one-line error messages."""

    def __init__(self, source: str, line: int, data: dict) -> None:
        self.source, self.line, self.data = source, line, data

    def fail(self, message: str) -> InputError:
        return InputError(f"{self.source} line {self.line}: {message}")

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
            raise self.fail(f"field {name!r} must be an id (integer or string), got {value!r}")
        if isinstance(value, float):
            if not value.is_integer():
                raise self.fail(f"field {name!r} must be an integer id, got {value!r}")
            value = int(value)
        text = str(value).strip()
        if not text:
            raise self.fail(f"field {name!r} is empty")
        return text

    def integer(self, name: str, default: Any = _MISSING) -> int:
        value = self.get(name, default)
        if isinstance(value, bool):
            raise self.fail(f"field {name!r} must be an integer, got {value!r}")
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if isinstance(value, str) and value.strip().lstrip("-").isdigit():
            value = int(value)
        if not isinstance(value, int):
            raise self.fail(f"field {name!r} must be an integer, got {value!r}")
        return value

    def number(self, name: str) -> float:
        value = self.get(name)
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise self.fail(f"field {name!r} must be a number, got {value!r}")
        return float(value)

    def text(self, name: str, default: Any = _MISSING) -> str:
        value = self.get(name, default)
        if not isinstance(value, str):
            raise self.fail(f"field {name!r} must be a string, got {value!r}")
        return value

    def boolean(self, value: Any, what: str) -> bool:
        if isinstance(value, bool):
            return value
        if isinstance(value, int) and value in (0, 1):
            return bool(value)
        if isinstance(value, str) and value.strip().lower() in ("true", "false"):
            return value.strip().lower() == "true"
        raise self.fail(f"{what} must be true or false, got {value!r}")


# --------------------------------------------------------------------------- words files
