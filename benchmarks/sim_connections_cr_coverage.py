"""Coverage of ``connections recompute``'s corrected CR interval on the Connections study.

Truth: the study's own human decisions on the 4,308 category names (the CR score under all of
them). Per design — a judge that flips a share of the decisions at random, people labelling a
simple random share of the items — and seed: flip, sample, correct (the one engine), and check
whether each model's interval covers its CR under all decisions. Writes
``benchmarks/results/sim_connections_cr_coverage.csv``.

    python -m benchmarks sim_connections_cr_coverage -- --seeds 500
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import numpy as np
import pandas as pd

from benchmarks import seed_loop

FLIPS = (0.05, 0.15, 0.30)
SAMPLES = (0.10, 0.30, 0.50)


def study_frame(folder: Path) -> pd.DataFrame:
    """The engine's frame of the study's category-name items, its decisions as the truth."""
    from wordplay_audit.analysis.connections import analyze_connections, match_groups
    from wordplay_audit.analysis.connections.recompute import _scored_groups, category_frame
    from wordplay_audit.analysis.connections.taxonomy import taxonomy_column
    from wordplay_audit.corpora.connections import read_connections, taxonomy_item_id

    data = read_connections(folder)
    result = analyze_connections(data, plots=False)
    labels = result.labels[result.labels["item_id"].str.startswith("cx:")]
    gold = data.gold
    keys = [taxonomy_item_id(k, int(i)) for k, i in zip(gold["game_key"], gold["gold_index"], strict=True)]
    types = pd.Series(gold["knowledge_type"].map(taxonomy_column).to_numpy(), index=keys)
    frame, _ = category_frame(_scored_groups(data, match_groups(data), types), labels, labels)
    return frame


def run_design(frame: pd.DataFrame, flip: float, share: float, seeds: int) -> pd.DataFrame:
    from wordplay_audit.analysis.correction import corrected_shares

    truth = frame["human"].astype(bool).to_numpy()
    models = frame["player_model"].to_numpy()
    realised = pd.Series(truth).groupby(models).mean()
    rows = []
    for seed in seed_loop(range(seeds), desc="seeds"):
        rng = np.random.default_rng([seed, int(flip * 100), int(share * 100)])
        judge = np.where(rng.random(len(frame)) < flip, ~truth, truth)
        sampled = rng.random(len(frame)) < share
        human = pd.array(np.where(sampled, truth, False), dtype="boolean")
        human[~sampled] = pd.NA
        cells = corrected_shares(frame.assign(judge=judge, human=human), cells=["player_model"], seed=seed)
        for r in cells.itertuples():
            t = realised[r.player_model]
            rows.append({"model": r.player_model, "below": t < r.ci_low - 1e-12, "above": t > r.ci_high + 1e-12,
                         "width": r.ci_high - r.ci_low, "interval": bool(np.isfinite(r.ci_low))})  # fmt: skip
    runs = pd.DataFrame(rows)
    out = runs.groupby("model").agg(campaigns=("width", "size"), with_interval=("interval", "mean"),
                                    miss_low=("above", "mean"), miss_high=("below", "mean"), width=("width", "mean"))  # fmt: skip
    out["coverage"] = 1 - out["miss_low"] - out["miss_high"]
    out["se"] = np.sqrt(out["coverage"] * (1 - out["coverage"]) / out["campaigns"])
    return out.reset_index().assign(flip=flip, sample=share)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=500)
    parser.add_argument(
        "--data", default=os.environ.get("WORDPLAY_AUDIT_SHARED", "../shared/corpora") + "/connections"
    )
    parser.add_argument(
        "--out", default=str(Path(__file__).parent / "results" / "sim_connections_cr_coverage.csv")
    )
    args = parser.parse_args(argv)
    frame = study_frame(Path(args.data))
    start = time.perf_counter()
    table = pd.concat(
        [run_design(frame, f, s, args.seeds) for f in FLIPS for s in SAMPLES], ignore_index=True
    )
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    table.to_csv(args.out, index=False)
    print(table.to_string(index=False, float_format=lambda v: f"{v:.3f}"))
    print(f"{len(FLIPS) * len(SAMPLES)} designs × {args.seeds} seeds in {time.perf_counter() - start:.0f} s; "
          f"coverage {table['coverage'].min():.3f}–{table['coverage'].max():.3f}; written {args.out}")  # fmt: skip


if __name__ == "__main__":
    main()
