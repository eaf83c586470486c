"""GLAD (*generative model of labels, abilities and difficulties*): a latent-class consensus in
which a rater's chance of giving the true label depends on the rater's ability and the item's
difficulty. An estimator as :mod:`.aggregation` describes.

Model: item *i* has a true class :math:`z_i` with prior :math:`p_k` (uniform over the ``K``
categories, fixed); rater *r* gives the true class with probability
:math:`a_{ri} = \\sigma(\\alpha_r e^{\\beta_i})` and each other class with
:math:`(1 - a_{ri})/(K-1)`; :math:`\\alpha_r \\in \\mathbb R` is the ability,
:math:`e^{\\beta_i} > 0` the inverse difficulty; priors :math:`\\alpha_r, \\beta_i \\sim N(1, 1)`.

EM, in crowd-kit's ``GLAD`` order and with its defaults (α = β = 1 to start):

1. E-step: :math:`\\log T_{ik} = \\log p_k + \\sum_{r} \\ell_{rik}` normalised per item, with
   :math:`\\ell_{rik} = \\log a_{ri}` when rater *r* said *k*, else
   :math:`\\log(1-a_{ri}) - \\log(K-1)`;
2. M-step: maximise
   :math:`Q = \\sum_{r,i}\\sum_k T_{ik}\\ell_{rik} + \\sum_r \\log\\varphi(\\alpha_r - 1) + \\sum_i
   \\log\\varphi(\\beta_i - 1)` over (α, β) by conjugate gradients (``scipy.optimize.minimize``,
   method CG, at most ``m_step_max_iter`` iterations, ``tol`` ``m_step_tol``) with the
   analytic gradient :math:`\\partial Q/\\partial\\alpha_r = \\sum_i (T_{i,y_{ri}} - a_{ri})
   e^{\\beta_i} - (\\alpha_r - 1)` and :math:`\\partial Q/\\partial\\beta_i = \\sum_r (T_{i,y_{ri}} -
   a_{ri})\\alpha_r e^{\\beta_i} - (\\beta_i - 1)`;
3. stop after ``n_iter`` rounds or when Q per rating and category (crowd-kit's scale) improves by
   less than ``tol``.

Vectorised over the ratings (no per-item Python loop): the sums over a rater's or an item's
ratings are :func:`numpy.bincount` calls.

Reference: Whitehill, J., Ruvolo, P., Wu, T., Bergsma, J. & Movellan, J. (2009). Whose vote
should count more: optimal integration of labels from labelers of unknown expertise. NeurIPS 22.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from wordplay_audit.errors import ParameterError

from ._common import RaterType, check_rater_type, check_whole
from .aggregation import _Estimator
from .tables import RatingTable, as_rating_table

__all__ = ["GLAD"]

_LOG_NORM = -0.5 * np.log(2 * np.pi)  # log φ(0)


def _softplus(x: np.ndarray) -> np.ndarray:
    return np.logaddexp(0.0, x)


class _Fit:
    """The E-step, Q and its gradient on the ratings of one table."""

    def __init__(self, table: RatingTable) -> None:
        self.table = table
        self.k = table.n_categories
        self.log_other = np.log(max(self.k - 1, 1))
        self.log_prior = np.full(self.k, -np.log(self.k))
        self.onehot = np.zeros((len(table.label), self.k))
        self.onehot[np.arange(len(table.label)), table.label] = 1.0

    def _scores(self, alpha: np.ndarray, beta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        t = self.table
        scale = np.exp(beta[t.item])
        return alpha[t.rater] * scale, scale

    def e_step(self, alpha: np.ndarray, beta: np.ndarray) -> np.ndarray:
        t = self.table
        s, _ = self._scores(alpha, beta)
        right, wrong = -_softplus(-s), -_softplus(s) - self.log_other
        ll = self.onehot * right[:, None] + (1.0 - self.onehot) * wrong[:, None]  # (M, K)
        log_post = np.column_stack(
            [np.bincount(t.item, weights=ll[:, k], minlength=t.n_items) for k in range(self.k)]
        )
        log_post += self.log_prior
        log_post -= log_post.max(axis=1, keepdims=True)
        post = np.exp(log_post)
        return post / post.sum(axis=1, keepdims=True)

    def q(self, post: np.ndarray, alpha: np.ndarray, beta: np.ndarray) -> float:
        t = self.table
        s, _ = self._scores(alpha, beta)
        own = post[t.item, t.label]
        value = own @ -_softplus(-s) + (1.0 - own) @ (-_softplus(s) - self.log_other)
        value += len(alpha) * _LOG_NORM - 0.5 * ((alpha - 1.0) ** 2).sum()
        value += len(beta) * _LOG_NORM - 0.5 * ((beta - 1.0) ** 2).sum()
        return float(value) if np.isfinite(value) else -np.inf

    def gradient(self, post: np.ndarray, alpha: np.ndarray, beta: np.ndarray) -> np.ndarray:
        t = self.table
        s, scale = self._scores(alpha, beta)
        resid = post[t.item, t.label] - 1.0 / (1.0 + np.exp(-s))
        d_alpha = np.bincount(t.rater, weights=resid * scale, minlength=len(alpha)) - (alpha - 1.0)
        d_beta = np.bincount(t.item, weights=resid * s, minlength=len(beta)) - (beta - 1.0)
        return np.concatenate([d_alpha, d_beta])


class GLAD(_Estimator):
    """GLAD fitted by EM (see the module for the model and the iterations).

    Attributes after ``fit`` (crowd-kit names): ``labels_`` (Series by item_id), ``probas_``
    (items × categories), ``alphas_`` (Series by rater: abilities), ``betas_`` (Series by item:
    log inverse difficulties), ``priors_``, ``loss_history_`` (Q per rating and category after
    each round), ``n_iter_``.

    >>> GLAD(n_iter=50)
    GLAD(n_iter=50, tol=1e-05, m_step_max_iter=25, m_step_tol=0.01, rater_type='human', categories=None)

    Parameters
    ----------
    n_iter, tol
        Most EM rounds; the stopping threshold on Q per rating and category.
    m_step_max_iter, m_step_tol
        The conjugate-gradient M-step's iteration cap and tolerance.
    rater_type, categories
        Which ratings count and the declared categories (the prior is uniform over them).
    """

    _params = ("n_iter", "tol", "m_step_max_iter", "m_step_tol", "rater_type", "categories")

    def __init__(
        self,
        n_iter: int = 100,
        tol: float = 1e-5,
        m_step_max_iter: int = 25,
        m_step_tol: float = 1e-2,
        *,
        rater_type: RaterType | None = "human",
        categories: Sequence[str] | None = None,
    ) -> None:
        self.n_iter = n_iter
        self.tol = tol
        self.m_step_max_iter = m_step_max_iter
        self.m_step_tol = m_step_tol
        self.rater_type = rater_type
        self.categories = categories

    def _check(self) -> tuple[int, int]:
        n_iter = check_whole("n_iter", self.n_iter, low=0)
        m_iter = check_whole("m_step_max_iter", self.m_step_max_iter, low=1)
        for name in ("tol", "m_step_tol"):
            value = getattr(self, name)
            if not (isinstance(value, int | float) and value >= 0):
                raise ParameterError(f"{name}: expected a number ≥ 0, got {value!r}")
        return n_iter, m_iter

    def fit(self, labels: pd.DataFrame | RatingTable) -> GLAD:
        """Fit on a labels table; returns ``self``."""
        from scipy.optimize import minimize

        n_iter, m_iter = self._check()
        table = as_rating_table(
            labels, categories=self.categories, rater_type=check_rater_type(self.rater_type)
        )
        fit = _Fit(table)
        n_r = table.n_raters
        alpha, beta = np.ones(n_r), np.ones(table.n_items)
        post = fit.e_step(alpha, beta)
        scale = float(len(table.label) * fit.k)
        history: list[float] = []
        for _ in range(n_iter):
            post = fit.e_step(alpha, beta)
            res = minimize(
                lambda x, p=post: -fit.q(p, x[:n_r], x[n_r:]),
                np.concatenate([alpha, beta]),
                jac=lambda x, p=post: -fit.gradient(p, x[:n_r], x[n_r:]),
                method="CG",
                tol=float(self.m_step_tol),
                options={"maxiter": m_iter},
            )
            alpha, beta = res.x[:n_r], res.x[n_r:]
            history.append(fit.q(post, alpha, beta) / scale)
            if len(history) > 1 and history[-1] - history[-2] < self.tol:
                break
        self._store(table, post, alpha, beta, history, fit)
        return self

    def _store(self, table, post, alpha, beta, history, fit) -> None:  # noqa: ANN001 (private)
        names = pd.Index(np.asarray(table.categories, dtype=object), name="label")
        items = pd.Index(np.asarray(table.item_ids, dtype=object), name="item_id")
        self.probas_ = pd.DataFrame(post, index=items, columns=names)
        self.labels_ = pd.Series(
            names.to_numpy()[post.argmax(axis=1)], index=items, name="label", dtype=object
        )
        self.alphas_ = pd.Series(alpha, index=pd.Index(table.raters, name="rater"), name="alpha")
        self.betas_ = pd.Series(beta, index=items, name="beta")
        self.priors_ = pd.Series(np.exp(fit.log_prior), index=names, name="prior")
        self.loss_history_ = history
        self.n_iter_ = len(history)

    def consensus(self) -> pd.DataFrame:
        """One row per item, sorted by ``item_id``: ``item_id``, ``label``, ``posterior``,
        ``difficulty`` (:math:`e^{-\\beta_i}`: larger is harder)."""
        self._check_fitted()
        frame = pd.DataFrame(
            {
                "item_id": self.labels_.index.to_numpy(dtype=object),
                "label": self.labels_.to_numpy(dtype=object),
                "posterior": self.probas_.to_numpy().max(axis=1),
                "difficulty": np.exp(-self.betas_.to_numpy()),
            }
        )
        return frame.sort_values("item_id", kind="stable").reset_index(drop=True)
