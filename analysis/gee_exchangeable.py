r"""GEE for a 0/1 outcome with an exchangeable working correlation, from per-cluster sums.

The same estimator as statsmodels' ``GEE(..., family=Binomial(link), cov_struct=Exchangeable())
.fit(cov_type="bias_reduced")`` (:func:`analysis.stats_models.gee_binomial`, the reference in
tests/analysis/balderdash/test_trend_pinned.py): Fisher scoring with the correlation updated
after every step (moment estimator, ``ddof`` = k), stop when the norm of the score is below
``ctol``; the naive, robust (Liang–Zeger) and bias-reduced (Mancl–DeRouen) covariances. What
differs is the arithmetic: with :math:`R_i = (1-\rho)I + \rho J` and :math:`\tilde a = a/\sqrt v`,

.. math::

    a^\top V_i^{-1} b = \frac{\sum \tilde a \tilde b}{1-\rho}
        - c_i \Big(\sum \tilde a\Big)\Big(\sum \tilde b\Big),\qquad
    c_i = \frac{\rho}{(1-\rho)(1 + (n_i - 1)\rho)},

so :math:`M_i = D_i^\top V_i^{-1} D_i` and :math:`s_i = D_i^\top V_i^{-1} r_i` are sums per
cluster (one ``bincount`` each), and the bias-reduced score :math:`D_i^\top V_i^{-1}(I -
H_i)^{-1} r_i` with :math:`H_i = D_i C D_i^\top V_i^{-1}` (rank k) is
:math:`(I - M_i C)^{-1} s_i` (push-through identity), a k × k solve per cluster.
"""

from __future__ import annotations

import numpy as np

from wordplay_audit.analysis import stats_models
from wordplay_audit.analysis.stats_models import GeeFit, MisclassifiedLogit

_FLOAT_EPS = np.finfo(float).eps


class ExchangeableGee:
    """One data set (``endog`` (n,), ``exog`` (n, k), ``groups`` (n,)), fitted for any link."""

    def __init__(self, endog: np.ndarray, exog: np.ndarray, groups: np.ndarray) -> None:
        self.y = np.asarray(endog, dtype=float)
        self.x = np.asarray(exog, dtype=float)
        _, self.cluster = np.unique(np.asarray(groups), return_inverse=True)
        self.n_groups = int(self.cluster.max()) + 1
        self.sizes = np.bincount(self.cluster, minlength=self.n_groups).astype(float)
        self.n_pairs = float((self.sizes * (self.sizes - 1) / 2).sum())
        k = self.x.shape[1]
        self.pairs = [(a, b) for a in range(k) for b in range(a, k)]

    def _sum(self, values: np.ndarray) -> np.ndarray:
        return np.bincount(self.cluster, weights=values, minlength=self.n_groups)

    def _parts(self, beta: np.ndarray, link: MisclassifiedLogit, rho: float | None):
        """Per cluster M_i (G, k, k) and s_i (G, k) at ``beta``, and the standardised residuals
        (only those when ``rho`` is None)."""
        lpr = self.x @ beta
        mu = link.inverse(lpr)
        clipped = np.clip(mu, _FLOAT_EPS, 1 - _FLOAT_EPS)  # statsmodels' Binomial variance
        sdev = np.sqrt(clipped * (1 - clipped))
        d = None if rho is None else self.x * (link.inverse_deriv(lpr) / sdev)[:, None]
        r = (self.y - mu) / sdev
        if d is None:
            return r
        c = rho / ((1.0 - rho) * (1.0 + rho * (self.sizes - 1.0)))
        k = self.x.shape[1]
        sd = np.stack([self._sum(d[:, j]) for j in range(k)], axis=1)
        sr = self._sum(r)
        m = np.empty((self.n_groups, k, k))
        for a, b in self.pairs:
            m[:, a, b] = m[:, b, a] = self._sum(d[:, a] * d[:, b]) / (1.0 - rho) - c * sd[:, a] * sd[:, b]
        s = (
            np.stack([self._sum(d[:, j] * r) for j in range(k)], axis=1) / (1.0 - rho)
            - c[:, None] * sd * sr[:, None]
        )
        return m, s, r

    def _rho(self, r: np.ndarray) -> float:
        """statsmodels' ``Exchangeable.update`` (unweighted; ``ddof`` = k)."""
        k = self.x.shape[1]
        ssr = self._sum(r * r)
        scale = ssr.sum() / (self.y.size - k)
        pairs = ((self._sum(r) ** 2 - ssr) / 2).sum() / scale
        return float(pairs / (self.n_pairs - k))

    def fit(
        self,
        link: MisclassifiedLogit,
        start: np.ndarray | None = None,
        *,
        maxiter: int = 100,
        ctol: float = 1e-6,
    ) -> GeeFit:
        """The fit (raises ``numpy.linalg.LinAlgError`` where a matrix is singular). Without
        ``start``, the independence (GLM) fit is the start, as statsmodels does."""
        beta = np.zeros(self.x.shape[1]) if start is None else np.asarray(start, dtype=float).copy()
        if start is None:  # Fisher scoring with rho = 0 is the GLM's IRLS
            for _ in range(100):
                m, s, _ = self._parts(beta, link, 0.0)
                step = np.linalg.solve(m.sum(0), s.sum(0))
                beta += step
                if np.abs(step).max() < 1e-12:
                    break
        rho, norm, updates = 0.0, -1.0, 0
        for _ in range(maxiter):
            m, s, _ = self._parts(beta, link, rho)
            score = s.sum(0)
            beta = beta + np.linalg.solve(m.sum(0), score)
            norm = float(np.sqrt(np.sum(score**2)))
            if norm < ctol and updates > 0:
                break
            rho = self._rho(self._parts(beta, link, None))
            updates += 1
        m, s, _ = self._parts(beta, link, rho)
        naive = np.linalg.inv(m.sum(0))
        robust = naive @ np.einsum("gi,gj->ij", s, s) @ naive
        corrected = np.linalg.solve(np.eye(naive.shape[0])[None] - m @ naive[None], s[:, :, None])[:, :, 0]
        reduced = naive @ np.einsum("gi,gj->ij", corrected, corrected) @ naive
        from scipy import stats

        with np.errstate(invalid="ignore"):  # a negative variance (numerical) is NaN, as in statsmodels
            bse, bse_robust = np.sqrt(np.diag(reduced)), np.sqrt(np.diag(robust))

        return GeeFit(
            params=beta, bse=bse, bse_robust=bse_robust,
            pvalues_z=2.0 * stats.norm.sf(np.abs(beta / bse)), cov=reduced, dep_param=rho,
            converged=norm < ctol, n_groups=self.n_groups, messages=(),
        )  # fmt: skip


def gee_fit(
    model: ExchangeableGee,
    *,
    sensitivity: float | None = None,
    specificity: float | None = None,
    start_params: np.ndarray | None = None,
) -> GeeFit:
    """:func:`analysis.stats_models.gee_binomial`'s result, computed by ``model``; where that
    raises or does not converge, statsmodels' own fit (and what it raises or warns)."""
    se = 1.0 if sensitivity is None else sensitivity
    sp = 1.0 if specificity is None else specificity
    try:
        fit = model.fit(MisclassifiedLogit(se, sp), start_params)
        if fit.converged and np.isfinite(fit.bse).all():
            return fit
    except (np.linalg.LinAlgError, ValueError, FloatingPointError):
        pass
    return stats_models.gee_binomial(
        model.y, model.x, model.cluster, sensitivity=sensitivity, specificity=specificity,
        start_params=start_params,
    )  # fmt: skip
