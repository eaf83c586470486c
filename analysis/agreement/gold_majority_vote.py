"""Gold majority vote: each rater's accuracy on the items with a known answer (honeypots) as
its skill, and the skill-weighted vote with those skills. An estimator as :mod:`.aggregation`
describes.

:math:`w_r` = share of rater *r*'s ratings of gold items equal to the gold label; then the
labels and shares of :class:`~.weighted_vote.WeightedMajorityVote` with skills :math:`w` over
every item (gold items included, as crowd-kit's ``GoldMajorityVote.predict``). A rater who rated
no gold item has no skill: an :class:`~wordplay_audit.errors.InputError` naming it, unless
``missing_skill`` gives a value to use.

Reference: crowd-kit's ``GoldMajorityVote``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from wordplay_audit.errors import InputError, ParameterError

from ._common import RaterType, check_rater_type
from .quality import gold_codes
from .tables import RatingTable, as_rating_table
from .weighted_vote import _SkillVote, rater_accuracy

__all__ = ["GoldMajorityVote"]


class GoldMajorityVote(_SkillVote):
    """Skill-weighted majority vote with skills measured on gold items (see the module).

    >>> GoldMajorityVote({"t1": "yes"})
    GoldMajorityVote(gold={'t1': 'yes'}, missing_skill=None, rater_type='human', categories=None)

    Parameters
    ----------
    gold
        The known answers: a Series indexed by ``item_id``, a mapping, or a table with
        ``item_id`` and ``label`` (or ``gold``) columns
        (:func:`~wordplay_audit.analysis.agreement.quality.gold_labels`).
    missing_skill
        The skill of a rater who rated no gold item (None: such a rater is an error).
    rater_type, categories
        Which ratings count and the declared categories.
    """

    _params = ("gold", "missing_skill", "rater_type", "categories")

    def __init__(
        self,
        gold: pd.Series | pd.DataFrame | Mapping[str, str],
        *,
        missing_skill: float | None = None,
        rater_type: RaterType | None = "human",
        categories: Sequence[str] | None = None,
    ) -> None:
        self.gold = gold
        self.missing_skill = missing_skill
        self.rater_type = rater_type
        self.categories = categories

    def fit(self, labels: pd.DataFrame | RatingTable) -> GoldMajorityVote:
        """Measure skills on the gold items and weigh every item's votes; returns ``self``."""
        if self.missing_skill is not None and not (
            isinstance(self.missing_skill, int | float) and self.missing_skill >= 0
        ):
            raise ParameterError(f"missing_skill: expected a number ≥ 0 or None, got {self.missing_skill!r}")
        table = as_rating_table(
            labels, categories=self.categories, rater_type=check_rater_type(self.rater_type)
        )
        truth = gold_codes(table, self.gold)
        if not (truth >= 0).any():
            raise InputError("gold: none of the gold items was rated")
        skills = rater_accuracy(table, truth)
        missing = np.isnan(skills)
        if missing.any():
            if self.missing_skill is None:
                names = [str(r) for r in table.raters[missing]]
                raise InputError(
                    f"gold: rater(s) {names[:5]}{' …' if len(names) > 5 else ''} rated no gold item, "
                    "so their skill is unknown (give missing_skill, or add gold items they rate)"
                )
            skills = np.where(missing, float(self.missing_skill), skills)
        self._store(table, skills)
        return self
