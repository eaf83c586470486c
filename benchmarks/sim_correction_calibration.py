"""Per-cell coverage of the corrected-rate intervals on a family of designs.

A small generic simulator, independent of the project's campaign simulator: each design has
cells (model × deck) of N items with a true prevalence, a judge with its own Se/Sp per cell,
people who label a sample stratified on the judge's verdict (``labels`` per cell × verdict,
down to 5) or a simple random sample, and raters who flip a label with probability
``rater_error``. The target is the realised share of people's answers over all items of the
cell (= the truth when raters are perfect). ``corrected_rates`` runs on every campaign
(``--method exact``, the default: the randomised Clopper–Pearson predictive interval for cells
made of whole sampling strata; ``--method normal`` adds the delta-method intervals).

    PYTHONPATH=. python benchmarks/sim_correction_calibration.py --campaigns 500 --design A

prints one line per method × estimator × cell: coverage over the campaigns that printed an
interval, its binomial SE and 95 % Wilson interval, mean width, the share of campaigns in which
the cell had no interval ("not calibratable": fewer than 5 labels in a post-stratum), the mean
error of the point, a verdict ("in" 93–97 %; "edge" outside but the Wilson interval reaches the
band; "out" it does not) and, for stratified designs, the exact coverage at the cell's expected
post-stratum sizes and shares (no simulation); then the range and the worst cell per estimator.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass

import numpy as np
import pandas as pd

from wordplay_audit.analysis.balderdash.corrected import CorrectionOptions, corrected_rates
from wordplay_audit.analysis.correction.calibration import share_coverage


@dataclass(frozen=True)
class Design:
    name: str
    sizes: dict  # (model, deck) → N items
    prevalence: dict  # (model, deck) → true share
    se: dict  # (model, deck) → judge sensitivity
    sp: dict  # (model, deck) → judge specificity
    labels: int  # labels per cell × judge verdict (stratified) or per cell (random)
    design: str = "stratified"
    rater_error: float = 0.0


def _grid(models, decks, value):
    return {(m, d): value(i, j) for i, m in enumerate(models) for j, d in enumerate(decks)}


M3, D2 = ("m1", "m2", "m3"), ("rare", "basic")
DESIGNS = {
    # 5 labels per post-stratum; prevalence 0.05–0.95; Se 0.6–0.95
    "A": Design("A: 5 labels/stratum, prevalence .05–.95, Se .6–.95", _grid(M3, D2, lambda i, j: 300),
                _grid(M3, D2, lambda i, j: [[0.05, 0.5], [0.3, 0.95], [0.7, 0.15]][i][j]),
                _grid(M3, D2, lambda i, j: (0.6, 0.8, 0.95)[i]), _grid(M3, D2, lambda i, j: 0.92), 5),
    # 10 labels; Se differs by deck (the truth model the project's simulator has not)
    "B": Design("B: 10 labels/stratum, Se by deck .6/.9, Sp .85/.97", _grid(M3, D2, lambda i, j: 240),
                _grid(M3, D2, lambda i, j: [[0.1, 0.4], [0.6, 0.9], [0.25, 0.75]][i][j]),
                _grid(M3, D2, lambda i, j: (0.6, 0.9)[j]), _grid(M3, D2, lambda i, j: (0.85, 0.97)[j]), 10),
    # 20 labels, raters 92 % accurate, unequal cell sizes
    "C": Design("C: 20 labels/stratum, raters 92 %, cells of 100/600", _grid(M3, D2, lambda i, j: (100, 600)[j]),
                _grid(M3, D2, lambda i, j: [[0.2, 0.5], [0.8, 0.35], [0.05, 0.6]][i][j]),
                _grid(M3, D2, lambda i, j: (0.74, 0.85, 0.95)[i]), _grid(M3, D2, lambda i, j: 0.97), 20,
                rater_error=0.08),
    # 10 labels, two models × two decks, large cells, extreme prevalences
    "D": Design("D: 10 labels/stratum, prevalence .05/.95, Se .6/.95, N 800", _grid(M3[:2], D2, lambda i, j: 800),
                _grid(M3[:2], D2, lambda i, j: [[0.05, 0.95], [0.95, 0.05]][i][j]),
                _grid(M3[:2], D2, lambda i, j: (0.6, 0.95)[i]), _grid(M3[:2], D2, lambda i, j: 0.9), 10),
    # a simple random sample of 40 per cell
    "E": Design("E: random sample 40/cell, prevalence .1–.9, Se .7/.9", _grid(M3, D2, lambda i, j: 300),
                _grid(M3, D2, lambda i, j: [[0.1, 0.5], [0.9, 0.3], [0.6, 0.2]][i][j]),
                _grid(M3, D2, lambda i, j: (0.7, 0.9)[j]), _grid(M3, D2, lambda i, j: 0.95), 40, design="random"),
}  # fmt: skip


def simulate(design: Design, rng: np.random.Generator) -> tuple[pd.DataFrame, pd.DataFrame, dict]:
    """One campaign: the player-round-like table, people's labels and the target per cell."""
    obs, labels, target = [], [], {}
    for (model, deck), n in design.sizes.items():
        truth = rng.random(n) < design.prevalence[(model, deck)]
        judge = np.where(
            truth, rng.random(n) < design.se[(model, deck)], rng.random(n) > design.sp[(model, deck)]
        )
        human = truth ^ (rng.random(n) < design.rater_error)
        ids = np.array([f"{model}:{deck}:{k}" for k in range(n)])
        target[(model, deck)] = float(human.mean())
        if design.design == "stratified":
            chosen = [rng.choice(np.flatnonzero(judge == v), size=min(design.labels, int((judge == v).sum())),
                                 replace=False) for v in (True, False) if (judge == v).any()]  # fmt: skip
            chosen = np.concatenate(chosen)
        else:
            chosen = rng.choice(n, size=design.labels, replace=False)
        obs.append(
            pd.DataFrame({"model": model, "deck": deck, "item_id": ids, "true_def": judge, "knows": judge})
        )
        labels.append(pd.DataFrame({"item_id": ids[chosen], "rater": "r1", "rater_type": "human",
                                    "label": np.where(human[chosen], "true", "false"), "question": "reference"}))  # fmt: skip
    return pd.concat(obs, ignore_index=True), pd.concat(labels, ignore_index=True), target


