"""Skill-weighted majority vote: each rater's vote counts with a weight (its *skill*), and the
rater accuracy against a set of labels that the skill-based aggregators learn skills from
(:mod:`.wawa`, :mod:`.zero_based_skill`, :mod:`.gold_majority_vote`). An estimator as
:mod:`.aggregation` describes.

For item *i* rated by raters :math:`R_i` with labels :math:`y_{ir}` and skills :math:`w_r`,

.. math:: p_{ik} = \\frac{\\sum_{r \\in R_i} w_r [y_{ir} = k]}{\\sum_{r \\in R_i} w_r},

the label is :math:`\\arg\\max_k p_{ik}`, a tie going to the category that comes first in
category order (numeric when every label is a number, else alphabetical). crowd-kit's
``MajorityVote`` takes the first column of its count table, whose order follows the data, so on a
tied item the two can differ; untied items agree. An item whose raters all have skill 0 has no
label (None) and nan shares.

Reference: crowd-kit's ``MajorityVote`` with ``skills`` (the weighted plurality).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from wordplay_audit.errors import InputError, ParameterError

from ._common import RaterType, check_rater_type
from .aggregation import _Estimator
from .tables import RatingTable, as_rating_table

__all__ = ["WeightedMajorityVote", "rater_accuracy", "weighted_shares"]


def weighted_shares(table: RatingTable, skills: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(shares (n, K), label codes (n,))`` of the skill-weighted vote; label code -1 and nan
    shares where an item's raters weigh 0 in all."""
    n, k = table.n_items, table.n_categories
    weight = np.asarray(skills, dtype=float)[table.rater]
    sums = np.bincount(table.item * k + table.label, weights=weight, minlength=n * k).reshape(n, k)
    total = sums.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        shares = sums / total[:, None]
    codes = np.where(total > 0, np.argmax(np.where(np.isnan(shares), -1.0, shares), axis=1), -1)
    return shares, codes


def rater_accuracy(table: RatingTable, truth: np.ndarray) -> np.ndarray:
    """Per rater (``(R,)``): the share of its ratings equal to ``truth`` (label codes per item,
    -1 where unknown) over the items where ``truth`` is known; nan for a rater with none."""
    known = truth[table.item] >= 0
    hit = (table.label == truth[table.item]) & known
    seen = np.bincount(table.rater[known], minlength=table.n_raters).astype(float)
    right = np.bincount(table.rater[hit], minlength=table.n_raters).astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        return right / seen


class _SkillVote(_Estimator):
    """What every skill-weighted aggregator stores after ``fit``: ``labels_`` (Series by
    item_id, None where no weight), ``probas_`` (items × categories: the weighted shares),
    ``skills_`` (Series by rater, name ``skill``)."""

    def _store(self, table: RatingTable, skills: np.ndarray) -> None:
        shares, codes = weighted_shares(table, skills)
        items = pd.Index(np.asarray(table.item_ids, dtype=object), name="item_id")
        names = np.asarray(table.categories, dtype=object)
        labels = np.where(codes >= 0, names[np.maximum(codes, 0)], None)
        self.labels_ = pd.Series(labels, index=items, name="label", dtype=object)
        self.probas_ = pd.DataFrame(shares, index=items, columns=pd.Index(names, name="label"))
        self.skills_ = pd.Series(skills, index=pd.Index(table.raters, name="rater"), name="skill")
        self.n_unlabelled_ = int((codes < 0).sum())

    def consensus(self) -> pd.DataFrame:
        """One row per item, sorted by ``item_id``: ``item_id``, ``label``, ``posterior`` (the
        label's weighted share)."""
        self._check_fitted()
        frame = pd.DataFrame(
            {
                "item_id": self.labels_.index.to_numpy(dtype=object),
                "label": self.labels_.to_numpy(dtype=object),
                "posterior": self.probas_.max(axis=1, skipna=True).to_numpy(),
            }
        )
        return frame.sort_values("item_id", kind="stable").reset_index(drop=True)


def _skill_vector(skills: Mapping[str, float] | pd.Series, raters: np.ndarray) -> np.ndarray:
    """The skills of ``raters`` in their order; InputError naming raters with no skill."""
    series = pd.Series(skills, dtype=float) if not isinstance(skills, pd.Series) else skills.astype(float)
    series.index = series.index.astype(str).str.strip()
    values = series.reindex(pd.Index(raters).astype(str))
    missing = values.index[values.isna()].tolist()
    if missing:
        raise InputError(f"skills: no skill for rater(s) {missing[:5]}{' …' if len(missing) > 5 else ''}")
    out = values.to_numpy(dtype=float)
    if (out < 0).any():
        raise ParameterError("skills: expected weights ≥ 0")
    return out


class WeightedMajorityVote(_SkillVote):
    """Majority vote with a weight per rater (see the module for the rule).

    >>> WeightedMajorityVote({"r1": 1.0, "r2": 0.5})
    WeightedMajorityVote(skills={'r1': 1.0, 'r2': 0.5}, rater_type='human', categories=None)

    Parameters
    ----------
    skills
        Rater → weight ≥ 0 (a Series indexed by rater or a mapping). Every rater in the labels
        needs one; a missing rater is an :class:`InputError` naming it.
    rater_type, categories
        Which ratings count (``"human"`` by default; None: all) and the declared categories.
    """

    _params = ("skills", "rater_type", "categories")

    def __init__(
        self,
        skills: Mapping[str, float] | pd.Series,
        *,
        rater_type: RaterType | None = "human",
        categories: Sequence[str] | None = None,
    ) -> None:
        self.skills = skills
        self.rater_type = rater_type
        self.categories = categories

    def fit(self, labels: pd.DataFrame | RatingTable) -> WeightedMajorityVote:
        """Weigh the votes of a labels table; returns ``self``."""
        table = as_rating_table(
            labels, categories=self.categories, rater_type=check_rater_type(self.rater_type)
        )
        self._store(table, _skill_vector(self.skills, table.raters))
        return self
