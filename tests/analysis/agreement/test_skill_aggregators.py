"""The aggregators crowd-kit ships beside majority vote and Dawid–Skene: Wawa, zero-based
skill, gold majority vote, the skill-weighted vote they share, and GLAD.

Expected values: crowd-kit's own tests (tests/aggregation/data_wawa.py, data_zbs.py,
data_gold_mv.py and test_glad_aggregation.py, printed to 6 decimals) on its toy and simple
datasets (tests/support/crowdkit_datasets.py), and crowd-kit itself run on the same random input.
"""

import warnings

import numpy as np
import pandas as pd
import pytest
from scipy.optimize import approx_fprime

from tests.support.crowdkit_datasets import (
    SIMPLE,
    SIMPLE_GOLD,
    SIMPLE_TASKS,
    SIMPLE_TRUTH,
    TOY,
    TOY_GOLD,
    TOY_TRUTH,
    WORKERS,
)
from wordplay_audit.analysis.agreement import from_crowdkit
from wordplay_audit.analysis.agreement.glad import GLAD, _Fit
from wordplay_audit.analysis.agreement.gold_majority_vote import GoldMajorityVote
from wordplay_audit.analysis.agreement.tables import rating_table
from wordplay_audit.analysis.agreement.wawa import Wawa
from wordplay_audit.analysis.agreement.weighted_vote import WeightedMajorityVote
from wordplay_audit.analysis.agreement.zero_based_skill import ZeroBasedSkill
from wordplay_audit.errors import InputError, ParameterError

TOY_ITEMS = ["t1", "t2", "t3", "t4", "t5"]
# crowd-kit data_wawa.py / data_zbs.py (identical for both on these sets)
TOY_SKILL_VOTE = {
    "labels": ["no", "yes", "no", "yes", "no"],
    "skills": [0.6, 0.8, 1.0, 0.4, 0.8],
    "yes": [0.461538, 0.666667, 0.277778, 1.0, 0.166667],
}
SIMPLE_SKILL_VOTE = {
    "skills": {"fraud": 1 / 3, "good1": 1.0, "good2": 1.0, "good3": 1.0, "good4": 1.0, "careless": 2 / 3},
    "probas": [  # chicken, goose, parrot in SIMPLE_TASKS order
        [0.857143, 0.0, 0.142857], [0.818182, 0.181818, 0.0], [0.0, 0.9, 0.1], [0.0, 0.0, 1.0],
        [0.5, 0.333333, 0.166667], [0.0, 0.0, 1.0], [0.0, 1.0, 0.0], [0.0, 0.857143, 0.142857],
        [0.0, 0.0, 1.0], [0.0, 0.0, 1.0],
    ],
}  # fmt: skip
# crowd-kit data_gold_mv.py
TOY_GOLD_VOTE = {"skills": [0.5, 1.0, 1.0, 0.5, 0.0], "yes": [0.75, 0.833333, 0.333333, 1.0, 0.166667]}
SIMPLE_GOLD_VOTE = {
    "skills": {"fraud": 0.5, "good1": 1.0, "good2": 1.0, "good3": 1.0, "good4": 1.0, "careless": 0.5},
    "probas": [
        [0.8, 0.0, 0.2], [0.857143, 0.142857, 0.0], [0.0, 0.857143, 0.142857], [0.0, 0.0, 1.0],
        [0.5, 0.25, 0.25], [0.0, 0.0, 1.0], [0.0, 1.0, 0.0], [0.0, 0.8, 0.2], [0.0, 0.0, 1.0], [0.0, 0.0, 1.0],
    ],
}  # fmt: skip


def _check_toy(fitted, expected_labels, skills, yes):
    assert fitted.labels_.loc[TOY_ITEMS].tolist() == expected_labels
    assert fitted.skills_.loc[["w1", "w2", "w3", "w4", "w5"]].to_numpy() == pytest.approx(skills, abs=5e-7)
    assert fitted.probas_.loc[TOY_ITEMS, "yes"].to_numpy() == pytest.approx(yes, abs=5e-7)
    assert fitted.probas_.loc[TOY_ITEMS, "no"].to_numpy() == pytest.approx(1 - np.array(yes), abs=5e-7)


