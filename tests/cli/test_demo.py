"""``wordplay-audit demo`` runs offline and writes a readable report."""

import json

import pytest

from tests.support import bad_inputs


@pytest.mark.slow
def test_demo_writes_report(run_cli, tmp_path):
    code, out, err = run_cli("demo", "--out", str(tmp_path / "demo"), "--json")
    assert code == 0, err
    summary = json.loads(out)
    report = tmp_path / "demo" / "report.html"
    assert summary["report"] == str(report)
    # every path in the summary names where the files ended up, not the staging folder
    assert ".staging" not in out
    assert summary["wof"]["reports"] == str(tmp_path / "demo" / "wof")
    assert summary["balderdash"]["export"] == str(tmp_path / "demo" / "balderdash")
    html = report.read_text()
    assert "Connections (demo corpus)" in html
    assert "data:image/png;base64," in html
    assert summary["connections"]["model-b"] == [0, 0, 2, 1, 3]
    assert "Agreement: three simulated linguists" in html
    # the demo's κ and α equal the reference libraries' on the labels it wrote
    import krippendorff
    import numpy as np
    import pandas as pd
    from statsmodels.stats.inter_rater import fleiss_kappa

    labels = pd.read_csv(tmp_path / "demo" / "connections-demo" / "knowledge_type_labels.csv")
    counts = pd.crosstab(labels["item_id"], labels["label"]).to_numpy()
    assert summary["agreement"]["fleiss_kappa"] == round(fleiss_kappa(counts), 3)
    codes = labels.pivot(index="rater", columns="item_id", values="label")
    numeric = codes.apply(lambda col: col.map({c: i for i, c in enumerate(sorted(labels["label"].unique()))}))
    alpha = krippendorff.alpha(reliability_data=numeric.to_numpy(dtype=float), level_of_measurement="nominal")
    assert summary["agreement"]["krippendorff_alpha"] == round(float(alpha), 3)
    assert np.isfinite(alpha)
    assert "Balderdash (simulated demo campaign)" in html
    assert "Trend tests (knows, true_def)" in html
    # the per-round bands say what they assume, and the drift check they point to is in the report
    assert "assumes the judge as accurate in every round" in html
    assert "Judge drift over rounds in the human sample" in html
    assert summary["balderdash"]["omniscient_true_lkr"] == 1.0
    # the judge misses true definitions, so the judged LKR of a model that knows every word is below 1
    assert summary["balderdash"]["omniscient_judge_lkr"] < 0.9


def test_cli_help_and_usage_errors(run_cli):
    code, out, err = run_cli("--help")
    assert code == 0 and "connections" in out and "demo" in out
    code, out, err = run_cli("no-such-command")
    assert code == 2 and err.startswith("error:") and err.count("\n") == 1


# --- malformed input: one line, exit 2, the output folder as it was (tests/support/bad_inputs.py) ---


@pytest.mark.parametrize("args", bad_inputs.bad_parameters("demo"), ids=bad_inputs.parameters_id)
def test_bad_parameters_give_one_line_and_exit_2(good, tmp_path, in_tmp, args, tree_digest):
    bad_inputs.check_bad_parameters(good, tmp_path, in_tmp, args, tree_digest)
