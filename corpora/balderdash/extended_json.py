"""MongoDB Extended JSON and mongoexport files: documents with the line each starts on."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pandas as pd

from wordplay_audit.errors import InputError

# --------------------------------------------------------------------------- Extended JSON


def decode_extended_json(value: Any) -> Any:
    """Turn MongoDB Extended JSON (relaxed or canonical) into plain Python values.

    ``{"$oid": h}`` → ``h``; ``{"$numberInt"|"$numberLong": s}`` → ``int(s)``;
    ``{"$numberDouble"|"$numberDecimal": s}`` → ``float(s)``; ``{"$date": …}`` → an ISO string
    (canonical ``{"$date": {"$numberLong": ms}}`` is converted from milliseconds since the epoch).
    Other values are returned with their containers decoded. Raises ValueError on a malformed
    wrapper such as ``{"$numberInt": "x"}``.

    >>> decode_extended_json({"a": {"$numberInt": "3"}, "b": [{"$numberDouble": "0.5"}]})
    {'a': 3, 'b': [0.5]}
    """
    if isinstance(value, dict):
        if len(value) == 1:
            ((key, inner),) = value.items()
            if key == "$oid":
                return str(inner)
            if key in ("$numberInt", "$numberLong"):
                if isinstance(inner, bool) or not isinstance(inner, str | int):
                    raise ValueError(f"{key} must hold a string of digits, got {inner!r}")
                return int(inner)
            if key in ("$numberDouble", "$numberDecimal"):
                if isinstance(inner, bool) or not isinstance(inner, str | int | float):
                    raise ValueError(f"{key} must hold a number string, got {inner!r}")
                return float(inner)
            if key == "$date":
                inner = decode_extended_json(inner)
                if isinstance(inner, int | float) and not isinstance(inner, bool):
                    return pd.Timestamp(int(inner), unit="ms", tz="UTC").isoformat()
                return str(inner)
        return {str(k): decode_extended_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [decode_extended_json(v) for v in value]
    return value


def _skip_ws(text: str, pos: int) -> int:
    while pos < len(text) and text[pos] in " \t\r\n\ufeff":
        pos += 1
    return pos


def iter_json_documents(text: str, source: str) -> Iterator[tuple[int, Any]]:
    """Yield ``(line, document)`` from JSON lines, concatenated documents or one JSON array.

    ``line`` is the 1-based line where the document starts. Invalid JSON raises InputError
    naming ``source`` and the line of the fault.
    """
    decoder = json.JSONDecoder()
    pos = _skip_ws(text, 0)
    line, counted = 1, 0

    def line_at(p: int) -> int:
        nonlocal line, counted
        line += text.count("\n", counted, p)
        counted = p
        return line

    in_array = text.startswith("[", pos)
    if in_array:
        pos = _skip_ws(text, pos + 1)
        if text.startswith("]", pos):
            pos = _skip_ws(text, pos + 1)
            if pos < len(text):
                raise InputError(f"{source} line {line_at(pos)}: unexpected text after the JSON array")
            return
    while pos < len(text):
        start_line = line_at(pos)
        try:
            document, end = decoder.raw_decode(text, pos)
        except json.JSONDecodeError as exc:
            where = "" if exc.lineno == start_line else f", found at line {exc.lineno}"
            raise InputError(f"{source} line {start_line}: not valid JSON ({exc.msg}{where})") from None
        yield start_line, document
        pos = _skip_ws(text, end)
        if in_array:
            if pos >= len(text):
                raise InputError(f"{source} line {line_at(pos)}: JSON array is not closed (expected ']')")
            if text[pos] == ",":
                pos = _skip_ws(text, pos + 1)
                continue
            if text[pos] == "]":
                pos = _skip_ws(text, pos + 1)
                if pos < len(text):
                    raise InputError(f"{source} line {line_at(pos)}: unexpected text after the JSON array")
                return
            raise InputError(f"{source} line {line_at(pos)}: expected ',' or ']' in the JSON array")
