"""Weighted Cohen's κ, its standard error and test, the weight families and user matrices.

Sources (numbers copied, with the data): scikit-learn's ``test_cohen_kappa`` (weights none,
linear, quadratic); statsmodels' ``test_inter_rater.py`` (a SAS printout of simple and weighted
κ with ASE, interval and the test under H0, and R irr ``kappa2`` values it transcribes); the
tests of R irr's Python port pyirr (``kappa2``); irrCAC's README (``kappa2.table``) and its
Python port's table tests (Cohen's κ with every weight family) and weight tests.

Where the toolkit's definition differs on purpose, both values are pinned:

* the test of κ = 0: the toolkit divides κ by its large-sample SE (Fleiss, Cohen & Everitt
  1969; Gwet), one SE for the interval and the test; SAS, statsmodels and irr divide by the SE
  under H0. :func:`null_se` writes that variance out to reproduce their z.
* the interval: the toolkit's Wald interval uses Student's t on n - 1 degrees of freedom
  (irrCAC), SAS the normal quantile.
* irr's "equal" / "squared" weights use the positions of the levels present; the toolkit's
  linear / quadratic weights use the category values when the categories are numbers (irrCAC).
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import norm
from scipy.stats import t as student

from wordplay_audit.analysis.agreement import (
    cohen_kappa,
    cohen_kappa_se,
    conger_kappa,
    fleiss_kappa,
    pairwise_agreement,
    pairwise_kappa,
    weight_matrix,
)
from wordplay_audit.errors import InputError, ParameterError

from .published import ANXIETY, CONT3X3ABSTRACTORS, CONT4X4DIAGNOSIS, DIAGNOSES, table_labels, to_labels


def null_se(table: np.ndarray, w: np.ndarray) -> float:
    """SE of (weighted) κ under H0: κ = 0 (Fleiss, Cohen & Everitt 1969), as SAS and R irr:
    :math:`[\\sum_{ij} p_{i.}p_{.j}(w_{ij} - (\\bar w_{i.} + \\bar w_{.j}))^2 - p_e^2] / (n(1-p_e)^2)`."""
    n = table.sum()
    rows, cols = table.sum(axis=1) / n, table.sum(axis=0) / n
    p_e = rows @ w @ cols
    w_row, w_col = w @ cols, w.T @ rows
    inner = (np.outer(rows, cols) * (w - (w_row[:, None] + w_col[None, :])) ** 2).sum()
    return float(np.sqrt((inner - p_e**2) / (n * (1 - p_e) ** 2)))


def test_sklearn_weighting_example():
    # scikit-learn test_cohen_kappa: Artstein & Poesio style example, 0.9315 / 0.9412 / 0.9541
    y1 = np.array([0] * 46 + [1] * 44 + [2] * 10)
    y2 = np.array([0] * 50 + [1] * 40 + [2] * 10)
    table = np.array([[((y1 == a) & (y2 == b)).sum() for b in range(3)] for a in range(3)])
    cats = ["0", "1", "2"]
    assert float(cohen_kappa(table)) == pytest.approx(0.9315, abs=5e-5)
    assert float(cohen_kappa(table, weight_matrix("linear", cats).matrix)) == pytest.approx(0.9412, abs=5e-5)
    assert float(cohen_kappa(table, weight_matrix("quadratic", cats).matrix)) == pytest.approx(
        0.9541, abs=5e-5
    )


SAS_TABLE = np.array([[0, 4, 1], [0, 8, 0], [0, 1, 5]])  # statsmodels' table10


@pytest.mark.parametrize(
    ("weights", "kappa", "ase", "low", "high", "ase0", "z0"),
    [
        (None, 0.4842, 0.1380, 0.2137, 0.7547, 0.1484, 3.2626),  # simple κ
        ("linear", 0.4701, 0.1457, 0.1845, 0.7558, 0.1426, 3.2971),  # scores 0, 1, 2
    ],
)
def test_sas_printout_in_statsmodels(weights, kappa, ase, low, high, ase0, z0):
    w = np.eye(3) if weights is None else weight_matrix(weights, ["0", "1", "2"]).matrix
    value, se = float(cohen_kappa(SAS_TABLE, w)), float(cohen_kappa_se(SAS_TABLE, w))
    assert value == pytest.approx(kappa, abs=5e-5) and se == pytest.approx(ase, abs=5e-5)
    # SAS's interval is the normal one around the same SE; the toolkit's uses t on n - 1 = 18
    assert value - norm.ppf(0.975) * se == pytest.approx(low, abs=5e-5)
    assert value + norm.ppf(0.975) * se == pytest.approx(high, abs=5e-5)
    test = pairwise_kappa(pairwise_agreement(table_labels(SAS_TABLE, ["0", "1", "2"])), w)
    assert test.ci_low.iat[0, 1] == pytest.approx(value - student.ppf(0.975, 18) * se, abs=1e-12)
    # SAS's test divides by the SE under H0; the toolkit's z by the large-sample SE
    assert null_se(SAS_TABLE, w) == pytest.approx(ase0, abs=5e-5)
    assert value / null_se(SAS_TABLE, w) == pytest.approx(z0, abs=5e-4)
    assert test.z.iat[0, 1] == pytest.approx(value / se, abs=1e-12)
    assert test.p_value.iat[0, 1] == pytest.approx(2 * student.sf(value / se, 18), abs=1e-12)


def _irr_weights(scores: list[float]) -> np.ndarray:
    """irr ``kappa2(ratings, weight = <vector>)``: agreement 1 - (v_d - min)/(max - min) at
    level distance d (a Toeplitz matrix over the levels present)."""
    v = np.asarray(scores, dtype=float)
    agree = 1 - (v - v.min()) / (v.max() - v.min())
    q = len(v)
    return np.array([[agree[abs(i - j)] for j in range(q)] for i in range(q)])


def _irr_table(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, list[str]]:
    levels = sorted(set(a) | set(b))
    table = np.array([[((a == x) & (b == y)).sum() for y in levels] for x in levels])
    return table, [str(int(x)) for x in levels]


# R irr kappa2 on `anxiety` as statsmodels transcribes it (value, z under H0)
IRR_KAPPA2 = [
    ((0, 1), [0, 0, 0, 1, 1, 1], 0.1891892, 0.5079002),
    ((0, 1), [0, 0, 1, 1, 2, 2], 0.2820513, 1.257410),
    ((1, 2), None, -0.006289308, -0.0604067),
    ((1, 2), [0, 1, 2, 3, 4], 0.1459075, 1.282472),  # "equal": positions of the 5 levels present
    ((1, 2), [0, 1, 4, 9, 16], 0.2520325, 1.437451),  # "squared"
    ((1, 2), [0, 0, 1, 1, 2], 0.2391304, 1.223734),
]


@pytest.mark.parametrize(("columns", "scores", "value", "z0"), IRR_KAPPA2)
def test_irr_kappa2_on_anxiety(columns, scores, value, z0):
    a, b = ANXIETY[:, columns[0]], ANXIETY[:, columns[1]]
    table, levels = _irr_table(a, b)
    w = np.eye(len(levels)) if scores is None else _irr_weights(scores)
    assert float(cohen_kappa(table, w)) == pytest.approx(value, abs=5e-8)
    assert value / null_se(table, w) == pytest.approx(z0, abs=5e-6)
    # the same κ through the labels, as conger_kappa (two raters) with that user matrix
    labels = to_labels(np.column_stack([a, b]))
    assert conger_kappa(labels, weights=w) == pytest.approx(value, abs=5e-8)


def test_irr_equal_weights_are_positions_the_toolkit_uses_values():
    # anxiety[, 2:3] uses levels 1, 2, 3, 4, 6: irr's "equal" weights step 1/4 per level, the
    # toolkit's (irrCAC's) linear weights step by value over the range 1..6
    labels = to_labels(ANXIETY[:, 1:])
    by_value = conger_kappa(labels, weights="linear")
    assert by_value != pytest.approx(0.1459075, abs=1e-3)
    table, levels = _irr_table(ANXIETY[:, 1], ANXIETY[:, 2])
    assert by_value == pytest.approx(
        float(cohen_kappa(table, weight_matrix("linear", levels).matrix)), abs=1e-12
    )


def test_pyirr_kappa2():
    # pyirr tests/test_kappa2.py (R irr kappa2): anxiety[, 1:2] "squared" 0.297, z 1.34,
    # p 0.180; diagnoses[, 2:3] unweighted 0.631, z 7.560
    table, levels = _irr_table(ANXIETY[:, 0], ANXIETY[:, 1])
    w = weight_matrix("quadratic", levels).matrix  # levels 1..6 all present: values = positions
    assert float(cohen_kappa(table, w)) == pytest.approx(0.297, abs=5e-4)
    z0 = float(cohen_kappa(table, w)) / null_se(table, w)
    assert z0 == pytest.approx(1.34, abs=5e-3) and 2 * norm.sf(z0) == pytest.approx(0.180, abs=5e-4)
    table, _ = _irr_table(DIAGNOSES[:, 1], DIAGNOSES[:, 2])
    assert float(cohen_kappa(table)) == pytest.approx(0.631, abs=5e-4)
    assert float(cohen_kappa(table)) / null_se(table, np.eye(len(table))) == pytest.approx(7.560, abs=5e-4)


def test_irrcac_readme_kappa2_table():
    # kappa2.table(cont3x3abstractors): 0.7964094, SE 0.05891072, (0.68, 0.913)
    assert float(cohen_kappa(CONT3X3ABSTRACTORS)) == pytest.approx(0.7964094, abs=5e-8)
    assert float(cohen_kappa_se(CONT3X3ABSTRACTORS)) == pytest.approx(0.05891072, abs=5e-9)


CUSTOM4 = np.array(
    [[1.00, 0.67, 0.33, 0.00], [0.00, 1.00, 0.67, 0.33], [0.00, 0.00, 1.00, 0.67], [0.33, 0.00, 0.00, 1.00]]
)
# irrCAC's Python port, test/unit/irrCAC/table/test_cohen.py: (table, weights, κ, se, ci)
PORT_COHEN = [
    ("3x3", "identity", 0.796, None, 0.68, 0.913),
    ("3x3", "bipolar", 0.872, None, 0.791, 0.953),
    ("3x3", "circular", 0.796, None, 0.68, 0.913),
    ("3x3", "linear", 0.843, None, 0.748, 0.938),
    ("3x3", "ordinal", 0.872, None, 0.791, 0.953),
    ("3x3", "quadratic", 0.892, None, 0.822, 0.962),
    ("3x3", "radical", 0.819, None, 0.712, 0.925),
    ("3x3", "ratio", 0.927, None, 0.876, 0.977),
    ("4x4", "identity", 0.432, 0.046, 0.341, 0.522),
    ("4x4", "bipolar", 0.387, 0.061, 0.267, 0.507),
    ("4x4", "circular", 0.446, 0.049, 0.350, 0.542),
    ("4x4", "linear", 0.407, 0.053, 0.302, 0.512),
    ("4x4", "ordinal", 0.390, 0.062, 0.269, 0.512),
    ("4x4", "quadratic", 0.383, 0.066, 0.254, 0.513),
    ("4x4", "radical", 0.419, 0.048, 0.324, 0.515),
    ("4x4", "ratio", 0.413, 0.063, 0.288, 0.538),
    ("4x4", "custom", 0.439, 0.05, 0.34, 0.538),
]


@pytest.mark.parametrize(("which", "weights", "kappa", "se", "low", "high"), PORT_COHEN)
def test_irrcac_port_cohen_tables(which, weights, kappa, se, low, high):
    # names, not numbers: the weights use the positions 1..q, as irrCAC for text categories
    table, names = (
        (CONT3X3ABSTRACTORS, ["Ectopic", "AIU", "NIU"])
        if which == "3x3"
        else (CONT4X4DIAGNOSIS, ["Schizophrenia", "Bipolar", "Depression", "Other"])
    )
    w = CUSTOM4 if weights == "custom" else weight_matrix(weights, names).matrix
    result = pairwise_kappa(pairwise_agreement(table_labels(table, names), categories=names), w)
    assert result.kappa.iat[0, 1] == pytest.approx(kappa, abs=5e-4)
    if se is not None:
        assert result.se.iat[0, 1] == pytest.approx(se, abs=5e-4)
    if weights == "custom":
        # not symmetric: the port's variance sums the weights over the other index than R's
        # kappa2.table (Σ_k w_kl p_.k for R's Σ_l w_kl p_.l); the toolkit follows R, and its
        # interval then differs from the port's in the third digit (0.341 for 0.34)
        return
    assert result.ci_low.iat[0, 1] == pytest.approx(low, abs=5e-4)
    assert result.ci_high.iat[0, 1] == pytest.approx(high, abs=5e-4)


# irrCAC's Python port, test/unit/irrCAC/weights/test_weights.py: categories 1, 2, 3
PORT_WEIGHTS = {
    "identity": [[1, 0, 0], [0, 1, 0], [0, 0, 1]],
    "bipolar": [[1, 0.667, 0], [0.667, 1, 0.667], [0, 0.667, 1]],
    "circular": [[1, 0, 0], [0, 1, 0], [0, 0, 1]],
    "linear": [[1, 0.5, 0], [0.5, 1, 0.5], [0, 0.5, 1]],
    "ordinal": [[1, 0.667, 0], [0.667, 1, 0.667], [0, 0.667, 1]],
    "quadratic": [[1, 0.75, 0], [0.75, 1, 0.75], [0, 0.75, 1]],
    "radical": [[1, 0.293, 0], [0.293, 1, 0.293], [0, 0.293, 1]],
    "ratio": [[1, 0.556, 0], [0.556, 1, 0.84], [0, 0.84, 1]],
}


@pytest.mark.parametrize("name", list(PORT_WEIGHTS))
def test_weight_families(name):
    np.testing.assert_array_equal(
        np.round(weight_matrix(name, ["1", "2", "3"]).matrix, 3), PORT_WEIGHTS[name]
    )


def test_identity_weights_give_the_unweighted_coefficients():
    labels = to_labels(DIAGNOSES)
    assert fleiss_kappa(labels, weights="identity") == pytest.approx(fleiss_kappa(labels), abs=1e-15)


def test_user_matrix_from_a_dataframe_or_a_file_is_matched_by_name(tmp_path):
    import pandas as pd

    cats = ["1", "2", "3"]
    w = weight_matrix("quadratic", cats).matrix
    shuffled = pd.DataFrame(w, index=cats, columns=cats).loc[["3", "1", "2"], ["2", "3", "1"]]
    np.testing.assert_array_equal(weight_matrix(shuffled, cats).matrix, w)
    path = tmp_path / "w.csv"
    shuffled.rename_axis("category").to_csv(path)
    result = weight_matrix(str(path), cats)
    np.testing.assert_allclose(result.matrix, w, atol=1e-15)
    assert result.name == str(path)


@pytest.mark.parametrize(
    ("weights", "message"),
    [
        (
            "cubic",
            "weights: expected one of identity, linear, quadratic, ordinal, radical, ratio, circular, bipolar",
        ),
        (np.eye(2), r"weights: expected a 3×3 matrix"),
        (np.array([[1, 0.5, 0], [0.5, 0.9, 0.5], [0, 0.5, 1]]), "weights: the diagonal must be 1"),
        (
            np.array([[1, 1.5, 0], [0.5, 1, 0.5], [0, 0.5, 1]]),
            "weights: weights must be numbers between 0 and 1",
        ),
        ([["a"]], "weights: expected one of"),
    ],
)
def test_bad_weights_name_the_parameter(weights, message):
    with pytest.raises(ParameterError, match=message):
        weight_matrix(weights, ["1", "2", "3"])


def test_bad_weight_files_name_the_file_and_line(tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("category,1,2,3\n1,1,0.5,0\n2,0.5,one,0.5\n3,0,0.5,1\n")
    with pytest.raises(InputError, match=r"bad\.csv line 3: weight for '2' is not a number \('one'\)"):
        weight_matrix(str(bad), ["1", "2", "3"])
    short = tmp_path / "short.csv"
    short.write_text("category,1,2\n1,1,0.5\n2,0.5,1\n")
    with pytest.raises(InputError, match=r"short\.csv: rows name \['1', '2'\], expected each category once"):
        weight_matrix(str(short), ["1", "2", "3"])
    with pytest.raises(ParameterError, match="weights: 'ratio' needs category values ≥ 0"):
        weight_matrix("ratio", ["-1", "0", "1"])
