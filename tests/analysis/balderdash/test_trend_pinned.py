"""The trend tests' estimates, intervals and p-values pinned to the values this toolkit printed
before its fits were made faster (statsmodels formulas, Powell first for the mixed model).

Expected values are that earlier output, on the simulator's seeded campaigns: a quick one
(``trend_tests`` on an in-memory campaign) written out below, and two exports (the
``balderdash simulate``-style export of seed 11 and the 3,600-definition export of
benchmarks/bench_balderdash_steps.py) whose ``balderdash trend --json`` rows are in ``pinned/``.
They must agree to the printed precision (3 decimals): within half a unit of the last digit.

One label changed on purpose: in the leaderboard cells of the 3,600-definition export every
game has one player of the model, so the player intercept is the game's; the mixed model is now
reported as ``game`` there (with the fallback note), where statsmodels' Powell used to report
``game+player`` on the ridge of equal likelihood (or raise, in one cell). The two models have
the same likelihood there, and the pinned slope and p-value are unchanged.
"""

from __future__ import annotations

import io
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import wordplay_audit as wa
from wordplay_audit.analysis.balderdash import trend_tests
from wordplay_audit.corpora.balderdash import SimConfig, simulate_campaign

PINNED = Path(__file__).parent / "pinned"
HALF_UNIT = 5e-4  # printed with 3 decimals
NUMBERS = [
    "slope", "gee_se", "gee_p_t", "gee_ci_low", "gee_ci_high", "gee_p_z", "gee_p_z_robust",
    "twostage_slope", "twostage_p", "mixed_slope", "mixed_p", "adj_slope", "adj_se", "adj_p",
    "adj_ci_low", "adj_ci_high",
]  # fmt: skip
KEYS = ["labels", "model", "history_type", "deck", "outcome"]

# trend_tests(true_def, by model × deck, these Se/Sp counts, draws=4, seed=3) on
# simulate_campaign(SimConfig(games_per_deck=3, n_rounds=12, players_per_model=2), seed=11)
QUICK = """model,deck,games,slope,gee_se,gee_p_t,gee_ci_low,gee_ci_high,gee_p_z,gee_p_z_robust,twostage_slope,twostage_p,mixed_slope,mixed_p,mixed_structure,adj_slope,adj_se,adj_p,adj_ci_low,adj_ci_high,adj_draws,note
gemma-2-9b,balderdash_words,3,0.173156,1.031931,0.882175,-4.266886,4.613198,0.866742,0.801275,0.038462,0.853353,0.038462,0.827287,game+player,0.236132,1.398104,0.889820,-11.862485,12.334750,4,
gemma-2-9b,basic_english_words,3,-0.808070,0.975459,0.494563,-5.005130,3.388991,0.407444,0.214015,-0.198718,0.407667,-0.198718,0.291214,game+player,-1.272698,1.508717,0.535575,-14.702960,12.157563,4,
gemma-2-9b,all,6,-0.335616,0.589922,0.594015,-1.852059,1.180827,0.569413,0.494797,-0.080128,0.564065,-0.080128,0.538363,game+player,-0.480478,0.850207,0.604196,-2.908747,1.947791,4,
gpt-4o-mini,balderdash_words,3,2.144129,0.673432,0.086098,-0.753417,5.041674,0.001453,0.000002,0.455128,0.019827,0.455128,0.008273,game+player,,,,,,0,adjusted: no Se/Sp counts for this model
gpt-4o-mini,basic_english_words,3,-0.025661,0.587267,0.969117,-2.552468,2.501146,0.965147,0.947741,-0.006410,0.962177,-0.006410,0.972460,game+player,,,,,,0,adjusted: no Se/Sp counts for this model
gpt-4o-mini,all,6,0.926533,0.583380,0.173103,-0.573092,2.426158,0.112237,0.056668,0.224359,0.120120,0.224359,0.079022,game+player,,,,,,0,adjusted: no Se/Sp counts for this model
llama-3-8b,balderdash_words,3,-1.050325,1.787596,0.616327,-8.741729,6.641079,0.556826,0.378131,-0.224359,0.539434,-0.224359,0.201223,game+player,-1.277298,2.129963,0.642314,-19.835861,17.281265,4,
llama-3-8b,basic_english_words,3,-0.025661,0.299833,0.939593,-1.315737,1.264415,0.931797,0.897851,-0.006410,0.926078,-0.006410,0.973136,game+player,-0.037162,0.417503,0.941574,-3.651639,3.577315,4,
llama-3-8b,all,6,-0.476316,0.675901,0.512451,-2.213774,1.261142,0.480989,0.397745,-0.115385,0.470074,-0.115385,0.378800,game+player,-0.619087,0.835555,0.503017,-3.015774,1.777600,4,
"""


