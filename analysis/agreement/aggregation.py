"""Consensus labels: majority vote with an explicit tie policy (Dawid–Skene is in
:mod:`.dawid_skene`), and the estimator convention both follow.

Both are estimators in the scikit-learn / crowd-kit sense: ``__init__`` only stores the
parameters, ``fit`` checks them and the labels and returns ``self``, results are fitted
attributes with a trailing underscore (``labels_``, ``probas_`` …), ``fit_predict`` and
``fit_predict_proba`` do both at once. :func:`from_crowdkit` turns crowd-kit's
``task``/``worker``/``label`` frame into the contract labels table they take.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from wordplay_audit.corpora.contract import require_columns, validate_labels
from wordplay_audit.corpora.ratings import adjudications
from wordplay_audit.corpora.votes import settle
from wordplay_audit.errors import InputError, ParameterError, check_choice

from ._common import (
    TIE_POLICIES,
    RaterType,
    TiePolicy,
    check_rater_type,
)
from .tables import RatingTable, as_rating_table

__all__ = ["MajorityVote", "NotFittedError", "from_crowdkit", "majority_vote"]


class NotFittedError(ParameterError, AttributeError):
    """A fitted attribute or method was used before ``fit``."""


class _Estimator:
    """Parameters stored by ``__init__``, a readable repr and the ``fit_predict*`` shortcuts."""

    _params: tuple[str, ...] = ()

    def __repr__(self) -> str:
        args = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._params)
        return f"{type(self).__name__}({args})"

    def get_params(self) -> dict[str, Any]:
        """The constructor parameters, as scikit-learn's ``get_params``."""
        return {name: getattr(self, name) for name in self._params}

    def fit(self, labels: pd.DataFrame | RatingTable) -> _Estimator:  # pragma: no cover
        raise NotImplementedError

    def fit_predict(self, labels: pd.DataFrame | RatingTable) -> pd.Series:
        """Fit and return ``labels_`` (Series indexed by ``item_id``)."""
        return self.fit(labels).labels_

    def fit_predict_proba(self, labels: pd.DataFrame | RatingTable) -> pd.DataFrame:
        """Fit and return ``probas_`` (items × categories)."""
        return self.fit(labels).probas_

    def _check_fitted(self) -> None:
        if not hasattr(self, "labels_"):
            raise NotFittedError(f"{type(self).__name__} is not fitted yet; call fit(labels) first")


def from_crowdkit(frame: pd.DataFrame, *, rater_type: RaterType = "human") -> pd.DataFrame:
    """Contract labels from crowd-kit's long frame (``task``, ``worker``, ``label``).

    ``task`` → ``item_id``, ``worker`` → ``rater``, ``label`` → ``label`` (as text), every row
    of ``rater_type``; other columns are kept. So ``DawidSkene().fit(from_crowdkit(df))``
    fits the frame crowd-kit's ``DawidSkene().fit(df)`` takes.

    >>> df = pd.DataFrame({"task": ["t1", "t1"], "worker": ["w1", "w2"], "label": [1, 0]})
    >>> from_crowdkit(df)
      item_id rater rater_type label
    0      t1    w1      human     1
    1      t1    w2      human     0

    Raises :class:`InputError` naming a missing column or the first empty cell (1-based row).
    """
    check_choice("rater_type", rater_type, ("human", "judge"))
    require_columns(frame, ("task", "worker", "label"), "crowd-kit frame")
    core = frame[["task", "worker", "label"]]
    missing = core.isna().any(axis=1).to_numpy()
    if missing.any():
        pos = int(np.flatnonzero(missing)[0])
        column = core.columns[core.iloc[pos].isna().to_numpy()][0]
        raise InputError(f"crowd-kit frame row {pos + 1}: column {column!r} is empty")
    out = pd.DataFrame(
        {
            "item_id": core["task"].astype(str).to_numpy(),
            "rater": core["worker"].astype(str).to_numpy(),
            "rater_type": rater_type,
            "label": core["label"].astype(str).to_numpy(),
        },
        index=frame.index,
    )
    extra = [c for c in frame.columns if c not in ("task", "worker", "label", *out.columns)]
    return pd.concat([out, frame[extra]], axis=1) if extra else out


