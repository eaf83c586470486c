"""The Wheel of Fortune report section and the demo part."""

from __future__ import annotations

import pytest

from tests.support.wof_logs import ALPHA, report_text
from wordplay_audit.analysis.report import Report
from wordplay_audit.analysis.wof.metrics import wof_metrics
from wordplay_audit.analysis.wof.section import wof_section
from wordplay_audit.corpora.wof.reader import read_reports


def test_section_escapes_model_names(tmp_path):
    (tmp_path / "<script>x$y$.jsonl").write_text(report_text(ALPHA), encoding="utf-8")
    metrics = wof_metrics(read_reports(tmp_path).moves)
    report = Report("t")
    report.add(wof_section(metrics))
    html = report.render()
    assert "<script>x" not in html and "&lt;script&gt;x$y$" in html
    assert html.count("<img") == 2


@pytest.mark.slow
def test_demo_part(tmp_path):
    from wordplay_audit.workflow.demo_parts import wof_part as run_demo_part

    summary, section = run_demo_part(tmp_path / "wof", seed=0, games=24)
    assert summary["games"] == 3 * 24 and summary["n_human_labels"] > 0
    assert {p.name for p in (tmp_path / "wof").iterdir()} >= {
        "frequent-consonant.jsonl",
        "truth.csv",
        "labels.csv",
    }
    exact, true = summary["exact_win_rate"]["overconfident"], summary["true_win_rate"]["overconfident"]
    assert exact <= true
    html = section.render("wof")
    assert "McNemar" in html and "randomised exact" in html and "corrected_low" in html
