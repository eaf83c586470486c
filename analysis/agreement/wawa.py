"""Wawa (*worker agreement with aggregate*): the majority vote, each rater's accuracy against
it as its skill, and the skill-weighted vote with those skills. An estimator as
:mod:`.aggregation` describes.

1. :math:`\\hat z_i` = plurality label of item *i* (a tie goes to the first category in
   category order, as crowd-kit's ``MajorityVote``);
2. :math:`w_r` = share of rater *r*'s ratings equal to :math:`\\hat z_i`;
3. the labels and shares of :class:`~.weighted_vote.WeightedMajorityVote` with skills
   :math:`w`.

Reference: crowd-kit's ``Wawa`` (Toloka); the rule is the "WAWA" baseline of Appen's / Toloka's
quality-control guides.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from ._common import RaterType, check_rater_type
from .tables import RatingTable, as_rating_table
from .weighted_vote import _SkillVote, rater_accuracy, weighted_shares

__all__ = ["Wawa"]


class Wawa(_SkillVote):
    """Skill-weighted majority vote with skills learned from the unweighted vote (see the
    module). Attributes after ``fit``: ``labels_``, ``probas_``, ``skills_`` (Series by rater,
    each rater's accuracy against the plain majority vote).

    >>> Wawa()
    Wawa(rater_type='human', categories=None)
    """

    _params = ("rater_type", "categories")

    def __init__(
        self, *, rater_type: RaterType | None = "human", categories: Sequence[str] | None = None
    ) -> None:
        self.rater_type = rater_type
        self.categories = categories

    def fit(self, labels: pd.DataFrame | RatingTable) -> Wawa:
        """Fit on a labels table; returns ``self``."""
        table = as_rating_table(
            labels, categories=self.categories, rater_type=check_rater_type(self.rater_type)
        )
        _, majority = weighted_shares(table, np.ones(table.n_raters))
        self._store(table, rater_accuracy(table, majority))
        return self
