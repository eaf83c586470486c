"""Corrected known-word counts: the exact word likelihood, limits, refusals and coverage."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import integrate, special

from wordplay_audit.analysis.balderdash.known import _Words, known_counts, word_posteriors
from wordplay_audit.corpora.balderdash.known import definitions, simulate_known_words, true_known
from wordplay_audit.errors import ParameterError


def test_word_posterior_matches_numerical_integration():
    """P(T = t | verdicts, labels) against a brute-force sum over the 2^n truth configurations,
    each integrated over p ~ Beta(α, β) with scipy's quad."""
    se, sp, a, b = 0.7, 0.9, 0.6, 1.4
    codes = np.array([[1, 1, 0, -2, -1], [0, 0, 0, 1, -2]])
    truth = np.array([[-1, 1, -1, -1, -1], [-1, 0, -1, -1, 1]])
    w = _Words(
        codes, truth, np.isin(codes, [1, 0, -2]).sum(axis=1), (codes == -1).sum(axis=1), np.zeros(2, int)
    )
    theta = np.array([[special.logit(se), special.logit(sp), np.log(a), np.log(b)]])
    ours = word_posteriors(w, theta)[0]
    for row in range(2):
        slots = [s for s in range(5) if codes[row, s] != -1]
        expected = np.zeros(6)
        for config in range(2 ** len(slots)):
            h = [(config >> k) & 1 for k in range(len(slots))]
            if any(truth[row, s] >= 0 and truth[row, s] != v for s, v in zip(slots, h, strict=True)):
                continue
            judge = 1.0
            for s, v in zip(slots, h, strict=True):
                c = codes[row, s]
                judge *= 1.0 if c == -2 else ((se if c == 1 else 1 - se) if v else (1 - sp if c == 1 else sp))
            t = sum(h)
            n = len(slots)
            mass = integrate.quad(lambda p, t=t, n=n: p ** (t + a - 1) * (1 - p) ** (n - t + b - 1), 0, 1)[0]
            expected[t] += judge * mass
        np.testing.assert_allclose(ours[row], expected / expected.sum(), atol=1e-6)


def _labels(rng, words, truth, n_per_verdict):
    long = definitions(words)
    out = {}
    for code in (1, 0):
        ids = long.loc[long["is_item"] & (long["code"] == code), "item_id"].to_numpy()
        out.update({i: truth[i] for i in rng.choice(ids, size=min(n_per_verdict, len(ids)), replace=False)})
    return out


def test_fully_labelled_file_gives_the_realised_count_exactly():
    rng = np.random.default_rng(4)
    words, truth = simulate_known_words(rng, rates=80, se=0.7)
    expected = int((true_known(words, truth) == 1).sum())
    row = known_counts(words, truth, draws=200).models.iloc[0]
    assert row["known"] == pytest.approx(expected)
    assert row["ci_low"] == row["ci_high"] == expected
    assert row["judge_known"] == int((words["judge_knows"] == 1).sum())


def test_too_few_labels_in_a_verdict_gives_no_count_and_says_why():
    rng = np.random.default_rng(5)
    words, truth = simulate_known_words(rng, rates=60)
    some = dict(list(_labels(rng, words, truth, 3).items()))
    row = known_counts(words, some, draws=200).models.iloc[0]
    assert np.isnan(row["known"]) and "fewer than 5" in row["reason"]
    none = known_counts(words, {}, draws=200).models.iloc[0]
    assert np.isnan(none["known"]) and none["reason"] == "no people's labels of this model's definitions"


def test_parameters_are_named():
    rng = np.random.default_rng(0)
    words, truth = simulate_known_words(rng, rates=20)
    with pytest.raises(ParameterError, match="^draws: "):
        known_counts(words, truth, draws=10)
    with pytest.raises(ParameterError, match="confidence"):
        known_counts(words, truth, confidence=1.5)


def test_labels_pull_the_count_towards_the_truth_when_the_judge_misses():
    """A judge with FNR 0.35 deflates the count; 40 labels per verdict recover most of it."""
    rng = np.random.default_rng(11)
    words, truth = simulate_known_words(rng, rates=rng.beta(0.4, 0.4, size=300), se=0.65, sp=0.95)
    expected = int((true_known(words, truth) == 1).sum())
    row = known_counts(words, _labels(rng, words, truth, 40), seed=1).models.iloc[0]
    assert row["judge_known"] < expected - 20  # the judge's deflation is large here …
    assert row["ci_low"] <= expected <= row["ci_high"]  # … and the interval holds the truth
    assert abs(row["known"] - expected) < abs(row["judge_known"] - expected) / 2


@pytest.mark.slow
def test_coverage_in_two_hard_cells():
    """60 simulated files per cell: judge FNR 0.35 with 20 labels (random sample) and FNR 0.26
    with 50 stratified labels; the 95 % interval holds the realised count ≥ 88 % of the time
    (Monte-Carlo SE ≈ 3 %; the full grid is benchmarks/sim_known_coverage.py)."""
    for index, (fnr, per_verdict) in enumerate(((0.35, 10), (0.26, 25))):
        hits = []
        for rep in range(60):
            rng = np.random.default_rng([99, index, rep])
            words, truth = simulate_known_words(rng, rates=rng.beta(0.4, 0.4, size=200), se=1 - fnr, sp=0.95)
            expected = int((true_known(words, truth) == 1).sum())
            row = known_counts(
                words, _labels(rng, words, truth, per_verdict), seed=rep, draws=500
            ).models.iloc[0]
            if row["reason"] is None:
                hits.append(row["ci_low"] <= expected <= row["ci_high"])
        assert np.mean(hits) >= 0.88, (fnr, np.mean(hits))
