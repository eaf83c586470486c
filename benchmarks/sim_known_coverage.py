"""Coverage of the corrected known-word counts (analysis.balderdash.known) over simulated files.

Usage: python benchmarks/sim_known_coverage.py [--reps 300] [--words 300] [--out CSV]
(the full run: ``nice -n 10 python benchmarks/sim_known_coverage.py --reps 300``, about 8 h on
one free core; results/sim_known_coverage.csv holds the run at the reps its ``reps`` column says)
Each cell of the grid (judge FNR 0.05, 0.15, 0.26, 0.35 × labels per model 20, 50, 150 ×
design stratified | random × latent word rates: Beta(0.4, 0.4), U-shaped, the estimator's own
model, or two classes, 55 % known words with rates Beta(9, 1) and the rest Beta(1, 4), a
mixture the estimator's single Beta does not hold)
simulates ``reps`` known-word files of one model (``--words`` words, five definitions each, 2 %
without a definition and 2 % without a judgement, judge specificity 0.95), draws people's
labels (stratified: equal numbers of judge-true and judge-false definitions, the -2 ones in
proportion; random: a simple random sample of the definitions), and records whether the 95 %
interval holds the realised number of truly known words (the framework's rule on the truth).
Cells without an interval (too few labels in a verdict) are counted apart, not as misses.
Writes one row per cell (coverage, its Monte-Carlo SE, share without interval, mean error of
the corrected and of the judge's count, mean width). Seeds: the cell's index and the rep.
"""

from __future__ import annotations

import argparse
import itertools
import time
from pathlib import Path

import numpy as np
import pandas as pd

from wordplay_audit.analysis.balderdash.known import known_counts
from wordplay_audit.corpora.balderdash.known import definitions, simulate_known_words, true_known

FNRS = (0.05, 0.15, 0.26, 0.35)
LABELS = (20, 50, 150)
DESIGNS = ("stratified", "random")
LATENT = ("u_shaped", "two_class")
SP = 0.95


def word_rates(rng, latent: str, n: int) -> np.ndarray:
    if latent == "u_shaped":
        return rng.beta(0.4, 0.4, size=n)
    known = rng.random(n) < 0.55
    return np.where(known, rng.beta(9.0, 1.0, size=n), rng.beta(1.0, 4.0, size=n))


def draw_labels(rng, words, truth, n: int, design: str) -> dict[str, bool]:
    long = definitions(words)
    items = long[long["is_item"]]
    if design == "random":
        chosen = rng.choice(items["item_id"].to_numpy(), size=min(n, len(items)), replace=False)
        return {i: truth[i] for i in chosen}
    none = items[items["code"] == -2]["item_id"].to_numpy()
    n_none = min(len(none), int(round(n * len(none) / len(items))))
    out = {i: truth[i] for i in rng.choice(none, size=n_none, replace=False)} if n_none else {}
    rest = n - n_none
    for code, k in ((1, rest // 2), (0, rest - rest // 2)):
        ids = items.loc[items["code"] == code, "item_id"].to_numpy()
        out.update({i: truth[i] for i in rng.choice(ids, size=min(k, len(ids)), replace=False)})
    return out


def run_cell(index: int, fnr: float, labels: int, design: str, latent: str, reps: int, n_words: int) -> dict:
    hits, shown, err, judge_err, width = [], 0, [], [], []
    for rep in range(reps):
        rng = np.random.default_rng([index, rep])
        words, truth = simulate_known_words(rng, rates=word_rates(rng, latent, n_words), se=1 - fnr, sp=SP)
        true = int((true_known(words, truth) == 1).sum())
        row = known_counts(words, draw_labels(rng, words, truth, labels, design), seed=rep).models.iloc[0]
        judge_err.append(row["judge_known"] - true)
        if row["reason"] is not None:
            continue
        shown += 1
        hits.append(row["ci_low"] <= true <= row["ci_high"])
        err.append(row["known"] - true)
        width.append(row["ci_high"] - row["ci_low"])
    cover = float(np.mean(hits)) if hits else np.nan
    return {"fnr": fnr, "labels": labels, "design": design, "latent": latent, "reps": reps, "words": n_words,
            "with_interval": shown, "coverage": cover,
            "coverage_se": float(np.sqrt(cover * (1 - cover) / shown)) if shown else np.nan,
            "no_interval_share": 1 - shown / reps, "mean_error": float(np.mean(err)) if err else np.nan,
            "judge_mean_error": float(np.mean(judge_err)), "mean_width": float(np.mean(width)) if width else np.nan}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--reps", type=int, default=300)
    parser.add_argument("--words", type=int, default=300)
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results/sim_known_coverage.csv"))
    args = parser.parse_args()
    start, rows = time.time(), []
    grid = list(itertools.product(FNRS, LABELS, DESIGNS, LATENT))
    for index, (fnr, labels, design, latent) in enumerate(grid):
        rows.append(run_cell(index, fnr, labels, design, latent, args.reps, args.words))
        print(pd.DataFrame(rows[-1:]).to_string(index=False, header=index == 0), flush=True)
        pd.DataFrame(rows).to_csv(args.out, index=False)  # each finished cell kept
    table = pd.DataFrame(rows)
    pooled = float((table["coverage"] * table["with_interval"]).sum() / table["with_interval"].sum())
    print(
        f"coverage: min over cells {table['coverage'].min():.3f}, pooled {pooled:.3f} over "
        f"{table['with_interval'].sum()} intervals; {time.time() - start:.0f} s; wrote {args.out}"
    )


if __name__ == "__main__":
    main()
