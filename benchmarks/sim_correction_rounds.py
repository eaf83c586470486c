"""Per-round and window coverage of the corrected-rate intervals (cells that are not
whole sampling strata).

The simulator of :mod:`sim_correction_calibration`, with rounds: each (model, deck) cell's N items
are spread evenly over ``rounds`` rounds and the true share changes over rounds (logistic in the
round: logit π_r runs linearly from logit(start) to logit(end), as in a game where models learn
words). The judge's Se/Sp stay constant within model × deck, except in a design where Se drifts
linearly over rounds (a misspecification for Rogan–Gladen, which assumes one Se per model × deck).
People label a sample stratified on model × deck × the judge's verdict (``labels`` per stratum,
over all rounds) or a simple random sample of each model × deck, as in the whole-cell benchmark.

Measured cells (all through ``corrected_rates``, metric TDR, ``method="exact"``):

* ``round``: ``by=("model", "deck", "round")``, one cell per round;
* ``window3``/``window5``: the last 3 (5) rounds of each model × deck pooled
  (``by=("model", "deck", "win")`` with ``win`` marking the window; the rest is not measured).

The target is the realised share of people's answers in the cell.

    PYTHONPATH=. python benchmarks/sim_correction_rounds.py --campaigns 500 --design R1

prints per design × estimator × cell type: the range of per-cell coverage, the count of cells in /
edge / out of 93–97 %, the worst cell with its SE and Wilson interval, mean width, the share of
campaigns without an interval (per reason) and the mean error of the point, and the one-sided
misses: the share of printed intervals with the target below the lower bound (``below``, pooled;
``below_max``, the largest per cell) and above the upper bound (``above``), ≈ 2.5 % each for a
central 95 % interval (the convergence rule uses the window's lower bound); ``--cells`` prints the
per-cell table (the whole-cell benchmark's columns). ``--no-rounds`` measures only the window cells;
the cells are computed with ``CorrectionOptions(constant_accuracy=True)`` (a round short of own labels
borrows its deck's Se/Sp, the caller's assumption) unless ``--no-constant-accuracy`` (the default
of ``corrected_rates``: such a round has no Rogan–Gladen value);
``--confidence 0.90`` the central 90 % interval, whose lower bound is the one-sided 95 % bound the
convergence rule uses (``convergence(confidence=0.95)``; expected ``below`` ≈ 5 %).
"""

from __future__ import annotations

import argparse
import os
import time
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from benchmarks.sim_correction_calibration import D2, M3, _grid, summarise
from wordplay_audit.analysis.balderdash.corrected import CorrectionOptions, corrected_rates
from wordplay_audit.analysis.correction.intervals import MIN_LABELS_BORROWED


@dataclass(frozen=True)
class RoundDesign:
    name: str
    size: int  # items per model × deck (all rounds)
    prevalence: dict  # (model, deck) → (share in round 1, share in the last round)
    se: dict  # (model, deck) → (Se in round 1, Se in the last round)
    sp: dict  # (model, deck) → Sp
    labels: int  # labels per model × deck × verdict (stratified) or per model × deck (random)
    rounds: int = 10
    design: str = "stratified"
    rater_error: float = 0.0
    shape: str = "logistic"  # the share over rounds: "logistic" in the round, or "peak" (up, then down)


