"""Zero-based skill (ZBS): skills learned by moving each rater's weight towards its accuracy
against the current skill-weighted vote, with a learning rate that halves on a schedule. An
estimator as :mod:`.aggregation` describes.

Start: :math:`w_r = 1/K + \\varepsilon` (``K`` the categories seen). For iteration
:math:`t = 1 … T` (``n_iter``): when :math:`t` is a multiple of ``lr_steps_to_reduce`` the rate
:math:`\\eta` is multiplied by ``lr_reduce_factor``; :math:`\\hat z` = the skill-weighted vote
with :math:`w`; :math:`w_r \\leftarrow w_r + \\eta\\,(\\mathrm{acc}_r(\\hat z) - w_r)`. The result
is the skill-weighted vote with the final :math:`w`.

Reference: crowd-kit's ``ZeroBasedSkill`` (same schedule and defaults: ``n_iter`` 100,
``lr_init`` 1, ``lr_steps_to_reduce`` 20, ``lr_reduce_factor`` 0.5, ``eps`` 1e-5).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from wordplay_audit.errors import ParameterError

from ._common import RaterType, check_rater_type, check_whole
from .tables import RatingTable, as_rating_table
from .weighted_vote import _SkillVote, rater_accuracy, weighted_shares

__all__ = ["ZeroBasedSkill"]


class ZeroBasedSkill(_SkillVote):
    """Skill-weighted majority vote with skills learned iteratively (see the module).

    >>> ZeroBasedSkill(n_iter=10)
    ZeroBasedSkill(n_iter=10, lr_init=1.0, lr_steps_to_reduce=20, lr_reduce_factor=0.5, eps=1e-05, rater_type='human', categories=None)

    Parameters
    ----------
    n_iter, lr_init, lr_steps_to_reduce, lr_reduce_factor, eps
        The schedule (see the module); ``lr_steps_to_reduce`` a whole number ≥ 1,
        ``lr_reduce_factor`` in (0, 1], ``lr_init`` > 0.
    rater_type, categories
        Which ratings count and the declared categories.
    """

    _params = (
        "n_iter",
        "lr_init",
        "lr_steps_to_reduce",
        "lr_reduce_factor",
        "eps",
        "rater_type",
        "categories",
    )

    def __init__(
        self,
        n_iter: int = 100,
        lr_init: float = 1.0,
        lr_steps_to_reduce: int = 20,
        lr_reduce_factor: float = 0.5,
        eps: float = 1e-5,
        *,
        rater_type: RaterType | None = "human",
        categories: Sequence[str] | None = None,
    ) -> None:
        self.n_iter = n_iter
        self.lr_init = lr_init
        self.lr_steps_to_reduce = lr_steps_to_reduce
        self.lr_reduce_factor = lr_reduce_factor
        self.eps = eps
        self.rater_type = rater_type
        self.categories = categories

    def _check(self) -> tuple[int, int]:
        n_iter = check_whole("n_iter", self.n_iter, low=0)
        steps = check_whole("lr_steps_to_reduce", self.lr_steps_to_reduce, low=1)
        if not (isinstance(self.lr_init, int | float) and self.lr_init > 0):
            raise ParameterError(f"lr_init: expected a number > 0, got {self.lr_init!r}")
        if not (isinstance(self.lr_reduce_factor, int | float) and 0 < self.lr_reduce_factor <= 1):
            raise ParameterError(
                f"lr_reduce_factor: expected a number in (0, 1], got {self.lr_reduce_factor!r}"
            )
        if not (isinstance(self.eps, int | float) and self.eps >= 0):
            raise ParameterError(f"eps: expected a number ≥ 0, got {self.eps!r}")
        return n_iter, steps

    def fit(self, labels: pd.DataFrame | RatingTable) -> ZeroBasedSkill:
        """Fit on a labels table; returns ``self``."""
        n_iter, steps = self._check()
        table = as_rating_table(
            labels, categories=self.categories, rater_type=check_rater_type(self.rater_type)
        )
        seen = np.unique(table.label).size
        skills = np.full(table.n_raters, 1.0 / seen + float(self.eps))
        rate = float(self.lr_init)
        for step in range(1, n_iter + 1):
            if step % steps == 0:
                rate *= float(self.lr_reduce_factor)
            _, vote = weighted_shares(table, skills)
            accuracy = rater_accuracy(table, vote)
            # a rater none of whose items has a label yet keeps its skill
            skills = np.where(np.isnan(accuracy), skills, skills + rate * (accuracy - skills))
        self._store(table, skills)
        return self
