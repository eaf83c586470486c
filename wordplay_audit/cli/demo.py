"""``wordplay-audit demo``: run everything on the bundled demo corpus and write the report."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from wordplay_audit.cli.output import JSON_OPTION, SeedOpt, show

OutOpt = Annotated[Path, typer.Option("--out", help="Folder for the report and tables (replaced whole).")]


def command(out: OutOpt = Path("demo-out"), seed: SeedOpt = 0, as_json: bool = JSON_OPTION) -> None:
    """Run every analysis offline on the demo corpus; print a summary and the report's path."""
    import wordplay_audit as wa

    show(wa.run_demo(out, seed=seed), as_json=as_json)