def run(
    design: Design, campaigns: int, seed: int, draws: int, methods=("exact",), min_labels: int = 5
) -> pd.DataFrame:
    rows = []
    for c in range(campaigns):
        obs, labels, target = simulate(design, np.random.default_rng([seed, c]))
        for method in methods:
            opts = CorrectionOptions(method=method, draws=draws, seed=c, min_labels=min_labels)
            table = corrected_rates(obs, labels, metrics=("tdr",), design=design.design, options=opts)
            for r in table.itertuples():
                truth = target[(r.model, r.deck)]
                for est in ("rg", "ppi"):
                    low, high = getattr(r, f"{est}_low"), getattr(r, f"{est}_high")
                    rows.append({"model": r.model, "deck": r.deck, "method": method, "estimator": est,
                                 "has": bool(np.isfinite(low)), "cover": bool(low <= truth <= high),
                                 "below": bool(truth < low), "above": bool(truth > high),
                                 "width": high - low, "error": getattr(r, est) - truth})  # fmt: skip
    return pd.DataFrame(rows)


def exact_coverage(design: Design) -> dict:
    """Per cell of a stratified design: the exact coverage of the randomised share interval at
    the cell's expected post-stratum sizes and shares of people's answers (no simulation)."""
    if design.design != "stratified":
        return {}
    out = {}
    for key, size in design.sizes.items():
        prev, se, sp, e = design.prevalence[key], design.se[key], design.sp[key], design.rater_error
        pos = prev * se + (1 - prev) * (1 - sp)
        human = [(prev * se * (1 - e) + (1 - prev) * (1 - sp) * e) / pos,
                 (prev * (1 - se) * (1 - e) + (1 - prev) * sp * e) / (1 - pos)]  # fmt: skip
        big = [round(size * pos), size - round(size * pos)]
        n = [min(design.labels, b) for b in big]
        u = [b - k for b, k in zip(big, n, strict=True)]
        out[key] = float(share_coverage(u, n, np.array([human]), v_points=256)[0])
    return out


