"""Coverage of the latent-truth intervals (analysis/correction/latent_bootstrap.py) against a known
truth, beside the consensus engine's (corrected_shares) coverage *of the same latent truth*.

Generator: 8 cells of ``--items`` items with true shares 0.05–0.90; the judge's verdict per item
(Se 0.70–0.90, Sp 0.85–0.97, differing by cell); a sample of ``--labels`` items per cell × verdict;
raters (a pool of three) who each say true with their own Se when the item is true and false with
their own Sp when it is not. Rater scenarios: ``symmetric`` (Se = Sp = 0.92, 0.86, 0.80),
``asymmetric`` (Se 0.95, 0.92, 0.97; Sp 0.85, 0.82, 0.88: the issue's 0.95/0.85 ± 0.03),
``mixed`` (Se 0.97, 0.80, 0.90; Sp 0.82, 0.96, 0.90); assumption breaks: ``hard`` (asymmetric
raters, and on 15 % of items, "hard" ones, all raters give the same wrong answer with probability
0.5 – correlated errors) and ``random`` (one of three raters labels at random). Designs: ``3x``
three raters on every sampled item; ``3x30`` three on 30 % of them and one (in turn) on the rest;
``2+judge`` two raters on every sampled item (the judge's verdict as the second population).

Per campaign: the latent interval of each cell's true share and of the judge's FNR per cell
(n_boot resamples), and the consensus interval (majority of the raters; a tie between two raters
leaves the item out) of the cell's share; whether each covers the cell's realised truth. Also the
largest pairwise conditional-dependence z (the diagnostic the command prints).

Run (modest, a few minutes): nice -n 10 .venv/bin/python benchmarks/sim_latent_coverage.py --seeds 30 --n-boot 300
Full run (recorded command):  nice -n 10 .venv/bin/python benchmarks/sim_latent_coverage.py --seeds 500 --n-boot 1000
Writes benchmarks/results/sim_latent_coverage.csv (one row per scenario × design × cell × estimand ×
metric: coverage, shown, mean width, mean error) and prints a JSON summary.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
import pandas as pd

from wordplay_audit.analysis.correction import corrected_shares
from wordplay_audit.analysis.correction.latent_bootstrap import latent_truth
from wordplay_audit.errors import ParameterError

SHARES = np.array([0.05, 0.10, 0.20, 0.35, 0.50, 0.65, 0.80, 0.90])
JUDGE_SE = np.array([0.70, 0.75, 0.80, 0.85, 0.90, 0.80, 0.75, 0.85])
JUDGE_SP = np.array([0.97, 0.95, 0.90, 0.85, 0.90, 0.93, 0.88, 0.95])
RATERS = {
    "symmetric": ((0.92, 0.86, 0.80), (0.92, 0.86, 0.80)),
    "asymmetric": ((0.95, 0.92, 0.97), (0.85, 0.82, 0.88)),
    "mixed": ((0.97, 0.80, 0.90), (0.82, 0.96, 0.90)),
    "hard": ((0.95, 0.92, 0.97), (0.85, 0.82, 0.88)),
    "random": ((0.95, 0.92, 0.50), (0.85, 0.82, 0.50)),
}
DESIGNS = ("3x", "3x30", "2+judge")


def campaign(rng: np.random.Generator, *, raters: str, design: str, items: int, labels: int):
    """(items frame, ratings frame, true labels) of one simulated campaign (module doc)."""
    n = items * len(SHARES)
    cell = np.repeat(np.arange(len(SHARES)), items)
    truth = rng.random(n) < SHARES[cell]
    judge = np.where(truth, rng.random(n) < JUDGE_SE[cell], rng.random(n) > JUDGE_SP[cell])
    sampled = np.zeros(n, bool)
    for c in range(len(SHARES)):
        for verdict in (True, False):
            at = np.flatnonzero((cell == c) & (judge == verdict))
            sampled[rng.choice(at, min(labels, len(at)), replace=False)] = True
    chosen = np.flatnonzero(sampled)
    se, sp = (np.array(v) for v in RATERS[raters])
    who = np.ones((len(chosen), 3), bool)
    if design == "2+judge":
        who[:, 2] = False
    elif design == "3x30":
        single = rng.random(len(chosen)) >= 0.3
        who[single] = False
        who[single, np.arange(single.sum()) % 3] = True
    t = truth[chosen][:, None]
    said = np.where(t, rng.random(who.shape) < se, rng.random(who.shape) > sp)
    if raters == "hard":  # a shared wrong answer on hard items
        hard = (rng.random(len(chosen)) < 0.15) & (rng.random(len(chosen)) < 0.5)
        said[hard] = ~t[hard]
    rows, cols = np.nonzero(who)
    ratings = pd.DataFrame({"item_id": chosen[rows], "rater": np.array(["a", "b", "c"])[cols],
                            "label": said[rows, cols]})  # fmt: skip
    frame = pd.DataFrame({"item_id": np.arange(n), "cell": cell, "judge": judge})
    return frame, ratings, truth


def _consensus(frame: pd.DataFrame, ratings: pd.DataFrame) -> pd.DataFrame:
    votes = ratings.groupby("item_id")["label"].agg(["sum", "size"])
    yes, size = votes["sum"].to_numpy(), votes["size"].to_numpy()
    settled = 2 * yes != size  # a tie between two raters leaves the item for adjudication
    human = np.full(len(frame), None, dtype=object)
    human[votes.index.to_numpy()[settled]] = (2 * yes > size)[settled]
    return frame.assign(human=pd.array(human, dtype="boolean"))


def one_campaign(seed: int, raters: str, design: str, args) -> list[dict]:
    rng = np.random.default_rng([seed, list(RATERS).index(raters), DESIGNS.index(design)])
    frame, ratings, truth = campaign(rng, raters=raters, design=design, items=args.items, labels=args.labels)
    real = pd.DataFrame({"cell": frame["cell"], "t": truth, "j": frame["judge"]}).groupby("cell")
    share = real["t"].mean().to_numpy()
    fnr = real.apply(lambda g: float((~g["j"][g["t"]]).mean()), include_groups=False).to_numpy()
    rows = []
    try:
        fit = latent_truth(frame, ratings, strata=["cell", "judge"], n_boot=args.n_boot, seed=seed)
    except ParameterError as exc:
        return [{"seed": seed, "refused": str(exc)}]
    z = float(fit.dependence["z"].max()) if len(fit.dependence) else np.nan
    tables = {("latent", "share"): (fit.shares(["cell"]), "estimate", "ci_low", "ci_high", share),
              ("latent", "fnr"): (fit.judge_accuracy(["cell"]), "fnr_w", "fnr_w_low", "fnr_w_high", fnr),
              ("consensus", "share"): (corrected_shares(_consensus(frame, ratings), cells=["cell"], seed=seed),
                                       "estimate", "ci_low", "ci_high", share)}  # fmt: skip
    for (estimand, metric), (table, point, low, high, target) in tables.items():
        for c, r in enumerate(table.itertuples()):
            lo, hi, est = getattr(r, low), getattr(r, high), getattr(r, point)
            rows.append({"seed": seed, "estimand": estimand, "metric": metric, "cell": c,
                         "true_share": SHARES[c], "shown": bool(np.isfinite(lo)),
                         "covered": bool(lo <= target[c] <= hi) if np.isfinite(lo) else np.nan,
                         "width": hi - lo, "error": est - target[c], "max_z": z})  # fmt: skip
    return rows


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seeds", type=int, default=30)
    parser.add_argument("--n-boot", type=int, default=300)
    parser.add_argument("--items", type=int, default=400, help="items per cell")
    parser.add_argument("--labels", type=int, default=25, help="sampled items per cell × verdict")
    parser.add_argument("--raters", nargs="*", default=list(RATERS))
    parser.add_argument("--designs", nargs="*", default=list(DESIGNS))
    parser.add_argument("--out", default=str(Path(__file__).parent / "results" / "sim_latent_coverage.csv"))
    args = parser.parse_args()
    start, rows = time.time(), []
    for raters in args.raters:
        for design in args.designs:
            for seed in range(args.seeds):
                found = one_campaign(seed, raters, design, args)
                rows += [dict(r, raters=raters, design=design) for r in found]
    data = pd.DataFrame(rows)
    refused = data[data.get("refused", pd.Series(index=data.index, dtype=object)).notna()] if "refused" in data else data.iloc[:0]  # fmt: skip
    data = data[data["estimand"].notna()]
    keys = ["raters", "design", "estimand", "metric", "cell", "true_share"]
    table = data.groupby(keys).agg(seeds=("seed", "nunique"), shown=("shown", "mean"), coverage=("covered", "mean"),
                                   width=("width", "mean"), error=("error", "mean"),
                                   max_z=("max_z", "median")).reset_index()  # fmt: skip
    table["n_boot"], table["items_per_cell"], table["labels_per_stratum"] = (
        args.n_boot,
        args.items,
        args.labels,
    )
    table.to_csv(args.out, index=False, float_format="%.4f")
    summary = table.groupby(["raters", "design", "estimand", "metric"]).agg(
        worst=("coverage", "min"), mean=("coverage", "mean"), best=("coverage", "max"), z=("max_z", "median")
    )
    print(json.dumps({"seconds": round(time.time() - start, 1), "campaigns_refused": len(refused),
                      "seeds": args.seeds, "n_boot": args.n_boot}))  # fmt: skip
    print(summary.round(3).to_string())


if __name__ == "__main__":
    main()
