"""Human labels needed for ± 0.05 on every model's corrected TDR with a scored judge:
proportional and today's stratified-adaptive allocation over model × verdict strata, score-aware
stratified (model × verdict × score band, adaptive) and active labelling (the same bands, the
allocation led by the judge's uncertainty, :mod:`wordplay_audit.analysis.active`).

Each campaign draws a population: per model N items, item i true with probability p_i ~
Beta(κ·t, κ·(1 − t)) (t the model's TDR; a small κ = a judge sure of most items, a large κ = a
judge that cannot tell); the judge's score is s_i = p_i (calibrated) or a distortion of it
(``calibration="bad"``: s = expit(2.5·logit p + 1.2), over-confident and shifted towards true);
its verdict is s ≥ ½. Bands: ``--bands`` (default 2: a judge-sure and a judge-unsure half)
quantile bands of s inside each model × verdict (2 needed fewer labels than 3 or 4 in a 12-campaign
pilot on S1 and S4: each band must hold 5 labels and bound its own share). Every method
runs the campaign loop of ``balderdash plan --adaptive``
(:func:`wordplay_audit.analysis.balderdash.plan_adaptive.run_campaign`: batches of 20, stop when
every model's randomised exact interval has half-width ≤ 0.05, coverage of each model's realised
TDR); active passes the strata's mean score as the allocation's prior. Common random numbers:
the four methods see the same population.

    .venv/bin/python -m benchmarks sim_active_labelling -- --campaigns 500 --out benchmarks/results
"""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from scipy.special import expit, logit

from wordplay_audit.analysis.active import uncertainty_strata
from wordplay_audit.analysis.balderdash.plan_adaptive import run_campaign

METHODS = ("proportional", "adaptive", "banded", "active")
LABELS = {
    "proportional": "proportional (model × verdict)",
    "adaptive": "stratified-adaptive (model × verdict; today's)",
    "banded": "score-aware stratified (model × verdict × bands, adaptive)",
    "active": "active (the bands, allocation led by the judge's uncertainty)",
}


@dataclass(frozen=True)
class Design:
    name: str
    sizes: list  # items per model
    tdr: list  # per model
    kappa: list  # per model: Beta concentration (small = a sure judge)
    calibration: str = "good"  # or "bad"


DESIGNS = {
    "S1": Design(
        "S1: 4 models × 500 items, TDR 0.3–0.7, a good calibrated judge (κ 1, AUC ≈ 0.83)",
        [500] * 4,
        [0.3, 0.45, 0.55, 0.7],
        [1.0] * 4,
    ),  # fmt: skip
    "S2": Design(
        "S2: as S1, but model 4's judge much worse (κ 12, AUC ≈ 0.6)",
        [500] * 4,
        [0.3, 0.45, 0.55, 0.7],
        [1.0, 1.0, 1.0, 12.0],
    ),  # fmt: skip
    "S3": Design(
        "S3: as S1, the judge's scores badly calibrated (s = expit(2.5 logit p + 1.2))",
        [500] * 4,
        [0.3, 0.45, 0.55, 0.7],
        [1.0] * 4,
        "bad",
    ),  # fmt: skip
    "S4": Design(
        "S4: 3 models × 800, 400, 300 items, TDR 0.2/0.5/0.8, a sure judge (κ 0.4, AUC ≈ 0.93)",
        [800, 400, 300],
        [0.2, 0.5, 0.8],
        [0.4] * 3,
    ),  # fmt: skip
}


def population(design: Design, rng: np.random.Generator):
    """Per item: model index, truth, judge score."""
    model, truth, score = [], [], []
    for m, (size, t, k) in enumerate(zip(design.sizes, design.tdr, design.kappa, strict=True)):
        p = np.clip(rng.beta(k * t, k * (1 - t), size), 1e-6, 1 - 1e-6)
        y = rng.random(size) < p
        s = p if design.calibration == "good" else expit(2.5 * logit(p) + 1.2)
        model.append(np.full(size, m))
        truth.append(y)
        score.append(s)
    return np.concatenate(model), np.concatenate(truth), np.concatenate(score)


def strata(model, truth, score, bands: int):
    """(N_h, T_h, model of h, mean score of h) over model × verdict (× ``bands`` score bands)."""
    stratum, _ = uncertainty_strata(score, score >= 0.5, model, bands=max(bands, 1))
    keys, at = np.unique(stratum, return_inverse=True)
    big_n = np.bincount(at)
    true = np.bincount(at, weights=truth.astype(float)).astype(int)
    of = np.array([int(k.split("|")[0]) for k in keys])
    mean = np.bincount(at, weights=score) / big_n
    return big_n, true, of, mean