def _check_simple(fitted, skills, probas):
    assert fitted.labels_.loc[SIMPLE_TRUTH.index].tolist() == SIMPLE_TRUTH.tolist()
    names = [WORKERS[k] for k in skills]
    assert fitted.skills_.loc[names].to_numpy() == pytest.approx(list(skills.values()), abs=5e-7)
    got = fitted.probas_.loc[SIMPLE_TASKS, ["chicken", "goose", "parrot"]].to_numpy()
    assert got == pytest.approx(np.array(probas), abs=5e-7)


@pytest.mark.parametrize("estimator", [Wawa, ZeroBasedSkill])
def test_wawa_and_zbs_reproduce_crowdkits_published_values(estimator):
    _check_toy(
        estimator().fit(from_crowdkit(TOY)),
        TOY_SKILL_VOTE["labels"],
        TOY_SKILL_VOTE["skills"],
        TOY_SKILL_VOTE["yes"],
    )
    _check_simple(
        estimator().fit(from_crowdkit(SIMPLE)), SIMPLE_SKILL_VOTE["skills"], SIMPLE_SKILL_VOTE["probas"]
    )


def test_gold_majority_vote_reproduces_crowdkits_published_values():
    toy = GoldMajorityVote(TOY_GOLD).fit(from_crowdkit(TOY))
    _check_toy(toy, TOY_TRUTH.loc[TOY_ITEMS].tolist(), TOY_GOLD_VOTE["skills"], TOY_GOLD_VOTE["yes"])
    simple = GoldMajorityVote(SIMPLE_GOLD).fit(from_crowdkit(SIMPLE))
    _check_simple(simple, SIMPLE_GOLD_VOTE["skills"], SIMPLE_GOLD_VOTE["probas"])


def test_weighted_vote_by_hand():
    labels = from_crowdkit(TOY)
    fitted = WeightedMajorityVote({"w1": 3.0, "w2": 1.0, "w3": 1.0, "w4": 1.0, "w5": 0.0}).fit(labels)
    # t1: w1 no (3), w2 yes (1), w4 yes (1), w5 no (0) -> no 3/5
    assert fitted.probas_.loc["t1", "no"] == pytest.approx(0.6)
    assert fitted.labels_["t1"] == "no"
    # every rater of an item at weight 0: no label, nan shares, counted
    zero = WeightedMajorityVote({"w1": 0.0, "w2": 0.0, "w3": 0.0, "w4": 0.0, "w5": 0.0}).fit(labels)
    assert zero.labels_.isna().all() and zero.n_unlabelled_ == 5
    with pytest.raises(InputError, match=r"skills: no skill for rater\(s\) \['w5'\]"):
        WeightedMajorityVote({"w1": 1.0, "w2": 1.0, "w3": 1.0, "w4": 1.0}).fit(labels)
    with pytest.raises(ParameterError, match="^skills: expected weights ≥ 0"):
        WeightedMajorityVote({"w1": -1.0, "w2": 1.0, "w3": 1.0, "w4": 1.0, "w5": 1.0}).fit(labels)


def test_gold_majority_vote_refuses_raters_without_gold_and_unknown_gold_labels():
    labels = from_crowdkit(TOY)
    only_t5 = pd.Series({"t5": "no"})  # every rater but w1... w1 rated t5 too: use t3, which w1..w5 rate
    fitted = GoldMajorityVote(only_t5).fit(labels)
    assert fitted.skills_.to_dict() == {"w1": 0.0, "w2": 1.0, "w3": 1.0, "w4": 1.0, "w5": 1.0}
    no_w3 = pd.Series({"t1": "yes"})  # w3 did not rate t1
    with pytest.raises(InputError, match=r"^gold: rater\(s\) \['w3'\] rated no gold item"):
        GoldMajorityVote(no_w3).fit(labels)
    assert GoldMajorityVote(no_w3, missing_skill=0.5).fit(labels).skills_["w3"] == 0.5
    with pytest.raises(InputError, match="^gold: item 't1' has label 'maybe'"):
        GoldMajorityVote({"t1": "maybe"}).fit(labels)
    with pytest.raises(InputError, match="^gold: none of the gold items was rated"):
        GoldMajorityVote({"t9": "yes"}).fit(labels)
    with pytest.raises(ParameterError, match="^missing_skill: "):
        GoldMajorityVote(no_w3, missing_skill=-1).fit(labels)


