"""Kendall's W against published examples and scipy's Friedman test on the same input.

* R irr's documented example ``kendall(anxiety, TRUE)`` (20 subjects × 3 raters, ties within
  raters): Wt = 0.54, χ²(19) = 30.8, p = 0.0429 (as printed, and as the port pyirr's test
  ``test_kendall`` asserts them).
* R DescTools' ``KendallW(ratings, test=TRUE)`` on 6 subjects × 3 raters without ties:
  W = 0.568254, Kendall χ² = 8.5238, df = 5, p = 0.1296.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from wordplay_audit.analysis.agreement import BootstrapOptions, agreement, kendall_w

from .published import ANXIETY, to_labels

DESCTOOLS = np.array([[1, 1, 2], [6, 5, 3], [3, 6, 6], [2, 2, 5], [5, 4, 4], [4, 3, 1]], dtype=float)


def test_irr_anxiety_with_the_tie_correction():
    w = kendall_w(ANXIETY)
    assert w.ties_corrected
    assert (round(w.value, 2), round(w.chi2, 1), w.df, round(w.p_value, 4)) == (0.54, 30.8, 19, 0.0429)


def test_desctools_example_without_ties():
    w = kendall_w(DESCTOOLS, correct_ties=False)
    assert (round(w.value, 6), round(w.chi2, 4), w.df, round(w.p_value, 4)) == (0.568254, 8.5238, 5, 0.1296)
    assert kendall_w(DESCTOOLS).value == w.value  # no ties: the correction changes nothing


@pytest.mark.parametrize("seed", range(5))
def test_the_chi_square_is_scipys_friedman_statistic(seed):
    """Friedman's test with items as treatments and raters as blocks is m(n−1)W, tie-corrected."""
    rng = np.random.default_rng(seed)
    n, m = int(rng.integers(3, 30)), int(rng.integers(2, 7))
    ratings = rng.integers(1, 6, size=(n, m)).astype(float)  # a 1–5 scale: many ties
    w = kendall_w(ratings)
    reference = stats.friedmanchisquare(*ratings)
    assert w.chi2 == pytest.approx(reference.statistic, rel=1e-10)
    assert w.p_value == pytest.approx(reference.pvalue, rel=1e-8)


def test_uncorrected_w_is_lower_bound_of_corrected_and_invariant_to_order():
    rng = np.random.default_rng(9)
    ratings = rng.integers(1, 4, size=(12, 4)).astype(float)
    corrected, plain = kendall_w(ratings), kendall_w(ratings, correct_ties=False)
    assert plain.value < corrected.value
    shuffled = kendall_w(ratings[rng.permutation(12)][:, rng.permutation(4)])
    assert shuffled.value == pytest.approx(corrected.value, rel=1e-12)


def test_undefined_cases_are_null_with_a_reason():
    assert "1 rater" in kendall_w(ANXIETY[:, :1]).reason
    constant = kendall_w(np.full((4, 3), 2.0))
    assert constant.value is None and "same rating" in constant.reason
    incomplete = ANXIETY.astype(float).copy()
    incomplete[0, 0] = np.nan
    w = kendall_w(incomplete)
    assert (w.n_items, w.n_left_out) == (19, 1)


def test_in_the_agreement_result_numeric_and_ordinal_labels():
    none = BootstrapOptions(n_boot=0)
    out = agreement(to_labels(ANXIETY), bootstrap=none).to_dict()
    assert round(out["kendall_w"]["value"], 2) == 0.54 and out["kendall_w"]["ties_corrected"] is True
    words = {1: "a-low", 2: "b", 3: "c", 4: "d", 5: "e", 6: "f-high"}
    named = to_labels(np.vectorize(words.get)(ANXIETY).astype(object))
    ordinal = agreement(named, bootstrap=none, level="ordinal", categories=list(words.values())).to_dict()
    assert ordinal["icc"] is None
    assert ordinal["kendall_w"]["value"] == pytest.approx(out["kendall_w"]["value"], rel=1e-12)


def test_column_ranks_are_scipys_average_ranks():
    from wordplay_audit.analysis.agreement.kendall import column_ranks

    rng = np.random.default_rng(4)
    values = np.round(rng.normal(size=(50, 3)), 1)
    ranks, ties = column_ranks(values)
    np.testing.assert_allclose(ranks, stats.rankdata(values, axis=0))
    counts = [np.unique(values[:, j], return_counts=True)[1] for j in range(3)]
    np.testing.assert_allclose(ties, [float((c**3 - c).sum()) for c in counts])
