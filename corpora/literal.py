"""Safe, tolerant parsing of the Python literals that game files store in strings.

Nothing here calls ``eval``. :func:`parse_literal` uses :func:`ast.literal_eval` (which only
builds literals); :func:`parse_groups_tolerant` recovers a list of word groups from a literal that
``literal_eval`` rejects (unbalanced quotes, a missing bracket, a stray letter before a quote), as
the human players' raw answers of the Connections study contain.
"""

from __future__ import annotations

import ast
import re
from typing import Any

_STRAY_PREFIX = re.compile(r"^[Il](?=['\"])")  # "I'MARK'" / "l' CANDLE'": a typed I or l before a quote
_QUOTES = "'\"`"


def parse_literal(text: str) -> Any:
    """Parse a Python literal; raise ValueError with a short reason when it is not one."""
    try:
        return ast.literal_eval(text.strip())
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError) as exc:
        raise ValueError(f"not a Python literal ({type(exc).__name__})") from None


def maybe_literal(value: Any) -> Any:
    """Return ``value`` parsed when it is a string that holds a list/dict/bool/number literal.

    Plain text (that is not such a literal) comes back unchanged.
    """
    if not isinstance(value, str):
        return value
    text = value.strip()
    if text in ("True", "False", "None") or (text[:1] in "[{(" and text) or _is_number(text):
        try:
            return ast.literal_eval(text)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            return value
    return value


def _is_number(text: str) -> bool:
    return bool(re.fullmatch(r"-?\d+(\.\d+)?", text))


def clean_word(token: str) -> str:
    """Strip white space, quotes and a stray ``I``/``l`` typed before an opening quote."""
    token = token.strip()
    token = _STRAY_PREFIX.sub("", token)
    return token.strip().strip(_QUOTES).strip()


def parse_groups_tolerant(text: str) -> list[list[str]]:
    """Recover word groups from a broken list-of-lists literal.

    Any ``[`` or ``]`` ends a group; within a group, commas separate words; quotes, stray
    spaces and a typed ``I``/``l`` before a quote are removed. A token with a quote left inside
    (``JILT' HISS``) is split at it. Empty groups are dropped.

    >>> parse_groups_tolerant("[[' A', 'B], ['C, 'D' E']]")
    [['A', 'B'], ['C', 'D', 'E']]
    """
    groups: list[list[str]] = []
    for chunk in re.split(r"[\[\]]", text):
        words: list[str] = []
        for token in chunk.split(","):
            word = clean_word(token)
            if not word:
                continue
            parts = [clean_word(p) for p in re.split(r"['\"]", word)]
            words.extend(p for p in parts if p)
        if words:
            groups.append(words)
    return groups


def parse_groups(text: str) -> tuple[list[list[str]], bool]:
    """Parse a list of word groups; return (groups, repaired) where ``repaired`` says the strict
    literal failed and :func:`parse_groups_tolerant` was used."""
    try:
        value = parse_literal(text)
    except ValueError:
        return parse_groups_tolerant(text), True
    if isinstance(value, list | tuple) and all(isinstance(g, list | tuple) for g in value):
        return [[str(w).strip() for w in g] for g in value], False
    return parse_groups_tolerant(text), True
