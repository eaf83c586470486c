r"""The REML criterion of a linear model with nested random intercepts, from sufficient statistics.

Model (the one :func:`analysis.stats_models.mixed_linear_slope` fits): per game g, player p and
round r, :math:`y = X\beta + u_g + v_{gp} + e` with :math:`u_g \sim N(0, \gamma_g\sigma^2)`,
:math:`v_{gp} \sim N(0, \gamma_p\sigma^2)`, :math:`e \sim N(0, \sigma^2)`. Per game,
:math:`V/\sigma^2 = I + \gamma_p \sum_p 1_p 1_p^\top + \gamma_g 1 1^\top`; with
:math:`w_p = 1/(1 + \gamma_p n_p)` the block inverse, then Sherman–Morrison for the game term,

.. math::

    a^\top V^{-1} b\,\sigma^2 = a^\top b - \gamma_p \sum_p w_p A_p B_p
        - \sum_g \frac{\gamma_g}{1 + \gamma_g s_g} T_g(a) T_g(b),\qquad
    s_g = \sum_{p \in g} n_p w_p,\ T_g(a) = \sum_{p \in g} w_p A_p,

(:math:`A_p` the sum of ``a`` over player p's rows) and
:math:`\log|V/\sigma^2| = \sum_p \log(1 + \gamma_p n_p) + \sum_g \log(1 + \gamma_g s_g)`
(the determinant lemma). So each evaluation costs a few sums over players, not a pass over the
data. With the scale profiled out, the REML criterion (Harville 1977, *JASA* 72:320–338) is

.. math::

    -2\ell_R(\gamma) = (n - k)\log(r^\top V^{-1} r\,\sigma^2) + \log|V/\sigma^2|
        + \log|X^\top V^{-1} X\,\sigma^2| + \text{const}.

At the optimum, the fixed effects and their covariance are the GLS ones (:meth:`fixed_effects`;
equal to statsmodels' ``MixedLM`` at the same optimum, tests/analysis/balderdash/
test_trend_pinned.py).
"""

from __future__ import annotations

import numpy as np
from scipy import optimize


class NestedReml:
    """The REML criterion of ``y`` on ``exog`` (n, k) with random intercepts per ``game`` and,
    unless ``players`` is None, per player within game (``players`` unique across games)."""

    def __init__(self, y: np.ndarray, exog: np.ndarray, game: np.ndarray, players: np.ndarray | None) -> None:
        data = np.column_stack([exog, y]).astype(float)
        self.n, self.k = exog.shape
        _, game_codes = np.unique(np.asarray(game).astype(str), return_inverse=True)
        blocks = (
            game_codes
            if players is None
            else np.unique(np.asarray(players).astype(str), return_inverse=True)[1]
        )
        n_blocks = int(blocks.max()) + 1
        self.cross = data.T @ data
        self.sizes = np.bincount(blocks, minlength=n_blocks).astype(float)
        self.sums = np.stack([np.bincount(blocks, weights=c, minlength=n_blocks) for c in data.T], axis=1)
        block_game = np.zeros(n_blocks, dtype=int)
        block_game[blocks] = game_codes
        self.block_game, self.n_games = block_game, int(game_codes.max()) + 1
        self.nested = players is not None

    def moments(self, gamma_game: float, gamma_player: float) -> tuple[np.ndarray, float]:
        """:math:`[X\\,y]^\\top V^{-1} [X\\,y]\\,\\sigma^2` and :math:`\\log|V/\\sigma^2|`."""
        gp = gamma_player if self.nested else 0.0
        w = 1.0 / (1.0 + gp * self.sizes)
        m = self.cross - gp * (self.sums * w[:, None]).T @ self.sums
        s = np.bincount(self.block_game, weights=self.sizes * w, minlength=self.n_games)
        t = np.stack(
            [np.bincount(self.block_game, weights=w * c, minlength=self.n_games) for c in self.sums.T], 1
        )
        m = m - (t * (gamma_game / (1.0 + gamma_game * s))[:, None]).T @ t
        logdet = float(np.log1p(gp * self.sizes).sum() + np.log1p(gamma_game * s).sum())
        return m, logdet

    def criterion(self, gamma: np.ndarray) -> float:
        """:math:`-2\\ell_R` up to a constant, at ``gamma`` = (γ_game, γ_player) ≥ 0."""
        m, logdet = self.moments(float(gamma[0]), float(gamma[1]) if gamma.size > 1 else 0.0)
        k = self.k
        mxx, mxy = m[:k, :k], m[:k, k]
        sign, logdet_x = np.linalg.slogdet(mxx)
        rvr = m[k, k] - mxy @ np.linalg.solve(mxx, mxy)
        if sign <= 0 or rvr <= 0:
            return np.inf
        return float((self.n - k) * np.log(rvr) + logdet + logdet_x)

    def optimum(self) -> tuple[np.ndarray, bool]:
        """The REML estimate of (γ_game[, γ_player]) and whether the optimiser converged
        (SLSQP from 1, bounded below by 0: an optimum on the boundary is reached, not
        approached)."""
        size = 2 if self.nested else 1
        found = optimize.minimize(self.criterion, np.ones(size), method="SLSQP", bounds=[(0.0, None)] * size)
        ok = bool(found.success) and np.isfinite(found.fun)
        return np.asarray(found.x, dtype=float), ok

    def fixed_effects(self, gamma: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """GLS :math:`\\hat\beta = (X^\top V^{-1} X)^{-1} X^\top V^{-1} y` at ``gamma`` and its
        covariance :math:`\\hat\\sigma^2 (X^\top V^{-1} X\\,\\sigma^2)^{-1}`, with
        :math:`\\hat\\sigma^2 = r^\top V^{-1} r\\,\\sigma^2/(n - k)` (REML)."""
        m, _ = self.moments(float(gamma[0]), float(gamma[1]) if gamma.size > 1 else 0.0)
        k = self.k
        inverse = np.linalg.inv(m[:k, :k])
        beta = inverse @ m[:k, k]
        scale = (m[k, k] - m[:k, k] @ beta) / (self.n - k)
        return beta, scale * inverse
