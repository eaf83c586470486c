"""A candidate for per-round cells whose judge drifts (design R3): not in the toolkit.

Per-round Rogan–Gladen cells that borrow their model × deck's Se and Sp assume the judge as
accurate in every round; under design R3 of :mod:`sim_correction_rounds` (Se drifting over the
rounds) 16 of its 40 round cells miss 93–97 %. This script measures an alternative on the same
simulated campaigns (same designs, same simulator) without going through ``corrected_rates``:

* per model × deck × judge verdict, logit P(human true | verdict, round) = a + b·t (t the round
  scaled to 0–1), fitted on that verdict stratum's labels — under a sample stratified on the
  verdict they are a simple random sample of the stratum, so no weights are needed. Constant Se
  and Sp with a logit-linear true share make this exact (logit q₁ = log(Se/(1 − Sp)) + logit π,
  logit q₀ = log((1 − Se)/Sp) + logit π); a drifting Se makes it approximate;
* the posterior of (a, b) on a 181 × 161 grid (a in ±9, b in ±12) with the Jeffreys prior
  √det I(a, b) (finite under separation: a stratum whose labels are all true);
* a round's interval: per posterior draw, its labelled true items plus Bin(u_v, q_v(t)) for its
  unlabelled items of each verdict, randomised equal-tailed quantiles of the count (a uniform
  jitter, the bounds shifted by one shared uniform and rounded inwards:
  ``correction.intervals.randomised_count_bounds``, as ``mixture_share_interval`` does).

    PYTHONPATH=. python benchmarks/sim_round_trend.py --design R3 --campaigns 300

prints per-cell coverage (range, pooled, in / edge / out of 93–97 % by the Wilson interval of
:func:`sim_correction_calibration.summarise`), mean width, and the worst cells.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd

from benchmarks.sim_correction_calibration import summarise
from benchmarks.sim_correction_rounds import DESIGNS, simulate_deck
from wordplay_audit.analysis.correction.intervals import randomised_count_bounds

A_GRID = np.linspace(-9, 9, 181)
B_GRID = np.linspace(-12, 12, 161)


def trend_draws(
    t: np.ndarray, y: np.ndarray, draws: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """Draws of (a, b), logit q = a + b·(t − ½), from the grid posterior with the Jeffreys prior."""
    aa, bb = np.meshgrid(A_GRID, B_GRID, indexing="ij")
    tc = np.asarray(t, float) - 0.5
    eta = aa[..., None] + bb[..., None] * tc
    log_lik = np.where(np.asarray(y, bool), -np.logaddexp(0, -eta), -np.logaddexp(0, eta)).sum(-1)
    w = 1 / (2 + np.exp(eta) + np.exp(-eta))  # p(1 − p)
    det = w.sum(-1) * (w * tc * tc).sum(-1) - (w * tc).sum(-1) ** 2
    log_post = log_lik + 0.5 * np.log(np.maximum(det, 1e-300))
    post = np.exp(log_post - log_post.max()).ravel()
    pick = rng.choice(post.size, size=draws, p=post / post.sum())
    jitter = rng.random((2, draws)) - 0.5  # spread each draw over its grid cell
    return (aa.ravel()[pick] + jitter[0] * (A_GRID[1] - A_GRID[0]),
            bb.ravel()[pick] + jitter[1] * (B_GRID[1] - B_GRID[0]))  # fmt: skip


def campaign(design, rng: np.random.Generator, draws: int, confidence: float) -> list[dict]:
    rows = []
    for key in design.prevalence:
        r, judge, human, labelled = simulate_deck(design, key, rng)
        t = (r - 1) / max(design.rounds - 1, 1)
        fits = {v: trend_draws(t[labelled & (judge == v)], human[labelled & (judge == v)], draws, rng)
                for v in (True, False)}  # fmt: skip
        for rnd in range(1, design.rounds + 1):
            inside = r == rnd
            count = np.full(draws, float(human[inside & labelled].sum()))
            mean = count[0]
            for v, (a, b) in fits.items():
                q = 1 / (1 + np.exp(-(a + b * (t[inside][0] - 0.5))))
                u = int((inside & ~labelled & (judge == v)).sum())
                count = count + rng.binomial(u, q)
                mean += u * q.mean()
            low, high = randomised_count_bounds(count, confidence, rng)
            size, target = int(inside.sum()), float(human[inside].mean())
            low, high = low / size, high / size
            rows.append({"model": key[0], "deck": key[1], "round": rnd, "has": True,
                         "cover": low <= target <= high, "width": high - low, "error": mean / size - target,
                         "below": target < low, "above": target > high})  # fmt: skip
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--design", action="append", choices=sorted(DESIGNS))
    parser.add_argument("--campaigns", type=int, default=100)
    parser.add_argument("--draws", type=int, default=1000)
    parser.add_argument("--confidence", type=float, default=0.95)
    parser.add_argument("--seed", type=int, default=20261201)
    args = parser.parse_args()
    for name in args.design or ["R3"]:
        started = time.perf_counter()
        rng = np.random.default_rng(args.seed)
        frame = pd.DataFrame([row for _ in range(args.campaigns)
                              for row in campaign(DESIGNS[name], rng, args.draws, args.confidence)])  # fmt: skip
        cells = summarise(frame.assign(method="trend", estimator="trend"),
                          keys=["method", "estimator", "model", "deck", "round"])  # fmt: skip
        counts = cells["verdict"].value_counts()
        worst = cells.iloc[(cells["coverage"] - 0.95).abs().sort_values().index[-3:]]
        print(f"{name} ({args.campaigns} campaigns, {time.perf_counter() - started:.0f} s): coverage "
              f"{cells['coverage'].min():.3f}–{cells['coverage'].max():.3f}, pooled {frame['cover'].mean():.3f}; "
              f"in/edge/out {counts.get('in', 0)}/{counts.get('edge', 0)}/{counts.get('out', 0)}; "
              f"width {frame['width'].mean():.3f}; mean |bias| {cells['bias'].abs().mean():.3f}; "
              f"below {frame['below'].mean():.3f}, above {frame['above'].mean():.3f}; worst "
              + ", ".join(f"{w.model}/{w.deck}/{w['round']} {w.coverage:.3f} ± {w.se:.3f}"
                          for _, w in worst.iterrows()), flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
