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
   (:data:`~wordplay_audit.corpora.votes.TiePolicy`) decides:

   * ``adjudicate`` (default): no label, ``settled_by`` = ``tie`` — the item goes to a person
     (``annotate adjudicate``); estimators leave it out and count it;
   * ``first``: the tied category first in category order (numeric when every label is a
     number, else as text; :func:`~wordplay_audit.corpora.votes.order_categories`) —
     deterministic: ``tie_first``;
   * ``random``: a tied category drawn uniformly by ``numpy.random.default_rng(seed)``, the tied
     items taken in the order they first appear in the labels — ``tie_random``.

The result is the contract's *final labels* table (:mod:`wordplay_audit.corpora.final_labels`,
docs/DATA.md): ``item_id`` (``question``), ``label`` (missing where unresolved), ``n_raters``,
``n_votes`` (the votes for ``label``; for a tie, the votes each tied label got) and
``settled_by``. :func:`human_labels` turns either a per-rater labels table or a final labels
table into one label per item with the counts every estimator reports.

Vectorised: the votes become an items × categories count table by one :func:`numpy.bincount`;
the plurality, the tie test and the draws work on that table (no loop over items). The parts:
:mod:`~wordplay_audit.corpora.ratings` reads the labels table (votes, adjudications, one rating
per rater), :mod:`~wordplay_audit.corpora.votes` settles the count table (plurality, tie
policy, adjudication first); this module builds the final labels table from them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
import pandas as pd

from wordplay_audit.corpora.contract import is_final_labels, validate_labels
from wordplay_audit.corpora.final_labels import SettledBy, validate_final_labels
from wordplay_audit.corpora.ratings import (
    ADJUDICATOR,
    VOTERS,
    Coded,
    check_one_each,
    coded_groups,
    group_adjudications,
    key_text,
    type_mask,
)
from wordplay_audit.corpora.votes import TIE_POLICIES, Settled, TiePolicy, order_categories, settle
from wordplay_audit.errors import InputError, check_choice

__all__ = ["PEOPLE", "HumanLabels", "consensus", "human_labels", "people_rows", "ties_note"]


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
        check_choice("rater_type", rater_type, VOTERS)
    declared = None if categories is None else [str(c).strip() for c in categories]
    frame = validate_labels(labels, source=source, allowed=declared)
    source = source or frame.attrs.get("source")
    voters = VOTERS if rater_type is None else (rater_type,)
    vote = type_mask(frame["rater_type"], voters)
    adjudication = type_mask(frame["rater_type"], (ADJUDICATOR,))
    kept = np.flatnonzero(vote | adjudication)
    has_question = "question" in frame.columns
    if len(kept) == 0:
        return _empty_final(has_question)
    rows = frame if len(kept) == len(frame) else frame.iloc[kept]
    coded = coded_groups(rows)
    is_vote = vote[kept]
    check_one_each(rows, frame, kept, coded, is_vote, source)
    n_groups = len(coded.item_of)
    label_codes, seen = pd.factorize(key_text(rows["label"]), sort=False)
    seen = np.asarray(seen, dtype=object)
    names = declared if declared is not None else order_categories(seen[np.unique(label_codes[is_vote])])
    column = pd.Index(names).get_indexer(seen)[label_codes]
    n_cat = len(names)
    counts = np.bincount(coded.group[is_vote] * n_cat + column[is_vote], minlength=n_groups * n_cat).reshape(
        n_groups, n_cat
    )
    adjudicated = group_adjudications(
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


def _final_frame(coded: Coded, settled: Settled) -> pd.DataFrame:
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
    keep = type_mask(labels["rater_type"], PEOPLE)
    rows = labels if keep.all() else labels[keep]
    return rows, int(len(labels) - len(rows))


def ties_note(ties: int) -> str | None:
    """The line a command prints when it left tied items out (None when there is none).

    >>> ties_note(3)
    '3 tied item(s) left out (no majority, not adjudicated): adjudicate them (`wa.adjudicate`, `annotate adjudicate`)'
    """
    if not ties:
        return None
    return f"{ties} tied item(s) left out (no majority, not adjudicated): adjudicate them (`wa.adjudicate`, `annotate adjudicate`)"


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
        asked = key_text(labels["question"]).astype(str)
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
