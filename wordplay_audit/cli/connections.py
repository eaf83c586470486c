"""``wordplay-audit connections …``: score the Connections study from its raw answers."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from wordplay_audit.cli.output import JSON_OPTION, IntervalSeedOpt, show

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
    show(result, as_json=as_json, write=out, report=str(out / "report.html"))


@app.command("recompute")
def recompute_command(
    data: DataOpt,
    judge_labels: Annotated[
        Path | None,
        typer.Option(
            "--judge-labels",
            help="A judge's verdicts on the category names (default: the study's decisions).",
        ),
    ] = None,
    human: Annotated[
        Path | None, typer.Option("--human", help="People's labels on (a sample of) the category names.")
    ] = None,
    taxonomy: Annotated[
        Path | None,
        typer.Option("--taxonomy", help="Knowledge-type labels of several linguists on the categories."),
    ] = None,
    out: Annotated[Path | None, typer.Option("--out", help="Folder for the tables and report.html.")] = None,
    match: Annotated[
        str, typer.Option("--match", help="exact (case-sensitive, as the study) or casefold.")
    ] = "exact",
    confidence: Annotated[float, typer.Option("--confidence", help="Interval level.")] = 0.95,
    seed: IntervalSeedOpt = None,
    as_json: bool = JSON_OPTION,
) -> None:
    """Categorical-reasoning scores and Table 2 under a judge corrected by a human sample, under
    a panel's consensus, or (--taxonomy) Tables 1 and 2 under new knowledge-type labels."""
    import wordplay_audit as wa

    def read(path: Path | None, final: bool = True):
        return wa.read_labels(path, accept_final=final) if path is not None else None

    result = wa.connections_recompute(data, judge_labels=read(judge_labels, final=False), human=read(human),
                                      taxonomy=read(taxonomy),
                                      match=match, confidence=confidence, seed=seed)  # fmt: skip
    show(result, as_json=as_json, write=out)