DESIGNS = {
    "R1": RoundDesign("R1: 40 labels/stratum, share .1→.9 and .3→.95, Se .6/.95", 500,
                      _grid(M3[:2], D2, lambda i, j: [(0.1, 0.9), (0.3, 0.95)][j]),
                      _grid(M3[:2], D2, lambda i, j: ((0.6, 0.6), (0.95, 0.95))[i]),
                      _grid(M3[:2], D2, lambda i, j: 0.92), 40),
    "R2": RoundDesign("R2: 10 labels/stratum, share .05→.5, Se by deck .7/.9, Sp .85/.97", 400,
                      _grid(M3[:2], D2, lambda i, j: [(0.05, 0.5), (0.5, 0.05)][i]),
                      _grid(M3[:2], D2, lambda i, j: ((0.7, 0.7), (0.9, 0.9))[j]),
                      _grid(M3[:2], D2, lambda i, j: (0.85, 0.97)[j]), 10),
    "R3": RoundDesign("R3: 20 labels/stratum, Se drifts .6→.9 (or .95→.7), share .5→.95, raters 95 %", 500,
                      _grid(M3[:2], D2, lambda i, j: [(0.5, 0.95), (0.2, 0.7)][j]),
                      _grid(M3[:2], D2, lambda i, j: ((0.6, 0.9), (0.95, 0.7))[i]),
                      _grid(M3[:2], D2, lambda i, j: 0.9), 20, rater_error=0.05),
    "R4": RoundDesign("R4: 5 labels/stratum, share .95→.3, Se .6/.95, N 300", 300,
                      _grid(M3[:2], D2, lambda i, j: [(0.95, 0.3), (0.6, 0.05)][j]),
                      _grid(M3[:2], D2, lambda i, j: ((0.6, 0.6), (0.95, 0.95))[i]),
                      _grid(M3[:2], D2, lambda i, j: 0.9), 5),
    "R5": RoundDesign("R5: random sample 80/model × deck, share .2→.8, Se .75/.9", 400,
                      _grid(M3[:2], D2, lambda i, j: [(0.2, 0.8), (0.8, 0.3)][j]),
                      _grid(M3[:2], D2, lambda i, j: ((0.75, 0.75), (0.9, 0.9))[j]),
                      _grid(M3[:2], D2, lambda i, j: 0.95), 80, design="random"),
    "R8": RoundDesign("R8: 20 labels/stratum, share rises then falls (.2 → .9 → .2 and .6 → .95 → .6), Se .6/.9", 500,
                      _grid(M3[:2], D2, lambda i, j: [(0.2, 0.9), (0.6, 0.95)][j]),
                      _grid(M3[:2], D2, lambda i, j: ((0.6, 0.6), (0.9, 0.9))[i]),
                      _grid(M3[:2], D2, lambda i, j: 0.9), 20, shape="peak"),
}  # fmt: skip
# two designs that differ from another only in their labels per model × deck × verdict
DESIGNS["R6"] = replace(DESIGNS["R4"], name="R6: as R4 with 10 labels/stratum", labels=10)
DESIGNS["R7"] = replace(DESIGNS["R2"], name="R7: as R2 with 20 labels/stratum (shares near 0 in a verdict stratum)", labels=20)  # fmt: skip


def _logit(p: float) -> float:
    return float(np.log(p / (1 - p)))


def per_round(design: RoundDesign, key) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Round of each item, and the true share and Se in each item's round."""
    r = np.arange(design.size) * design.rounds // design.size + 1
    t = (r - 1) / max(design.rounds - 1, 1)
    (p0, p1), (s0, s1) = design.prevalence[key], design.se[key]
    if design.shape == "peak":  # p0 in the first and last round, p1 in the middle: not logit-linear
        share = p0 + (p1 - p0) * np.sin(np.pi * t)
    else:
        share = 1 / (1 + np.exp(-(_logit(p0) + t * (_logit(p1) - _logit(p0)))))
    return r, share, s0 + t * (s1 - s0)


def simulate_deck(design: RoundDesign, key, rng: np.random.Generator) -> tuple[np.ndarray, ...]:
    """One model × deck as arrays: round, judge's verdict, people's answer and labelled, each
    item (the random draws in :func:`simulate`'s order; used by the candidates' scripts)."""
    r, share, se = per_round(design, key)
    n = design.size
    truth = rng.random(n) < share
    judge = np.where(truth, rng.random(n) < se, rng.random(n) > design.sp[key])
    human = truth ^ (rng.random(n) < design.rater_error)
    labelled = np.zeros(n, dtype=bool)
    if design.design == "stratified":
        for v in (True, False):
            pool = np.flatnonzero(judge == v)
            if len(pool):
                labelled[rng.choice(pool, size=min(design.labels, len(pool)), replace=False)] = True
    else:
        labelled[rng.choice(n, size=design.labels, replace=False)] = True
    return r, judge, human, labelled


