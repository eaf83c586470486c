"""The misclassification-adjusted slope: posterior draws of Se and Sp, Rubin's rules."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats

from wordplay_audit.errors import InputError

# --------------------------------------------------------------------------- Rubin's rules


@dataclass(frozen=True)
class RubinResult:
    """Estimates from M analyses combined by Rubin's rules (see :func:`rubin_combine`)."""

    estimate: float
    within: float
    between: float
    total: float
    se: float
    df: float
    pvalue: float
    ci_low: float
    ci_high: float
    draws: int


def rubin_combine(
    estimates: Sequence[float] | np.ndarray,
    variances: Sequence[float] | np.ndarray,
    *,
    df_complete: float,
    level: float = 0.95,
) -> RubinResult:
    r"""Combine M estimates :math:`\hat q_m` with variances :math:`U_m` by Rubin's rules.

    .. math::

        \bar q = \tfrac1M\sum_m \hat q_m,\quad
        W = \tfrac1M\sum_m U_m,\quad
        B = \tfrac1{M-1}\sum_m(\hat q_m - \bar q)^2,\quad
        T = W + (1 + 1/M)\,B.

    Degrees of freedom after Barnard & Rubin (1999), *Biometrika* 86:948–955, with
    :math:`\lambda = (1 + 1/M)B/T`, :math:`\nu_{old} = (M - 1)/\lambda^2`,
    :math:`\nu_{obs} = \frac{\nu_{com} + 1}{\nu_{com} + 3}\nu_{com}(1 - \lambda)`,
    :math:`\nu = (1/\nu_{old} + 1/\nu_{obs})^{-1}`, and finally
    :math:`\min(\nu, \nu_{com})` with :math:`\nu_{com}` = ``df_complete`` (G − 1 here).
    The test of :math:`q = 0` and the interval use :math:`t_\nu`. Rubin (1987), *Multiple
    Imputation for Nonresponse in Surveys*, §3.1. Shapes: (M,), M ≥ 2.
    """
    q = np.asarray(estimates, dtype=float).ravel()
    u = np.asarray(variances, dtype=float).ravel()
    if q.size != u.size:
        raise InputError(f"rubin_combine: {q.size} estimates but {u.size} variances")
    if q.size < 2:
        raise InputError(f"rubin_combine: need at least 2 estimates, got {q.size}")
    if not (np.all(np.isfinite(q)) and np.all(np.isfinite(u)) and np.all(u >= 0)):
        raise InputError("rubin_combine: estimates must be finite and variances finite and >= 0")
    if not df_complete > 0:
        raise InputError(f"rubin_combine: df_complete must be > 0, got {df_complete}")
    m = q.size
    qbar = float(q.mean())
    within = float(u.mean())
    between = float(q.var(ddof=1))
    total = within + (1.0 + 1.0 / m) * between
    lam = (1.0 + 1.0 / m) * between / total if total > 0 else 0.0
    nu_old = (m - 1) / lam**2 if lam > 0 else math.inf
    if math.isinf(df_complete):
        nu_obs = math.inf
    else:
        nu_obs = (df_complete + 1.0) / (df_complete + 3.0) * df_complete * (1.0 - lam)
    inv = (0.0 if math.isinf(nu_old) else 1.0 / nu_old) + (
        0.0 if math.isinf(nu_obs) else (1.0 / nu_obs if nu_obs > 0 else math.inf)
    )
    nu = math.inf if inv == 0 else 1.0 / inv
    df = min(nu, df_complete)
    se = math.sqrt(total)
    if se > 0 and df > 0:
        tstat = qbar / se
        pvalue = float(2.0 * stats.t.sf(abs(tstat), df))
        half = float(stats.t.ppf(0.5 + level / 2.0, df)) * se
    else:
        pvalue, half = math.nan, math.nan
    return RubinResult(
        estimate=qbar,
        within=within,
        between=between,
        total=total,
        se=se,
        df=df,
        pvalue=pvalue,
        ci_low=qbar - half,
        ci_high=qbar + half,
        draws=m,
    )


def draw_se_sp(
    counts: tuple[int, int, int, int], draws: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    r"""Draw ``draws`` pairs from :math:`Se \sim \text{Beta}(1 + TP, 1 + FN)`,
    :math:`Sp \sim \text{Beta}(1 + TN, 1 + FP)` (uniform priors, human labels as truth),
    keeping only pairs with :math:`Se + Sp > 1`: a judge worse than chance makes the
    adjusted model unidentified, so that region is excluded (a truncated prior).

    ``counts`` is (TP, FN, TN, FP) of judge against human in the human sample. Raises
    :class:`InputError` when fewer than 1 in 1000 draws is better than chance.
    """
    tp, fn, tn, fp = counts
    se_out: list[float] = []
    sp_out: list[float] = []
    tried = 0
    while len(se_out) < draws:
        batch = max(2 * draws, 64)
        se = rng.beta(1 + tp, 1 + fn, size=batch)
        sp = rng.beta(1 + tn, 1 + fp, size=batch)
        keep = se + sp > 1.0
        se_out.extend(se[keep].tolist())
        sp_out.extend(sp[keep].tolist())
        tried += batch
        if tried >= 1000 * draws and len(se_out) < draws:
            raise InputError(
                f"se_sp counts {counts}: the judge is no better than chance (Se + Sp <= 1 in "
                "almost every posterior draw), so the adjusted model is not identified"
            )
    return np.asarray(se_out[:draws]), np.asarray(sp_out[:draws])
