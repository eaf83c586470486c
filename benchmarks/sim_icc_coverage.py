"""Coverage of the exact ICC intervals (:func:`wordplay_audit.analysis.agreement.icc`), each form
against the population value it estimates.

Models (normal random effects; item variance :math:`\\sigma_a^2 = \\rho_0`, error
:math:`\\sigma_e^2 = 1-\\rho_0`, rater variance :math:`\\sigma_b^2 = v\\,\\sigma_e^2`):

* **one-way** (ICC1, ICC1k): every rating by a new rater, :math:`y_{ij} = a_i + w_{ij}` with
  :math:`w_{ij} \\sim N(0, \\sigma_b^2 + \\sigma_e^2)`; truth
  :math:`\\rho_1 = \\sigma_a^2/(\\sigma_a^2+\\sigma_b^2+\\sigma_e^2)`, :math:`\\rho_{1k} =
  k\\rho_1/(1+(k-1)\\rho_1)`;
* **two-way** (ICC2, ICC2k, ICC3, ICC3k): the same *k* raters on every item,
  :math:`y_{ij} = a_i + b_j + e_{ij}`; truth of absolute agreement
  :math:`\\rho_2 = \\sigma_a^2/(\\sigma_a^2+\\sigma_b^2+\\sigma_e^2)` (random raters, a new draw
  of :math:`b_j` each replication), of consistency :math:`\\rho_3 = \\sigma_a^2/(\\sigma_a^2+
  \\sigma_e^2)` (the raters' offsets do not enter), and their *k*-rater means by Spearman–Brown.

Designs varied: items *n*, raters *k*, :math:`\\rho_0`, rater variance share *v*. Each cell
prints the share of replications whose 95 % interval covers the truth (for ICC2 and ICC2k the
printed generalized interval, and McGraw & Wong's as the rows ``ICC2 McGraw-Wong``) (Monte Carlo SE
:math:`\\sqrt{.95 \\cdot .05/R}`: 0.7 points at R = 1,000), the misses below and above, the mean width.

Run (modest, a few minutes):
    nice -n 10 .venv/bin/python benchmarks/sim_icc_coverage.py --reps 400
Full run (results CSV in benchmarks/results/sim_icc_coverage.csv):
    nice -n 10 .venv/bin/python benchmarks/sim_icc_coverage.py --reps 4000 --n 10,20,50,200 --k 2,3,5,10
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import pandas as pd

from wordplay_audit.analysis.agreement import icc

ONE_WAY = ("ICC1", "ICC1k")
TWO_WAY = ("ICC2", "ICC3", "ICC2k", "ICC3k")
MW = " McGraw-Wong"  # ICC2's and ICC2k's other interval (what psych, irr and pingouin print)
OUT = Path(__file__).resolve().parent / "results" / "sim_icc_coverage.csv"


def truth(form: str, rho0: float, v: float, k: int) -> float:
    var_a, var_e = rho0, 1.0 - rho0
    var_b = v * var_e
    single = var_a / (var_a + var_e) if form.startswith("ICC3") else var_a / (var_a + var_b + var_e)
    return single if not form.endswith("k") else k * single / (1 + (k - 1) * single)


def draw(rng: np.random.Generator, model: str, n: int, k: int, rho0: float, v: float) -> np.ndarray:
    var_a, var_e = rho0, 1.0 - rho0
    a = rng.normal(scale=np.sqrt(var_a), size=(n, 1))
    if model == "one-way":
        return a + rng.normal(scale=np.sqrt(v * var_e + var_e), size=(n, k))
    b = rng.normal(scale=np.sqrt(v * var_e), size=(1, k))
    return a + b + rng.normal(scale=np.sqrt(var_e), size=(n, k))


def cell(rng, model: str, n: int, k: int, rho0: float, v: float, reps: int) -> list[dict]:
    forms = ONE_WAY if model == "one-way" else TWO_WAY
    shown = forms if model == "one-way" else (*forms, *(f + MW for f in forms if f.startswith("ICC2")))
    hits = {f: [] for f in shown}
    for _ in range(reps):
        result = icc(draw(rng, model, n, k, rho0, v), forms=forms)
        for f in forms:
            e = result[f]
            hits[f].append((e.ci_low, e.ci_high) if e.ci_low is not None else (np.nan, np.nan))
            if e.mcgraw_wong is not None:
                hits[f + MW].append(e.mcgraw_wong)
            elif f + MW in hits:
                hits[f + MW].append((np.nan, np.nan))
    rows = []
    for f in shown:
        bounds = np.array(hits[f], dtype=float)
        t = truth(f.removesuffix(MW), rho0, v, k)
        ok = ~np.isnan(bounds[:, 0])
        low, high = bounds[ok, 0], bounds[ok, 1]
        rows.append(
            {"model": model, "form": f, "n": n, "k": k, "rho0": rho0, "rater_var": v, "truth": round(t, 4),
             "reps": reps, "coverage": float(((low <= t) & (t <= high)).mean()),
             "miss_low": float((high < t).mean()), "miss_high": float((low > t).mean()),
             "mean_width": float((high - low).mean()), "undefined": int((~ok).sum())}
        )  # fmt: skip
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--reps", type=int, default=400)
    parser.add_argument("--n", default="10,30,100", help="items, comma separated")
    parser.add_argument("--k", default="2,3,5", help="raters, comma separated")
    parser.add_argument("--rho", default="0.2,0.5,0.8", help="item-variance shares ρ0")
    parser.add_argument(
        "--rater-var", default="0,0.5", help="rater variance as a share of the error variance"
    )
    parser.add_argument("--seed", type=int, default=20261204)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    grid = [[float(x) for x in text.split(",")] for text in (args.n, args.k, args.rho, args.rater_var)]
    rng = np.random.default_rng(args.seed)
    start, rows = time.perf_counter(), []
    for n in grid[0]:
        for k in grid[1]:
            for rho0 in grid[2]:
                for v in grid[3]:
                    for model in ("one-way", "two-way"):
                        rows += cell(rng, model, int(n), int(k), rho0, v, args.reps)
    frame = pd.DataFrame(rows)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    frame.to_csv(args.out, index=False)
    mc = np.sqrt(0.95 * 0.05 / args.reps)
    print(f"{len(frame)} cells × {args.reps} replications in {time.perf_counter() - start:.0f} s "
          f"(Monte Carlo SE {mc:.3f}); written to {args.out}")  # fmt: skip
    print(frame.groupby("form")["coverage"].agg(["min", "mean", "max"]).round(3).to_string())
    low = frame[frame["coverage"] < 0.93]
    print(f"cells below 93 %: {len(low)}")
    if len(low):
        print(low.to_string(index=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
