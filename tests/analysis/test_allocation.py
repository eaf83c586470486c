"""Adaptive allocation: Neyman's closed form, hand-computed half-widths, the
minimax objective against brute force, inclusion probabilities and weighted estimates that
stay unbiased when the sampling rates change between rounds (seeded simulation, tolerance
from the simulation's own standard error)."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest

from wordplay_audit.analysis.allocation import (
    AllocationOptions,
    StrataCounts,
    allocate,
    allocate_variances,
    fnr_target,
    linear_target,
    neyman_allocation,
    predicted_half_widths,
    unit_variances,
    weighted_share,
    weighted_stratified_share,
)
from wordplay_audit.corpora.sampling import draw_round, inclusion_probabilities
from wordplay_audit.errors import ParameterError

Z95 = 1.959963984540054


def test_neyman_closed_form_by_hand():
    # N_h S_h = 30, 40, 30 → n = 100 splits 30/40/30
    assert np.allclose(neyman_allocation([100, 200, 300], [0.3, 0.2, 0.1], 100), [30, 40, 30])


def test_greedy_one_target_is_neyman():
    big_n = np.array([100.0, 200.0, 300.0])
    sd = np.array([0.3, 0.2, 0.1])
    w = big_n / big_n.sum()
    counts = StrataCounts(big_n, np.zeros(3))
    add = allocate_variances((w * sd) ** 2, counts, 100, AllocationOptions(pilot=1))
    assert add.sum() == 100
    assert np.abs(add - np.array([30, 40, 30])).max() <= 1


def test_allocate_with_shares_matches_neyman_on_the_hand_computed_sd():
    big_n = np.array([400.0, 300.0, 300.0])
    n = np.array([10.0, 10.0, 10.0])
    x = np.array([5.0, 1.0, 10.0])
    counts = StrataCounts(big_n, n)
    target = linear_target("tdr", counts, [True, True, True], x)
    # q̃ = (x + 3)/(n + 6) (a = 6, the default): 8/16, 4/16, 13/16; S² = q̃(1 − q̃)·N/(N − 1)
    q = np.array([8.0, 4.0, 13.0]) / 16
    sd = np.sqrt(np.maximum(q * (1 - q), 0.01) * big_n / (big_n - 1))
    result = allocate(counts, [target], 270, AllocationOptions(pilot=0))
    expected = neyman_allocation(big_n, sd, 300)
    assert expected.min() > 10  # no stratum is over-sampled already, so the closed form applies
    assert np.abs(n + result.add - expected).max() <= 1


def test_predicted_half_width_by_hand():
    counts = StrataCounts(np.array([50.0, 150.0]), np.array([10.0, 30.0]))
    target = linear_target("t", counts, [True, True], [5, 3])
    q1, q2 = 8 / 16, 6 / 36  # (x + 3)/(n + 6)
    var = 0.25**2 * q1 * (1 - q1) * 50 / 49 * (1 / 10 - 1 / 50) + 0.75**2 * q2 * (1 - q2) * 150 / 149 * (
        1 / 30 - 1 / 150
    )
    unit = unit_variances(counts, [target], floor=0.0)
    assert predicted_half_widths(unit, counts)[0] == pytest.approx(Z95 * math.sqrt(var), rel=1e-9)
    var_after = var - 0.75**2 * q2 * (1 - q2) * 150 / 149 * (1 / 30 - 1 / 40)
    after = predicted_half_widths(unit, counts, [0, 10])[0]
    assert after == pytest.approx(Z95 * math.sqrt(var_after), rel=1e-9)


def test_floor_keeps_an_all_agree_stratum_from_zero():
    counts = StrataCounts(np.array([1000.0]), np.array([200.0]))
    target = linear_target("t", counts, [True], [200])
    unit = unit_variances(counts, [target], floor=0.02)
    assert unit[0, 0] == pytest.approx(0.02 * 1000 / 999)


def test_pilot_first_then_greedy_and_caps():
    counts = StrataCounts(np.array([8.0, 500.0, 500.0]), np.array([0.0, 0.0, 2.0]))
    target = linear_target("t", counts, [True, True, True], [0, 0, 1])
    result = allocate(counts, [target], 40, AllocationOptions(pilot=5))
    assert (counts.labelled + result.add >= 5).all()
    assert counts.labelled[0] + result.add[0] <= 8
    assert result.add.sum() == 40
    short = allocate(counts, [target], 6, AllocationOptions(pilot=5))
    assert list(short.add) == [2, 2, 2]  # one label per stratum per pass, not all to one
    assert np.isinf(short.before).all() and np.isfinite(short.after).all()
    zero_pilot = allocate(counts, [target], 6, AllocationOptions(pilot=0))
    assert (counts.labelled + zero_pilot.add >= 1).all()  # every used stratum gets one label first
    none = allocate(counts, [target], 2, AllocationOptions(pilot=5))
    assert np.isinf(none.after).all()  # a used stratum is still unlabelled: no prediction


def _max_half_width(unit, counts, add):
    return predicted_half_widths(unit, counts, add).max()


def _best_max_half_width(unit, counts, budget):
    """Brute force: the smallest largest half-width over every split of ``budget`` labels."""
    strata = len(counts.population)
    return min(
        _max_half_width(unit, counts, np.array([*a, budget - sum(a)]))
        for a in itertools.product(range(budget + 1), repeat=strata - 1)
        if sum(a) <= budget
    )


def test_minimax_greedy_against_brute_force():
    counts = StrataCounts(np.array([60.0, 90.0, 40.0, 120.0]), np.array([3.0, 3.0, 3.0, 3.0]))
    members = [[True, True, False, False], [False, True, True, True]]
    x = [np.array([1.0, 2.0, 1.0, 0.0]), np.array([1.0, 1.0, 2.0, 3.0])]
    targets = [
        linear_target(f"t{i}", counts, m, xi) for i, (m, xi) in enumerate(zip(members, x, strict=True))
    ]
    options = AllocationOptions(pilot=0)
    unit = unit_variances(counts, targets, options.floor)
    budget = 24
    best = _best_max_half_width(unit, counts, budget)
    result = allocate(counts, targets, budget, options)
    assert result.after.max() <= best * (1 + 1e-9)
    assert result.after.max() < result.before.max()
    proportional = np.round(budget * counts.population / counts.population.sum())
    assert result.after.max() < _max_half_width(unit, counts, proportional)


def test_sum_objective_is_not_worse_on_the_sum():
    counts = StrataCounts(np.array([100.0, 100.0, 100.0]), np.array([5.0, 5.0, 5.0]))
    targets = [
        linear_target("a", counts, [True, True, False], [2, 0, 0]),
        linear_target("b", counts, [False, True, True], [0, 0, 3]),
    ]
    by_sum = allocate(counts, targets, 30, AllocationOptions(objective="sum"))
    by_max = allocate(counts, targets, 30, AllocationOptions(objective="max"))
    assert by_sum.after.sum() <= by_max.after.sum() + 1e-12
    # The greedy rule with single-label exchanges is a local optimum for the maximum: here it
    # stops at (8, 14, 8), 0.27 % above the best split (9, 12, 9), which needs two labels moved
    # out of the shared stratum at once. The gap is held to 0.5 % of the brute-force optimum.
    unit = unit_variances(counts, targets, AllocationOptions().floor)
    best = _best_max_half_width(unit, counts, 30)
    assert best <= by_sum.after.max() + 1e-12
    assert by_max.after.max() <= best * 1.005


def test_fnr_gradient_matches_finite_differences():
    counts = StrataCounts(np.array([200.0, 100.0, 150.0, 50.0]), np.array([10.0, 10.0, 10.0, 10.0]))
    judge_false = np.array([False, True, False, True])
    x = np.array([8.0, 3.0, 9.0, 2.0])
    target = fnr_target("fnr", counts, [True] * 4, judge_false, x)

    def fnr(q):
        mass = counts.population * q
        return mass[judge_false].sum() / mass.sum()

    q = (x + 3) / 16  # the gradient is taken at (x + a/2)/(n + a), a = PSEUDO = 6
    numeric = [(fnr(q + e * 1e-6) - fnr(q - e * 1e-6)) / 2e-6 for e in np.eye(4)]
    assert np.allclose(target.gradient, numeric, rtol=1e-6)
    half = fnr_target("fnr", counts, [True] * 4, judge_false, x, pseudo=1.0)
    q = (x + 0.5) / 11
    numeric = [(fnr(q + e * 1e-6) - fnr(q - e * 1e-6)) / 2e-6 for e in np.eye(4)]
    assert np.allclose(half.gradient, numeric, rtol=1e-6)


def test_bad_parameters_name_the_allowed_values():
    with pytest.raises(ParameterError, match="max, sum"):
        AllocationOptions(objective="mean")
    with pytest.raises(ParameterError, match="confidence"):
        AllocationOptions(confidence=95)
    with pytest.raises(ParameterError, match="0 … population"):
        StrataCounts(np.array([5.0]), np.array([6.0]))
    counts = StrataCounts(np.array([5.0]), np.array([1.0]))
    with pytest.raises(ParameterError, match="budget"):
        allocate(counts, [linear_target("t", counts, [True], [0])], -1)


def test_inclusion_probabilities_same_strata_telescope_to_n_over_big_n():
    strata = np.repeat(["a", "b"], [40, 60])
    rng = np.random.default_rng(3)
    taken = np.zeros(100, dtype=bool)
    rounds = []
    for drawn in ({"a": 4, "b": 6}, {"a": 10, "b": 2}):
        flags = draw_round(strata, drawn, taken, rng)
        rounds.append((strata, flags))
        taken |= flags
    pi = inclusion_probabilities(rounds)
    assert np.allclose(pi[strata == "a"], 14 / 40) and np.allclose(pi[strata == "b"], 8 / 60)


def _population():
    """400 items: deck × judge verdict; truth depends on the verdict."""
    deck = np.repeat(["A", "B"], 200)
    verdict = np.tile(np.repeat([True, False], [120, 80]), 2)
    rng = np.random.default_rng(11)
    truth = np.where(verdict, rng.random(400) < 0.85, rng.random(400) < 0.2).astype(float)
    return deck, verdict, truth


def _changed_rates_campaign(rng, deck, verdict, fine_second: bool):
    """Round 1 by deck × verdict at one set of rates; round 2 at other rates, by deck only
    (exact π) or by deck × verdict after a round by deck (``fine_second``, approximate π)."""
    fine = np.char.add(deck, np.where(verdict, "+", "-"))
    first, second = (deck, fine) if fine_second else (fine, deck)
    plans = (
        ({"A": 10, "B": 30}, {"A+": 20, "A-": 5, "B+": 5, "B-": 25})
        if fine_second
        else ({"A+": 6, "A-": 12, "B+": 6, "B-": 4}, {"A": 30, "B": 8})
    )
    taken = np.zeros(len(deck), dtype=bool)
    rounds = []
    for strata, plan in zip((first, second), plans, strict=True):
        flags = draw_round(strata, plan, taken, rng)
        rounds.append((strata, flags))
        taken |= flags
    return taken, inclusion_probabilities(rounds)


@pytest.mark.parametrize("fine_second", [False, True])
def test_weighted_estimates_stay_unbiased_when_rates_change(fine_second):
    deck, verdict, truth = _population()
    true_share = truth.mean()
    rng = np.random.default_rng(20261130)
    ht, hajek, naive = [], [], []
    for _ in range(3000):
        taken, pi = _changed_rates_campaign(rng, deck, verdict, fine_second)
        y, p = truth[taken], pi[taken]
        ht.append(np.sum(y / p) / len(truth))
        hajek.append(weighted_stratified_share({"A": 200, "B": 200}, deck[taken], y, p))
        naive.append(y.mean())
    for values in (ht, hajek):
        se = np.std(values, ddof=1) / math.sqrt(len(values))
        assert abs(np.mean(values) - true_share) < 4 * se
    se_naive = np.std(naive, ddof=1) / math.sqrt(len(naive))
    assert abs(np.mean(naive) - true_share) > 10 * se_naive  # the design does change the rates


def test_weighted_share_by_hand():
    theta, var = weighted_share([1, 0, 1], [0.5, 0.25, 1.0])
    w = np.array([2.0, 4.0, 1.0])
    assert theta == pytest.approx(3 / 7)
    resid = np.array([1, 0, 1]) - 3 / 7
    assert var == pytest.approx(np.sum(w**2 * resid**2) / 49 * 1.5)


# --- annotate next (file mode): the app layer over a planned campaign ---------------------


@pytest.fixture
def planned(tmp_path, run_cli):
    """300 definitions of three models; model m3's judge disagrees with people far more often."""
    rng = np.random.default_rng(8)
    rows, truth = [], {}
    for i in range(300):
        model = ("m1", "m2", "m3")[i % 3]
        true = bool(rng.random() < 0.5)
        wrong = rng.random() < (0.4 if model == "m3" else 0.05)
        truth[f"d{i}"] = true
        rows.append(
            {
                "item_id": f"d{i}",
                "game": "balderdash",
                "kind": "definition",
                "context": "w",
                "reference": "r",
                "candidate": "c",
                "player_model": model,
                "judge_verdict": str(true != wrong).lower(),
            }
        )
    pd.DataFrame(rows).to_csv(tmp_path / "items.csv", index=False)
    code, _out, err = run_cli(
        "annotate", "plan", str(tmp_path / "items.csv"), "--n", "60", "--raters", "ann,bob",
        "--overlap", "1", "--strata", "player_model,judge_verdict", "--seed", "1",
        "--out", str(tmp_path / "camp"),
    )  # fmt: skip
    assert code == 0, err
    sampled = pd.read_csv(tmp_path / "camp" / "items.csv", dtype=str)
    final = pd.DataFrame(
        {
            "item_id": sampled["item_id"],
            "question": "reference",
            "label": sampled["item_id"].map(truth).map(str).str.lower(),
        }
    )
    final.to_csv(tmp_path / "final.csv", index=False)
    return tmp_path, pd.DataFrame(rows)


