"""``wordplay-audit connections score``: score the Connections study from its raw answers."""

from __future__ import annotations

from pathlib import Path

import typer

from wordplay_audit.cli.output import JSON_OPTION, emit
from wordplay_audit.errors import check_choice

app = typer.Typer(help="The NYT Connections study: read, score, audit.", no_args_is_help=True)


@app.command("score")
def score(
    data: Path = typer.Option(..., "--data", help="Folder with the study's files (gold_data.json, model answers …)."),
    out: Path = typer.Option(..., "--out", help="Folder for the score CSVs, tables, plots and report.html."),
    match: str = typer.Option("exact", "--match", help="exact (case-sensitive, as the study) or casefold."),
    as_json: bool = JSON_OPTION,
) -> None:
    """Score every model and human player, reproduce Tables 1 and 5, audit the files."""
    from wordplay_audit.analysis.connections import MATCH_MODES
    from wordplay_audit.analysis.connections_report import (
        MARKDOWN_TABLES,
        analyze_connections,
        connections_section,
        result_tables,
    )
    from wordplay_audit.analysis.report import Report
    from wordplay_audit.analysis.report.outputs import write_outputs
    from wordplay_audit.corpora.connections import read_connections

    check_choice("--match", match, MATCH_MODES)
    result = analyze_connections(read_connections(data), match=match)
    report = Report("wordplay-audit: Connections", intro=f"Data: {data}")
    report.add(connections_section(result))
    paths = write_outputs(out, tables=result_tables(result), figures=result.figures, report=report, markdown=MARKDOWN_TABLES)
    summary = result.to_json()
    summary["report"] = str(paths["report.html"])
    lines = [f"{result.games} games scored ({match} matching)"]
    for model, info in result.models.items():
        lines.append(f"  {model:18s} unweighted {info['unweighted_hist']}  ratio {info['reasoning_ratio']:.3f}")
    lines.append(f"  taxonomy {result.taxonomy}")
    for row in result.table5.itertuples(index=False):
        lines.append(f"  Table 5 {row.model}: {'agrees' if row.agrees else 'DIFFERS'} (explained games {row.explained_games})")
    lines.append(f"report: {paths['report.html']}")
    emit(summary, as_json=as_json, lines=lines)
