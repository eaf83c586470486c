"""The one consensus (corpora.consensus): majority vote against crowd-kit, each tie policy by
hand, adjudication winning over the vote, and the same labels as agreement's MajorityVote."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from crowdkit.aggregation import MajorityVote as CrowdKitMajorityVote

from wordplay_audit.analysis.agreement import MajorityVote
from wordplay_audit.corpora.consensus import consensus, human_labels
from wordplay_audit.errors import InputError, ParameterError

COLUMNS = ["item_id", "label", "n_raters", "n_votes", "settled_by"]


def _labels(rows: list[tuple[str, str, str]], rater_type: str = "human") -> pd.DataFrame:
    """(item_id, rater, label) rows of one rater type."""
    return pd.DataFrame(rows, columns=["item_id", "rater", "label"]).assign(rater_type=rater_type)


def _random_labels(n_items: int, seed: int) -> pd.DataFrame:
    """2–5 raters per item (of 6), three categories of unequal prevalence: many ties."""
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(n_items):
        raters = rng.choice(6, size=int(rng.integers(2, 6)), replace=False)
        for r in raters:
            rows.append((f"t{i:04d}", f"w{r}", str(rng.choice(["cat", "dog", "emu"], p=[0.5, 0.3, 0.2]))))
    return _labels(rows)


# hand-made: t1 tied a/b, t2 majority a (a, a, b), t3 one rater, t4 unanimous, t5 tied 3 ways
HAND = _labels(
    [
        ("t1", "p", "a"), ("t1", "q", "b"),
        ("t2", "p", "a"), ("t2", "q", "a"), ("t2", "r", "b"),
        ("t3", "p", "b"),
        ("t4", "p", "b"), ("t4", "q", "b"),
        ("t5", "p", "c"), ("t5", "q", "b"), ("t5", "r", "a"),
    ]
)  # fmt: skip


def test_against_crowdkit_where_comparable():
    labels = _random_labels(400, seed=3)
    ours = consensus(labels).set_index("item_id")
    frame = labels.rename(columns={"item_id": "task", "rater": "worker"})[["task", "worker", "label"]]
    ref = CrowdKitMajorityVote().fit(frame)
    shares = ref.probas_.loc[ours.index]
    tied = (shares.to_numpy() == shares.max(axis=1).to_numpy()[:, None]).sum(axis=1) > 1
    n_ratings = frame.groupby("task").size().loc[ours.index].to_numpy()
    assert 50 < tied.sum() < 350  # both kinds are there
    # not tied: crowd-kit's label; tied: no label, settled_by tie (crowd-kit picks by column order)
    assert (ours["label"].to_numpy()[~tied] == ref.labels_.loc[ours.index].to_numpy()[~tied]).all()
    assert ours["label"].isna().to_numpy().tolist() == tied.tolist()
    assert set(ours["settled_by"][tied]) == {"tie"}
    assert set(ours["settled_by"][~tied]) <= {"majority", "unanimous"}  # 2+ raters each
    # counts: raters, and the votes for the label = top share × raters
    assert ours["n_raters"].tolist() == n_ratings.tolist()
    assert np.allclose(ours["n_votes"].to_numpy(), shares.max(axis=1).to_numpy() * n_ratings)
    # tie="first": crowd-kit's label is one of the tied ones, ours the first of them in text order
    first = consensus(labels, tie="first").set_index("item_id")["label"]
    for item in ours.index[tied]:
        top = shares.loc[item]
        best = sorted(top.index[top == top.max()])
        assert ref.labels_[item] in best and first[item] == best[0]


def test_tie_policy_adjudicate_by_hand():
    out = consensus(HAND)
    assert list(out.columns) == COLUMNS
    assert out.to_dict(orient="records") == [
        {"item_id": "t1", "label": None, "n_raters": 2, "n_votes": 1, "settled_by": "tie"},
        {"item_id": "t2", "label": "a", "n_raters": 3, "n_votes": 2, "settled_by": "majority"},
        {"item_id": "t3", "label": "b", "n_raters": 1, "n_votes": 1, "settled_by": "single"},
        {"item_id": "t4", "label": "b", "n_raters": 2, "n_votes": 2, "settled_by": "unanimous"},
        {"item_id": "t5", "label": None, "n_raters": 3, "n_votes": 1, "settled_by": "tie"},
    ]


def test_tie_policy_first_by_hand():
    out = consensus(HAND, tie="first").set_index("item_id")
    assert out.loc[["t1", "t5"], "label"].tolist() == ["a", "a"]  # a < b < c
    assert out.loc[["t1", "t5"], "settled_by"].tolist() == ["tie_first", "tie_first"]
    assert out.loc[["t2", "t3", "t4"], "settled_by"].tolist() == ["majority", "single", "unanimous"]
    # numbers in numeric order: 9 before 10 (as text, "10" would come first)
    numbers = consensus(_labels([("x", "p", "10"), ("x", "q", "9")]), tie="first")
    assert numbers["label"].tolist() == ["9"]


@pytest.mark.parametrize("seed", [0, 1, 2, 7, 11])
def test_tie_policy_random_by_hand(seed):
    out = consensus(HAND, tie="random", seed=seed).set_index("item_id")
    # the documented draw: default_rng(seed).integers(0, number tied) over the tied items in the
    # order they first appear (t1: a, b tied; t5: c, b, a tied → in category order a, b, c)
    pick = np.random.default_rng(seed).integers(0, [2, 3])
    assert out.loc["t1", "label"] == ["a", "b"][pick[0]]
    assert out.loc["t5", "label"] == ["a", "b", "c"][pick[1]]
    assert out.loc[["t1", "t5"], "settled_by"].tolist() == ["tie_random", "tie_random"]
    assert out.loc["t2", "label"] == "a"


def test_random_draws_vary_with_the_seed_and_repeat_with_it():
    drawn = {consensus(HAND, tie="random", seed=s).set_index("item_id").loc["t5", "label"] for s in range(40)}
    assert drawn == {"a", "b", "c"}
    assert consensus(HAND, tie="random", seed=5).equals(consensus(HAND, tie="random", seed=5))


@pytest.mark.parametrize("tie", ["adjudicate", "first", "random"])
def test_same_labels_as_majority_vote(tie):
    labels = _random_labels(300, seed=8)
    ours = consensus(labels, tie=tie, seed=4).set_index("item_id")
    model = MajorityVote(tie, seed=4).fit(labels)
    theirs = model.labels_.loc[ours.index]
    assert ours["label"].where(ours["label"].notna(), None).tolist() == theirs.tolist()
    assert ours["settled_by"].tolist() == model.settled_by_.loc[ours.index].tolist()
    pd.testing.assert_frame_equal(model.final_labels(), consensus(labels, tie=tie, seed=4))


@pytest.mark.parametrize("tie", ["adjudicate", "first", "random"])
def test_adjudication_wins_over_the_vote(tie):
    votes = HAND
    adjudicator = _labels([("t2", "judy", "b"), ("t1", "judy", "b"), ("t9", "judy", "a")], "adjudicator")
    out = consensus(pd.concat([votes, adjudicator], ignore_index=True), tie=tie, seed=0).set_index("item_id")
    # t2: majority a (2 of 3) overruled; the adjudicator is no rater: 3 raters, 1 vote for b
    assert out.loc["t2"].to_dict() == {"label": "b", "n_raters": 3, "n_votes": 1, "settled_by": "adjudicated"}
    assert out.loc["t1"].to_dict() == {"label": "b", "n_raters": 2, "n_votes": 1, "settled_by": "adjudicated"}
    # adjudicated though nobody voted: no rater, no vote
    assert out.loc["t9"].to_dict() == {"label": "a", "n_raters": 0, "n_votes": 0, "settled_by": "adjudicated"}
    assert out.loc["t4", "settled_by"] == "unanimous"  # untouched


def test_a_rater_may_adjudicate_an_item_they_rated():
    rows = pd.concat([HAND, _labels([("t1", "p", "b")], "adjudicator")], ignore_index=True)
    out = consensus(rows).set_index("item_id")
    assert out.loc["t1"].to_dict() == {"label": "b", "n_raters": 2, "n_votes": 1, "settled_by": "adjudicated"}
    twice = pd.concat([rows, _labels([("t1", "p", "b")], "adjudicator")], ignore_index=True)
    with pytest.raises(InputError, match=r"^labels row 13: rater 'p' rated item 't1' twice"):
        consensus(twice)


def test_two_different_adjudications_of_one_item_are_refused():
    rows = pd.concat(
        [HAND, _labels([("t1", "judy", "a"), ("t1", "kim", "b")], "adjudicator")], ignore_index=True
    )
    with pytest.raises(InputError, match=r"^labels row 13: adjudicated as 'b', and as 'a' on an earlier row"):
        consensus(rows)


def test_questions_and_judge_rows():
    labels = pd.concat(
        [
            _labels([("x", "p", "true"), ("x", "q", "false"), ("y", "p", "true")]).assign(
                question="reference"
            ),
            _labels([("x", "p", "true"), ("x", "q", "true")]).assign(question="any_sense"),
            _labels([("x", "j", "false"), ("y", "j", "false")], "judge").assign(question="reference"),
        ],
        ignore_index=True,
    )
    out = consensus(labels)
    assert out[["item_id", "question", "label", "settled_by"]].to_dict(orient="records") == [
        {"item_id": "x", "question": "any_sense", "label": "true", "settled_by": "unanimous"},
        {"item_id": "x", "question": "reference", "label": None, "settled_by": "tie"},  # judge: no vote
        {"item_id": "y", "question": "reference", "label": "true", "settled_by": "single"},
    ]
    with pytest.raises(InputError, match="holds answers to 2 questions"):
        human_labels(labels)
    reference = human_labels(labels, question="reference")
    assert reference.counts == {"items": 2, "labelled": 1, "ties": 1, "adjudicated": 0, "ties_broken": 0}
    assert reference.labels.to_dict() == {"y": "true"} and list(reference.tied) == ["x"]
    assert "1 tied item(s) left out" in reference.note()


def test_a_second_rating_is_named():
    twice = _labels([("a", "p", "x"), ("a", "p", "y")])
    with pytest.raises(InputError, match=r"^labels row 2: rater 'p' rated item 'a' twice"):
        consensus(twice)
    with pytest.raises(InputError, match=r"rated item 'a' twice on question 'q'"):
        consensus(twice.assign(question="q"))


def test_bad_options_name_the_parameter():
    with pytest.raises(ParameterError, match="^tie: expected one of adjudicate, first, random; got 'coin'"):
        consensus(HAND, tie="coin")
    with pytest.raises(ParameterError, match="^rater_type: "):
        consensus(HAND, rater_type="adjudicator")


def test_final_table_and_per_rater_table_give_the_same_human_labels(tmp_path):
    labels = _random_labels(120, seed=2)
    per_rater = human_labels(labels)
    path = tmp_path / "final.csv"
    consensus(labels).to_csv(path, index=False)
    from wordplay_audit.corpora.final_labels import read_final_labels

    final = human_labels(read_final_labels(path))
    assert final.counts == per_rater.counts and final.counts["ties"] > 0
    assert final.labels.to_dict() == per_rater.labels.to_dict()
