"""Category names that are equal as numbers (``1``, ``1.0``, ``01``).

At a numeric level (ordinal, interval, ratio) a label is a number, so names equal as numbers are
one category: :func:`merge_equal_numbers` merges them before any statistic. At the nominal level
a label is a name and they stay apart; :func:`equal_numbers` lists them so the output can say so.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from wordplay_audit.corpora.values import parse_number

from .tables import RatingTable

__all__ = ["equal_numbers", "merge_equal_numbers"]


def equal_numbers(names: Sequence[object]) -> dict[str, list[str]]:
    """Groups of names equal as numbers, keyed by the name they merge into (the shortest
    spelling, then the first in text order); only groups of two or more.

    >>> equal_numbers(["01", "1", "1.0", "2", "x"])
    {'1': ['01', '1', '1.0']}
    """
    groups: dict[float, list[str]] = {}
    for name in names:
        value = parse_number(name)
        if value is not None:
            groups.setdefault(value, []).append(str(name))
    return {
        min(spellings, key=lambda s: (len(s), s)): sorted(spellings)
        for spellings in groups.values()
        if len(spellings) > 1
    }


def merge_equal_numbers(table: RatingTable) -> tuple[RatingTable, dict[str, list[str]]]:
    """``table`` with categories equal as numbers merged (codes, counts, names), and the groups
    merged (:func:`equal_numbers`); the table itself when there is none."""
    groups = equal_numbers(table.categories)
    if not groups:
        return table, groups
    into = {spelling: target for target, spellings in groups.items() for spelling in spellings}
    targets = [into.get(str(c), str(c)) for c in table.categories]
    names = list(dict.fromkeys(targets))  # first appearance keeps the category order
    code = np.array([names.index(t) for t in targets], dtype=np.int64)
    onehot = np.zeros((len(targets), len(names)), dtype=np.int64)
    onehot[np.arange(len(targets)), code] = 1
    merged = replace(
        table,
        categories=np.asarray(names, dtype=object),
        label=code[table.label],
        counts=table.counts @ onehot,
    )
    return merged, groups
