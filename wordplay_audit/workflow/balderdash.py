"""The Balderdash study from Python: read an export, people's labels of its definitions, and
its metrics (``balderdash metrics``). The other ``balderdash`` commands build on these: the rates
recomputed under human labels (:mod:`~wordplay_audit.workflow.balderdash_recompute`),
convergence, trend tests and the full report (:mod:`~wordplay_audit.workflow.balderdash_rounds`),
contract items, simulated campaigns and label planning
(:mod:`~wordplay_audit.workflow.balderdash_sim`).

In a notebook::

    import wordplay_audit as wa
    data = wa.read_balderdash("sim/")
    wa.balderdash_metrics(data).to_frame("settings")
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import pandas as pd

from wordplay_audit.errors import InputError
from wordplay_audit.workflow.results import Result, plain
from wordplay_audit.workflow.text import counts, frame_lines

__all__ = ["BalderdashData", "BalderdashMetrics", "balderdash_metrics", "read_balderdash"]

Design = Literal["stratified", "random"]
DESIGNS = ("stratified", "random")


@dataclass
class BalderdashData:
    """An export folder read once: ``export`` (games, players, rounds, items, what the reader
    skipped) and ``obs``, one row per (game, round, player) — the input of every analysis."""

    folder: Path
    export: Any
    obs: pd.DataFrame

    @property
    def skipped(self) -> dict[str, int]:
        return dict(self.export.skipped)

    def __repr__(self) -> str:
        return f"BalderdashData({str(self.folder)!r}: {len(self.obs)} player-rounds)"


def read_balderdash(
    export: str | Path, *, words: Sequence[str | Path] | None = None, texts: bool = True
) -> BalderdashData:
    """Read a mongoexport folder (``games``, ``players``, ``rounds``; optional words files or
    folders in ``words``). ``texts=False`` skips the definitions' texts (every analysis but
    :func:`balderdash_items` works without them, at a fraction of the memory). Nothing
    process-wide is changed (Arrow's memory pool, the C heap): the command line does that
    around its own reads."""
    from wordplay_audit.corpora.balderdash import player_round_table, read_export

    data = read_export(export, words=words, texts=texts)
    return BalderdashData(Path(export), data, player_round_table(data))


def _source(table: pd.DataFrame, name: str) -> str:
    return str(table.attrs.get("source") or name)


def human_rows(data: BalderdashData, human: pd.DataFrame, *, parameter: str = "human") -> pd.DataFrame:
    """People's rows of ``human`` (true/false labels naming definitions of the export); judge
    rows are left out and counted (``attrs["judge_rows_left_out"]``)."""
    from wordplay_audit.analysis.balderdash.recompute import known_items
    from wordplay_audit.analysis.judge_audit import boolean_labels
    from wordplay_audit.corpora.consensus import people_rows
    from wordplay_audit.corpora.contract import place

    source = _source(human, parameter)
    labels = boolean_labels(human, source=source)  # per rater (pull's labels.csv) or final (final.csv)
    unknown = ~known_items(data.obs, labels["item_id"])  # one hashed pass (Series.isin: 14 s at 1M)
    if unknown.any():
        pos = int(unknown.nonzero()[0][0])
        raise InputError(
            f"{place(labels, pos, source)}item_id {labels['item_id'].iloc[pos]!r} names no definition in the export"
        )
    people, others = people_rows(labels)  # the index stays the file's lines
    if people.empty:
        raise InputError(f"{source}: holds no human labels (rater_type 'human')")
    people.attrs["judge_rows_left_out"] = others
    return people


# ---------------------------------------------------------------------------------- metrics

METRICS_SHOWN = ["deck", "filter_words", "history_type", "model", "n_games", "lkr_mean", "lkr_sd", "tdr_mean",
                 "tdr_sd", "dr_mean", "cgr_mean", "as_mean"]  # fmt: skip


@dataclass
class BalderdashMetrics(Result):
    """The study's LKR, TDR, DR, CGR and AS per round, game and setting, under the judge's
    labels, over the complete games (a game lacking a round is left out, as the framework does)."""

    title = "Balderdash metrics"
    main_table = "settings"

    export: str
    metrics: dict[str, pd.DataFrame]
    skipped: dict[str, int]
    incomplete_games: list[str]

    def tables(self) -> dict[str, pd.DataFrame]:
        return {k: self.metrics[k] for k in ("settings", "games", "rounds")}

    def to_dict(self) -> dict[str, Any]:
        return plain(
            {
                "export": self.export,
                "skipped": self.skipped,
                "incomplete_games": self.incomplete_games,
                **{k: self.metrics[k] for k in ("settings", "games", "rounds")},
            }
        )

    def summary(self) -> list[str]:
        cols = [c for c in METRICS_SHOWN if c in self.metrics["settings"].columns]
        return [
            "per setting and model (judge labels):",
            *frame_lines(self.metrics["settings"], cols),
            f"left out: {counts(self.skipped)}",
        ]

    def section(self):
        from wordplay_audit.analysis.report import Paragraph, Section, Table

        cols = [c for c in METRICS_SHOWN if c in self.metrics["settings"].columns]
        return Section(
            self.title,
            [
                Paragraph(f"Export {self.export}; left out: {counts(self.skipped)}."),
                Table(self.metrics["settings"][cols], caption="Per setting and model (judge labels)"),
            ],
        )


def balderdash_metrics(data: BalderdashData) -> BalderdashMetrics:
    """LKR, TDR, DR, CGR and AS per round, game and setting (judge labels)."""
    from wordplay_audit.analysis.balderdash.metrics import balderdash_metrics as metrics
    from wordplay_audit.analysis.balderdash.metrics import complete_games

    kept, dropped = complete_games(data.obs, data.export.games.set_index("game_id")["number_of_rounds"])
    if kept.empty:
        raise InputError(f"{data.folder}: no complete game (every game lacks some of its rounds)")
    extra = data.skipped.get("games_with_extra_rounds", 0)  # every such game is left out too
    skipped = {**data.skipped, "incomplete_games_left_out": len(dropped) - extra}
    skipped.update({"games_with_extra_rounds_left_out": extra} if extra else {})
    return BalderdashMetrics(str(data.folder), metrics(kept), skipped, dropped)
