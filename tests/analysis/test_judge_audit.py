"""Judge audit: confusion counts by hand, Wilson intervals against published values and statsmodels."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from statsmodels.stats.proportion import proportion_confint

from wordplay_audit.analysis.correction import poststratified_accuracy
from wordplay_audit.analysis.judge_audit import judge_confusion
from wordplay_audit.analysis.proportions import wilson_interval
from wordplay_audit.errors import InputError


def test_wilson_reproduces_newcombe_1998():
    # Newcombe (1998), Stat. Med. 17:857, Table I, method 3 (Wilson score)
    published = {
        (81, 263): (0.2553, 0.3662),
        (15, 148): (0.0624, 0.1605),
        (0, 20): (0.0, 0.1611),
        (1, 29): (0.0061, 0.1718),
    }
    for (x, n), (lo, hi) in published.items():
        got = wilson_interval(x, n)
        assert (float(got[0]), float(got[1])) == pytest.approx((lo, hi), abs=5e-5)


def test_wilson_matches_statsmodels():
    x, n = np.array([0, 3, 17, 40]), np.array([5, 11, 40, 40])
    lo, hi = wilson_interval(x, n, confidence=0.9)
    ref_lo, ref_hi = proportion_confint(x, n, alpha=0.1, method="wilson")
    np.testing.assert_allclose(lo, ref_lo, atol=1e-12)
    np.testing.assert_allclose(hi, ref_hi, atol=1e-12)
    assert np.isnan(wilson_interval(0, 0)[0])


def _labels(rows):
    return pd.DataFrame(rows, columns=["item_id", "rater", "rater_type", "label"])


def test_confusion_counts_by_hand():
    # model A: items 1–6; judge says T T F F F T; people (majority of 3) say T F T T F T
    # → tp 2 (1, 6), fp 1 (2), fn 2 (3, 4), tn 1 (5)
    judge = ["true", "true", "false", "false", "false", "true"]
    people = ["true", "false", "true", "true", "false", "true"]
    rows = []
    for k, (j, h) in enumerate(zip(judge, people, strict=True), start=1):
        rows.append((f"a{k}", "judge", "judge", j))
        other = "false" if h == "true" else "true"
        rows += [(f"a{k}", "r1", "human", h), (f"a{k}", "r2", "human", h), (f"a{k}", "r3", "human", other)]
    # model B: item judged true, people tied 1–1 → left out and counted
    rows += [("b1", "judge", "judge", "true"), ("b1", "r1", "human", "yes"), ("b1", "r2", "human", "no")]
    items = pd.DataFrame(
        {"item_id": [f"a{k}" for k in range(1, 7)] + ["b1"], "player_model": ["A"] * 6 + ["B"]}
    )
    table = judge_confusion(_labels(rows), items, by="player_model").set_index("player_model")
    a = table.loc["A"]
    assert (a.tp, a.fp, a.fn, a.tn) == (2, 1, 2, 1)
    # precision 2/3, recall 2/4, F1 2·2/(2·2 + 1 + 2) = 4/7, FNR 2/4, specificity 1/2
    assert (a.precision, a.recall, a.f1, a.fnr, a.specificity) == pytest.approx((2 / 3, 0.5, 4 / 7, 0.5, 0.5))
    lo, hi = proportion_confint(2, 4, method="wilson")
    assert (a.fnr_low, a.fnr_high) == pytest.approx((lo, hi))
    b = table.loc["B"]
    assert b.n_labelled == 0 and np.isnan(b.recall)
    assert table.attrs["skipped"]["ties"] == 1


def test_reweighting_undoes_verdict_oversampling():
    # population of one model: 100 judged true, 900 judged false. People label 30 of the
    # judged-true (27 true, q1 = .9) and 60 of the judged-false (6 true, q0 = .1): the judged-true
    # are over-sampled 30/100 vs 60/900. Raw recall 27/(27 + 6) = .818 is biased; re-weighted
    # Se = N1 q1 / (N1 q1 + N0 q0) = 100·.9 / (100·.9 + 900·.1) = .5.
    judge = np.r_[np.ones(100, bool), np.zeros(900, bool)]
    human = np.full(1000, np.nan)
    human[:30] = np.r_[np.ones(27), np.zeros(3)]
    human[100:160] = np.r_[np.ones(6), np.zeros(54)]
    frame = pd.DataFrame(
        {
            "judge": judge,
            "human": pd.array([None if np.isnan(h) else bool(h) for h in human], dtype="boolean"),
        }
    )
    frame["labelled"] = frame["human"].notna()
    acc = poststratified_accuracy(frame)
    assert acc.se == pytest.approx(0.5)
    # Sp = Σ_{f=0} N(1 − q) / Σ N(1 − q) = 900·.9 / (900·.9 + 100·.1) = 810/820
    assert acc.sp == pytest.approx(810 / 820)
    assert acc.var_se > 0 and acc.var_sp > 0


def test_two_judges_need_a_choice():
    rows = [("x", "j1", "judge", "true"), ("x", "j2", "judge", "false"), ("x", "r", "human", "true")]
    with pytest.raises(InputError, match="several judges"):
        judge_confusion(_labels(rows), None, by=None)
    one = judge_confusion(_labels(rows), None, by=None, judge="j2")
    assert (one.loc[0, "fn"], one.loc[0, "tp"]) == (1, 0)


def test_bad_label_is_an_input_error():
    with pytest.raises(InputError, match="not true/false"):
        judge_confusion(_labels([("x", "j", "judge", "perhaps")]), None, by=None)


def test_variance_share_by_hand():
    from wordplay_audit.analysis.correction import variance_share as _variance_proportion

    x = np.array([5.0, 3.0, 0.0])
    n = np.array([5.0, 4.0, 6.0])
    judge = np.array([True, True, False])
    # judge-true post-strata pool 8 of 9: (5 + 8/9)/6 and (3 + 8/9)/5; the judge-false one
    # pools 0 of 6, so its pseudo-observation is 0.5: (0 + 0.5)/7
    expected = [(5 + 8 / 9) / 6, (3 + 8 / 9) / 5, 0.5 / 7]
    assert np.allclose(_variance_proportion(x, n, judge), expected)
