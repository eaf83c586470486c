"""Intraclass correlation against published tables and pingouin on the same input.

Sources (values nobody on this project computed):

* Shrout & Fleiss (1979), Table 2 data (6 targets × 4 judges) and Table 4's six ICCs at the
  printed two decimals; the intervals and tests as printed by R psych's ``ICC`` (pingouin's
  ``tests/test_reliability.py`` transcribes them at two decimals), R DescTools' ``ICC`` (printed
  at three decimals, p to six) and the NAG Library's ``g04ga`` example results (ICC(1,1)).
* R irr's documented example ``icc(anxiety, model="twoway", type="agreement")``: ICC(A,1) = 0.198,
  F = 1.83, 95 % interval −0.039 < ICC < 0.494.
* pingouin's ``icc`` data set (8 wines × 4 judges; its ``tests/test_reliability.py``).
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pingouin
import pytest

import wordplay_audit as wa
from wordplay_audit.analysis.agreement import ICC_FORMS, BootstrapOptions, agreement, icc
from wordplay_audit.errors import InputError, ParameterError

from .published import ANXIETY, to_labels

SHROUT_FLEISS = np.array(
    [[9, 2, 5, 8], [6, 1, 3, 2], [8, 4, 6, 8], [7, 1, 2, 6], [10, 5, 6, 9], [6, 2, 4, 7]], dtype=float
)
FORMS = ["ICC1", "ICC2", "ICC3", "ICC1k", "ICC2k", "ICC3k"]


def column(result, field: str) -> np.ndarray:
    return np.array([getattr(result[f], field) for f in FORMS], dtype=float)


def published(result, side: int) -> np.ndarray:
    """The interval bound R psych, irr and pingouin print: the exact F interval, McGraw & Wong's
    for ICC2 and ICC2k (ours prints the generalized interval there, ``ci_low``/``ci_high``)."""
    return np.array(
        [result[f].mcgraw_wong[side] if f.startswith("ICC2") else (result[f].ci_low, result[f].ci_high)[side]
         for f in FORMS]
    )  # fmt: skip


def test_shrout_fleiss_table_4_values_at_the_printed_precision():
    result = icc(SHROUT_FLEISS)
    np.testing.assert_array_equal(np.round(column(result, "value"), 2), [0.17, 0.29, 0.71, 0.44, 0.62, 0.91])


def test_shrout_fleiss_intervals_and_tests_as_r_psych_prints_them():
    result = icc(SHROUT_FLEISS)
    np.testing.assert_array_equal(np.round(published(result, 0), 2), [-0.13, 0.02, 0.34, -0.88, 0.07, 0.68])
    np.testing.assert_array_equal(np.round(published(result, 1), 2), [0.72, 0.76, 0.95, 0.91, 0.93, 0.99])
    np.testing.assert_array_equal(np.round(column(result, "F"), 1), [1.8, 11.0, 11.0, 1.8, 11.0, 11.0])
    np.testing.assert_array_equal(column(result, "df1"), [5] * 6)
    np.testing.assert_array_equal(column(result, "df2"), [18, 15, 15, 18, 15, 15])


def test_shrout_fleiss_as_r_desctools_prints_it():
    result = icc(SHROUT_FLEISS)
    np.testing.assert_array_equal(
        np.round(column(result, "value"), 3), [0.166, 0.290, 0.715, 0.443, 0.620, 0.909]
    )
    np.testing.assert_array_equal(np.round(column(result, "F"), 2), [1.79, 11.03, 11.03, 1.79, 11.03, 11.03])
    np.testing.assert_array_equal(
        np.round(column(result, "p_value"), 6), [0.164769, 0.000135, 0.000135, 0.164769, 0.000135, 0.000135]
    )


def test_nag_g04ga_example_icc_1_1():
    one = icc(SHROUT_FLEISS, forms=["ICC1"])["ICC1"]
    assert (round(one.value, 2), round(one.ci_low, 2), round(one.ci_high, 2)) == (0.17, -0.13, 0.72)
    assert (round(one.F, 2), one.df1, one.df2, round(one.p_value, 3)) == (1.79, 5, 18, 0.165)


def test_irr_anxiety_twoway_agreement_example():
    """irr prints F(19,39.7) = 1.83, p = 0.0543 for this test; irrNA's ``icc_corr`` documents that
    irr 0.84.1 computes the p-values of ICC(A,1) and ICC(A,k) wrongly. The F ratio, the value and
    the interval are compared; df2 here is (n−1)(k−1) = 38, as psych, DescTools and pingouin."""
    two = icc(ANXIETY, forms=["ICC2"])["ICC2"]
    assert round(two.value, 3) == 0.198
    assert (round(two.mcgraw_wong[0], 3), round(two.mcgraw_wong[1], 3)) == (-0.039, 0.494)
    assert round(two.F, 2) == 1.83
    assert (two.df1, two.df2) == (19, 38)


def test_pingouin_wine_example_and_its_listwise_deletion():
    wine = pingouin.read_dataset("icc")
    matrix = wine.pivot(index="Wine", columns="Judge", values="Scores").to_numpy(dtype=float, copy=True)
    result = icc(matrix)
    np.testing.assert_array_equal(np.round(column(result, "value"), 2), [0.73, 0.73, 0.73, 0.91, 0.91, 0.92])
    np.testing.assert_array_equal(np.round(published(result, 0), 2), [0.43, 0.43, 0.43, 0.75, 0.75, 0.75])
    np.testing.assert_array_equal(np.round(published(result, 1), 2), [0.93, 0.93, 0.93, 0.98, 0.98, 0.98])
    np.testing.assert_array_equal(column(result, "df2"), [24, 21, 21, 24, 21, 21])
    matrix[3, 0] = np.nan  # pingouin's nan_policy="omit" drops that wine
    short = icc(matrix)
    assert short.n_items == 7 and short.n_left_out == 1
    np.testing.assert_array_equal(np.round(column(short, "value"), 2), [0.75, 0.75, 0.75, 0.92, 0.92, 0.92])
    np.testing.assert_array_equal(column(short, "df1"), [6] * 6)


@pytest.mark.parametrize("seed", range(6))
def test_every_form_equals_pingouin_on_the_same_input(seed):
    rng = np.random.default_rng(seed)
    n, k = int(rng.integers(3, 40)), int(rng.integers(2, 8))
    ratings = rng.normal(size=(n, 1)) * rng.uniform(0, 2) + rng.normal(size=(n, k)) + rng.normal(size=(1, k))
    long = pd.DataFrame([(i, j, ratings[i, j]) for i in range(n) for j in range(k)], columns=["t", "r", "y"])
    reference = pingouin.intraclass_corr(long, targets="t", raters="r", ratings="y")  # ICC1, 2, 3, 1k, 2k, 3k
    ours = icc(ratings)
    np.testing.assert_allclose(column(ours, "value"), reference["ICC"], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(column(ours, "F"), reference["F"], rtol=1e-10)
    np.testing.assert_allclose(column(ours, "p_value"), reference["pval"], rtol=1e-8, atol=1e-300)
    bounds = np.array(reference["CI95"].tolist(), dtype=float)  # pingouin rounds them to 2 decimals
    np.testing.assert_allclose(published(ours, 0), bounds[:, 0], atol=0.005 + 1e-12)
    np.testing.assert_allclose(published(ours, 1), bounds[:, 1], atol=0.005 + 1e-12)


def test_average_measure_bounds_are_mcgraw_wong_table_7():
    """ICC(A,k) bounds by McGraw & Wong's own formula (hand-coded here from their Table 7)."""
    from scipy import stats

    y = SHROUT_FLEISS
    n, k = y.shape
    result = icc(y)
    grand, rows, cols = y.mean(), y.mean(1), y.mean(0)
    msr = k * ((rows - grand) ** 2).sum() / (n - 1)
    msc = n * ((cols - grand) ** 2).sum() / (k - 1)
    mse = ((y - rows[:, None] - cols[None, :] + grand) ** 2).sum() / ((n - 1) * (k - 1))
    r = result["ICC2"].value
    a, b = k * r / (n * (1 - r)), 1 + k * r * (n - 1) / (n * (1 - r))
    v = (a * msc + b * mse) ** 2 / ((a * msc) ** 2 / (k - 1) + (b * mse) ** 2 / ((n - 1) * (k - 1)))
    fl, fu = stats.f.ppf(0.975, n - 1, v), stats.f.ppf(0.975, v, n - 1)
    low = n * (msr - fl * mse) / (fl * (msc - mse) + n * msr)
    high = n * (fu * msr - mse) / (msc - mse + n * fu * msr)
    assert result["ICC2k"].mcgraw_wong[0] == pytest.approx(low, rel=1e-12)
    assert result["ICC2k"].mcgraw_wong[1] == pytest.approx(high, rel=1e-12)


