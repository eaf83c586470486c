"""The binary latent-truth engine (analysis/correction/latent.py, latent_bootstrap.py): published
data, reference libraries, hand calculations and the identifiability refusals."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.optimize import least_squares

from wordplay_audit.analysis.correction import corrected_shares
from wordplay_audit.analysis.correction.latent import check_identified, fit_latent, latent_design
from wordplay_audit.analysis.correction.latent_bootstrap import latent_truth
from wordplay_audit.errors import ParameterError

crowdkit_warnings = pytest.mark.filterwarnings("ignore::DeprecationWarning", "ignore::FutureWarning")

# Hui & Walter (1980, Biometrics 36:167), Table 1: the Mantoux and Tine tuberculin tests in two
# populations, counts of (Mantoux, Tine) = (+,+), (+,−), (−,+), (−,−).
HUI_WALTER = {"population 1": (14, 4, 9, 528), "population 2": (887, 31, 37, 367)}


def _two_test_frames(tables: dict[str, tuple[int, int, int, int]]):
    items, ratings, i = [], [], 0
    for population, counts in tables.items():
        for (a, b), n in zip([(1, 1), (1, 0), (0, 1), (0, 0)], counts, strict=True):
            for _ in range(n):
                items.append((i, population))
                ratings += [(i, "mantoux", bool(a)), (i, "tine", bool(b))]
                i += 1
    return (pd.DataFrame(items, columns=["item_id", "population"]),
            pd.DataFrame(ratings, columns=["item_id", "rater", "label"]))  # fmt: skip


def _moment_solution(tables) -> np.ndarray:
    """The six Hui–Walter parameters solving the six cell equations (an independent solve of the
    just-identified model: its ML estimate reproduces the observed proportions)."""
    observed = [np.array(c[:3]) / sum(c) for c in tables.values()]

    def residual(theta):
        se1, sp1, se2, sp2, *prev = theta
        out = []
        for p, obs in zip(prev, observed, strict=True):
            cells = [p * se1 * se2 + (1 - p) * (1 - sp1) * (1 - sp2),
                     p * se1 * (1 - se2) + (1 - p) * (1 - sp1) * sp2,
                     p * (1 - se1) * se2 + (1 - p) * sp1 * (1 - sp2)]  # fmt: skip
            out += list(np.array(cells) - obs)
        return out

    return least_squares(residual, [0.9, 0.9, 0.9, 0.9, 0.1, 0.6], bounds=(0, 1), xtol=1e-14, ftol=1e-14).x


def test_hui_walter_two_tests_two_populations_match_the_moment_solution():
    items, ratings = _two_test_frames(HUI_WALTER)
    design = latent_design(items, ratings, strata=["population"])
    check_identified(design)  # two populations, each with ≥ 30 doubly rated items
    fit = fit_latent(design, n_iter=20000, tol=1e-12)
    se1, sp1, se2, sp2, p1, p2 = _moment_solution(HUI_WALTER)
    raters = design.raters  # sorted: mantoux, tine
    assert raters == ["mantoux", "tine"]
    np.testing.assert_allclose(fit.se[0], [se1, se2], atol=1e-4)
    np.testing.assert_allclose(fit.sp[0], [sp1, sp2], atol=1e-4)
    np.testing.assert_allclose(fit.q[0], [p1, p2], atol=1e-4)
    # the saturated fit reproduces the published cells: population 2's (+,+) share 887/1322
    q, se, sp = fit.q[0][1], fit.se[0], fit.sp[0]
    both = q * se[0] * se[1] + (1 - q) * (1 - sp[0]) * (1 - sp[1])
    assert both == pytest.approx(887 / 1322, abs=1e-5)


def _three_raters(seed=0, n=400, prevalence=0.3, se=(0.9, 0.8, 0.95), sp=(0.85, 0.95, 0.9)):
    rng = np.random.default_rng(seed)
    truth = rng.random(n) < prevalence
    rows = []
    for r, (a, b) in enumerate(zip(se, sp, strict=True)):
        said = np.where(truth, rng.random(n) < a, rng.random(n) > b)
        rows.append(pd.DataFrame({"item_id": np.arange(n), "rater": f"r{r}", "label": said}))
    return pd.DataFrame({"item_id": np.arange(n), "cell": "all"}), pd.concat(rows, ignore_index=True), truth


@pytest.mark.slow  # crowd-kit's pandas EM: ≈ 5-9 s
@crowdkit_warnings
def test_full_model_in_one_population_matches_crowdkit_dawid_skene():
    from crowdkit.aggregation import DawidSkene as CrowdKitDawidSkene

    items, ratings, _ = _three_raters(n=150)
    fit = fit_latent(latent_design(items, ratings, strata=["cell"]), n_iter=40, tol=0)  # 40 EM steps each
    frame = ratings.rename(columns={"item_id": "task", "rater": "worker"}).astype({"label": int})
    ref = CrowdKitDawidSkene(n_iter=40, tol=-np.inf).fit(frame)
    for r, name in enumerate(["r0", "r1", "r2"]):
        # crowd-kit's errors_: rows (worker, observed label), columns true label
        assert fit.se[0][r] == pytest.approx(ref.errors_.loc[(name, 1), 1], abs=1e-8)
        assert fit.sp[0][r] == pytest.approx(ref.errors_.loc[(name, 0), 0], abs=1e-8)
    assert fit.q[0][0] == pytest.approx(ref.priors_[1], abs=1e-8)


@pytest.mark.slow
@crowdkit_warnings
def test_one_coin_model_matches_crowdkit_one_coin_dawid_skene():
    from crowdkit.aggregation import OneCoinDawidSkene

    items, ratings, _ = _three_raters(seed=1, n=150, se=(0.9, 0.8, 0.7), sp=(0.9, 0.8, 0.7))
    fit = fit_latent(latent_design(items, ratings, strata=["cell"]), model="one-coin", n_iter=40, tol=0)
    frame = ratings.rename(columns={"item_id": "task", "rater": "worker"}).astype({"label": int})
    ref = OneCoinDawidSkene(n_iter=40, tol=-np.inf).fit(frame)  # same start, same update order
    np.testing.assert_allclose(fit.se[0], ref.skills_.loc[["r0", "r1", "r2"]].to_numpy(), atol=1e-8)
    assert fit.q[0][0] == pytest.approx(ref.priors_[1], abs=1e-8)


def test_unanimous_raters_give_the_consensus_engine_estimate():
    """Three raters who always agree: every posterior is 0 or 1, so the latent estimate is the
    consensus engine's post-stratified share, (K + Σ U_s x_s/n_s)/N (corrected_shares)."""
    rng = np.random.default_rng(3)
    n = 300
    judge = rng.random(n) < 0.4
    truth = np.where(judge, rng.random(n) < 0.8, rng.random(n) < 0.2)
    labelled = np.zeros(n, bool)
    labelled[rng.choice(np.flatnonzero(judge), 40, replace=False)] = True
    labelled[rng.choice(np.flatnonzero(~judge), 40, replace=False)] = True
    items = pd.DataFrame({"item_id": np.arange(n), "cell": "m", "judge": judge})
    ratings = pd.DataFrame([(i, r, bool(truth[i])) for i in np.flatnonzero(labelled) for r in "abc"],
                           columns=["item_id", "rater", "label"])  # fmt: skip
    latent = latent_truth(items, ratings, strata=["cell", "judge"], n_boot=200).shares(["cell"])
    human = pd.array(np.where(labelled, truth, None), dtype="boolean")
    consensus = corrected_shares(items.assign(human=human), cells=["cell"])
    assert latent["estimate"].iloc[0] == pytest.approx(consensus["estimate"].iloc[0], abs=1e-6)
    # by hand: 80 labelled, x true among them; the rest by verdict
    k = truth[labelled].sum()
    rest = sum(
        (~labelled & (judge == v)).sum() * truth[labelled & (judge == v)].mean() for v in (True, False)
    )
    assert latent["estimate"].iloc[0] == pytest.approx((k + rest) / n, abs=1e-6)


