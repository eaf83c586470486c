"""The labels table's optional ``score`` column (corpora/contract.py, ``label_scores``): numbers
where known, empty (NaN) where unknown – never read as 0 – and a bad value named at its line."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from wordplay_audit.corpora.contract import OPTIONAL_LABEL_COLUMNS, label_scores, read_labels
from wordplay_audit.errors import InputError


def test_empty_is_unknown_and_zero_is_zero(tmp_path):
    path = tmp_path / "labels.csv"
    path.write_text(
        "item_id,rater,rater_type,label,score\n"
        "a,j,judge,true,0.91\n"
        "b,j,judge,false,\n"  # unknown
        "c,j,judge,false,0\n"  # a known 0 (e.g. a share of 0 of 5 samples)
        "d,p,human,true,\n",
        encoding="utf-8",
    )
    scores = label_scores(read_labels(path))
    assert scores.iloc[0] == 0.91 and math.isnan(scores.iloc[1]) and scores.iloc[2] == 0.0
    assert math.isnan(scores.iloc[3]) and "score" in OPTIONAL_LABEL_COLUMNS


def test_no_score_column_is_all_unknown():
    labels = pd.DataFrame({"item_id": ["a"], "rater": ["j"], "rater_type": ["judge"], "label": ["true"]})
    assert label_scores(labels).isna().all()


@pytest.mark.parametrize("bad", ["high", "nan", "inf", "1e400"])
def test_a_score_that_is_not_a_finite_number_is_named_at_its_line(tmp_path, bad):
    path = tmp_path / "labels.csv"
    path.write_text(
        f"item_id,rater,rater_type,label,score\na,j,judge,true,0.5\nb,j,judge,true,{bad}\n", encoding="utf-8"
    )
    with pytest.raises(
        InputError, match=rf"labels.csv line 3: score '{bad}': expected a finite number or empty"
    ):
        label_scores(read_labels(path), source=str(path))