def test_the_icc2_interval_is_the_seeded_generalized_one():
    """Printed for ICC2/ICC2k: the generalized pivotal interval (McGraw & Wong's under-covers with
    few raters whose offsets vary: benchmarks/results/sim_icc_coverage.csv); seeded, so
    repeatable; on Shrout & Fleiss's data close to McGraw & Wong's."""
    first, again = icc(SHROUT_FLEISS), icc(SHROUT_FLEISS)
    for form in ("ICC2", "ICC2k"):
        e = first[form]
        assert (e.ci_low, e.ci_high) == (again[form].ci_low, again[form].ci_high)
        assert e.ci_method.startswith("generalized pivotal quantity")
        assert e.ci_low < e.value < e.ci_high
        assert abs(e.ci_low - e.mcgraw_wong[0]) < 0.04 and abs(e.ci_high - e.mcgraw_wong[1]) < 0.02
    assert first["ICC3"].ci_method.startswith("exact F") and first["ICC3"].mcgraw_wong is None


def test_invariant_to_the_order_of_items_and_raters_and_to_a_linear_rescaling():
    rng = np.random.default_rng(3)
    base = icc(SHROUT_FLEISS)
    shuffled = SHROUT_FLEISS[rng.permutation(6)][:, rng.permutation(4)]
    for other in (icc(shuffled), icc(3.0 * SHROUT_FLEISS - 7.0)):
        for form in FORMS:
            assert other[form].value == pytest.approx(base[form].value, rel=1e-12)
            assert other[form].ci_low == pytest.approx(base[form].ci_low, rel=1e-10)


