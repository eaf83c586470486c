"""Adjudication: the (item, question) pairs whose labels disagree go to one person, who sees the
earlier labels beside the item.

:func:`adjudication_queue` picks the pairs (ties included) and, per item, the earlier labels as
shown text — without the raters' names unless asked (:func:`earlier_text`); the queue is kept in
``adjudication.json`` in the campaign folder (:func:`read_adjudication`) and
:func:`push_adjudication` pushes it as the adjudicator's project. ``pull``
(:func:`~wordplay_audit.annotate.workflow.pull_campaign`) then also pulls that project: its rows
carry ``rater_type`` ``adjudicator`` (not a rater: agreement statistics leave them out) and their
labels become final (:func:`~.reconcile.final_labels`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping

import pandas as pd

from wordplay_audit.annotate.campaign import Campaign
from wordplay_audit.annotate.design import uid_of
from wordplay_audit.annotate.reconcile import disputed
from wordplay_audit.annotate.server import Server, Target, push_queues
from wordplay_audit.errors import InputError, at_field

__all__ = [
    "ADJUDICATION_FILE",
    "adjudication_assignments",
    "adjudication_queue",
    "earlier_text",
    "push_adjudication",
    "read_adjudication",
]

ADJUDICATION_FILE = "adjudication.json"


def read_adjudication(campaign: Campaign) -> dict | None:
    """The campaign's adjudication file (None when it has none), checked to be a JSON object
    with ``adjudicator`` and ``assignments``."""
    path = campaign.folder / ADJUDICATION_FILE
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8-sig"))
    except UnicodeDecodeError:
        raise InputError(f"{path}: not UTF-8 text (expected the adjudication queue JSON)") from None
    except json.JSONDecodeError as exc:
        raise InputError(f"{path} line {exc.lineno}: not JSON ({exc.msg})") from None
    if not isinstance(data, dict):
        raise InputError(
            f"{path}: expected a JSON object (the adjudication queue), got {type(data).__name__}"
        )
    for key in ("adjudicator", "assignments"):
        if key not in data:
            raise InputError(f"{at_field(path, key)}missing")
    return data


def adjudication_assignments(adj: dict) -> pd.DataFrame:
    """The adjudicator's queue of an adjudication file as an assignments table (no honeypots)."""
    frame = pd.DataFrame(adj["assignments"], columns=["rater", "position", "item_id", "uid", "honeypot"])
    frame["honeypot"] = False
    return frame


def earlier_text(group: pd.DataFrame, *, show_raters: bool = False) -> str:
    """One item's earlier labels as the adjudicator sees them: each rater's answers together,
    ``rater 1: reference=true, any_sense=false; rater 2: …``, numbered in the order of the
    answers' text (so the number says nothing about who answered: blind); with
    ``show_raters`` the raters' names instead, in the order of the names.

    >>> g = pd.DataFrame({"rater": ["zoe", "ann"], "question": ["", ""], "label": ["true", "false"]})
    >>> earlier_text(g), earlier_text(g, show_raters=True)
    ('rater 1: label=false; rater 2: label=true', 'ann: label=false; zoe: label=true')
    """
    answers = {
        str(rater): ", ".join(
            f"{q or 'label'}={lab}" for q, lab in zip(g["question"], g["label"], strict=True)
        )
        for rater, g in group.groupby("rater")
    }
    if show_raters:
        return "; ".join(f"{rater}: {text}" for rater, text in sorted(answers.items()))
    return "; ".join(f"rater {i}: {text}" for i, text in enumerate(sorted(answers.values()), start=1))


def adjudication_queue(
    campaign: Campaign, labels: pd.DataFrame, adjudicator: str, *, show_raters: bool = False
) -> tuple[dict, dict[str, str]]:
    """The adjudication file's content and, per item, the earlier labels as shown text (blind to
    the raters' names unless ``show_raters``: :func:`earlier_text`)."""
    human = labels[labels["rater_type"] == "human"] if "rater_type" in labels.columns else labels
    if "question" not in human.columns:
        human = human.assign(question="")
    human = human.assign(question=human["question"].fillna(""))
    pairs = disputed(human)
    items = sorted(set(pairs["item_id"]))
    earlier = {
        item_id: earlier_text(group, show_raters=show_raters)
        for item_id, group in human[human["item_id"].isin(items)].groupby("item_id")
    }
    key = f"{campaign.manifest['campaign_id']}:adjudication"
    assignments = [
        {
            "rater": adjudicator,
            "position": i + 1,
            "item_id": item_id,
            "uid": uid_of(key, item_id),
            "honeypot": False,
        }
        for i, item_id in enumerate(items)
    ]
    return {
        "adjudicator": adjudicator,
        "disputed": pairs.to_dict(orient="records"),
        "assignments": assignments,
    }, earlier


def push_adjudication(
    campaign: Campaign, server: Server, adj: dict, earlier: Mapping[str, str]
) -> list[dict]:
    """Push the queue ``adj`` as the adjudicator's project on ``server``, each task showing the
    item and its ``earlier`` labels (by task uid); returns the push records."""
    queue = adjudication_assignments(adj)
    return push_queues(
        server,
        Target(campaign.manifest["campaign_id"], campaign.name, campaign.kind),
        items=campaign.items,
        queues={adj["adjudicator"]: queue},
        earlier=earlier,
        adjudicator=True,
    )
