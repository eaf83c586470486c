"""Scripted raters: Label Studio JSON exports of a campaign answered from known labels, to try a
campaign end to end (plan → tasks → answers → import → agreement → audit) before real people
label, or to simulate one.

Each rater answers every task of their queue: the known label of the item (and question) with
probability ``accuracy``, else another of the question's answers drawn uniformly; a share
``skip`` of tasks is skipped (``was_cancelled``). A task whose item has no known label is left
unanswered (it reads as missing). The export is the full JSON format Label Studio writes
(``[{"id", "data", "annotations": [{"id", "completed_by", "result", …}]}]``), read back by
:func:`~wordplay_audit.annotate.exports.read_export_file`.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from wordplay_audit.annotate.campaign import Campaign
from wordplay_audit.annotate.configs import interface, judge_prediction
from wordplay_audit.annotate.server import build_tasks
from wordplay_audit.errors import InputError, ParameterError

__all__ = ["scripted_exports"]


def _known(truth: pd.DataFrame) -> dict[str, dict[str, str]]:
    """item_id → {question: label} from a table of ``item_id``, ``label`` (and ``question``)."""
    for column in ("item_id", "label"):
        if column not in truth.columns:
            raise InputError(f"{truth.attrs.get('source') or 'truth'}: column {column!r} is missing")
    question = (
        truth["question"].fillna("") if "question" in truth.columns else pd.Series("", index=truth.index)
    )
    out: dict[str, dict[str, str]] = {}
    for item, q, label in zip(
        truth["item_id"].astype(str), question.astype(str), truth["label"].astype(str), strict=True
    ):
        out.setdefault(item, {})[q] = label
    return out


def _answer(kind: str, known: Mapping[str, str], accuracy: float, rng: np.random.Generator) -> list[dict]:
    """One annotation's result: each question the known label, or (1 − accuracy) another."""
    given = {}
    for question in interface(kind).questions:
        label = known.get(question.label or "", known.get(question.name))
        if label is None and not question.label:
            label = known.get("")
        if label is None:
            continue
        stored = [s for _shown, s in question.choices]
        if rng.random() >= accuracy and len(stored) > 1:
            label = str(rng.choice([s for s in stored if s != label]))
        given[question.label or question.name] = label
    prediction = judge_prediction(kind, given, "scripted") if given else None
    return prediction["result"] if prediction else []


def scripted_exports(
    campaign: Campaign,
    truth: pd.DataFrame,
    *,
    accuracy: float | Mapping[str, float] = 1.0,
    skip: float = 0.0,
    seed: int = 0,
) -> dict[str, list[dict]]:
    """Per rater, the JSON export of their queue answered from ``truth`` (``item_id``,
    ``label``, optional ``question``); ``accuracy`` one share for every rater or one per rater."""
    if not 0 <= skip < 1:
        raise ParameterError(f"skip: expected a share in [0, 1), got {skip}")
    rates = accuracy if isinstance(accuracy, Mapping) else dict.fromkeys(campaign.raters, accuracy)
    for rater in campaign.raters:
        rate = rates.get(rater)
        if rate is None or not 0 <= float(rate) <= 1:
            raise ParameterError(f"accuracy: expected a share in [0, 1] for rater {rater!r}, got {rate!r}")
    known = _known(truth)
    rng = np.random.default_rng(seed)
    out: dict[str, list[dict]] = {}
    next_id = 1
    a = campaign.assignments
    for rater in campaign.raters:
        queue = a[a["rater"] == rater].sort_values("position")
        tasks = build_tasks(queue, campaign.items, campaign.kind)
        for task, item_id in zip(tasks, queue["item_id"].astype(str), strict=True):
            task["id"] = next_id
            labels = known.get(item_id)
            if labels is not None:
                cancelled = bool(rng.random() < skip)
                result = [] if cancelled else _answer(campaign.kind, labels, float(rates[rater]), rng)
                task["annotations"] = [{"id": next_id, "completed_by": {"email": f"{rater}@scripted"},
                                        "was_cancelled": cancelled, "result": result,
                                        "updated_at": f"2026-01-01T00:00:{next_id % 60:02d}Z"}]  # fmt: skip
            next_id += 1
        out[rater] = tasks
    return out
