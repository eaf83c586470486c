"""Items rated once: Gwet's (2014) treatment by default, ``single_rated="drop"`` by name.

Published values: R irrCAC's README on ``cac.raw4raters`` (subject 12 has one rating) —
Fleiss' κ 0.76117 / SE 0.15302, Gwet's AC1 0.77544 / SE 0.14295 (the values the issue quotes);
the other data sets with a single-rated subject (``cac.raw.g1g2``, ``cac.ben.gerry``) are in
test_irrcac_raw.py.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from wordplay_audit.analysis.agreement import (
    BootstrapOptions,
    agreement,
    bootstrap_intervals,
    fleiss_kappa,
    fleiss_kappa_se,
    gwet_ac1,
    gwet_ac1_se,
    items_used,
    per_category_kappa,
)

from .published import RAW4RATERS, to_labels

LABELS = to_labels(RAW4RATERS)
WITHOUT_SUBJECT_12 = LABELS[LABELS["item_id"] != "s12"]


def test_default_is_gwets_treatment_with_irrcacs_values():
    assert fleiss_kappa(LABELS) == pytest.approx(0.76117, abs=5e-6)
    assert fleiss_kappa_se(LABELS) == pytest.approx(0.15302, abs=5e-6)
    assert gwet_ac1(LABELS) == pytest.approx(0.77544, abs=5e-6)
    assert gwet_ac1_se(LABELS) == pytest.approx(0.14295, abs=5e-6)
    assert items_used(LABELS) == (12, 0)


def test_drop_leaves_the_subject_out_before_anything():
    # both definitions pinned: "drop" is the statistic of the 11 subjects rated twice or more
    # (under either rule, since none of them is rated once); the issue quotes these values
    # as 0.76248 / 0.13544 and 0.77515 / 0.12527
    for fn, value in (
        (fleiss_kappa, 0.76248),
        (fleiss_kappa_se, 0.13544),
        (gwet_ac1, 0.77515),
        (gwet_ac1_se, 0.12527),
    ):
        dropped = fn(LABELS, single_rated="drop")
        assert dropped == pytest.approx(fn(WITHOUT_SUBJECT_12), abs=1e-12)
        assert dropped == pytest.approx(value, abs=5e-6)
        assert abs(dropped - fn(LABELS)) > 1e-4
    assert items_used(LABELS, single_rated="drop") == (11, 1)


def test_by_hand_the_single_rating_enters_the_shares_and_n():
    # x rated (a, a), y rated (b) once, z rated (a, b). Gwet: p_a over x and z = (1 + 0)/2 = .5;
    # π = mean of the three items' shares ((1,0) + (0,1) + (.5,.5))/3 = (.5, .5), p_e = .5,
    # κ = 0. Drop: x and z only, π = (.75, .25), p_e = .625, κ = (.5 - .625)/.375 = -1/3.
    labels = to_labels(np.array([["a", "a"], ["b", None], ["a", "b"]], dtype=object))
    assert fleiss_kappa(labels) == pytest.approx(0.0, abs=1e-12)
    assert fleiss_kappa(labels, single_rated="drop") == pytest.approx(-1 / 3, abs=1e-12)


def test_per_category_kappa_is_fleiss_kappa_of_the_collapsed_table_under_both_rules():
    for rule in ("gwet", "drop"):
        table = per_category_kappa(LABELS, single_rated=rule)
        for category in ("1", "2", "3"):
            collapsed = LABELS.assign(label=np.where(LABELS["label"] == category, "k", "other"))
            expected = fleiss_kappa(collapsed, single_rated=rule)
            assert table.loc[category, "kappa"] == pytest.approx(expected, abs=1e-12)


def _naive_fleiss_gwet(rows: list[list[float]]) -> float:
    """Fleiss' κ by Gwet (2014) written out item by item: p_a over items rated twice or more,
    π over every item."""
    categories = [1, 2, 3, 4, 5]
    agree, multi, shares = 0.0, 0, np.zeros(5)
    for row in rows:
        values = [v for v in row if not math.isnan(v)]
        counts = np.array([values.count(c) for c in categories], dtype=float)
        shares += counts / len(values)
        if len(values) >= 2:
            agree += (counts * (counts - 1)).sum() / (len(values) * (len(values) - 1))
            multi += 1
    pi = shares / len(rows)
    p_e = (pi**2).sum()
    return (agree / multi - p_e) / (1 - p_e) if multi and p_e < 1 else math.nan


def test_the_bootstrap_resamples_every_item_of_the_sample():
    # draws="indices" consumes the generator as a naive loop over the 12 subjects
    options = BootstrapOptions(n_boot=200, seed=4, draws="indices")
    res = bootstrap_intervals(LABELS, statistics=("fleiss_kappa",), bootstrap=options)["fleiss_kappa"]
    rng = np.random.default_rng(4)
    naive = [_naive_fleiss_gwet([list(RAW4RATERS[i]) for i in rng.integers(0, 12, 12)]) for _ in range(200)]
    np.testing.assert_allclose(res.distribution, naive, atol=1e-12, equal_nan=True)


def test_agreement_reports_the_rule_and_the_counts():
    result = agreement(LABELS, bootstrap=BootstrapOptions(n_boot=0))
    out = result.to_dict()
    assert out["single_rated"] == "gwet"
    assert (out["items"], out["items_used"], out["items_single_rating"]) == (12, 11, 1)
    assert out["fleiss_kappa"]["value"] == pytest.approx(0.76117, abs=5e-6)
    dropped = agreement(LABELS, bootstrap=BootstrapOptions(n_boot=0), single_rated="drop").to_dict()
    assert dropped["single_rated"] == "drop" and dropped["items_single_rating"] == 1
    assert dropped["fleiss_kappa"]["value"] == pytest.approx(0.76248, abs=5e-6)
    # Krippendorff's α leaves unpairable values out under both rules (Krippendorff 2011)
    assert dropped["krippendorff_alpha"]["value"] == pytest.approx(
        out["krippendorff_alpha"]["value"], abs=1e-12
    )


def test_single_rated_is_checked():
    from wordplay_audit.errors import ParameterError

    with pytest.raises(ParameterError, match="single_rated: expected one of gwet, drop"):
        fleiss_kappa(LABELS, single_rated="keep")
    with pytest.raises(ParameterError, match="single_rated"):
        agreement(LABELS, single_rated="keep")
