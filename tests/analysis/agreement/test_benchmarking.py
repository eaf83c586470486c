"""Gwet's probabilistic benchmarking (Gwet 2014, ch. 6) and the t test of θ = 0.

Published values: the tests of irrCAC's Python port (test/unit/irrCAC/benchmark/
test_benchmark.py: κ = 0.67, SE = 0.15, cumulative membership probabilities to five decimals)
and R irrCAC's benchmarking vignette (AC1 of ``cac.raw4raters``, 0.775 with SE 0.14295: Moderate
on the Landis–Koch and Altman scales, Intermediate to Good on Fleiss').
"""

from __future__ import annotations

import math

import pytest

from wordplay_audit.analysis.agreement import BootstrapOptions, agreement, benchmark
from wordplay_audit.analysis.agreement.inference import t_test
from wordplay_audit.errors import ParameterError

from .published import RAW4RATERS, to_labels

PORT = {
    "altman": ([0.18168, 0.67511, 0.96356, 0.99912, 1.0], "Moderate"),
    "fleiss": ([0.28699, 0.96356, 1.0], "Intermediate to Good"),
    "landis-koch": ([0.18168, 0.67511, 0.96356, 0.99912, 1.0, 1.0], "Moderate"),
}


@pytest.mark.parametrize("scale", list(PORT))
def test_port_cumulative_probabilities(scale):
    cumulative, level = PORT[scale]
    result = benchmark(0.67, 0.15, scale)
    assert [round(band[4], 5) for band in result.bands] == cumulative
    assert result.level == level  # the first band from the top whose cumulative reaches 0.95
    assert result.band == (
        "Good" if scale == "altman" else "Substantial" if scale == "landis-koch" else "Intermediate to Good"
    )
    assert sum(band[3] for band in result.bands) == pytest.approx(1.0, abs=1e-12)


def test_irrcac_vignette_ac1_of_raw4raters():
    result = agreement(to_labels(RAW4RATERS), bootstrap=BootstrapOptions(n_boot=0), benchmark="landis-koch")
    assert result.gwet_ac1.se == pytest.approx(0.14295, abs=5e-6)
    assert result.gwet_ac1.benchmark.level == "Moderate"
    assert benchmark(result.gwet_ac1.value, result.gwet_ac1.se, "altman").level == "Moderate"
    assert benchmark(result.gwet_ac1.value, result.gwet_ac1.se, "fleiss").level == "Intermediate to Good"
    out = result.to_dict()
    assert out["benchmark_scale"] == "landis-koch"
    for key in (
        "fleiss_kappa",
        "gwet_ac1",
        "krippendorff_alpha",
        "conger_kappa",
        "brennan_prediger",
        "light_kappa",
    ):
        entry = out[key]["benchmark"]
        assert entry["scale"] == "landis-koch" and len(entry["bands"]) == 6 and entry["threshold"] == 0.95


def test_no_standard_error_no_probabilities():
    result = benchmark(0.5, None, "altman")
    assert result.level is None and result.band == "Moderate" and result.reason == "no standard error"
    assert all(math.isnan(band[3]) for band in result.bands)
    with pytest.raises(ParameterError, match="benchmark: expected one of landis-koch, fleiss, altman"):
        benchmark(0.5, 0.1, "cicchetti")
    with pytest.raises(ParameterError, match="benchmark: expected one of"):
        agreement(to_labels(RAW4RATERS), benchmark="gwet")


def test_t_test_by_hand():
    # Student's t table: t_{9, .975} = 2.262. With θ = 0.2262 and SE 0.1 (10 items, 9 df),
    # z = 2.262 sits on the 97.5 % quantile: two-sided p = 0.05 and the Wald lower bound is 0
    out = t_test(0.2262, 0.1, 10, 0.95)
    assert out["z"] == pytest.approx(2.262) and out["df"] == 9
    assert out["p_value"] == pytest.approx(0.05, abs=5e-5)
    assert out["wald_low"] == pytest.approx(0.0, abs=5e-5)
    assert t_test(0.9, 0.1, 10, 0.95)["wald_high"] == 1.0  # 0.9 + 0.226 > 1: capped, as irrCAC
    assert t_test(0.6, 0.0, 10, 0.95)["test_reason"].startswith("the standard error is 0")
    assert t_test(0.6, None, 10, 0.95)["test_reason"] == "no standard error"