def assert_pinned(table: pd.DataFrame, expected: pd.DataFrame) -> None:
    keys = [k for k in KEYS if k in expected.columns]
    got = table.set_index(keys).sort_index()
    want = expected.set_index(keys).sort_index()
    assert list(got.index) == list(want.index)
    for column in ("games", "mixed_structure", "adj_draws"):
        if column in want.columns:
            assert got[column].astype(str).tolist() == want[column].astype(str).tolist(), column
    notes = want["note"].astype(object).fillna("").astype(str)
    assert got["note"].astype(object).fillna("").astype(str).tolist() == notes.tolist()
    for column in [c for c in NUMBERS if c in want.columns]:
        a, b = got[column].to_numpy(float), want[column].to_numpy(float)
        assert (np.isnan(a) == np.isnan(b)).all(), column
        worst = np.nanmax(np.abs(a - b), initial=0.0)
        assert worst <= HALF_UNIT, f"{column}: moved by {worst:.2g}"


def test_trend_tests_pinned_on_a_seeded_campaign():
    obs = simulate_campaign(SimConfig(games_per_deck=3, n_rounds=12, players_per_model=2), seed=11).obs
    table = trend_tests(
        obs, outcome="true_def", by=("model", "deck"), draws=4, seed=3,
        se_sp={"llama-3-8b": (40, 12, 90, 3), "gemma-2-9b": (35, 15, 80, 5)},
    )  # fmt: skip
    assert_pinned(table, pd.read_csv(io.StringIO(QUICK)))


@pytest.mark.slow
def test_balderdash_trend_pinned_on_a_simulated_export(tmp_path):
    wa.simulate_balderdash(tmp_path / "sim", seed=11, games_per_deck=3, rounds=12, players_per_model=2,
                           labels_per_stratum=20)  # fmt: skip
    data = wa.read_balderdash(tmp_path / "sim", texts=False)
    result = wa.balderdash_trend(data, wa.read_labels(tmp_path / "sim" / "labels.csv"))
    assert_pinned(result.analysis.table, pd.read_csv(PINNED / "trend_simulated_seed11.csv"))


@pytest.mark.slow
def test_balderdash_trend_pinned_on_the_steps_benchmark_export(tmp_path, load_benchmark):
    bench = load_benchmark("bench_balderdash_steps")
    folder = bench.write_export(tmp_path / "export", 3600)
    data = wa.read_balderdash(folder, texts=False)
    result = wa.balderdash_trend(data, wa.read_labels(folder / "labels.csv"))
    assert_pinned(result.analysis.table, pd.read_csv(PINNED / "trend_steps_export_3600.csv"))


