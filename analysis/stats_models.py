"""The one module of wordplay-audit that calls statsmodels (public API only).

Every model fit the analyses need is a small function here that takes arrays and returns a
frozen result object of plain numbers, so the rest of the package never sees a statsmodels
results class and never has to silence statsmodels itself. Warnings statsmodels raises while
fitting are caught *locally* (``warnings.catch_warnings``) and handed back as text in
``messages``; nothing is filtered at import.

Contents
    :class:`MisclassifiedLogit`  a Binomial link for outcomes recorded by an imperfect judge
    :func:`gee_binomial`         GEE, Binomial family, exchangeable within cluster,
                                 Mancl–DeRouen bias-reduced sandwich (the reference of
                                 :mod:`analysis.gee_exchangeable`, which the trend tests use)
    :func:`mixed_linear_slope`   linear mixed model with random intercepts for game and player
    :func:`mixed_linear_slope_fallback`  the same, falling back to game intercepts when singular
    :func:`logit_slope_lr`       logistic regression on one covariate with a likelihood-ratio test

Shared by design: other analyses should add their statsmodels calls here rather than import
statsmodels themselves.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
from scipy import special, stats
from statsmodels.genmod.families import links

from wordplay_audit.errors import ParameterError, check_choice

_EPS = 1e-10


class MisclassifiedLogit(links.Link):
    r"""Logit link seen through a misclassifying judge.

    If the true outcome follows :math:`P(T = 1) = \operatorname{expit}(\eta)` and a judge with
    sensitivity :math:`Se` and specificity :math:`Sp` records it, the recorded outcome has

    .. math::

        \mu = P(Y = 1) = (1 - Sp) + (Se + Sp - 1)\,\operatorname{expit}(\eta)
            = a + b\,q,\qquad q = \operatorname{expit}(\eta),

    so the link is :math:`g(\mu) = \operatorname{logit}((\mu - a)/b)` with
    :math:`a = 1 - Sp`, :math:`b = Se + Sp - 1 > 0`. Its derivatives, all analytic:

    * :math:`g^{-1\prime}(\eta) = b\,q(1-q)`,
      :math:`g^{-1\prime\prime}(\eta) = b\,q(1-q)(1-2q)`;
    * :math:`g'(\mu) = 1/(b\,q(1-q))`,
      :math:`g''(\mu) = (2q-1)/(b^2 q^2 (1-q)^2)` with :math:`q = (\mu - a)/b`.

    With Se = Sp = 1 this is the ordinary logit. The Binomial variance :math:`\mu(1-\mu)` stays
    the right variance for the recorded 0/1 outcome, so IRLS/GEE with this link maximise the
    misclassification likelihood of Neuhaus (1999), *Biometrika* 86:843–855, and Magder &
    Hughes (1997), *Am J Epidemiol* 146:195–203. Pass the family
    ``Binomial(link=..., check_link=False)``: statsmodels does not list custom links as safe.
    """

    def __init__(self, sensitivity: float, specificity: float) -> None:
        if not (0.0 <= sensitivity <= 1.0 and 0.0 <= specificity <= 1.0):
            raise ParameterError("sensitivity and specificity must lie in [0, 1]")
        if sensitivity + specificity <= 1.0:
            raise ParameterError("sensitivity + specificity must exceed 1 (a judge better than chance)")
        self.sensitivity = float(sensitivity)
        self.specificity = float(specificity)
        self.floor = 1.0 - self.specificity  # a
        self.span = self.sensitivity + self.specificity - 1.0  # b

    def _q(self, mu):
        q = (np.asarray(mu, dtype=float) - self.floor) / self.span
        return np.clip(q, _EPS, 1.0 - _EPS)

    def __call__(self, p):
        return special.logit(self._q(p))

    def inverse(self, z):
        return self.floor + self.span * special.expit(np.asarray(z, dtype=float))

    def deriv(self, p):
        q = self._q(p)
        return 1.0 / (self.span * q * (1.0 - q))

    def deriv2(self, p):
        q = self._q(p)
        return (2.0 * q - 1.0) / (self.span**2 * (q * (1.0 - q)) ** 2)

    def inverse_deriv(self, z):
        q = special.expit(np.asarray(z, dtype=float))
        return self.span * q * (1.0 - q)

    def inverse_deriv2(self, z):
        q = special.expit(np.asarray(z, dtype=float))
        return self.span * q * (1.0 - q) * (1.0 - 2.0 * q)


def _messages(caught: list[warnings.WarningMessage]) -> tuple[str, ...]:
    seen: list[str] = []
    for item in caught:
        text = str(item.message).strip().splitlines()[0] if str(item.message).strip() else ""
        line = f"{item.category.__name__}: {text}"
        if line not in seen:
            seen.append(line)
    return tuple(seen)


@dataclass(frozen=True)
class GeeFit:
    """A GEE fit as plain numbers.

    ``bse`` is the Mancl–DeRouen bias-reduced sandwich SE, ``bse_robust`` the ordinary
    (Liang–Zeger) sandwich SE, ``pvalues_z`` the normal-reference p-values statsmodels reports
    from ``bse``. ``dep_param`` is the estimated exchangeable correlation.
    """

    params: np.ndarray
    bse: np.ndarray
    bse_robust: np.ndarray
    pvalues_z: np.ndarray
    cov: np.ndarray
    dep_param: float
    converged: bool
    n_groups: int
    messages: tuple[str, ...]


def gee_binomial(
    endog: np.ndarray,
    exog: np.ndarray,
    groups: np.ndarray,
    *,
    sensitivity: float | None = None,
    specificity: float | None = None,
    start_params: np.ndarray | None = None,
    maxiter: int = 100,
) -> GeeFit:
    r"""Fit a marginal logistic model by GEE with an exchangeable working correlation.

    Model: :math:`E[Y_{ij}] = \mu(\eta_{ij})`, :math:`\eta = X\beta`, with the logit link, or
    :class:`MisclassifiedLogit` when ``sensitivity`` or ``specificity`` is given; working
    correlation exchangeable within each group (Liang & Zeger 1986, *Biometrika* 73:13–22).
    The covariance is the bias-reduced sandwich of Mancl & DeRouen (2001), *Biometrics*
    57:126–134 (``cov_type="bias_reduced"``):

    .. math::

        \hat V = A^{-1}\Big[\sum_i D_i^\top V_i^{-1}(I - H_i)^{-1} r_i r_i^\top
                 (I - H_i)^{-\top} V_i^{-1} D_i\Big] A^{-1},\quad
        A = \sum_i D_i^\top V_i^{-1} D_i,\quad H_i = D_i A^{-1} D_i^\top V_i^{-1}.

    Shapes: ``endog`` (n,), 0/1; ``exog`` (n, k) including the intercept column; ``groups`` (n,).
    Raises what statsmodels raises on a singular problem (``numpy.linalg.LinAlgError``,
    ``ValueError``); non-convergence is reported in ``converged`` and ``messages``.
    """
    family = _family(sensitivity, specificity)
    with warnings.catch_warnings(record=True) as caught:
        _quiet_custom_link()
        model = _gee_model(endog, exog, groups, family)
        return _gee_fit(model, caught, start_params, maxiter)


def _family(sensitivity: float | None, specificity: float | None):
    from statsmodels.genmod.families import Binomial

    if sensitivity is None and specificity is None:
        return Binomial()
    link = MisclassifiedLogit(
        1.0 if sensitivity is None else sensitivity, 1.0 if specificity is None else specificity
    )
    return Binomial(link=link, check_link=False)


def _quiet_custom_link() -> None:
    """Within a ``catch_warnings(record=True)`` block: record all, but not statsmodels' notice
    that the custom link is not a listed Binomial link (deliberate; it carries no information)."""
    warnings.simplefilter("always")
    warnings.filterwarnings("ignore", message=".*does not respect the domain.*")


def _gee_model(endog, exog, groups, family):
    from statsmodels.genmod.cov_struct import Exchangeable
    from statsmodels.genmod.generalized_estimating_equations import GEE

    return GEE(
        np.asarray(endog, dtype=float), np.asarray(exog, dtype=float), groups=np.asarray(groups),
        family=family, cov_struct=Exchangeable(),
    )  # fmt: skip


def _gee_fit(model, caught: list, start_params, maxiter: int) -> GeeFit:
    result = model.fit(maxiter=maxiter, start_params=start_params, cov_type="bias_reduced")
    dep = np.asarray(model.cov_struct.dep_params, dtype=float).ravel()
    return GeeFit(
        params=np.asarray(result.params, dtype=float), bse=np.asarray(result.bse, dtype=float),
        bse_robust=np.sqrt(np.diag(np.asarray(result.cov_robust, dtype=float))),
        pvalues_z=np.asarray(result.pvalues, dtype=float), cov=np.asarray(result.cov_params(), dtype=float),
        dep_param=float(dep[0]) if dep.size else float("nan"),
        converged=bool(getattr(result, "converged", True)), n_groups=int(model.num_group),
        messages=_messages(caught),
    )  # fmt: skip


@dataclass(frozen=True)
class MixedFit:
    """Fixed slope of a linear mixed model, its SE and z-test p-value (as statsmodels reports).

    ``optimizer`` is the method whose result is reported: :data:`FIRST_OPTIMIZER`, or
    :data:`FALLBACK_OPTIMIZER` when the first did not converge (statsmodels then retries from
    where it stopped)."""

    slope: float
    se: float
    pvalue: float
    converged: bool
    messages: tuple[str, ...]
    structure: str = "game+player"
    optimizer: str = "powell"

    @property
    def fell_back(self) -> bool:
        """Whether the first optimiser did not converge and the fallback gave the result."""
        return self.optimizer != FIRST_OPTIMIZER


MIXED_STRUCTURES = ("game+player", "game")
"""Random-intercept structures tried in order by :func:`mixed_linear_slope_fallback`."""
FIRST_OPTIMIZER = "slsqp"
"""The mixed model's optimiser: SLSQP bounded at 0 on the REML criterion from sufficient
statistics (:class:`analysis.nested_reml.NestedReml`); the optimum is often on that boundary,
where statsmodels' default BFGS stopped unconverged in 7 of 14 cells of a benchmark export."""
FALLBACK_OPTIMIZER = "powell"
"""Only where :data:`FIRST_OPTIMIZER` does not converge: statsmodels' ``MixedLM``, Powell then L-BFGS."""


