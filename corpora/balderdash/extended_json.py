"""MongoDB Extended JSON and mongoexport files: documents with the line each starts on.

A collection file is read line by line (:func:`iter_file_documents`): ``mongoexport`` writes
one document per line, so each line is decoded on its own and never the whole file into one
string. A file that is not one document per line — a ``--jsonArray`` file, pretty-printed
concatenated documents — is parsed as one text from the first line that does not hold a whole
document, by :func:`iter_json_documents`'s parser, so the two paths give the same documents,
errors and line numbers.

Decoding is done by the JSON parser itself: a hook on every object turns Extended JSON wrappers
into plain values (:func:`decode_extended_json` gives the same values on an already parsed
document) and refuses an object that names a key twice, so a document is walked once while
it is parsed and no value is silently replaced by a later one. Nesting deeper than the
parser's limit and integers of thousands of digits are one-line errors, not tracebacks.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd

from wordplay_audit.corpora.values import surrogate_problem
from wordplay_audit.errors import InputError

_WHITESPACE = " \t\r\n\ufeff"
_INT_WRAPPERS = ("$numberInt", "$numberLong")
_FLOAT_WRAPPERS = ("$numberDouble", "$numberDecimal")


class ExtendedJsonError(ValueError):
    """A malformed Extended JSON wrapper."""


class DuplicateKeyError(ValueError):
    """An object that names the same key twice (JSON leaves the meaning open; we refuse it)."""


# --------------------------------------------------------------------------- Extended JSON


def _date(inner: Any) -> str:
    if isinstance(inner, int | float) and not isinstance(inner, bool):
        return pd.Timestamp(int(inner), unit="ms", tz="UTC").isoformat()
    return str(inner)


def _unwrap(key: str, inner: Any) -> Any:
    """The plain value of the one-key wrapper ``{key: inner}``; ``inner`` is already decoded."""
    if key == "$oid":
        return str(inner)
    if key in _INT_WRAPPERS:
        if isinstance(inner, bool) or not isinstance(inner, str | int):
            raise ExtendedJsonError(f"{key} must hold a string of digits, got {inner!r}")
        return int(inner)
    if key in _FLOAT_WRAPPERS:
        if isinstance(inner, bool) or not isinstance(inner, str | int | float):
            raise ExtendedJsonError(f"{key} must hold a number string, got {inner!r}")
        return float(inner)
    return _date(inner)


_WRAPPERS = frozenset(("$oid", "$date", *_INT_WRAPPERS, *_FLOAT_WRAPPERS))


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
            if key in _WRAPPERS:
                return _unwrap(key, decode_extended_json(inner) if key == "$date" else inner)
        return {str(k): decode_extended_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [decode_extended_json(v) for v in value]
    return value


def _object_from_pairs(pairs: list[tuple[str, Any]]) -> Any:
    """The parser's hook for every object: refuse a repeated key, unwrap Extended JSON."""
    if len(pairs) == 1:
        key, inner = pairs[0]
        if key not in _WRAPPERS:
            return {key: inner}
        try:
            return _unwrap(key, inner)
        except (ValueError, OverflowError) as exc:
            raise ExtendedJsonError(str(exc).split(";")[0]) from None
    obj = dict(pairs)
    if len(obj) < len(pairs):
        seen: set[str] = set()
        twice = next(k for k, _ in pairs if k in seen or seen.add(k))
        raise DuplicateKeyError(f"key {twice!r} appears twice in one object (keep one of them)")
    return obj


EXTENDED_DECODER = json.JSONDecoder(object_pairs_hook=_object_from_pairs)
"""A decoder that returns plain values for Extended JSON and refuses repeated keys."""


# --------------------------------------------------------------------------- whole text


def _skip_ws(text: str, pos: int) -> int:
    while pos < len(text) and text[pos] in _WHITESPACE:
        pos += 1
    return pos


class _Lines:
    """Line numbers of positions in ``text``, counted forward once (positions only grow)."""

    def __init__(self, text: str, first_line: int) -> None:
        self.text, self.line, self.counted, self.first = text, first_line, 0, first_line

    def at(self, pos: int) -> int:
        self.line += self.text.count("\n", self.counted, pos)
        self.counted = pos
        return self.line


