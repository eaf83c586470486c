"""Simulation study of the Balderdash trend tests (analysis/balderdash/trend.py).

Run:  .venv/bin/python benchmarks/sim_balderdash_trend.py [--reps 2000] [--workers 2]

Design of one cell (what the study has per model × history type): G = 5 games × 20 rounds ×
3 players of the model; outcome Bernoulli with

    logit P(Y = 1) = b0 + u_g + v_gp + (b1 + s_g) x,   x = (round − 10.5)/19,

b0 = logit(0.35), game and player random intercepts u_g, v_gp ~ N(0, 0.5²), and in one null
scenario a random slope per game s_g ~ N(0, 1) (trends that cancel across games). Each
replication runs :func:`trend_tests` on one cell and records whether each p-value is < 0.05.

Scenarios
    null                 b1 = 0                         false-positive rates, t vs z
    null_random_slopes   b1 = 0, s_g ~ N(0, 1)          mean trend 0 but games trend
    null_1_player, null_rate_0.15, null_sd_game_1.0     sensitivity of the null rates to one
                                                        player per game, a rate of 15 %, and
                                                        a game SD of 1 (no mixed model)
    power_b1=…           b1 = 0.5, 1.0, 1.5             power (b1 is the conditional,
                                                        per-game log-odds change from round 1
                                                        to 20; the population-averaged slope
                                                        GEE estimates is ~0.92·b1)
    adj_null / adj_power the outcome recorded by a judge with Se = 0.85, Sp = 0.90 (counts
                         TP, FN, TN, FP = 170, 30, 180, 20), b1 = 0 / 1.0, adjusted test
    sp_drift_null        b1 = 0 in the truth, judge Sp falls from 0.95 to 0.75 over the rounds

Not collected by pytest. Seeds are fixed (``--seed``); figures are reproducible.
"""

from __future__ import annotations

import argparse
import math
import os
import time
from concurrent.futures import ProcessPoolExecutor

import numpy as np
import pandas as pd

from wordplay_audit.analysis.balderdash.trend import trend_tests

GAMES, ROUNDS, PLAYERS = 5, 20, 3
B0 = math.log(0.35 / 0.65)
SD_GAME = SD_PLAYER = 0.5
SE_SP_COUNTS = (170, 30, 180, 20)  # posterior means about Se = 0.85, Sp = 0.90
ALPHA = 0.05


def simulate_cell(
    rng: np.random.Generator,
    *,
    b1: float,
    sd_slope: float = 0.0,
    se: float = 1.0,
    sp_first: float = 1.0,
    sp_last: float | None = None,
    players: int = PLAYERS,
    b0: float = B0,
    sd_game: float = SD_GAME,
) -> pd.DataFrame:
    """One cell in the player_round_table layout (columns the trend tests read)."""
    sp_last = sp_first if sp_last is None else sp_last
    rounds = np.arange(1, ROUNDS + 1)
    x = (rounds - (ROUNDS + 1) / 2) / (ROUNDS - 1)
    frames = []
    for game in range(GAMES):
        u = rng.normal(0.0, sd_game)
        slope = b1 + rng.normal(0.0, sd_slope) if sd_slope > 0 else b1
        v = rng.normal(0.0, SD_PLAYER, size=players)
        eta = b0 + u + v[:, None] + slope * x[None, :]  # players × rounds
        truth = rng.random(eta.shape) < 1.0 / (1.0 + np.exp(-eta))
        sp = sp_first + (sp_last - sp_first) * (rounds - 1) / (ROUNDS - 1)
        p_obs = np.where(truth, se, 1.0 - sp[None, :])
        observed = rng.random(eta.shape) < p_obs
        frames.append(
            pd.DataFrame(
                {
                    "game_id": f"g{game}",
                    "round_id": np.tile(rounds, players),
                    "player_id": np.repeat([f"p{p}" for p in range(players)], ROUNDS),
                    "model": "sim",
                    "history_type": "none",
                    "knows": truth.ravel(),
                    "true_def": observed.ravel(),
                }
            )
        )
    return pd.concat(frames, ignore_index=True)


