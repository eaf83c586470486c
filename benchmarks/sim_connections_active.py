"""Outside data: the Connections study's 4,308 human Yes/No decisions on category names, revealed
by each sampling scheme, every model's categorical-reasoning (CR) score estimated with the
embedding judge's scores; mean interval width at equal labels and coverage against the CR score
under all decisions.

The judge: all-MiniLM-L6-v2 cosine similarity (``judge fit --judge embed``), its out-of-fold
verdict and out-of-fold Platt probability (``calibrated``) per item — no item's own label is used
to score it. The target per model: CR = (Yes decisions among its category-name items)/games, i.e.
the share of Yes times items/games; an interval of the share scales to one of CR. Schemes at a
budget of B labels:

* ``random``: a simple random sample of B items; the engine's verdict post-strata
  (``corrected_shares``), its score-band post-strata (``score="calibrated", bands=4``) and PPI++
  with the calibrated score (normal interval);
* ``stratified``: today's stratified-adaptive allocation over model × verdict (batches of 50,
  ``plan_adaptive.adaptive_batch``), the randomised exact interval per model;
* ``banded``: the same over model × verdict × 2 bands of the calibrated probability;
* ``active``: the bands, the allocation led by the judge's uncertainty (prior = the band's mean
  calibrated probability; :mod:`wordplay_audit.analysis.active`).

The scores are computed once (``judge fit`` over the contract that ``connections score`` writes)
and cached in ``--cache`` (default /tmp/wordplay-audit-connections-embed).

    .venv/bin/python -m benchmarks sim_connections_active -- --seeds 500 --out benchmarks/results
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

from wordplay_audit.analysis.active import uncertainty_strata
from wordplay_audit.analysis.balderdash.plan_adaptive import adaptive_batch, model_interval
from wordplay_audit.analysis.correction import corrected_shares
from wordplay_audit.analysis.correction.ppi import ppi_share

DATA = Path(__file__).resolve().parents[2] / "shared" / "corpora" / "connections"
SCHEMES = ("random/verdict", "random/bands", "random/ppi++", "stratified", "banded", "active")


def _cli(*args: str) -> None:
    subprocess.run([sys.executable, "-m", "wordplay_audit", *args], check=True, stdout=subprocess.DEVNULL)


def load(cache: Path, data: Path) -> pd.DataFrame:
    """One row per decided item: ``item_id``, ``model``, ``judge``, ``calibrated``, ``score``,
    ``human``; and ``games`` per model in ``attrs``."""
    contract, oof = cache / "cx", cache / "embed_oof.csv"
    if not (contract / "items.csv").exists():
        _cli("connections", "score", "--data", str(data), "--out", str(contract))
    if not oof.exists():
        _cli("judge", "fit", str(contract / "items.csv"), "--human", str(contract / "labels.csv"), "--judge",
             "embed", "--kind", "category_name", "--out", str(cache / "embed_fit.json"), "--labels", str(oof))  # fmt: skip
    items = pd.read_csv(contract / "items.csv", dtype=str)
    labels = pd.read_csv(contract / "labels.csv", dtype=str)
    human = labels[labels["rater_type"] == "human"].set_index("item_id")["label"].eq("true")
    judged = pd.read_csv(oof, dtype={"item_id": str, "label": str})
    frame = judged.merge(items[["item_id", "player_model"]], on="item_id")
    frame = frame.assign(model=frame["player_model"], judge=frame["label"].eq("true"),
                         human=frame["item_id"].map(human).astype(bool))  # fmt: skip
    games = {}
    for model in frame["model"].unique():
        scores = pd.read_csv(contract / f"scores_{model}.csv")
        ok = scores[scores["status"] == "ok"] if "status" in scores else scores
        games[model] = len(ok)
        assert int(ok["categorical"].sum()) == int(frame.loc[frame["model"] == model, "human"].sum()), model
    out = frame[["item_id", "model", "judge", "score", "calibrated", "human"]].reset_index(drop=True)
    out.attrs["games"] = games
    return out


def _random(frame: pd.DataFrame, budget: int, rng: np.random.Generator) -> dict:
    lab = np.zeros(len(frame), bool)
    lab[rng.choice(len(frame), budget, replace=False)] = True
    data = frame.assign(human=pd.array(np.where(lab, frame["human"], None), dtype="boolean"))
    seed = int(rng.integers(2**31))
    out = {}
    for name, extra in (("random/verdict", {}), ("random/bands", {"score": "calibrated", "bands": 4})):
        table = corrected_shares(data, cells=["model"], seed=seed, **extra).set_index("model")
        out[name] = table[["ci_low", "ci_high"]].to_numpy()
    rows = []
    for model in sorted(frame["model"].unique()):
        at = (frame["model"] == model).to_numpy()
        y, f = frame["human"].to_numpy(float)[at], frame["calibrated"].to_numpy(float)[at]
        _, low, high, _ = ppi_share(y[lab[at]], f[lab[at]], f[~lab[at]])
        rows.append((low, high))
    out["random/ppi++"] = np.array(rows)
    return out


def _stratified(
    frame: pd.DataFrame, budget: int, rng: np.random.Generator, bands: int, prior: bool, batch: int
):
    stratum, _ = uncertainty_strata(frame["calibrated"], frame["judge"], frame["model"], bands=bands)
    keys, at = np.unique(stratum, return_inverse=True)
    big_n = np.bincount(at)
    true = np.bincount(at, weights=frame["human"].to_numpy(float)).astype(int)
    models = sorted(frame["model"].unique())
    of = np.array([models.index(k.split("|")[0]) for k in keys])
    mean = np.bincount(at, weights=frame["calibrated"].to_numpy(float)) / big_n
    v = rng.random(len(big_n))
    n, x = np.zeros(len(big_n), int), np.zeros(len(big_n), int)
    while n.sum() < budget:
        with np.errstate(invalid="ignore"):
            add = adaptive_batch(
                big_n, n, x, of, min(batch, budget - int(n.sum())), prior=mean if prior else None
            )
        if add.sum() == 0:
            break
        left_true, left = true - x, big_n - n
        x = x + np.where(add > 0, rng.hypergeometric(left_true, np.maximum(left - left_true, 0), add), 0)
        n = n + add
    return np.array(
        [model_interval(big_n[of == m], n[of == m], x[of == m], v[of == m]) for m in range(len(models))]
    )


def run(frame: pd.DataFrame, seeds: int, budgets, seed: int, batch: int = 50) -> pd.DataFrame:
    models = sorted(frame["model"].unique())
    truth = frame.groupby("model")["human"].mean().loc[models].to_numpy()
    games = np.array([frame.attrs["games"][m] for m in models])
    items = frame.groupby("model").size().loc[models].to_numpy()
    rows = []
    for budget in budgets:
        start = time.perf_counter()
        bounds = {s: [] for s in SCHEMES}
        for k in range(seeds):
            rng = np.random.default_rng([seed, budget, k])
            bounds.update({s: [*bounds[s], b] for s, b in _random(frame, budget, rng).items()})
            for name, b, prior in (("stratified", 1, False), ("banded", 2, False), ("active", 2, True)):
                bounds[name].append(_stratified(frame, budget, rng, b, prior, batch))
        for s in SCHEMES:
            got = np.array(bounds[s])  # seeds × models × 2
            low, high = got[..., 0], got[..., 1]
            have = np.isfinite(low) & np.isfinite(high)
            cover = (low - 1e-12 <= truth) & (truth <= high + 1e-12)
            width = np.where(have, high - low, np.nan) * items / games  # on the CR scale
            for m, model in enumerate(models):
                rows.append({"labels": budget, "scheme": s, "model": model, "seeds": seeds,
                             "cr_all_decisions": truth[m] * items[m] / games[m],
                             "no_interval": int((~have[:, m]).sum()),
                             "coverage": float(cover[have[:, m], m].mean()) if have[:, m].any() else None,
                             "mean_cr_width": float(np.nanmean(width[:, m])) if have[:, m].any() else None})  # fmt: skip
        print(f"labels {budget}: {time.perf_counter() - start:.0f} s")
    return pd.DataFrame(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=500)
    parser.add_argument("--budgets", default="300,600,1200")
    parser.add_argument("--seed", type=int, default=20270103)
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--cache", type=Path, default=Path("/tmp/wordplay-audit-connections-embed"))
    parser.add_argument("--batch", type=int, default=50)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    args.cache.mkdir(parents=True, exist_ok=True)
    frame = load(args.cache, args.data)
    table = run(frame, args.seeds, [int(b) for b in args.budgets.split(",")], args.seed, args.batch)
    summary = table.groupby(["labels", "scheme"], sort=False).agg(
        mean_cr_width=("mean_cr_width", "mean"), min_coverage=("coverage", "min"), no_interval=("no_interval", "sum")
    )  # fmt: skip
    print(summary.round(3).to_string())
    if args.out is not None:
        args.out.mkdir(parents=True, exist_ok=True)
        table.to_csv(args.out / f"sim_connections_active_{args.budgets.replace(',', '_')}.csv", index=False)


if __name__ == "__main__":
    main()