def _decode_one(decoder: json.JSONDecoder, text: str, pos: int, source: str, lines: _Lines):
    """``decoder.raw_decode(text, pos)`` with every failure turned into one InputError line."""
    start_line = lines.at(pos)
    try:
        document, end = decoder.raw_decode(text, pos)
        if (problem := surrogate_problem(document, text, pos, end)) is not None:
            raise InputError(f"{source} line {start_line}: {problem}")
        return document, end
    except json.JSONDecodeError as exc:
        found = exc.lineno + lines.first - 1
        where = "" if found == start_line else f", found at line {found}"
        raise InputError(f"{source} line {start_line}: not valid JSON ({exc.msg}{where})") from None
    except ExtendedJsonError as exc:
        raise InputError(f"{source} line {start_line}: bad Extended JSON value ({exc})") from None
    except DuplicateKeyError as exc:
        raise InputError(f"{source} line {start_line}: {exc}") from None
    except RecursionError:
        raise InputError(f"{source} line {start_line}: not valid JSON (nested too deeply)") from None
    except (ValueError, OverflowError) as exc:
        first = str(exc).split(";")[0]
        raise InputError(f"{source} line {start_line}: not valid JSON ({first})") from None


def _after_array_item(text: str, pos: int, source: str, lines: _Lines) -> int | None:
    """Position of the next array item, or None when the array closed at the end of the text."""
    if pos >= len(text):
        raise InputError(f"{source} line {lines.at(pos)}: JSON array is not closed (expected ']')")
    if text[pos] == ",":
        return _skip_ws(text, pos + 1)
    if text[pos] != "]":
        raise InputError(f"{source} line {lines.at(pos)}: expected ',' or ']' in the JSON array")
    pos = _skip_ws(text, pos + 1)
    if pos < len(text):
        raise InputError(f"{source} line {lines.at(pos)}: unexpected text after the JSON array")
    return None


def _iter_text(
    text: str, source: str, decoder: json.JSONDecoder, *, first_line: int = 1, allow_array: bool = True
) -> Iterator[tuple[int, Any]]:
    lines = _Lines(text, first_line)
    pos = _skip_ws(text, 0)
    in_array = allow_array and text.startswith("[", pos)
    if in_array:
        pos = _skip_ws(text, pos + 1)
        if text.startswith("]", pos):
            pos = _skip_ws(text, pos + 1)
            if pos < len(text):
                raise InputError(f"{source} line {lines.at(pos)}: unexpected text after the JSON array")
            return
    while pos is not None and pos < len(text):
        start_line = lines.at(pos)
        document, end = _decode_one(decoder, text, pos, source, lines)
        yield start_line, document
        pos = _skip_ws(text, end)
        if in_array:
            pos = _after_array_item(text, pos, source, lines)


def iter_json_documents(text: str, source: str) -> Iterator[tuple[int, Any]]:
    """Yield ``(line, document)`` from JSON lines, concatenated documents or one JSON array.

    ``line`` is the 1-based line where the document starts. Invalid JSON (also nesting deeper
    than the parser's limit, or an integer of thousands of digits) raises InputError naming
    ``source`` and the line of the fault. Documents are returned as parsed (Extended JSON
    wrappers kept; see :func:`decode_extended_json`).
    """
    return _iter_text(text, source, json.JSONDecoder())


# --------------------------------------------------------------------------- files, line by line


def _text_of(raw: bytes, source: str, line: int) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line += raw.count(b"\n", 0, exc.start)
        raise InputError(f"{source} line {line}: not UTF-8 text (expected mongoexport JSON)") from None


def _rest_of_file(handle, first: str, source: str, line: int) -> str:
    """``first`` and everything after it, with the universal newlines of text mode."""
    rest = handle.read()
    text = first + _text_of(rest, source, line) if rest else first
    return text.replace("\r\n", "\n").replace("\r", "\n")


_NOT_WHOLE = object()


def iter_file_documents(path: str | Path) -> Iterator[tuple[int, Any]]:
    """Yield ``(line, document)`` from a mongoexport file, decoded (Extended JSON unwrapped).

    One document per line is decoded line by line; from the first line that is not a whole
    document (a JSON array, pretty-printed documents), the rest of the file is parsed as one
    text, with the same documents, errors and line numbers as :func:`iter_json_documents`.
    """
    source = str(path)
    decode = EXTENDED_DECODER.decode
    first = True
    with open(path, "rb") as handle:
        for line, raw in enumerate(handle, start=1):
            text = _text_of(raw, source, line)
            stripped = text.strip(_WHITESPACE)
            if not stripped:
                continue
            document = _NOT_WHOLE
            if not stripped.startswith("[") and "\r" not in stripped:
                try:
                    document = decode(stripped)
                except (ValueError, RecursionError):
                    pass  # not one whole document on this line: parse the rest as one text
            if document is not _NOT_WHOLE:
                if "\\u" in stripped and (problem := surrogate_problem(document, stripped)) is not None:
                    raise InputError(f"{source} line {line}: {problem}")
                first = False
                yield line, document
                continue
            rest = _rest_of_file(handle, text, source, line + 1)
            yield from _iter_text(rest, source, EXTENDED_DECODER, first_line=line, allow_array=first)
            return