def test_zbs_parameters_are_checked_by_name():
    labels = from_crowdkit(TOY)
    for bad, name in [({"lr_init": 0}, "lr_init"), ({"lr_reduce_factor": 2}, "lr_reduce_factor"),
                      ({"lr_steps_to_reduce": 0}, "lr_steps_to_reduce"), ({"eps": -1}, "eps"), ({"n_iter": -1}, "n_iter")]:  # fmt: skip
        with pytest.raises(ParameterError, match=f"^{name}: "):
            ZeroBasedSkill(**bad).fit(labels)


# GLAD: crowd-kit's test_glad_aggregation.py


@pytest.mark.parametrize("n_iter, tol", [(100, 0), (100500, 1e-5)])
@pytest.mark.parametrize("data, truth", [(TOY, TOY_TRUTH), (SIMPLE, SIMPLE_TRUTH)], ids=["toy", "simple"])
def test_glad_recovers_the_ground_truth_of_crowdkits_datasets(n_iter, tol, data, truth):
    labels = GLAD(n_iter=n_iter, tol=tol).fit(from_crowdkit(data)).labels_
    assert (labels.loc[truth.index] == truth).all()


def test_glad_first_e_step_on_one_task_equals_crowdkits():
    one = SIMPLE[SIMPLE["task"] == SIMPLE_TASKS[2]]  # ...eec: three goose, one parrot
    fit = _Fit(rating_table(from_crowdkit(one)))
    post = fit.e_step(np.ones(4), np.ones(1))
    assert post == pytest.approx(np.array([[0.995664, 0.004336]]), abs=1e-6)  # goose, parrot


def test_glad_gradient_equals_the_numerical_derivative_of_q():
    table = rating_table(from_crowdkit(SIMPLE))
    fit = _Fit(table)
    rng = np.random.default_rng(3)
    alpha, beta = rng.normal(1, 0.5, table.n_raters), rng.normal(1, 0.5, table.n_items)
    post = fit.e_step(alpha, beta)
    x0 = np.concatenate([alpha, beta])
    numerical = approx_fprime(x0, lambda x: fit.q(post, x[: table.n_raters], x[table.n_raters :]), 1e-7)
    assert fit.gradient(post, alpha, beta) == pytest.approx(numerical, abs=1e-4)


def _random_answers(seed, n_items=300, per_item=3, n_classes=2):
    rng = np.random.default_rng(seed)
    skill = rng.uniform(0.55, 0.95, 8)
    truth = rng.integers(0, n_classes, n_items)
    rows = []
    for i in range(n_items):
        for r in rng.choice(8, per_item, replace=False):
            label = truth[i] if rng.random() < skill[r] else rng.integers(0, n_classes)
            rows.append((f"w{r}", f"t{i}", f"c{label}"))
    return pd.DataFrame(rows, columns=["worker", "task", "label"]), truth


def _crowdkit(name):
    import importlib

    crowdkit = importlib.import_module("crowdkit.aggregation")
    return getattr(crowdkit, name)


def _same_probas(ours, theirs):
    theirs = theirs.sort_index()[sorted(theirs.columns)]
    assert ours.sort_index().to_numpy() == pytest.approx(theirs.to_numpy(), abs=1e-6)


