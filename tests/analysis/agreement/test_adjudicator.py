"""An adjudicator is not a rater: agreement statistics leave the rows of ``rater_type``
``adjudicator`` out (they would raise κ by agreeing with the majority they settle), and the
consensus (MajorityVote) takes their label."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss_kappa

from wordplay_audit.analysis.agreement import MajorityVote, agreement, fleiss_kappa, rating_table


def _panel(seed: int = 4) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Three raters on 60 items (true/false, 80 % accurate), and an adjudicator who labels
    every disputed item with its truth."""
    rng = np.random.default_rng(seed)
    truth = rng.random(60) < 0.4
    rows, disputed = [], []
    for i, t in enumerate(truth):
        said = [bool(t) if rng.random() < 0.8 else not t for _ in range(3)]
        rows += [(f"i{i:02d}", f"r{j}", "human", str(v).lower()) for j, v in enumerate(said)]
        if len(set(said)) > 1:
            disputed.append((f"i{i:02d}", "judy", "adjudicator", str(bool(t)).lower()))
    columns = ["item_id", "rater", "rater_type", "label"]
    return pd.DataFrame(rows, columns=columns), pd.DataFrame(disputed, columns=columns)


def test_fleiss_kappa_unchanged_by_an_adjudicators_rows():
    raters, adjudicator = _panel()
    assert len(adjudicator) > 10
    pulled = pd.concat([raters, adjudicator], ignore_index=True)  # pull's labels.csv after adjudicate
    # reference: statsmodels on the 3 raters' item × category counts (every item rated 3 times)
    counts = raters.assign(t=raters["label"] == "true").groupby("item_id")["t"].agg(["sum", "count"])
    table = np.column_stack([counts["count"] - counts["sum"], counts["sum"]])
    expected = sm_fleiss_kappa(table)
    assert fleiss_kappa(pulled) == pytest.approx(expected, abs=1e-12)
    assert fleiss_kappa(pulled, rater_type=None) == pytest.approx(expected, abs=1e-12)  # not a rater either
    assert rating_table(pulled).n_raters == 3
    result = agreement(pulled)
    assert len(result.raters) == 3 and result.fleiss_kappa.value == pytest.approx(expected, abs=1e-12)
    # had the adjudicator counted as a fourth rater (as rater_type human), κ would be higher
    as_rater = pd.concat([raters, adjudicator.assign(rater_type="human")], ignore_index=True)
    assert fleiss_kappa(as_rater) > expected + 0.02


def test_majority_vote_takes_the_adjudicated_label():
    raters, adjudicator = _panel()
    model = MajorityVote().fit(pd.concat([raters, adjudicator], ignore_index=True))
    settled = dict(zip(adjudicator["item_id"], adjudicator["label"], strict=True))
    assert model.labels_.loc[list(settled)].tolist() == list(settled.values())
    assert set(model.settled_by_.loc[list(settled)]) == {"adjudicated"}
    assert model.n_ratings_.max() == 3  # the adjudicator is no vote
    plain = MajorityVote().fit(raters)  # without the adjudication: the vote's labels
    others = model.labels_.index.difference(list(settled))
    assert model.labels_.loc[others].tolist() == plain.labels_.loc[others].tolist()