def mixed_linear_slope_fallback(
    endog: np.ndarray, x: np.ndarray, game: np.ndarray, player: np.ndarray
) -> tuple[MixedFit | None, str]:
    """:func:`mixed_linear_slope` with random intercepts for game and player; where that fit is
    singular (``LinAlgError``, e.g. one player per game makes the two intercepts the same), does
    not converge or gives a non-finite slope, the simpler model with a random intercept per game
    only. Returns ``(fit, note)``: the fit (``structure`` says which) or None when neither
    structure could be fitted, and a note saying what happened ('' for the full structure)."""
    failures = []
    for structure in MIXED_STRUCTURES:
        try:
            fit = mixed_linear_slope(endog, x, game, player, structure=structure)
        except (np.linalg.LinAlgError, ValueError, FloatingPointError) as exc:
            failures.append(f"{structure}: {type(exc).__name__}")
            continue
        if fit.converged and np.isfinite(fit.slope) and np.isfinite(fit.pvalue):
            fallback = f"mixed model fell back to {structure} intercepts ({'; '.join(failures)})"
            return fit, fallback if failures else ""
        failures.append(f"{structure}: did not converge")
    return None, f"mixed model not estimable ({'; '.join(failures)}); the GEE and two-stage tests stand"


def _mixed_design(x: np.ndarray, game: np.ndarray, player: np.ndarray, structure: str):
    """Arrays of ``smf.mixedlm("y ~ x", groups=game, re_formula="1", vc_formula={"player": …})``:
    the fixed design, game codes, and per game the indicators of its players (rows in data order)."""
    exog = np.column_stack([np.ones(x.size), x])
    labels, codes = np.unique(np.asarray(game).astype(str), return_inverse=True)
    if structure != "game+player":
        return exog, codes, None
    from statsmodels.regression.mixed_linear_model import VCSpec

    players, names, mats = np.asarray(player).astype(str), [], []
    for g in range(labels.size):
        levels, which = np.unique(players[codes == g], return_inverse=True)
        mats.append((which[:, None] == np.arange(levels.size)[None, :]).astype(float))
        names.append([f"C(player)[{v}]" for v in levels])
    return exog, codes, VCSpec(["player"], [names], [mats])


