"""The latent-truth interval (analysis/correction/latent_bootstrap.latent_truth) for a campaign of
5,000 labelled items × 3 ratings (from a pool of 5 raters) in 8 cells × 2 judge verdicts, 1,000
resamples: wall time, against a plain reference in the same run — the same bootstrap done item by
item (one EM refit per resample on the uncompressed items × raters matrix, plain numpy), timed on
``--reference-resamples`` resamples and scaled to 1,000.

Run: nice -n 10 .venv/bin/python -m benchmarks bench_latent_interval -- [--items 5000] [--n-boot 1000]
Appends one row to benchmarks/results/bench_latent_interval.csv.
"""

from __future__ import annotations

import argparse
import csv
import os
import time
from pathlib import Path

import numpy as np
import pandas as pd

from wordplay_audit.analysis.correction.latent_bootstrap import latent_truth

RESULTS = Path(__file__).parent / "results" / "bench_latent_interval.csv"


def campaign(items: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    cell = rng.integers(0, 8, items)
    truth = rng.random(items) < np.linspace(0.05, 0.9, 8)[cell]
    judge = np.where(truth, rng.random(items) < 0.8, rng.random(items) < 0.1)
    se, sp = np.array([0.95, 0.9, 0.85, 0.92, 0.88]), np.array([0.85, 0.9, 0.95, 0.88, 0.93])
    who = np.argsort(rng.random((items, 5)), axis=1)[:, :3]  # 3 of the 5 raters per item
    t = truth[:, None]
    said = np.where(t, rng.random(who.shape) < se[who], rng.random(who.shape) > sp[who])
    ratings = pd.DataFrame({"item_id": np.repeat(np.arange(items), 3), "rater": who.ravel().astype(str),
                            "label": said.ravel()})  # fmt: skip
    return pd.DataFrame({"item_id": np.arange(items), "cell": cell, "judge": judge}), ratings


def plain_refit(y: np.ndarray, stratum: np.ndarray, n_strata: int, iters: int = 200) -> np.ndarray:
    """One EM fit on the items × raters matrix (-1 missing): per-stratum prevalence, per-rater
    Se/Sp, majority-vote start; returns each stratum's mean posterior."""
    ones, zeros = (y == 1).astype(float), (y == 0).astype(float)
    p = ones.sum(1) / np.maximum((ones + zeros).sum(1), 1)
    for _ in range(iters):
        q = np.clip(
            np.bincount(stratum, p, n_strata) / np.bincount(stratum, minlength=n_strata), 1e-6, 1 - 1e-6
        )
        se = np.clip((p @ ones) / (p @ (ones + zeros)), 1e-6, 1 - 1e-6)
        sp = np.clip(((1 - p) @ zeros) / ((1 - p) @ (ones + zeros)), 1e-6, 1 - 1e-6)
        log_ratio = ones @ (np.log(se) - np.log1p(-sp)) + zeros @ (np.log1p(-se) - np.log(sp))
        new = 1 / (1 + np.exp(-(np.log(q / (1 - q))[stratum] + log_ratio)))
        if np.max(np.abs(new - p)) < 1e-7:
            p = new
            break
        p = new
    return np.bincount(stratum, p, n_strata) / np.bincount(stratum, minlength=n_strata)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--items", type=int, default=5000)
    parser.add_argument("--n-boot", type=int, default=1000)
    parser.add_argument("--reference-resamples", type=int, default=50)
    args = parser.parse_args()
    items, ratings = campaign(args.items)
    start = time.perf_counter()
    result = latent_truth(items, ratings, strata=["cell", "judge"], n_boot=args.n_boot)
    shares = result.shares(["cell"])
    engine = time.perf_counter() - start
    y = np.full((args.items, 5), -1)
    y[ratings["item_id"].to_numpy(), ratings["rater"].astype(int).to_numpy()] = ratings["label"].to_numpy(int)
    stratum = (items["cell"] * 2 + items["judge"].astype(int)).to_numpy()
    rng = np.random.default_rng(1)
    start = time.perf_counter()
    for _ in range(args.reference_resamples):
        pick = np.concatenate(
            [rng.choice(np.flatnonzero(stratum == s), (stratum == s).sum()) for s in range(16)]
        )
        plain_refit(y[pick], stratum[pick], 16)
    reference = (time.perf_counter() - start) * args.n_boot / args.reference_resamples
    row = {"items": args.items, "ratings_per_item": 3, "n_boot": args.n_boot, "patterns": len(result.design.count),
           "engine_s": round(engine, 2), "reference_s_scaled": round(reference, 1),
           "ratio": round(reference / engine, 1), "em_iterations_point": result.fit.n_iter,
           "mean_width": round(float((shares["ci_high"] - shares["ci_low"]).mean()), 4),
           "load_average": round(os.getloadavg()[0], 2)}  # fmt: skip
    print(row)
    new = not RESULTS.exists()
    with RESULTS.open("a", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(row))
        if new:
            writer.writeheader()
        writer.writerow(row)


if __name__ == "__main__":
    main()
