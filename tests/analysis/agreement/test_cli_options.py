"""``analyze agreement --weights`` and ``--benchmark``: the JSON keys, the text, the errors.

The values are the library's on the same input (irrCAC's published values for that input are
checked in test_irrcac_raw.py); the command only parses the options and passes them.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from tests.support.cli_checks import one_line_error
from wordplay_audit.analysis.agreement import BootstrapOptions, agreement

from .published import RAW4RATERS, to_labels


@pytest.fixture
def raw4_csv(tmp_path):
    path = tmp_path / "raw4.csv"
    to_labels(RAW4RATERS).to_csv(path, index=False)
    return path


def test_weights_and_benchmark_json(run_cli, raw4_csv):
    code, out, err = run_cli(
        "analyze", "agreement", str(raw4_csv), "--weights", "quadratic", "--benchmark", "altman",
        "--bootstrap", "200", "--json",
    )  # fmt: skip
    assert code == 0, err
    data = json.loads(out)
    library = agreement(
        to_labels(RAW4RATERS), weights="quadratic", benchmark="altman", bootstrap=BootstrapOptions(n_boot=200)
    ).to_dict()
    assert data["weights"]["name"] == "quadratic" and np.shape(data["weights"]["matrix"]) == (5, 5)
    keys = ("conger_kappa", "brennan_prediger", "light_kappa", "gwet_ac2", "fleiss_kappa_weighted",
            "conger_kappa_weighted", "brennan_prediger_weighted")  # fmt: skip
    for key in keys:
        entry = data[key]
        assert {"value", "se", "ci_low", "ci_high", "p_value", "z", "df", "wald_low", "wald_high"} <= set(
            entry
        )
        assert entry["value"] == pytest.approx(library[key]["value"], abs=1e-12)
        assert entry["ci_low"] == pytest.approx(library[key]["ci_low"], abs=1e-12)
        assert entry["benchmark"]["scale"] == "altman"
    assert data["gwet_ac2"]["value"] == pytest.approx(0.914, abs=5e-4)  # irrCAC port, AC2 quadratic
    pair = data["cohen_kappa_weighted"]["r1"]["r2"]
    assert {"value", "se", "ci_low", "ci_high", "p_value", "n_common"} <= set(pair)
    assert data["cohen_kappa"]["r1"]["r2"]["value"] == pytest.approx(
        data["pairwise_cohen"]["r1"]["r2"], abs=1e-12
    )


def test_without_options_no_weighted_keys_and_no_benchmark(run_cli, raw4_csv):
    data = json.loads(run_cli("analyze", "agreement", str(raw4_csv), "--bootstrap", "0", "--json")[1])
    assert "gwet_ac2" not in data and "cohen_kappa_weighted" not in data and "weights" not in data
    assert "benchmark" not in data["fleiss_kappa"] and data["benchmark_scale"] is None
    assert data["conger_kappa"]["value"] == pytest.approx(0.76282, abs=5e-6)  # irrCAC README
    assert data["fleiss_kappa"]["se"] == pytest.approx(0.15302, abs=5e-6)


def test_text_shows_the_new_coefficients_and_the_benchmark(run_cli, raw4_csv):
    code, out, _ = run_cli(
        "analyze",
        "agreement",
        str(raw4_csv),
        "--weights",
        "linear",
        "--benchmark",
        "fleiss",
        "--bootstrap",
        "0",
    )
    assert code == 0
    assert "items: 12 (1 with one rating: kept in the category shares)" in out
    assert "Conger's kappa: 0.763 n/a (no resamples)" in out
    assert "weights: linear" in out and "Gwet's AC2: 0.859" in out
    assert "  fleiss: Intermediate to Good (cumulative probability ≥ 0.95)" in out


def test_weights_file(run_cli, raw4_csv, tmp_path):
    from wordplay_audit.analysis.agreement import weight_matrix

    cats = [str(c) for c in range(1, 6)]
    w = weight_matrix("linear", cats).matrix
    path = tmp_path / "w.csv"
    path.write_text("category," + ",".join(cats) + "\n" + "".join(
        c + "," + ",".join(repr(float(x)) for x in row) + "\n" for c, row in zip(cats, w, strict=True)
    ))  # fmt: skip
    by_file = json.loads(
        run_cli("analyze", "agreement", str(raw4_csv), "--weights", str(path), "--bootstrap", "0", "--json")[
            1
        ]
    )
    by_name = json.loads(
        run_cli("analyze", "agreement", str(raw4_csv), "--weights", "linear", "--bootstrap", "0", "--json")[1]
    )
    assert by_file["weights"]["name"] == str(path)
    assert by_file["gwet_ac2"]["value"] == pytest.approx(by_name["gwet_ac2"]["value"], abs=1e-12)


def test_bad_options_are_one_line_errors(run_cli, raw4_csv, tmp_path):
    one_line_error(*run_cli("analyze", "agreement", str(raw4_csv), "--weights", "cubic"),
                   "--weights: expected one of identity, linear", "got 'cubic'")  # fmt: skip
    one_line_error(*run_cli("analyze", "agreement", str(raw4_csv), "--benchmark", "gwet"),
                   "--benchmark: expected one of landis-koch, fleiss, altman")  # fmt: skip
    bad = tmp_path / "w.csv"
    bad.write_text("category,1,2\n1,1,x\n2,0.5,1\n")
    one_line_error(*run_cli("analyze", "agreement", str(raw4_csv), "--weights", str(bad)),
                   f"{bad} line 2: weight for '2' is not a number")  # fmt: skip
    short = tmp_path / "short.csv"
    short.write_text("category,1,2\n1,1,0.5\n2,0.5,1\n")
    code, out, err = run_cli("analyze", "agreement", str(raw4_csv), "--weights", str(short))
    one_line_error(code, out, err, f"{short}: rows name")
    assert str(raw4_csv) not in err  # the weights file is named, not the labels


def test_single_rated_option_reaches_the_statistics(run_cli, raw4_csv):
    """``--single-rated``: gwet (default) gives irrCAC's published κ on raw4raters (0.76117);
    drop gives Fleiss' κ of the table without subject 12 (the one rated once), as the library
    computes on that table; a bad value names the flag."""
    from wordplay_audit.analysis.agreement import fleiss_kappa

    labels = to_labels(RAW4RATERS)
    values = {}
    for rule in ("gwet", "drop"):
        code, out, err = run_cli("analyze", "agreement", str(raw4_csv), "--single-rated", rule, "--bootstrap", "0", "--json")  # fmt: skip
        assert code == 0, err
        values[rule] = json.loads(out)["fleiss_kappa"]["value"]
    assert values["gwet"] == pytest.approx(0.76117, abs=5e-6)
    assert values["drop"] == pytest.approx(fleiss_kappa(labels[labels["item_id"] != "s12"]), abs=1e-12)
    assert values["drop"] != pytest.approx(values["gwet"], abs=1e-3)
    one_line_error(
        *run_cli("analyze", "agreement", str(raw4_csv), "--single-rated", "keep"),
        "--single-rated: expected one of gwet, drop",
    )
