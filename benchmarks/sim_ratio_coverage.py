"""Per-design coverage of the judge audit's interval of a realised sensitivity and specificity
(:func:`analysis.correction.ratio.randomised_ratio_interval`), by side, on a grid of designs.

    .venv/bin/python -m benchmarks sim_ratio_coverage -- [--draws 2000] [--labels 10,25] [--method normal]

Each design: two decks of ``--items`` judged items with prevalences (π₁, π₂), a judge with
sensitivity Se and specificity Sp (each item's verdict drawn from them), and a sample of
``labels`` items per deck × verdict post-stratum (all of it when smaller). The truth is the judge's
realised Se and Sp over all the items of the draw; the table gives, per design, how often it lies
below the lower bound and above the upper one (each should be near 0.025), the coverage and the
mean width.
Seeded per design; deterministic.
"""

from __future__ import annotations

import argparse
import itertools
import time

import numpy as np
import pandas as pd

from wordplay_audit.analysis.correction import poststratified_accuracy, seeded_rng
from wordplay_audit.analysis.correction.ratio import randomised_ratio_interval
from wordplay_audit.analysis.proportions import z_value


def one_draw(
    rng: np.random.Generator, items: int, prevalences, se: float, sp: float, labels: int, method: str
):
    """(realised Se, Se interval, realised Sp, Sp interval) of one simulated audit."""
    unl, lab, lab_true, judge, true_count = [], [], [], [], []
    for pi in prevalences:
        truth = rng.random(items) < pi
        verdict = np.where(truth, rng.random(items) < se, rng.random(items) >= sp)
        for f in (True, False):
            t = truth[verdict == f]
            chosen = rng.permutation(len(t))[: min(labels, len(t))]
            unl.append(len(t) - len(chosen))
            lab.append(len(chosen))
            lab_true.append(int(t[chosen].sum()))
            judge.append(f)
            true_count.append(int(t.sum()))
    unl, lab, x, f, t = map(np.asarray, (unl, lab, lab_true, judge, true_count))
    big_n = unl + lab
    se_true = t[f].sum() / t.sum() if t.sum() else np.nan
    sp_true = (big_n - t)[~f].sum() / (big_n - t).sum() if (big_n - t).sum() else np.nan
    if method == "normal":  # the delta-method interval, for comparison
        return se_true, *_normal(unl, lab, x, f, sp_true)
    se_int = randomised_ratio_interval(unl, lab, x, f, rng=rng)
    sp_int = randomised_ratio_interval(unl, lab, lab - x, ~f, rng=rng)
    return se_true, se_int, sp_true, sp_int


def _normal(unl, lab, x, f, sp_true):
    """Tenenbein's post-stratified Se and Sp with their delta-method normal intervals, from a
    frame of one row per item rebuilt from the counts (deck = post-stratum pair)."""
    size = unl + lab
    deck = np.repeat(np.arange(len(size)) // 2, size)
    labelled = np.concatenate([np.arange(k) < m for k, m in zip(size, lab, strict=True)])
    human = np.concatenate([np.arange(k) < t for k, t in zip(size, x, strict=True)])
    frame = pd.DataFrame({"deck": deck, "judge": np.repeat(f, size), "labelled": labelled})
    frame["human"] = pd.array(np.where(labelled, human, pd.NA), dtype="boolean")
    acc = poststratified_accuracy(frame, strata=["deck"])
    z = z_value(0.95)
    se_half, sp_half = z * np.sqrt(acc.var_se), z * np.sqrt(acc.var_sp)
    clip = lambda lo, hi: (max(lo, 0.0), min(hi, 1.0))  # noqa: E731 - as the audit printed them
    return clip(acc.se - se_half, acc.se + se_half), sp_true, clip(acc.sp - sp_half, acc.sp + sp_half)


def design_row(
    draws: int, items: int, prevalences, se: float, sp: float, labels: int, method: str = "exact"
) -> dict:
    rng = seeded_rng(0, items, *prevalences, se, sp, labels)
    miss = {k: [0, 0, 0, 0.0] for k in ("se", "sp")}  # below, above, defined, summed width
    for _ in range(draws):
        se_true, (se_lo, se_hi), sp_true, (sp_lo, sp_hi) = one_draw(
            rng, items, prevalences, se, sp, labels, method
        )
        for key, truth, lo, hi in (("se", se_true, se_lo, se_hi), ("sp", sp_true, sp_lo, sp_hi)):
            if np.isfinite(truth) and np.isfinite(lo):
                miss[key][0] += truth < lo
                miss[key][1] += truth > hi
                miss[key][2] += 1
                miss[key][3] += hi - lo
    row = {"prevalences": "/".join(map(str, prevalences)), "Se": se, "Sp": sp, "labels": labels}
    for key, (below, above, defined, width) in miss.items():
        row[f"{key}_below"] = below / defined
        row[f"{key}_above"] = above / defined
        row[f"{key}_cover"] = 1 - (below + above) / defined
        row[f"{key}_width"] = width / defined
    return row


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draws", type=int, default=2000)
    parser.add_argument("--items", type=int, default=300, help="judged items per deck")
    parser.add_argument("--labels", default="10,25", help="labels per deck × verdict post-stratum")
    parser.add_argument("--se", default="0.5,0.74,0.9")
    parser.add_argument("--sp", default="0.9,0.97,0.995")
    parser.add_argument(
        "--method",
        default="exact",
        choices=["exact", "normal"],
        help="normal: the delta-method interval used before (for comparison)",
    )
    args = parser.parse_args(argv)
    start = time.time()
    grid = itertools.product(
        ((0.8, 0.4), (0.3, 0.1)),
        [float(v) for v in args.se.split(",")],
        [float(v) for v in args.sp.split(",")],
        [int(v) for v in args.labels.split(",")],
    )
    rows = [design_row(args.draws, args.items, p, se, sp, k, args.method) for p, se, sp, k in grid]
    table = pd.DataFrame(rows)
    print(
        f"{args.draws} draws per design, {args.items} items per deck (SE of a coverage ≈ "
        f"{np.sqrt(0.95 * 0.05 / args.draws):.4f})"
    )
    print(table.round(4).to_string(index=False))
    for key in ("se", "sp"):
        cover = table[f"{key}_cover"]
        print(
            f"{key}: coverage {cover.min():.3f}–{cover.max():.3f} over {len(table)} designs, "
            f"mean {cover.mean():.3f}; worst side {table[[f'{key}_below', f'{key}_above']].max().max():.3f}; "
            f"mean width {table[f'{key}_width'].mean():.4f}"
        )
    print(f"({time.time() - start:.0f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
