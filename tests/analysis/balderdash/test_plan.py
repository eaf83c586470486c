"""Campaign-size planner: the formulas by hand, then checked by a seeded simulation."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest
from statsmodels.stats.proportion import proportion_confint

from wordplay_audit.analysis.balderdash.plan import (
    labels_for_corrected_rate,
    labels_for_fnr,
    rg_halfwidth,
)
from wordplay_audit.analysis.correction import poststratified_accuracy, rogan_gladen
from wordplay_audit.analysis.proportions import wilson_halfwidth
from wordplay_audit.errors import ParameterError


def test_wilson_halfwidth_matches_statsmodels():
    lo, hi = proportion_confint(26, 100, method="wilson")
    assert wilson_halfwidth(0.26, 100) == pytest.approx((hi - lo) / 2)


def test_fnr_plan_is_the_smallest_sufficient_size():
    plan = labels_for_fnr(0.26, 0.05, true_share=0.5)
    m = plan["true_definitions"]
    assert wilson_halfwidth(0.26, m) <= 0.05 < wilson_halfwidth(0.26, m - 1)
    # normal approximation 1.96²·.26·.74/.05² = 295.6; Wilson needs a few fewer
    assert 280 <= m <= 296 and plan["labels"] == math.ceil(m / 0.5)


def test_rate_plan_by_hand():
    # θ .5, Se .74, Sp .97: p = .74·.5 + .03·.5 = .385; PPV = .37/.385 = .961039;
    # FOR = .13/.615 = .211382; V₁ = .385·.961039·.038961 + .615·.211382·.788618 = .116936
    # n = 1.959964²·.116936 / .05² = 179.7 → 180
    assert labels_for_corrected_rate(0.5, 0.05, se=0.74, sp=0.97)["labels"] == 180
    assert labels_for_corrected_rate(0.5, 0.05, se=0.74, sp=0.97)["labels_reason"] is None
    assert math.isinf(labels_for_corrected_rate(0.5, 0.01, se=0.74, sp=0.97, n_items=500)["labels"])
    with pytest.raises(ParameterError, match="beat chance"):
        labels_for_corrected_rate(0.5, 0.05, se=0.4, sp=0.5)


def test_unreachable_rate_plan_says_why_by_hand():
    # N = 500: V₀ = .5·.74·.26 + .5·.97·.03 = .11075, J = .71, V₀/(N J²) = .11075/(500·.5041)
    # = .00043940; all 500 labelled: 1.959964·√(.116936/500 + .00043940) = 0.05085 > 0.05
    plan = labels_for_corrected_rate(0.5, 0.05, se=0.74, sp=0.97, n_items=500)
    assert math.isinf(plan["labels"])
    assert "all 500 definitions labelled the half-width is 0.051 > 0.05" in plan["labels_reason"]


def test_unreachable_rate_plan_reason_in_text_and_json(run_cli):
    code, out, err = run_cli("balderdash", "plan", "--items", "500")
    assert code == 0, err
    assert "random labels per model" not in out.splitlines()[1]
    assert "not reachable: with all 500 definitions labelled the half-width is 0.051" in out
    code, out, err = run_cli("balderdash", "plan", "--items", "500", "--json")
    payload = json.loads(out)["corrected_rate"]
    assert payload["labels"] is None and "0.051 > 0.05" in payload["labels_reason"]


def test_rate_plan_holds_in_simulation():
    # draw 150 campaigns of the planned size from a large population; the realised Rogan–Gladen
    # half-widths should centre on the target and the intervals cover the true rate
    theta, se, sp, h = 0.4, 0.74, 0.97, 0.06
    n = int(labels_for_corrected_rate(theta, h, se=se, sp=sp, n_items=8000)["labels"])
    assert rg_halfwidth(theta, n, se=se, sp=sp, n_items=8000) <= h
    rng = np.random.default_rng(2024)
    widths, hits = [], []
    for _ in range(150):
        y = rng.random(8000) < theta
        f = np.where(y, rng.random(8000) < se, rng.random(8000) < 1 - sp)
        human = np.full(8000, None, dtype=object)
        chosen = rng.choice(8000, size=n, replace=False)
        human[chosen] = y[chosen]
        frame = pd.DataFrame({"judge": f, "human": pd.array(human, dtype="boolean")})
        frame["labelled"] = frame["human"].notna()
        est, var = rogan_gladen(float(f.mean()), poststratified_accuracy(frame), 8000)
        widths.append(1.959964 * math.sqrt(var))
        hits.append(abs(est - y.mean()) <= widths[-1])
    # the realised width varies with the sample (and the Agresti–Coull / finite-population
    # adjustments of the estimator); its median within ±15 % of the target, coverage ≥ .9
    assert np.median(widths) == pytest.approx(h, rel=0.15)
    assert np.mean(hits) >= 0.9


def test_trend_power_holds_level_under_no_trend():
    from wordplay_audit.analysis.balderdash.plan import trend_power

    # slope 0: rejection rate = α; 4000 replications → binomial SE √(.05·.95/4000) = .0034
    result = trend_power(0.0, reps=4000, seed=1)
    assert abs(result["power"] - 0.05) < 4 * math.sqrt(0.05 * 0.95 / 4000)


def test_trend_power_matches_the_trend_benchmark():
    from wordplay_audit.analysis.balderdash.plan import trend_power

    # benchmarks/sim_balderdash_trend.py (docs/BALDERDASH.md): two-stage power 44.1 ± 1.6 % at
    # β1 = 1 and 76.1 ± 1.3 % at β1 = 1.5 (5 games × 20 rounds × 3 players, rate .35);
    # tolerance 3 × the combined Monte-Carlo SE
    for slope, published, se_pub in ((1.0, 0.441, 0.016), (1.5, 0.761, 0.013)):
        result = trend_power(slope, reps=2000, seed=2)
        assert abs(result["power"] - published) < 3 * math.hypot(se_pub, result["se"])
    # power grows with games and with the slope
    assert trend_power(1.0, games=10)["power"] > trend_power(1.0, games=5)["power"]
    assert trend_power(0.5)["power"] < trend_power(1.0)["power"]


def test_trend_power_refuses_bad_designs():
    from wordplay_audit.analysis.balderdash.plan import trend_power

    with pytest.raises(ParameterError, match="games"):
        trend_power(1.0, games=1)


@pytest.mark.parametrize(
    "args, needle",
    [
        (["--fnr", "2"], "--fnr: expected a number in [0, 1], got 2.0"),
        (["--fnr-halfwidth", "0"], "--fnr-halfwidth:"),
        (["--rate-halfwidth", "0.5"], "--rate-halfwidth:"),  # the library says "halfwidth" for both
        (["--true-share", "0"], "--true-share:"),
        (["--se", "nan"], "--se:"),
        (["--trend-slope", "nan"], "--trend-slope:"),  # printed "0% power" before
        (["--trend-slope", "inf"], "--trend-slope:"),
        (["--items", "nan"], "--items:"),
        (["--items", "0"], "--items:"),
        (["--games", "1"], "--games: expected 2 or more"),
        (["--players", "0"], "--players: expected 1 or more"),
        (["--confidence", "1"], "--confidence:"),
    ],
)
def test_plan_options_refused_under_their_own_name(run_cli, args, needle):
    code, out, err = run_cli("balderdash", "plan", *args)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and needle in err


def test_plan_refuses_a_rate_at_the_boundary(run_cli):
    for rate in (0.0, 1.0):
        with pytest.raises(ParameterError, match="rate must lie strictly between 0 and 1"):
            labels_for_corrected_rate(rate, 0.05, se=0.74, sp=0.97)
    code, out, err = run_cli("balderdash", "plan", "--rate", "0")
    assert code == 2 and err.strip() == "error: --rate: expected a number in (0, 1), got 0.0"


def test_realised_share_plan_counts_the_finite_population_by_hand():
    """θ = 0.5, Se 0.74, Sp 0.97, h = 0.05: p = 0.385, PPV = 0.37/0.385, FOR = 0.13/0.615,
    V₁ = p·PPV(1 − PPV) + (1 − p)·FOR(1 − FOR) = 0.116936; n₀ = V₁·z²/h² = 179.68 (180 labels).
    For the realised share of N = 500: n₀/(1 + n₀/500) = 132.18 → 133, while the generating
    rate's plan (judge noise V₀/(N J²)) is out of reach at N = 500."""
    p = 0.74 * 0.5 + 0.03 * 0.5
    ppv, fomr = 0.37 / p, 0.13 / (1 - p)
    v1 = p * ppv * (1 - ppv) + (1 - p) * fomr * (1 - fomr)
    n0 = v1 * 1.959963984540054**2 / 0.05**2
    assert round(v1, 6) == 0.116936 and round(n0, 2) == 179.68
    plan = labels_for_corrected_rate(0.5, 0.05, se=0.74, sp=0.97, n_items=500)
    assert plan["labels_realised"] == math.ceil(n0 / (1 + n0 / 500)) == 133
    assert math.isinf(plan["labels"])
    assert labels_for_corrected_rate(0.5, 0.05, se=0.74, sp=0.97)["labels_realised"] == 180
