"""Coverage, false-positive rate and power of the settings comparison and the self-preference
test (``wa.balderdash_compare``, ``wa.balderdash_self_preference``) on simulated campaigns with
known truth, over designs that vary the judge's false-negative rate and the labels per cell.

Usage: python benchmarks/sim_balderdash_compare.py [--reps 400] [--workers 2] [--draws 5000]
       [--fnr 0.05,0.20,0.35] [--labels 20,60,150] [--designs 0.05:20,0.35:150,…]
       [--out benchmarks/results/sim_balderdash_compare.csv]
(the CSV is rewritten after each design, so a run cut short keeps the designs it finished)

One replicate of a design = two campaigns (``corpora.balderdash.simulate``), level a
(``correct_definition_points`` 0) and level b (50), 3 games per deck, 20 rounds, 3 models × 2
players, judge FNR ``fnr`` for every model (Sp 0.97), labels stratified by model × deck × verdict
(labels per model × level cell = 4 × labels per stratum). Setting effect: gpt-4o-mini knows each
deck's words 0.15 more often in level b (TDR +0.1275, LKR +0.15); the two other models do not
change (no difference; llama-3-8b's judge sensitivity does change, below, so its rows also
check that the corrected comparison is not moved by the judge's accuracy). Self-preference: the judge's model is llama-3-8b; in level a the judge is as
accurate on it as on the others (null), in level b its sensitivity on it is 0.10 higher (capped
at 0.99). Truth: the design's rate differences (``ci_*``), the campaign's realised differences
(``realised_*``).

Rows of the CSV: per design × test × row kind (``no_difference``/``difference``) the coverage of
the interval, the rejection rate of the unadjusted test (p < 0.05; on no_difference rows the
false-positive rate, on difference rows the power), the Holm-adjusted rejection rate, the mean
interval width and the count.
Seeds 0..reps-1 per design; deterministic.
"""

from __future__ import annotations

import argparse
import time
from concurrent.futures import ProcessPoolExecutor

import numpy as np
import pandas as pd

from wordplay_audit.analysis.balderdash.compare import compare_settings
from wordplay_audit.analysis.balderdash.corrected_frame import question_frame
from wordplay_audit.analysis.balderdash.recompute import labels_for
from wordplay_audit.analysis.judge_audit_self import self_preference
from wordplay_audit.corpora.balderdash.simulate import DEFAULT_MODELS, SimConfig, simulate_campaign

EFFECT_MODEL, JUDGE_MODEL, SHIFT, SELF_SHIFT, RHO = "gpt-4o-mini", "llama-3-8b", 0.15, 0.10, 0.85


def merged_campaigns(configs: list[SimConfig], seed: int) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """The campaigns of ``configs`` as one export's tables (game ids prefixed by the level)."""
    obs, labels, truth = [], [], []
    for k, config in enumerate(configs):
        c = simulate_campaign(config, seed=seed * 16 + k)
        o = c.obs.copy()
        o["game_id"] = f"s{k}-" + o["game_id"].astype(str)
        ids = "bd:" + o["game_id"] + ":" + o["round_id"].astype(str) + ":" + o["player_id"].astype(str)
        rename = dict(zip(o["item_id"], ids, strict=True))
        o["item_id"] = ids
        obs.append(o)
        labels.append(c.labels.assign(item_id=c.labels["item_id"].map(rename)))
        truth.append(c.truth.assign(item_id=c.truth["item_id"].map(rename), level=k))
    return pd.concat(obs, ignore_index=True), pd.concat(labels, ignore_index=True), pd.concat(truth)


def configs(fnr: float, labels_per_cell: int) -> list[SimConfig]:
    se = 1 - fnr
    common = dict(games_per_deck=3, n_rounds=20, judge_model=JUDGE_MODEL,
                  labels_per_stratum=max(round(labels_per_cell / 4), 1))  # fmt: skip
    know_b = {EFFECT_MODEL: {"basic_english_words": 0.8 + SHIFT, "balderdash_words": 0.4 + SHIFT}}
    se_b = {m: se for m in DEFAULT_MODELS} | {JUDGE_MODEL: min(se + SELF_SHIFT, 0.99)}
    return [
        SimConfig(correct_definition_points=0, judge_se={m: se for m in DEFAULT_MODELS}, **common),
        SimConfig(correct_definition_points=50, judge_se=se_b, know=know_b, **common),
    ]


