"""Score metrics of the judge audit against scikit-learn and hand calculations, the audit's
handling of unknown scores, and the AUC interval's coverage (slow)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.calibration import calibration_curve
from sklearn.metrics import brier_score_loss, roc_auc_score, roc_curve

from wordplay_audit.analysis.judge_audit_groups import judge_audit
from wordplay_audit.analysis.judge_scores import (
    auc_interval,
    brier_score,
    delong_variance,
    expected_calibration_error,
    reliability_table,
    roc_auc,
    roc_points,
)


def _sample(seed: int, n: int = 300, shift: float = 1.0, ties: bool = False):
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.6
    s = rng.normal(np.where(y, shift, 0.0), 1.0)
    if ties:
        s = np.round(s, 1)
    return s, y


@pytest.mark.parametrize("ties", [False, True])
def test_auc_is_sklearns(ties):
    for seed in range(5):
        s, y = _sample(seed, ties=ties)
        assert roc_auc(s, y) == pytest.approx(roc_auc_score(y, s), abs=1e-12)


def test_delong_variance_from_the_pairwise_definition():
    # V10_i = mean_j ψ(x_i, y_j), V01_j = mean_i ψ(x_i, y_j), ψ = 1 (>), ½ (=), 0 (<), by the
    # m × n comparison matrix (DeLong et al. 1988, eq. 3–5), not by ranks
    s, y = _sample(3, n=120, ties=True)
    pos, neg = s[y], s[~y]
    psi = (pos[:, None] > neg[None, :]) + 0.5 * (pos[:, None] == neg[None, :])
    v10, v01 = psi.mean(axis=1), psi.mean(axis=0)
    want = v10.var(ddof=1) / len(pos) + v01.var(ddof=1) / len(neg)
    assert delong_variance(s, y) == pytest.approx(want, rel=1e-12)


def test_auc_interval_by_hand():
    # 2 true (0.9, 0.4), 2 false (0.5, 0.4): ψ = [[1, 1], [0, ½]], V10 = (1, ¼), V01 = (½, ¾);
    # s²(V10) = 0.28125, s²(V01) = 0.03125 → Var = 0.28125/2 + 0.03125/2 = 0.15625; AUC 0.625
    s, y = [0.9, 0.4, 0.5, 0.4], [True, True, False, False]
    assert delong_variance(s, y) == pytest.approx(0.15625)
    auc, low, high, why = auc_interval(s, y)
    from scipy.special import expit, logit

    spread = 1.959963984540054 * np.sqrt(0.15625) / (0.625 * 0.375)
    assert (auc, why) == (0.625, None)
    assert (low, high) == pytest.approx((expit(logit(0.625) - spread), expit(logit(0.625) + spread)))


def test_one_class_has_no_auc():
    auc, low, high, why = auc_interval([0.1, 0.2], [True, True])
    assert np.isnan(auc) and np.isnan(low) and why


def test_roc_points_are_sklearns():
    s, y = _sample(1, ties=True)
    fpr, tpr, _ = roc_curve(y, s, drop_intermediate=False)
    got = roc_points(s, y, most=10_000)
    assert np.allclose(got["fpr"], fpr) and np.allclose(got["tpr"], tpr)


@pytest.mark.parametrize("bins", [5, 10])
def test_reliability_ece_and_brier_are_sklearns(bins):
    rng = np.random.default_rng(7)
    p = rng.beta(2, 2, 400)
    y = rng.random(400) < p**1.5
    table = reliability_table(p, y, bins=bins)
    share, mean = calibration_curve(y, p, n_bins=bins, strategy="uniform")
    assert np.allclose(table["share_true"], share) and np.allclose(table["mean_predicted"], mean)
    assert brier_score(p, y) == pytest.approx(brier_score_loss(y, p))
    # ECE from sklearn's curve and the bin counts (np.histogram over the same edges, right-closed last bin)
    counts = np.histogram(p, bins=np.linspace(0, 1, bins + 1))[0]
    counts = counts[counts > 0]
    assert expected_calibration_error(p, y, bins=bins) == pytest.approx(
        np.sum(counts / 400 * np.abs(share - mean))
    )


def _labels(scores, calibrated=None, source="logprobs"):
    n = len(scores)
    judge = pd.DataFrame({
        "item_id": [f"i{k}" for k in range(n)], "rater": "j", "rater_type": "judge",
        "label": ["true" if (s != "" and float(s) >= 0.5) else "false" for s in scores],
        "score": scores, "score_source": source,
    })  # fmt: skip
    if calibrated is not None:
        judge["calibrated"] = calibrated
    return judge


def test_audit_leaves_unknown_scores_out_and_counts_them():
    rng = np.random.default_rng(0)
    truth = rng.random(60) < 0.5
    scores = np.clip(np.where(truth, 0.7, 0.3) + rng.normal(0, 0.2, 60), 0, 1)
    text = [f"{v:.4f}" for v in scores]
    text[:7] = [""] * 7  # unknown: left out and counted, never 0
    human = pd.DataFrame({"item_id": [f"i{k}" for k in range(60)], "rater": "h", "rater_type": "human",
                          "label": np.where(truth, "true", "false")})  # fmt: skip
    result = judge_audit(_labels(text), human, by=(), scores=True, n_boot=0)
    row = result.rows[0]
    assert (row["n_scored"], row["n_no_score"]) == (53, 7)
    assert row["auc"]["value"] == pytest.approx(roc_auc_score(truth[7:], scores[7:]), abs=1e-4)
    assert row["brier"] == pytest.approx(brier_score_loss(truth[7:], np.round(scores[7:], 4)))
    assert row["calibration_source"] == "score" and row["cv_threshold"]["reason"] is None
    # a similarity with no calibration has no probability: ECE and Brier are unknown, with a reason
    sim = judge_audit(_labels(text, source="similarity"), human, by=(), scores=True, n_boot=0).rows[0]
    assert np.isnan(sim["brier"]) and np.isnan(sim["ece"]) and sim["calibration_reason"]
    assert sim["auc"]["value"] == row["auc"]["value"]
    flat = result.table()
    assert {"auc", "auc_low", "auc_high", "cv_threshold", "cv_sensitivity"} <= set(flat.columns)


@pytest.mark.slow
def test_auc_interval_covers_in_small_samples():
    # 3 designs (n, true share, separation → AUC ≈ 0.64, 0.76, 0.92), 600 samples each: the
    # logit DeLong interval covers the true AUC Φ(shift/√2) in ≥ 93 % of each
    from scipy.stats import norm

    for n, share, shift in ((40, 0.5, 0.5), (60, 0.8, 1.0), (100, 0.3, 2.0)):
        truth_auc = norm.cdf(shift / np.sqrt(2))
        rng = np.random.default_rng([n, int(10 * shift)])
        hits = total = 0
        for _ in range(600):
            y = rng.random(n) < share
            if y.sum() < 2 or (~y).sum() < 2:
                continue
            s = rng.normal(np.where(y, shift, 0.0), 1.0)
            _, low, high, _ = auc_interval(s, y)
            hits += low <= truth_auc <= high
            total += 1
        assert hits / total >= 0.93, (n, share, shift, hits / total)
