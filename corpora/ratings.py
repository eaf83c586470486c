"""A per-rater labels table as the consensus reads it (:mod:`wordplay_audit.corpora.consensus`):
which rows are votes and which adjudications (by ``rater_type``), the (item, question) groups
as integer codes, the check that a rater rated each item (and question) once, and each item's
adjudicated label (two different adjudications of one item are refused).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from wordplay_audit.corpora.contract import place
from wordplay_audit.errors import InputError

__all__ = [
    "ADJUDICATOR",
    "VOTERS",
    "Coded",
    "adjudications",
    "check_one_each",
    "coded_groups",
    "group_adjudications",
    "key_text",
    "type_mask",
]

ADJUDICATOR = "adjudicator"
"""The ``rater_type`` of an adjudicator's rows: their label settles the item; they are no vote."""
VOTERS = ("human", "judge")
"""The ``rater_type`` of rows that may be votes (``consensus(rater_type=)`` picks one or both)."""


def type_mask(column: pd.Series, wanted: Sequence[str]) -> np.ndarray:
    """Rows whose ``rater_type`` is one of ``wanted`` (categoricals read by their codes)."""
    if isinstance(column.dtype, pd.CategoricalDtype):
        names = column.cat.categories.astype(str).str.strip()
        hit = np.append(np.asarray(names.isin(list(wanted))), False)  # code -1 → False
        return hit[column.cat.codes.to_numpy()]
    return column.isin(list(wanted)).to_numpy()


def key_text(column: pd.Series) -> pd.Series:
    """A key column as stripped text, empty where missing (categoricals kept as they are)."""
    if isinstance(column.dtype, pd.CategoricalDtype):
        return column
    return column.fillna("").astype(str).str.strip()


def _first_repeat(keys: np.ndarray, size: int) -> int | None:
    """Position of the first key seen before (keys in ``0..size-1``), or None."""
    if len(keys) == 0:
        return None
    if size <= max(4 * len(keys), 1 << 20):
        if np.bincount(keys, minlength=size).max() <= 1:
            return None
    elif len(np.unique(keys)) == len(keys):
        return None
    return int(pd.Series(keys).duplicated().to_numpy().argmax())


@dataclass
class Coded:
    """The kept rows of a labels table as integer codes (see
    :func:`~wordplay_audit.corpora.consensus.consensus`)."""

    group: np.ndarray  # (M,) item (and question) group of each row
    item_of: np.ndarray  # (G,) item code of each group
    question_of: np.ndarray | None  # (G,) question code of each group
    items: np.ndarray  # distinct item ids
    questions: np.ndarray | None  # distinct questions


def coded_groups(frame: pd.DataFrame) -> Coded:
    """Group codes of (item, question) in order of first appearance."""
    item, items = pd.factorize(key_text(frame["item_id"]), sort=False)
    if "question" not in frame.columns:
        return Coded(
            item.astype(np.int64), np.arange(len(items)), None, np.asarray(items, dtype=object), None
        )
    question, questions = pd.factorize(key_text(frame["question"]), sort=False)
    group, firsts = pd.factorize(item.astype(np.int64) * len(questions) + question, sort=False)
    firsts = np.asarray(firsts, dtype=np.int64)
    return Coded(
        group.astype(np.int64),
        firsts // max(len(questions), 1),
        firsts % max(len(questions), 1),
        np.asarray(items, dtype=object),
        np.asarray(questions, dtype=object),
    )


def check_one_each(
    rows: pd.DataFrame,
    frame: pd.DataFrame,
    positions: np.ndarray,
    coded: Coded,
    is_vote: np.ndarray,
    source: str | None,
) -> None:
    """InputError at a rater's second rating of one item (and question), or an adjudicator's
    second adjudication (a rater may adjudicate an item they rated); ``positions``: the rows'
    positions in ``frame`` (whose place the message names)."""
    rater, raters = pd.factorize(key_text(rows["rater"]), sort=False)
    n_groups, roles = len(coded.item_of), 2 * max(len(raters), 1)
    dup = _first_repeat(coded.group * roles + 2 * rater + (~is_vote).astype(np.int64), n_groups * roles)
    if dup is None:
        return
    g = coded.group[dup]
    item = coded.items[coded.item_of[g]]
    question = "" if coded.questions is None else str(coded.questions[coded.question_of[g]])
    where = place(frame, int(positions[dup]), source)
    if question:
        raise InputError(
            f"{where}rater {raters[rater[dup]]!r} rated item {item!r} twice on question {question!r} "
            "(keep one rating per rater, item and question)"
        )
    raise InputError(
        f"{where}rater {raters[rater[dup]]!r} rated item {item!r} twice (keep one rating per rater and "
        "item; filter by 'question' first if an item was asked several questions)"
    )


def group_adjudications(
    labels: np.ndarray, group: np.ndarray, n_groups: int, frame: pd.DataFrame, positions: np.ndarray, source
) -> np.ndarray:
    """Per group, the adjudicated label (None where none); InputError where two adjudications
    of one item differ."""
    out = np.full(n_groups, None, dtype=object)
    if len(group) == 0:
        return out
    order = np.argsort(group, kind="stable")
    g, lab = group[order], labels[order]
    same_group = g[1:] == g[:-1]
    clash = same_group & (lab[1:] != lab[:-1])
    if clash.any():
        k = int(np.argmax(clash)) + 1
        first = order[np.flatnonzero(g == g[k])[0]]
        raise InputError(
            f"{place(frame, int(positions[order[k]]), source)}adjudicated as {lab[k]!r}, and as "
            f"{labels[first]!r} on an earlier row; expected one adjudicated label per item"
        )
    out[g] = lab
    return out


def adjudications(labels: pd.DataFrame, *, source: str | None = None) -> pd.Series:
    """The adjudicated label of each item (Series by ``item_id``; empty when there is none) in a
    validated per-rater labels table: its rows of ``rater_type`` ``adjudicator``. InputError
    where two adjudications of one item differ."""
    rows = np.flatnonzero(type_mask(labels["rater_type"], (ADJUDICATOR,)))
    if len(rows) == 0:
        return pd.Series([], index=pd.Index([], name="item_id", dtype=object), name="label", dtype=object)
    part = labels.iloc[rows]
    item, items = pd.factorize(key_text(part["item_id"]), sort=False)
    given = key_text(part["label"]).astype(str).to_numpy(dtype=object)
    settled = group_adjudications(given, item.astype(np.int64), len(items), labels, rows, source)
    return pd.Series(settled, index=pd.Index(np.asarray(items, dtype=object), name="item_id"), name="label")