@pytest.mark.slow  # crowd-kit's GLAD takes ~10 s here
@pytest.mark.filterwarnings("ignore::DeprecationWarning", "ignore::FutureWarning")
@pytest.mark.parametrize("n_classes", [2, 4])
def test_glad_equals_crowdkit_on_random_answers(n_classes):
    answers, _ = _random_answers(5, n_classes=n_classes, per_item=4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = _crowdkit("GLAD")().fit(answers)
    ours = GLAD().fit(from_crowdkit(answers))
    assert ours.n_iter_ == len(theirs.loss_history_)
    _same_probas(ours.probas_, theirs.probas_)
    assert ours.alphas_.sort_index().to_numpy() == pytest.approx(
        theirs.alphas_.sort_index().to_numpy(), abs=1e-5
    )
    assert ours.betas_.sort_index().to_numpy() == pytest.approx(
        theirs.betas_.sort_index().to_numpy(), abs=1e-5
    )


@pytest.mark.filterwarnings("ignore::DeprecationWarning", "ignore::FutureWarning")
@pytest.mark.parametrize(
    "name", ["Wawa", pytest.param("ZeroBasedSkill", marks=pytest.mark.slow), "GoldMajorityVote"]
)
def test_skill_votes_equal_crowdkit_on_random_answers(name, monkeypatch):
    """Binary labels, three ratings an item: no tied vote, where crowd-kit's data-ordered tie
    break and the category order could differ. crowd-kit's predict calls scikit-learn's
    check_is_fitted, which the installed scikit-learn refuses for these classes: skipped."""
    import importlib

    module = {"Wawa": "wawa", "ZeroBasedSkill": "zero_based_skill", "GoldMajorityVote": "gold_majority_vote"}[
        name
    ]
    monkeypatch.setattr(importlib.import_module(f"crowdkit.aggregation.classification.{module}"),
                        "check_is_fitted", lambda *a, **k: None)  # fmt: skip
    answers, truth = _random_answers(11)
    gold = pd.Series({f"t{i}": f"c{truth[i]}" for i in range(60)})
    reference = _crowdkit(name)()
    ours_cls = {"Wawa": Wawa, "ZeroBasedSkill": ZeroBasedSkill, "GoldMajorityVote": GoldMajorityVote}[name]
    if name == "GoldMajorityVote":
        theirs = reference.fit(answers, gold).predict_proba(answers)
        ours = ours_cls(gold).fit(from_crowdkit(answers))
    else:
        theirs = reference.fit(answers).predict_proba(answers)
        ours = ours_cls().fit(from_crowdkit(answers))
    _same_probas(ours.probas_, theirs)
    assert ours.skills_.sort_index().to_numpy() == pytest.approx(
        reference.skills_.sort_index().to_numpy(), abs=1e-12
    )


# Dawid–Skene started from gold labels: crowd-kit's DawidSkene.fit(data, true_labels)


@pytest.mark.filterwarnings("ignore::DeprecationWarning", "ignore::FutureWarning")
@pytest.mark.parametrize("data, gold", [(TOY, TOY_GOLD), (SIMPLE, SIMPLE_GOLD)], ids=["toy", "simple"])
def test_dawid_skene_with_gold_equals_crowdkit_with_true_labels(data, gold):
    from wordplay_audit.analysis.agreement import DawidSkene

    theirs = _crowdkit("DawidSkene")(n_iter=50, tol=-np.inf).fit(data, true_labels=gold)  # all 50
    ours = DawidSkene(n_iter=50, tol=None, gold=gold).fit(from_crowdkit(data))
    _same_probas(ours.probas_, theirs.probas_)
    assert ours.priors_.sort_index().to_numpy() == pytest.approx(
        theirs.priors_.sort_index().to_numpy(), abs=1e-6
    )
    assert (ours.probas_.loc[gold.index].idxmax(axis=1) == gold).all()  # the gold items keep their answer


def test_dawid_skene_gold_changes_the_fit_and_checks_its_labels():
    from wordplay_audit.analysis.agreement import DawidSkene

    answers, truth = _random_answers(2, n_items=120)
    labels = from_crowdkit(answers)
    gold = pd.Series({f"t{i}": f"c{1 - truth[i]}" for i in range(40)})  # wrong on purpose: it must bind
    fitted = DawidSkene(gold=gold).fit(labels)
    assert (fitted.labels_.loc[gold.index] == gold).all()
    assert not np.allclose(fitted.priors_.to_numpy(), DawidSkene().fit(labels).priors_.to_numpy())
    with pytest.raises(InputError, match="^gold: item 't0' has label 'c9'"):
        DawidSkene(gold={"t0": "c9"}).fit(labels)
