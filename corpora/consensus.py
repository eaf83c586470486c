"""Consensus of several raters: one label per item (and question) by majority vote, one tie
policy, adjudication explicit.

This is the one implementation every room reads its human label per item from: agreement's
``MajorityVote``, annotate's final labels (pull's ``final.csv``), the judges' threshold fit, the
judge audits and every corrected estimate (Balderdash, Wheel of Fortune, ``annotate next`` and
``status``).

The rule, for item *i* (and question) with :math:`n_{ic}` votes for category *c* — the ratings of
``rater_type`` ``human``, one per rater:

1. an adjudicated label (a row of ``rater_type`` ``adjudicator``) wins over the vote:
   ``settled_by`` = ``adjudicated``;
2. else the plurality :math:`\\arg\\max_c n_{ic}` when one category alone has the most votes:
   ``single`` (one rater), ``unanimous`` (two or more, all the same) or ``majority``;
3. else the item is tied (two or more categories share the most votes) and the tie policy
   (:data:`TiePolicy`) decides:

   * ``adjudicate`` (default): no label, ``settled_by`` = ``tie`` — the item goes to a person
     (``annotate adjudicate``); estimators leave it out and count it;
   * ``first``: the tied category first in category order (numeric when every label is a
     number, else as text; :func:`order_categories`) — deterministic: ``tie_first``;
   * ``random``: a tied category drawn uniformly by ``numpy.random.default_rng(seed)``, the tied
     items taken in the order they first appear in the labels — ``tie_random``.

The result is the contract's *final labels* table (:mod:`wordplay_audit.corpora.contract`,
docs/DATA.md): ``item_id`` (``question``), ``label`` (missing where unresolved), ``n_raters``,
``n_votes`` (the votes for ``label``; for a tie, the votes each tied label got) and
``settled_by``. :func:`human_labels` turns either a per-rater labels table or a final labels
table into one label per item with the counts every estimator reports.

Vectorised: the votes become an items × categories count table by one :func:`numpy.bincount`;
the plurality, the tie test and the draws work on that table (no loop over items).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, get_args

import numpy as np
import pandas as pd

from wordplay_audit.corpora.contract import (
    SETTLED_BY,
    SettledBy,
    is_final_labels,
    place,
    validate_final_labels,
    validate_labels,
)
from wordplay_audit.corpora.values import is_number, parse_number
from wordplay_audit.errors import InputError, ParameterError, check_choice

__all__ = [
    "ADJUDICATOR",
    "PEOPLE",
    "TIE_POLICIES",
    "HumanLabels",
    "Settled",
    "TiePolicy",
    "adjudications",
    "consensus",
    "human_labels",
    "order_categories",
    "people_rows",
    "plurality",
    "settle",
    "ties_note",
]

TiePolicy = Literal["adjudicate", "first", "random"]
"""What a tied vote gives: no label (``adjudicate``), the first tied category (``first``) or a
seeded draw among the tied ones (``random``)."""
TIE_POLICIES: tuple[str, ...] = get_args(TiePolicy)
ADJUDICATOR = "adjudicator"
"""The ``rater_type`` of an adjudicator's rows: their label settles the item; they are no vote."""
_VOTERS = ("human", "judge")
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
    """The consensus of every row of an items × categories count table (the module's rule).

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


def _type_mask(column: pd.Series, wanted: Sequence[str]) -> np.ndarray:
    """Rows whose ``rater_type`` is one of ``wanted`` (categoricals read by their codes)."""
    if isinstance(column.dtype, pd.CategoricalDtype):
        names = column.cat.categories.astype(str).str.strip()
        hit = np.append(np.asarray(names.isin(list(wanted))), False)  # code -1 → False
        return hit[column.cat.codes.to_numpy()]
    return column.isin(list(wanted)).to_numpy()


def _text(column: pd.Series) -> pd.Series:
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
class _Coded:
    """The kept rows of a labels table as integer codes (see :func:`consensus`)."""

    group: np.ndarray  # (M,) item (and question) group of each row
    item_of: np.ndarray  # (G,) item code of each group
    question_of: np.ndarray | None  # (G,) question code of each group
    items: np.ndarray  # distinct item ids
    questions: np.ndarray | None  # distinct questions


def _groups(frame: pd.DataFrame) -> _Coded:
    """Group codes of (item, question) in order of first appearance."""
    item, items = pd.factorize(_text(frame["item_id"]), sort=False)
    if "question" not in frame.columns:
        return _Coded(
            item.astype(np.int64), np.arange(len(items)), None, np.asarray(items, dtype=object), None
        )
    question, questions = pd.factorize(_text(frame["question"]), sort=False)
    group, firsts = pd.factorize(item.astype(np.int64) * len(questions) + question, sort=False)
    firsts = np.asarray(firsts, dtype=np.int64)
    return _Coded(
        group.astype(np.int64),
        firsts // max(len(questions), 1),
        firsts % max(len(questions), 1),
        np.asarray(items, dtype=object),
        np.asarray(questions, dtype=object),
    )


def _check_one_each(
    rows: pd.DataFrame,
    frame: pd.DataFrame,
    positions: np.ndarray,
    coded: _Coded,
    is_vote: np.ndarray,
    source: str | None,
) -> None:
    """InputError at a rater's second rating of one item (and question), or an adjudicator's
    second adjudication (a rater may adjudicate an item they rated); ``positions``: the rows'
    positions in ``frame`` (whose place the message names)."""
    rater, raters = pd.factorize(_text(rows["rater"]), sort=False)
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


def _adjudicated(
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
    rows = np.flatnonzero(_type_mask(labels["rater_type"], (ADJUDICATOR,)))
    if len(rows) == 0:
        return pd.Series([], index=pd.Index([], name="item_id", dtype=object), name="label", dtype=object)
    part = labels.iloc[rows]
    item, items = pd.factorize(_text(part["item_id"]), sort=False)
    given = _text(part["label"]).astype(str).to_numpy(dtype=object)
    settled = _adjudicated(given, item.astype(np.int64), len(items), labels, rows, source)
    return pd.Series(settled, index=pd.Index(np.asarray(items, dtype=object), name="item_id"), name="label")


def consensus(
    labels: pd.DataFrame,
    *,
    tie: TiePolicy = "adjudicate",
    seed: int | None = None,
    rater_type: Literal["human", "judge"] | None = "human",
    categories: Sequence[str] | None = None,
    source: str | None = None,
) -> pd.DataFrame:
    """The final labels table of a per-rater labels table (the module's rule).

    Parameters
    ----------
    labels
        Contract labels (``item_id``, ``rater``, ``rater_type``, ``label``; optional
        ``question``: one consensus per item and question). Columns may be categoricals.
    tie, seed
        The tie policy and the seed of ``tie="random"``.
    rater_type
        Whose ratings are votes: ``"human"`` (default), ``"judge"`` or None (both). Rows of
        ``rater_type`` ``adjudicator`` are never votes: their label settles the item.
    categories
        The declared labels in order (the order of ``tie="first"``); default: the labels voted,
        numerically when all are numbers, else as text.

    Returns
    -------
    DataFrame sorted by ``item_id`` (and ``question``): ``item_id``, ``question`` (when
    ``labels`` has it), ``label`` (missing where unresolved), ``n_raters``, ``n_votes``,
    ``settled_by``. Empty (with those columns) when no row is a vote or an adjudication.

    Raises :class:`InputError` naming the row (a table's file line) for bad labels, a rater
    rating one item (and question) twice, or two different adjudicated labels of one item;
    :class:`ParameterError` for a bad option.

    >>> labels = pd.DataFrame({"item_id": ["a", "a", "b", "b", "b"], "rater": ["p", "q", "p", "q", "j"],
    ...                        "rater_type": ["human", "human", "human", "human", "adjudicator"],
    ...                        "label": ["yes", "no", "yes", "no", "no"]})
    >>> consensus(labels)
      item_id label  n_raters  n_votes   settled_by
    0       a  None         2        1          tie
    1       b    no         2        1  adjudicated
    """
    check_choice("tie", tie, TIE_POLICIES)
    if rater_type is not None:
        check_choice("rater_type", rater_type, _VOTERS)
    declared = None if categories is None else [str(c).strip() for c in categories]
    frame = validate_labels(labels, source=source, allowed=declared)
    source = source or frame.attrs.get("source")
    voters = _VOTERS if rater_type is None else (rater_type,)
    vote = _type_mask(frame["rater_type"], voters)
    adjudication = _type_mask(frame["rater_type"], (ADJUDICATOR,))
    kept = np.flatnonzero(vote | adjudication)
    has_question = "question" in frame.columns
    if len(kept) == 0:
        return _empty_final(has_question)
    rows = frame if len(kept) == len(frame) else frame.iloc[kept]
    coded = _groups(rows)
    is_vote = vote[kept]
    _check_one_each(rows, frame, kept, coded, is_vote, source)
    n_groups = len(coded.item_of)
    label_codes, seen = pd.factorize(_text(rows["label"]), sort=False)
    seen = np.asarray(seen, dtype=object)
    names = declared if declared is not None else order_categories(seen[np.unique(label_codes[is_vote])])
    column = pd.Index(names).get_indexer(seen)[label_codes]
    n_cat = len(names)
    counts = np.bincount(coded.group[is_vote] * n_cat + column[is_vote], minlength=n_groups * n_cat).reshape(
        n_groups, n_cat
    )
    adjudicated = _adjudicated(
        seen[label_codes[~is_vote]], coded.group[~is_vote], n_groups, frame, kept[~is_vote], source
    )
    settled = settle(counts, names, tie=tie, seed=seed, adjudicated=adjudicated)
    return _final_frame(coded, settled)


def _empty_final(has_question: bool) -> pd.DataFrame:
    columns = [
        "item_id",
        *(["question"] if has_question else []),
        "label",
        "n_raters",
        "n_votes",
        "settled_by",
    ]
    out = pd.DataFrame({c: pd.Series(dtype=np.int64 if c.startswith("n_") else object) for c in columns})
    out.attrs["validated"] = "final_labels"
    return out


def _final_frame(coded: _Coded, settled: Settled) -> pd.DataFrame:
    """The final labels table of the groups, sorted by item id (and question)."""
    item_ids = coded.items[coded.item_of]
    data = {"item_id": item_ids}
    keys = [pd.Index(coded.items).argsort(kind="stable").argsort(kind="stable")[coded.item_of]]
    if coded.questions is not None:
        data["question"] = coded.questions[coded.question_of]
        q_rank = pd.Index(coded.questions).argsort(kind="stable").argsort(kind="stable")
        keys.insert(0, q_rank[coded.question_of])  # lexsort: the last key is the primary one
    order = np.lexsort(keys)
    data.update(
        label=settled.label,
        n_raters=settled.n_raters,
        n_votes=settled.n_votes,
        settled_by=settled.settled_by,
    )
    out = pd.DataFrame({k: np.asarray(v)[order] for k, v in data.items()})
    out["label"] = pd.Series(np.asarray(settled.label, dtype=object)[order], dtype=object)
    out.attrs["validated"] = "final_labels"
    return out


PEOPLE = ("human", ADJUDICATOR)
"""The ``rater_type`` of people's rows: raters' votes and adjudications."""


def people_rows(labels: pd.DataFrame) -> tuple[pd.DataFrame, int]:
    """People's rows of a validated labels table, and how many rows it holds besides (a judge's):
    all of a final labels table; the rows of ``rater_type`` ``human`` and ``adjudicator`` of a
    per-rater one (the index, a file's lines, kept)."""
    if is_final_labels(labels):
        return labels, 0
    keep = _type_mask(labels["rater_type"], PEOPLE)
    rows = labels if keep.all() else labels[keep]
    return rows, int(len(labels) - len(rows))


def ties_note(ties: int) -> str | None:
    """The line a command prints when it left tied items out (None when there is none).

    >>> ties_note(3)
    '3 tied item(s) left out (no majority, not adjudicated): adjudicate them (annotate adjudicate)'
    """
    if not ties:
        return None
    return (
        f"{ties} tied item(s) left out (no majority, not adjudicated): adjudicate them (annotate adjudicate)"
    )


@dataclass(frozen=True)
class HumanLabels:
    """People's label per item on one question, from :func:`human_labels`.

    ``final``: the final labels rows (one per item; unresolved ones included). ``labels``: the
    resolved labels (Series by ``item_id``); ``tied``: the unresolved items; ``counts``: what
    every estimator reports — ``items``, ``labelled`` (resolved), ``ties`` (unresolved, left
    out), ``adjudicated`` and ``ties_broken`` (settled by the tie policy ``first``/``random``).
    """

    final: pd.DataFrame

    @property
    def labels(self) -> pd.Series:
        resolved = self.final[self.final["label"].notna()]
        return pd.Series(
            resolved["label"].to_numpy(dtype=object), index=pd.Index(resolved["item_id"], name="item_id"),
            name="label", dtype=object,
        )  # fmt: skip

    @property
    def tied(self) -> pd.Index:
        return pd.Index(self.final.loc[self.final["label"].isna(), "item_id"], name="item_id")

    @property
    def counts(self) -> dict[str, int]:
        settled = self.final["settled_by"]
        return {
            "items": int(len(self.final)),
            "labelled": int(self.final["label"].notna().sum()),
            "ties": int(self.final["label"].isna().sum()),
            "adjudicated": int((settled == SettledBy.ADJUDICATED.value).sum()),
            "ties_broken": int(settled.isin([SettledBy.TIE_FIRST.value, SettledBy.TIE_RANDOM.value]).sum()),
        }

    def note(self) -> str | None:
        """:func:`ties_note` of the ties left out."""
        return ties_note(self.counts["ties"])


def human_labels(
    labels: pd.DataFrame,
    *,
    question: str | None = None,
    tie: TiePolicy = "adjudicate",
    seed: int | None = None,
    source: str | None = None,
) -> HumanLabels:
    """People's label per item from a per-rater labels table or a final labels table.

    A per-rater table (:func:`~wordplay_audit.corpora.contract.validate_labels`) is settled by
    :func:`consensus` (votes of ``rater_type`` ``human``, adjudications of ``adjudicator``; judge
    rows do not count); a final labels table (:func:`~.contract.is_final_labels`, e.g. pull's
    ``final.csv``) is taken as it is (``tie`` and ``seed`` do not apply: it was settled).

    ``question``: keep the rows answering it (a table without a ``question`` column answers one
    question, whatever its name); None: the table must answer one question only (else
    :class:`InputError` listing them).
    """
    if is_final_labels(labels):
        final = labels
        if labels.attrs.get("validated") != "final_labels":
            final = validate_final_labels(labels, source=source)
        return HumanLabels(_one_question(final, question, source))
    rows = labels
    if question is not None and "question" in labels.columns:
        asked = _text(labels["question"]).astype(str)
        rows = labels[(asked == question).to_numpy()].drop(columns="question")
        rows.attrs = dict(labels.attrs)
        final = consensus(rows, tie=tie, seed=seed, source=source)
        final.insert(1, "question", question)
        return HumanLabels(final)
    return HumanLabels(_one_question(consensus(rows, tie=tie, seed=seed, source=source), question, source))


def _one_question(final: pd.DataFrame, question: str | None, source: str | None) -> pd.DataFrame:
    """The rows of ``final`` answering ``question``; with None, all (the table must hold one)."""
    if "question" not in final.columns:
        return final
    if question is not None:
        return final[final["question"].astype(str) == question].reset_index(drop=True)
    asked = sorted(set(final["question"].astype(str)) - {""})
    if len(asked) > 1:
        where = f"{source or final.attrs.get('source') or 'labels'}: "
        raise InputError(
            f"{where}question: holds answers to {len(asked)} questions ({', '.join(asked)}); expected one "
            "(choose one with question=)"
        )
    return final
