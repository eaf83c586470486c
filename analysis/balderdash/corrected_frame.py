"""The frame :func:`~.corrected.corrected_rates` splits into cells: one metric's judge verdicts,
people's consensus and the ids that seed each cell's intervals."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from wordplay_audit.analysis.balderdash.recompute import METRIC_QUESTION, item_rows
from wordplay_audit.analysis.correction.cells import key_counts as key_counts  # named here too
from wordplay_audit.analysis.judge_audit import human_consensus
from wordplay_audit.corpora.balderdash.frames import as_category

_OTHER = {"true_def": "knows", "knows": "true_def"}


@dataclass
class CellFrame:
    data: pd.DataFrame
    judge_col: str
    other_col: str
    question: str
    has_question: bool
    item_ids: pd.Series  # by position: ``data``'s index is 0..n-1

    def seed_key(self, cell: pd.DataFrame) -> tuple:
        """The cell's first item id (its randomised intervals are seeded by it)."""
        return tuple(self.item_ids.iloc[cell.index[:1]])


def question_frame(
    obs: pd.DataFrame, labels: pd.DataFrame | None, metric: str, item_ids: pd.Series | None = None
) -> CellFrame:
    """The cell data for ``metric``: ``judge``, ``human`` (the consensus; NA where unlabelled
    or when ``labels`` is None) and ``labelled``, indexed 0..n-1. ``item_ids``: by position,
    for an ``obs`` without its ``item_id`` column."""
    question, judge_col = METRIC_QUESTION[metric]
    data = obs.reset_index(drop=True)
    if item_ids is None:
        item_ids = data["item_id"]
    data["judge"] = data[judge_col].astype(bool)
    data["human"] = pd.Series(pd.NA, index=data.index, dtype="boolean")
    if labels is not None:
        consensus = human_consensus(labels, question=question)
        found = item_rows(item_ids, consensus["item_id"])
        human = pd.array(consensus["human"], dtype="boolean")
        data["human"] = human.take(found, allow_fill=True)  # -1 (unlabelled): NA
    data["labelled"] = data["human"].notna()
    return CellFrame(data, judge_col, _OTHER[judge_col], question, bool(data["labelled"].any()), item_ids)


def categorical_texts(obs: pd.DataFrame) -> pd.DataFrame:
    """``obs`` with its text columns as categoricals (the reader's :func:`as_category`): every
    cell, model and stratum below is a group of the million rows, and grouping or taking rows by
    integer codes is several times faster than over (pyarrow) strings. Groupings pass
    ``observed=True``. (``item_id`` is not passed: coding a million distinct ids took ≈ 0.6 s.)"""
    text = [c for c in obs.columns if pd.api.types.is_string_dtype(obs[c]) or obs[c].dtype == object]
    return obs.assign(**{c: as_category(obs[c]) for c in text}) if text else obs