SCENARIOS: dict[str, dict] = {
    "null": {"b1": 0.0, "mixed": True},
    "null_random_slopes": {"b1": 0.0, "sd_slope": 1.0, "mixed": True},
    "null_1_player": {"b1": 0.0, "players": 1},
    "null_rate_0.15": {"b1": 0.0, "b0": math.log(0.15 / 0.85)},
    "null_sd_game_1.0": {"b1": 0.0, "sd_game": 1.0},
    "power_b1=0.5": {"b1": 0.5, "mixed": True},
    "power_b1=1.0": {"b1": 1.0, "mixed": True},
    "power_b1=1.5": {"b1": 1.5, "mixed": True},
    "adj_null": {"b1": 0.0, "se": 0.85, "sp_first": 0.90, "adjust": True},
    "adj_power_b1=1.0": {"b1": 1.0, "se": 0.85, "sp_first": 0.90, "adjust": True},
    "sp_drift_null": {"b1": 0.0, "se": 0.85, "sp_first": 0.95, "sp_last": 0.75, "judged": True},
}
P_COLUMNS = ("gee_p_t", "gee_p_z", "gee_p_z_robust", "twostage_p", "mixed_p", "adj_p")


def one_replication(task: tuple[str, int, int]) -> dict[str, float]:
    name, rep, seed = task
    spec = SCENARIOS[name]
    index = list(SCENARIOS).index(name)
    rng = np.random.default_rng([seed, index, rep])
    cell = simulate_cell(
        rng,
        b1=spec["b1"],
        sd_slope=spec.get("sd_slope", 0.0),
        se=spec.get("se", 1.0),
        sp_first=spec.get("sp_first", 1.0),
        sp_last=spec.get("sp_last"),
        players=spec.get("players", PLAYERS),
        b0=spec.get("b0", B0),
        sd_game=spec.get("sd_game", SD_GAME),
    )
    judged = spec.get("adjust", False) or spec.get("judged", False)
    result = trend_tests(
        cell,
        outcome="true_def" if judged else "knows",
        pooled=False,
        se_sp={"sim": SE_SP_COUNTS} if spec.get("adjust") else None,
        draws=20,
        seed=rep,
        mixed=spec.get("mixed", False),
    ).iloc[0]
    row = {"scenario": name, "slope": result["slope"], "note": result["note"]}
    for column in P_COLUMNS:
        row[column] = float(result[column]) if column in result.index else math.nan
    return row


def summarise(results: pd.DataFrame) -> pd.DataFrame:
    lines = []
    for name, block in results.groupby("scenario", sort=False):
        line: dict[str, object] = {"scenario": name, "reps": len(block)}
        for column in P_COLUMNS:
            p = block[column].dropna()
            if p.empty:
                line[column] = ""
                continue
            rate = float((p < ALPHA).mean())
            mc_se = math.sqrt(rate * (1 - rate) / len(p))
            dropped = len(block) - len(p)
            line[column] = f"{100 * rate:5.1f} ± {100 * mc_se:.1f}" + (f" ({dropped} NaN)" if dropped else "")
        line["mean_slope"] = round(float(block["slope"].mean()), 3)
        line["notes"] = int((block["note"] != "").sum())
        lines.append(line)
    return pd.DataFrame(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=2000, help="replications of the null scenario")
    parser.add_argument("--other-reps", type=int, default=1000, help="replications of power scenarios")
    parser.add_argument("--adj-reps", type=int, default=500, help="replications of judged scenarios")
    parser.add_argument("--workers", type=int, default=min(2, os.cpu_count() or 1))
    parser.add_argument("--seed", type=int, default=20240)
    args = parser.parse_args()

    tasks = []
    for name, spec in SCENARIOS.items():
        if name == "null":
            reps = args.reps
        elif spec.get("adjust") or spec.get("judged"):
            reps = args.adj_reps
        else:
            reps = args.other_reps
        tasks.extend((name, rep, args.seed) for rep in range(reps))

    start = time.perf_counter()
    with ProcessPoolExecutor(max_workers=args.workers) as pool:
        rows = list(pool.map(one_replication, tasks, chunksize=20))
    elapsed = time.perf_counter() - start

    table = summarise(pd.DataFrame(rows))
    with pd.option_context("display.width", 200, "display.max_columns", 20):
        print(
            f"Rejection rates at alpha = {ALPHA} in % (± Monte-Carlo SE); cell = {GAMES} games × "
            f"{ROUNDS} rounds × {PLAYERS} players"
        )
        print("gee_p_t: GEE, bias-reduced SE, t(G-1) | gee_p_z: same SE, normal (statsmodels) |")
        print("gee_p_z_robust: ordinary sandwich, normal | twostage_p | mixed_p | adj_p: Rubin, t")
        print(table.to_string(index=False))
    print(f"{len(tasks)} replications in {elapsed:.0f} s with {args.workers} worker(s)")


if __name__ == "__main__":
    main()
