"""How many human labels per model a Balderdash audit needs (analytic; checked by simulation in
``tests/test_balderdash_plan.py``).

*Judge false-negative rate.* FNR is a proportion over the definitions people call true. Its
Wilson interval (Wilson 1927) at FNR = F with m such definitions has half-width
h(m) = z √(F(1 − F)/m + z²/4m²) / (1 + z²/m); the plan is the smallest m with h(m) ≤ the
target, and m / π labels when a share π of the labelled definitions is true.

*Corrected rate (Rogan–Gladen).* With n definitions labelled at random from a cell of N, true
rate θ and a judge of sensitivity Se and specificity Sp (J = Se + Sp − 1), Se and Sp
post-stratified on the judge's decision (:func:`analysis.judge_audit.poststratified_accuracy`)
make the Rogan–Gladen estimate on the whole cell equal to the double-sampling estimate
p·PPV + (1 − p)·FOR (Tenenbein 1970), p = Se θ + (1 − Sp)(1 − θ), PPV = Se θ / p,
FOR = (1 − Se) θ / (1 − p). Its variance is

    Var(θ̂) = V₁ / n + V₀ / (N J²),   V₁ = p PPV(1 − PPV) + (1 − p) FOR(1 − FOR),
                                      V₀ = θ Se(1 − Se) + (1 − θ) Sp(1 − Sp)

(the second term is the judge's own noise on the N items), so the half-width z √Var is at most
h when n ≥ V₁ / (h²/z² − V₀/(N J²)).
"""

from __future__ import annotations

import math

from wordplay_audit.analysis.proportions import wilson_halfwidth, z_value
from wordplay_audit.errors import InputError


def labels_for_fnr(
    fnr: float, halfwidth: float, *, true_share: float = 1.0, confidence: float = 0.95
) -> dict[str, float]:
    """Labels per model for a Wilson interval of half-width ≤ ``halfwidth`` on the judge's FNR.

    Returns ``{"true_definitions": m, "labels": ceil(m / true_share), ...}`` where
    ``true_share`` is the share of labelled definitions people will call true (1 when the
    campaign samples among definitions already known to be true).
    """
    if not 0 <= fnr <= 1:
        raise InputError(f"fnr must be a proportion in [0, 1], got {fnr}")
    if not 0 < halfwidth < 0.5:
        raise InputError(f"halfwidth must lie in (0, 0.5), got {halfwidth}")
    if not 0 < true_share <= 1:
        raise InputError(f"true_share must lie in (0, 1], got {true_share}")
    lo, hi = 1, 1
    while wilson_halfwidth(fnr, hi, confidence=confidence) > halfwidth:
        hi *= 2
        if hi > 10**8:  # pragma: no cover - halfwidth in (0, 0.5) always stops far earlier
            raise InputError("halfwidth is too small to plan for")
    while lo < hi:
        mid = (lo + hi) // 2
        if wilson_halfwidth(fnr, mid, confidence=confidence) <= halfwidth:
            hi = mid
        else:
            lo = mid + 1
    return {
        "true_definitions": float(lo),
        "labels": float(math.ceil(lo / true_share)),
        "fnr": fnr,
        "halfwidth": halfwidth,
        "true_share": true_share,
        "confidence": confidence,
    }


def labels_for_corrected_rate(
    rate: float,
    halfwidth: float,
    *,
    se: float,
    sp: float,
    n_items: float = math.inf,
    confidence: float = 0.95,
) -> dict[str, float]:
    """Labels per model (random sample) for a Rogan–Gladen interval of half-width ≤ ``halfwidth``.

    ``rate`` is the expected true rate θ (LKR or TDR), ``n_items`` the cell's number of
    definitions N (infinite by default). Returns ``{"labels": n, ...}``; ``labels`` is inf when
    even labelling all N items cannot reach the width.
    """
    for name, value in (("rate", rate), ("se", se), ("sp", sp)):
        if not 0 <= value <= 1:
            raise InputError(f"{name} must be a proportion in [0, 1], got {value}")
    if not 0 < halfwidth < 0.5:
        raise InputError(f"halfwidth must lie in (0, 0.5), got {halfwidth}")
    j = se + sp - 1
    if j <= 0:
        raise InputError(f"the judge must beat chance (Se + Sp > 1), got Se={se}, Sp={sp}")
    z = z_value(confidence)
    v1, noise = _variance_parts(rate, se, sp, n_items)
    room = halfwidth**2 / z**2 - noise
    if v1 == 0:
        n = 1.0
    else:
        n = math.inf if room <= 0 else float(math.ceil(v1 / room))
    if not math.isinf(n_items) and n > n_items:
        n = math.inf
    return {
        "labels": n,
        "rate": rate,
        "halfwidth": halfwidth,
        "se": se,
        "sp": sp,
        "n_items": n_items,
        "confidence": confidence,
    }


def _variance_parts(rate: float, se: float, sp: float, n_items: float) -> tuple[float, float]:
    """(V₁, V₀/(N J²)) of the module docstring."""
    j = se + sp - 1
    p = se * rate + (1 - sp) * (1 - rate)
    ppv = se * rate / p if p > 0 else 0.0
    fomr = (1 - se) * rate / (1 - p) if p < 1 else 0.0
    v1 = p * ppv * (1 - ppv) + (1 - p) * fomr * (1 - fomr)
    v0 = rate * se * (1 - se) + (1 - rate) * sp * (1 - sp)
    noise = 0.0 if math.isinf(n_items) else v0 / (n_items * j**2)
    return v1, noise


def rg_halfwidth(
    rate: float, n_labels: float, *, se: float, sp: float, n_items: float = math.inf, confidence: float = 0.95
) -> float:
    """Expected Rogan–Gladen half-width with ``n_labels`` random labels (the formula above)."""
    z = z_value(confidence)
    v1, noise = _variance_parts(rate, se, sp, n_items)
    return z * math.sqrt(v1 / n_labels + noise)
