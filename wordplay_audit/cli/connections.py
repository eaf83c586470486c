"""``wordplay-audit connections …``: score the Connections study from its raw answers."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from wordplay_audit.cli.output import JSON_OPTION, show

app = typer.Typer(
    rich_markup_mode=None, help="The NYT Connections study: read, score, audit.", no_args_is_help=True
)

DataOpt = Annotated[
    Path, typer.Option("--data", help="Folder with the study's files (gold_data.json, model answers …).")
]


@app.command("score")
def score_command(
    data: DataOpt,
    out: Annotated[
        Path, typer.Option("--out", help="Folder for the score CSVs, tables, plots and report.html.")
    ],
    match: Annotated[
        str, typer.Option("--match", help="exact (case-sensitive, as the study) or casefold.")
    ] = "exact",
    as_json: bool = JSON_OPTION,
) -> None:
    """Score every model and human player, reproduce Tables 1 and 5, audit the files."""
    import wordplay_audit as wa

    result = wa.connections_score(data, match=match)
    show(result, as_json=as_json, out=out, report=str(out / "report.html"))
