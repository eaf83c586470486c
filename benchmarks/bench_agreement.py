"""Agreement at scale, side by side with the reference libraries, in one run.

Data: 1,000,000 items × 5 raters × 8 categories (5,000,000 ratings), skewed prevalence, raters
of different accuracy (latent-class model). Times, on this machine:

1. long labels DataFrame (categorical columns, and optionally str columns) → count table;
2. point estimates on the prepared ``(n, 8)`` count table: our Fleiss κ vs
   ``statsmodels.stats.inter_rater.fleiss_kappa``; our Krippendorff α vs
   ``krippendorff.alpha(value_counts=...)``;
3. κ and α each with a 1,000-resample bootstrap interval (and both + AC1 + per-category κ in
   one pass), against a naive row-copying loop timed on a few resamples and extrapolated;
4. Dawid–Skene vs crowd-kit's ``DawidSkene`` at the same number of EM iterations;
5. majority vote: ``MajorityVote`` on the long table and on the prepared table, and the final
   labels table of :func:`wordplay_audit.corpora.consensus.consensus`, vs crowd-kit's
   ``MajorityVote`` (the same label wherever the vote is not tied; crowd-kit breaks a tie by its
   column order, the order of first appearance in its ``value_counts``).

Prints the ratios (reference time / our time). Run:
    .venv/bin/python benchmarks/bench_agreement.py [--items 1000000] [--ds-items N] [--str]
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
import pandas as pd


def _timed(fn, repeat: int = 1):
    best = float("inf")
    out = None
    for _ in range(repeat):
        start = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - start)
    return best, out


def make_labels(n_items: int, n_raters: int, n_cat: int, seed: int) -> tuple[pd.DataFrame, np.ndarray]:
    """Long labels table with categorical columns, and the dense ``(n, R)`` label codes."""
    rng = np.random.default_rng(seed)
    prevalence = np.array([0.45, 0.2, 0.1, 0.08, 0.07, 0.05, 0.03, 0.02])[:n_cat]
    prevalence = prevalence / prevalence.sum()
    truth = rng.choice(n_cat, size=n_items, p=prevalence)
    accuracy = np.linspace(0.9, 0.6, n_raters)
    correct = rng.random((n_items, n_raters)) < accuracy
    noise = rng.choice(n_cat, size=(n_items, n_raters), p=prevalence)
    codes = np.where(correct, truth[:, None], noise)
    item_names = pd.Index([f"i{i:07d}" for i in range(n_items)])
    frame = pd.DataFrame(
        {
            "item_id": pd.Categorical.from_codes(np.repeat(np.arange(n_items), n_raters), item_names),
            "rater": pd.Categorical.from_codes(
                np.tile(np.arange(n_raters), n_items), [f"r{j}" for j in range(n_raters)]
            ),
            "rater_type": pd.Categorical.from_codes(np.zeros(n_items * n_raters, dtype=int), ["human"]),
            "label": pd.Categorical.from_codes(codes.ravel(), [f"c{k}" for k in range(n_cat)]),
        }
    )
    return frame, codes


def _parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--items", type=int, default=1_000_000)
    parser.add_argument("--raters", type=int, default=5)
    parser.add_argument("--categories", type=int, default=8)
    parser.add_argument("--boot", type=int, default=1000)
    parser.add_argument("--naive", type=int, default=3, help="naive resamples to time")
    parser.add_argument("--ds-items", type=int, default=None, help="items for Dawid–Skene (default: all)")
    parser.add_argument("--ds-iter", type=int, default=10)
    parser.add_argument("--str", action="store_true", help="also time str (non-categorical) columns")
    parser.add_argument("--seed", type=int, default=1)
    return parser.parse_args(argv)


def _bench_table(args: argparse.Namespace, labels: pd.DataFrame):
    """1. long table → counts."""
    from wordplay_audit.analysis.agreement import rating_table

    t_table, table = _timed(lambda: rating_table(labels), repeat=2)
    print(f"1. long DataFrame (categorical) -> count table: {t_table:.2f} s")
    if args.str:
        str_labels = labels.astype(str)
        t_str, _ = _timed(lambda: rating_table(str_labels))
        print(f"   long DataFrame (str columns)   -> count table: {t_str:.2f} s")
    return table


def _bench_points(counts: np.ndarray) -> None:
    """2. point estimates on a prepared table against statsmodels and krippendorff."""
    import krippendorff
    from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss

    from wordplay_audit.analysis.agreement import fleiss_kappa, krippendorff_alpha

    t_sm, k_sm = _timed(lambda: sm_fleiss(counts), repeat=3)
    t_k, k_ours = _timed(lambda: fleiss_kappa(counts), repeat=3)
    print(
        f"2. Fleiss κ on the prepared table: ours {t_k * 1000:.0f} ms, statsmodels {t_sm * 1000:.0f} ms "
        f"(×{t_sm / t_k:.1f}); values {k_ours:.10f} vs {k_sm:.10f}"
    )
    t_kr, a_kr = _timed(lambda: krippendorff.alpha(value_counts=counts, level_of_measurement="nominal"))
    t_a, a_ours = _timed(lambda: krippendorff_alpha(counts), repeat=3)
    print(
        f"   Krippendorff α (nominal): ours {t_a * 1000:.0f} ms, krippendorff {t_kr * 1000:.0f} ms "
        f"(×{t_kr / t_a:.1f}); values {a_ours:.10f} vs {a_kr:.10f}"
    )


def _bench_bootstrap(args: argparse.Namespace, counts: np.ndarray) -> None:
    """3. bootstrap intervals against a naive row-copying loop."""
    import krippendorff
    from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss

    from wordplay_audit.analysis.agreement import BootstrapOptions, bootstrap_intervals

    options = BootstrapOptions(n_boot=args.boot, seed=1)
    every = ("fleiss_kappa", "krippendorff_alpha", "gwet_ac1", "per_category_kappa")
    t_bk, res_k = _timed(lambda: bootstrap_intervals(counts, statistics=("fleiss_kappa",), bootstrap=options))
    t_ba, res_a = _timed(
        lambda: bootstrap_intervals(counts, statistics=("krippendorff_alpha",), bootstrap=options)
    )
    t_all, _ = _timed(lambda: bootstrap_intervals(counts, statistics=every, bootstrap=options))
    ik, ia = res_k["fleiss_kappa"], res_a["krippendorff_alpha"]
    print(
        f"3. {args.boot} resamples, BCa + percentile: κ {t_bk:.2f} s [{ik.ci_low:.5f}, {ik.ci_high:.5f}]; "
        f"α {t_ba:.2f} s [{ia.ci_low:.5f}, {ia.ci_high:.5f}]; κ+α+AC1+per-category in one pass {t_all:.2f} s"
    )
    rng = np.random.default_rng(0)
    n = len(counts)
    start = time.perf_counter()
    for _ in range(args.naive):
        rows = counts[rng.integers(0, n, n)]
        sm_fleiss(rows), krippendorff.alpha(value_counts=rows, level_of_measurement="nominal")
    per = (time.perf_counter() - start) / args.naive
    naive_total = per * args.boot
    print(
        f"   naive row-copying loop (statsmodels κ + krippendorff α): {per:.2f} s per resample, "
        f"≈ {naive_total:.0f} s for {args.boot} (extrapolated from {args.naive}); "
        f"×{naive_total / (t_bk + t_ba):.0f} vs ours κ+α"
    )
    indices = BootstrapOptions(n_boot=20, seed=1, draws="indices")
    t_idx, _ = _timed(lambda: bootstrap_intervals(counts, statistics=("fleiss_kappa",), bootstrap=indices))
    print(
        f"   ours with draws='indices' (same draws as the naive loop): {t_idx / 20:.3f} s per resample "
        f"≈ {t_idx / 20 * args.boot:.0f} s for {args.boot}"
    )


def _bench_dawid_skene(args: argparse.Namespace, labels: pd.DataFrame) -> None:
    """4. Dawid–Skene vs crowd-kit (fed through :func:`from_crowdkit`'s inverse frame)."""
    from crowdkit.aggregation import DawidSkene as CrowdKitDS

    from wordplay_audit.analysis.agreement import DawidSkene

    n, r = args.items, args.raters
    n_ds = args.ds_items or n
    ds_labels = labels if n_ds == n else labels.iloc[: n_ds * r].copy()
    if n_ds != n:
        ds_labels["item_id"] = ds_labels["item_id"].cat.remove_unused_categories()
    t_ours, model = _timed(lambda: DawidSkene(n_iter=args.ds_iter, tol=None).fit(ds_labels))
    ck_data = pd.DataFrame(
        {
            "task": ds_labels["item_id"].astype(str),
            "worker": ds_labels["rater"].astype(str),
            "label": ds_labels["label"].astype(str),
        }
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t_ck, ck = _timed(lambda: CrowdKitDS(n_iter=args.ds_iter, tol=-np.inf).fit(ck_data))
    mine = model.probas_.loc[ck.probas_.index, ck.probas_.columns].to_numpy()
    diff = float(np.abs(mine - ck.probas_.to_numpy()).max())
    same = float((model.labels_.loc[ck.labels_.index].to_numpy() == ck.labels_.to_numpy()).mean())
    print(
        f"4. Dawid–Skene, {n_ds:,} items, {args.ds_iter} iterations: ours {t_ours:.2f} s, crowd-kit "
        f"{t_ck:.1f} s (×{t_ck / t_ours:.0f}); max |posterior diff| {diff:.1e}, same labels {same:.4%}"
    )


def _bench_majority(args: argparse.Namespace, labels: pd.DataFrame) -> None:
    """5. majority vote vs crowd-kit's ``MajorityVote`` (labels as text, as crowd-kit takes them)."""
    from crowdkit.aggregation import MajorityVote as CrowdKitMV

    from wordplay_audit.analysis.agreement import MajorityVote, rating_table

    table = rating_table(labels)
    t_long, _ = _timed(lambda: MajorityVote(tie="first").fit(labels), repeat=2)
    t_table, ours = _timed(lambda: MajorityVote(tie="first").fit(table), repeat=2)
    ck_data = pd.DataFrame(
        {
            "task": labels["item_id"].astype(str),
            "worker": labels["rater"].astype(str),
            "label": labels["label"].astype(str),
        }
    )
    t_ck, ck = _timed(lambda: CrowdKitMV().fit(ck_data))
    clear = ~ours.ties_.loc[ck.labels_.index].to_numpy()
    same = float((ours.labels_.loc[ck.labels_.index].to_numpy() == ck.labels_.to_numpy())[clear].mean())
    print(
        f"5. majority vote, {args.items:,} items: MajorityVote on the long table {t_long:.2f} s, on the "
        f"prepared table {t_table * 1000:.0f} ms; crowd-kit {t_ck:.1f} s (×{t_ck / t_long:.0f} vs the "
        f"long table); same labels where not tied ({clear.sum():,} items) {same:.4%}"
    )
    try:
        from wordplay_audit.corpora.consensus import consensus
    except ImportError:  # the final labels table is not there
        return
    t_final, final = _timed(lambda: consensus(labels, tie="first"), repeat=2)
    mine = final.set_index("item_id")["label"].loc[ck.labels_.index].to_numpy()
    agree = float((mine == ours.labels_.loc[ck.labels_.index].to_numpy()).mean())
    print(
        f"   final labels table (corpora.consensus) from the long table {t_final:.2f} s; = MajorityVote {agree:.4%}"
    )


def main(argv: list[str] | None = None) -> int:
    args = _parse(argv)
    n, r, k = args.items, args.raters, args.categories
    print(f"data: {n:,} items × {r} raters × {k} categories = {n * r:,} ratings")
    t_make, (labels, _codes) = _timed(lambda: make_labels(n, r, k, args.seed))
    print(f"  (made the long table in {t_make:.1f} s)")
    counts = _bench_table(args, labels).counts
    _bench_points(counts)
    _bench_bootstrap(args, counts)
    _bench_dawid_skene(args, labels)
    _bench_majority(args, labels)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
