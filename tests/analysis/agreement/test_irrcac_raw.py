"""Many-rater coefficients against Gwet's published values: R irrCAC's README (five digits) and
the unit tests of irrCAC's Python port (three digits; p-values to five decimals).

Sources (copied numbers, not code): README.md of github.com/kgwet/irrCAC (``pa.coeff.raw``,
``gwet.ac1.raw``, ``fleiss.kappa.raw``, ``krippen.alpha.raw``, ``conger.kappa.raw``,
``bp.coeff.raw`` on ``cac.raw4raters``) and test/unit/irrCAC/raw/test_*.py of
github.com/afergadis/irrCAC. Data sets in :mod:`.published`.

Conventions that differ between the sources, and what the toolkit does:

* p-values: R prints the one-sided :math:`1 - F_t(z)`; the port prints the two-sided p for
  Fleiss, Gwet and Conger and the one-sided one for Brennan–Prediger. The toolkit's
  ``p_value`` is two-sided: it is compared with R's and the port's Brennan–Prediger one ×2.
* Krippendorff's α: R's t quantile and p use n − 1 degrees of freedom with n all subjects,
  the port n′ − 1 with n′ the subjects rated twice or more, and the port's SE differs from R's
  (see ``ALPHA``). The toolkit follows R; both intervals are pinned below.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import t as student

from wordplay_audit.analysis.agreement import BootstrapOptions, bootstrap_intervals, percent_agreement

from .published import BEN_GERRY, RAW4RATERS, RAW5OBSERVERS, RAW_G1G2, RAW_GENDER, letters, to_labels

DATA = {
    "raw_4raters": to_labels(RAW4RATERS),
    "raw_5observers": to_labels(RAW5OBSERVERS),
    "raw_g1g2": to_labels(letters(RAW_G1G2)),
    "raw_gender": to_labels(letters(RAW_GENDER)),
    "raw_ben_gerry": to_labels(letters(BEN_GERRY)),
}
# the port's "custom" weights (test/unit/irrCAC/raw/test_*.py), not symmetric
CUSTOM = np.array(
    [
        [1.00, 0.75, 0.50, 0.25, 0.00],
        [0.00, 1.00, 0.75, 0.50, 0.25],
        [0.25, 0.00, 1.00, 0.75, 0.50],
        [0.50, 0.25, 0.00, 1.00, 0.75],
        [0.75, 0.50, 0.25, 0.00, 1.00],
    ]
)
STATISTIC = {
    ("fleiss", False): "fleiss_kappa",
    ("fleiss", True): "fleiss_kappa_weighted",
    ("gwet", False): "gwet_ac1",
    ("gwet", True): "gwet_ac2",
    ("bp", False): "brennan_prediger",
    ("bp", True): "brennan_prediger_weighted",
    ("conger", False): "conger_kappa",
    ("conger", True): "conger_kappa_weighted",
}


def estimate(dataset: str, statistic: str, weights=None):
    return bootstrap_intervals(
        DATA[dataset], statistics=(statistic,), weights=weights, bootstrap=BootstrapOptions(n_boot=0)
    )[statistic]


def close(ours: float, published: float, digits: int) -> bool:
    return abs(ours - published) <= 0.5 * 10.0**-digits + 1e-12


# R irrCAC README, cac.raw4raters: (value, se, conf.int, one-sided p.value) as printed
README = {
    "percent_agreement": (0.8181818, 0.12561, (0.542, 1), 2.172686e-05),
    "gwet_ac1": (0.77544, 0.14295, (0.461, 1), 0.0001043605),
    "fleiss_kappa": (0.76117, 0.15302, (0.424, 1), 0.0002095865),
    "krippendorff_alpha": (0.74342, 0.14548, (0.423, 1), 0.0001693123),
    "conger_kappa": (0.76282, 0.14917, (0.435, 1), 0.0001683533),
    "brennan_prediger": (0.77273, 0.14472, (0.454, 1), 0.0001187804),
}


@pytest.mark.parametrize("statistic", list(README))
def test_r_irrcac_readme_raw4raters(statistic):
    value, se, (low, high), p_one_sided = README[statistic]
    est = estimate("raw_4raters", statistic)
    assert close(est.value, value, 7 if statistic == "percent_agreement" else 5)
    assert close(est.se, se, 5)
    assert close(est.wald_low, low, 3) and est.wald_high == high
    assert est.df == 11  # 12 subjects, one of them rated once (kept, as irrCAC keeps it)
    assert est.p_value / 2 == pytest.approx(p_one_sided, rel=5e-7)


# the port's tests: (method, data set, weights, pa, value, se, ci_low, ci_high, p); se None
# where the test does not print one; "custom" is CUSTOM
PORT = [
    ("bp", "raw_4raters", "identity", 0.818, 0.773, 0.145, 0.454, 1, 0.00012),
    ("bp", "raw_4raters", "bipolar", 0.968, 0.888, 0.112, 0.641, 1, 0),
    ("bp", "raw_4raters", "circular", 0.902, 0.824, 0.137, 0.522, 1, 4e-05),
    ("bp", "raw_4raters", "linear", 0.939, 0.848, 0.123, 0.577, 1, 1e-05),
    ("bp", "raw_4raters", "ordinal", 0.968, 0.886, 0.114, 0.636, 1, 0),
    ("bp", "raw_4raters", "quadratic", 0.975, 0.902, 0.111, 0.657, 1, 0),
    ("bp", "raw_4raters", "radical", 0.897, 0.813, 0.133, 0.520, 1, 4e-05),
    ("bp", "raw_4raters", "ratio", 0.954, 0.840, 0.132, 0.549, 1, 3e-05),
    ("bp", "raw_4raters", "custom", 0.886, 0.773, 0.145, 0.454, 1, 1.2e-04),
    ("bp", "raw_5observers", "identity", 0.616, 0.487, 0.121, 0.228, 0.747, 0.00062),
    ("bp", "raw_g1g2", "identity", 0.744, 0.679, 0.136, 0.385, 0.974, 0.00012),
    ("bp", "raw_gender", "identity", 0.456, 0.183, 0.102, -0.035, 0.402, 0.04688),
    ("bp", "raw_ben_gerry", "identity", 0.727, 0.659, 0.185, 0.251, 1, 0.00225),
    ("conger", "raw_4raters", "identity", 0.818, 0.763, None, 0.435, 1, 0.00034),
    ("conger", "raw_4raters", "bipolar", 0.968, 0.845, 0.142, 0.532, 1, 1e-04),
    ("conger", "raw_4raters", "circular", 0.902, 0.805, 0.147, 0.481, 1, 0.0002),
    ("conger", "raw_4raters", "linear", 0.939, 0.814, 0.145, 0.494, 1, 0.00016),
    ("conger", "raw_4raters", "ordinal", 0.968, 0.844, 0.144, 0.526, 1, 0.00011),
    ("conger", "raw_4raters", "quadratic", 0.975, 0.858, 0.144, 0.541, 1, 9e-05),
    ("conger", "raw_4raters", "radical", 0.897, 0.788, 0.146, 0.466, 1, 2.2e-04),
    ("conger", "raw_4raters", "ratio", 0.954, 0.812, 0.149, 0.485, 1, 2e-04),
    ("conger", "raw_4raters", "custom", 0.886, 0.763, 0.149, 0.435, 1, 3.4e-04),
    ("conger", "raw_5observers", "identity", 0.616, 0.469, 0.117, 0.219, 0.719, 0.00126),
    ("conger", "raw_g1g2", "identity", 0.744, 0.659, 0.146, 0.343, 0.974, 0.00059),
    ("conger", "raw_gender", "identity", 0.456, 0.166, 0.121, -0.094, 0.426, 0.19309),
    ("conger", "raw_ben_gerry", "identity", 0.727, 0.657, 0.179, 0.262, 1, 0.00374),
    ("fleiss", "raw_4raters", "identity", 0.818, 0.761, None, 0.424, 1, 0.00042),
    ("fleiss", "raw_4raters", "bipolar", 0.968, 0.853, 0.145, 0.535, 1, 1e-04),
    ("fleiss", "raw_4raters", "circular", 0.902, 0.807, 0.149, 0.479, 1, 0.00021),
    ("fleiss", "raw_4raters", "linear", 0.939, 0.818, 0.149, 0.491, 1, 0.00018),
    ("fleiss", "raw_4raters", "ordinal", 0.968, 0.850, 0.147, 0.527, 1, 0.00012),
    ("fleiss", "raw_4raters", "quadratic", 0.975, 0.865, 0.146, 0.544, 1, 1e-04),
    ("fleiss", "raw_4raters", "radical", 0.897, 0.790, 0.150, 0.460, 1, 2.7e-04),
    ("fleiss", "raw_4raters", "ratio", 0.954, 0.821, 0.152, 0.486, 1, 2.2e-04),
    ("fleiss", "raw_4raters", "custom", 0.886, 0.761, 0.153, 0.424, 1, 4.2e-04),
    ("fleiss", "raw_5observers", "identity", 0.616, 0.458, 0.120, 0.199, 0.716, 0.00195),
    ("fleiss", "raw_g1g2", "identity", 0.744, 0.657, 0.150, 0.333, 0.981, 0.00074),
    ("fleiss", "raw_gender", "identity", 0.456, 0.129, 0.141, -0.172, 0.430, 0.37449),
    ("fleiss", "raw_ben_gerry", "identity", 0.727, 0.649, 0.191, 0.228, 1, 0.00599),
    ("gwet", "raw_4raters", "identity", 0.818, 0.775, 0.143, 0.461, 1, 0.00021),
    ("gwet", "raw_4raters", "bipolar", 0.968, 0.900, 0.106, 0.667, 1, 4e-6),
    ("gwet", "raw_4raters", "circular", 0.902, 0.830, 0.133, 0.538, 1, 6e-5),
    ("gwet", "raw_4raters", "linear", 0.939, 0.859, 0.117, 0.600, 1, 2e-5),
    ("gwet", "raw_4raters", "ordinal", 0.968, 0.899, 0.107, 0.664, 1, 4e-6),
    ("gwet", "raw_4raters", "quadratic", 0.975, 0.914, 0.104, 0.685, 1, 3e-06),
    ("gwet", "raw_4raters", "radical", 0.897, 0.820, 0.128, 0.537, 1, 5e-05),
    ("gwet", "raw_4raters", "ratio", 0.954, 0.857, 0.122, 0.589, 1, 2e-05),
    ("gwet", "raw_4raters", "custom", 0.886, 0.783, 0.138, 0.479, 1, 1.5e-04),
    ("gwet", "raw_5observers", "identity", 0.616, 0.497, 0.122, 0.235, 0.758, 0.00114),
    ("gwet", "raw_g1g2", "identity", 0.744, 0.685, 0.134, 0.396, 0.973, 0.00019),
    ("gwet", "raw_gender", "identity", 0.456, 0.208, 0.091, 0.014, 0.403, 0.03776),
    ("gwet", "raw_ben_gerry", "identity", 0.727, 0.661, 0.184, 0.257, 1, 0.00420),
]


@pytest.mark.parametrize(("method", "dataset", "weights", "pa", "value", "se", "low", "high", "p"), PORT)
def test_irrcac_python_port(method, dataset, weights, pa, value, se, low, high, p):
    matrix = CUSTOM if weights == "custom" else weights
    weighted = weights != "identity"
    est = estimate(dataset, STATISTIC[method, weighted], matrix if weighted else None)
    assert close(percent_agreement(DATA[dataset], weights=matrix if weighted else None), pa, 3)
    assert close(est.value, value, 3)
    if se is not None:
        assert close(est.se, se, 3)
    assert close(est.wald_low, low, 3) and close(est.wald_high, high, 3)
    decimals = 6 if p < 1e-5 and p > 0 else 5
    port_p = est.p_value / 2 if method == "bp" else est.p_value  # the port's bp() is one-sided
    assert close(port_p, p, decimals)


# Krippendorff's α in the port: (data set, level, value) — the port's weights that are α's
# nominal, interval and ratio distances. Its SE is not R's: in the per-subject agreement term
# it subtracts p_a (R: p'_a) times (r_i - r̄)/r̄, so it prints 0.146 for raw_4raters where R's
# README prints 0.14548 (pinned above); the toolkit follows R, and only the values are compared.
ALPHA = [
    ("raw_4raters", "nominal", 0.743),
    ("raw_4raters", "interval", 0.849),
    ("raw_4raters", "ratio", 0.797),
    ("raw_5observers", "nominal", 0.481),
    ("raw_g1g2", "nominal", 0.632),
    ("raw_gender", "nominal", 0.143),
    ("raw_ben_gerry", "nominal", 0.665),
]


@pytest.mark.parametrize(("dataset", "level", "value"), ALPHA)
def test_krippendorff_alpha_against_the_port(dataset, level, value):
    labels = DATA[dataset]
    est = bootstrap_intervals(
        labels, statistics=("krippendorff_alpha",), level=level, bootstrap=BootstrapOptions(n_boot=0)
    )["krippendorff_alpha"]
    assert close(est.value, value, 3)
    assert est.df == labels["item_id"].nunique() - 1  # R: n - 1 with n every subject


def test_krippendorff_alpha_interval_with_the_ports_degrees_of_freedom():
    # R's README interval (0.423, 1) uses 11 degrees of freedom (12 subjects), the port's
    # (0.419, 1) uses 10 (the 11 subjects rated twice or more): both from the same value and SE
    est = estimate("raw_4raters", "krippendorff_alpha")
    assert close(est.wald_low, 0.423, 3)
    assert close(est.value - student.ppf(0.975, 10) * est.se, 0.419, 3)
