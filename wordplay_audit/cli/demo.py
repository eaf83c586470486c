"""``wordplay-audit demo``: run everything on the bundled demo corpus and write the report."""

from __future__ import annotations

from pathlib import Path

import typer

from wordplay_audit.cli.output import JSON_OPTION, emit


def command(
    out: Path = typer.Option(Path("demo-out"), "--out", help="Folder for the report and tables."),
    seed: int = typer.Option(0, "--seed", help="Seed of the simulated parts."),
    as_json: bool = JSON_OPTION,
) -> None:
    """Run every analysis offline on the demo corpus; print a summary and the report's path."""
    from wordplay_audit.corpora.demo.run import run_demo

    summary = run_demo(out, seed=seed)
    lines = [f"{k}: {v}" for k, v in summary.items() if k != "report"]
    lines.append(f"report written to {summary['report']}")
    emit(summary, as_json=as_json, lines=lines)
