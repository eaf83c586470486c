"""Tables as Markdown text (pure). Writing files is the app layer's job:
``write_outputs`` lives in ``wordplay_audit.workflow.files``.
"""

from __future__ import annotations

import pandas as pd

from wordplay_audit.analysis.report import format_cell


def markdown_table(frame: pd.DataFrame, *, digits: int = 3) -> str:
    """A GitHub-flavoured Markdown table (pipes in cells escaped)."""

    def cell(value: object) -> str:
        return format_cell(value, digits).replace("|", "\\|").replace("\n", " ")

    header = "| " + " | ".join(cell(c) for c in frame.columns) + " |"
    rule = "|" + "|".join("---" for _ in frame.columns) + "|"
    body = ["| " + " | ".join(cell(v) for v in row) + " |" for row in frame.itertuples(index=False)]
    return "\n".join([header, rule, *body]) + "\n"