def mixed_linear_slope(
    endog: np.ndarray, x: np.ndarray, game: np.ndarray, player: np.ndarray, *, structure: str = "game+player"
) -> MixedFit:
    r"""REML fit of :math:`y_{gpr} = \beta_0 + \beta_1 x_r + u_g + v_{gp} + e_{gpr}`.

    Random intercepts :math:`u_g \sim N(0, \sigma_g^2)` per game and :math:`v_{gp} \sim
    N(0, \sigma_p^2)` per player within game (a variance component), independent errors; the
    0/1 outcome is modelled linearly (a linear probability model), so :math:`\beta_1` is on the
    probability scale. Laird & Ware (1982), *Biometrics* 38:963–974. The test of
    :math:`\beta_1 = 0` is a Wald z-test; it assumes the slope is common to all games, so it is
    a valid test only of "no trend in any game". ``player`` must be unique across games
    (e.g. ``game:player``). ``structure="game"`` drops the player intercept. Shapes: all (n,).

    Fitted by :data:`FIRST_OPTIMIZER`, or where that does not converge statsmodels (the model
    ``smf.mixedlm("y ~ x", groups="game", re_formula="1", vc_formula={"player": "0 + C(player)"})`` builds,
    given as arrays) by :data:`FALLBACK_OPTIMIZER`; ``optimizer`` says which. With one player per
    game the two intercepts are one (``LinAlgError``: fit ``structure="game"``).
    """
    from wordplay_audit.analysis.nested_reml import NestedReml

    check_choice("structure", structure, MIXED_STRUCTURES)
    y, x = np.asarray(endog, dtype=float), np.asarray(x, dtype=float)
    exog = np.column_stack([np.ones(x.size), x])
    players = np.asarray(player).astype(str) if structure == "game+player" else None
    if players is not None and np.unique(players).size == np.unique(np.asarray(game).astype(str)).size:
        raise np.linalg.LinAlgError("one player per game: the player intercept is the game's")
    reml = NestedReml(y, exog, game, players)
    gamma, converged = reml.optimum()
    caught: list = []
    if converged:
        beta, cov = reml.fixed_effects(gamma)
        slope, se, optimizer = float(beta[1]), float(np.sqrt(cov[1, 1])), FIRST_OPTIMIZER
    else:
        slope, se, converged, caught = _mixed_statsmodels(y, x, game, player, structure)
        optimizer = FALLBACK_OPTIMIZER
    z = slope / se if se > 0 else float("nan")
    pvalue = float(2.0 * stats.norm.sf(abs(z))) if np.isfinite(z) else float("nan")
    return MixedFit(slope=slope, se=se, pvalue=pvalue, converged=converged, messages=_messages(caught),
                    structure=structure, optimizer=optimizer)  # fmt: skip


