"""``judge fit``'s human truth from per-rater labels or a final labels table: the one consensus,
labels read as true/false before the vote (yes and true are one answer), ties counted."""

from __future__ import annotations

import pandas as pd

from wordplay_audit.corpora.consensus import consensus
from wordplay_audit.judges.fit import human_truth


def test_human_truth_from_either_table():
    labels = pd.DataFrame({
        "item_id": ["a", "a", "a", "b", "b", "c", "d", "d"],
        "rater": ["p", "q", "r", "p", "q", "judge", "p", "judy"],
        "rater_type": ["human", "human", "human", "human", "human", "judge", "human", "adjudicator"],
        "label": ["yes", "true", "no", "true", "false", "true", "no", "yes"],
    })  # fmt: skip
    truth, ties = human_truth(labels)
    # a: yes + true against no → true (2 of 3); b tied; c only a judge; d adjudicated yes
    assert truth.to_dict() == {"a": True, "d": True} and ties == 1
    normalised = labels.assign(
        label=labels["label"].map({"yes": "true", "no": "false"}).fillna(labels["label"])
    )
    final_truth, final_ties = human_truth(consensus(normalised))
    assert final_truth.to_dict() == truth.to_dict() and final_ties == ties