def simulate(design: RoundDesign, rng: np.random.Generator) -> tuple[pd.DataFrame, pd.DataFrame]:
    """One campaign: the player-round-like table (with ``human``, people's answer on every item,
    for the targets) and people's labels."""
    obs, labels = [], []
    for key in design.prevalence:
        model, deck = key
        r, share, se = per_round(design, key)
        n = design.size
        truth = rng.random(n) < share
        judge = np.where(truth, rng.random(n) < se, rng.random(n) > design.sp[key])
        human = truth ^ (rng.random(n) < design.rater_error)
        ids = np.array([f"{model}:{deck}:{k}" for k in range(n)], dtype=object)
        if design.design == "stratified":
            chosen = [rng.choice(np.flatnonzero(judge == v), size=min(design.labels, int((judge == v).sum())),
                                 replace=False) for v in (True, False) if (judge == v).any()]  # fmt: skip
            chosen = np.concatenate(chosen)
        else:
            chosen = rng.choice(n, size=design.labels, replace=False)
        obs.append(pd.DataFrame({"model": model, "deck": deck, "round": r, "item_id": ids, "true_def": judge,
                                 "knows": judge, "human_all": human}))  # fmt: skip
        labels.append(pd.DataFrame({"item_id": ids[chosen], "rater": "r1", "rater_type": "human",
                                    "label": np.where(human[chosen], "true", "false"), "question": "reference"}))  # fmt: skip
    # object columns: pandas' arrow strings make the many small cell operations several times slower
    obs, labels = pd.concat(obs, ignore_index=True), pd.concat(labels, ignore_index=True)
    return obs.astype({c: object for c in ("model", "deck")}), labels.astype(object)


WINDOWS = (3, 5)


def cell_tables(
    obs: pd.DataFrame,
    labels: pd.DataFrame,
    design: str,
    opts: CorrectionOptions,
    windows=WINDOWS,
    rounds_too: bool = True,
    confidence: float = 0.95,
):
    """(cell type, corrected table, targets) for the per-round (unless ``rounds_too`` is false)
    and the window cells, central intervals at ``confidence``."""
    rounds = int(obs["round"].max())
    out = []
    if rounds_too:
        table = corrected_rates(obs, labels, metrics=("tdr",), by=("model", "deck", "round"), design=design,
                                confidence=confidence, options=opts)  # fmt: skip
        target = obs.groupby(["model", "deck", "round"])["human_all"].mean()
        out.append(("round", table, {k: float(v) for k, v in target.items()}))
    for w in windows:
        win = np.where(obs["round"] > rounds - w, f"last{w}", "rest")
        framed = obs.assign(win=win)
        table = corrected_rates(framed, labels, metrics=("tdr",), by=("model", "deck", "win"), design=design,
                                confidence=confidence, options=opts)  # fmt: skip
        table = table[table["win"] == f"last{w}"].assign(round=f"last{w}")
        target = framed[framed["win"] == f"last{w}"].groupby(["model", "deck"])["human_all"].mean()
        out.append((f"window{w}", table, {(m, d, f"last{w}"): float(v) for (m, d), v in target.items()}))
    return out


