"""Balderdash pipelines: the demo (simulate a campaign in the export format, read it back as a
user's export would be read, analyse it once, lay out the report section), and for ``balderdash
recompute`` an adaptive campaign's sampling weights (``--weights``) and the written outputs
(``--out``: corrected rates, the width-against-labels plot of the campaign's rounds)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from wordplay_audit.analysis.balderdash.adaptive_report import adaptive_blocks, width_figure, width_history
from wordplay_audit.analysis.balderdash.report import CORRECTED_SHOWN, UNKNOWN_NOTE, balderdash_section
from wordplay_audit.analysis.balderdash.summary import analyze_balderdash
from wordplay_audit.analysis.report import Report, Section, Table, figure_png
from wordplay_audit.corpora.balderdash import (
    SimConfig,
    player_round_table,
    read_export,
    simulate_to_folder,
    true_rates,
)
from wordplay_audit.corpora.consensus import people_rows
from wordplay_audit.corpora.contract import place, read_labels, read_table
from wordplay_audit.corpora.io import output_folder
from wordplay_audit.corpora.values import parse_number
from wordplay_audit.errors import InputError
from wordplay_audit.pipelines.outputs import write_outputs

DEMO_MODELS = ("omniscient-llm", "average-llm")


def demo_config() -> SimConfig:
    """A small campaign (one model knows every word) that runs in a few seconds."""
    return SimConfig(
        models=DEMO_MODELS,
        games_per_deck=2,
        players_per_model=2,
        n_rounds=12,
        know={"omniscient-llm": {"basic_english_words": 1.0, "balderdash_words": 1.0}},
        labels_per_stratum=20,
    )


def run_demo_part(folder: str | Path, seed: int = 0) -> tuple[dict[str, Any], Section]:
    """Write the simulated export into ``folder`` and analyse it; return a JSON-ready summary
    and the report section."""
    folder = Path(folder)
    campaign = simulate_to_folder(folder, seed=seed, config=demo_config())
    export = read_export(folder)
    obs = player_round_table(export)
    labels = read_labels(folder / "labels.csv")
    # the demo's judge is as accurate in every round (its simulator), so its rounds may borrow
    result = analyze_balderdash(
        obs, labels, eps=(0.1, 0.2, 0.3), skipped=export.skipped, seed=seed, constant_accuracy=True
    )
    section = balderdash_section(result, title="Balderdash (simulated demo campaign)")
    conv = result.convergence
    omni = conv[(conv["model"] == "omniscient-llm") & (conv["eps"] == 0.1)]
    truth = true_rates(campaign)
    summary = {
        "export": str(folder),
        "n_definitions": int(len(obs)),
        "n_human_labels": int(len(labels)),
        "judge_fnr": {
            str(r["player_model"]): float(r["fnr_w"])
            for r in result.audits["reference"].to_dict(orient="records")
        },
        "omniscient_true_lkr": float(truth.loc[truth["model"] == "omniscient-llm", "lkr"].mean()),
        "omniscient_judge_lkr": float(obs.loc[obs["model"] == "omniscient-llm", "knows"].mean()),
        "omniscient_converged_eps_0.1": {
            "judge_labels": bool(omni["converged_judge"].all()),
            "window_bound": bool(omni["converged_window"].fillna(False).all()),
        },
        "window_lower_bound": [float(v) for v in omni["window_lower"].to_numpy() if np.isfinite(v)],
    }
    return summary, section


def with_sampling_weights(obs: pd.DataFrame, labels: pd.DataFrame, path: str | Path) -> pd.DataFrame:
    """``obs`` with column ``sampling_weight`` = 1/π from a campaign's items.csv (``annotate
    next`` writes ``inclusion_probability`` and ``sampling_weight`` per sampled item), so the
    corrected estimates stay unbiased when the sampling rates changed between rounds.

    Every definition with a human label must have a row; a row's weight may be empty only for a
    honeypot (it then stands for no unlabelled item). Definitions not in the file get nan.
    """
    table = read_table(path)
    if "item_id" not in table.columns:
        raise InputError(f"{path}: column 'item_id' is missing (expected a campaign items.csv)")
    column = next((c for c in ("sampling_weight", "inclusion_probability") if c in table.columns), None)
    if column is None:
        raise InputError(f"{path}: column 'sampling_weight' (or 'inclusion_probability') is missing")
    honeypot = table.get("honeypot", pd.Series("", index=table.index)).astype(str).str.lower() == "true"
    weights = {}
    for pos, (item, text, pot) in enumerate(zip(table["item_id"], table[column], honeypot, strict=True)):
        value = parse_number(text)
        ok = value is not None and (value >= 1 if column == "sampling_weight" else 0 < value <= 1)
        if not ok and not (pot and str(text).strip() in ("", "nan")):
            expected = "a number ≥ 1" if column == "sampling_weight" else "a probability in (0, 1]"
            raise InputError(f"{place(table, pos)}{column} {text!r}: expected {expected}")
        weight = np.nan if not ok else (value if column == "sampling_weight" else 1 / value)
        if item in weights and weights[item] != weight and not np.isnan(weight):
            raise InputError(f"{place(table, pos)}item_id {item!r} is listed twice with different weights")
        weights[item] = weight
    labelled = people_rows(labels)[0]["item_id"]  # per rater or final labels
    missing = labelled[~labelled.isin(weights.keys())]
    if len(missing):
        raise InputError(
            f"{path}: item_id {missing.iloc[0]!r} has human labels but no row (its weight is needed)"
        )
    return obs.assign(sampling_weight=obs["item_id"].map(weights).astype(float))


MANIFEST = "manifest.json"  # the campaign manifest beside a campaign's items.csv (annotate)


def _campaign_manifest(weights: str | Path | None) -> tuple[dict | None, Path | None]:
    """The manifest beside the ``--weights`` items table, when there is one."""
    if weights is None or not (Path(weights).parent / MANIFEST).is_file():
        return None, None
    path = Path(weights).parent / MANIFEST
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InputError(f"{path}: not a readable campaign manifest ({exc})") from None
    if not isinstance(manifest, dict):
        raise InputError(f"{path}: expected a JSON object (a campaign manifest)")
    return manifest, path


def write_recompute_outputs(
    out: str | Path, corrected: pd.DataFrame, weights: str | Path | None
) -> list[str]:
    """Write ``corrected.csv`` and ``report.html`` (the corrected rates; with a campaign manifest
    beside ``weights`` that has adaptive rounds, also ``width_history.csv``, ``width.png`` and
    the width-against-labels section) into ``out`` in one step; return the file names."""
    manifest, source = _campaign_manifest(weights)
    history = width_history(manifest, source=str(source)) if manifest is not None else None
    report = Report(
        "wordplay-audit: Balderdash corrected rates", intro=f"Sampling weights: {weights or 'none'}"
    )
    columns = [c for c in CORRECTED_SHOWN if c in corrected.columns]
    caption = f"Corrected LKR and TDR per model and deck (95 %; a missing interval says why in *_reason; {UNKNOWN_NOTE})"
    report.add(Section("Corrected rates", [Table(corrected[columns], caption=caption)]))
    tables, figures = {"corrected": corrected}, {}
    if history is not None and len(history):
        report.add(Section("Adaptive campaign: interval width against labels", adaptive_blocks(history)))
        tables["width_history"] = history
        figures["width"] = figure_png(width_figure(history))
    with output_folder(out) as folder:
        names = write_outputs(folder, tables=tables, figures=figures, report=report)
    return sorted(str(n) for n in names)
