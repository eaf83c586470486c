"""``annotate plan``: read the items (and honeypots, judge labels), draw the design, write the campaign."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from wordplay_audit.annotate.campaign import check_campaign_name, read_honeypots, write_campaign
from wordplay_audit.annotate.configs import KINDS
from wordplay_audit.annotate.design import DesignSpec, design_campaign
from wordplay_audit.corpora.contract import read_items, read_labels
from wordplay_audit.errors import InputError, ParameterError, check_choice


def select_kind(items: pd.DataFrame, kind: str | None, source: str) -> tuple[pd.DataFrame, str]:
    """The items of one kind: ``kind`` if given, else the table's only kind."""
    kinds = sorted(items["kind"].unique())
    if kind is None:
        if len(kinds) != 1:
            raise ParameterError(f"--kind: {source} holds kinds {', '.join(kinds)}; choose one")
        kind = kinds[0]
    check_choice("--kind", kind, KINDS)
    chosen = items[items["kind"] == kind].reset_index(drop=True)
    chosen.attrs = {}
    if chosen.empty:
        raise InputError(f"{source}: holds no item of kind {kind!r} (has {', '.join(kinds)})")
    return chosen, kind


def plan_campaign(
    items_file: Path,
    folder: Path,
    spec: DesignSpec,
    *,
    honeypots_file: Path | None = None,
    kind: str | None = None,
    judge_labels_file: Path | None = None,
    name: str = "campaign",
) -> dict:
    """Write a campaign folder's files into ``folder``; return the manifest."""
    name = check_campaign_name(name)
    items, kind = select_kind(read_items(items_file), kind, str(items_file))
    honeypots = read_honeypots(honeypots_file, kind) if honeypots_file is not None else None
    if honeypots is not None:
        clash = sorted(set(honeypots["item_id"]) & set(items["item_id"]))
        if clash:
            raise InputError(
                f"{honeypots_file}: honeypot {clash[0]!r} is also an item to sample (keep them apart)"
            )
    design = design_campaign(items, spec, honeypots=honeypots, campaign=f"{name}:{spec.seed}")
    judge = None
    if judge_labels_file is not None:
        labels = read_labels(judge_labels_file)
        judge = labels[
            (labels["rater_type"] == "judge") & labels["item_id"].isin(set(design.sample["item_id"]))
        ]
        if judge.empty:
            raise InputError(f"{judge_labels_file}: holds no judge label on a sampled item")
    sources = {  # absolute: `annotate next` may run from another folder (Campaign.source)
        "items": str(Path(items_file).resolve()),
        "honeypots": str(Path(honeypots_file).resolve()) if honeypots_file else "",
        "judge_labels": str(Path(judge_labels_file).resolve()) if judge_labels_file else "",
    }
    return write_campaign(
        folder, name=name, kind=kind, design=design, honeypots=honeypots, judge_labels=judge, sources=sources
    )
