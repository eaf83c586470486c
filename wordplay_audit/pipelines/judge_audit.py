"""Judge-audit pipeline: labels files → :func:`wordplay_audit.analysis.judge_audit_groups.judge_audit`
→ (optionally) an output folder with the table, the FNR plot and the report.

Composition only: files are read by :mod:`wordplay_audit.corpora.contract`, statistics are
:mod:`wordplay_audit.analysis.judge_audit_groups`, the folder is written by
:func:`wordplay_audit.corpora.io.output_folder`.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from wordplay_audit.analysis.judge_audit_groups import JudgeAuditResult, judge_audit
from wordplay_audit.analysis.judge_audit_report import audit_figures, judge_audit_section
from wordplay_audit.analysis.report import Report
from wordplay_audit.corpora.contract import read_items, read_labels
from wordplay_audit.corpora.io import output_folder
from wordplay_audit.pipelines.outputs import write_outputs

if TYPE_CHECKING:
    import pandas as pd


def _one_question(labels: pd.DataFrame, question: str) -> pd.DataFrame:
    if "question" not in labels.columns:
        return labels
    asked = labels["question"].astype(str).str.strip().replace("", "reference")
    return labels[(asked == question).to_numpy()]


def judge_audit_run(
    judge_labels: Path,
    human: Path,
    *,
    items: Path | None = None,
    by: Sequence[str] = ("player_model",),
    out: Path | None = None,
    question: str = "reference",
    **options: Any,
) -> tuple[JudgeAuditResult, dict[str, Path]]:
    """Read the files, audit, and with ``out`` write ``judge_audit.csv``, ``judge_fnr.png`` (with
    ``scores``: ``judge_roc.png``, ``judge_reliability.png``) and ``report.html`` into that folder in one step. Labels that carry a ``question`` column (the
    Balderdash ``reference``/``any_sense`` pair) are audited on ``question`` (an empty value
    counts as ``reference``). ``options`` go to :func:`judge_audit`."""
    item_table = read_items(items) if items is not None else None
    judged = _one_question(read_labels(judge_labels), question)
    people = _one_question(read_labels(human, accept_final=True), question)  # per rater or final
    result = judge_audit(judged, people, item_table, by=by, **options)
    written: dict[str, Path] = {}
    if out is not None:
        report = Report(
            "wordplay-audit: judge audit",
            intro=f"Judge labels {judge_labels}; human labels {human}",
        )
        report.add(judge_audit_section(result))
        with output_folder(out) as folder:
            names = write_outputs(
                folder,
                tables={"judge_audit": result.table()},
                figures=audit_figures(result),
                report=report,
            )
        written = {name: Path(out) / path for name, path in names.items()}
    return result, written
