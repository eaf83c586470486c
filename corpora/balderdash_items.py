"""Balderdash definitions as the contract's items and the judge's verdicts as labels.

Built on :mod:`corpora.balderdash`: :func:`~corpora.balderdash.build_items` gives one
``definition`` item per (game, round, player) with its strata (player model, deck, round,
history type, judge verdict, word-frequency band when a words file gives one);
:func:`~corpora.balderdash.judge_labels` gives the judge's two verdicts per definition
(``question`` = ``reference`` and ``any_sense``, ``rater_type`` = ``judge``).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import pandas as pd

from wordplay_audit.corpora.balderdash import judge_labels, read_export
from wordplay_audit.corpora.contract import validate_labels


def balderdash_items(
    export: str | Path, *, words: Iterable[str | Path] | None = None
) -> tuple[pd.DataFrame, pd.DataFrame, dict[str, int]]:
    """(items, judge labels, counts of what the reader skipped) of one export folder."""
    data = read_export(export, words=words)
    labels = validate_labels(judge_labels(data), items=data.items, source=str(export))
    return data.items, labels, dict(data.skipped)


def write_balderdash_items(folder: Path, items: pd.DataFrame, labels: pd.DataFrame) -> list[str]:
    """Write ``items.csv`` and ``labels.csv`` into ``folder`` (a staging folder)."""
    items.to_csv(folder / "items.csv", index=False)
    labels.to_csv(folder / "labels.csv", index=False)
    return ["items.csv", "labels.csv"]
