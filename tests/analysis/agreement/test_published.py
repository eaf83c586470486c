"""Published worked examples and hand calculations for the agreement statistics."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from wordplay_audit.analysis.agreement import (
    BootstrapOptions,
    agreement,
    fleiss_kappa,
    fleiss_kappa_se,
    gwet_ac1,
    gwet_ac1_se,
    krippendorff_alpha,
    per_category_kappa,
    percent_agreement,
)

# Wikipedia, "Fleiss' kappa", worked example: 10 subjects, 14 raters, 5 categories, κ = 0.210.
WIKIPEDIA = np.array(
    [
        [0, 0, 0, 0, 14],
        [0, 2, 6, 4, 2],
        [0, 0, 3, 5, 6],
        [0, 3, 9, 2, 0],
        [2, 2, 8, 1, 1],
        [7, 7, 0, 0, 0],
        [3, 2, 6, 3, 0],
        [2, 5, 3, 2, 2],
        [6, 5, 2, 1, 0],
        [0, 2, 2, 3, 7],
    ]
)

# Krippendorff (2011), "Computing Krippendorff's alpha-reliability", section C: 4 observers,
# 12 units, values 1–5, missing data (nan). Published: nominal α = 0.743, ordinal 0.815,
# interval 0.849, ratio 0.797.
NAN = np.nan
KRIPPENDORFF_2011 = np.array(
    [
        [1, 2, 3, 3, 2, 1, 4, 1, 2, NAN, NAN, NAN],
        [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, NAN, 3],
        [NAN, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, NAN],
        [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, NAN],
    ]
)


def reliability_to_long(matrix: np.ndarray) -> pd.DataFrame:
    """Observers × units matrix (nan = missing) → contract labels table."""
    rows = [
        {
            "item_id": f"u{u + 1:02d}",
            "rater": f"obs{o}",
            "rater_type": "human",
            "label": str(int(v)),
        }
        for o, line in enumerate(matrix)
        for u, v in enumerate(line)
        if not math.isnan(v)
    ]
    return pd.DataFrame(rows)


def test_fleiss_1971_overall(fleiss_1971):  # Table 1 (fixture in conftest.py)
    # Fleiss (1971) p. 380: P̄ = .556, P̄e = .220, κ = .430
    assert fleiss_1971.sum(axis=1).tolist() == [6] * 30
    assert percent_agreement(fleiss_1971) == pytest.approx(0.556, abs=5e-4)
    assert fleiss_kappa(fleiss_1971) == pytest.approx(0.430, abs=5e-4)


def test_fleiss_1971_per_category(fleiss_1971):
    # Fleiss (1971) p. 380: p_j = .144, .144, .167, .306, .239 and
    # κ_j = .245, .245, .520, .471, .566 (eq. 13 per category)
    table = per_category_kappa(fleiss_1971, categories=["dep", "pers", "schiz", "neur", "other"])
    assert table["prevalence"].to_numpy() == pytest.approx([0.144, 0.144, 0.167, 0.306, 0.239], abs=5e-4)
    assert table["kappa"].to_numpy() == pytest.approx([0.245, 0.245, 0.520, 0.471, 0.566], abs=5e-4)
    # schizophrenia by hand: the column holds 4, 4, 4, 3, 3, 5, 2, 5 (else 0), so
    # p_3 = 30/180 = 1/6 and Σ_i n_i3 (6 - n_i3) = 8+8+8+9+9+5+8+5 = 60;
    # κ_3 = 1 - 60 / (N m (m-1) p_3 q_3) = 1 - 60 / (30·6·5·(1/6)(5/6)) = 1 - 60/125 = 0.52.
    assert table.loc["schiz", "kappa"] == pytest.approx(1 - 60 / 125, abs=1e-12)


def test_wikipedia_fleiss_example():
    # Wikipedia: P̄ = 0.378, P̄e = 0.213, κ = 0.210
    assert percent_agreement(WIKIPEDIA) == pytest.approx(0.378, abs=5e-4)
    assert fleiss_kappa(WIKIPEDIA) == pytest.approx(0.210, abs=5e-4)


@pytest.mark.parametrize(
    ("level", "published"),
    [("nominal", 0.743), ("ordinal", 0.815), ("interval", 0.849), ("ratio", 0.797)],
)
def test_krippendorff_2011_worked_example(level, published):
    labels = reliability_to_long(KRIPPENDORFF_2011)
    value = krippendorff_alpha(labels, level=level, categories=["1", "2", "3", "4", "5"])
    assert value == pytest.approx(published, abs=5e-4)


def test_krippendorff_2011_nominal_by_hand():
    # Krippendorff (2011) C: pairable value totals n_1..n_5 = 9, 13, 10, 5, 3 (n = 40; unit 12
    # has one value and is left out); α = 1 - (n - 1)(n - Σ_c o_cc) / (n² - Σ n_c²) with the
    # diagonal of the coincidence matrix summed over units below.
    labels = reliability_to_long(KRIPPENDORFF_2011)
    n_c = np.array([9, 13, 10, 5, 3])
    n = n_c.sum()
    # per unit Σ_c n_uc(n_uc - 1)/(m_u - 1):
    # u1 (1,1,1): 3·2/2 = 3; u2 (2,3,2,2): 3·2/3 = 2; u3, u4 (3×4): 4·3/3 = 4 each; u5 (2×4): 4;
    # u6 (1,2,3,4): 0; u7 (4×4): 4; u8 (1,2,1,1): 3·2/3 = 2; u9 (2×4): 4; u10 (5,5,5): 3·2/2 = 3;
    # u11 (1,1): 2·1/1 = 2
    diag = 3 + 2 + 4 + 4 + 4 + 0 + 4 + 2 + 4 + 3 + 2  # = 32 → α = 1 - 39·8/1216 = 0.7434
    expected = 1 - (n - 1) * (n - diag) / (n**2 - (n_c**2).sum())
    assert expected == pytest.approx(0.743, abs=5e-4)
    assert krippendorff_alpha(labels) == pytest.approx(expected, abs=1e-12)
    result = agreement(labels, bootstrap=BootstrapOptions(n_boot=0))
    assert result.n_items == 12 and result.n_items_single == 1 and result.n_items_used == 11


# Hand example for Gwet's AC1 and both linearisation SEs: 4 items, 3 raters, 2 categories.
HAND = np.array([[3, 0], [2, 1], [0, 3], [3, 0]])


def test_gwet_ac1_by_hand():
    # a_i = Σ n(n-1)/(3·2): 1, 1/3, 1, 1  → p_a = 10/12 = 5/6
    # π = mean(n_i/3) = (1 + 2/3 + 0 + 1)/4 = 2/3, 1/3
    # p_e(AC1) = Σ π(1-π)/(q-1) = 2·(2/9) = 4/9 → AC1 = (5/6 - 4/9)/(5/9) = 7/10
    assert gwet_ac1(HAND) == pytest.approx(0.7, abs=1e-12)
    # p_e(κ) = 4/9 + 1/9 = 5/9 → κ = (5/6 - 5/9)/(4/9) = 5/8
    assert fleiss_kappa(HAND) == pytest.approx(0.625, abs=1e-12)


def test_gwet_ac1_se_by_hand():
    # θ_i = (a_i - 4/9)/(5/9): 1, -1/5, 1, 1
    # p_e|i = Σ_k (n_ik/3)(1 - π_k)/(q-1): (3,0) → 1/3, (2,1) → 4/9, (0,3) → 2/3
    # θ*_i = θ_i - 2(1 - 0.7)(p_e|i - 4/9)/(5/9) = θ_i - 1.08 (p_e|i - 4/9)
    #      = 1.12, -0.2, 0.76, 1.12 (mean 0.7 = AC1)
    # Var = Σ(θ*_i - 0.7)² / (n(n-1)) = (0.1764 + 0.81 + 0.0036 + 0.1764)/12 = 0.0972
    assert gwet_ac1_se(HAND) == pytest.approx(math.sqrt(0.0972), abs=1e-12)


def test_fleiss_kappa_se_by_hand():
    # κ_i = (a_i - 5/9)/(4/9): 1, -1/2, 1, 1;  p_e|i = Σ_k (n_ik/3) π_k: 2/3, 5/9, 1/3
    # κ*_i = κ_i - 2(1 - 5/8)(p_e|i - 5/9)/(4/9) = κ_i - (27/16)(p_e|i - 5/9)
    #      = 13/16, -1/2, 11/8, 13/16 (mean 5/8)
    # Var = (0.1875² + 1.125² + 0.75² + 0.1875²)/12 = 1.8984375/12
    assert fleiss_kappa_se(HAND) == pytest.approx(math.sqrt(1.8984375 / 12), abs=1e-12)


def test_kappa_paradox_is_visible():
    # 100 items, 2 raters, 95 agree on "a", 3 disagree, 2 agree on "b": raw agreement .97,
    # but κ is much lower than AC1 and PABAK because "a" is 96 % of ratings.
    rows = []
    for i in range(100):
        first, second = ("a", "a") if i < 95 else ("a", "b") if i < 98 else ("b", "b")
        rows += [(f"i{i}", "r1", "human", first), (f"i{i}", "r2", "human", second)]
    labels = pd.DataFrame(rows, columns=["item_id", "rater", "rater_type", "label"])
    result = agreement(labels, bootstrap=BootstrapOptions(n_boot=0))
    assert result.percent_agreement == pytest.approx(0.97)
    # π_a = (95·2 + 3)/200 = 0.965, π_b = 0.035: p_e = 0.965² + 0.035² = 0.93245
    assert result.fleiss_kappa.value == pytest.approx((0.97 - 0.93245) / (1 - 0.93245), abs=1e-12)
    # AC1: p_e = 2·0.965·0.035 = 0.06755
    assert result.gwet_ac1.value == pytest.approx((0.97 - 0.06755) / (1 - 0.06755), abs=1e-12)
    assert result.pabak == pytest.approx(2 * 0.97 - 1)
    # prevalence index for two categories = |π_a - π_b|
    assert result.prevalence_index == pytest.approx(0.93)
    # bias index for the one pair: |b - c|/n = 3/100
    assert result.bias_index == pytest.approx(0.03)
