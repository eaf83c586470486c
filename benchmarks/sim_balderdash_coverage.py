"""Coverage of the corrected LKR/TDR intervals (Rogan–Gladen and PPI++) over simulated campaigns.

Usage: python benchmarks/sim_balderdash_coverage.py [--campaigns 500] [--design stratified|random]
       [--method exact|normal]   (normal: the delta-method intervals, for comparison)
Prints one JSON object: coverage (over the intervals printed) and mean error of each method per
metric and deck, the share of cells without an interval (null bounds with a reason: unknown, not
a miss; counted as misses they would read PPI's balderdash_words coverage as 0.76), and the
naive (judge-label) bias; ``by_empty_part``: coverage per metric × deck given how the cell's
(verdict × other decision) post-strata were labelled (``empty``: one holds unlabelled items and
no label; ``few``: 1–4 labels; ``labelled``: ≥ 5 each), from the campaign.
Seeds 0..campaigns-1; deterministic.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
import pandas as pd

from benchmarks import seed_loop
from wordplay_audit.analysis.balderdash.corrected import CorrectionOptions, corrected_rates
from wordplay_audit.analysis.balderdash.corrected_frame import question_frame
from wordplay_audit.analysis.balderdash.recompute import labels_for
from wordplay_audit.analysis.correction import MIN_LABELS
from wordplay_audit.corpora.balderdash.simulate import SimConfig, simulate_campaign, true_rates


def campaign_config(design: str, labels: int | None = None) -> SimConfig:
    """The simulated campaign these coverage benchmarks share: 5 games per deck, 30 rounds, 25
    labels per model × deck × verdict (stratified) or 50 per model × deck (random)."""
    labels = labels or (25 if design == "stratified" else 50)
    return SimConfig(design=design, games_per_deck=5, n_rounds=30, labels_per_stratum=labels)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--campaigns", type=int, default=500)
    parser.add_argument("--design", default="stratified", choices=["stratified", "random"])
    parser.add_argument("--labels", type=int, default=None, help="labels per stratum")
    parser.add_argument("--method", default="exact", choices=["exact", "normal"])
    args = parser.parse_args()
    config = campaign_config(args.design, args.labels)
    labels = config.labels_per_stratum
    start = time.time()
    parts = []
    for seed in seed_loop(range(args.campaigns), desc="campaigns"):
        campaign = simulate_campaign(config, seed=seed)
        options = CorrectionOptions(method=args.method, seed=seed)
        table = corrected_rates(campaign.obs, campaign.labels, design=args.design, options=options)
        truth = true_rates(campaign).melt(
            id_vars=["model", "deck", "n"], value_vars=["lkr", "tdr"], var_name="metric", value_name="truth"
        )
        merged = table.merge(truth, on=["model", "deck", "metric"]).merge(
            empty_parts(campaign.obs, campaign.labels), on=["model", "deck", "metric"], how="left"
        )
        for m in ("rg", "ppi"):
            shown = merged[f"{m}_low"].notna() & merged[f"{m}_high"].notna()
            inside = (merged[f"{m}_low"] <= merged["truth"]) & (merged["truth"] <= merged[f"{m}_high"])
            # no interval (a null bound with its reason) is unknown, not a miss: left out of the
            # coverage and counted in {m}_no_interval
            merged[f"{m}_cover"] = inside.astype(float).where(shown)
            merged[f"{m}_no_interval"] = (~shown).astype(float)
            merged[f"{m}_error"] = merged[m] - merged["truth"]
            merged[f"{m}_width"] = merged[f"{m}_high"] - merged[f"{m}_low"]
        merged["judge_error"] = merged["judge"] - merged["truth"]
        parts.append(merged)
    allrows = pd.concat(parts, ignore_index=True)
    summary = (
        allrows.groupby(["metric", "deck"])[
            ["rg_cover", "ppi_cover", "rg_no_interval", "ppi_no_interval", "rg_error", "ppi_error"]
            + ["judge_error", "rg_width", "ppi_width"]
        ]
        .mean()
        .round(4)
        .reset_index()
    )
    split = {
        f"{m}_cover": allrows.groupby(["metric", "deck", "empty_part"])[f"{m}_cover"]
        .agg(["mean", "count"])
        .round(4)
        for m in ("rg", "ppi")
    }
    result = {
        "design": args.design,
        "method": args.method,
        "campaigns": args.campaigns,
        "labels_per_stratum": labels,
        "intervals_per_method": int(len(allrows)),
        "overall": {m: float(np.round(allrows[f"{m}_cover"].mean(), 4)) for m in ("rg", "ppi")},
        "no_interval": {m: float(np.round(allrows[f"{m}_no_interval"].mean(), 4)) for m in ("rg", "ppi")},
        "by_metric_deck": summary.to_dict(orient="records"),
        # coverage given how the cell's (verdict × other decision) post-strata were labelled
        # (empty_parts): mean over the printed intervals and their count
        "by_empty_part": {
            k: {
                f"{mt} {deck} {flag}": [None if pd.isna(a) else a for a in v]
                for (mt, deck, flag), v in t.iterrows()
            }
            for k, t in split.items()
        },
        "seconds": round(time.time() - start, 1),
    }
    print(json.dumps(result, indent=2))


def empty_parts(obs: pd.DataFrame, labels: pd.DataFrame) -> pd.DataFrame:
    """Per (model, deck, metric): ``empty`` when a post-stratum judge × other decision holds
    unlabelled items but no label of the cell, ``few`` when one holds 1 to MIN_LABELS − 1 labels,
    else ``labelled`` (computed from the campaign, not from the estimator)."""
    checked, rows = labels_for(obs, labels), []
    for metric in ("lkr", "tdr"):
        frame = question_frame(obs, checked, metric)
        data = frame.data.assign(
            unl=~frame.data["labelled"].astype(bool), lab=frame.data["labelled"].astype(bool)
        )
        parts = data.groupby(["model", "deck", "judge", frame.other_col], observed=True, dropna=False)[
            ["unl", "lab"]
        ].sum()
        live = parts["unl"] > 0
        flags = pd.DataFrame({"empty": live & (parts["lab"] == 0), "few": live & (parts["lab"] < MIN_LABELS)})
        per_cell = flags.groupby(["model", "deck"], observed=True).any()
        kind = np.where(per_cell["empty"], "empty", np.where(per_cell["few"], "few", "labelled"))
        rows.append(
            pd.DataFrame({"empty_part": kind}, index=per_cell.index).reset_index().assign(metric=metric)
        )
    return pd.concat(rows, ignore_index=True)


if __name__ == "__main__":
    main()