def run(
    design: RoundDesign,
    campaigns: int,
    seed: int,
    draws: int,
    min_labels: int = 5,
    start: int = 0,
    windows=WINDOWS,
    rounds_too: bool = True,
    confidence: float = 0.95,
    borrowed: int = MIN_LABELS_BORROWED,
    constant: bool = True,
) -> pd.DataFrame:
    """Raw rows (one per campaign × cell × estimator) of campaigns ``start`` … ``start + campaigns − 1``."""
    rows = []
    for c in range(start, start + campaigns):
        obs, labels = simulate(design, np.random.default_rng([seed, c]))
        opts = CorrectionOptions(draws=draws, seed=c, min_labels=min_labels, min_labels_borrowed=borrowed,
                                 constant_accuracy=constant)  # fmt: skip
        for kind, table, target in cell_tables(
            obs, labels, design.design, opts, windows, rounds_too, confidence
        ):
            for r in table.itertuples():
                truth = target[(r.model, r.deck, r.round)]
                for est in ("rg", "ppi"):
                    low, high = getattr(r, f"{est}_low"), getattr(r, f"{est}_high")
                    rows.append({"campaign": c, "kind": kind, "model": r.model, "deck": r.deck, "round": str(r.round),
                                 "method": "exact", "estimator": est, "has": bool(np.isfinite(low)),
                                 "cover": bool(low <= truth <= high), "below": bool(truth < low),
                                 "above": bool(truth > high), "width": high - low,
                                 "error": getattr(r, est) - truth,
                                 "reason": getattr(r, f"{est}_reason") or ""})  # fmt: skip
    return pd.DataFrame(rows)


def _sides(printed: pd.DataFrame, shown: pd.DataFrame) -> dict:
    """Pooled share of printed intervals with the target below the lower bound / above the upper
    bound, and the largest per-cell share below (NaN without the raw columns)."""
    if "below" not in printed:
        return {"below": np.nan, "above": np.nan, "below_max": np.nan}
    return {"below": printed["below"].mean(), "above": printed["above"].mean(),
            "below_max": shown["below"].max()}  # fmt: skip


def overview(table: pd.DataFrame, frame: pd.DataFrame) -> pd.DataFrame:
    """Per estimator × cell type: coverage range, verdict counts, the worst cell, mean width,
    share of cell-campaigns without an interval, mean |error| of the point."""
    rows = []
    for (est, kind), part in table.groupby(["estimator", "kind"]):
        shown = part[part["coverage"].notna()]
        raw = frame[(frame["estimator"] == est) & (frame["kind"] == kind)]
        row = {"estimator": est, "kind": kind, "cells": len(part), "measured": len(shown),
               "no_interval": 1 - raw["has"].mean(), "mean_abs_bias": part["bias"].abs().mean()}  # fmt: skip
        if len(shown):
            worst = shown.loc[(shown["coverage"] - 0.95).abs().idxmax()]
            counts = shown["verdict"].value_counts()
            row.update(cov_min=shown["coverage"].min(), cov_max=shown["coverage"].max(),
                       pooled=raw.loc[raw["has"], "cover"].mean(), n_in=int(counts.get("in", 0)),
                       n_edge=int(counts.get("edge", 0)), n_out=int(counts.get("out", 0)),
                       width=shown["width"].mean(), **_sides(raw[raw["has"]], shown),
                       worst=f"{worst['model']}/{worst['deck']}/{worst['round']} {worst['coverage']:.3f}"
                             f" ± {worst['se']:.3f} (Wilson {worst['wilson_lo']:.3f}–{worst['wilson_hi']:.3f},"
                             f" n {int(worst['n'])})")  # fmt: skip
        rows.append(row)
    return pd.DataFrame(rows)


