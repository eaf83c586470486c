"""Two raters from a contingency table: irrCAC's table functions against the toolkit's
many-rater coefficients on the same ratings.

R irrCAC's README prints, for ``cont3x3abstractors`` (100 subjects): Scott's π 0.7962397 / SE
0.05905473, Gwet's AC1 0.8493305 / 0.04321747, Brennan–Prediger 0.835 / 0.04693346,
Krippendorff's α 0.7972585 / 0.05905473, percent agreement 0.89 / 0.03128898. With two raters
Fleiss' κ is Scott's π, and the values are the toolkit's. The SEs differ on purpose by
:math:`\\sqrt{(n-1)/n}`: irrCAC's table functions (2-rater special cases) divide the variance by
:math:`n`, its raw-data functions — which the toolkit follows for every many-rater
coefficient — by :math:`n - 1` (:math:`\\frac{1}{n(n-1)}\\sum_i`). Both are pinned. Cohen's κ of
the pairwise tables uses the table form (test_weighted.py).
"""

from __future__ import annotations

import math

import pytest

from wordplay_audit.analysis.agreement import BootstrapOptions, bootstrap_intervals

from .published import CONT3X3ABSTRACTORS, CONT4X4DIAGNOSIS, table_labels

NAMES3 = ["Ectopic", "AIU", "NIU"]
NAMES4 = ["Schizophrenia", "Bipolar", "Depression", "Other"]

README = {
    "fleiss_kappa": (0.7962397, 0.05905473),  # Scott's π (scott2.table)
    "gwet_ac1": (0.8493305, 0.04321747),
    "brennan_prediger": (0.835, 0.04693346),
    "krippendorff_alpha": (0.7972585, 0.05905473),
    "percent_agreement": (0.89, 0.03128898),
}


def _estimates(table, names, statistics, weights=None):
    labels = table_labels(table, names)
    return bootstrap_intervals(
        labels, statistics=statistics, weights=weights, categories=names, bootstrap=BootstrapOptions(n_boot=0)
    )


@pytest.mark.parametrize("statistic", list(README))
def test_r_irrcac_readme_table_functions(statistic):
    value, table_se = README[statistic]
    est = _estimates(CONT3X3ABSTRACTORS, NAMES3, (statistic,))[statistic]
    n = int(CONT3X3ABSTRACTORS.sum())
    assert est.value == pytest.approx(value, abs=5e-8)
    assert est.se * math.sqrt((n - 1) / n) == pytest.approx(table_se, abs=5e-9)


# irrCAC's Python port, test/unit/irrCAC/table/test_{gwet,brennan_prediger,pa}.py on
# cont4x4diagnosis (the transpose of R's; these coefficients do not depend on the orientation
# for symmetric weights): (method, weights, value, table SE)
PORT = [
    ("gwet", "identity", 0.456, 0.043),
    ("gwet", "bipolar", 0.315, 0.068),
    ("gwet", "circular", 0.488, 0.045),
    ("gwet", "linear", 0.377, 0.056),
    ("gwet", "ordinal", 0.324, 0.069),
    ("gwet", "quadratic", 0.299, 0.075),
    ("gwet", "radical", 0.418, 0.048),
    ("gwet", "ratio", 0.359, 0.070),
    ("bp", "identity", 0.450, 0.044),
    ("bp", "bipolar", 0.264, 0.075),
    ("bp", "circular", 0.471, 0.047),
    ("bp", "linear", 0.347, 0.060),
    ("bp", "ordinal", 0.273, 0.076),
    ("bp", "quadratic", 0.236, 0.085),
    ("bp", "radical", 0.401, 0.050),
    ("bp", "ratio", 0.310, 0.077),
    ("pa", "identity", 0.587, 0.033),
    ("pa", "bipolar", 0.769, 0.024),
    ("pa", "circular", 0.735, 0.023),
    ("pa", "linear", 0.728, 0.025),
    ("pa", "ordinal", 0.773, 0.024),
    ("pa", "quadratic", 0.788, 0.024),
    ("pa", "radical", 0.673, 0.027),
    ("pa", "ratio", 0.786, 0.024),
]
NAME = {
    ("gwet", False): "gwet_ac1",
    ("gwet", True): "gwet_ac2",
    ("bp", False): "brennan_prediger",
    ("bp", True): "brennan_prediger_weighted",
}


@pytest.mark.parametrize(("method", "weights", "value", "table_se"), PORT)
def test_irrcac_port_table_coefficients(method, weights, value, table_se):
    weighted = weights != "identity"
    if method == "pa":
        from wordplay_audit.analysis.agreement import percent_agreement, percent_agreement_se

        labels = table_labels(CONT4X4DIAGNOSIS, NAMES4)
        w = weights if weighted else None
        ours = percent_agreement(labels, weights=w, categories=NAMES4)
        se = percent_agreement_se(labels, weights=w, categories=NAMES4)
    else:
        statistic = NAME[method, weighted]
        est = _estimates(CONT4X4DIAGNOSIS, NAMES4, (statistic,), weights if weighted else None)[statistic]
        ours, se = est.value, est.se
    n = int(CONT4X4DIAGNOSIS.sum())
    assert ours == pytest.approx(value, abs=5e-4)
    assert se * math.sqrt((n - 1) / n) == pytest.approx(table_se, abs=5e-4)
