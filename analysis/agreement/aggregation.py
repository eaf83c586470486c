"""Consensus labels: majority vote with an explicit tie policy, and Dawid–Skene.

Both are estimators in the scikit-learn / crowd-kit sense: ``__init__`` only stores the
parameters, :meth:`fit` checks them and the labels and returns ``self``, results are fitted
attributes with a trailing underscore (``labels_``, ``probas_`` …), ``fit_predict`` and
``fit_predict_proba`` do both at once. :func:`from_crowdkit` turns crowd-kit's
``task``/``worker``/``label`` frame into the contract labels table they take.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

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
    check_whole,
)
from .tables import RatingTable, as_rating_table

if TYPE_CHECKING:  # scipy is imported where Dawid–Skene builds its design, not by majority voting
    from scipy import sparse

__all__ = ["DawidSkene", "MajorityVote", "NotFittedError", "from_crowdkit", "majority_vote"]


class NotFittedError(ParameterError, AttributeError):
    """A fitted attribute or method was used before :meth:`fit`."""


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

    Parameters (stored as given; checked in :meth:`fit`)
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

    Attributes after :meth:`fit`: ``labels_`` (Series by item_id, None where unresolved),
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

    Parameters (stored as given; checked in :meth:`fit`): ``n_iter`` (most EM iterations),
    ``tol`` (stopping threshold, None: exactly ``n_iter``), ``rater_type``, ``categories``.

    Attributes after :meth:`fit` (crowd-kit names): ``labels_`` (Series by item_id),
    ``probas_`` (items × categories), ``priors_`` (Series), ``errors_`` (array
    ``(R, K, K)``, ``errors_[r, k, l]`` = P(rater r says l | true k)), ``confusions_``
    (dict rater → DataFrame true × observed), ``log_likelihood_`` (list), ``n_iter_``,
    ``n_ratings_`` (Series by item_id).

    >>> DawidSkene(n_iter=20)
    DawidSkene(n_iter=20, tol=1e-05, rater_type='human', categories=None)

    Reference: Dawid, A. P. & Skene, A. M. (1979). Maximum likelihood estimation of observer
    error-rates using the EM algorithm. JRSS C 28(1), 20–28.
    """

    _params = ("n_iter", "tol", "rater_type", "categories")

    def __init__(
        self,
        n_iter: int = 100,
        tol: float | None = 1e-5,
        *,
        rater_type: RaterType | None = "human",
        categories: list[str] | tuple[str, ...] | None = None,
    ) -> None:
        self.n_iter = n_iter
        self.tol = tol
        self.rater_type = rater_type
        self.categories = categories

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
        design, freq, inverse = _rating_design(table)
        em = _EM(design, freq.astype(float), table.n_raters, table.n_categories)
        post, priors, errs, history = em.run(n_iter, tol)
        self._store(table, post[inverse], priors, errs)
        self.log_likelihood_ = history
        self.n_iter_ = len(history)
        self.n_ratings_ = pd.Series(em.sizes[inverse], index=self.labels_.index, name="n_ratings")
        return self

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

    def __init__(self, design: sparse.csr_matrix, weights: np.ndarray, n_r: int, n_k: int):
        self.design, self.design_t = design, design.T.tocsr()
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
        return scaled / total, ll

    def run(self, n_iter: int, tol: float | None):
        """``(posteriors, priors, errors [r, l, k], log-likelihood per rating history)``."""
        counts = (self.design @ np.tile(np.eye(self.n_k), (self.n_r, 1))).astype(float)
        post = counts / self.sizes[:, None]  # majority-vote shares
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


def _rating_design(table: RatingTable) -> tuple[sparse.csr_matrix, np.ndarray, np.ndarray]:
    """Sparse one-hot design ``(P, R*K)`` of the distinct rating rows, their multiplicities
    ``(P,)`` and each item's row ``(n,)``. Rows are merged only when a row fits one int64 key."""
    from scipy import sparse

    n, n_r, n_k = table.n_items, table.n_raters, table.n_categories
    column = table.rater * n_k + table.label
    if n_r * np.log2(n_k + 1) < 62 and n * n_r <= 200_000_000:
        codes = table.codes_matrix()
        keys = (codes + 1) @ ((n_k + 1) ** np.arange(n_r, dtype=np.int64))
        _, first, inverse, freq = np.unique(keys, return_index=True, return_inverse=True, return_counts=True)
        reps = codes[first]
        rows, raters = np.nonzero(reps >= 0)
        cols = raters * n_k + reps[rows, raters]
        design = sparse.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(len(first), n_r * n_k))
        return design, freq.astype(np.int64), inverse.reshape(-1)
    design = sparse.csr_matrix((np.ones(len(column)), (table.item, column)), shape=(n, n_r * n_k))
    return design, np.ones(n, dtype=np.int64), np.arange(n)
