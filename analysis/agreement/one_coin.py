"""One-coin Dawid–Skene: every rater has one accuracy, and spreads their errors evenly over the
other categories (crowd-kit's ``OneCoinDawidSkene``). An estimator as :mod:`.aggregation`
describes, on :mod:`.dawid_skene`'s EM with a one-parameter M-step.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .dawid_skene import _EM, DawidSkene
from .tables import RatingTable

__all__ = ["OneCoinDawidSkene"]

_EPS = 1e-10


class _OneCoinEM(_EM):
    def m_step(self, post: np.ndarray) -> np.ndarray:
        sums = (self.design_t @ (post * self.weights[:, None])).reshape(self.n_r, self.n_k, self.n_k)
        right = np.trace(sums, axis1=1, axis2=2)  # Σ over a rater's ratings of P(true = said)
        skill = right / np.maximum(sums.sum(axis=(1, 2)), _EPS)
        off = (1 - skill) / max(self.n_k - 1, 1)
        errs = np.where(np.eye(self.n_k, dtype=bool)[None], skill[:, None, None], off[:, None, None])
        return np.clip(errs, _EPS, 1 - _EPS)  # [r, observed l, true k]


class OneCoinDawidSkene(DawidSkene):
    """Dawid–Skene with one skill per rater: :math:`P(y_{ir} = l \\mid z_i = k) = s_r` when
    :math:`l = k`, else :math:`(1 - s_r)/(K - 1)`.

    EM as :class:`DawidSkene` (majority-vote start, then E-step, priors, M-step) with the M-step
    :math:`s_r = \\frac{1}{M_r}\\sum_{i \\text{ rated by } r} T_{i, y_{ir}}` (the expected share of
    the rater's answers that are right), the confusion matrix built from it and clipped to
    [1e-10, 1 − 1e-10], as crowd-kit's ``OneCoinDawidSkene`` does; crowd-kit stops on its
    evidence lower bound, this on the log-likelihood per rating (``tol``), so compare them at a
    fixed ``n_iter`` (``tol=None``).

    Attributes after :meth:`fit`: those of :class:`DawidSkene` and ``skills_`` (Series by rater).
    ``gold`` anchors the fit as in :class:`DawidSkene`.

    Reference: Dawid & Skene (1979), JRSS C 28(1):20–28, with the one-coin restriction of
    e.g. Raykar et al. (2010), JMLR 11:1297.
    """

    @property
    def _em(self) -> type[_EM]:
        return _OneCoinEM

    def fit(self, labels: pd.DataFrame | RatingTable) -> OneCoinDawidSkene:
        """Fit on a labels table (or a prepared :class:`RatingTable`); returns ``self``."""
        super().fit(labels)
        diag = np.diagonal(self.errors_, axis1=1, axis2=2)[:, 0]
        self.skills_ = pd.Series(
            diag, index=pd.Index([str(r) for r in self._table.raters], name="rater"), name="skill"
        )
        return self
