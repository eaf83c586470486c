"""Small CSV files written from rows, for the command tests."""

from __future__ import annotations

import pandas as pd


def write_csv(path, rows: list[dict]) -> str:
    """``rows`` as a CSV file at ``path`` (header from the keys); returns the path as text."""
    pd.DataFrame(rows).to_csv(path, index=False)
    return str(path)
