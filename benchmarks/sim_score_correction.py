"""Coverage and width of the score-aware corrected share: the engine's verdict post-strata, its
score-band post-strata (``corrected_shares(score=, bands=4)``) and PPI++ with the continuous score
(``correction.ppi.ppi_share``, normal interval), for a simple random sample of labels.

Design: one cell of 1,000 items, item i true with probability p_i ~ Beta(κ·t, κ·(1 − t)),
t = 0.4; the judge's score s_i = p_i (``good``), s_i = expit(2.5·logit p_i + 1.2) (``bad``
calibration: over-confident, shifted towards true), or p_i with κ = 12 (``weak``: AUC ≈ 0.6); its
verdict s ≥ ½. n = 20, 40, 80, 160 labels (5–40 per band of 4) by simple random sampling. Target:
the realised share of true items of the cell. Each cell of the table is ``--campaigns``
populations (one sample each).

    .venv/bin/python -m benchmarks sim_score_correction -- --campaigns 500 --out benchmarks/results
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.special import expit, logit

from wordplay_audit.analysis.correction import corrected_shares
from wordplay_audit.analysis.correction.ppi import ppi_share

JUDGES = {"good": (1.0, "good"), "bad": (1.0, "bad"), "weak": (12.0, "good")}
SIZES = (20, 40, 80, 160)
METHODS = ("verdict", "bands", "ppi++")


def one(judge: str, n: int, rng: np.random.Generator, items: int = 1000, tdr: float = 0.4):
    kappa, calibration = JUDGES[judge]
    p = np.clip(rng.beta(kappa * tdr, kappa * (1 - tdr), items), 1e-6, 1 - 1e-6)
    y = rng.random(items) < p
    s = p if calibration == "good" else expit(2.5 * logit(p) + 1.2)
    lab = np.zeros(items, bool)
    lab[rng.choice(items, n, replace=False)] = True
    truth = y.mean()
    frame = pd.DataFrame({
        "item_id": [f"i{k}" for k in range(items)], "cell": "c", "judge": s >= 0.5, "score": s,
        "human": pd.array(np.where(lab, y, None), dtype="boolean"),
    })  # fmt: skip
    out = {}
    seed = int(rng.integers(2**31))
    for method, extra in (("verdict", {}), ("bands", {"score": "score", "bands": 4})):
        row = corrected_shares(frame, cells=["cell"], seed=seed, **extra).iloc[0]
        out[method] = (row["ci_low"], row["ci_high"])
    est, low, high, _ = ppi_share(y[lab].astype(float), s[lab], s[~lab])
    out["ppi++"] = (low, high)
    return truth, out


def run(campaigns: int, seed: int) -> list[dict]:
    rows = []
    for judge in JUDGES:
        for n in SIZES:
            start = time.perf_counter()
            hits = {m: 0 for m in METHODS}
            widths = {m: [] for m in METHODS}
            missing = {m: 0 for m in METHODS}
            for c in range(campaigns):
                truth, out = one(judge, n, np.random.default_rng([seed, n, list(JUDGES).index(judge), c]))
                for m, (low, high) in out.items():
                    if not (np.isfinite(low) and np.isfinite(high)):
                        missing[m] += 1
                        continue
                    hits[m] += bool(low - 1e-12 <= truth <= high + 1e-12)
                    widths[m].append(high - low)
            for m in METHODS:
                given = campaigns - missing[m]
                rows.append({"judge": judge, "labels": n, "method": m, "campaigns": campaigns,
                             "no_interval": missing[m], "coverage": hits[m] / given if given else None,
                             "mean_width": float(np.mean(widths[m])) if widths[m] else None,
                             "seconds": round(time.perf_counter() - start, 1)})  # fmt: skip
            print(" | ".join(f"{judge:<5} n={n:<4}"[:12] if i == 0 else "" for i in range(1)) + "  " + "  ".join(
                f"{r['method']}: cov {r['coverage']:.3f} width {r['mean_width']:.3f} (none {r['no_interval']})"
                for r in rows[-3:]
            ))  # fmt: skip
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--campaigns", type=int, default=500)
    parser.add_argument("--seed", type=int, default=20270102)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    start = time.perf_counter()
    rows = run(args.campaigns, args.seed)
    print(f"{time.perf_counter() - start:.0f} s")
    if args.out is not None:
        args.out.mkdir(parents=True, exist_ok=True)
        pd.DataFrame(rows).to_csv(args.out / "sim_score_correction.csv", index=False)


if __name__ == "__main__":
    main()
