"""Rogan–Gladen correction of a judge's rate (game-agnostic).

θ̂ = (p + Sp − 1)/(Se + Sp − 1), p the judge's rate on the N items of a cell and Se, Sp the
judge's sensitivity and specificity (Rogan & Gladen 1978, Am. J. Epidemiol. 107:71), with the
delta-method variance of Greenland (1996, Epidemiology 7:498) plus the cell's own departure
from the accuracy Se and Sp describe.
"""

from __future__ import annotations

import numpy as np

from wordplay_audit.analysis.correction.poststratify import JudgeAccuracy

__all__ = ["rogan_gladen"]


def rogan_gladen(
    p: float, acc: JudgeAccuracy, n_cell: int, *, share_pos: float = 0.0, share_neg: float = 0.0
) -> tuple[float, float]:
    """Rogan–Gladen correction of the judge's rate ``p`` on the ``n_cell`` items of a cell.

    Returns ``(theta, variance)`` with θ clipped to [0, 1] (variance evaluated there); nan
    when J = Se + Sp − 1 ≤ 0 or Se/Sp are unknown.

    The variance (the first term from estimating Se and Sp, the second the cell against the
    model)::

        Var = [θ² Var(Se) + (1 − θ)² Var(Sp) − 2θ(1 − θ) Cov]/J²
              + [θ Se(1 − Se)(1 − w₊) + (1 − θ) Sp(1 − Sp)(1 − w₋)] / (n J²)

    The second term is the cell's own realised accuracy departing from the realised accuracy
    that Se and Sp estimate: the cell holds a share w₊ of the true items of the population
    Se and Sp describe and w₋ of its false ones; a cell that is the whole population (w = 1)
    has no such term.
    """
    se, sp = acc.se, acc.sp
    j = se + sp - 1
    if not np.isfinite(j) or j <= 0:
        return np.nan, np.nan
    theta = float(np.clip((p + sp - 1) / j, 0.0, 1.0))
    var_acc = (
        theta**2 * acc.var_se + (1 - theta) ** 2 * acc.var_sp - 2 * theta * (1 - theta) * acc.cov
    ) / j**2
    spread = theta * se * (1 - se) * (1 - share_pos) + (1 - theta) * sp * (1 - sp) * (1 - share_neg)
    var_noise = spread / (n_cell * j**2) if n_cell else 0.0
    return theta, float(max(var_acc, 0.0) + max(var_noise, 0.0))
