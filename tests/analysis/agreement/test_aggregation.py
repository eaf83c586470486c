"""Majority vote, Dawid–Skene (against crowd-kit), rater quality and the report section."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from crowdkit.aggregation import DawidSkene as CrowdKitDawidSkene
from crowdkit.aggregation import MajorityVote as CrowdKitMajorityVote
from sklearn.metrics import cohen_kappa_score

from wordplay_audit.analysis.agreement import (
    BootstrapOptions,
    DawidSkene,
    MajorityVote,
    NotFittedError,
    agreement,
    cohen_kappa,
    from_crowdkit,
    majority_vote,
    pairwise_agreement,
    rater_quality,
)
from wordplay_audit.analysis.agreement.section import agreement_section
from wordplay_audit.analysis.report import Report
from wordplay_audit.errors import InputError, ParameterError


def labels_from(rows, rater_type="human"):
    return pd.DataFrame(
        [(i, r, rater_type, lab) for i, r, lab in rows],
        columns=["item_id", "rater", "rater_type", "label"],
    )


def crowd(
    seed: int,
    n_items: int = 250,
    accuracies=(0.9, 0.8, 0.7, 0.55, 0.4),
    k: int = 3,
    p_rate: float = 0.8,
):
    rng = np.random.default_rng(seed)
    truth = rng.choice(k, n_items, p=np.linspace(3, 1, k) / np.linspace(3, 1, k).sum())
    rows = []
    for i in range(n_items):
        for r, acc in enumerate(accuracies):
            if rng.random() < p_rate:
                lab = truth[i] if rng.random() < acc else rng.integers(0, k)
                rows.append((f"t{i:04d}", f"w{r}", f"c{lab}"))
    return labels_from(rows), truth


def to_crowdkit(labels: pd.DataFrame) -> pd.DataFrame:
    return labels.rename(columns={"item_id": "task", "rater": "worker"})[["task", "worker", "label"]]


# ---------------------------------------------------------------- majority vote

TIE_ROWS = [
    ("a", "r1", "yes"),
    ("a", "r2", "yes"),
    ("a", "r3", "no"),  # 2–1: yes
    ("b", "r1", "yes"),
    ("b", "r2", "no"),  # 1–1: tie
    ("c", "r1", "no"),  # single rating
    ("c", "j1", "yes"),  # judge (ignored by default)
]


def tie_labels():
    frame = labels_from(TIE_ROWS)
    frame.loc[frame["rater"] == "j1", "rater_type"] = "judge"
    return frame


def test_majority_vote_adjudicates_ties_by_default():
    out = majority_vote(tie_labels())
    assert list(out.columns) == ["item_id", "label", "n_ratings", "n_agree", "tie"]
    assert out["item_id"].tolist() == ["a", "b", "c"]
    assert out["label"].tolist()[0] == "yes" and out["label"].isna().tolist() == [
        False,
        True,
        False,
    ]
    assert out["tie"].tolist() == [False, True, False]
    assert out["n_ratings"].tolist() == [3, 2, 1]
    assert out["n_agree"].tolist() == [2, 1, 1]
    assert out.loc[2, "label"] == "no"  # the judge's "yes" does not count


def test_majority_vote_other_policies_and_rater_types():
    first = majority_vote(tie_labels(), tie="first")
    assert first["label"].tolist() == ["yes", "no", "no"]  # "no" sorts before "yes"
    assert first["tie"].tolist() == [False, True, False]
    every = majority_vote(tie_labels(), rater_type=None)
    assert every["tie"].tolist() == [False, True, True]
    drawn = {majority_vote(tie_labels(), tie="random", seed=s).loc[1, "label"] for s in range(20)}
    assert drawn == {"yes", "no"}
    with pytest.raises(ParameterError, match="tie: expected one of adjudicate, first, random"):
        majority_vote(tie_labels(), tie="coin")


@pytest.mark.filterwarnings("ignore::DeprecationWarning", "ignore::FutureWarning")
def test_majority_vote_matches_crowdkit_on_untied_items():
    labels, _ = crowd(1)
    ours = majority_vote(labels).set_index("item_id")
    ref = CrowdKitMajorityVote().fit_predict(to_crowdkit(labels))
    untied = ours.index[~ours["tie"]]
    assert (ours.loc[untied, "label"] == ref.loc[untied]).all()


# ---------------------------------------------------------------- Dawid–Skene

# crowd-kit 1.4 uses pandas options that pandas 3 deprecates; silence only that, only here
crowdkit_warnings = pytest.mark.filterwarnings("ignore::DeprecationWarning", "ignore::FutureWarning")


@crowdkit_warnings
@pytest.mark.parametrize("n_iter", [1, 5, 20])
def test_dawid_skene_matches_crowdkit_at_equal_iterations(n_iter):
    labels, _ = crowd(2)
    ours = DawidSkene(n_iter=n_iter, tol=None).fit(labels)
    ref = CrowdKitDawidSkene(n_iter=n_iter, tol=-np.inf).fit(to_crowdkit(labels))
    assert ours.n_iter_ == len(ref.loss_history_) == n_iter
    mine = ours.probas_.loc[ref.probas_.index, ref.probas_.columns].to_numpy()
    assert np.abs(mine - ref.probas_.to_numpy()).max() < 1e-6
    assert (ours.labels_.loc[ref.labels_.index] == ref.labels_).all()
    assert np.abs(ours.priors_[ref.priors_.index].to_numpy() - ref.priors_.to_numpy()).max() < 1e-6
    for worker in ("w0", "w4"):
        theirs = ref.errors_.loc[worker]  # observed label × true label
        ours_conf = ours.confusions_[worker].T.loc[theirs.index, theirs.columns]  # → observed × true
        assert np.abs(ours_conf.to_numpy() - theirs.to_numpy()).max() < 1e-6


@crowdkit_warnings
def test_dawid_skene_same_labels_as_crowdkit_when_converged():
    labels, _ = crowd(3, n_items=300)
    ours = DawidSkene(n_iter=200, tol=1e-9).fit(labels)
    ref = CrowdKitDawidSkene(n_iter=200, tol=1e-9).fit(to_crowdkit(labels))
    assert (ours.labels_.loc[ref.labels_.index] == ref.labels_).all()


def test_dawid_skene_outputs_are_distributions_and_beat_majority_with_a_spammer():
    labels, truth = crowd(4, n_items=400, accuracies=(0.85, 0.8, 0.75, 0.1, 0.1))
    model = DawidSkene().fit(labels)
    assert np.allclose(model.probas_.sum(axis=1), 1.0)
    for conf in model.confusions_.values():
        assert np.allclose(conf.sum(axis=1), 1.0)
    consensus = model.consensus()
    assert list(consensus.columns) == ["item_id", "label", "posterior", "n_ratings"]
    true_label = pd.Series([f"c{t}" for t in truth], index=[f"t{i:04d}" for i in range(len(truth))])
    ds = consensus.set_index("item_id")["label"]
    ds_acc = (ds == true_label.loc[ds.index]).mean()
    mv = majority_vote(labels, tie="first").set_index("item_id")["label"]
    assert ds_acc >= (mv == true_label.loc[mv.index]).mean()


# ---------------------------------------------------------------- rater quality

QUALITY_ROWS = [
    ("i1", "r1", "a"),
    ("i1", "r2", "a"),
    ("i1", "r3", "a"),
    ("i2", "r1", "a"),
    ("i2", "r2", "a"),
    ("i2", "r3", "b"),
    ("i3", "r1", "b"),
    ("i3", "r2", "b"),
    ("i3", "r3", "b"),
    ("i4", "r1", "a"),
    ("i4", "r2", "b"),
    ("i4", "r3", "b"),
]


def test_rater_quality_by_hand():
    gold = pd.DataFrame({"item_id": ["i1", "i3", "i4"], "label": ["a", "b", "b"]})
    q = rater_quality(labels_from(QUALITY_ROWS), gold=gold)
    # r1 agrees with r2 on i1, i2, i3 and with r3 on i1, i3: 5 of 8 pairs
    assert q["agreement_with_others"].tolist() == pytest.approx([5 / 8, 6 / 8, 5 / 8])
    # r1 vs the others' majority: i1 a/a, i2 tied (left out), i3 b/b, i4 a/b
    # κ = (2/3 - 4/9)/(1 - 4/9) = 0.4, the same as scikit-learn on those three items
    assert q.loc["r1", "kappa_vs_rest"] == pytest.approx(0.4, abs=1e-12)
    assert q.loc["r1", "kappa_vs_rest"] == pytest.approx(cohen_kappa_score(["a", "b", "a"], ["a", "b", "b"]))
    assert q.loc["r1", "n_vs_rest"] == 3
    assert q["honeypot_accuracy"].tolist() == pytest.approx([2 / 3, 1.0, 1.0])
    assert q["n_honeypots"].tolist() == [3, 3, 3]


# ---------------------------------------------------------------- report section


def test_agreement_section_renders_plots_and_tables(tmp_path):
    labels, _ = crowd(5, n_items=120)
    result = agreement(labels, bootstrap=BootstrapOptions(n_boot=100))
    section = agreement_section(result)
    report = Report("Agreement test")
    report.add(section)
    text = report.render()
    assert text.count("<img") == 3  # per-category bars, heatmap, confusions
    assert "Fleiss" in text and "Per-category" in text and "Rater quality" in text


@crowdkit_warnings
def test_dawid_skene_many_raters_uncompressed_path_matches_crowdkit():
    # 40 raters × 3 labels do not fit one int64 key per item, so items are not merged
    labels, _ = crowd(6, n_items=150, accuracies=tuple(np.linspace(0.9, 0.4, 40)), p_rate=0.12)
    ours = DawidSkene(n_iter=8, tol=None).fit(labels)
    ref = CrowdKitDawidSkene(n_iter=8, tol=-np.inf).fit(to_crowdkit(labels))
    mine = ours.probas_.loc[ref.probas_.index, ref.probas_.columns].to_numpy()
    assert np.abs(mine - ref.probas_.to_numpy()).max() < 1e-6


# ---------------------------------------------------------------- estimator convention


def test_estimators_store_params_validate_in_fit_and_return_self():
    model = MajorityVote(tie="coin")  # __init__ only stores
    assert model.tie == "coin"
    with pytest.raises(ParameterError, match="tie: expected one of adjudicate, first, random"):
        model.fit(tie_labels())
    ds = DawidSkene(n_iter=-1)
    assert ds.n_iter == -1
    with pytest.raises(ParameterError, match="n_iter"):
        ds.fit(tie_labels())
    with pytest.raises(ParameterError, match="rater_type"):
        DawidSkene(rater_type="robot").fit(tie_labels())
    vote = MajorityVote(tie="first")
    assert vote.fit(tie_labels()) is vote
    assert repr(vote) == "MajorityVote(tie='first', rater_type='human', seed=None, categories=None)"
    assert repr(DawidSkene(n_iter=5)) == (
        "DawidSkene(n_iter=5, tol=1e-05, rater_type='human', categories=None, gold=None)"
    )


def test_not_fitted_is_a_parameter_error_and_an_attribute_error():
    for model in (MajorityVote(), DawidSkene()):
        with pytest.raises(NotFittedError, match="not fitted yet"):
            model.consensus()
    assert issubclass(NotFittedError, ParameterError) and issubclass(NotFittedError, AttributeError)


def test_majority_vote_estimator_attributes_by_hand():
    # TIE_ROWS, humans only: a = yes, yes, no (2 of 3); b = yes, no (tie); c = no (1 of 1)
    vote = MajorityVote().fit(tie_labels())
    assert vote.labels_.to_dict() == {"a": "yes", "b": None, "c": "no"}
    assert vote.ties_.to_dict() == {"a": False, "b": True, "c": False}
    assert vote.probas_.loc["a"].to_dict() == {"no": 1 / 3, "yes": 2 / 3}
    assert vote.probas_.loc["b"].to_dict() == {"no": 0.5, "yes": 0.5}
    assert vote.n_ratings_.to_dict() == {"a": 3, "b": 2, "c": 1}
    assert vote.n_agree_.to_dict() == {"a": 2, "b": 1, "c": 1}
    pd.testing.assert_frame_equal(vote.consensus(), majority_vote(tie_labels()))
    assert MajorityVote().fit_predict(tie_labels()).equals(vote.labels_)


@crowdkit_warnings
def test_majority_vote_probas_equal_crowdkit():
    labels, _ = crowd(4)
    ours = MajorityVote().fit_predict_proba(labels)
    ref = CrowdKitMajorityVote().fit(to_crowdkit(labels)).probas_
    mine = ours.loc[ref.index, ref.columns].to_numpy()
    assert np.abs(mine - ref.to_numpy()).max() < 1e-12


@crowdkit_warnings
def test_from_crowdkit_frame_fits_like_crowdkit():
    labels, _ = crowd(5, n_items=120)
    frame = to_crowdkit(labels)
    frame["label"] = frame["label"].str[1:].astype(int)  # crowd-kit frames often hold ints
    contract = from_crowdkit(frame)
    assert list(contract.columns) == ["item_id", "rater", "rater_type", "label"]
    assert (contract["rater_type"] == "human").all()
    ours = DawidSkene(n_iter=5, tol=None).fit(contract)
    ref = CrowdKitDawidSkene(n_iter=5, tol=-np.inf).fit(frame)
    theirs = ref.probas_
    probas = ours.probas_.loc[theirs.index.astype(str), theirs.columns.astype(str)]
    assert np.abs(probas.to_numpy() - theirs.to_numpy()).max() < 1e-6
    assert (ours.fit_predict(contract).to_numpy() == ref.labels_.astype(str).to_numpy()).all()
    proba = DawidSkene(n_iter=5, tol=None).fit_predict_proba(contract)
    pd.testing.assert_frame_equal(proba, ours.probas_)


def test_from_crowdkit_errors():
    with pytest.raises(InputError, match="lacks column 'worker'"):
        from_crowdkit(pd.DataFrame({"task": ["t"], "label": ["x"]}))
    frame = pd.DataFrame({"task": ["t", "t"], "worker": ["w1", None], "label": ["x", "y"]})
    with pytest.raises(InputError, match="row 2: column 'worker' is empty"):
        from_crowdkit(frame)


def test_one_cohen_kappa_matches_sklearn_and_cohen_1960():
    # Cohen (1960) style 2×2 by hand: p_o = 35/50 = .7, p_e = (25·30 + 25·20)/50² = .5, κ = .4
    assert float(cohen_kappa(np.array([[20, 5], [10, 15]]))) == pytest.approx(0.4, abs=1e-15)
    rng = np.random.default_rng(8)
    a, b = rng.integers(0, 4, 60), rng.integers(0, 4, 60)
    table = np.zeros((4, 4), int)
    np.add.at(table, (a, b), 1)
    assert float(cohen_kappa(table)) == pytest.approx(cohen_kappa_score(a, b), abs=1e-12)
    assert np.isnan(cohen_kappa(np.zeros((3, 3), int)))  # empty
    assert np.isnan(cohen_kappa(np.array([[4, 0], [0, 0]])))  # one label on both sides


def test_agreement_shares_one_pair_join_with_the_same_results():
    labels, _ = crowd(6, n_items=80)
    result = agreement(labels, bootstrap=BootstrapOptions(n_boot=0))
    pd.testing.assert_frame_equal(result.rater_quality, rater_quality(labels))
    pd.testing.assert_frame_equal(result.pairwise.kappa, pairwise_agreement(labels).kappa)
    assert result.to_dict()["pairwise_cohen"] == result.pairwise.to_dict()["kappa"]
