"""MACE (Hovy, Berg-Kirkpatrick, Vaswani & Hovy 2013, NAACL, "Learning Whom to Trust with
MACE"): each rater either knows the item's label and gives it, or spams from their own label
distribution — crowd-kit's ``MACE``. An estimator as :mod:`.aggregation` describes.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from wordplay_audit.errors import ParameterError

from ._common import RaterType, check_rater_type, check_whole
from .aggregation import _Estimator
from .tables import RatingTable, as_rating_table

__all__ = ["MACE"]


class MACE(_Estimator):
    """Multi-Annotator Competence Estimation.

    Model: item *i* has a true label :math:`T_i` uniform over the K categories; rater *j* spams
    on it with probability :math:`\\sigma_{j0}` (knows with :math:`\\sigma_{j1} = 1 - \\sigma_{j0}`);
    knowing, they answer :math:`T_i`, spamming they draw from :math:`\\xi_j`. So
    :math:`P(y_{ij} = l \\mid T_i = k) = \\sigma_{j0}\\xi_{jl} + \\sigma_{j1}[l = k]`.

    Fit (as crowd-kit's ``MACE``): ``n_restarts`` runs, each from σ and ξ drawn uniform on
    [1, 2.5 (1 + ``default_noise``)] and normalised (run *r* seeded ``seed`` + r, raters and
    categories in their order of first appearance), then ``n_iter`` rounds of M-step and E-step;
    the run of the highest marginal log-likelihood :math:`\\sum_i \\log(\\sum_k P(y_i, T_i=k) + 10^{-8})`
    is kept. E-step: item marginals and the expected spamming and knowing counts per rater (and
    per label spammed). M-step ``method="vb"`` (variational Bayes): :math:`\\exp\\psi(c + a)/
    \\exp\\psi(\\sum(c + a))` with Beta(``alpha``, ``beta``) on σ and Dirichlet(10) on ξ;
    ``method="em"``: the counts + 0.01/K normalised.

    Attributes after :meth:`fit`: ``labels_``, ``probas_`` (items × categories), ``spamming_``
    (DataFrame rater × [spamming, knowing]), ``thetas_`` (DataFrame rater × category: ξ),
    ``competence_`` (Series: P(knowing) per rater), ``log_likelihood_``.

    >>> MACE(n_restarts=1)
    MACE(n_iter=50, n_restarts=1, method='vb', alpha=0.5, beta=0.5, default_noise=0.5, seed=0, rater_type='human')
    """

    _params = ("n_iter", "n_restarts", "method", "alpha", "beta", "default_noise", "seed", "rater_type")

    def __init__(  # noqa: PLR0913 - crowd-kit's parameters, keyword-only
        self, n_iter: int = 50, n_restarts: int = 10, *, method: str = "vb", alpha: float = 0.5,
        beta: float = 0.5, default_noise: float = 0.5, seed: int = 0, rater_type: RaterType | None = "human",
    ) -> None:  # fmt: skip
        self.n_iter, self.n_restarts, self.method = n_iter, n_restarts, method
        self.alpha, self.beta, self.default_noise, self.seed = alpha, beta, default_noise, seed
        self.rater_type = rater_type

    def fit(self, labels: pd.DataFrame | RatingTable) -> MACE:
        """Fit on a labels table (or a prepared :class:`RatingTable`); returns ``self``."""
        n_iter = check_whole("n_iter", self.n_iter, low=0)
        restarts = check_whole("n_restarts", self.n_restarts, low=1)
        if self.method not in ("vb", "em"):
            raise ParameterError(f"method: expected 'vb' or 'em', got {self.method!r}")
        check_rater_type(self.rater_type)
        table = as_rating_table(labels, rater_type=self.rater_type)
        fit = _Fit(table)
        best = None
        for run in range(restarts):
            fit.start(self.seed + run, self.default_noise)
            ll = fit.e_step()
            for _ in range(n_iter):
                fit.m_step(self.method, self.alpha, self.beta)
                ll = fit.e_step()
            if best is None or ll > best[0]:
                best = (ll, fit.spam.copy(), fit.theta.copy())
        fit.spam, fit.theta = best[1], best[2]
        self.log_likelihood_ = fit.e_step()
        self._store(table, fit)
        return self

    def _store(self, table: RatingTable, fit: _Fit) -> None:
        names = pd.Index(table.categories, name="label")
        raters = pd.Index([str(r) for r in table.raters], name="rater")
        probas = fit.gold / fit.gold.sum(axis=1, keepdims=True)
        self.probas_ = pd.DataFrame(probas, index=pd.Index(table.item_ids, name="item_id"), columns=names)
        self.labels_ = pd.Series(np.asarray(table.categories, dtype=object)[probas.argmax(axis=1)],
                                 index=self.probas_.index, name="label")  # fmt: skip
        self.spamming_ = pd.DataFrame(fit.spam, index=raters, columns=["spamming", "knowing"])
        self.thetas_ = pd.DataFrame(fit.theta, index=raters, columns=names)
        self.competence_ = self.spamming_["knowing"].rename("competence")
        self.n_ratings_ = fit.n_ratings

    def consensus(self) -> pd.DataFrame:
        """One row per item: ``item_id``, ``label``, ``posterior``, ``n_ratings``, sorted."""
        self._check_fitted()
        counts = self.n_ratings_
        frame = pd.DataFrame({"item_id": self.labels_.index.to_numpy(dtype=object),
                              "label": self.labels_.to_numpy(dtype=object),
                              "posterior": self.probas_.to_numpy().max(axis=1), "n_ratings": counts})  # fmt: skip
        return frame.sort_values("item_id", kind="stable").reset_index(drop=True)


class _Fit:
    """The arrays of one MACE fit over M ratings (item, rater, label codes)."""

    def __init__(self, table: RatingTable) -> None:
        self.i, self.w, self.y = table.item, table.rater, table.label
        self.n, self.n_w, self.n_k = table.n_items, table.n_raters, table.n_categories
        self.rater_order = pd.unique(self.w)  # first appearance: the draws' row order
        self.label_order = pd.unique(self.y)

    def start(self, seed: int, noise: float) -> None:
        from scipy import stats

        draw = stats.uniform(1, 1 + noise)
        spam = draw.rvs(size=(self.n_w, 2), random_state=seed)
        theta = draw.rvs(size=(self.n_w, self.n_k), random_state=seed)
        self.spam = np.empty_like(spam)
        self.spam[self.rater_order] = spam / spam.sum(axis=1, keepdims=True)
        theta = theta / theta.sum(axis=1, keepdims=True)
        self.theta = np.empty_like(theta)
        self.theta[np.ix_(self.rater_order, self.label_order)] = theta

    def e_step(self) -> float:
        i, w, y = self.i, self.w, self.y
        spam_part = self.spam[w, 0] * self.theta[w, y]  # (M,)
        g = spam_part[:, None] + self.spam[w, 1][:, None] * (np.arange(self.n_k) == y[:, None])
        log_gold = np.stack([np.bincount(i, np.log(g[:, k]), self.n) for k in range(self.n_k)], axis=1)
        self.gold = np.exp(log_gold) / self.n_k
        inst = self.gold.sum(axis=1)
        strategy = (self.gold[i] / g).sum(axis=1) * spam_part / inst[i]
        knowing = self.gold[i, y] * self.spam[w, 1] / (spam_part + self.spam[w, 1]) / inst[i]
        self.strategy = np.bincount(w * self.n_k + y, strategy, self.n_w * self.n_k).reshape(
            self.n_w, self.n_k
        )
        self.knowing = np.column_stack(
            [np.bincount(w, strategy, self.n_w), np.bincount(w, knowing, self.n_w)]
        )
        return float(np.log(inst + 1e-8).sum())

    def m_step(self, method: str, alpha: float, beta: float) -> None:
        if method == "vb":
            from scipy.special import digamma

            def vb(x, prior):
                return np.exp(digamma(x + prior)) / np.exp(digamma((x + prior).sum(axis=1, keepdims=True)))

            self.spam = vb(self.knowing, np.array([alpha, beta]))
            self.theta = vb(self.strategy, 10.0)
        else:
            smooth = 0.01 / self.n_k
            self.spam = (self.knowing + smooth) / (self.knowing + smooth).sum(axis=1, keepdims=True)
            self.theta = (self.strategy + smooth) / (self.strategy + smooth).sum(axis=1, keepdims=True)

    @property
    def n_ratings(self) -> np.ndarray:
        return np.bincount(self.i, minlength=self.n)
