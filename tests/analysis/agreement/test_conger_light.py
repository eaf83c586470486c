"""Conger's κ and Light's κ: published values (R irr), scikit-learn on the same input, and the
resampling of code patterns against a naive row-copying loop."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import cohen_kappa_score

from wordplay_audit.analysis.agreement import (
    BootstrapOptions,
    bootstrap_intervals,
    conger_kappa,
    conger_kappa_se,
    light_kappa,
    light_kappa_se,
    rating_table,
)
from wordplay_audit.analysis.agreement._core import sample_patterns
from wordplay_audit.analysis.agreement._raters import rater_patterns
from wordplay_audit.analysis.agreement.resampling import draw_pattern_weights, draw_weights
from wordplay_audit.errors import InputError

from .published import DIAGNOSES, RAW4RATERS, to_labels


def random_codes(seed: int, n: int, r: int, k: int, p_missing: float = 0.0) -> np.ndarray:
    """Subjects × raters of category codes 0..k-1 (nan = missing): correlated raters."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, k, n)
    codes = np.where(rng.random((n, r)) < 0.6, truth[:, None], rng.integers(0, k, (n, r))).astype(float)
    codes[rng.random((n, r)) < p_missing] = np.nan
    return codes


def test_irr_kappam_fleiss_exact_and_kappam_light_on_diagnoses():
    # R irr documentation examples on `diagnoses` (printed to 3 digits, as in the tests of
    # irr's Python port pyirr): kappam.fleiss(diagnoses, exact = TRUE) = 0.442 — Conger's
    # (1980) exact κ — and kappam.light(diagnoses) = 0.459
    labels = to_labels(DIAGNOSES)
    assert conger_kappa(labels) == pytest.approx(0.442, abs=5e-4)
    assert light_kappa(labels) == pytest.approx(0.459, abs=5e-4)


def test_light_is_the_mean_of_sklearn_pairwise_kappa():
    codes = random_codes(3, 80, 4, 3)
    labels = to_labels(codes)
    pairs = [cohen_kappa_score(codes[:, a], codes[:, b]) for a in range(4) for b in range(a + 1, 4)]
    assert light_kappa(labels) == pytest.approx(np.mean(pairs), abs=1e-12)


def test_light_with_missing_ratings_uses_each_pairs_common_items():
    # irr's kappam.light keeps only the subjects every rater rated; the toolkit uses each
    # pair's common subjects. Both pinned on cac.raw4raters (sklearn on the same rows).
    labels = to_labels(RAW4RATERS)
    pairwise = []
    for a in range(4):
        for b in range(a + 1, 4):
            both = ~np.isnan(RAW4RATERS[:, a]) & ~np.isnan(RAW4RATERS[:, b])
            pairwise.append(
                cohen_kappa_score(RAW4RATERS[both, a], RAW4RATERS[both, b], labels=[1, 2, 3, 4, 5])
            )
    complete = ~np.isnan(RAW4RATERS).any(axis=1)
    irr_rows = RAW4RATERS[complete]
    irr_like = np.mean(
        [
            cohen_kappa_score(irr_rows[:, a], irr_rows[:, b], labels=[1, 2, 3, 4, 5])
            for a in range(4)
            for b in range(a + 1, 4)
        ]
    )
    assert light_kappa(labels) == pytest.approx(np.mean(pairwise), abs=1e-12)
    assert light_kappa(to_labels(irr_rows)) == pytest.approx(irr_like, abs=1e-12)
    assert abs(np.mean(pairwise) - irr_like) > 0.01


@pytest.mark.parametrize("weights", [None, "linear", "quadratic"])
def test_conger_is_cohen_for_two_raters(weights):
    codes = random_codes(5, 120, 2, 4)
    labels = to_labels(codes)
    expected = cohen_kappa_score(codes[:, 0], codes[:, 1], weights=weights)
    assert conger_kappa(labels, weights=weights) == pytest.approx(expected, abs=1e-12)
    assert light_kappa(labels, weights=weights) == pytest.approx(expected, abs=1e-12)


def test_conger_se_for_two_raters_equals_the_delta_method_of_light():
    # two derivations: irrCAC's linearisation of Conger's κ and the delta method of Light's κ
    # (for two raters both are Cohen's κ, and without missing ratings both SEs agree)
    labels = to_labels(random_codes(6, 150, 2, 3))
    assert conger_kappa_se(labels) == pytest.approx(light_kappa_se(labels), rel=1e-10)


def _light_by_rows(rows: np.ndarray) -> float:
    r = rows.shape[1]
    kappas = []
    for a in range(r):
        for b in range(a + 1, r):
            both = ~np.isnan(rows[:, a]) & ~np.isnan(rows[:, b])
            kappas.append(cohen_kappa_score(rows[both, a], rows[both, b], labels=[0, 1, 2]))
    return float(np.mean(kappas))