class MajorityVote(_Estimator):
    """Majority (plurality) label of every item, with an explicit tie policy.

    For item *i* with category counts :math:`n_{ic}` the consensus is
    :math:`\\arg\\max_c n_{ic}`; an item is tied when two or more categories reach the
    maximum. The rule is the toolkit's one consensus, :mod:`wordplay_audit.corpora.consensus`:
    an adjudicated label (rows of ``rater_type`` ``adjudicator`` in a labels table) wins over
    the vote; adjudicators are not votes.

    Attributes after ``fit``: ``labels_`` (Series by item_id, None where unresolved),
    ``probas_`` (items × categories: each category's share of the item's votes, as crowd-kit's
    ``MajorityVote.probas_``), ``ties_`` (bool Series), ``n_ratings_``, ``n_agree_`` (top
    count), ``settled_by_`` (how each label was settled: ``single``, ``unanimous``,
    ``majority``, ``adjudicated``, ``tie``, ``tie_first``, ``tie_random``). :meth:`consensus`
    gives them as one frame sorted by ``item_id``; :meth:`final_labels` as the contract's final
    labels table.

    >>> MajorityVote(tie="first")
    MajorityVote(tie='first', rater_type='human', seed=None, categories=None)

    Reference: the plurality rule as used by crowd-kit's ``MajorityVote``; ties handled
    explicitly instead of by arbitrary order.

    Parameters
    ----------
    tie
        ``"adjudicate"`` (default): a tied item gets label None and goes to a person;
        ``"first"``: the tied category that comes first in category order (numeric when every
        label is a number, else alphabetical) wins — deterministic;
        ``"random"``: a tied category drawn with ``numpy.random.default_rng(seed)``.
    rater_type
        Only ratings of this type count (``"human"`` by default); None counts all ratings.
    seed, categories
        Seed for ``tie="random"``; the declared categories (order).
    """

    _params = ("tie", "rater_type", "seed", "categories")

    def __init__(
        self,
        tie: TiePolicy = "adjudicate",
        *,
        rater_type: RaterType | None = "human",
        seed: int | None = None,
        categories: list[str] | tuple[str, ...] | None = None,
    ) -> None:
        self.tie = tie
        self.rater_type = rater_type
        self.seed = seed
        self.categories = categories

    def fit(self, labels: pd.DataFrame | RatingTable) -> MajorityVote:
        """Count the votes of a labels table (or a prepared :class:`RatingTable`); returns
        ``self``. Raises :class:`InputError` for bad labels, ParameterError for bad options."""
        check_choice("tie", self.tie, TIE_POLICIES)
        if isinstance(labels, pd.DataFrame) and not isinstance(
            labels.get("rater_type", pd.Series()).dtype, pd.CategoricalDtype
        ):
            labels = validate_labels(labels)  # once, stripped, for the rating table and the adjudications
        table = as_rating_table(
            labels, categories=self.categories, rater_type=check_rater_type(self.rater_type)
        )
        counts = table.counts
        items = pd.Index(np.asarray(table.item_ids, dtype=object), name="item_id")
        adjudicated = None
        if isinstance(labels, pd.DataFrame):
            given = adjudications(labels)
            if len(given):
                adjudicated = given.reindex(items).astype(object)
                adjudicated = adjudicated.where(adjudicated.notna(), None).to_numpy(dtype=object)
        settled = settle(counts, table.categories, tie=self.tie, seed=self.seed, adjudicated=adjudicated)
        n_ratings = settled.n_raters
        self.labels_ = pd.Series(settled.label, index=items, name="label", dtype=object)
        self.probas_ = pd.DataFrame(
            counts / n_ratings[:, None], index=items, columns=pd.Index(table.categories, name="label")
        )
        self.ties_ = pd.Series(settled.tie, index=items, name="tie")
        self.n_ratings_ = pd.Series(n_ratings, index=items, name="n_ratings")
        self.n_agree_ = pd.Series(settled.top, index=items, name="n_agree")
        self.settled_by_ = pd.Series(settled.settled_by, index=items, name="settled_by", dtype=object)
        self._n_votes = settled.n_votes
        return self

    def consensus(self) -> pd.DataFrame:
        """One row per item, sorted by ``item_id``: ``item_id``, ``label``, ``n_ratings``,
        ``n_agree`` (top count), ``tie`` (the top count was shared, whatever the policy)."""
        self._check_fitted()
        frame = pd.DataFrame(
            {
                "item_id": self.labels_.index.to_numpy(dtype=object),
                "label": pd.Series(self.labels_.to_numpy(dtype=object), dtype=object),
                "n_ratings": self.n_ratings_.to_numpy(),
                "n_agree": self.n_agree_.to_numpy(),
                "tie": self.ties_.to_numpy(),
            }
        )
        return frame.sort_values("item_id", kind="stable").reset_index(drop=True)

    def final_labels(self) -> pd.DataFrame:
        """The contract's final labels table of the rated items, sorted by ``item_id``:
        ``item_id``, ``label`` (None where unresolved), ``n_raters``, ``n_votes`` (votes for the
        label), ``settled_by`` (see docs/DATA.md)."""
        self._check_fitted()
        frame = pd.DataFrame(
            {
                "item_id": self.labels_.index.to_numpy(dtype=object),
                "label": pd.Series(self.labels_.to_numpy(dtype=object), dtype=object),
                "n_raters": self.n_ratings_.to_numpy(),
                "n_votes": self._n_votes,
                "settled_by": self.settled_by_.to_numpy(dtype=object),
            }
        )
        out = frame.sort_values("item_id", kind="stable").reset_index(drop=True)
        out.attrs["validated"] = "final_labels"
        return out


def majority_vote(
    labels: pd.DataFrame | RatingTable,
    *,
    tie: TiePolicy = "adjudicate",
    rater_type: RaterType | None = "human",
    seed: int | None = None,
) -> pd.DataFrame:
    """``MajorityVote(tie, rater_type=, seed=).fit(labels).consensus()``: one row per item
    (sorted by ``item_id``) with ``item_id``, ``label``, ``n_ratings``, ``n_agree``, ``tie``.
    See :class:`MajorityVote` for the rule and the tie policies."""
    return MajorityVote(tie, rater_type=rater_type, seed=seed).fit(labels).consensus()
