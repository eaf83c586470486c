"""The one place that turns text and file values into numbers, and checks them.

Every reader and statistic parses numbers through here, so "is this a number", "is it finite",
"is it an integer in range" get the same answer everywhere. Errors are :class:`InputError`
naming the place given by the caller (see :mod:`wordplay_audit.errors` for the convention).
"""

from __future__ import annotations

import math
import re

from wordplay_audit.errors import InputError

_DECIMAL = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")
MAX_INT_DIGITS = 18
"""Integers with more digits than this are refused (beyond int64, and a parser trap)."""


def parse_number(text: object) -> float | None:
    """The finite float written in ``text`` (a plain decimal or exponent form), else None.

    ``nan``, ``inf``, ``1e400`` (overflows to inf), hexadecimal and Python's ``1_000`` are not
    numbers here.

    >>> parse_number(" 2.5 "), parse_number("1e3"), parse_number("nan"), parse_number("1e400")
    (2.5, 1000.0, None, None)
    """
    if isinstance(text, bool):
        return None
    if isinstance(text, int | float):
        value = float(text) if not isinstance(text, int) or abs(text) < 10**MAX_INT_DIGITS else math.inf
        return value if math.isfinite(value) else None
    string = str(text).strip()
    if len(string) > 64 or not _DECIMAL.fullmatch(string):
        return None
    value = float(string)
    return value if math.isfinite(value) else None


def is_number(text: object) -> bool:
    """True when :func:`parse_number` finds a finite number in ``text``.

    >>> is_number("3"), is_number("-0.5"), is_number("x"), is_number("inf")
    (True, True, False, False)
    """
    return parse_number(text) is not None


def check_number(
    value: object,
    where: str,
    *,
    integer: bool = False,
    low: float | None = None,
    high: float | None = None,
    allow_none: bool = False,
    error: type[ValueError] = InputError,
) -> float | int | None:
    """Return ``value`` as a finite number (an ``int`` when ``integer``) within [low, high].

    ``where`` is the place prefix for the message (e.g. ``at_line(path, 7) + "score"``);
    ``error`` the class raised (:class:`~wordplay_audit.errors.ParameterError` for an option).

    >>> check_number("3", "f.json: score", integer=True, low=0, high=4)
    3
    >>> check_number(float("nan"), "f.json: score")
    Traceback (most recent call last):
    ...
    wordplay_audit.errors.InputError: f.json: score: expected a finite number, got nan
    """
    if value is None and allow_none:
        return None
    number = parse_number(value)
    if number is None:
        shown = repr(value) if len(repr(value)) <= 40 else repr(value)[:37] + "..."
        raise error(f"{where}: expected a finite number, got {shown}")
    if integer:
        if number != int(number):
            raise error(f"{where}: expected a whole number, got {value!r}")
        number = int(number)
    if (low is not None and number < low) or (high is not None and number > high):
        raise error(f"{where}: expected a number in [{low}, {high}], got {number}")
    return number


SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
"""An escaped UTF-16 surrogate in JSON text. A pair decodes to one character; a lone one to a
string that is not valid Unicode, which pyarrow and every UTF-8 writer refuse later."""


def lone_surrogate(document: object) -> str | None:
    r"""The first lone surrogate in a key or string of a decoded JSON ``document``, as
    ``\udXXX`` text; None when every string is valid Unicode.

    >>> import json
    >>> lone_surrogate(json.loads('{"a": ["\\ud83d\\ude00"]}')) is None  # a pair: one emoji
    True
    >>> lone_surrogate(json.loads('{"a": ["x\\ud800"]}'))
    '\\ud800'
    """
    stack = [document]
    while stack:
        value = stack.pop()
        if isinstance(value, dict):
            stack.extend(value.keys())
            stack.extend(value.values())
        elif isinstance(value, list | tuple):
            stack.extend(value)
        elif isinstance(value, str):
            try:
                value.encode("utf-8")
            except UnicodeEncodeError as exc:
                return f"\\u{ord(value[exc.start]):04x}"
    return None


def lone_surrogate_message(code: str) -> str:
    """What the readers say of a lone surrogate escape."""
    return f"a string holds a lone surrogate escape ({code}), not valid Unicode"


def surrogate_problem(document: object, text: str, start: int = 0, end: int | None = None) -> str | None:
    """The readers' one-line problem when ``text[start:end]`` (the JSON ``document`` was decoded
    from) holds a surrogate escape that decoded to a lone surrogate; None otherwise. Text without
    such an escape (nearly all) costs one search."""
    found = SURROGATE_ESCAPE.search(text, start, len(text) if end is None else end)
    code = lone_surrogate(document) if found else None
    return None if code is None else lone_surrogate_message(code)
