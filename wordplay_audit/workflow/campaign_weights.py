"""An adaptive campaign's sampling weights on the Balderdash table, and its width history.

``annotate next`` writes each sampled item's ``inclusion_probability`` π and ``sampling_weight``
1/π into the campaign's items.csv; the corrected estimates weight each label by them so a
campaign whose sampling rates changed between rounds stays unbiased."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

from wordplay_audit.corpora.contract import place
from wordplay_audit.corpora.values import parse_number
from wordplay_audit.errors import InputError

MANIFEST = "manifest.json"  # the campaign manifest beside a campaign's items.csv (annotate)


def with_sampling_weights(obs: pd.DataFrame, labels: pd.DataFrame, weights: pd.DataFrame) -> pd.DataFrame:
    """``obs`` with column ``sampling_weight`` = 1/π from a campaign's items table.

    Every definition with a human label must have a row; a row's weight may be empty only for a
    honeypot (it then stands for no unlabelled item). Definitions not in the table get nan.
    """
    source = weights.attrs.get("source") or "weights"
    if "item_id" not in weights.columns:
        raise InputError(f"{source}: column 'item_id' is missing (expected a campaign items.csv)")
    column = next((c for c in ("sampling_weight", "inclusion_probability") if c in weights.columns), None)
    if column is None:
        raise InputError(f"{source}: column 'sampling_weight' (or 'inclusion_probability') is missing")
    honeypot = weights.get("honeypot", pd.Series("", index=weights.index)).astype(str).str.lower() == "true"
    by_item: dict = {}
    rows = zip(weights["item_id"], weights[column], honeypot, strict=True)
    for pos, (item, text, pot) in enumerate(rows):
        value = parse_number(text)
        ok = value is not None and (value >= 1 if column == "sampling_weight" else 0 < value <= 1)
        if not ok and not (pot and str(text).strip() in ("", "nan")):
            expected = "a number ≥ 1" if column == "sampling_weight" else "a probability in (0, 1]"
            raise InputError(f"{place(weights, pos, source)}{column} {text!r}: expected {expected}")
        weight = np.nan if not ok else (value if column == "sampling_weight" else 1 / value)
        if item in by_item and by_item[item] != weight and not np.isnan(weight):
            raise InputError(
                f"{place(weights, pos, source)}item_id {item!r} is listed twice with different weights"
            )
        by_item[item] = weight
    labelled = labels.loc[labels["rater_type"] == "human", "item_id"]
    missing = labelled[~labelled.isin(by_item.keys())]
    if len(missing):
        raise InputError(
            f"{source}: item_id {missing.iloc[0]!r} has human labels but no row (its weight is needed)"
        )
    return obs.assign(sampling_weight=obs["item_id"].map(by_item).astype(float))


def campaign_manifest(weights: pd.DataFrame) -> tuple[dict | None, Path | None]:
    """The manifest beside the weights' items table (its ``attrs["source"]``), when there is one."""
    source = weights.attrs.get("source")
    if not source or not (Path(source).parent / MANIFEST).is_file():
        return None, None
    path = Path(source).parent / MANIFEST
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InputError(f"{path}: not a readable campaign manifest ({exc})") from None
    if not isinstance(manifest, dict):
        raise InputError(f"{path}: expected a JSON object (a campaign manifest)")
    return manifest, path


def campaign_width_history(weights: pd.DataFrame) -> pd.DataFrame | None:
    """The width against labels of the campaign's adaptive rounds (None without a manifest)."""
    from wordplay_audit.analysis.balderdash.adaptive_report import width_history

    manifest, source = campaign_manifest(weights)
    return width_history(manifest, source=str(source)) if manifest is not None else None