BAND = (0.93, 0.97)


def summarise(frame: pd.DataFrame, exact: dict | None = None, keys: list[str] | None = None) -> pd.DataFrame:
    """Per method × estimator × cell: coverage over the campaigns where an interval was printed,
    its binomial SE and 95 % Wilson interval, mean width, share of campaigns without an
    interval, mean error of the point; ``verdict``: "in" (coverage in 93–97 %), "out" (its
    Wilson interval misses 93–97 %), "edge" (outside, but the Wilson interval reaches the band);
    ``below`` / ``above``: share of the printed intervals whose lower bound lies above the target
    (target below the interval) / whose upper bound lies below it (≈ 2.5 % each for a central
    95 % interval; NaN when the raw rows lack these columns)."""

    def side(shown: pd.DataFrame, column: str) -> float:
        return shown[column].mean() if len(shown) and column in shown else np.nan

    def agg(part: pd.DataFrame) -> pd.Series:
        shown = part[part["has"]]
        k = len(shown)
        cov = shown["cover"].mean() if k else np.nan
        z = 1.96
        centre = (cov + z**2 / (2 * k)) / (1 + z**2 / k) if k else np.nan
        half = z * np.sqrt(cov * (1 - cov) / k + z**2 / (4 * k**2)) / (1 + z**2 / k) if k else np.nan
        lo, hi = centre - half, centre + half
        verdict = (
            ("in" if BAND[0] <= cov <= BAND[1] else "out" if (hi < BAND[0] or lo > BAND[1]) else "edge")
            if k
            else "no interval"
        )
        return pd.Series({"coverage": cov, "se": np.sqrt(cov * (1 - cov) / k) if k else np.nan,
                          "wilson_lo": lo, "wilson_hi": hi, "width": shown["width"].mean() if k else np.nan,
                          "no_interval": 1 - k / len(part), "bias": part["error"].mean(), "n": k,
                          "verdict": verdict, "below": side(shown, "below"),
                          "above": side(shown, "above")})  # fmt: skip

    keys = keys or ["method", "estimator", "model", "deck"]
    table = frame.groupby(keys).apply(agg, include_groups=False).reset_index()
    if exact:
        table["exact"] = [
            exact.get((m, d), np.nan) for m, d in zip(table["model"], table["deck"], strict=True)
        ]
    return table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--campaigns", type=int, default=50)
    parser.add_argument("--design", choices=sorted(DESIGNS), action="append")
    parser.add_argument("--seed", type=int, default=20261130)
    parser.add_argument(
        "--draws", type=int, default=500, help="posterior draws (cells not made of whole strata)"
    )
    parser.add_argument(
        "--min-labels", type=int, default=5, help="below this, no interval (library default 5)"
    )
    parser.add_argument("--method", choices=("exact", "normal"), action="append")
    parser.add_argument("--out", default=None, help="CSV of the per-cell table")
    args = parser.parse_args()
    tables = []
    for key in args.design or sorted(DESIGNS):
        design = DESIGNS[key]
        start = time.time()
        methods = tuple(args.method or ("exact",))
        frame = run(design, args.campaigns, args.seed, args.draws, methods, args.min_labels)
        table = summarise(frame, exact_coverage(design)).assign(design=key)
        tables.append(table)
        print(f"\n== {design.name} ({args.campaigns} campaigns, {time.time() - start:.0f} s)")
        print(table.to_string(index=False, float_format=lambda v: f"{v:.3f}"))
        for (method, est), part in table[table["coverage"].notna()].groupby(["method", "estimator"]):
            worst = part.loc[(part["coverage"] - 0.95).abs().idxmax()]
            counts = part["verdict"].value_counts().to_dict()
            print(f"{method} {est}: coverage {part['coverage'].min():.3f}–{part['coverage'].max():.3f} {counts}; worst "
                  f"{worst['model']}/{worst['deck']} {worst['coverage']:.3f} ± {worst['se']:.3f} "
                  f"(Wilson {worst['wilson_lo']:.3f}–{worst['wilson_hi']:.3f})")  # fmt: skip
    if args.out:
        pd.concat(tables, ignore_index=True).to_csv(args.out, index=False)


if __name__ == "__main__":
    main()
