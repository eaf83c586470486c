"""Readable text for the summaries results print: rounded numbers, intervals, aligned tables,
counts in words. No Python reprs reach the user.

>>> number(0.123456), number(None, "no labels"), number(float("nan"))
('0.123', 'n/a (no labels)', 'n/a')
>>> interval(0.5, 0.4, 0.61)
'0.500 [0.400, 0.610]'
>>> counts({"ties": 3, "adjudicated": 0, "left out": 2})
'ties 3, adjudicated 0, left out 2'
>>> print("\\n".join(aligned([["model", "n"], ["a", 10], ["bb", 7]])))
model   n
a      10
bb      7
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

__all__ = ["aligned", "counts", "frame_lines", "interval", "number", "percent"]


def _missing(value: Any) -> bool:
    if value is None:
        return True
    try:
        return bool(math.isnan(value))
    except TypeError:
        return type(value).__name__ == "NAType"


def number(value: Any, reason: str | None = None, *, digits: int = 3) -> str:
    """``value`` rounded to ``digits`` decimals (whole numbers as they are); ``n/a (reason)``
    where it is missing."""
    if _missing(value):
        return f"n/a ({reason})" if reason else "n/a"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int) or (isinstance(value, float) and value.is_integer() and abs(value) >= 1000):
        return f"{int(value):,}".replace(",", " ") if abs(int(value)) >= 10000 else str(int(value))
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def percent(value: Any, reason: str | None = None, *, digits: int = 1) -> str:
    """A share as a percentage: ``0.875`` → ``87.5 %``."""
    if _missing(value):
        return number(None, reason)
    return f"{100 * float(value):.{digits}f} %"


def interval(value: Any, low: Any, high: Any, reason: str | None = None, *, digits: int = 3) -> str:
    """``value [low, high]``; the value alone with ``(no interval: reason)`` where the bounds
    are missing; ``n/a (reason)`` where the value is."""
    if _missing(value):
        return number(None, reason)
    if _missing(low) or _missing(high):
        why = f" (no interval: {reason})" if reason else " (no interval)"
        return number(value, digits=digits) + why
    return f"{number(value, digits=digits)} [{number(low, digits=digits)}, {number(high, digits=digits)}]"


def counts(values: Mapping[str, Any]) -> str:
    """``name count, name count`` (underscores read as spaces)."""
    return ", ".join(f"{str(k).replace('_', ' ')} {number(v)}" for k, v in values.items())


def counted(values: Mapping[str, Any]) -> str:
    """The line of what a step counted (skipped, left out, repaired): the non-zero counts.

    >>> counted({"broken_lines": 0, "items_without_category": 9})
    'counted: items without category 9'
    >>> counted({"ties": 0})
    'counted: nothing skipped or left out'
    """
    nonzero = {k: v for k, v in values.items() if v}
    return f"counted: {counts(nonzero) or 'nothing skipped or left out'}"


def aligned(rows: Iterable[Sequence[Any]], *, indent: str = "") -> list[str]:
    """Rows as text columns: text left-aligned, numbers right-aligned; the first row is the
    header."""
    rows = [list(row) for row in rows]
    if not rows:
        return []
    cells = [[c if isinstance(c, str) else number(c) for c in row] for row in rows]
    width = len(cells[0])
    numeric = [len(rows) > 1 and all(not isinstance(row[j], str) for row in rows[1:]) for j in range(width)]
    widths = [max(len(row[j]) for row in cells) for j in range(width)]
    out = []
    for row in cells:
        parts = [row[j].rjust(widths[j]) if numeric[j] else row[j].ljust(widths[j]) for j in range(width)]
        out.append(indent + "  ".join(parts).rstrip())
    return out


def frame_lines(
    frame, columns: Sequence[str] | None = None, *, indent: str = "  ", digits: int = 3
) -> list[str]:
    """A DataFrame's ``columns`` as an aligned text table (floats rounded, missing as ``–``)."""
    columns = list(columns) if columns is not None else [str(c) for c in frame.columns]
    rows: list[list[Any]] = [list(columns)]
    for record in frame[columns].itertuples(index=False):
        rows.append(
            ["–" if _missing(v) else (f"{v:.{digits}f}" if isinstance(v, float) else v) for v in record]
        )
    return aligned(rows, indent=indent)
