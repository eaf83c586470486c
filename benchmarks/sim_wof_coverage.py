"""Coverage of Wheel of Fortune's corrected win rates (``wof recompute``: the corrected-metric
engine's randomised exact interval, post-stratified on the exact-match verdict) per design × model.

A small simulator of the game master's verdicts, independent of the game simulator: each
model plays ``games`` riddles, wins ``exact`` of them by exact match, and ``missed`` of its
lost games are truly solved (a near miss: people call it a win; the exact-match judge never
calls an unsolved game won). People label a sample: within the lost games (``stratified``,
``labels`` per model, exact matches counted as labelled wins, ``exact_is_true``) or a simple
random sample of all games (``random``, ``labels`` per model, exact matches not taken as true).
Raters are perfect: the target is the realised win rate under people's labels of every game.
The intervals are drawn the way ``wof recompute`` draws them: each campaign gets a fresh seed of
the randomised intervals (uniform on 0 … 2³² − 1, as the command's default; drawn from the
campaign's generator, so the run is reproducible). ``--fixed-seed S`` gives every campaign the
seed S instead – what the command did before it took a seed (always 0): with the same model
names and first game, the same v in every campaign.

    .venv/bin/python -m benchmarks sim_wof_coverage -- [--campaigns 2000] [--designs A,B,C,D,R]
        [--seed 20261202] [--fixed-seed S] [--out benchmarks/results]

prints per design × model: coverage over the campaigns that printed an interval with its
Monte-Carlo SE, the share the truth lay below / above the interval, mean width, the share of
campaigns without an interval, the mean error of the point, the share of campaigns whose
lost-game labels were unanimous, the share of partly labelled models given a zero-width
interval (``zero_width``), a verdict (``in`` 93–97 %; ``edge`` outside by at most two
Monte-Carlo SE; else ``high`` / ``low``) and the exact coverage at the cell's expected sizes
(:func:`exact_coverage`, no simulation); writes
``sim_wof_coverage.csv`` (one row per design × model) and ``sim_wof_coverage.json`` (the same
with the run's settings and wall time) to ``--out`` (``sim_wof_coverage_fixed_seed.*`` with
``--fixed-seed``). Seeded; deterministic.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pandas as pd

from wordplay_audit.analysis.correction import corrected_shares, seeded_rng
from wordplay_audit.analysis.correction.calibration import share_misses


class Model(NamedTuple):
    name: str
    games: int
    exact: float  # exact-match win rate
    missed: float  # share of lost games truly solved (the judge's misses)


class Design(NamedTuple):
    title: str
    labels: int  # labels per model: among its lost games (stratified) or all games (random)
    models: tuple[Model, ...]
    kind: str = "stratified"


DESIGNS = {
    "A": Design("A: 5 labels among lost games", 5,
                (Model("m1", 200, 0.10, 0.05), Model("m2", 200, 0.30, 0.20), Model("m3", 200, 0.55, 0.40))),
    "B": Design("B: 10 labels among lost games", 10,
                (Model("m1", 150, 0.40, 0.05), Model("m2", 300, 0.20, 0.20), Model("m3", 240, 0.05, 0.40))),
    "C": Design("C: 20 labels among lost games", 20,
                (Model("m1", 240, 0.25, 0.05), Model("m2", 120, 0.50, 0.20), Model("m3", 400, 0.15, 0.40))),
    "D": Design("D: 40 labels among lost games", 40,
                (Model("m1", 600, 0.08, 0.05), Model("m2", 300, 0.35, 0.20), Model("m3", 200, 0.60, 0.40))),
    "R": Design("R: random sample of 40 games", 40,
                (Model("m1", 200, 0.30, 0.05), Model("m2", 300, 0.15, 0.20), Model("m3", 200, 0.50, 0.40)),
                kind="random"),
}  # fmt: skip


def draw(design: Design, rng: np.random.Generator) -> pd.DataFrame:
    """One campaign, one row per game: ``player_model``, ``item_id``, ``judge`` (exact match),
    ``solved`` (people's verdict had they labelled it) and ``sampled`` (people labelled it)."""
    parts = []
    for model in design.models:
        exact = rng.random(model.games) < model.exact
        solved = exact | (rng.random(model.games) < model.missed)
        pool = np.flatnonzero(~exact) if design.kind == "stratified" else np.arange(model.games)
        sampled = np.zeros(model.games, bool)
        sampled[rng.choice(pool, size=min(design.labels, len(pool)), replace=False)] = True
        parts.append(
            pd.DataFrame({
                "player_model": model.name, "item_id": [f"wof:{model.name}:{g}" for g in range(model.games)],
                "judge": exact, "solved": solved, "sampled": sampled,
            })
        )  # fmt: skip
    return pd.concat(parts, ignore_index=True)


def engine_frame(games: pd.DataFrame, kind: str) -> pd.DataFrame:
    """The frame ``recompute_wins`` hands the engine: labelled = people's sample, plus (in the
    stratified design, ``exact_is_true``) every exact match as a labelled win."""
    labelled = games["sampled"] | (games["judge"] if kind == "stratified" else False)
    human = pd.array(np.where(labelled, games["solved"], None), dtype="boolean")
    return games[["player_model", "item_id", "judge"]].assign(labelled=labelled.to_numpy(bool), human=human)


def contract_tables(games: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """The campaign as ``wof recompute`` reads it: items, the exact-match verdicts, people's labels."""
    items = games[["item_id", "player_model"]].assign(
        reference=games["player_model"] + ":" + games["item_id"].str.rsplit(":", n=1).str[1]
    )
    verdict = np.where(games["judge"], "true", "false")
    judge = pd.DataFrame({"item_id": games["item_id"], "rater": "wof-exact-match", "rater_type": "judge", "label": verdict})  # fmt: skip
    lab = games[games["sampled"]]
    human = pd.DataFrame({"item_id": lab["item_id"], "rater": "person", "rater_type": "human",
                          "label": np.where(lab["solved"], "true", "false")})  # fmt: skip
    return items, judge, human


SEED = 20261202
"""The campaigns' base seed (``--seed``): campaign c of design X draws from (seed, X, c)."""


def campaign_rows(
    design: Design, name: str, campaign: int, seed: int = SEED, fixed_seed: int | None = None
) -> pd.DataFrame:
    """Per model of one campaign: the engine's corrected win rate, the realised truth and whether
    people's labels of its lost games were all one way (``unanimous``); the intervals' seed is a
    fresh one per campaign (as the command's default) unless ``fixed_seed``."""
    rng = seeded_rng(seed, name, campaign)
    games = draw(design, rng)
    interval_seed = int(rng.integers(2**32)) if fixed_seed is None else fixed_seed
    table = corrected_shares(engine_frame(games, design.kind), cells=["player_model"], seed=interval_seed)
    by_model = games.groupby("player_model", sort=True)
    lost = games[games["sampled"] & ~games["judge"]].groupby("player_model", sort=True)["solved"]
    unanimous = lost.agg(lambda s: bool(s.all() or not s.any())).reindex(
        table["player_model"], fill_value=True
    )
    return table.assign(
        truth=by_model["solved"].mean().to_numpy(),
        unanimous=unanimous.to_numpy(bool),
        design=name,
        campaign=campaign,
        interval_seed=interval_seed,
    )


def exact_coverage(design: Design, model: Model) -> tuple[float, float]:
    """(below, above) computed exactly at the model's expected post-stratum sizes, labels split
    by the verdicts' expected shares (``correction.calibration.share_misses``: every label
    outcome enumerated, v by 256 Sobol points). Stratified: one post-stratum, the lost games,
    share ``missed``; random: also the exact matches' post-stratum, share 1 (every exact match
    is truly solved), which is always unanimous."""
    won = round(model.games * model.exact)
    if design.kind == "stratified":
        unl, lab, shares = [model.games - won - design.labels], [design.labels], [model.missed]
    else:
        lab_won = round(design.labels * model.exact)
        lab = [design.labels - lab_won, lab_won]
        unl, shares = [model.games - won - lab[0], won - lab_won], [model.missed, 1.0]
    keep = [k for k, u in enumerate(unl) if u > 0]
    below, above = share_misses(
        [unl[k] for k in keep], [lab[k] for k in keep], np.array([[shares[k] for k in keep]])
    )
    return float(below[0]), float(above[0])


def summarise(rows: pd.DataFrame) -> pd.DataFrame:
    """One row per design × model: coverage and its Monte-Carlo SE, misses by side, width, no-interval share."""
    shown = rows["ci_low"].notna()
    rows = rows.assign(
        shown=shown,
        cover=((rows["ci_low"] <= rows["truth"] + 1e-12) & (rows["truth"] <= rows["ci_high"] + 1e-12)).where(shown),
        below=(rows["truth"] < rows["ci_low"] - 1e-12).where(shown),
        above=(rows["truth"] > rows["ci_high"] + 1e-12).where(shown),
        width=(rows["ci_high"] - rows["ci_low"]).where(shown),
        error=rows["estimate"] - rows["truth"],
        zero_width=((rows["ci_high"] - rows["ci_low"] < 1e-12) & (rows["n_labelled"] < rows["n"])).where(shown),
    )  # fmt: skip
    out = []
    for (name, model), part in rows.groupby(["design", "player_model"], sort=True):
        design = DESIGNS[name]
        spec = next(m for m in design.models if m.name == model)
        k = int(part["shown"].sum())
        cover = float(part["cover"].mean()) if k else np.nan
        row = {
            "design": name, "kind": design.kind, "model": model, "games": spec.games, "exact_win_rate": spec.exact,
            "missed_share": spec.missed, "labels": design.labels, "campaigns": len(part), "intervals": k,
            "coverage": cover, "coverage_se": float(np.sqrt(cover * (1 - cover) / k)) if k else np.nan,
            "below": float(part["below"].mean()) if k else np.nan, "above": float(part["above"].mean()) if k else np.nan,
            "mean_width": float(part["width"].mean()) if k else np.nan,
            "no_interval": float(1 - part["shown"].mean()), "mean_error": float(part["error"].mean()),
            "unanimous_labels": float(part["unanimous"].mean()),
            "zero_width": float(part["zero_width"].mean()) if k else np.nan,
        }  # fmt: skip
        below, above = exact_coverage(design, spec)
        row.update(exact_coverage=1 - below - above, exact_below=below, exact_above=above)
        row["verdict"] = _verdict(cover, row["coverage_se"])
        out.append(row)
    return pd.DataFrame(out)


def _verdict(cover: float, se: float) -> str:
    """``in`` 93–97 %; ``edge`` outside by at most 2 Monte-Carlo SE; else ``high`` / ``low``."""
    if 0.93 <= cover <= 0.97:
        return "in"
    if 0.93 - 2 * se <= cover <= 0.97 + 2 * se:
        return "edge"
    return "high" if cover > 0.97 else "low"


def run(names: list[str], campaigns: int, seed: int = SEED, fixed_seed: int | None = None) -> pd.DataFrame:
    """Every campaign of the ``names`` designs; one row per design × model × campaign."""
    return pd.concat(
        [campaign_rows(DESIGNS[name], name, c, seed, fixed_seed) for name in names for c in range(campaigns)],
        ignore_index=True,
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--campaigns", type=int, default=2000)
    parser.add_argument("--designs", default=",".join(DESIGNS))
    parser.add_argument("--seed", type=int, default=SEED, help="base seed of the campaigns")
    parser.add_argument("--fixed-seed", type=int, default=None, help="one interval seed for every campaign")
    parser.add_argument("--out", default=None, help="folder for sim_wof_coverage.csv/.json")
    args = parser.parse_args(argv)
    names = [n.strip() for n in args.designs.split(",") if n.strip()]
    start = time.time()
    table = summarise(run(names, args.campaigns, args.seed, args.fixed_seed))
    seconds = round(time.time() - start, 1)
    print(f"{args.campaigns} campaigns per design (SE of a coverage of 0.95 ≈ {np.sqrt(0.95 * 0.05 / args.campaigns):.4f})")  # fmt: skip
    with pd.option_context("display.width", 200, "display.max_columns", 30):
        print(table.round(4).to_string(index=False))
    print(f"coverage {table['coverage'].min():.3f}–{table['coverage'].max():.3f} over {len(table)} cells; "
          f"{int((table['verdict'] == 'in').sum())} in 93–97 %; ({seconds} s)")  # fmt: skip
    if args.out:
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        stem = "sim_wof_coverage" if args.fixed_seed is None else "sim_wof_coverage_fixed_seed"
        table.to_csv(out / f"{stem}.csv", index=False)
        meta = {"campaigns": args.campaigns, "designs": {n: DESIGNS[n].title for n in names}, "seconds": seconds,
                "seed": args.seed, "fixed_seed": args.fixed_seed, "cells": json.loads(table.to_json(orient="records"))}  # fmt: skip
        (out / f"{stem}.json").write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