def campaign(design: Design, seed: int, c: int, methods=METHODS, bands: int = 2, **settings):
    rng = np.random.default_rng([seed, c])
    model, truth, score = population(design, rng)
    realised = np.array([truth[model == m].mean() for m in range(len(design.sizes))])
    coarse, fine = strata(model, truth, score, 1), strata(model, truth, score, bands)
    v_coarse, v_fine = rng.random(len(coarse[0])), rng.random(len(fine[0]))
    out = {}
    for k, method in enumerate(methods):
        big_n, true, of, mean = coarse if method in ("proportional", "adaptive") else fine
        v = v_coarse if method in ("proportional", "adaptive") else v_fine
        how = "proportional" if method == "proportional" else "adaptive"
        prior = mean if method == "active" else None
        spent, _, low, high, known = run_campaign(
            (big_n, true, of, v), how, np.random.default_rng([seed, c, k + 1]), prior=prior, **settings
        )
        covered = (low - 1e-12 <= realised) & (realised <= high + 1e-12)
        out[method] = (spent, covered, known)
    return out, auc_of(model, truth, score)


def auc_of(model, truth, score):
    from wordplay_audit.analysis.judge_scores import roc_auc

    return [roc_auc(score[model == m], truth[model == m]) for m in np.unique(model)]


def run(design: Design, campaigns: int, seed: int, **settings) -> dict:
    labels = {m: [] for m in METHODS}
    covered = {m: [] for m in METHODS}
    known = {m: [] for m in METHODS}
    aucs = []
    for c in range(campaigns):
        out, auc = campaign(design, seed, c, **settings)
        aucs.append(auc)
        for m, (spent, cov, full) in out.items():
            labels[m].append(spent)
            covered[m].append(cov)
            known[m].append(full)
    result = {"design": design.name, "campaigns": campaigns, "seed": seed, "items": int(sum(design.sizes)),
              "auc_per_model": np.mean(aucs, axis=0).round(3).tolist(), "methods": {}}  # fmt: skip
    ref = np.array(labels["adaptive"], float)
    for m in METHODS:
        spent, cov, full = np.array(labels[m], float), np.array(covered[m]), np.array(known[m])
        open_ = (~full).sum(axis=0)
        diff = ref - spent
        result["methods"][m] = {
            "labels_mean": float(spent.mean()),
            "labels_se": float(spent.std(ddof=1) / np.sqrt(len(spent))),
            "saving_vs_adaptive": float(diff.mean() / ref.mean()),
            "saving_se": float(diff.std(ddof=1) / np.sqrt(len(diff)) / ref.mean()),
            "coverage_per_model": [
                float((c & ~f).sum() / k) if k else None for c, f, k in zip(cov.T, full.T, open_, strict=True)
            ],  # fmt: skip
            "known_share_per_model": full.mean(axis=0).tolist(),
        }
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--campaigns", type=int, default=500)
    parser.add_argument("--designs", default="S1,S2,S3,S4")
    parser.add_argument("--seed", type=int, default=20270101)
    parser.add_argument("--bands", type=int, default=2)
    parser.add_argument("--out", type=Path, default=None, help="folder for sim_active_labelling.json")
    args = parser.parse_args()
    results = []
    for key in args.designs.split(","):
        start = time.perf_counter()
        result = run(DESIGNS[key], args.campaigns, args.seed, half_width=0.05, batch=20, bands=args.bands)
        result["bands"] = args.bands
        result["seconds"] = round(time.perf_counter() - start, 1)
        results.append(result)
        print(f"\n{result['design']}  ({args.campaigns} campaigns, {result['seconds']:.0f} s; "
              f"mean AUC per model {result['auc_per_model']})")  # fmt: skip
        for m in METHODS:
            r = result["methods"][m]
            cover = " ".join(f"{c:.3f}" if c is not None else "–" for c in r["coverage_per_model"])
            print(f"  {LABELS[m]:<66} {r['labels_mean']:7.1f} ± {r['labels_se']:4.1f}  "
                  f"vs adaptive {-r['saving_vs_adaptive']:+7.1%}  coverage {cover}")  # fmt: skip
        if args.out is not None:  # after every design: a long run keeps what it finished
            args.out.mkdir(parents=True, exist_ok=True)
            text = json.dumps(results, indent=1) + "\n"
            (args.out / "sim_active_labelling.json").write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
