"""All six ICC forms (and Kendall's W) at scale, against pingouin in the same run.

Data: ``--items`` items × ``--raters`` raters on a 1–5 scale (item effect + rater bias + noise,
true ICC about 0.5), as a long labels table with categorical columns (what ``read_labels(...,
categorical=True)`` gives) and as the dense matrix. Times (best of ``--repeat``):

1. ``icc(matrix)``: the six forms with F tests and exact intervals from the ``(n, k)`` matrix;
2. ``icc(labels)``: the same from the long labels table (validation, codes, the matrix, the forms),
   and from a prepared :class:`RatingTable` (what ``agreement()`` hands it: the matrix, the forms);
3. ``kendall_w(matrix)``: tie-corrected W and its chi-square test;
4. reference: ``pingouin.intraclass_corr`` (long format, six forms) on the first ``--ref-items``
   items, and ours on the same items; the largest difference of the six values is printed.

Run:
    .venv/bin/python benchmarks/bench_icc.py [--items 1000000] [--raters 5] [--ref-items 100000]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_agreement import _timed  # noqa: E402


def make_ratings(n_items: int, n_raters: int, seed: int) -> np.ndarray:
    """Integer 1–5 ratings ``(n, k)``: item effect, rater bias and noise, rounded and clipped."""
    rng = np.random.default_rng(seed)
    latent = rng.normal(size=(n_items, 1)) + 0.3 * rng.normal(size=(1, n_raters))
    return np.clip(np.round(3 + latent + rng.normal(size=(n_items, n_raters))), 1, 5)


def long_labels(ratings: np.ndarray) -> pd.DataFrame:
    n, k = ratings.shape
    codes = ratings.astype(int).ravel() - 1
    return pd.DataFrame(
        {
            "item_id": pd.Categorical.from_codes(np.repeat(np.arange(n), k), [f"i{i:07d}" for i in range(n)]),
            "rater": pd.Categorical.from_codes(np.tile(np.arange(k), n), [f"r{j}" for j in range(k)]),
            "rater_type": pd.Categorical.from_codes(np.zeros(n * k, dtype=int), ["human"]),
            "label": pd.Categorical.from_codes(codes, ["1", "2", "3", "4", "5"]),
        }
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--items", type=int, default=1_000_000)
    parser.add_argument("--raters", type=int, default=5)
    parser.add_argument("--ref-items", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)

    from wordplay_audit.analysis.agreement import icc, kendall_w, rating_table

    ratings = make_ratings(args.items, args.raters, args.seed)
    labels = long_labels(ratings)
    print(f"data: {args.items:,} items × {args.raters} raters, 1–5 scale ({len(labels):,} ratings)")
    t_matrix, result = _timed(lambda: icc(ratings), args.repeat)
    print(f"1. icc(matrix), six forms:       {t_matrix:7.3f} s   ICC2 = {result['ICC2'].value:.4f}")
    t_labels, from_labels = _timed(lambda: icc(labels), args.repeat)
    same = max(abs(from_labels[f].value - result[f].value) for f in result.estimates)
    print(f"2. icc(labels table), six forms: {t_labels:7.3f} s   (max |diff| to 1.: {same:.1e})")
    table = rating_table(labels)
    t_table, _ = _timed(lambda: icc(table), args.repeat)
    print(
        f"   icc(RatingTable), six forms:  {t_table:7.3f} s   (the labels table's validation and codes: the rest of 2.)"
    )
    t_w, w = _timed(lambda: kendall_w(ratings), args.repeat)
    print(f"3. kendall_w(matrix):            {t_w:7.3f} s   W = {w.value:.4f}")
    try:
        import pingouin
    except ImportError:
        print("4. pingouin not installed: no reference timing")
        return 0
    sub = ratings[: args.ref_items]
    n, k = sub.shape
    frame = pd.DataFrame({"t": np.repeat(np.arange(n), k), "r": np.tile(np.arange(k), n), "y": sub.ravel()})
    t_ref, ref = _timed(lambda: pingouin.intraclass_corr(frame, targets="t", raters="r", ratings="y"), 1)
    t_ours, ours = _timed(lambda: icc(sub), args.repeat)
    diff = float(np.max(np.abs(np.array([ours[f].value for f in ours.estimates]) - ref["ICC"].to_numpy())))
    print(
        f"4. {n:,} items: pingouin {t_ref:.3f} s, ours {t_ours:.4f} s (pingouin / ours = "
        f"{t_ref / t_ours:.0f}×); max |ICC diff| {diff:.1e}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