def test_posterior_by_hand():
    """One stratum of prevalence q and known raters: P(true | 1, 1, 0) by Bayes' rule."""
    items, ratings, _ = _three_raters(seed=4)
    design = latent_design(items, ratings, strata=["cell"])
    fit = fit_latent(design)
    q, se, sp = fit.q[0][0], fit.se[0], fit.sp[0]
    at = np.flatnonzero((design.ratings == [1, 1, 0]).all(axis=1))[0]
    true = q * se[0] * se[1] * (1 - se[2])
    false = (1 - q) * (1 - sp[0]) * (1 - sp[1]) * sp[2]
    assert fit.posterior[0][at] == pytest.approx(true / (true + false), rel=1e-9)


def test_gold_items_are_clamped_and_anchor_the_raters():
    items, ratings, truth = _three_raters(seed=5)
    items["gold"] = pd.array(np.where(np.arange(len(items)) < 50, truth, None), dtype="boolean")
    design = latent_design(items, ratings, strata=["cell"], gold="gold")
    fit = fit_latent(design)
    gold = design.gold >= 0
    np.testing.assert_array_equal(fit.posterior[0][gold], design.gold[gold])


def test_interval_holds_the_point_and_the_truth_on_a_plain_campaign():
    items, ratings, truth = _three_raters(seed=6, n=600)
    result = latent_truth(items, ratings, strata=["cell"], n_boot=400, seed=1)
    row = result.shares(["cell"]).iloc[0]
    assert row["ci_low"] <= row["estimate"] <= row["ci_high"]
    assert row["ci_low"] <= truth.mean() <= row["ci_high"]
    raters = result.rater_accuracy()
    assert (raters["se_low"] <= raters["se"]).all() and (raters["se"] <= raters["se_high"]).all()
    assert list(raters.columns) == ["rater", "n", "se", "se_low", "se_high", "sp", "sp_low", "sp_high"]


