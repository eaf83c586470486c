"""``wordplay-audit demo`` runs offline and writes a readable report."""

import json


def test_demo_writes_report(run_cli, tmp_path):
    code, out, err = run_cli("demo", "--out", str(tmp_path / "demo"), "--json")
    assert code == 0, err
    summary = json.loads(out)
    report = tmp_path / "demo" / "report.html"
    assert summary["report"] == str(report)
    html = report.read_text()
    assert "Connections (demo corpus)" in html
    assert "data:image/png;base64," in html
    assert summary["connections"]["model-b"] == [0, 0, 2, 1, 3]
    assert "Agreement: three simulated linguists" in html
    assert -1 <= summary["agreement"]["fleiss_kappa"] <= 1
    assert "Balderdash (simulated demo campaign)" in html
    assert "Trend tests (knows, true_def)" in html
    assert summary["balderdash"]["omniscient_true_lkr"] == 1.0
    # the judge misses true definitions, so the judged LKR of a model that knows every word is below 1
    assert summary["balderdash"]["omniscient_judge_lkr"] < 0.9


def test_cli_help_and_usage_errors(run_cli):
    code, out, err = run_cli("--help")
    assert code == 0 and "connections" in out and "demo" in out
    code, out, err = run_cli("no-such-command")
    assert code == 2 and err.startswith("error:") and err.count("\n") == 1
