"""How many human labels per model a Balderdash audit needs (analytic; checked by simulation in
``tests/analysis/balderdash/test_plan.py``).

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

*Realised share of the N items* (the corrected-metric engine's target: the share people would
give the cell's own items, the judge's verdicts on them fixed). The judge's noise drops out and
the labels are a sample without replacement: Var(θ̂ − θ) = V₁ (1/n − 1/N), so the half-width is
at most h when n ≥ n₀ / (1 + n₀/N), n₀ = V₁ z²/h² – a share n/N fewer labels than n₀
(``labels_realised``).
"""

from __future__ import annotations

import math

import numpy as np

from wordplay_audit.analysis.proportions import wilson_halfwidth, z_value
from wordplay_audit.errors import ParameterError


def labels_for_fnr(
    fnr: float, halfwidth: float, *, true_share: float = 1.0, confidence: float = 0.95
) -> dict[str, float]:
    """Labels per model for a Wilson interval of half-width ≤ ``halfwidth`` on the judge's FNR.

    Returns ``{"true_definitions": m, "labels": ceil(m / true_share), ...}`` where
    ``true_share`` is the share of labelled definitions people will call true (1 when the
    campaign samples among definitions already known to be true).
    """
    if not 0 <= fnr <= 1:
        raise ParameterError(f"fnr must be a proportion in [0, 1], got {fnr}")
    if not 0 < halfwidth < 0.5:
        raise ParameterError(f"halfwidth must lie in (0, 0.5), got {halfwidth}")
    if not 0 < true_share <= 1:
        raise ParameterError(f"true_share must lie in (0, 1], got {true_share}")
    lo, hi = 1, 1
    while wilson_halfwidth(fnr, hi, confidence=confidence) > halfwidth:
        hi *= 2
        if hi > 10**8:  # pragma: no cover - halfwidth in (0, 0.5) always stops far earlier
            raise ParameterError("halfwidth is too small to plan for")
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

    ``rate`` is the expected true rate θ (LKR or TDR), strictly between 0 and 1 (at either end
    V₁ and V₀ vanish and the formula plans 1 label whatever the width), ``n_items`` the cell's number of
    definitions N (infinite by default). Returns ``{"labels": n, "labels_reason": None, ...}``;
    ``labels`` is inf when even labelling all N items cannot reach the width, and
    ``labels_reason`` then gives the half-width all N labels would leave. ``labels_realised``:
    the labels for that half-width on the realised share of the N items (module doc; always
    reachable, at most N; ``labels`` without a finite N).
    """
    for name, value in (("rate", rate), ("se", se), ("sp", sp)):
        if not 0 <= value <= 1:
            raise ParameterError(f"{name} must be a proportion in [0, 1], got {value}")
    if rate in (0, 1):  # V₁ = V₀ = 0 there: the formula would promise any width from 1 label
        raise ParameterError(
            f"rate must lie strictly between 0 and 1, got {rate} (at 0 or 1 the variance formula "
            "is 0 and would plan 1 label; plan for the rate nearest it you still find plausible)"
        )
    if not 0 < halfwidth < 0.5:
        raise ParameterError(f"halfwidth must lie in (0, 0.5), got {halfwidth}")
    if not n_items >= 1:  # also refuses nan
        raise ParameterError(f"items: expected a number of definitions ≥ 1 (or inf), got {n_items}")
    j = se + sp - 1
    if j <= 0:
        raise ParameterError(f"the judge must beat chance (Se + Sp > 1), got Se={se}, Sp={sp}")
    z = z_value(confidence)
    v1, noise = _variance_parts(rate, se, sp, n_items)
    room = halfwidth**2 / z**2 - noise
    if v1 == 0:
        n = 1.0
    else:
        n = math.inf if room <= 0 else float(math.ceil(v1 / room))
    if not math.isinf(n_items) and n > n_items:
        n = math.inf
    reason = None
    if math.isinf(n):  # only with a finite N: without one every width is reachable
        floor = rg_halfwidth(rate, n_items, se=se, sp=sp, n_items=n_items, confidence=confidence)
        reason = (
            f"not reachable: with all {n_items:g} definitions labelled the half-width is "
            f"{floor:.3f} > {halfwidth:g} (the judge's share over N items keeps variance "
            "V₀/(N J²))"
        )
    n0 = v1 * z**2 / halfwidth**2
    realised = max(1.0, float(math.ceil(n0 / (1 + n0 / n_items) - 1e-9))) if v1 > 0 else 1.0
    return {
        "labels": n,
        "labels_reason": reason,
        "labels_realised": min(realised, n_items),
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


def trend_power(
    slope: float,
    *,
    games: int = 5,
    rounds: int = 20,
    players: int = 3,
    base_rate: float = 0.35,
    reps: int = 2000,
    seed: int = 0,
    confidence: float = 0.95,
) -> dict[str, float]:
    """Power of the two-stage trend test (:mod:`.trend`) for a cell, by simulation.

    Truth model of ``benchmarks/sim_balderdash_trend.py``: logit P(known) = logit(base_rate) +
    u_game + v_player + ``slope``·x, u, v ~ N(0, 0.5²), x the round rescaled from −½ (first) to
    +½ (last), so ``slope`` is the per-game log-odds change from the first to the last round
    (odds × e^slope). Per replication and game: the least-squares slope of the per-round
    proportion on x; then the one-sample t-test of the ``games`` slopes at level
    1 − ``confidence``. Vectorised over ``reps`` seeded replications (2000: Monte-Carlo SE ≤ 1.1
    points, well under a second). The primary GEE t-test is more conservative (in the benchmark
    35 % vs 44 % power at slope 1 with 5 games × 20 rounds × 3 players).

    Returns ``power``, its Monte-Carlo ``se``, the inputs and ``odds_ratio`` = e^slope.
    """
    from scipy import special, stats

    if games < 2 or rounds < 2 or players < 1 or reps < 10:
        raise ParameterError("trend_power needs games ≥ 2, rounds ≥ 2, players ≥ 1 and reps ≥ 10")
    if not 0 < base_rate < 1:
        raise ParameterError(f"base_rate must lie strictly between 0 and 1, got {base_rate}")
    alpha = 1 - confidence
    z_value(confidence)
    rng = np.random.default_rng([seed, games, rounds, players])
    x = (np.arange(1, rounds + 1) - (rounds + 1) / 2) / (rounds - 1)
    u = rng.normal(0, 0.5, size=(reps, games, 1, 1))
    v = rng.normal(0, 0.5, size=(reps, games, players, 1))
    eta = special.logit(base_rate) + u + v + slope * x
    known = rng.random(eta.shape) < special.expit(eta)
    share = known.mean(axis=2)  # reps × games × rounds
    xc = x - x.mean()
    per_game = (share * xc).sum(axis=2) / (xc**2).sum()
    mean = per_game.mean(axis=1)
    sd = per_game.std(axis=1, ddof=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = mean / (sd / np.sqrt(games))
    p = 2 * stats.t.sf(np.abs(t), df=games - 1)
    power = float(np.mean(np.nan_to_num(p, nan=1.0) < alpha))
    return {
        "power": power,
        "se": math.sqrt(power * (1 - power) / reps),
        "slope": slope,
        "odds_ratio": math.exp(slope),
        "games": games,
        "rounds": rounds,
        "players": players,
        "base_rate": base_rate,
        "reps": reps,
        "test": "two-stage t (per-game LS slopes, t with G − 1 df)",
    }
