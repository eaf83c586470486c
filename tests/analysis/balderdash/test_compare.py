"""Settings compared per model, the predictive draws behind the differences, Holm's adjustment
and rankings with rank probabilities: checked against scipy, statsmodels, the engine and hand
counts."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from wordplay_audit.analysis.balderdash.compare import compare_settings, verdict_text
from wordplay_audit.analysis.balderdash.corrected_frame import question_frame
from wordplay_audit.analysis.balderdash.rankings import rank_models
from wordplay_audit.analysis.balderdash.recompute import labels_for
from wordplay_audit.analysis.correction import corrected_shares, randomised_share_interval
from wordplay_audit.analysis.correction.predictive_draws import (
    contrast_interval,
    count_draws,
    holm,
    rate_draws,
)
from wordplay_audit.corpora.balderdash.settings_sim import simulate_settings
from wordplay_audit.corpora.balderdash.simulate import SimConfig
from wordplay_audit.errors import ParameterError

SHIFTED = {"gpt-4o-mini": {"basic_english_words": 0.95, "balderdash_words": 0.55}}


@pytest.fixture(scope="module")
def campaign():
    configs = [SimConfig(correct_definition_points=0, judge_model="llama-3-8b"),
               SimConfig(correct_definition_points=50, judge_model="llama-3-8b", know=SHIFTED)]  # fmt: skip
    return simulate_settings(configs, seed=3)


def test_count_draws_follow_the_randomised_clopper_pearson_predictive():
    # (1 − v)·BetaBinomial(u, x, n − x + 1) + v·BetaBinomial(u, x + 1, n − x), from scipy
    u, n, x, v = 12, 9, 3, 0.3
    drawn = count_draws([u], [n], [x], v=[v], draws=200000, rng=np.random.default_rng(1))[:, 0]
    k = np.arange(u + 1)
    want = (1 - v) * stats.betabinom.pmf(k, u, x, n - x + 1) + v * stats.betabinom.pmf(k, u, x + 1, n - x)
    got = np.bincount(drawn, minlength=u + 1) / len(drawn)
    assert np.abs(got - want).max() < 0.004


def test_draw_quantiles_give_the_engines_interval_of_one_cell():
    u, n, x, v = [40, 200], [10, 12], [9, 1], [0.4, 0.7]
    want = randomised_share_interval(u, n, x, known_true=10, n_total=262, v=v)
    rng = np.random.default_rng(2)
    low = (10 + count_draws(u, n, x, side=["free", "free"], v=v, draws=100000, rng=rng).sum(axis=1)) / 262
    got = np.quantile(low, [0.025, 0.975])
    assert abs(got[0] - want[0]) <= 1.5 / 262 and abs(got[1] - want[1]) <= 1.5 / 262


def test_sides_anchor_unanimous_and_unlabelled_post_strata():
    rng = np.random.default_rng(0)
    low = count_draws([5, 6, 7], [4, 4, 0], [0, 4, 0], side="low", rng=rng)
    high = count_draws([5, 6, 7], [4, 4, 0], [0, 4, 0], side="high", rng=rng)
    assert (low[:, 0] == 0).all() and (low[:, 2] == 0).all() and low[:, 1].max() <= 6
    assert (high[:, 1] == 6).all() and (high[:, 2] == 7).all()
    with pytest.raises(ParameterError, match="^labelled:"):
        count_draws([5], [0], [0], side="free", rng=rng)
    with pytest.raises(ParameterError, match="^side:"):
        count_draws([5], [3], [1], side="middle", rng=rng)


def test_holm_matches_statsmodels():
    from statsmodels.stats.multitest import multipletests

    p = np.array([0.001, 0.2, 0.013, 0.04, 0.03, 0.5])
    assert np.allclose(holm(p), multipletests(p, method="holm")[1])


def test_rate_difference_of_two_fully_known_counts_is_the_jeffreys_difference():
    # realised counts known (no draws needed): the difference of Beta(30.5, 70.5) and
    # Beta(50.5, 50.5), its 2.5 % quantile by numerical convolution of scipy's densities
    rng = np.random.default_rng(5)
    a = rate_draws(np.full(200000, 30), 100, rng=rng)
    b = rate_draws(np.full(200000, 50), 100, rng=rng)
    low, high, p = contrast_interval(b - a, b - a)
    grid = np.linspace(-1, 1, 2001)
    t = np.linspace(0, 1, 2001)
    density = (
        stats.beta.pdf(t, 50.5, 50.5)[None, :] * stats.beta.pdf(t[None, :] - grid[:, None], 30.5, 70.5)
    ).sum(axis=1)
    cdf = np.cumsum(density) / np.sum(density)
    want_low, want_high = grid[np.searchsorted(cdf, 0.025)], grid[np.searchsorted(cdf, 0.975)]
    assert abs(low - want_low) < 0.003 and abs(high - want_high) < 0.003
    assert p == pytest.approx(2 * cdf[np.searchsorted(grid, 0.0)], abs=0.002)


def test_cells_are_the_engines_cells(campaign):
    found = compare_settings(campaign.obs, campaign.labels, by="correct_definition_points", seed=4)
    frame = question_frame(campaign.obs, labels_for(campaign.obs, campaign.labels), "tdr").data
    want = corrected_shares(frame, cells=["model", "correct_definition_points"], post_strata=["deck"], seed=4,
                            stream="compare:tdr", seed_column="item_id")  # fmt: skip
    assert np.allclose(
        found.cells[["estimate", "ci_low", "ci_high"]], want[["estimate", "ci_low", "ci_high"]]
    )
    assert found.cells["n_labelled"].tolist() == want["n_labelled"].tolist()


def test_differences_flag_the_shifted_model_and_adjust_by_holm(campaign):
    found = compare_settings(campaign.obs, campaign.labels, by="correct_definition_points")
    d = found.differences.set_index("model")
    assert len(d) == 3 and set(d["level_a"]) == {0} and set(d["level_b"]) == {50}
    cells = found.cells.set_index(["model", "level"])
    for model, r in d.iterrows():
        assert r["difference"] == pytest.approx(
            cells.loc[(model, 50), "estimate"] - cells.loc[(model, 0), "estimate"]
        )
        assert r["judge_difference"] == pytest.approx(
            cells.loc[(model, 50), "judge"] - cells.loc[(model, 0), "judge"]
        )
        assert r["ci_low"] <= r["difference"] <= r["ci_high"]
        assert r["realised_low"] <= r["difference"] <= r["realised_high"]
        # the realised difference leaves out the rate's own sampling noise: never wider
        assert r["realised_high"] - r["realised_low"] <= r["ci_high"] - r["ci_low"] + 1e-9
        assert (r["p"] < 0.05) == (r["ci_low"] > 0 or r["ci_high"] < 0)
    assert np.allclose(d["p_holm"], holm(d["p"]))
    assert d.loc["gpt-4o-mini", "verdict"] == "differs"


def test_deck_comparison_uses_no_deck_post_strata(campaign):
    found = compare_settings(campaign.obs, campaign.labels, by="deck", metric="lkr")
    assert set(found.cells["level"]) == {"balderdash_words", "basic_english_words"}
    # the frequent deck's words are known far more often: every model differs
    assert (found.differences["verdict"] == "differs").all()


def test_verdicts():
    assert verdict_text(np.nan, np.nan, np.nan, 0.05, 0.1, "too few labels") == "cannot tell (too few labels)"
    assert verdict_text(0.04, 0.01, 0.2, 0.05, 0.1) == "differs"
    assert verdict_text(0.06, -0.01, 0.09, 0.05, 0.1).startswith("no difference detected")


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"by": "players"}, "^by:"),
        ({"by": "deck", "metric": "dr"}, "^metric:"),
        ({"by": "deck", "margin": 0}, "^margin:"),
        ({"by": "deck", "draws": 10}, "^draws:"),
    ],  # fmt: skip
)
def test_bad_options_name_the_parameter(campaign, options, message):
    with pytest.raises(ParameterError, match=message):
        compare_settings(campaign.obs, campaign.labels, **options)


def test_rankings_probabilities_and_first_set(campaign):
    table = rank_models(campaign.obs, campaign.labels, by="deck", metric="lkr", draws=5000)
    for _, part in table.groupby("level"):
        probs = part[["p_rank_1", "p_rank_2", "p_rank_3"]].to_numpy()
        assert np.allclose(probs.sum(axis=0), 1) and np.allclose(probs.sum(axis=1), 1)
        assert part["rank"].tolist() == sorted(part["rank"]) and part["rank"].iloc[0] == 1
        assert part["estimate"].is_monotonic_decreasing
        assert part.loc[part["rank"] == 1, "could_be_first"].item()  # the estimate's first is never out
    whole = rank_models(campaign.obs, campaign.labels, draws=5000)
    assert set(whole["level"]) == {"(all)"} and len(whole) == 3


def test_a_clearly_best_model_is_alone_in_the_first_set():
    # three models, fully labelled cells of 400 items: true rates 0.9, 0.5, 0.45
    rows, labels = [], []
    for model, rate in (("a", 0.9), ("b", 0.5), ("c", 0.45)):
        truth = np.arange(400) < rate * 400
        for k, t in enumerate(truth):
            item = f"bd:{model}:{k}:1"
            rows.append({"item_id": item, "model": model, "deck": "d", "true_def": bool(t), "knows": bool(t)})
            labels.append({"item_id": item, "rater": "r1", "rater_type": "human", "label": str(bool(t)).lower(),
                           "question": "reference"})  # fmt: skip
    table = rank_models(pd.DataFrame(rows), pd.DataFrame(labels), draws=5000)
    assert table.loc[table["could_be_first"], "model"].tolist() == ["a"]
    assert table.set_index("model").loc["a", "p_rank_1"] == 1.0
