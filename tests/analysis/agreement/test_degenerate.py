"""Degenerate input: defined, documented answers or one-line InputErrors."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest

from wordplay_audit.analysis.agreement import (
    BootstrapOptions,
    UndefinedStatisticWarning,
    agreement,
    fleiss_kappa,
    gwet_ac1,
    krippendorff_alpha,
    majority_vote,
    pairwise_agreement,
    per_category_kappa,
    rating_table,
)
from wordplay_audit.errors import InputError, ParameterError


def labels_from(rows: list[tuple[str, str, str]], rater_type: str = "human") -> pd.DataFrame:
    return pd.DataFrame(
        [(i, r, rater_type, lab) for i, r, lab in rows],
        columns=["item_id", "rater", "rater_type", "label"],
    )


UNANIMOUS_ONE_CATEGORY = labels_from([(f"i{i}", f"r{j}", "true") for i in range(5) for j in range(3)])


def test_all_raters_one_category_kappa_and_alpha_are_nan_with_warning():
    with pytest.warns(UndefinedStatisticWarning, match="Fleiss"):
        assert math.isnan(fleiss_kappa(UNANIMOUS_ONE_CATEGORY))
    with pytest.warns(UndefinedStatisticWarning, match="alpha"):
        assert math.isnan(krippendorff_alpha(UNANIMOUS_ONE_CATEGORY))


def test_all_raters_one_category_ac1_is_defined_with_declared_categories():
    # with two declared categories π = (1, 0): p_e = 0 and AC1 = p_a = 1
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert gwet_ac1(UNANIMOUS_ONE_CATEGORY, categories=["false", "true"]) == 1.0
    # with only the one category seen, q = 1 and AC1 is undefined
    with pytest.warns(UndefinedStatisticWarning, match="AC1"):
        assert math.isnan(gwet_ac1(UNANIMOUS_ONE_CATEGORY))


def test_agreement_summary_on_unanimous_input_warns_and_reports_nan():
    with pytest.warns(UndefinedStatisticWarning):
        result = agreement(
            UNANIMOUS_ONE_CATEGORY, categories=["false", "true"], bootstrap=BootstrapOptions(n_boot=50)
        )
    assert math.isnan(result.fleiss_kappa.value)
    assert math.isnan(result.krippendorff_alpha.value)
    assert result.gwet_ac1.value == 1.0
    assert result.percent_agreement == 1.0


def test_per_category_kappa_of_unused_category_is_nan_with_warning():
    labels = labels_from([("a", "r1", "x"), ("a", "r2", "y"), ("b", "r1", "x"), ("b", "r2", "x")])
    with pytest.warns(UndefinedStatisticWarning, match="z"):
        table = per_category_kappa(labels, categories=["x", "y", "z"])
    assert math.isnan(table.loc["z", "kappa"])
    assert table.loc["z", "prevalence"] == 0.0


def test_one_rater_is_an_input_error():
    labels = labels_from([(f"i{i}", "solo", "a" if i % 2 else "b") for i in range(6)])
    with pytest.raises(InputError, match="no item has two or more ratings"):
        fleiss_kappa(labels)
    with pytest.raises(InputError, match="one rater"):
        agreement(labels)


def test_items_with_one_rating_are_dropped_and_counted():
    rows = [(f"i{i}", f"r{j}", "a" if (i + j) % 3 else "b") for i in range(6) for j in range(3)]
    rows += [("lonely1", "r0", "a"), ("lonely2", "r2", "b")]
    # single_rated="drop" leaves them out; the default "gwet" keeps them in the category
    # shares (tests/analysis/agreement/test_single_rated.py)
    result = agreement(labels_from(rows), bootstrap=BootstrapOptions(n_boot=0), single_rated="drop")
    assert result.n_items == 8
    assert result.n_items_single == 2
    assert result.n_items_used == 6
    full = agreement(labels_from(rows[:-2]), bootstrap=BootstrapOptions(n_boot=0))
    assert result.fleiss_kappa.value == pytest.approx(full.fleiss_kappa.value, abs=1e-12)
    assert result.krippendorff_alpha.value == pytest.approx(full.krippendorff_alpha.value, abs=1e-12)


def test_empty_table_is_an_input_error():
    empty = pd.DataFrame(columns=["item_id", "rater", "rater_type", "label"])
    for fn in (fleiss_kappa, krippendorff_alpha, gwet_ac1, agreement, majority_vote):
        with pytest.raises(InputError, match="empty"):
            fn(empty)
    with pytest.raises(InputError, match="empty"):
        fleiss_kappa(np.zeros((0, 3)))


def test_label_outside_declared_set_names_the_row():
    labels = labels_from([("a", "r1", "yes"), ("a", "r2", "no"), ("b", "r1", "maybe")])
    with pytest.raises(InputError, match=r"row 3: label 'maybe' is not one of no, yes"):
        fleiss_kappa(labels, categories=["yes", "no"])
    with pytest.raises(InputError, match=r"row 3: label 'maybe'"):
        rating_table(labels.astype("category"), categories=["yes", "no"])


def test_duplicate_rating_names_the_row():
    labels = labels_from([("a", "r1", "x"), ("a", "r2", "y"), ("a", "r1", "y")])
    with pytest.raises(InputError, match=r"row 3: rater 'r1' rated item 'a' twice"):
        fleiss_kappa(labels)


def test_missing_column_and_bad_rater_type():
    labels = labels_from([("a", "r1", "x"), ("a", "r2", "y")])
    with pytest.raises(InputError, match="lacks column 'label'"):
        fleiss_kappa(labels.drop(columns="label"))
    with pytest.raises(InputError, match="no ratings with rater_type 'judge'"):
        fleiss_kappa(labels, rater_type="judge")
    with pytest.raises(ParameterError, match="rater_type: expected one of human, judge"):
        fleiss_kappa(labels, rater_type="robot")


def test_bad_count_tables():
    with pytest.raises(InputError, match="negative"):
        fleiss_kappa(np.array([[2, -1], [1, 1]]))
    with pytest.raises(InputError, match="whole numbers"):
        fleiss_kappa(np.array([[1.5, 0.5], [1, 1]]))
    with pytest.raises(InputError, match="2-D"):
        fleiss_kappa(np.array([1, 2, 3]))


def test_interval_alpha_needs_numeric_labels():
    labels = labels_from([("a", "r1", "x"), ("a", "r2", "y"), ("b", "r1", "x"), ("b", "r2", "x")])
    with pytest.raises(InputError, match="numeric labels"):
        krippendorff_alpha(labels, level="interval")
    with pytest.raises(ParameterError, match="level: expected one of nominal, ordinal"):
        krippendorff_alpha(labels, level="cardinal")


def test_pairwise_without_common_items_is_nan():
    labels = labels_from([("a", "r1", "x"), ("a", "r2", "y"), ("b", "r3", "x"), ("b", "r2", "x")])
    # r2 and r3 share only item b, both "x": κ undefined → nan with a warning
    with pytest.warns(UndefinedStatisticWarning, match="'r2' and 'r3'"):
        pairs = pairwise_agreement(labels)
    assert math.isnan(pairs.kappa.loc["r2", "r3"])
    # r1 and r3 share no item: nan, n_common 0
    assert pairs.n_common.loc["r1", "r3"] == 0
    assert math.isnan(pairs.kappa.loc["r1", "r3"])


def test_bad_categories_are_parameter_errors():
    labels = labels_from([("a", "r1", "x"), ("a", "r2", "y")])
    with pytest.raises(ParameterError, match="categories: a name appears twice"):
        fleiss_kappa(labels, categories=["x", "y", "x"])
    with pytest.raises(ParameterError, match="categories: empty"):
        fleiss_kappa(labels, categories=[])
    with pytest.raises(ParameterError, match="categories: expected a list of names"):
        fleiss_kappa(labels, categories="x,y")
    with pytest.raises(ParameterError, match="categories: 3 names but the count table has 2"):
        fleiss_kappa(np.array([[1, 1], [2, 0]]), categories=["x", "y", "z"])
