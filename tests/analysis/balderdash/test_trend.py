"""Tests of analysis/balderdash/trend.py and the GEE/link parts of analysis/stats_models.py.

Expected values come from hand formulas (written out), from statsmodels/scipy/numpy run
directly on the same input, or from a seeded simulation with a known truth.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
from scipy import optimize, special, stats

from wordplay_audit.analysis.balderdash import (
    DriftWarning,
    draw_se_sp,
    rescale_rounds,
    rubin_combine,
    se_sp_drift,
    trend_tests,
)
from wordplay_audit.analysis.balderdash.report import trend_section
from wordplay_audit.analysis.report import Section
from wordplay_audit.analysis.stats_models import MisclassifiedLogit, gee_binomial
from wordplay_audit.errors import InputError, ParameterError

# --------------------------------------------------------------------------- helpers


def make_obs(
    seed: int,
    *,
    games: int = 5,
    rounds: int = 20,
    players: int = 3,
    b0: float = -0.6,
    b1: float = 0.0,
    sd_game: float = 0.5,
    sd_player: float = 0.5,
    se: float = 1.0,
    sp: float = 1.0,
    model: str = "m",
    history: str = "none",
    prefix: str = "",
) -> pd.DataFrame:
    """player_round_table-shaped rows: logit P = b0 + u_game + v_player + b1 * (r - c)/(R - 1).

    ``knows`` is the true outcome; ``true_def`` is it seen through a judge with Se/Sp.
    """
    rng = np.random.default_rng(seed)
    round_ids = np.arange(1, rounds + 1)
    x = (round_ids - (rounds + 1) / 2) / (rounds - 1)
    frames = []
    for game in range(games):
        u = rng.normal(0, sd_game)
        v = rng.normal(0, sd_player, size=players)
        eta = b0 + u + v[:, None] + b1 * x[None, :]
        truth = rng.random(eta.shape) < special.expit(eta)
        seen = rng.random(eta.shape) < np.where(truth, se, 1 - sp)
        frames.append(
            pd.DataFrame(
                {
                    "game_id": f"{prefix}{model}-{history}-g{game}",
                    "round_id": np.tile(round_ids, players),
                    "player_id": np.repeat([f"p{p}" for p in range(players)], rounds),
                    "model": model,
                    "history_type": history,
                    "knows": truth.ravel(),
                    "true_def": seen.ravel(),
                }
            )
        )
    return pd.concat(frames, ignore_index=True)


def reference_gee(obs: pd.DataFrame, outcome: str = "knows"):
    """statsmodels GEE fitted directly (reference library), x = (round - 10.5)/19."""
    x = (obs["round_id"].to_numpy() - 10.5) / 19
    exog = np.column_stack([np.ones_like(x), x])
    model = sm.GEE(
        obs[outcome].to_numpy(dtype=float),
        exog,
        groups=obs["game_id"].to_numpy(),
        family=sm.families.Binomial(),
        cov_struct=sm.cov_struct.Exchangeable(),
    )
    return model, model.fit(cov_type="bias_reduced"), exog


# --------------------------------------------------------------------------- round scale


def test_rescale_rounds_by_hand():
    # R = 20: (r - 10.5)/19
    got = rescale_rounds([1, 10, 11, 20])
    np.testing.assert_allclose(got, [-9.5 / 19, -0.5 / 19, 0.5 / 19, 9.5 / 19])
    # R taken from the rounds present: R = 10 -> (r - 5.5)/9
    np.testing.assert_allclose(rescale_rounds([1, 4, 10]), [-0.5, -1.5 / 9, 0.5])
    np.testing.assert_allclose(rescale_rounds([3], last_round=5), [0.0])
    with pytest.raises(InputError):
        rescale_rounds([1, 1])


# --------------------------------------------------------------------------- GEE primary


def test_gee_t_pvalue_and_interval_by_hand():
    obs = make_obs(3, b1=0.8)
    row = trend_tests(obs, pooled=False, mixed=False).iloc[0]
    _, ref, _ = reference_gee(obs)
    beta, se = ref.params[1], ref.bse[1]  # bse is the bias-reduced SE (cov_type above)
    g = 5
    p_t = 2 * stats.t.sf(abs(beta / se), g - 1)
    half = stats.t.ppf(0.975, g - 1) * se
    assert row["games"] == g and row["gee_df"] == g - 1
    assert row["slope"] == pytest.approx(beta, rel=1e-6)
    assert row["gee_se"] == pytest.approx(se, rel=1e-6)
    assert row["gee_p_t"] == pytest.approx(p_t, rel=1e-6)
    assert row["gee_ci_low"] == pytest.approx(beta - half, rel=1e-6)
    assert row["gee_ci_high"] == pytest.approx(beta + half, rel=1e-6)
    # z p-value as statsmodels reports it, and from the ordinary sandwich
    assert row["gee_p_z"] == pytest.approx(ref.pvalues[1], rel=1e-6)
    p_robust = 2 * stats.norm.sf(abs(beta) / math.sqrt(ref.cov_robust[1, 1]))
    assert row["gee_p_z_robust"] == pytest.approx(p_robust, rel=1e-6)
    assert row["gee_p_t"] > row["gee_p_z"]  # t(4) has heavier tails than the normal


def test_bias_reduced_se_is_mancl_derouen():
    """Mancl & DeRouen (2001) eq. for the exchangeable working correlation, in numpy."""
    obs = make_obs(11, b1=0.5)
    model, ref, exog = reference_gee(obs)
    alpha = float(np.ravel(model.cov_struct.dep_params)[0])
    beta = np.asarray(ref.params)
    y = obs["knows"].to_numpy(dtype=float)
    games = obs["game_id"].to_numpy()
    blocks = []
    for g in pd.unique(games):
        rows = games == g
        xg = exog[rows]
        mu = special.expit(xg @ beta)
        a_half = np.sqrt(mu * (1 - mu))
        d = xg * (mu * (1 - mu))[:, None]  # d mu / d beta
        n = rows.sum()
        corr = (1 - alpha) * np.eye(n) + alpha * np.ones((n, n))
        v = a_half[:, None] * corr * a_half[None, :]
        blocks.append((d, np.linalg.inv(v), y[rows] - mu))
    bread = sum(d.T @ vi @ d for d, vi, _ in blocks)
    bread_inv = np.linalg.inv(bread)
    meat = np.zeros((2, 2))
    for d, vi, r in blocks:
        h = d @ bread_inv @ d.T @ vi
        adj = np.linalg.solve(np.eye(len(r)) - h, r)
        s = d.T @ vi @ adj
        meat += np.outer(s, s)
    cov = bread_inv @ meat @ bread_inv
    row = trend_tests(obs, pooled=False, mixed=False).iloc[0]
    assert row["gee_se"] == pytest.approx(math.sqrt(cov[1, 1]), rel=1e-5)


# --------------------------------------------------------------------------- two-stage


def test_two_stage_matches_polyfit_and_scipy_ttest():
    obs = make_obs(5, b1=0.6, games=6)
    rng = np.random.default_rng(0)
    obs = obs[rng.random(len(obs)) > 0.2]  # unbalanced: some player-rounds missing
    row = trend_tests(obs, pooled=False, mixed=False).iloc[0]
    slopes = []
    for _, game in obs.groupby("game_id"):
        per_round = game.groupby("round_id")["knows"].mean()
        x = (per_round.index.to_numpy() - 10.5) / 19
        slopes.append(np.polyfit(x, per_round.to_numpy(dtype=float), 1)[0])
    expected = stats.ttest_1samp(slopes, 0.0)
    assert row["twostage_games"] == 6
    assert row["twostage_slope"] == pytest.approx(np.mean(slopes), rel=1e-9)
    assert row["twostage_p"] == pytest.approx(expected.pvalue, rel=1e-9)


def test_mixed_slope_equals_ols_in_balanced_design():
    # With every player seen in every round, x is orthogonal to the random-intercept design,
    # so the GLS (mixed-model) slope equals the OLS slope whatever the variance components.
    obs = make_obs(8, b1=1.0)
    row = trend_tests(obs, pooled=False).iloc[0]
    x = (obs["round_id"].to_numpy() - 10.5) / 19
    ols = np.polyfit(x, obs["knows"].to_numpy(dtype=float), 1)[0]
    assert row["mixed_slope"] == pytest.approx(ols, rel=1e-6)
    assert 0 < row["mixed_p"] < 1
    assert "no trend in any game" in row["mixed_note"]


def test_mixed_model_falls_back_to_game_intercepts_when_singular(monkeypatch):
    # One player per game: the game and player intercepts are the same thing. Whether statsmodels
    # then raises LinAlgError depends on the data, so force it and check the documented fallback.
    from wordplay_audit.analysis import stats_models

    obs = make_obs(9, players=1, b1=1.0)
    real = stats_models.mixed_linear_slope

    def singular(*args, structure="game+player"):
        if structure == "game+player":
            raise np.linalg.LinAlgError("Singular matrix")
        return real(*args, structure=structure)

    monkeypatch.setattr(stats_models, "mixed_linear_slope", singular)
    row = trend_tests(obs, pooled=False).iloc[0]
    assert row["mixed_structure"] == "game" and "fell back to game intercepts" in row["note"]
    # balanced design: the game-intercept GLS slope is the OLS slope too
    x = (obs["round_id"].to_numpy() - 10.5) / 19
    assert row["mixed_slope"] == pytest.approx(
        np.polyfit(x, obs["knows"].to_numpy(dtype=float), 1)[0], rel=1e-6
    )


def test_mixed_model_that_cannot_be_fitted_says_so(monkeypatch):
    from wordplay_audit.analysis import stats_models

    def broken(*args, structure="game+player"):
        raise np.linalg.LinAlgError("Singular matrix")

    monkeypatch.setattr(stats_models, "mixed_linear_slope", broken)
    row = trend_tests(make_obs(9, players=1), pooled=False).iloc[0]
    assert row["mixed_structure"] == "none" and math.isnan(row["mixed_slope"])
    assert "mixed model not estimable" in row["note"] and "GEE" in row["note"]
    assert np.isfinite(row["gee_p_t"])  # the primary test is unaffected


def test_full_mixed_structure_is_reported_when_it_fits():
    row = trend_tests(make_obs(8, b1=1.0), pooled=False).iloc[0]
    assert row["mixed_structure"] == "game+player"


# --------------------------------------------------------------------------- adjusted link


def test_misclassified_link_formulas_and_derivatives():
    link = MisclassifiedLogit(0.8, 0.9)
    z = np.linspace(-4, 4, 17)
    mu = 0.1 + 0.7 * special.expit(z)  # (1 - Sp) + (Se + Sp - 1) expit(z)
    np.testing.assert_allclose(link.inverse(z), mu)
    np.testing.assert_allclose(link(mu), z, atol=1e-9)
    h = 1e-5
    np.testing.assert_allclose(
        link.inverse_deriv(z), (link.inverse(z + h) - link.inverse(z - h)) / (2 * h), rtol=1e-6
    )
    np.testing.assert_allclose(
        link.inverse_deriv2(z),
        (link.inverse_deriv(z + h) - link.inverse_deriv(z - h)) / (2 * h),
        rtol=1e-5,
        atol=1e-9,
    )
    np.testing.assert_allclose(link.deriv(mu), (link(mu + h) - link(mu - h)) / (2 * h), rtol=1e-5)
    np.testing.assert_allclose(
        link.deriv2(mu), (link.deriv(mu + h) - link.deriv(mu - h)) / (2 * h), rtol=1e-4, atol=1e-6
    )
    with pytest.raises(ValueError):
        MisclassifiedLogit(0.5, 0.5)


def test_link_with_perfect_judge_reproduces_plain_logit():
    obs = make_obs(21, b1=1.0)
    x = (obs["round_id"].to_numpy() - 10.5) / 19
    exog = np.column_stack([np.ones_like(x), x])
    y = obs["knows"].to_numpy(dtype=float)
    games = obs["game_id"].to_numpy()
    # GLM with the custom link vs statsmodels' own logistic regression
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # statsmodels: a link it does not list for Binomial
        family = sm.families.Binomial(link=MisclassifiedLogit(1, 1), check_link=False)
        glm = sm.GLM(y, exog, family=family).fit()
    logit = sm.Logit(y, exog).fit(disp=0)
    np.testing.assert_allclose(glm.params, logit.params, rtol=1e-6)
    np.testing.assert_allclose(glm.bse, logit.bse, rtol=1e-5)
    # GEE through the wrapper's link route vs statsmodels' GEE with its logit link
    adjusted = gee_binomial(y, exog, games, sensitivity=1.0, specificity=1.0)
    _, ref, _ = reference_gee(obs)
    np.testing.assert_allclose(adjusted.params, ref.params, rtol=1e-6)
    np.testing.assert_allclose(adjusted.bse, ref.bse, rtol=1e-5)


def test_adjusted_slope_recovers_truth_where_naive_is_attenuated():
    beta1 = 1.5
    obs = make_obs(2024, games=40, players=10, b0=0.0, b1=beta1, sd_game=0, sd_player=0, se=0.85, sp=0.9)
    # near-exact Se, Sp: posterior sd about 0.001
    counts = {"m": (85_000, 15_000, 90_000, 10_000)}
    row = trend_tests(obs, outcome="true_def", pooled=False, mixed=False, se_sp=counts, draws=4).iloc[0]
    assert row["adj_draws"] == 4
    assert abs(row["adj_slope"] - beta1) < 3 * row["adj_se"]
    assert row["adj_ci_low"] < beta1 < row["adj_ci_high"]
    # the naive slope is pulled towards 0: its upper 3-SE bound stays below the truth
    assert 0 < row["slope"] < beta1 - 3 * row["gee_se"]


# --------------------------------------------------------------------------- Rubin


def test_rubin_rules_by_hand():
    # q = 1.0, 1.2, 1.4; U = 0.04, 0.05, 0.06; nu_com = 4
    # qbar = 1.2, W = 0.05, B = (0.04 + 0 + 0.04)/2 = 0.04
    # T = 0.05 + (1 + 1/3) 0.04 = 0.31/3
    # lambda = (0.16/3)/(0.31/3) = 16/31
    # nu_old = 2/(16/31)^2 = 1922/256;  nu_obs = (5/7) * 4 * (15/31) = 300/217
    # nu = 1/(256/1922 + 217/300)
    res = rubin_combine([1.0, 1.2, 1.4], [0.04, 0.05, 0.06], df_complete=4)
    total = 0.31 / 3
    nu = 1 / (256 / 1922 + 217 / 300)
    assert res.estimate == pytest.approx(1.2)
    assert res.within == pytest.approx(0.05)
    assert res.between == pytest.approx(0.04)
    assert res.total == pytest.approx(total)
    assert res.df == pytest.approx(nu)
    assert res.pvalue == pytest.approx(2 * stats.t.sf(1.2 / math.sqrt(total), nu))
    half = stats.t.ppf(0.975, nu) * math.sqrt(total)
    assert (res.ci_low, res.ci_high) == pytest.approx((1.2 - half, 1.2 + half))


def test_rubin_df_capped_at_complete_df_and_no_between_variance():
    # B = 0: lambda = 0, nu_old infinite, nu = nu_obs = (5/7) * 4 = 20/7 < 4
    res = rubin_combine([0.5, 0.5], [0.1, 0.1], df_complete=4)
    assert res.between == 0 and res.total == pytest.approx(0.1)
    assert res.df == pytest.approx(20 / 7)
    with pytest.raises(InputError):
        rubin_combine([0.5], [0.1], df_complete=4)


def test_draw_se_sp_respects_constraint_and_posterior():
    se, sp = draw_se_sp((900, 100, 400, 100), 4000, np.random.default_rng(1))
    assert np.all(se + sp > 1)
    # Beta(901, 101) mean 901/1002; Beta(401, 101) mean 401/502
    assert se.mean() == pytest.approx(901 / 1002, abs=0.002)
    assert sp.mean() == pytest.approx(401 / 502, abs=0.003)
    with pytest.raises(InputError):
        draw_se_sp((0, 50, 0, 50), 20, np.random.default_rng(1))


# --------------------------------------------------------------------------- drift


def drift_sample(seed: int, *, se_first: float, se_last: float, sp: float = 0.9, n: int = 800):
    rng = np.random.default_rng(seed)
    rounds = rng.integers(1, 21, size=n)
    human = rng.random(n) < 0.5
    se = se_first + (se_last - se_first) * (rounds - 1) / 19
    judge = np.where(human, rng.random(n) < se, rng.random(n) >= sp)
    return pd.DataFrame({"round_id": rounds, "human": human, "judge": judge})


def test_drift_warning_fires_on_drifting_sensitivity():
    sample = drift_sample(1, se_first=0.95, se_last=0.55)
    with pytest.warns(DriftWarning, match="Se"):
        result = se_sp_drift(sample)
    assert result.drift and result.se_p < 0.05 and result.se_slope < 0
    assert result.n_positive + result.n_negative == len(sample)


def test_no_drift_warning_on_stable_judge():
    sample = drift_sample(1, se_first=0.85, se_last=0.85)
    with warnings.catch_warnings():
        warnings.simplefilter("error", DriftWarning)
        result = se_sp_drift(sample)
    assert not result.drift and result.se_p >= 0.05 and result.sp_p >= 0.05


def test_drift_p_values_are_likelihood_ratio_tests():
    """LR p-value recomputed with scipy's optimiser on the Bernoulli log-likelihood."""
    sample = drift_sample(4, se_first=0.9, se_last=0.7)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DriftWarning)
        result = se_sp_drift(sample)
    pos = sample[sample["human"]]
    y = pos["judge"].to_numpy(dtype=float)
    x = (pos["round_id"].to_numpy() - 10.5) / 19

    def negll(b):
        eta = b[0] + b[1] * x
        return -np.sum(y * eta - np.logaddexp(0, eta))

    full = optimize.minimize(negll, [0.0, 0.0], method="BFGS")
    ybar = y.mean()
    null_ll = len(y) * (ybar * math.log(ybar) + (1 - ybar) * math.log(1 - ybar))
    p = stats.chi2.sf(2 * (-full.fun - null_ll), 1)
    assert result.se_p == pytest.approx(p, rel=1e-4)
    assert result.se_slope == pytest.approx(full.x[1], rel=1e-4)


