"""``wa.balderdash_report`` is the sum of its parts: built from the metrics, recompute,
convergence and trend results, passed in or computed once, never recomputed."""

from __future__ import annotations

import json

import pandas as pd
import pytest

import wordplay_audit as wa
from wordplay_audit.workflow import balderdash, balderdash_recompute, balderdash_rounds

pytestmark = pytest.mark.slow  # two reports of a simulated export (about 20 s)


@pytest.fixture(scope="module")
def export(tmp_path_factory):
    folder = tmp_path_factory.mktemp("report_parts") / "sim"
    wa.simulate_balderdash(folder, seed=4, games_per_deck=3, rounds=8, players_per_model=2,
                           labels_per_stratum=15)  # fmt: skip
    return wa.read_balderdash(folder, texts=False), wa.read_labels(folder / "labels.csv")


def _forbid(monkeypatch):
    """Make every step (and the analyses behind them) fail if called."""

    def fail(*args, **kwargs):
        raise AssertionError("the report recomputed a step it was given")

    for module, name in ((balderdash, "balderdash_metrics"), (balderdash_recompute, "balderdash_recompute"),
                         (balderdash_rounds, "balderdash_convergence"), (balderdash_rounds, "balderdash_trend")):  # fmt: skip
        monkeypatch.setattr(module, name, fail)
    from wordplay_audit.analysis.balderdash import summary, trend

    for module, name in (
        (summary, "trend_analysis"),
        (summary, "judge_audit_tables"),
        (trend, "trend_tests"),
    ):
        monkeypatch.setattr(module, name, fail)


def test_report_from_passed_results_does_not_recompute_and_equals_the_one_from_scratch(
    export, monkeypatch, tmp_path
):
    data, labels = export
    scratch = wa.balderdash_report(data, labels)
    from wordplay_audit.analysis.balderdash.summary import analyze_balderdash

    whole = analyze_balderdash(data.obs, wa.workflow.balderdash.human_rows(data, labels), eps=(0.1, 0.2, 0.3),
                               skipped=data.skipped)  # fmt: skip
    # the same numbers as the one-pass analysis (the demo's) on an export of complete games
    assert json.dumps(scratch.to_dict(), sort_keys=True) == json.dumps(
        balderdash_rounds.BalderdashReport(str(data.folder), whole).to_dict(), sort_keys=True
    )
    parts = {
        "metrics": wa.balderdash_metrics(data),
        "recompute": wa.balderdash_recompute(data, labels, seed=0),
        "convergence": wa.balderdash_convergence(data, labels, eps=[0.1, 0.2, 0.3]),
        "trend": wa.balderdash_trend(data, labels),
    }
    _forbid(monkeypatch)
    given = wa.balderdash_report(data, labels, **parts)
    assert json.dumps(given.to_dict(), sort_keys=True) == json.dumps(scratch.to_dict(), sort_keys=True)
    assert given.summary() == scratch.summary()
    for name, table in scratch.tables().items():
        pd.testing.assert_frame_equal(given.tables()[name], table, check_exact=True)
    given.write(tmp_path / "given")
    assert (tmp_path / "given" / "report.html").stat().st_size > 0
    # the report's own parts are the given results, not copies computed again
    assert given.analysis.trend is parts["trend"].analysis
    assert given.analysis.convergence is parts["convergence"].table
    assert given.analysis.corrected is parts["recompute"].corrected


def test_report_without_labels_from_passed_results(export, monkeypatch):
    data, _ = export
    scratch = wa.balderdash_report(data)
    parts = {"metrics": wa.balderdash_metrics(data), "convergence": wa.balderdash_convergence(data, eps=[0.1, 0.2, 0.3]),
             "trend": wa.balderdash_trend(data)}  # fmt: skip
    _forbid(monkeypatch)
    given = wa.balderdash_report(data, **parts)
    assert json.dumps(given.to_dict(), sort_keys=True) == json.dumps(scratch.to_dict(), sort_keys=True)


def test_a_result_of_another_export_is_refused(export, tmp_path):
    data, labels = export
    other = wa.simulate_balderdash(
        tmp_path / "other", seed=5, games_per_deck=1, rounds=4, players_per_model=1
    )
    metrics = wa.balderdash_metrics(wa.read_balderdash(other.out, texts=False))
    with pytest.raises(wa.ParameterError, match="^metrics: a result of another export"):
        wa.balderdash_report(data, labels, metrics=metrics)
    with pytest.raises(wa.ParameterError, match="^recompute: given without human"):
        wa.balderdash_report(data, recompute=wa.balderdash_recompute(data, labels))


def test_report_progress_bar_on_stderr_only_when_asked(export, capsys):
    data, labels = export
    parts = {"metrics": wa.balderdash_metrics(data), "recompute": wa.balderdash_recompute(data, labels, seed=0),
             "convergence": wa.balderdash_convergence(data, labels, eps=[0.1]),
             "trend": wa.balderdash_trend(data, labels)}  # fmt: skip
    capsys.readouterr()
    wa.balderdash_report(data, labels, progress=True, **parts)
    seen = capsys.readouterr()
    assert seen.out == "" and "report" in seen.err and "/5 " in seen.err
    wa.balderdash_report(data, labels, **parts)
    assert capsys.readouterr().err == ""
