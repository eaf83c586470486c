"""One guarded way to read the study's JSON files.

* size: files over :data:`MAX_JSON_BYTES` are refused before reading;
* depth: nesting deeper than :data:`MAX_JSON_DEPTH` (arrays and objects) is refused with the line
  where it happens, before the parser could recurse (``[`` × 100,000 is one error line);
* text: UTF-8 (a BOM is accepted); a bad byte is named by its line;
* numbers: ``NaN``, ``Infinity``, a float that overflows (``1e400``) or an integer of more than
  :data:`~wordplay_audit.corpora.values.MAX_INT_DIGITS` digits is not turned into a number: it
  is kept as a :class:`RawNumber` (its text), so the reader's number check counts it;
* objects: a key written twice is kept visible (:class:`~wordplay_audit.corpora.literal.PairsDict`),
  never silently last-one-wins; keys are NFC-normalised. :func:`refuse_duplicate_keys` makes
  one an error, also inside the Python-literal strings some files hold.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

import numpy as np

from wordplay_audit.corpora.literal import PairsDict, duplicate_keys, maybe_literal
from wordplay_audit.corpora.values import (
    MAX_INT_DIGITS,
    SURROGATE_ESCAPE,
    lone_surrogate,
    lone_surrogate_message,
)
from wordplay_audit.errors import InputError, at_field, at_line, expect_file

MAX_JSON_BYTES = 512 * 2**20
"""The largest JSON file read (512 MiB; the study's largest file is about 1 MiB)."""
MAX_JSON_DEPTH = 64
"""The deepest nesting of arrays and objects accepted (the study's files nest 4 deep)."""

_STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"')


class RawNumber(str):
    """The text of a JSON number that is not a finite number of ordinary size (``NaN``,
    ``Infinity``, ``1e400``, a 5,001-digit integer). A string, so number checks refuse it."""


def _parse_int(text: str) -> int | RawNumber:
    return int(text) if len(text.lstrip("-")) <= MAX_INT_DIGITS else RawNumber(text)


def _parse_float(text: str) -> float | RawNumber:
    value = float(text)
    return value if math.isfinite(value) else RawNumber(text)


def _check_depth(path: Path, text: str) -> None:
    """Refuse nesting deeper than :data:`MAX_JSON_DEPTH`, naming the line where it starts."""
    if text.count("[") + text.count("{") <= MAX_JSON_DEPTH:
        return
    bare = _STRING.sub('""', text)  # strings hold no newline, so line numbers are kept
    codes = np.frombuffer(bare.encode("utf-8"), dtype=np.uint8)
    step = np.isin(codes, (ord("["), ord("{"))).astype(np.int64) - np.isin(
        codes, (ord("]"), ord("}"))
    ).astype(np.int64)
    depth = np.cumsum(step)
    too_deep = np.flatnonzero(depth > MAX_JSON_DEPTH)
    if too_deep.size:
        line = int(np.count_nonzero(codes[: too_deep[0]] == ord("\n"))) + 1
        raise InputError(
            f"{at_line(path, line)}JSON nested deeper than {MAX_JSON_DEPTH} levels (not a file of the study)"
        )


def decode_utf8(path: Path, raw: bytes) -> str:
    """``raw`` as text (UTF-8, a BOM accepted); a bad byte is an error naming its line."""
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise InputError(f"{at_line(path, line)}not UTF-8 text (byte 0x{raw[exc.start]:02x})") from None


def load_json(path: Path) -> Any:
    """Parse the JSON file ``path`` with the guards above; :class:`InputError` on bad input."""
    expect_file(path, "a JSON file")
    size = path.stat().st_size
    if size > MAX_JSON_BYTES:
        raise InputError(f"{path}: {size} bytes, more than the {MAX_JSON_BYTES} read at most")
    text = decode_utf8(path, path.read_bytes())
    _check_depth(path, text)
    try:
        document = json.loads(
            text,
            object_pairs_hook=PairsDict.from_pairs,
            parse_int=_parse_int,
            parse_float=_parse_float,
            parse_constant=RawNumber,
        )
    except json.JSONDecodeError as exc:
        raise InputError(f"{at_line(path, exc.lineno)}not valid JSON ({exc.msg})") from None
    except RecursionError:
        raise InputError(f"{path}: JSON nested too deeply to read") from None
    if SURROGATE_ESCAPE.search(text) and (code := lone_surrogate(document)) is not None:
        where = text.lower().find(code)  # the escape as written (either case), else the file
        line = text.count("\n", 0, where) + 1 if where >= 0 else None
        raise InputError(f"{at_line(path, line)}{lone_surrogate_message(code)}")
    return document


_KEY_KINDS = {"categories": "category", "categorical_score": "judgement"}
"""What a key of an object under these fields is called in an error (else a ``field``)."""


def _child(field: str, key: object) -> str:
    key = str(key)
    return f"{field}.{key}" if key.isidentifier() else f"{field}[{key!r}]"


def _container(value: Any) -> Any:
    """``value`` if it is an object or array, the parsed value of a string holding a
    Python-literal list or dict, else None."""
    if isinstance(value, dict | list | tuple):
        return value
    if isinstance(value, str) and value:
        head = value[0] if not value[0].isspace() else value.lstrip()[:1]
        if head in ("[", "{"):
            parsed = maybe_literal(value)
            return parsed if isinstance(parsed, dict | list | tuple) else None
    return None


def refuse_duplicate_keys(path: Path, value: Any, field: str, *, kind: str = "field") -> None:
    """:class:`InputError` at the first object in ``value`` (at ``field`` of ``path``) that holds
    a key twice — JSON would keep the last: a group lost, a decision reversed without a word.

    The walk goes into arrays, objects and strings that hold a Python-literal list or dict (the
    reader reads those as such; an earlier ``gpt_strawberry.json`` wrote every field so). The
    error names the key as a ``category`` under ``categories``, a ``judgement`` under
    ``categorical_score``, else a ``field``:
    ``<file>: [0].categorical_score: judgement 'CHESS_#_CHESS PIECES' written twice``.
    """
    todo = [(_container(value), field, kind)]
    while todo:
        value, field, kind = todo.pop()
        if isinstance(value, dict):
            for name in duplicate_keys(value):
                raise InputError(f"{at_field(path, field)}{kind} {name!r} written twice")
            found = [
                (_container(v), _child(field, k), _KEY_KINDS.get(str(k), "field")) for k, v in value.items()
            ]
        else:
            found = [(_container(v), f"{field}[{k}]", "field") for k, v in enumerate(value)]
        todo += reversed([child for child in found if child[0] is not None])  # depth first, file order