def _next(run_cli, folder, *extra):
    return run_cli(
        "annotate", "next", str(folder / "camp"), "--budget", "40", "--labels", str(folder / "final.csv"),
        "--by", "player_model", "--seed", "3", "--json", *extra,
    )  # fmt: skip


def test_annotate_next_appends_a_round_with_inclusion_probabilities(planned, run_cli):
    import json

    from wordplay_audit.annotate.campaign import read_campaign

    folder, population = planned
    before = read_campaign(folder / "camp")
    code, out, err = _next(run_cli, folder)
    assert code == 0, err
    record = json.loads(out)
    after = read_campaign(folder / "camp")
    sampled = after.items[after.items["honeypot"].astype(str) != "true"]
    assert len(sampled) == 100 and sampled["item_id"].is_unique
    assert set(record["item_ids"]) == set(sampled["item_id"]) - set(before.items["item_id"])
    assert len(after.assignments) == len(before.assignments) + 40  # overlap 1
    assert (
        after.assignments.groupby("rater")["position"]
        .apply(lambda p: sorted(p) == list(range(1, len(p) + 1)))
        .all()
    )
    # same strata in both rounds: π telescopes to (n1 + n2)/N per model × verdict stratum
    merged = sampled.merge(
        population[["item_id", "player_model", "judge_verdict"]], on="item_id", suffixes=("_x", "")
    )
    big_n = population.groupby(["player_model", "judge_verdict"]).size()
    n = merged.groupby(["player_model", "judge_verdict"]).size()
    pi = (
        merged.groupby(["player_model", "judge_verdict"])["inclusion_probability"]
        .agg(["min", "max"])
        .astype(float)
    )
    assert np.allclose(pi["min"], n / big_n) and np.allclose(pi["max"], n / big_n)
    # the model whose judge people contradict gets most of the new labels
    added = merged[merged["item_id"].isin(record["item_ids"])].groupby("player_model").size()
    assert added.get("m3", 0) > max(added.get("m1", 0), added.get("m2", 0))
    assert max(v for v in record["half_width_after"].values()) < max(record["half_width_before"].values())


def test_annotate_next_is_seeded_and_checks_its_options(planned, run_cli):
    import json
    import shutil

    folder, _ = planned
    shutil.copytree(folder / "camp", folder / "copy")
    first = json.loads(_next(run_cli, folder)[1])["item_ids"]
    shutil.rmtree(folder / "camp")
    shutil.move(folder / "copy", folder / "camp")
    assert json.loads(_next(run_cli, folder)[1])["item_ids"] == first
    code, _out, err = _next(run_cli, folder, "--target", "tdr,dr")
    assert code == 2 and "tdr, fnr, lkr" in err
    code, _out, err = _next(run_cli, folder, "--target", "lkr")  # final.csv: reference labels only
    assert code == 2 and err.count("\n") == 1 and "no any_sense label" in err
    code, _out, err = run_cli(
        "annotate", "next", str(folder / "camp"), "--budget", "5", "--labels", str(folder / "final.csv"),
        "--by", "deck",
    )  # fmt: skip
    assert code == 2 and "'deck'" in err