def test_a_mixed_fit_that_falls_back_says_so(monkeypatch):
    """When the first optimiser stops unconverged (here: SLSQP allowed one iteration), the
    fit falls back to statsmodels' Powell, and the fit, the table and the text say so; the
    fallback's estimate is statsmodels' own."""
    import statsmodels.formula.api as smf
    from scipy import optimize

    from wordplay_audit.analysis import nested_reml, stats_models
    from wordplay_audit.analysis.balderdash.report import fallback_lines

    obs = simulate_campaign(SimConfig(models=("m",), games_per_deck=3, n_rounds=12), seed=8).obs
    players = (obs["game_id"] + ":" + obs["player_id"]).to_numpy()
    y, x = obs["knows"].to_numpy(float), (obs["round_id"].to_numpy(float) - 6.5) / 11
    assert stats_models.mixed_linear_slope(y, x, obs["game_id"].to_numpy(), players).optimizer == "slsqp"
    minimize = optimize.minimize
    monkeypatch.setattr(
        nested_reml.optimize, "minimize", lambda *a, **k: minimize(*a, **k, options={"maxiter": 1})
    )
    fit = stats_models.mixed_linear_slope(y, x, obs["game_id"].to_numpy(), players)
    assert fit.fell_back and fit.optimizer == "powell"
    data = pd.DataFrame({"y": y, "x": x, "game": obs["game_id"].to_numpy(), "player": players})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        reference = smf.mixedlm(
            "y ~ x", data, groups="game", re_formula="1", vc_formula={"player": "0 + C(player)"}
        ).fit(reml=True, method=["powell", "lbfgs"])
    assert fit.slope == pytest.approx(reference.fe_params.iloc[1], abs=1e-9)
    assert fit.se == pytest.approx(reference.bse_fe.iloc[1], abs=1e-9)
    table = trend_tests(obs, outcome="knows", by=("model",))
    assert table["mixed_optimizer"].tolist() == ["powell"]
    (line,) = fallback_lines(table)
    assert "1 fit(s) fell back from slsqp (did not converge) to powell: knows/m" in line