@pytest.mark.slow
def test_light_se_is_close_to_the_jackknife():
    codes = random_codes(8, 300, 4, 3, p_missing=0.15)
    labels = to_labels(codes)
    n = len(codes)
    leave_one_out = np.array([_light_by_rows(np.delete(codes, i, axis=0)) for i in range(n)])
    jackknife = math.sqrt((n - 1) / n * ((leave_one_out - leave_one_out.mean()) ** 2).sum())
    assert light_kappa_se(labels) == pytest.approx(jackknife, rel=0.03)


def _conger_by_rows(rows: np.ndarray, k: int) -> float:
    """Conger (1980) written out: p_a as Fleiss', p_e the mean over ordered rater pairs of
    Σ_k p_gk p_hk with each rater's own shares."""
    r = rows.shape[1]
    agree, multi = 0.0, 0
    for row in rows:
        values = row[~np.isnan(row)]
        if len(values) >= 2:
            counts = np.array([(values == c).sum() for c in range(k)], dtype=float)
            agree += (counts * (counts - 1)).sum() / (len(values) * (len(values) - 1))
            multi += 1
    shares = [
        np.array([(rows[:, g] == c).sum() for c in range(k)]) / (~np.isnan(rows[:, g])).sum()
        for g in range(r)
    ]
    p_e = np.mean([shares[g] @ shares[h] for g in range(r) for h in range(r) if g != h])
    return (agree / multi - p_e) / (1 - p_e)


def test_indices_draws_equal_a_naive_row_copying_loop():
    codes = random_codes(11, 60, 3, 3, p_missing=0.1)
    codes = codes[(~np.isnan(codes)).sum(axis=1) >= 1]
    labels = to_labels(codes)
    options = BootstrapOptions(n_boot=40, seed=2, draws="indices")
    res = bootstrap_intervals(labels, statistics=("conger_kappa", "light_kappa"), bootstrap=options)
    rng = np.random.default_rng(2)
    conger, light = [], []
    for _ in range(40):
        rows = codes[rng.integers(0, len(codes), len(codes))]
        conger.append(_conger_by_rows(rows, 3))
        light.append(_light_by_rows(rows))
    np.testing.assert_allclose(res["conger_kappa"].distribution, conger, atol=1e-12)
    np.testing.assert_allclose(res["light_kappa"].distribution, light, atol=1e-12)


def test_multinomial_split_keeps_the_count_draws_and_is_the_multinomial_over_code_patterns():
    table = rating_table(to_labels(random_codes(12, 400, 3, 3, p_missing=0.2)))
    pats = sample_patterns(table.counts)
    rp = rater_patterns(table, pats)
    draws = list(draw_weights(pats, rp, 4000, np.random.default_rng(9)))
    counts = np.concatenate([c for c, _ in draws])
    codes = np.concatenate([c for _, c in draws])
    # the count-pattern draws are those the count-table statistics draw alone
    alone = np.concatenate(
        list(draw_pattern_weights(pats, 4000, np.random.default_rng(9), width=len(rp.freq)))
    )
    np.testing.assert_array_equal(counts, alone)
    summed = np.zeros_like(counts)
    np.add.at(summed.T, rp.group, codes.T)
    np.testing.assert_array_equal(summed, counts)
    # multinomial moments of the code-pattern multiplicities: mean n q, variance n q (1 - q)
    n, q = pats.n_items, rp.freq / pats.n_items
    assert np.abs(codes.mean(axis=0) - n * q).max() < 5 * np.sqrt(n * q * (1 - q) / 4000).max()
    np.testing.assert_allclose(codes.var(axis=0, ddof=1), n * q * (1 - q), rtol=0.15, atol=0.05)


def test_count_statistics_have_the_same_interval_with_or_without_rater_statistics():
    labels = to_labels(random_codes(13, 200, 4, 3, p_missing=0.1))
    options = BootstrapOptions(n_boot=300, seed=5)
    alone = bootstrap_intervals(labels, statistics=("fleiss_kappa",), bootstrap=options)["fleiss_kappa"]
    joint = bootstrap_intervals(labels, statistics=("fleiss_kappa", "conger_kappa"), bootstrap=options)
    np.testing.assert_array_equal(alone.distribution, joint["fleiss_kappa"].distribution)
    assert joint["conger_kappa"].ci_low < joint["conger_kappa"].value < joint["conger_kappa"].ci_high


def test_rater_statistics_need_the_raters():
    counts = np.array([[2, 1], [3, 0], [1, 2]])
    with pytest.raises(InputError, match="conger_kappa need who gave each rating"):
        bootstrap_intervals(counts, statistics=("conger_kappa",))
    with pytest.raises(InputError, match="needs who gave each rating"):
        conger_kappa(pd.DataFrame(counts))