# ------------------------------------------------------------------------------ identifiability


def _design(rows, items=None, strata=("cell",)):
    ratings = pd.DataFrame(rows, columns=["item_id", "rater", "label"])
    if items is None:
        items = pd.DataFrame({"item_id": sorted(set(ratings["item_id"])), "cell": "c"})
    return latent_design(items, ratings, strata=list(strata))


def test_one_rating_per_item_is_refused_with_what_the_campaign_needs():
    design = _design([(i, f"r{i % 3}", i % 2 == 0) for i in range(200)])
    with pytest.raises(ParameterError, match=r"^truth: 'latent' needs a second rating on ≥ 30 items .*now 0 with two, 0 with three"):  # fmt: skip
        check_identified(design)


def test_two_raters_in_one_population_are_refused():
    design = _design([(i, r, (i + k) % 3 == 0) for i in range(100) for k, r in enumerate("ab")])
    with pytest.raises(
        ParameterError, match=r"two ratings and one population .* third rating on ≥ 30 items \(now 0\)"
    ):
        check_identified(design)


def test_two_raters_and_the_judge_verdict_as_second_population_are_accepted():
    items = pd.DataFrame({"item_id": range(100), "cell": "c", "judge": [i < 50 for i in range(100)]})
    rows = [(i, r, (i < 50) == ((i + k) % 7 != 0)) for i in range(100) for k, r in enumerate("ab")]
    check_identified(_design(rows, items, strata=("cell", "judge")))


def test_a_rater_seen_on_too_few_checked_items_is_refused():
    rows = [(i, r, i % 2 == 0) for i in range(60) for r in "abc"] + [(60 + i, "d", True) for i in range(3)]
    rows += [(60 + i, "a", True) for i in range(3)]
    with pytest.raises(ParameterError, match=r"rater 'd' rated 3 item\(s\) .*needs ≥ 10"):
        check_identified(_design(rows))


def test_bad_inputs_are_one_line_parameter_errors():
    items = pd.DataFrame({"item_id": [1, 2], "cell": "c"})
    with pytest.raises(ParameterError, match=r"^ratings: row 1: rater 'a' rated item 1 twice"):
        latent_design(items, pd.DataFrame({"item_id": [1, 1], "rater": "a", "label": True}), strata=["cell"])
    with pytest.raises(ParameterError, match=r"^ratings: row 0: item_id 9 is not in items"):
        latent_design(items, pd.DataFrame({"item_id": [9], "rater": "a", "label": True}), strata=["cell"])
    with pytest.raises(ParameterError, match=r"^n_boot: expected a whole number ≥ 100"):
        latent_truth(
            items, pd.DataFrame({"item_id": [1], "rater": "a", "label": True}), strata=["cell"], n_boot=5
        )


@pytest.mark.slow  # 120 campaigns × 300 resamples
def test_rater_bootstrap_intervals_cover_the_generating_accuracy():
    """The percentile item-bootstrap intervals of each rater's Se and Sp (refitted in every
    resample) cover the generating values: 120 campaigns × 3 raters × 2 = 720 intervals."""
    se, sp = np.array([0.9, 0.8, 0.95]), np.array([0.85, 0.95, 0.9])
    hits = []
    for seed in range(120):
        items, ratings, _ = _three_raters(seed=100 + seed, n=400, se=tuple(se), sp=tuple(sp))
        table = latent_truth(items, ratings, strata=["cell"], n_boot=300, seed=seed).rater_accuracy()
        hits += list((table["se_low"].to_numpy() <= se) & (se <= table["se_high"].to_numpy()))
        hits += list((table["sp_low"].to_numpy() <= sp) & (sp <= table["sp_high"].to_numpy()))
    coverage = float(np.mean(hits))
    assert 0.92 <= coverage <= 0.98, coverage  # 720 intervals: ±0.016 binomial sd at 0.95


