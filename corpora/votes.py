"""Votes settled per item: the core of the one consensus (:mod:`wordplay_audit.corpora.consensus`,
whose module docstring states the rule) on an items × categories count table.

:func:`plurality` finds each row's most-voted category, whether it is tied and, under the tie
policy ``random``, a seeded draw among the tied ones; :func:`settle` turns that into the label,
counts and ``settled_by`` of every row, an adjudicated label winning over the vote.
:func:`order_categories` is the one category order (``tie="first"`` takes the first tied
category in it). :class:`~wordplay_audit.analysis.agreement.MajorityVote` calls :func:`settle`
on its own count table. Vectorised: no loop over items.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, get_args

import numpy as np
import pandas as pd

from wordplay_audit.corpora.final_labels import SETTLED_BY, SettledBy
from wordplay_audit.corpora.values import is_number, parse_number
from wordplay_audit.errors import ParameterError, check_choice

__all__ = ["TIE_POLICIES", "Settled", "TiePolicy", "order_categories", "plurality", "settle"]

TiePolicy = Literal["adjudicate", "first", "random"]
"""What a tied vote gives: no label (``adjudicate``), the first tied category (``first``) or a
seeded draw among the tied ones (``random``)."""
TIE_POLICIES: tuple[str, ...] = get_args(TiePolicy)
_BROKEN = {"first": SettledBy.TIE_FIRST.value, "random": SettledBy.TIE_RANDOM.value}
_SETTLED_NAMES = np.asarray(SETTLED_BY, dtype=object)
_CODE = {name: k for k, name in enumerate(SETTLED_BY)}


def order_categories(values: Sequence[str]) -> list[str]:
    """Sort category names: numerically when every name is a number
    (:func:`wordplay_audit.corpora.values.is_number`), else as text.

    >>> order_categories(["10", "9", "1.5"]), order_categories(["b", "a", "1"])
    (['1.5', '9', '10'], ['1', 'a', 'b'])
    """
    unique = sorted({str(v) for v in values})
    if unique and all(is_number(v) for v in unique):
        return sorted(unique, key=parse_number)
    return unique


def plurality(
    counts: np.ndarray, tie: TiePolicy = "adjudicate", seed: int | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(winner, top, tied)`` per row of an items × categories count table.

    ``winner`` is the code of the category with the most votes (for a tie: the first tied
    category, or under ``tie="random"`` one drawn uniformly among the tied, rows in order);
    ``top`` the most votes; ``tied`` whether two or more categories share ``top`` (a row without
    votes is not tied: :func:`settle` leaves it unresolved).

    >>> plurality(np.array([[2, 1], [1, 1], [0, 3]]))
    (array([0, 0, 1]), array([2, 1, 3]), array([False,  True, False]))
    """
    if counts.shape[1] == 0:  # no category: no vote
        zeros = np.zeros(len(counts), dtype=np.int64)
        return zeros, zeros, np.zeros(len(counts), dtype=bool)
    top = counts.max(axis=1)
    at_top = counts == top[:, None]
    n_top = at_top.sum(axis=1)
    is_tie = (n_top > 1) & (top > 0)
    winner = at_top.argmax(axis=1)  # first category (in category order) reaching the top count
    if tie == "random" and is_tie.any():
        rng = np.random.default_rng(seed)
        tied_rows = np.flatnonzero(is_tie)
        # pick the k-th tied category, k uniform in 0..n_top-1
        pick = rng.integers(0, n_top[tied_rows])
        rank = np.cumsum(at_top[tied_rows], axis=1) - 1
        winner[tied_rows] = np.argmax(at_top[tied_rows] & (rank == pick[:, None]), axis=1)
    return winner, top, is_tie


@dataclass(frozen=True)
class Settled:
    """Per item: ``label`` (object, None where unresolved), ``n_raters``, ``n_votes`` (votes for
    ``label``; for a tie the top count), ``settled_by`` (object), ``top`` (the most votes any
    label got) and ``tie`` (the top count was shared, whatever the policy and the adjudication)."""

    label: np.ndarray
    n_raters: np.ndarray
    n_votes: np.ndarray
    settled_by: np.ndarray
    top: np.ndarray
    tie: np.ndarray


def settle(
    counts: np.ndarray,
    categories: Sequence[str],
    *,
    tie: TiePolicy = "adjudicate",
    seed: int | None = None,
    adjudicated: np.ndarray | None = None,
) -> Settled:
    """The consensus of every row of an items × categories count table (the rule of
    :mod:`~wordplay_audit.corpora.consensus`).

    ``categories`` name the columns (their order is the order ``tie="first"`` uses);
    ``adjudicated`` (object, one per row, None where there is none) wins over the vote. A row
    without votes and without an adjudication is unresolved (``tie``).
    """
    check_choice("tie", tie, TIE_POLICIES)
    counts = np.asarray(counts)
    names = np.asarray(categories, dtype=object)
    if counts.ndim != 2 or counts.shape[1] != len(names):
        raise ParameterError(
            f"categories: {len(names)} names for a count table of shape {counts.shape}; expected one per column"
        )
    winner, top, is_tie = plurality(counts, tie, seed)
    n_raters = counts.sum(axis=1).astype(np.int64)
    # how each row was settled, as codes into SETTLED_BY (object strings only at the end)
    code = np.where(
        n_raters == 1, _CODE["single"], np.where(top == n_raters, _CODE["unanimous"], _CODE["majority"])
    )
    code = code.astype(np.int8)
    unresolved = n_raters == 0  # no vote (only an adjudication can settle it)
    if is_tie.any():
        code[is_tie] = _CODE[SettledBy.TIE.value if tie == "adjudicate" else _BROKEN[tie]]
        if tie == "adjudicate":
            unresolved = unresolved | is_tie
    code[n_raters == 0] = _CODE[SettledBy.TIE.value]
    label = names[winner] if len(names) else np.full(len(counts), None, dtype=object)
    if unresolved.any():
        label[unresolved] = None  # names[winner] is a new array
    n_votes = top.astype(np.int64)  # a copy: the adjudicated rows change it below
    if adjudicated is not None:
        given = pd.notna(np.asarray(adjudicated, dtype=object))
        if given.any():
            label[given] = adjudicated[given]
            code[given] = _CODE[SettledBy.ADJUDICATED.value]
            position = pd.Index(names).get_indexer(adjudicated[given])
            row_votes = counts[np.flatnonzero(given), np.maximum(position, 0)]
            n_votes[given] = np.where(position >= 0, row_votes, 0)
    settled = _SETTLED_NAMES[code]
    return Settled(label, n_raters, n_votes, settled, top.astype(np.int64), is_tie)
