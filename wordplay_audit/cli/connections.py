"""``wordplay-audit connections score``: score the Connections study from its raw answers."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from wordplay_audit.cli.output import emit
from wordplay_audit.errors import check_choice

NAME = "connections"
app = typer.Typer(
    rich_markup_mode=None, help="The NYT Connections study: read, score, audit.", no_args_is_help=True
)


@app.command("score")
def score(
    data: Annotated[
        Path, typer.Option("--data", help="Folder with the study's files (gold_data.json, model answers …).")
    ],
    out: Annotated[
        Path, typer.Option("--out", help="Folder for the score CSVs, tables, plots and report.html.")
    ],
    match: Annotated[
        str, typer.Option("--match", help="exact (case-sensitive, as the study) or casefold.")
    ] = "exact",
    as_json: Annotated[
        bool, typer.Option("--json", help="Print one JSON object instead of a summary.")
    ] = False,
) -> None:
    """Score every model and human player, reproduce Tables 1 and 5, audit the files."""
    from wordplay_audit.analysis.connections import MATCH_MODES
    from wordplay_audit.pipelines.connections import score_connections, summary_lines

    check_choice("--match", match, MATCH_MODES)

    summary = score_connections(data, out, match=match)
    emit(summary, as_json=as_json, lines=summary_lines(summary))