def test_the_labels_table_gives_the_matrix_result_and_the_json_shape():
    labels = to_labels(SHROUT_FLEISS)
    result = agreement(labels, bootstrap=BootstrapOptions(n_boot=0))
    out = result.to_dict()
    assert list(out["icc"]) == list(ICC_FORMS) == FORMS
    assert set(out["icc"]["ICC2"]) >= {
        "value",
        "ci_low",
        "ci_high",
        "F",
        "df1",
        "df2",
        "p_value",
        "description",
    }
    assert out["icc"]["ICC3k"]["value"] == pytest.approx(icc(SHROUT_FLEISS)["ICC3k"].value, rel=1e-12)
    assert (out["icc_items"], out["icc_items_left_out"]) == (6, 0)
    assert out["icc_reason"] is None


def test_workflow_forms_and_off():
    labels = to_labels(SHROUT_FLEISS)
    out = wa.agreement(labels, bootstrap=0, icc=["ICC3", "ICC1"]).to_dict()
    assert list(out["icc"]) == ["ICC3", "ICC1"]
    off = wa.agreement(labels, bootstrap=0, icc="none").to_dict()
    assert off["icc"] is None and off["kendall_w"] is None and "not requested" in off["icc_reason"]
    with pytest.raises(ParameterError, match="^icc: expected one of"):
        wa.agreement(labels, bootstrap=0, icc=["ICC4"])


def test_nominal_labels_give_null_with_a_reason():
    labels = to_labels([["yes", "no"], ["no", "no"], ["yes", "yes"]])
    out = agreement(labels, bootstrap=BootstrapOptions(n_boot=0)).to_dict()
    assert out["icc"] is None
    assert "labels are not numbers" in out["icc_reason"]
    assert out["kendall_w"] is None and "nominal" in out["kendall_w_reason"]


# --- undefined cases: null with a reason, never an error ---------------------------------


def test_constant_ratings_are_null_with_a_reason():
    result = icc(np.full((5, 3), 4.0))
    for form in FORMS:
        assert result[form].value is None and "every rating is equal" in result[form].reason


def test_one_rater_is_null_with_a_reason():
    result = icc(SHROUT_FLEISS[:, :1])
    assert all(result[f].value is None and "1 rater" in result[f].reason for f in FORMS)


def test_incomplete_items_are_left_out_and_counted():
    ratings = SHROUT_FLEISS.copy()
    ratings[0, 1] = np.nan
    result = icc(ratings)
    assert (result.n_items, result.n_left_out) == (5, 1)
    assert result["ICC2"].value == pytest.approx(icc(SHROUT_FLEISS[1:])["ICC2"].value, rel=1e-12)


def test_no_complete_item_is_null_with_a_reason():
    rotating = np.array([[1, 2, np.nan], [np.nan, 3, 4], [5, np.nan, 5]])
    result = icc(rotating)
    assert result["ICC1"].value is None and "0 items rated by all 3 raters" in result["ICC1"].reason


def test_perfect_consistency_has_a_value_and_no_f_test():
    ratings = np.array([[1.0, 3.0], [2.0, 4.0], [5.0, 7.0]])  # rater 2 = rater 1 + 2
    result = icc(ratings)
    assert result["ICC3"].value == pytest.approx(1.0)
    assert result["ICC3"].F is None and "no residual variance" in result["ICC3"].ci_reason
    assert 0 < result["ICC2"].value < 1


def test_bad_input_is_a_one_line_error():
    with pytest.raises(InputError, match="^ratings: expected a 2-D array"):
        icc(np.arange(4.0))
    with pytest.raises(ParameterError, match="^forms: expected one of"):
        icc(SHROUT_FLEISS, forms=["ICC(2,1)"])
    with pytest.raises(InputError, match="is not a number"):
        icc(to_labels([["a", "b"], ["b", "b"]]))


def test_the_command_prints_every_form_and_refuses_a_bad_one(run_cli, tmp_path):
    from tests.support.cli_checks import one_line_error

    path = tmp_path / "sf.csv"
    to_labels(SHROUT_FLEISS).to_csv(path, index=False)
    code, out, err = run_cli("analyze", "agreement", str(path), "--bootstrap", "0", "--json")
    assert code == 0, err
    data = json.loads(out)
    assert [round(data["icc"][f]["value"], 2) for f in FORMS] == [0.17, 0.29, 0.71, 0.44, 0.62, 0.91]
    assert data["kendall_w"]["ties_corrected"] is True
    code, out, err = run_cli("analyze", "agreement", str(path), "--bootstrap", "0", "--icc", "ICC3")
    assert code == 0 and "ICC3: 0.715 [0.342, 0.946]" in out and "ICC1:" not in out
    one_line_error(*run_cli("analyze", "agreement", str(path), "--icc", "ICC9"), "--icc", "ICC9")
