"""Balderdash pipeline of the demo: simulate a campaign in the export format, read it back as a
user's export would be read, analyse it once, lay out the report section."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from wordplay_audit.analysis.balderdash.report import balderdash_section
from wordplay_audit.analysis.balderdash.summary import analyze_balderdash
from wordplay_audit.analysis.report import Section
from wordplay_audit.corpora.balderdash import (
    SimConfig,
    player_round_table,
    read_export,
    simulate_to_folder,
    true_rates,
)
from wordplay_audit.corpora.contract import read_labels

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
    result = analyze_balderdash(obs, labels, eps=(0.1, 0.2, 0.3), skipped=export.skipped, seed=seed)
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
