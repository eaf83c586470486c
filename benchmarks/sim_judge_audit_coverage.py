"""Coverage of the judge-audit intervals in a simulation with a known judge.

Each replication draws ``--items`` items with human truth ~ Bernoulli(prevalence) and a judge
with known sensitivity/specificity, runs :func:`wordplay_audit.analysis.judge_audit_groups.judge_audit`
(one group, 95 %), and checks whether each interval holds the population value:

    cells  tp = p·Se, fp = (1−p)(1−Sp), fn = p(1−Se), tn = (1−p)Sp   (probabilities)
    FNR = 1 − Se, FPR = 1 − Sp, precision = tp/(tp+fp), F1 = 2tp/(2tp+fp+fn),
    κ = (p_o − p_e)/(1 − p_e) with p_o = tp + tn, p_e = (tp+fp)(tp+fn) + (fn+tn)(fp+tn).

F1 and κ are ratios, so their finite-sample means differ slightly from the population values;
coverage is judged against the population values. Target: 93–97 % at ≥ 500 replications.

Run:
    .venv/bin/python -m benchmarks sim_judge_audit_coverage -- [--reps 500] [--items 300]
        [--prevalence 0.6] [--se 0.8] [--sp 0.7] [--bootstrap 1000] [--seed 1]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd

from benchmarks import seed_loop
from wordplay_audit.analysis.judge_audit_cells import cell_metrics
from wordplay_audit.analysis.judge_audit_groups import judge_audit

CHECKED = ("fnr", "fpr", "precision", "recall", "accuracy", "f1", "kappa")


def population(p: float, se: float, sp: float) -> dict[str, float]:
    return cell_metrics(p * se, (1 - p) * (1 - sp), p * (1 - se), (1 - p) * sp)


def one(rng: np.random.Generator, n: int, p: float, se: float, sp: float, n_boot: int, seed: int) -> dict:
    human = rng.random(n) < p
    judge = np.where(human, rng.random(n) < se, rng.random(n) < 1 - sp)
    ids = [f"i{k}" for k in range(n)]
    jl = pd.DataFrame(
        {"item_id": ids, "rater": "j", "rater_type": "judge", "label": np.where(judge, "true", "false")}
    )
    hl = pd.DataFrame(
        {"item_id": ids, "rater": "h", "rater_type": "human", "label": np.where(human, "true", "false")}
    )
    return judge_audit(jl, hl, by=[], n_boot=n_boot, seed=seed).rows[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=500)
    parser.add_argument("--items", type=int, default=300)
    parser.add_argument("--prevalence", type=float, default=0.6)
    parser.add_argument("--se", type=float, default=0.8)
    parser.add_argument("--sp", type=float, default=0.7)
    parser.add_argument("--bootstrap", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    truth = population(args.prevalence, args.se, args.sp)
    rng = np.random.default_rng(args.seed)
    hits = dict.fromkeys(CHECKED, 0)
    shown = dict.fromkeys(CHECKED, 0)  # a metric printed without an interval is unknown, not a miss
    width = dict.fromkeys(CHECKED, 0.0)
    start = time.perf_counter()
    for rep in seed_loop(range(args.reps), desc="reps"):
        row = one(rng, args.items, args.prevalence, args.se, args.sp, args.bootstrap, args.seed + rep)
        for m in CHECKED:
            low, high = row[m]["ci_low"], row[m]["ci_high"]
            if low is None or high is None or not (np.isfinite(low) and np.isfinite(high)):
                continue
            shown[m] += 1
            hits[m] += low <= truth[m] <= high
            width[m] += high - low
    took = time.perf_counter() - start
    print(f"{args.reps} replications × {args.items} items, prevalence {args.prevalence}, Se {args.se}, "
          f"Sp {args.sp}, bootstrap {args.bootstrap}, seed {args.seed} ({took:.0f} s)")  # fmt: skip
    se_mc = (0.95 * 0.05 / args.reps) ** 0.5
    print(f"nominal 95 %; Monte-Carlo standard error of a coverage ≈ {100 * se_mc:.1f} points")
    for m in CHECKED:
        kind = "bootstrap" if m in ("f1", "kappa") else "Wilson"
        done = max(shown[m], 1)
        print(f"  {m:9s} true {truth[m]:.4f}  coverage {100 * hits[m] / done:5.1f} %  "
              f"mean width {width[m] / done:.3f}  ({kind}; no interval in {args.reps - shown[m]} of {args.reps})")  # fmt: skip


if __name__ == "__main__":
    main()