def _run_chunks(keys, args) -> None:
    """Campaigns in chunks, the designs in turn, each chunk's raw rows appended to a CSV: stopped
    at any time, every design has about as many campaigns (resumes where the files end)."""
    done = {}
    for key in keys:
        path = f"{args.raw}-{key}.csv"
        done[key] = pd.read_csv(path)["campaign"].max() + 1 if os.path.exists(path) else 0
    while min(done.values()) < args.campaigns:
        for key in keys:
            n = min(args.chunk, args.campaigns - done[key])
            if n <= 0:
                continue
            frame = run(DESIGNS[key], n, args.seed, args.draws, args.min_labels, done[key], args.windows,
                        not args.no_rounds, args.confidence, args.min_labels_borrowed,
                        not args.no_constant_accuracy)  # fmt: skip
            path = f"{args.raw}-{key}.csv"
            frame.to_csv(path, mode="a", header=not os.path.exists(path), index=False)
            done[key] += n
            print(f"{key}: {done[key]} campaigns", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--campaigns", type=int, default=50)
    parser.add_argument("--design", choices=sorted(DESIGNS), action="append")
    parser.add_argument("--seed", type=int, default=20261130)
    parser.add_argument(
        "--draws", type=int, default=1000, help="posterior draws (Rogan–Gladen, not whole strata)"
    )
    parser.add_argument("--min-labels", type=int, default=5)
    parser.add_argument("--min-labels-borrowed", type=int, default=MIN_LABELS_BORROWED,
                        help="labels per verdict stratum a round or window needs to borrow its Se/Sp")  # fmt: skip
    parser.add_argument("--min-shown", type=int, default=50, help="cells with fewer intervals are not judged")
    parser.add_argument("--cells", action="store_true", help="print the per-cell table too")
    parser.add_argument("--out", default=None, help="CSV of the per-cell table")
    parser.add_argument(
        "--chunk", type=int, default=0, help="run designs in turn, this many campaigns at a time"
    )
    parser.add_argument("--raw", default=None, help="append raw rows to RAW-<design>.csv (resumable)")
    parser.add_argument("--windows", type=lambda v: tuple(int(w) for w in v.split(",")), default=WINDOWS,
                        help="window sizes, comma-separated (default 3,5)")  # fmt: skip
    parser.add_argument("--from-raw", action="store_true", help="only summarise the --raw files")
    parser.add_argument("--no-rounds", action="store_true", help="only the window cells (faster)")
    parser.add_argument("--no-constant-accuracy", action="store_true",
                        help="the toolkit's default: a round or window short of own labels borrows nothing")  # fmt: skip
    parser.add_argument("--confidence", type=float, default=0.95,
                        help="central interval level (0.90: the convergence rule's one-sided 95 %% lower bound)")  # fmt: skip
    args = parser.parse_args()
    keys = args.design or sorted(DESIGNS)
    if args.chunk and args.raw and not args.from_raw:
        _run_chunks(keys, args)
    tables = []
    for key in keys:
        design, start = DESIGNS[key], time.time()
        if args.raw and (args.from_raw or args.chunk):
            frame = pd.read_csv(f"{args.raw}-{key}.csv", keep_default_na=False)
            flags = [c for c in ("has", "cover", "below", "above") if c in frame]
            frame[flags] = frame[flags].astype(bool)
            frame["width"] = pd.to_numeric(frame["width"], errors="coerce")
            frame["error"] = pd.to_numeric(frame["error"], errors="coerce")
            design = replace(design, name=f"{design.name}; from {args.raw}")
            args.campaigns = frame["campaign"].nunique()
        else:
            frame = run(design, args.campaigns, args.seed, args.draws, args.min_labels, 0, args.windows,
                        not args.no_rounds, args.confidence, args.min_labels_borrowed,
                        not args.no_constant_accuracy)  # fmt: skip
        table = summarise(frame, keys=["kind", "method", "estimator", "model", "deck", "round"])
        table.loc[table["n"] < args.min_shown, ["coverage", "verdict"]] = [np.nan, "too few intervals"]
        tables.append(table.assign(design=key))
        print(f"\n== {design.name} ({args.campaigns} campaigns, {time.time() - start:.0f} s)")
        if args.confidence != 0.95:
            print("(in/edge/out and the worst cell refer to 93–97 %, not to --confidence)")
        if args.cells:
            print(table.to_string(index=False, float_format=lambda v: f"{v:.3f}"))
        print(overview(table, frame).to_string(index=False, float_format=lambda v: f"{v:.3f}"))
        reasons = frame[~frame["has"]].groupby(["estimator", "kind"])["reason"].value_counts(normalize=False)
        print("no interval, by reason (cell-campaigns):")
        print(reasons.to_string())
    if args.out:
        pd.concat(tables, ignore_index=True).to_csv(args.out, index=False)


if __name__ == "__main__":
    main()
