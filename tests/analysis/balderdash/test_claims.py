"""The claims table: each source's rows, the status of each claim against its verdict, and its
errors, on hand-made inputs."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from wordplay_audit.analysis.balderdash.claims import CLAIM_COLUMNS, KNOWN_CLAIM, claims_table
from wordplay_audit.errors import ParameterError


def _differences(verdicts: list[str]) -> pd.DataFrame:
    return pd.DataFrame({"model": [f"m{k}" for k in range(len(verdicts))], "level_a": 0, "level_b": 50,
                         "judge_difference": 0.01, "difference": 0.02, "ci_low": -0.05, "ci_high": 0.09,
                         "verdict": verdicts})  # fmt: skip


VERDICTS = ["differs", "no difference detected (the interval excludes differences larger than 0.090)",
            "cannot tell (the interval allows differences up to 0.300)"]  # fmt: skip


def test_a_claim_of_no_difference_is_contradicted_by_a_detected_one():
    table = claims_table(comparisons=[("correct_definition_points", "tdr", _differences(VERDICTS))])
    assert list(table.columns) == CLAIM_COLUMNS
    assert table["status"].tolist() == ["contradicted", "supported", "cannot tell"]
    assert table["figure"].iloc[0] == "TDR 50 − 0" and table["corrected"].iloc[0] == 0.02


def test_a_claim_of_a_difference_is_not_supported_without_one():
    table = claims_table(comparisons=[("deck", "lkr", _differences(VERDICTS))])
    assert table["status"].tolist() == ["supported", "not supported", "cannot tell"]
    assert table["claim"].str.startswith("rare vs frequent").all()


def test_known_words_rows_compare_the_interval_with_half_the_words():
    known = pd.DataFrame({"model": ["a", "b", "c", "d"], "words": 100, "judge_known": [30, 40, 45, 20],
                          "known": [35, 70, 50, np.nan], "ci_low": [28, 61, 41, np.nan],
                          "ci_high": [44, 79, 58, np.nan]})  # fmt: skip
    table = claims_table(known=known)
    assert (table["claim"] == KNOWN_CLAIM).all()
    assert table["status"].tolist() == ["supported", "contradicted", "cannot tell", "cannot tell"]
    with pytest.raises(ParameterError, match="^known: lacks column 'ci_high'"):
        claims_table(known=known.drop(columns="ci_high"))


def test_rankings_rows_ask_whether_the_judges_first_could_be_first():
    def level(name, first):
        return pd.DataFrame({"metric": "tdr", "level": name, "model": ["a", "b"], "judge": [0.5, 0.4],
                             "judge_rank": [1, 2], "estimate": [0.6, 0.7], "ci_low": [0.5, 0.6],
                             "ci_high": [0.7, 0.8], "rank": [2, 1], "could_be_first": first})  # fmt: skip

    table = claims_table(rankings=pd.concat([level("x", [True, False]), level("y", [False, True]),
                                             level("z", [True, True])]))  # fmt: skip
    assert table["status"].tolist() == ["supported", "contradicted", "cannot tell"]
    assert table["subject"].tolist() == ["b", "b", "b"]  # the corrected first


def test_trend_rows_and_convergence_rows():
    trend = pd.DataFrame({"labels": ["judge", "judge", "replaced"], "model": ["a", "b", "a"], "outcome": "knows",
                          "history_type": "full", "slope": [0.8, 0.1, 0.7], "gee_p_t": [0.01, 0.6, 0.02],
                          "adj_slope": [1.0, np.nan, np.nan], "adj_ci_low": [0.2, np.nan, np.nan],
                          "adj_ci_high": [1.8, np.nan, np.nan], "adj_p": [0.02, np.nan, np.nan]})  # fmt: skip
    table = claims_table(trend=trend)
    assert table["status"].tolist() == ["supported", "cannot tell"]  # replaced rows are not a claim's row
    conv = pd.DataFrame({"model": ["a", "b"], "deck": "d", "eps": 0.05, "T_judge": [12, np.nan],
                         "converged_judge": [True, False], "converged_window": [False, None],
                         "converged_window_reason": [None, "no lower bound"], "window_estimate": [0.9, np.nan],
                         "window_lower": [0.85, np.nan]})  # fmt: skip
    table = claims_table(convergence=conv, eps=0.05)
    assert table["status"].tolist() == ["contradicted", "cannot tell"]
    assert (
        table["verdict"].iloc[0] == "judge: converged at round 12; under people's labels: does not converge"
    )
    with pytest.raises(ParameterError, match="^eps: 0.1 is not in the convergence table"):
        claims_table(convergence=conv, eps=0.1)


def test_nothing_given_is_an_empty_table_and_bad_settings_are_named():
    assert claims_table().empty
    with pytest.raises(ParameterError, match="^comparisons:"):
        claims_table(comparisons=[("players", "tdr", _differences(VERDICTS))])
