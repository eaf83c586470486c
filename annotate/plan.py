"""``annotate plan``: read the items (and honeypots, judge labels), draw the design, write the campaign."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pandas as pd

from wordplay_audit.annotate.campaign import check_campaign_name, check_honeypots, write_campaign
from wordplay_audit.annotate.configs import KINDS
from wordplay_audit.annotate.design import DesignSpec, design_campaign
from wordplay_audit.corpora.contract import validate_items, validate_labels
from wordplay_audit.errors import InputError, ParameterError, check_choice


def select_kind(items: pd.DataFrame, kind: str | None, source: str) -> tuple[pd.DataFrame, str]:
    """The items of one kind: ``kind`` if given, else the table's only kind."""
    kinds = sorted(items["kind"].unique())
    if kind is None:
        if len(kinds) != 1:
            raise ParameterError(f"kind: {source} holds kinds {', '.join(kinds)}; choose one")
        kind = kinds[0]
    check_choice("kind", kind, KINDS)
    chosen = items[items["kind"] == kind].reset_index(drop=True)
    chosen.attrs = {}
    if chosen.empty:
        raise InputError(f"{source}: holds no item of kind {kind!r} (has {', '.join(kinds)})")
    return chosen, kind


def plan_campaign(
    items: pd.DataFrame,
    folder: Path,
    spec: DesignSpec,
    *,
    honeypots: pd.DataFrame | None = None,
    kind: str | None = None,
    judge_labels: pd.DataFrame | None = None,
    name: str = "campaign",
    population: Callable[[pd.DataFrame], str] | None = None,
) -> dict:
    """Write a campaign's files into ``folder`` (a staging folder); return the manifest.

    ``items``: contract items (``attrs["source"]`` names their file in messages); ``honeypots``:
    items of the campaign's kind with answers (``gold``/``gold_<question>``); ``judge_labels``:
    labels whose judge rows on sampled items are kept for review; ``population``: given the items
    of the chosen kind, where ``annotate next`` finds them later (default: their file)."""
    name = check_campaign_name(name)
    source = str(items.attrs.get("source") or "items")
    items = validate_items(items, source=source)
    chosen, kind = select_kind(items, kind, source)
    pots = None
    if honeypots is not None:
        pots = check_honeypots(honeypots, kind)
        clash = sorted(set(pots["item_id"]) & set(chosen["item_id"]))
        if clash:
            where = honeypots.attrs.get("source") or "honeypots"
            raise InputError(f"{where}: honeypot {clash[0]!r} is also an item to sample (keep them apart)")
    design = design_campaign(chosen, spec, honeypots=pots, campaign=f"{name}:{spec.seed}")
    judge = None
    if judge_labels is not None:
        labels = validate_labels(judge_labels, source=judge_labels.attrs.get("source"))
        judge = labels[
            (labels["rater_type"] == "judge") & labels["item_id"].isin(set(design.sample["item_id"]))
        ]
        if judge.empty:
            raise InputError(
                f"{judge_labels.attrs.get('source') or 'judge_labels'}: holds no judge label on a sampled item"
            )
    sources = {  # absolute: `annotate next` may run from another folder (Campaign.source)
        "items": population(items) if population is not None else _file(items),
        "honeypots": _file(honeypots) if honeypots is not None else "",
        "judge_labels": _file(judge_labels) if judge_labels is not None else "",
    }
    return write_campaign(
        folder, name=name, kind=kind, design=design, honeypots=pots, judge_labels=judge, sources=sources
    )


def _file(table: pd.DataFrame) -> str:
    """The absolute path of the file ``table`` was read from ("" when built in memory)."""
    source = table.attrs.get("source")
    return str(Path(source).resolve()) if source and Path(source).is_file() else ""