def test_unanimous_raters_give_the_poststratified_judge_accuracy():
    """With posteriors 0/1 the latent judge audit is Tenenbein's post-stratified Se and Sp
    (analysis.correction.poststratified_accuracy) on the consensus."""
    from wordplay_audit.analysis.correction import poststratified_accuracy

    rng = np.random.default_rng(8)
    n = 400
    truth = rng.random(n) < 0.35
    judge = np.where(truth, rng.random(n) < 0.75, rng.random(n) < 0.08)
    labelled = np.zeros(n, bool)
    for verdict in (True, False):
        labelled[rng.choice(np.flatnonzero(judge == verdict), 30, replace=False)] = True
    items = pd.DataFrame({"item_id": np.arange(n), "cell": "m", "judge": judge})
    ratings = pd.DataFrame([(i, r, bool(truth[i])) for i in np.flatnonzero(labelled) for r in "abc"],
                           columns=["item_id", "rater", "label"])  # fmt: skip
    audit = (
        latent_truth(items, ratings, strata=["cell", "judge"], n_boot=200).judge_accuracy(["cell"]).iloc[0]
    )
    human = pd.array(np.where(labelled, truth, None), dtype="boolean")
    ref = poststratified_accuracy(items.assign(human=human, labelled=labelled))
    assert audit["recall_w"] == pytest.approx(ref.se, abs=1e-6)
    assert audit["fnr_w"] == pytest.approx(1 - ref.se, abs=1e-6)
    assert audit["specificity_w"] == pytest.approx(ref.sp, abs=1e-6)
    assert audit["fnr_w_low"] <= audit["fnr_w"] <= audit["fnr_w_high"]


def _four_raters(copy_share: float, seed: int = 9, n: int = 600):
    rng = np.random.default_rng(seed)
    truth = rng.random(n) < 0.4

    def rater(acc):
        return np.where(truth, rng.random(n) < acc, rng.random(n) > acc)

    a = rater(0.85)
    b = np.where(rng.random(n) < copy_share, a, rater(0.85))  # b copies a's answer (and errors)
    ratings = pd.concat([pd.DataFrame({"item_id": np.arange(n), "rater": name, "label": said})
                         for name, said in (("a", a), ("b", b), ("c", rater(0.9)), ("d", rater(0.9)))])  # fmt: skip
    return latent_design(pd.DataFrame({"item_id": np.arange(n), "cell": "x"}), ratings, strata=["cell"])


def test_dependence_check_flags_shared_errors_and_not_independent_ones():
    """Rater b copies a on 70 % of items: the fit takes the copied answer for the truth (a and b
    look near perfect), so the excess agreement shows in the other pair (c–d, z ≫ 3): the check
    says independence fails, not always which pair broke it. Independent raters: every z < 3."""
    from wordplay_audit.analysis.correction.latent import dependence_check

    shared = _four_raters(0.7)
    assert dependence_check(shared, fit_latent(shared))["z"].max() >= 3
    for seed in (1, 2, 3):
        plain = _four_raters(0.0, seed=seed)
        assert dependence_check(plain, fit_latent(plain))["z"].max() < 3


def test_sampling_weights_enter_as_the_consensus_engine_weights_them():
    """Unanimous raters and labels drawn at two rates (1/π = 2 and 6): the latent estimate is
    the consensus engine's weighted one (Kish counts of v = 1/π − 1, cells.label_counts)."""
    rng = np.random.default_rng(12)
    n = 400
    judge = rng.random(n) < 0.5
    truth = np.where(judge, rng.random(n) < 0.7, rng.random(n) < 0.15)
    labelled = rng.random(n) < 0.3
    weight = np.where(labelled, np.where(rng.random(n) < 0.5, 2.0, 6.0), np.nan)
    items = pd.DataFrame({"item_id": np.arange(n), "cell": "m", "judge": judge, "sampling_weight": weight})
    ratings = pd.DataFrame([(i, r, bool(truth[i])) for i in np.flatnonzero(labelled) for r in "abc"],
                           columns=["item_id", "rater", "label"])  # fmt: skip
    latent = latent_truth(items, ratings, strata=["cell", "judge"], n_boot=200).shares(["cell"])
    human = pd.array(np.where(labelled, truth, None), dtype="boolean")
    consensus = corrected_shares(items.assign(human=human), cells=["cell"])
    assert latent["estimate"].iloc[0] == pytest.approx(consensus["estimate"].iloc[0], abs=1e-9)
    unweighted = corrected_shares(items.drop(columns="sampling_weight").assign(human=human), cells=["cell"])
    assert (
        abs(unweighted["estimate"].iloc[0] - consensus["estimate"].iloc[0]) > 1e-4
    )  # the weights matter here