def test_no_fallback_is_said_too():
    from wordplay_audit.analysis.balderdash.report import fallback_lines

    obs = simulate_campaign(SimConfig(models=("m",), games_per_deck=3, n_rounds=12), seed=5).obs
    table = trend_tests(obs, outcome="knows", by=("model",))
    assert table["mixed_optimizer"].tolist() == ["slsqp"]
    assert fallback_lines(table) == ["mixed model: no fit fell back (slsqp converged wherever it was fitted)"]


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("players", [1, 2, 4])
def test_reml_criterion_and_fit_equal_statsmodels(seed, players):
    """The REML criterion from sufficient statistics equals statsmodels' (up to its constant) and
    the fit's slope and SE equal statsmodels' MixedLM fitted from the same optimum."""
    from statsmodels.regression.mixed_linear_model import MixedLM, MixedLMParams

    from wordplay_audit.analysis import stats_models
    from wordplay_audit.analysis.nested_reml import NestedReml

    config = SimConfig(models=("m",), games_per_deck=3, players_per_model=players, n_rounds=10,
                       slope={"m": 0.02})  # fmt: skip
    obs = simulate_campaign(config, seed=seed).obs
    y, x = obs["knows"].to_numpy(float), (obs["round_id"].to_numpy(float) - 5.5) / 9
    games, who = obs["game_id"].to_numpy(), (obs["game_id"] + ":" + obs["player_id"]).to_numpy()
    structure = "game+player" if players > 1 else "game"
    exog, codes, vc = stats_models._mixed_design(x, games, who, structure)
    model = MixedLM(y, exog, codes, exog_re=np.ones((y.size, 1)), exog_vc=vc)
    model.reml, model.cov_pen, model.fe_pen, model._freepat, model._cov_sing = True, None, None, None, 0
    reml = NestedReml(y, exog, games, who if players > 1 else None)
    grid = [(0.3, 0.1), (1.0, 2.0), (0.01, 0.5), (0.05, 0.001)]
    ours, theirs = [], []
    for g, p in grid:
        params = MixedLMParams(2, 1, model.k_vc)
        params.fe_params, params.cov_re, params.vcomp = (
            np.zeros(2),
            np.array([[g]]),
            np.array([p])[: model.k_vc],
        )
        theirs.append(-2 * model.loglike(params, profile_fe=True))
        ours.append(reml.criterion(np.array([g, p])[: 1 + model.k_vc]))
    assert np.diff(ours) == pytest.approx(np.diff(theirs), abs=1e-8)
    gamma, converged = reml.optimum()
    assert converged
    if players == 1:
        return  # the game-only fit is compared on the data of 2 and 4 players per game below
    fit = stats_models.mixed_linear_slope(y, x, games, who, structure=structure)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        powell = model.fit(reml=True, method=["powell", "lbfgs"])
    theirs = np.array([powell.cov_re[0, 0], powell.vcomp[0]]) / powell.scale
    # at statsmodels' optimum, the GLS slope and SE are statsmodels' own (its Hessian's)
    beta, cov = reml.fixed_effects(theirs)
    assert beta[1] == pytest.approx(float(powell.fe_params[1]), abs=1e-9)
    assert np.sqrt(cov[1, 1]) == pytest.approx(float(powell.bse_fe[1]), rel=1e-6)
    # our optimum is at least as good as statsmodels' Powell's, and the fit is near its numbers
    assert reml.criterion(gamma) <= reml.criterion(theirs) + 1e-6
    assert fit.slope == pytest.approx(float(powell.fe_params[1]), abs=1e-9)
    assert fit.se == pytest.approx(float(powell.bse_fe[1]), rel=2e-3)
    exog, codes, _ = stats_models._mixed_design(x, games, who, "game")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        game_only = MixedLM(y, exog, codes, exog_re=np.ones((y.size, 1))).fit(
            reml=True, method=["powell", "lbfgs"]
        )
    fit = stats_models.mixed_linear_slope(y, x, games, who, structure="game")
    assert fit.slope == pytest.approx(float(game_only.fe_params[1]), abs=1e-9)
    assert fit.se == pytest.approx(float(game_only.bse_fe[1]), rel=2e-3)


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("accuracy", [None, (0.74, 0.97), (0.9, 0.8)])
def test_exchangeable_gee_equals_statsmodels(seed, accuracy):
    """The per-cluster-sums GEE gives statsmodels' GEE (exchangeable, bias-reduced) numbers:
    estimates, both sandwich SEs, z p-values and the correlation, with or without the
    misclassification link, from statsmodels' start (the GLM) or a given one."""
    from wordplay_audit.analysis.gee_exchangeable import ExchangeableGee
    from wordplay_audit.analysis.stats_models import MisclassifiedLogit, gee_binomial

    config = SimConfig(models=("m",), games_per_deck=3, players_per_model=3, n_rounds=10, slope={"m": 0.02})
    obs = simulate_campaign(config, seed=seed).obs
    y, x = obs["true_def"].to_numpy(float), (obs["round_id"].to_numpy(float) - 5.5) / 9
    exog, games = np.column_stack([np.ones(y.size), x]), obs["game_id"].to_numpy()
    se, sp = accuracy or (None, None)
    start = None if accuracy is None else np.array([-0.5, 0.1])
    reference = gee_binomial(y, exog, games, sensitivity=se, specificity=sp, start_params=start)
    fit = ExchangeableGee(y, exog, games).fit(MisclassifiedLogit(se or 1.0, sp or 1.0), start)
    assert fit.converged == reference.converged
    for name in ("params", "bse", "bse_robust", "pvalues_z", "cov"):
        np.testing.assert_allclose(getattr(fit, name), getattr(reference, name), rtol=1e-9, atol=1e-12)
    assert fit.dep_param == pytest.approx(reference.dep_param, abs=1e-12)
    assert fit.n_groups == reference.n_groups


def test_progress_bar_over_the_cells_only_when_asked(capsys):
    from wordplay_audit.corpora.progress import show_progress

    obs = simulate_campaign(SimConfig(games_per_deck=2, n_rounds=6), seed=3).obs
    shown = trend_tests(obs, outcome="knows", by=("model",), mixed=False, progress=True)
    seen = capsys.readouterr()
    assert seen.out == "" and "trend (knows)" in seen.err and "/3 " in seen.err  # 3 models
    quiet = trend_tests(obs, outcome="knows", by=("model",), mixed=False)
    assert capsys.readouterr().err == ""  # a library call: off unless asked
    with show_progress(True):  # the command line's context
        trend_tests(obs, outcome="knows", by=("model",), mixed=False)
    assert "trend (knows)" in capsys.readouterr().err
    pd.testing.assert_frame_equal(shown, quiet)
