"""MACE and one-coin Dawid–Skene against crowd-kit's ``MACE`` and ``OneCoinDawidSkene`` on the
data crowd-kit's own tests use (its ``toy_answers_df`` and ``simple_answers_df`` fixtures).

Names are re-spelt so that raters and labels sort in their order of first appearance: crowd-kit's
MACE reads its per-(worker, label) counts back in sorted order but indexes them in order of
appearance, so it agrees with the model only when the two orders coincide (its original
``simple`` ids do not)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from wordplay_audit.analysis.agreement import from_crowdkit
from wordplay_audit.analysis.agreement.mace import MACE
from wordplay_audit.analysis.agreement.one_coin import OneCoinDawidSkene

crowdkit_warnings = pytest.mark.filterwarnings("ignore::DeprecationWarning", "ignore::FutureWarning")

TOY = [  # (worker, task, label): crowd-kit's toy YSDA answers, "no" → a_no, "yes" → b_yes
    ("w1", "t1", "a_no"), ("w1", "t2", "b_yes"), ("w1", "t3", "b_yes"), ("w1", "t4", "b_yes"),
    ("w1", "t5", "b_yes"), ("w2", "t1", "b_yes"), ("w2", "t2", "b_yes"), ("w2", "t3", "a_no"),
    ("w2", "t4", "b_yes"), ("w2", "t5", "a_no"), ("w3", "t2", "b_yes"), ("w3", "t3", "a_no"),
    ("w3", "t4", "b_yes"), ("w3", "t5", "a_no"), ("w4", "t1", "b_yes"), ("w4", "t2", "a_no"),
    ("w4", "t3", "b_yes"), ("w4", "t4", "b_yes"), ("w4", "t5", "a_no"), ("w5", "t1", "a_no"),
    ("w5", "t2", "a_no"), ("w5", "t3", "a_no"), ("w5", "t4", "b_yes"), ("w5", "t5", "a_no"),
]  # fmt: skip
# crowd-kit's simple answers: workers bde3…, b17c…, a452…, 0f65…, 0c3e… (always "parrot"), e563…
# (careless) as w1..w6; tasks …eec, …efb, …f03, …f05, …f02, …f08, …ee8, …f07, …efd, …ee4 by suffix
SIMPLE = [
    ("w1", "eec", "a_goose"), ("w1", "efb", "b_parrot"), ("w1", "f03", "a_goose"), ("w1", "f05", "a_goose"),
    ("w1", "f02", "b_parrot"), ("w1", "f08", "b_parrot"), ("w2", "efb", "b_parrot"), ("w2", "ee8", "c_chicken"),
    ("w2", "f07", "b_parrot"), ("w2", "efd", "c_chicken"), ("w2", "ee4", "c_chicken"), ("w2", "f03", "a_goose"),
    ("w3", "ee8", "c_chicken"), ("w3", "eec", "a_goose"), ("w3", "f05", "a_goose"), ("w3", "f02", "b_parrot"),
    ("w3", "f08", "b_parrot"), ("w4", "eec", "a_goose"), ("w4", "ee8", "c_chicken"), ("w4", "f03", "a_goose"),
    ("w4", "ee4", "c_chicken"), ("w5", "eec", "b_parrot"), ("w5", "efb", "b_parrot"), ("w5", "f07", "b_parrot"),
    ("w5", "efd", "b_parrot"), ("w5", "ee4", "b_parrot"), ("w5", "f05", "b_parrot"), ("w6", "efb", "b_parrot"),
    ("w6", "ee8", "a_goose"), ("w6", "f02", "b_parrot"), ("w6", "f08", "b_parrot"), ("w6", "f07", "b_parrot"),
    ("w6", "efd", "a_goose"),
]  # fmt: skip
TRUTH = {"eec": "a_goose", "f03": "a_goose", "f05": "a_goose", "efb": "b_parrot", "f02": "b_parrot",
         "f08": "b_parrot", "f07": "b_parrot", "ee8": "c_chicken", "efd": "c_chicken", "ee4": "c_chicken"}  # fmt: skip


def _frame(rows):
    return pd.DataFrame(rows, columns=["worker", "task", "label"])


@crowdkit_warnings
@pytest.mark.parametrize("method", ["vb", "em"])
@pytest.mark.parametrize("rows", [TOY, SIMPLE], ids=["toy", "simple"])
def test_mace_matches_crowdkit(rows, method):
    from crowdkit.aggregation import MACE as CrowdKitMACE

    frame = _frame(rows)
    ref = CrowdKitMACE(n_restarts=1, n_iter=5, method=method, random_state=0).fit(frame)
    ours = MACE(n_restarts=1, n_iter=5, method=method, seed=0).fit(from_crowdkit(frame))
    workers, labels = sorted(frame["worker"].unique()), sorted(frame["label"].unique())
    np.testing.assert_allclose(ours.thetas_.loc[workers, labels].to_numpy(), ref.thetas_, atol=1e-8)
    np.testing.assert_allclose(ours.spamming_.loc[workers].to_numpy(), ref.spamming_, atol=1e-8)
    tasks = sorted(frame["task"].unique())
    np.testing.assert_allclose(ours.probas_.loc[tasks, labels].to_numpy(),
                               ref.probas_.loc[tasks, labels].to_numpy(), atol=1e-8)  # fmt: skip


def test_mace_finds_the_simple_truth_and_the_spammer():
    """crowd-kit's own test: the vb fit labels every simple item right; the always-"parrot"
    worker (w5) is the least competent."""
    model = MACE(n_restarts=1, n_iter=5, seed=0).fit(from_crowdkit(_frame(SIMPLE)))
    assert model.labels_.to_dict() == TRUTH
    assert model.competence_.idxmin() == "w5"
    assert list(model.consensus().columns) == ["item_id", "label", "posterior", "n_ratings"]


@crowdkit_warnings
@pytest.mark.parametrize("rows", [TOY, SIMPLE], ids=["toy", "simple"])
def test_one_coin_matches_crowdkit_at_equal_iterations(rows):
    from crowdkit.aggregation import OneCoinDawidSkene as CrowdKitOneCoin

    frame = _frame(rows)
    ref = CrowdKitOneCoin(n_iter=10, tol=-np.inf).fit(frame)
    ours = OneCoinDawidSkene(n_iter=10, tol=None).fit(from_crowdkit(frame))
    workers = sorted(frame["worker"].unique())
    np.testing.assert_allclose(
        ours.skills_.loc[workers].to_numpy(), ref.skills_.loc[workers].to_numpy(), atol=1e-8
    )
    labels = sorted(frame["label"].unique())
    np.testing.assert_allclose(
        ours.priors_.loc[labels].to_numpy(), ref.priors_.loc[labels].to_numpy(), atol=1e-8
    )


def test_bad_parameters_are_named():
    from wordplay_audit.errors import ParameterError

    with pytest.raises(ParameterError, match="^method: expected 'vb' or 'em'"):
        MACE(method="gibbs").fit(from_crowdkit(_frame(TOY)))
