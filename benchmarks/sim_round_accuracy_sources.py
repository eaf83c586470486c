"""Where the per-round Rogan–Gladen shortfall comes from: the same round cells with
three sources of the judge's Se/Sp draws.

``sim_correction_rounds`` found the per-round interval a little narrow in designs R1 and R5 (pooled
0.939 and 0.931). This script re-runs those campaigns (same simulator, seed and campaign numbers)
and, per model × deck, passes ``corrected_rates`` three accuracies for the same mixture interval
(``by=("model", "deck", "round")``, TDR, ``draws`` posterior draws):

* ``realised`` – the alternative measured and left out (docs/CHANGELOG.md): Jeffreys posterior-predictive draws of
  the deck's realised Se/Sp: per judge-verdict stratum of the deck (N_v items, n_v labels, x_v
  human-true) T_v = x_v + Y_v, Y_v ~ Binomial(N_v − n_v, q_v), q_v ~ Beta(x_v + ½, n_v − x_v + ½),
  then Se = T_1/(T_1 + T_0), Sp = (N_0 − T_0)/((N_0 − T_0) + (N_1 − T_1));
* ``generating`` – what the toolkit does now (``accuracy`` estimated from the labels,
  ``correction.generating_accuracy_draws``): draws of the Se/Sp that generate the verdicts, the
  same q_v without the realised counts, Se = N_1 q_1/(N_1 q_1 + N_0 q_0),
  Sp = N_0(1 − q_0)/(N_0(1 − q_0) + N_1(1 − q_1));
* ``known`` – the design's true Se and Sp, no uncertainty.

Coverage is over every printed interval (``--campaigns`` × 2 models × 2 decks × 10 rounds), with
the SE of the ratio over campaigns (intervals of one campaign are not independent). With ``draws``
equal-tailed quantiles cover a new draw from the same distribution with probability
(0.95·(draws + 1) − 1)/(draws + 1) ≈ 0.948 at 500, which is the ceiling for ``known``.

    PYTHONPATH=. python benchmarks/sim_round_accuracy_sources.py --design R5 --campaigns 500
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd

from benchmarks.sim_correction_rounds import DESIGNS, simulate
from wordplay_audit.analysis.balderdash.corrected import CorrectionOptions, corrected_rates
from wordplay_audit.analysis.balderdash.corrected_cells import ModelAccuracy
from wordplay_audit.analysis.correction import JudgeAccuracy

SOURCES = ("realised", "generating", "known")


def _accuracy(se: np.ndarray, sp: np.ndarray, n_labelled: int) -> ModelAccuracy:
    point = JudgeAccuracy(se=float(np.mean(se)), sp=float(np.mean(sp)), var_se=0.0, var_sp=0.0, cov=0.0,
                          n_labelled=n_labelled, strata=())  # fmt: skip
    return ModelAccuracy(point, np.asarray(se, float), np.asarray(sp, float))


def realised_draws(part: pd.DataFrame, truth: dict, draws: int, rng: np.random.Generator):
    """Draws of one model × deck's realised Se and Sp from its per-verdict Jeffreys posterior
    predictive (module doc)."""
    true = {}
    for verdict in (True, False):
        ids = part.loc[part["true_def"] == verdict, "item_id"]
        labelled = [truth[i] for i in ids if i in truth]
        x, n = sum(labelled), len(labelled)
        q = rng.beta(x + 0.5, n - x + 0.5, size=draws)
        true[verdict] = (len(ids), x + rng.binomial(len(ids) - n, q))
    (n1, t1), (n0, t0) = true[True], true[False]
    with np.errstate(divide="ignore", invalid="ignore"):
        se = t1 / (t1 + t0)
        sp = (n0 - t0) / ((n0 - t0) + (n1 - t1))
    return se, sp


def run(key: str, campaigns: int, seed: int, draws: int, start: int = 0) -> pd.DataFrame:
    design = DESIGNS[key]
    rows = []
    for c in range(start, start + campaigns):
        obs, labels = simulate(design, np.random.default_rng([seed, c]))
        opts = CorrectionOptions(draws=draws, seed=c, constant_accuracy=True)  # rounds borrow
        rng = np.random.default_rng([seed, c, 1])
        truth = dict(zip(labels["item_id"], labels["label"] == "true", strict=True))
        for deck, sub in obs.groupby("deck"):
            lab = labels[labels["item_id"].isin(sub["item_id"])]
            target = sub.groupby(["model", "deck", "round"])["human_all"].mean()
            given = {"realised": {}, "known": {}}
            for model, part in sub.groupby("model"):
                given["realised"][model] = _accuracy(*realised_draws(part, truth, draws, rng), len(lab))
                se, sp = design.se[(model, deck)][0], design.sp[(model, deck)]  # no variance: constant draws
                given["known"][model] = JudgeAccuracy(se, sp, 0.0, 0.0, 0.0, len(lab), ())
            for source in SOURCES:
                accuracy = None if source == "generating" else {"tdr": given[source]}
                table = corrected_rates(sub, lab, metrics=("tdr",), by=("model", "deck", "round"),
                                        design=design.design, accuracy=accuracy, options=opts)  # fmt: skip
                for r in table.itertuples():
                    t = target[(r.model, r.deck, r.round)]
                    rows.append({"campaign": c, "source": source, "has": bool(np.isfinite(r.rg_low)),
                                 "cover": bool(r.rg_low <= t <= r.rg_high), "below": bool(t < r.rg_low),
                                 "above": bool(t > r.rg_high), "width": r.rg_high - r.rg_low})  # fmt: skip
    return pd.DataFrame(rows)


def summary(frame: pd.DataFrame) -> pd.DataFrame:
    """Per source: coverage, its SE over campaigns (ratio estimator), one-sided misses, width."""
    out = []
    for source, part in frame[frame["has"]].groupby("source", sort=False):
        per = part.groupby("campaign")["cover"].agg(["sum", "size"])
        cov = per["sum"].sum() / per["size"].sum()
        c = len(per)
        se = np.sqrt(((per["sum"] - cov * per["size"]) ** 2).sum() / (c * (c - 1))) / per["size"].mean()
        out.append({"source": source, "coverage": cov, "se": se, "below": part["below"].mean(),
                    "above": part["above"].mean(), "width": part["width"].mean(), "intervals": len(part),
                    "no_interval": 1 - len(part) / (frame["source"] == source).sum()})  # fmt: skip
    return pd.DataFrame(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--design", choices=sorted(DESIGNS), default="R5")
    parser.add_argument("--campaigns", type=int, default=50)
    parser.add_argument("--start", type=int, default=0, help="first campaign number (split a run)")
    parser.add_argument("--seed", type=int, default=20261130)
    parser.add_argument("--draws", type=int, default=500)
    parser.add_argument("--out", default=None, help="CSV of the raw rows")
    args = parser.parse_args()
    began = time.time()
    frame = run(args.design, args.campaigns, args.seed, args.draws, args.start)
    if args.out:
        frame.to_csv(args.out, index=False)
    print(f"{DESIGNS[args.design].name}: campaigns {args.start}–{args.start + args.campaigns - 1}, "
          f"{args.draws} draws, {time.time() - began:.0f} s")  # fmt: skip
    print(summary(frame).to_string(index=False, float_format=lambda v: f"{v:.4f}"))


if __name__ == "__main__":
    main()
