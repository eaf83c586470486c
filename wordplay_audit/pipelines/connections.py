"""``connections score`` as one pipeline: read the study folder (corpora) → analyse (analysis) →
write tables, plots and the report into ``out`` as one transaction (``corpora.io.output_folder``)."""

from __future__ import annotations

from pathlib import Path

from wordplay_audit.analysis.connections import (
    MARKDOWN_TABLES,
    MatchMode,
    analyze_connections,
    connections_section,
    result_tables,
)
from wordplay_audit.analysis.report import Report
from wordplay_audit.corpora.connections import read_connections
from wordplay_audit.corpora.io import output_folder
from wordplay_audit.pipelines.outputs import write_outputs


def score_connections(data: str | Path, out: str | Path, *, match: MatchMode = "exact") -> dict:
    """Score, audit and report the study folder ``data`` into ``out``; return the ``--json``
    summary (:meth:`ConnectionsResult.to_dict` plus ``report``, the report's path).

    ``out`` appears complete or not at all: an error or an interrupt leaves it as it was.
    """
    result = analyze_connections(read_connections(data), match=match)
    report = Report("wordplay-audit: Connections", intro=f"Data: {data}")
    report.add(connections_section(result))
    with output_folder(out) as staging:
        written = write_outputs(
            staging,
            tables=result_tables(result),
            figures=result.figures,
            report=report,
            markdown=MARKDOWN_TABLES,
        )
    summary = result.to_dict()
    summary["report"] = str(Path(out) / written["report.html"])
    return summary


def summary_lines(summary: dict) -> list[str]:
    """The readable summary printed without ``--json``."""
    lines = [f"{summary['games']} games scored ({summary['match']} matching)"]
    for model, info in summary["models"].items():
        if info["reason"] is not None:  # a model file without answers: unknown, not 0
            lines.append(f"  {model:18s} n/a ({info['reason']})")
            continue
        ratio = info["reasoning_ratio"]
        ratio_text = f"{ratio:.3f}" if ratio is not None and ratio == ratio else "n/a (no game with a group)"
        lines.append(f"  {model:18s} unweighted {info['unweighted_hist']}  ratio {ratio_text}")
    if summary["taxonomy_reason"] is not None:
        lines.append(f"  taxonomy n/a ({summary['taxonomy_reason']})")
    else:
        lines.append(f"  taxonomy {summary['taxonomy_counts']}")
    for row in summary["table5"]:
        if row["reason"] is not None:
            lines.append(f"  Table 5 {row['model']}: n/a ({row['reason']})")
            continue
        verdict = "agrees" if row["agrees"] else "DIFFERS"
        lines.append(f"  Table 5 {row['model']}: {verdict} (explained games {row['explained_games']})")
    for level, info in summary["humans"].items():
        lines.append(
            f"  {level}: {info['answers']} answers to {info['games']} games; "
            f"{info['games_without_raw_answer']} games of {level}.json without a raw answer (left out)"
        )
    lines.append(f"report: {summary['report']}")
    return lines
