"""Safe, tolerant parsing of the Python literals that game files store in strings.

Nothing here calls ``eval``. :func:`parse_literal` builds only literals (as
:func:`ast.literal_eval` does) and keeps a dict's duplicated keys visible
(:class:`PairsDict`) instead of letting the last one win; :func:`parse_groups_tolerant` recovers
a list of word groups from a literal that the strict parser rejects (unbalanced quotes, a
missing bracket, a stray letter before a quote), as the human players' raw answers of the
Connections study contain.
"""

from __future__ import annotations

import ast
import re
import unicodedata
from collections import Counter
from typing import Any

from wordplay_audit.corpora.values import parse_number

_STRAY_PREFIX = re.compile(r"^[Il](?=['\"])")  # "I'MARK'" / "l' CANDLE'": a typed I or l before a quote
_QUOTES = "'\"`"
_MAX_LITERAL_CHARS = 100_000
"""Longer strings are not parsed as literals (a parser trap, and no game field is that long)."""


def nfc(text: object) -> str:
    """``text`` as a string in Unicode normal form NFC (``"é"`` typed as e + combining accent
    and as one code point compare equal afterwards).

    >>> nfc("Encyclope\\u0301dic") == nfc("Encyclop\\u00e9dic")
    True
    """
    return unicodedata.normalize("NFC", str(text))


class PairsDict(dict):
    """A dict read from a file that remembers keys written more than once.

    ``duplicate_keys`` lists them (empty when none) and ``pairs`` keeps every (key, value) in
    file order, so a reader can count or refuse the duplicates instead of keeping the last.
    Keys are NFC-normalised, so two spellings of one key count as a duplicate.
    """

    duplicate_keys: tuple[str, ...] = ()
    pairs: tuple[tuple[Any, Any], ...] = ()

    @classmethod
    def from_pairs(cls, pairs: list[tuple[Any, Any]]) -> PairsDict:
        pairs = [(nfc(k) if isinstance(k, str) else k, v) for k, v in pairs]
        obj = cls(pairs)
        if len(obj) != len(pairs):
            counts = Counter(k for k, _ in pairs)
            obj.duplicate_keys = tuple(str(k) for k, n in counts.items() if n > 1)
            obj.pairs = tuple(pairs)
        return obj


def duplicate_keys(value: Any) -> tuple[str, ...]:
    """The keys written more than once in ``value`` (a :class:`PairsDict`); ``()`` otherwise."""
    return getattr(value, "duplicate_keys", ())


def _convert(node: ast.AST) -> Any:
    """The value of a literal node (constants, lists, tuples, sets, dicts, signed numbers)."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.List):
        return [_convert(e) for e in node.elts]
    if isinstance(node, ast.Tuple):
        return tuple(_convert(e) for e in node.elts)
    if isinstance(node, ast.Set):
        return {_convert(e) for e in node.elts}
    if isinstance(node, ast.Dict) and None not in node.keys:
        return PairsDict.from_pairs(
            [(_convert(k), _convert(v)) for k, v in zip(node.keys, node.values, strict=True)]
        )
    if (
        isinstance(node, ast.UnaryOp)
        and isinstance(node.op, ast.UAdd | ast.USub)
        and isinstance(node.operand, ast.Constant)
        and isinstance(node.operand.value, int | float)
        and not isinstance(node.operand.value, bool)
    ):
        value = node.operand.value
        return -value if isinstance(node.op, ast.USub) else value
    raise ValueError(f"not a literal: {type(node).__name__}")


def parse_literal(text: str) -> Any:
    """Parse a Python literal; raise ValueError with a short reason when it is not one.

    Dicts come back as :class:`PairsDict` (duplicated keys kept visible).

    >>> parse_literal("{'a': 1, 'a': 2}").duplicate_keys
    ('a',)
    """
    if len(text) > _MAX_LITERAL_CHARS:
        raise ValueError(f"not a Python literal (longer than {_MAX_LITERAL_CHARS} characters)")
    try:
        return _convert(ast.parse(text.strip(), mode="eval").body)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError) as exc:
        raise ValueError(f"not a Python literal ({type(exc).__name__})") from None


def maybe_literal(value: Any) -> Any:
    """Return ``value`` parsed when it is a string that holds a list/dict/bool/number literal.

    Plain text (that is not such a literal) comes back unchanged.

    >>> maybe_literal("False"), maybe_literal("3"), maybe_literal("['A', 'B']"), maybe_literal("x")
    (False, 3, ['A', 'B'], 'x')
    """
    if not isinstance(value, str):
        return value
    text = value.strip()
    if text in ("True", "False", "None") or (text[:1] in "[{(" and text) or _is_decimal(text):
        try:
            return parse_literal(text)
        except ValueError:
            return value
    return value


def _is_decimal(text: str) -> bool:
    """A plain decimal number (``3``, ``-2.5``), the only number strings read as literals."""
    return parse_number(text) is not None and text.lstrip("-").replace(".", "", 1).isdigit()


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