def _mixed_statsmodels(y, x, game, player, structure: str) -> tuple[float, float, bool, list]:
    from statsmodels.regression.mixed_linear_model import MixedLM

    exog, codes, vc = _mixed_design(x, game, player, structure)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = MixedLM(y, exog, codes, exog_re=np.ones((y.size, 1)), exog_vc=vc)
        result = model.fit(reml=True, method=["powell", "lbfgs"])
        slope, se = float(result.fe_params[1]), float(result.bse_fe[1])
    return slope, se, bool(result.converged), list(caught)


@dataclass(frozen=True)
class LogitSlope:
    """Slope of a one-covariate logistic regression and its likelihood-ratio p-value."""

    slope: float
    pvalue: float
    n: int
    messages: tuple[str, ...]


def logit_slope_lr(endog: np.ndarray, x: np.ndarray) -> LogitSlope:
    r"""Fit :math:`\operatorname{logit} P(Y=1) = \beta_0 + \beta_1 x` by maximum likelihood
    (statsmodels GLM, Binomial) and test :math:`\beta_1 = 0` by the likelihood-ratio statistic
    :math:`2(\ell_1 - \ell_0) \sim \chi^2_1` (Agresti 2013, *Categorical Data Analysis*, §1.3.3).

    The LR test stays usable under quasi-separation, where the Wald test breaks down; the
    slope reported then is large and only indicative. An outcome that never varies returns
    NaN for both (no information about a trend). Shapes: (n,).
    """
    endog = np.asarray(endog, dtype=float)
    x = np.asarray(x, dtype=float)
    n = int(endog.size)
    if n == 0 or endog.min() == endog.max() or x.min() == x.max():
        return LogitSlope(float("nan"), float("nan"), n, ())
    from statsmodels.genmod.families import Binomial
    from statsmodels.genmod.generalized_linear_model import GLM

    exog1 = np.column_stack([np.ones(n), x])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        full = GLM(endog, exog1, family=Binomial()).fit()
        null = GLM(endog, np.ones((n, 1)), family=Binomial()).fit()
    statistic = max(0.0, 2.0 * (float(full.llf) - float(null.llf)))
    return LogitSlope(
        slope=float(full.params[1]),
        pvalue=float(stats.chi2.sf(statistic, 1)),
        n=n,
        messages=_messages(caught),
    )
