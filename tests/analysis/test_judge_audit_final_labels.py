"""The judge audits take people's labels per rater or as the final labels table (pull's
final.csv): the same consensus, the same audit, ties counted; an adjudicator's label counts."""

from __future__ import annotations

import pandas as pd

from wordplay_audit.analysis.judge_audit import human_consensus
from wordplay_audit.analysis.judge_audit_groups import judge_audit
from wordplay_audit.corpora.consensus import consensus


def _tables():
    """Eight items, one judge; ann and bob label every item, disagreeing on c, f and h; judy
    adjudicates f (true)."""
    ids = list("abcdefgh")
    judge = pd.DataFrame({"item_id": ids, "rater": "j", "rater_type": "judge",
                          "label": ["true", "true", "false", "false", "true", "false", "true", "false"]})  # fmt: skip
    ann = ["true", "false", "true", "false", "true", "true", "true", "false"]
    bob = ["true", "false", "false", "false", "true", "false", "true", "true"]
    people = pd.concat(
        [
            pd.DataFrame({"item_id": ids, "rater": "ann", "rater_type": "human", "label": ann}),
            pd.DataFrame({"item_id": ids, "rater": "bob", "rater_type": "human", "label": bob}),
            pd.DataFrame({"item_id": ["f"], "rater": "judy", "rater_type": "adjudicator", "label": ["true"]}),
        ],
        ignore_index=True,
    )
    return judge, people


def test_human_consensus_of_either_table():
    _judge, people = _tables()
    by_rater = human_consensus(people)
    by_final = human_consensus(consensus(people))
    pd.testing.assert_frame_equal(by_rater, by_final, check_dtype=False)
    # c and h tied (left out), f adjudicated true
    assert by_rater.set_index("item_id")["tie"].to_dict() == dict.fromkeys("abcdefgh", False) | {
        "c": True,
        "h": True,
    }
    assert by_rater.set_index("item_id").loc["f", "human"] is True
    assert by_rater.attrs["counts"] == {
        "items": 8,
        "labelled": 6,
        "ties": 2,
        "adjudicated": 1,
        "ties_broken": 0,
    }


def test_judge_audit_of_either_table():
    judge, people = _tables()
    items = pd.DataFrame({"item_id": list("abcdefgh"), "player_model": "m"})
    a = judge_audit(judge, people, items, by=(), n_boot=0, min_cell=0)
    b = judge_audit(judge, consensus(people), items, by=(), n_boot=0, min_cell=0)
    assert a.table().equals(b.table())
    assert a.skipped == b.skipped and a.skipped["human_ties"] == 2
    row = a.table().iloc[0]
    # labelled: a(t,t) b(t,f) d(f,f) e(t,t) f(f: judge false, people true) g(t,t):
    # tp = a, e, g = 3; fp = b = 1; fn = f = 1; tn = d = 1
    assert (row["tp"], row["fp"], row["fn"], row["tn"]) == (3, 1, 1, 1)