def one(args: tuple[float, int, int]) -> list[dict]:
    fnr, per_cell, seed = args
    cfg = configs(fnr, per_cell)
    obs, labels, truth = merged_campaigns(cfg, seed)
    rows = []
    for metric, column, effect in (("tdr", "true_ref", RHO * SHIFT), ("lkr", "true_any", SHIFT)):
        real = truth.groupby(["model", "level"])[column].mean().unstack()
        diffs = compare_settings(obs, labels, by="correct_definition_points", metric=metric, seed=seed,
                                 draws=args_draws()).differences  # fmt: skip
        for r in diffs.itertuples():
            target = effect if r.model == EFFECT_MODEL else 0.0
            rows.append(dict(test=f"setting_{metric}", kind="difference" if target else "no_difference", target=target,
                             low=r.ci_low, high=r.ci_high, p=r.p, p_holm=r.p_holm,
                             realised=real.loc[r.model, 1] - real.loc[r.model, 0],
                             realised_low=r.realised_low, realised_high=r.realised_high))  # fmt: skip
    checked = labels_for(obs, labels)
    for k, conf in enumerate(cfg):
        part = obs["game_id"].str.startswith(f"s{k}-").to_numpy()
        frame = question_frame(obs[part].reset_index(drop=True), checked[checked["item_id"].isin(obs["item_id"][part])], "tdr")  # fmt: skip
        table = self_preference(frame.data.assign(item_id=frame.item_ids), judge_model=JUDGE_MODEL, by="model",
                                seed=seed, draws=args_draws())  # fmt: skip
        se_own, se_other = conf.judge_se[JUDGE_MODEL], conf.judge_se[EFFECT_MODEL]
        for r in table.itertuples():
            target = se_own - se_other if r.rate == "sensitivity" else 0.0
            rows.append(dict(test=f"self_{r.rate}", kind="difference" if target else "no_difference", target=target,
                             low=r.ci_low, high=r.ci_high, p=r.p, p_holm=r.p_holm))  # fmt: skip
    return [dict(fnr=fnr, labels_per_cell=per_cell, seed=seed, **row) for row in rows]


DRAWS = [5000]


def args_draws() -> int:
    return DRAWS[0]


def summarise(raw: pd.DataFrame) -> pd.DataFrame:
    raw = raw.copy()
    shown = raw["low"].notna()
    raw["cover"] = ((raw["low"] <= raw["target"]) & (raw["target"] <= raw["high"])).astype(float).where(shown)
    real = raw["realised_low"].notna()
    raw["realised_cover"] = ((raw["realised_low"] <= raw["realised"]) & (raw["realised"] <= raw["realised_high"])).astype(float).where(real)  # fmt: skip
    raw["reject"] = (raw["p"] < 0.05).astype(float).where(shown)
    raw["reject_holm"] = (raw["p_holm"] < 0.05).astype(float).where(shown)
    raw["width"] = raw["high"] - raw["low"]
    keys = ["fnr", "labels_per_cell", "test", "kind"]
    table = raw.groupby(keys).agg(
        effect=("target", "mean"), coverage=("cover", "mean"), realised_coverage=("realised_cover", "mean"),
        reject=("reject", "mean"), reject_holm=("reject_holm", "mean"), width=("width", "mean"),
        no_interval=("low", lambda s: float(s.isna().mean())), n=("cover", "count"),
    ).reset_index()  # fmt: skip
    table["coverage_se"] = np.sqrt(table["coverage"] * (1 - table["coverage"]) / table["n"])
    return table


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--reps", type=int, default=400)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--draws", type=int, default=5000, help="predictive draws per difference")
    parser.add_argument("--fnr", default="0.05,0.20,0.35")
    parser.add_argument("--labels", default="20,60,150", help="labels per model × level cell")
    parser.add_argument("--designs", default=None, help="fnr:labels pairs in run order (default: the grid)")
    parser.add_argument("--first-seed", type=int, default=0, help="seeds first-seed … first-seed + reps − 1")
    parser.add_argument("--raw", default=None, help="also write every replicate's rows to this CSV")
    parser.add_argument("--out", default="benchmarks/results/sim_balderdash_compare.csv")
    args = parser.parse_args()
    DRAWS[0] = args.draws
    start = time.time()
    designs = [(float(f), int(n)) for f in args.fnr.split(",") for n in args.labels.split(",")]
    if args.designs:
        designs = [(float(d.split(":")[0]), int(d.split(":")[1])) for d in args.designs.split(",")]
    grid = f"--designs {args.designs}" if args.designs else f"--fnr {args.fnr} --labels {args.labels}"
    rows: list[dict] = []
    with ProcessPoolExecutor(args.workers, initializer=DRAWS.__setitem__, initargs=(0, args.draws)) as pool:
        for fnr, per_cell in designs:  # each design written as it finishes: a cut-short run keeps them
            jobs = [(fnr, per_cell, s) for s in range(args.first_seed, args.first_seed + args.reps)]
            rows += [row for part in pool.map(one, jobs, chunksize=2) for row in part]
            table = summarise(pd.DataFrame(rows))
            if args.raw:
                pd.DataFrame(rows).to_csv(args.raw, index=False)
            seconds = time.time() - start
            with open(args.out, "w", encoding="utf-8") as out:
                out.write(f"# benchmarks/sim_balderdash_compare.py: {args.reps} replicates per design, "
                          f"{len(table[['fnr', 'labels_per_cell']].drop_duplicates())} designs so far, {seconds:.0f} s (nice -n 10, shared machine)\n")  # fmt: skip
                out.write(f"# command: .venv/bin/python benchmarks/sim_balderdash_compare.py --reps {args.reps} "
                          f"--workers {args.workers} --draws {args.draws} {grid}\n")  # fmt: skip
                out.write("# coverage: of the rate difference (the design's); realised_coverage: of the campaign's "
                          "realised difference; reject: p < 0.05 unadjusted (no_difference rows: false-positive rate; difference "
                          "rows: power); reject_holm: Holm within its family; kind no_difference: the design has none\n")  # fmt: skip
                table.round(4).to_csv(out, index=False)
            print(f"{fnr} {per_cell} done, {seconds:.0f} s", flush=True)
    print(table.round(3).to_string())


if __name__ == "__main__":
    main()
