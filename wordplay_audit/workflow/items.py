"""A game's output as the data contract: items and the labels that came with them (a judge's
verdicts, or the study's own decisions), what every later step takes."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from wordplay_audit.workflow.results import Result, plain
from wordplay_audit.workflow.text import counts

__all__ = ["Items"]


@dataclass
class Items(Result):
    """``items`` (``item_id``, ``game``, ``kind``, the texts shown, strata such as
    ``player_model``) and ``labels`` (long format: ``item_id``, ``rater``, ``rater_type``,
    ``label`` …) of one game's output; ``skipped`` counts what the reader left out.
    ``write(out)`` writes ``items.csv`` and ``labels.csv``."""

    title = "items"
    main_table = "items"

    source: str
    items: pd.DataFrame
    labels: pd.DataFrame
    skipped: dict[str, int] = field(default_factory=dict)
    strata: tuple[str, ...] = ()

    def tables(self) -> dict[str, pd.DataFrame]:
        return {"items": self.items, "labels": self.labels}

    def to_dict(self) -> dict[str, Any]:
        kinds = self.items["kind"].value_counts().to_dict() if "kind" in self.items else {}
        return plain(
            {
                "source": self.source,
                "n_items": len(self.items),
                "kinds": kinds,
                "n_labels": len(self.labels),
                "strata": list(self.strata),
                "skipped": self.skipped,
            }
        )

    def summary(self) -> list[str]:
        kinds = ", ".join(f"{n} {k}" for k, n in self.items["kind"].value_counts().items())
        raters = ", ".join(sorted(self.labels["rater"].astype(str).unique())) if len(self.labels) else "none"
        lines = [
            f"{len(self.items)} items ({kinds or 'none'}) and {len(self.labels)} labels (raters: {raters})"
        ]
        if self.strata:
            lines.append(f"strata columns: {', '.join(self.strata)}")
        if self.skipped:
            lines.append(f"left out: {counts(self.skipped)}")
        return lines

    def write(self, out: str | Path, *, title: str | None = None) -> list[str]:
        """``items.csv`` and ``labels.csv`` into the folder ``out``, in one step."""
        from wordplay_audit.corpora.io import output_folder

        del title
        with output_folder(out, option="out") as staging:
            self.items.to_csv(staging / "items.csv", index=False)
            self.labels.to_csv(staging / "labels.csv", index=False)
        return ["items.csv", "labels.csv"]
