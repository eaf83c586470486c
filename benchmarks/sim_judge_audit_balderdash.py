"""Coverage of the Balderdash judge audit's re-weighted intervals (``fnr_w``, ``specificity_w``;
post-stratified on deck × the judge's verdict; the randomised exact ratio interval, or the
delta-method one for comparison) against each model's *realised* FNR and specificity over all
its definitions, in the project's campaign simulator.

    .venv/bin/python -m benchmarks sim_judge_audit_balderdash -- [--campaigns 300] [--design stratified|random]

Prints per model the mean realised value, the mean estimate, how often the truth lies below the
lower bound and above the upper one, the coverage and the mean width, over all (campaign, model)
cells.
Seeds 0..campaigns-1; deterministic.
"""

from __future__ import annotations

import argparse
import time

import pandas as pd

from benchmarks.sim_balderdash_coverage import campaign_config
from wordplay_audit.analysis.balderdash.summary import judge_audit_tables
from wordplay_audit.corpora.balderdash.simulate import simulate_campaign


def cells(campaigns: int, design: str) -> pd.DataFrame:
    """One row per (campaign, model): realised FNR and specificity, and the audit's intervals."""
    config = campaign_config(design)
    rows = []
    for seed in range(campaigns):
        campaign = simulate_campaign(config, seed=seed)
        table = judge_audit_tables(campaign.obs, campaign.labels, seed=seed)["reference"].set_index(
            "player_model"
        )
        merged = campaign.obs.merge(campaign.truth[["item_id", "true_ref"]], on="item_id")
        for model, part in merged.groupby("model"):
            human, judge = part["true_ref"].astype(bool), part["true_def"].astype(bool)
            audit = table.loc[model]
            rows.append({
                "model": model,
                "fnr": 1 - (human & judge).sum() / human.sum(),
                "specificity": (~human & ~judge).sum() / (~human).sum(),
                **{c: audit[c] for c in ("fnr_w", "fnr_w_low", "fnr_w_high", "specificity_w",
                                         "specificity_w_low", "specificity_w_high")},
            })  # fmt: skip
    return pd.DataFrame(rows)


def summary(frame: pd.DataFrame) -> pd.DataFrame:
    out = {}
    for name, est in (("fnr", "fnr_w"), ("specificity", "specificity_w")):
        below = frame[name] < frame[f"{est}_low"]
        above = frame[name] > frame[f"{est}_high"]
        out[f"{name}_truth"] = frame[name]
        out[f"{name}_estimate"] = frame[est]
        out[f"{name}_truth_below"] = below.astype(float)
        out[f"{name}_truth_above"] = above.astype(float)
        out[f"{name}_cover"] = (~below & ~above).astype(float)
        out[f"{name}_width"] = frame[f"{est}_high"] - frame[f"{est}_low"]
    table = pd.DataFrame(out).assign(model=frame["model"])
    per_model = table.groupby("model").mean()
    per_model.loc["all"] = table.drop(columns="model").mean()
    return per_model.round(4)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--campaigns", type=int, default=300)
    parser.add_argument("--design", default="stratified", choices=["stratified", "random"])
    args = parser.parse_args(argv)
    start = time.time()
    frame = cells(args.campaigns, args.design)
    print(f"{args.design}, {args.campaigns} campaigns, {len(frame)} (campaign, model) cells")
    print(summary(frame).T.to_string())
    print(f"({time.time() - start:.0f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
