"""Dawid–Skene: the latent-class consensus fitted by EM — each item's true label and its
posterior, and one confusion matrix per rater (crowd-kit's ``DawidSkene``, vectorised on a
sparse design of the distinct rating rows). An estimator as :mod:`.aggregation` describes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from wordplay_audit.errors import ParameterError

from ._common import RaterType, check_rater_type, check_whole
from .aggregation import _Estimator
from .quality import gold_codes
from .tables import RatingTable, as_rating_table

if TYPE_CHECKING:  # scipy is imported where the design is built
    from scipy import sparse

__all__ = ["DawidSkene"]


class DawidSkene(_Estimator):
    """Dawid–Skene latent-class model fitted by EM: true labels, their posteriors and one
    confusion matrix per rater.

    Model: item *i* has a true class :math:`z_i \\sim \\mathrm{Cat}(\\rho)`; rater *r* reports
    *l* with probability :math:`\\pi^{(r)}_{kl} = P(y_{ir} = l \\mid z_i = k)`, independently
    across raters given :math:`z_i`.

    EM, as in crowd-kit's ``DawidSkene`` (same initialisation, smoothing and update order):

    0. :math:`T_{ik}` = share of item *i*'s votes for *k* (majority-vote posterior);
       :math:`\\rho = \\frac1n\\sum_i T_i`; M-step.
    1. E-step: :math:`\\log T_{ik} \\propto \\log \\max(\\rho_k, 10^{-10}) +
       \\sum_{r \\text{ rated } i} \\log \\pi^{(r)}_{k, y_{ir}}`, normalised per item.
    2. :math:`\\rho = \\frac1n\\sum_i T_i`; M-step:
       :math:`\\pi^{(r)}_{kl} \\propto \\max(\\sum_{i: y_{ir}=l} T_{ik}, 10^{-10})` over the labels
       *l* rater *r* used (others 0), normalised over *l*.
    3. Repeat 1–2 ``n_iter`` times or until the observed-data log-likelihood per rating,
       :math:`\\frac1M\\sum_i \\log\\sum_k \\rho_k\\prod_r \\pi^{(r)}_{k,y_{ir}}`, improves by less than
       ``tol`` (``tol=None``: always ``n_iter`` iterations).

    Vectorised: ratings form a sparse one-hot matrix ``A`` (items × rater·label), so the E-step
    is ``A @ log π`` and the M-step ``Aᵀ @ T``; items with identical rating rows are merged first
    (exact, with weights), which shrinks 1,000,000 items × 5 raters × 8 labels to ≤ 32,768 rows.

    *Gold items* (``gold``: honeypots, items with a known answer): their posterior is fixed at the
    known class at the start and after every E-step, so they anchor the confusion matrices and
    the priors (crowd-kit's ``DawidSkene.fit(data, true_labels)``). Items with the same ratings
    are merged only when they are both gold with one answer, or both not gold.

    Parameters (stored as given; checked in :meth:`fit`): ``n_iter`` (most EM iterations),
    ``tol`` (stopping threshold, None: exactly ``n_iter``), ``rater_type``, ``categories``,
    ``gold`` (None, or a Series by item_id, a mapping or a table with ``item_id`` and ``label``:
    :func:`~wordplay_audit.analysis.agreement.quality.gold_labels`).

    Attributes after :meth:`fit` (crowd-kit names): ``labels_`` (Series by item_id),
    ``probas_`` (items × categories), ``priors_`` (Series), ``errors_`` (array
    ``(R, K, K)``, ``errors_[r, k, l]`` = P(rater r says l | true k)), ``confusions_``
    (dict rater → DataFrame true × observed), ``log_likelihood_`` (list), ``n_iter_``,
    ``n_ratings_`` (Series by item_id).

    >>> DawidSkene(n_iter=20)
    DawidSkene(n_iter=20, tol=1e-05, rater_type='human', categories=None, gold=None)

    Reference: Dawid, A. P. & Skene, A. M. (1979). Maximum likelihood estimation of observer
    error-rates using the EM algorithm. JRSS C 28(1), 20–28.
    """

    _params = ("n_iter", "tol", "rater_type", "categories", "gold")

    def __init__(
        self,
        n_iter: int = 100,
        tol: float | None = 1e-5,
        *,
        rater_type: RaterType | None = "human",
        categories: list[str] | tuple[str, ...] | None = None,
        gold: pd.Series | pd.DataFrame | Mapping[str, str] | None = None,
    ) -> None:
        self.n_iter = n_iter
        self.tol = tol
        self.rater_type = rater_type
        self.categories = categories
        self.gold = gold

    def _check_params(self) -> tuple[int, float | None]:
        n_iter = check_whole("n_iter", self.n_iter, low=0)
        if self.tol is not None and not (isinstance(self.tol, int | float) and self.tol >= 0):
            raise ParameterError(f"tol: expected a number ≥ 0 or None, got {self.tol!r}")
        check_rater_type(self.rater_type)
        return n_iter, self.tol

    def fit(self, labels: pd.DataFrame | RatingTable) -> DawidSkene:
        """Fit on a labels table (or a prepared :class:`RatingTable`); returns ``self``.
        Raises :class:`InputError` for bad labels, ParameterError for bad parameters."""
        n_iter, tol = self._check_params()
        table = as_rating_table(labels, categories=self.categories, rater_type=self.rater_type)
        known = None if self.gold is None else gold_codes(table, self.gold)
        design, freq, inverse, first = _rating_design(table, known)
        clamp = None if known is None else known[first]
        em = self._em(design, freq.astype(float), table.n_raters, table.n_categories, clamp)
        post, priors, errs, history = em.run(n_iter, tol)
        self._store(table, post[inverse], priors, errs)
        self.log_likelihood_ = history
        self.n_iter_ = len(history)
        self.n_ratings_ = pd.Series(em.sizes[inverse], index=self.labels_.index, name="n_ratings")
        self._table = table
        return self

    @property
    def _em(self) -> type[_EM]:
        """The EM iterations this model runs (a subclass restricts the M-step)."""
        return _EM

    def _store(self, table: RatingTable, full_post: np.ndarray, priors: np.ndarray, errs: np.ndarray) -> None:
        names = pd.Index(table.categories, name="label")
        items = pd.Index(table.item_ids, name="item_id")
        self.probas_ = pd.DataFrame(full_post, index=items, columns=names)
        self.labels_ = pd.Series(
            np.asarray(table.categories, dtype=object)[full_post.argmax(axis=1)],
            index=items,
            name="label",
        )
        self.priors_ = pd.Series(priors, index=names, name="prior")
        self.errors_ = errs.transpose(0, 2, 1)  # [r, true k, observed l]
        self.confusions_ = {
            str(rater): pd.DataFrame(
                self.errors_[r], index=names.rename("true"), columns=names.rename("observed")
            )
            for r, rater in enumerate(table.raters)
        }

    def consensus(self) -> pd.DataFrame:
        """One row per item: ``item_id``, ``label``, ``posterior`` (its probability),
        ``n_ratings``, sorted by ``item_id``."""
        self._check_fitted()
        frame = pd.DataFrame(
            {
                "item_id": self.labels_.index.to_numpy(dtype=object),
                "label": self.labels_.to_numpy(dtype=object),
                "posterior": self.probas_.to_numpy().max(axis=1),
                "n_ratings": self.n_ratings_.to_numpy(),
            }
        )
        return frame.sort_values("item_id", kind="stable").reset_index(drop=True)


_EPS = 1e-10


class _EM:
    """The EM iterations of :class:`DawidSkene` on the merged sparse design (see its doc)."""

    def __init__(
        self,
        design: sparse.csr_matrix,
        weights: np.ndarray,
        n_r: int,
        n_k: int,
        clamp: np.ndarray | None = None,
    ):
        self.design, self.design_t = design, design.T.tocsr()
        self.clamp = clamp  # (P,) the known class of a gold row, -1 elsewhere
        self.weights, self.n_r, self.n_k = weights, n_r, n_k
        self.n_items = weights.sum()
        self.used = (self.design_t @ weights) > 0  # (R*K,) rater r used label l
        self.sizes = np.asarray(design.sum(axis=1)).ravel().astype(np.int64)

    def m_step(self, post: np.ndarray) -> np.ndarray:
        sums = self.design_t @ (post * self.weights[:, None])  # (R*K, K): [r*K + l, k]
        sums = np.where(self.used[:, None], np.maximum(sums, _EPS), 0.0)
        errs = sums.reshape(self.n_r, self.n_k, self.n_k)  # [r, l, k]
        return errs / errs.sum(axis=1, keepdims=True)

    def e_step(self, priors: np.ndarray, errs: np.ndarray) -> tuple[np.ndarray, float]:
        log_err = np.zeros_like(errs)
        np.log(errs, out=log_err, where=errs > 0)
        loglik = np.log(np.maximum(priors, _EPS)) + self.design @ log_err.reshape(
            self.n_r * self.n_k, self.n_k
        )
        top = loglik.max(axis=1, keepdims=True)
        scaled = np.exp(loglik - top)
        total = scaled.sum(axis=1, keepdims=True)
        ll = float(self.weights @ (np.log(total[:, 0]) + top[:, 0]))
        return self.fix_gold(scaled / total), ll

    def fix_gold(self, post: np.ndarray) -> np.ndarray:
        """Gold rows' posteriors set to their known class."""
        if self.clamp is None:
            return post
        rows = np.flatnonzero(self.clamp >= 0)
        post[rows] = 0.0
        post[rows, self.clamp[rows]] = 1.0
        return post

    def run(self, n_iter: int, tol: float | None):
        """``(posteriors, priors, errors [r, l, k], log-likelihood per rating history)``."""
        counts = (self.design @ np.tile(np.eye(self.n_k), (self.n_r, 1))).astype(float)
        post = self.fix_gold(counts / self.sizes[:, None])  # majority-vote shares
        priors = self.weights @ post / self.n_items
        errs = self.m_step(post)
        history: list[float] = []
        n_ratings = float(self.weights @ self.sizes)
        for _ in range(n_iter):
            post, ll = self.e_step(priors, errs)
            priors = self.weights @ post / self.n_items
            errs = self.m_step(post)
            history.append(ll / n_ratings)
            if tol is not None and len(history) > 1 and history[-1] - history[-2] < tol:
                break
        return post, priors, errs, history


def _rating_design(
    table: RatingTable, known: np.ndarray | None = None
) -> tuple[sparse.csr_matrix, np.ndarray, np.ndarray, np.ndarray]:
    """Sparse one-hot design ``(P, R*K)`` of the distinct rating rows, their multiplicities
    ``(P,)``, each item's row ``(n,)`` and each row's first item ``(P,)``. Rows are merged only
    when a row (with its gold class, ``known``) fits one int64 key."""
    from scipy import sparse

    n, n_r, n_k = table.n_items, table.n_raters, table.n_categories
    column = table.rater * n_k + table.label
    if (n_r + (known is not None)) * np.log2(n_k + 1) < 62 and n * n_r <= 200_000_000:
        codes = table.codes_matrix()
        if known is not None:
            codes = np.column_stack([codes, known])
        keys = (codes + 1) @ ((n_k + 1) ** np.arange(codes.shape[1], dtype=np.int64))
        _, first, inverse, freq = np.unique(keys, return_index=True, return_inverse=True, return_counts=True)
        reps = codes[first][:, :n_r]
        rows, raters = np.nonzero(reps >= 0)
        cols = raters * n_k + reps[rows, raters]
        design = sparse.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(len(first), n_r * n_k))
        return design, freq.astype(np.int64), inverse.reshape(-1), first
    design = sparse.csr_matrix((np.ones(len(column)), (table.item, column)), shape=(n, n_r * n_k))
    return design, np.ones(n, dtype=np.int64), np.arange(n), np.arange(n)
