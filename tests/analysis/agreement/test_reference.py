"""Agreement statistics against reference libraries on the same random input (to 1e-9)."""

from __future__ import annotations

import itertools

import krippendorff
import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import aggregate_raters
from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss_kappa

from wordplay_audit.analysis.agreement import (
    count_patterns,
    fleiss_kappa,
    krippendorff_alpha,
    pairwise_agreement,
    per_category_kappa,
    rating_table,
)


def random_ratings(seed: int, n_items: int, n_raters: int, n_cat: int, p_missing: float = 0.0):
    """Dense item × rater codes (-1 = missing) with some true agreement, and the long table."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, n_cat, n_items)
    codes = np.where(
        rng.random((n_items, n_raters)) < 0.6,
        truth[:, None],
        rng.integers(0, n_cat, (n_items, n_raters)),
    )
    codes = np.where(rng.random((n_items, n_raters)) < p_missing, -1, codes)
    rows = [
        (f"it{i:04d}", f"r{j}", "human", f"c{codes[i, j]}")
        for i in range(n_items)
        for j in range(n_raters)
        if codes[i, j] >= 0
    ]
    labels = pd.DataFrame(rows, columns=["item_id", "rater", "rater_type", "label"])
    return codes, labels


@pytest.mark.parametrize("seed", range(6))
def test_fleiss_matches_statsmodels(seed):
    rng = np.random.default_rng(seed)
    n_raters, n_cat = int(rng.integers(2, 9)), int(rng.integers(2, 7))
    codes, labels = random_ratings(seed, int(rng.integers(20, 200)), n_raters, n_cat)
    table, _ = aggregate_raters(codes, n_cat=n_cat)
    expected = sm_fleiss_kappa(table, method="fleiss")
    assert fleiss_kappa(table) == pytest.approx(expected, abs=1e-9)
    # the same through the long labels table
    assert fleiss_kappa(labels) == pytest.approx(expected, abs=1e-9)


@pytest.mark.parametrize("seed", range(6))
def test_per_category_kappa_matches_statsmodels_on_collapsed_table(seed):
    codes, _ = random_ratings(100 + seed, 80, 5, 4)
    table, _ = aggregate_raters(codes, n_cat=4)
    ours = per_category_kappa(table)["kappa"].to_numpy()
    for k in range(4):
        collapsed = np.column_stack([table[:, k], table.sum(axis=1) - table[:, k]])
        assert ours[k] == pytest.approx(sm_fleiss_kappa(collapsed), abs=1e-9)


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval", "ratio"])
@pytest.mark.parametrize("seed", range(4))
def test_alpha_matches_krippendorff_with_missing(seed, level):
    n_raters, n_cat = 4 + seed, 3 + seed
    codes, labels = random_ratings(200 + seed, 150, n_raters, n_cat, p_missing=0.3)
    reliability = np.where(codes >= 0, codes + 1.0, np.nan).T  # raters × units, values 1..K
    expected = krippendorff.alpha(
        reliability_data=reliability,
        value_domain=np.arange(1, n_cat + 1),
        level_of_measurement=level,
    )
    # categories named by their numeric value, in order
    renamed = labels.assign(label=labels["label"].str[1:].astype(int).add(1).astype(str))
    ours = krippendorff_alpha(renamed, level=level, categories=[str(v) for v in range(1, n_cat + 1)])
    assert ours == pytest.approx(expected, abs=1e-9)
    # and from a prepared value_counts table
    value_counts = np.stack([(reliability == v).sum(axis=0) for v in range(1, n_cat + 1)], axis=1)
    ours_vc = krippendorff_alpha(value_counts, level=level, categories=[str(v) for v in range(1, n_cat + 1)])
    assert ours_vc == pytest.approx(expected, abs=1e-9)


@pytest.mark.parametrize("seed", range(4))
def test_pairwise_cohen_matches_sklearn(seed):
    n_raters, n_cat = 4, 3 + seed % 2
    codes, labels = random_ratings(300 + seed, 120, n_raters, n_cat, p_missing=0.25)
    pairs = pairwise_agreement(labels)
    names = [f"r{j}" for j in range(n_raters)]
    for a, b in itertools.combinations(range(n_raters), 2):
        both = (codes[:, a] >= 0) & (codes[:, b] >= 0)
        expected = cohen_kappa_score(codes[both, a], codes[both, b], labels=list(range(n_cat)))
        assert pairs.kappa.loc[names[a], names[b]] == pytest.approx(expected, abs=1e-9)
        assert pairs.kappa.loc[names[b], names[a]] == pytest.approx(expected, abs=1e-9)
        assert pairs.n_common.loc[names[a], names[b]] == both.sum()
        assert pairs.agreement.loc[names[a], names[b]] == pytest.approx(
            np.mean(codes[both, a] == codes[both, b]), abs=1e-12
        )


def test_fleiss_generalised_reduces_to_statsmodels_and_ignores_single_ratings():
    codes, labels = random_ratings(7, 60, 5, 3)
    table, _ = aggregate_raters(codes, n_cat=3)
    expected = sm_fleiss_kappa(table)
    # with single_rated="drop", adding items with one rating changes nothing (they are left
    # out); the default "gwet" keeps them in the category shares (tests/analysis/agreement/)
    extra = pd.DataFrame(
        [(f"solo{i}", "r0", "human", "c1") for i in range(7)],
        columns=["item_id", "rater", "rater_type", "label"],
    )
    assert fleiss_kappa(pd.concat([labels, extra]), single_rated="drop") == pytest.approx(expected, abs=1e-12)


def test_invariances():
    codes, labels = random_ratings(11, 90, 4, 3, p_missing=0.2)
    base_k = fleiss_kappa(labels)
    base_a = krippendorff_alpha(labels)
    rng = np.random.default_rng(0)
    shuffled = labels.iloc[rng.permutation(len(labels))]  # permute rows / items
    renamed = labels.assign(rater=labels["rater"].map({"r0": "z", "r1": "y", "r2": "x", "r3": "w"}))
    relabelled = labels.assign(label=labels["label"].map({"c0": "b", "c1": "c", "c2": "a"}))
    for variant in (shuffled, renamed, relabelled):
        assert fleiss_kappa(variant) == pytest.approx(base_k, abs=1e-12)
        assert krippendorff_alpha(variant) == pytest.approx(base_a, abs=1e-12)
    # pairwise κ is symmetric
    kappa = pairwise_agreement(labels).kappa.to_numpy()
    assert np.allclose(kappa, kappa.T, equal_nan=True)


def test_rating_table_categorical_equals_str_path():
    _, labels = random_ratings(12, 50, 4, 3, p_missing=0.2)
    as_cat = labels.astype("category")
    a, b = rating_table(labels), rating_table(as_cat)
    order_a = np.argsort(a.item_ids)
    order_b = np.argsort(b.item_ids)
    assert list(a.categories) == list(b.categories) and list(a.raters) == list(b.raters)
    assert np.array_equal(a.counts[order_a], b.counts[order_b])


@pytest.mark.parametrize(("k", "max_count"), [(3, 4), (5, 40), (40, 5)])
def test_count_patterns_all_paths(k, max_count):
    # (3, 4): bincount of base-5 keys; (5, 40): 1-D unique of keys up to 41⁵; (40, 5): row unique
    rng = np.random.default_rng(k)
    base = rng.integers(0, max_count + 1, (25, k))
    counts = base[rng.integers(0, 25, 400)]
    patterns, inverse, freq = count_patterns(counts)
    assert np.array_equal(patterns[inverse], counts)
    assert freq.sum() == 400
    assert len(patterns) == len(np.unique(counts, axis=0))
    assert np.array_equal(freq, np.bincount(inverse))


def test_rating_table_categorical_with_filtered_rater_type():
    _, labels = random_ratings(13, 40, 3, 3)
    judge = pd.DataFrame(
        [("judge-only", "gpt", "judge", "c9"), ("it0000", "gpt", "judge", "c1")],
        columns=labels.columns,
    )
    both = pd.concat([labels, judge], ignore_index=True)
    a = rating_table(both)
    b = rating_table(both.astype("category"))
    assert list(a.categories) == list(b.categories) == ["c0", "c1", "c2"]
    assert list(b.raters) == ["r0", "r1", "r2"] and "judge-only" not in set(b.item_ids)
    assert sorted(map(tuple, a.counts.tolist())) == sorted(map(tuple, b.counts.tolist()))
