"""Write an analysis's files (CSV + Markdown tables, PNG plots, the HTML report) into a folder.

Everything is written to a temporary folder beside the target and moved into place only when
all of it succeeded, so a failed run leaves no half-written output.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pandas as pd
from wordplay_audit.analysis.report import Report, format_cell


def markdown_table(frame: pd.DataFrame, *, digits: int = 3) -> str:
    """A GitHub-flavoured Markdown table (pipes in cells escaped)."""

    def cell(value: object) -> str:
        return format_cell(value, digits).replace("|", "\\|").replace("\n", " ")

    header = "| " + " | ".join(cell(c) for c in frame.columns) + " |"
    rule = "|" + "|".join("---" for _ in frame.columns) + "|"
    body = ["| " + " | ".join(cell(v) for v in row) + " |" for row in frame.itertuples(index=False)]
    return "\n".join([header, rule, *body]) + "\n"


def write_outputs(
    out_dir: str | Path,
    *,
    tables: dict[str, pd.DataFrame],
    figures: dict[str, bytes] | None = None,
    report: Report | None = None,
    markdown: tuple[str, ...] = (),
) -> dict[str, Path]:
    """Write ``tables`` as ``<name>.csv`` (and ``<name>.md`` for names in ``markdown``),
    ``figures`` as ``<name>.png`` and ``report`` as ``report.html``; return name → final path.

    Files already in ``out_dir`` that this run does not write are left alone.
    """
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".staging-", dir=out_dir))
    written: dict[str, Path] = {}
    try:
        for name, frame in tables.items():
            target = staging / f"{name}.csv"
            target.parent.mkdir(parents=True, exist_ok=True)
            frame.to_csv(target, index=False)
            written[f"{name}.csv"] = target
            if name in markdown:
                md = staging / f"{name}.md"
                md.write_text(markdown_table(frame), encoding="utf-8")
                written[f"{name}.md"] = md
        for name, png in (figures or {}).items():
            target = staging / f"{name}.png"
            target.write_bytes(png)
            written[f"{name}.png"] = target
        if report is not None:
            target = staging / "report.html"
            target.write_text(report.render(), encoding="utf-8")
            written["report.html"] = target
        final: dict[str, Path] = {}
        for name, path in written.items():
            destination = out_dir / path.relative_to(staging)
            destination.parent.mkdir(parents=True, exist_ok=True)
            path.replace(destination)
            final[name] = destination
        return final
    finally:
        shutil.rmtree(staging, ignore_errors=True)
