"""A judge's score against people's graded labels: point values from scipy and pingouin on the
same pairs, the Fisher-z intervals' coverage of the bivariate-normal truth (Spearman's
:math:`\\rho_s = \\frac{6}{\\pi}\\arcsin(\\rho/2)`, Kendall's :math:`\\tau = \\frac{2}{\\pi}\\arcsin\\rho`)
with a fixed seed, and the wiring into the agreement result."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from wordplay_audit.analysis.agreement import BootstrapOptions, agreement, icc
from wordplay_audit.analysis.agreement.judge_scores import judge_score_agreement, rank_correlation


def campaign(n: int = 40, seed: int = 0) -> pd.DataFrame:
    """Three people rate 1–5; judge ``p`` gives a probability (score), judge ``g`` a 1–5 label."""
    rng = np.random.default_rng(seed)
    latent = rng.normal(size=n)
    rows = []
    for i in range(n):
        for r in range(3):
            grade = int(np.clip(np.round(3 + latent[i] + rng.normal(scale=0.7)), 1, 5))
            rows.append((f"i{i}", f"person{r}", "human", str(grade), ""))
        rows.append((f"i{i}", "p", "judge", "true", f"{1 / (1 + np.exp(-2 * latent[i] + rng.normal())):.4f}"))
        rows.append(
            (f"i{i}", "g", "judge", str(int(np.clip(np.round(3 + latent[i] + rng.normal()), 1, 5))), "")
        )
    return pd.DataFrame(rows, columns=["item_id", "rater", "rater_type", "label", "score"])


def pairs(labels: pd.DataFrame, judge: str, column: str) -> tuple[np.ndarray, np.ndarray]:
    people = labels[labels.rater_type == "human"].assign(y=lambda f: f.label.astype(float))
    mean = people.groupby("item_id")["y"].mean()
    rows = labels[labels.rater == judge]
    return rows[column].astype(float).to_numpy(), mean.loc[rows.item_id].to_numpy()


def test_point_values_are_scipys_on_the_same_pairs():
    labels = campaign()
    found, reason = judge_score_agreement(labels)
    assert reason is None and set(found) == {"g", "p"}
    x, y = pairs(labels, "p", "score")
    assert found["p"].source == "score" and found["p"].n_items == 40
    assert found["p"].spearman["value"] == pytest.approx(stats.spearmanr(x, y).statistic, rel=1e-12)
    assert found["p"].kendall_tau["value"] == pytest.approx(stats.kendalltau(x, y).statistic, rel=1e-12)
    assert found["p"].icc is None and "own scale" in found["p"].icc_reason


def test_a_judge_on_the_people_scale_gets_icc_of_judge_and_people_mean():
    labels = campaign()
    found, _ = judge_score_agreement(labels)
    x, y = pairs(labels, "g", "label")
    expected = icc(np.column_stack([x, y]), forms=["ICC2", "ICC3"])
    assert found["g"].source == "label"
    assert found["g"].icc["ICC2"]["value"] == pytest.approx(expected["ICC2"].value, rel=1e-12)
    assert found["g"].icc["ICC3"]["ci_low"] == pytest.approx(expected["ICC3"].ci_low, rel=1e-12)


@pytest.mark.parametrize(("method", "n", "rho"), [("spearman", 30, 0.3), ("spearman", 80, 0.7),
                                                  ("kendall", 30, 0.7), ("kendall", 80, 0.3)])  # fmt: skip
def test_fisher_z_intervals_cover_the_bivariate_normal_truth(method, n, rho):
    rng = np.random.default_rng(11)
    truth = 6 / np.pi * np.arcsin(rho / 2) if method == "spearman" else 2 / np.pi * np.arcsin(rho)
    reps, hits = 400, 0
    for _ in range(reps):
        x = rng.normal(size=n)
        y = rho * x + np.sqrt(1 - rho**2) * rng.normal(size=n)
        c = rank_correlation(x, y, method=method)
        hits += c["ci_low"] <= truth <= c["ci_high"]
    assert hits / reps >= 0.93  # Monte Carlo SE 1.1 points at 400 replications


def test_undefined_and_absent_cases_have_reasons():
    assert rank_correlation(np.arange(3.0), np.arange(3.0), method="spearman")["reason"].startswith("3 items")
    flat = rank_correlation(np.ones(10), np.arange(10.0), method="kendall")
    assert flat["value"] is None and "same number" in flat["reason"]
    people_only = campaign()[lambda f: f.rater_type == "human"]
    assert judge_score_agreement(people_only) == ({}, "needs rows of both people (human) and a judge")


def test_in_the_agreement_result():
    out = agreement(campaign(), bootstrap=BootstrapOptions(n_boot=0)).to_dict()
    assert set(out["judge_scores"]) == {"g", "p"}
    assert out["judge_scores"]["p"]["spearman"]["ci_low"] < out["judge_scores"]["p"]["spearman"]["value"]
    assert out["raters"] == 3  # the judges are compared, not counted as raters