def test_drift_accepts_contract_labels_and_reports_untestable():
    sample = pd.DataFrame(
        {
            "round_id": [1, 2, 3, 4],
            "human": ["true", "true", "false", "false"],
            "judge": ["yes"] * 4,
        }
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error", DriftWarning)
        result = se_sp_drift(sample)
    assert math.isnan(result.se_p) and math.isnan(result.sp_p) and not result.drift
    assert "Se: no test" in result.note


# --------------------------------------------------------------------------- degenerate cells


def test_degenerate_cells_give_nan_and_note():
    normal = make_obs(1, model="ok")
    all0 = make_obs(2, model="zero").assign(knows=False)
    all1 = make_obs(3, model="one").assign(knows=True)
    one_game = make_obs(4, model="single", games=1)
    one_round = make_obs(5, model="early")
    one_round = one_round[one_round["round_id"] == 3]
    obs = pd.concat([normal, all0, all1, one_game, one_round], ignore_index=True)
    counts = {m: (80, 20, 90, 10) for m in ("ok", "zero", "one", "single", "early")}
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # nothing may leak from statsmodels or numpy
        table = trend_tests(obs, se_sp=counts, draws=3).set_index("model")
    expected_note = {
        "zero": "always 0",
        "one": "always 1",
        "single": "only 1 game",
        "early": "fewer than 2 distinct rounds",
    }
    for model, text in expected_note.items():
        rows = table.loc[[model]]
        assert rows["note"].str.contains(text).all()
        for column in ("slope", "gee_p_t", "twostage_p", "mixed_p", "adj_slope", "adj_p"):
            assert rows[column].isna().all(), (model, column)
    ok = table.loc["ok"]
    assert (ok["note"] == "").all() and ok["gee_p_t"].notna().all() and ok["adj_p"].notna().all()


def test_single_round_table_does_not_crash():
    obs = make_obs(6)
    obs = obs[obs["round_id"] == 1]
    table = trend_tests(obs)
    assert table["slope"].isna().all() and table["note"].str.contains("2 distinct").all()


# --------------------------------------------------------------------------- structure


def test_pooled_rows_cover_history_types():
    obs = pd.concat([make_obs(1, history="none"), make_obs(2, history="full", games=4)], ignore_index=True)
    table = trend_tests(obs, mixed=False)
    assert list(table["history_type"]) == ["full", "none", "all"]
    pooled = table.iloc[2]
    assert pooled["n_obs"] == len(obs) and pooled["games"] == 9
    assert "all" not in set(trend_tests(obs, pooled=False, mixed=False)["history_type"])
    assert {"model", "outcome", "gee_p_z", "twostage_p", "mixed_note"} <= set(table.columns)


def test_invariant_to_row_order_and_other_models():
    a = make_obs(1, model="a", b1=0.5, se=0.9, sp=0.85)
    b = make_obs(2, model="b", se=0.9, sp=0.85)
    counts = {"a": (90, 10, 85, 15), "b": (90, 10, 85, 15)}
    both = pd.concat([a, b], ignore_index=True)
    kwargs = {"outcome": "true_def", "se_sp": counts, "draws": 3, "mixed": False}
    first = trend_tests(both, **kwargs)
    shuffled = trend_tests(both.sample(frac=1, random_state=3), **kwargs)
    pd.testing.assert_frame_equal(first, shuffled, rtol=1e-6)
    only_a = trend_tests(a, **kwargs)
    pd.testing.assert_frame_equal(first[first["model"] == "a"].reset_index(drop=True), only_a, rtol=1e-6)


@pytest.mark.parametrize(
    ("change", "needle"),
    [
        (lambda d: d.drop(columns="game_id"), "game_id"),
        (lambda d: d.assign(knows=d["knows"].astype(int) * 2), "expected True/False"),
        (lambda d: d.assign(knows=d["knows"].where(d.index != 7)), "row 8"),
        (lambda d: d.assign(round_id=0), "whole number"),
        (lambda d: pd.concat([d, d.iloc[[0]]]), "appears twice"),
        (lambda d: d.iloc[0:0], "no rows"),
        (lambda d: d.assign(model=""), "empty"),
    ],
)
def test_bad_obs_raise_one_line_input_error(change, needle):
    obs = change(make_obs(1))
    with pytest.raises(InputError, match=needle) as info:
        trend_tests(obs, mixed=False)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize(
    ("kwargs", "needle"),
    [
        ({"outcome": "guess"}, "outcome"),
        ({"draws": 1, "se_sp": {"m": (1, 1, 1, 1)}}, "draws"),
        ({"se_sp": {"m": (1, 2, 3)}}, "four counts"),
        ({"se_sp": {"m": (1, 2, 3, -4)}}, "four counts"),
        ({"se_sp": {"m": (1, 2, 3, 4)}, "by": ("history_type",)}, "include 'model'"),
        ({"by": ("model", "round_id")}, "by must"),
        ({"seed": -1}, "seed"),
    ],
)
def test_bad_options_raise_a_user_error(kwargs, needle):
    with pytest.raises((InputError, ParameterError), match=needle):
        trend_tests(make_obs(1), mixed=False, **kwargs)


def test_missing_se_sp_for_a_model_is_a_note():
    table = trend_tests(make_obs(1), se_sp={"other": (9, 1, 9, 1)}, mixed=False, pooled=False)
    assert table["adj_slope"].isna().all()
    assert table["note"].str.contains("no Se/Sp counts").all()


def test_trend_section_renders_table_and_caveat():
    table = trend_tests(make_obs(1, model="gpt<x>"), pooled=False)
    section = trend_section(table)
    assert isinstance(section, Section)
    html = section.render("s0")
    assert "gpt&lt;x&gt;" in html and "no trend in any game" in html and "t with G - 1" in html
    with pytest.raises(InputError):
        trend_section(pd.DataFrame({"x": [1]}))


# --- drift that no test or one test decides -------------------------------------------------------


def test_drift_is_unknown_when_neither_test_can_run():
    # every label agrees with the judge: neither Se nor Sp varies, so no test runs
    sample = pd.DataFrame({"round_id": [1, 2, 3, 4], "human": [1, 1, 0, 0], "judge": [1, 1, 0, 0]})
    result = se_sp_drift(sample)
    assert result.drift is None
    assert "drift unknown" in result.note
    from wordplay_audit.analysis.balderdash.drift import drift_text  # the text line of the CLI and report

    line = drift_text(result.__dict__)
    assert line.startswith("Se no test, Sp no test: drift unknown")
    assert "no drift" not in line


def test_drift_from_one_test_says_so():
    # only human-true items: Sp has no item; the judge's agreement varies, so Se is tested
    sample = pd.DataFrame({"round_id": [1, 2, 3, 4, 5, 6], "human": [1] * 6, "judge": [1, 1, 0, 1, 0, 0]})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DriftWarning)
        result = se_sp_drift(sample)
    assert np.isfinite(result.se_p) and math.isnan(result.sp_p)
    assert result.drift is (result.se_p < 0.05)
    assert "drift rests on the Se test only" in result.note
    from wordplay_audit.analysis.balderdash.drift import drift_text

    assert "(from the Se test only)" in drift_text(result.__dict__)
    assert "Sp no test" in drift_text(result.__dict__)
