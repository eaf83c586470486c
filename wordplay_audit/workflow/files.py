"""Write an analysis's files (CSV + Markdown tables, PNG plots, the HTML report) into a folder.

The folder is the staging folder of :func:`wordplay_audit.corpora.io.output_folder`, so a failed
or interrupted run leaves the user's ``--out`` as it was.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import pandas as pd

from wordplay_audit.analysis.report import Report
from wordplay_audit.analysis.report.outputs import markdown_table


def write_outputs(
    folder: str | Path,
    *,
    tables: Mapping[str, pd.DataFrame],
    figures: Mapping[str, bytes] | None = None,
    report: Report | None = None,
    markdown: tuple[str, ...] = (),
) -> dict[str, Path]:
    """Write ``tables`` as ``<name>.csv`` (and ``<name>.md`` for names in ``markdown``),
    ``figures`` as ``<name>.png`` and ``report`` as ``report.html`` into ``folder``; return
    file name → path relative to ``folder`` (``<name>`` may hold a sub-folder: ``a/b``)."""
    folder = Path(folder)
    written: dict[str, Path] = {}

    def put(name: str, data: str | bytes) -> None:
        target = folder / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(data, bytes):
            target.write_bytes(data)
        else:
            target.write_text(data, encoding="utf-8")
        written[name] = Path(name)

    for name, frame in tables.items():
        put(f"{name}.csv", frame.to_csv(index=False))
        if name in markdown:
            put(f"{name}.md", markdown_table(frame))
    for name, png in (figures or {}).items():
        put(f"{name}.png", png)
    if report is not None:
        put("report.html", report.render())
    return written
