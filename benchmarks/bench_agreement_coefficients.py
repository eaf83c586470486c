"""The coefficients beyond κ and α at scale, against today's κ + α bootstrap in the same run.

Data: ``bench_agreement.make_labels`` — 1,000,000 items × 5 raters × 8 categories, skewed
prevalence, raters of different accuracy. Times (best of ``--repeat``), all with a
``--boot``-resample BCa + percentile bootstrap, seed 1:

1. reference: Fleiss' κ alone and Krippendorff's α alone on the prepared count table (as
   ``bench_agreement`` step 3), summed;
2. the count-table coefficients (percent agreement, Brennan–Prediger, Gwet's AC2, weighted
   Fleiss' κ, weighted Brennan–Prediger) in one pass;
3. the rater-identity coefficients (Conger's κ, weighted Conger's κ, Light's κ) in one pass,
   from the RatingTable (their features live on the distinct rows of the item × rater matrix);
4. all of 2 and 3 in one pass.

Prints each time and its ratio to the reference. Run:
    .venv/bin/python benchmarks/bench_agreement_coefficients.py [--items 1000000] [--boot 1000]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_agreement import _timed, make_labels  # noqa: E402

COUNT = (
    "percent_agreement",
    "brennan_prediger",
    "gwet_ac2",
    "fleiss_kappa_weighted",
    "brennan_prediger_weighted",
)
RATERS = ("conger_kappa", "conger_kappa_weighted", "light_kappa")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--items", type=int, default=1_000_000)
    parser.add_argument("--raters", type=int, default=5)
    parser.add_argument("--categories", type=int, default=8)
    parser.add_argument("--boot", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)

    from wordplay_audit.analysis.agreement import BootstrapOptions, bootstrap_intervals, rating_table

    labels, _ = make_labels(args.items, args.raters, args.categories, args.seed)
    table = rating_table(labels)
    counts = table.counts
    options = BootstrapOptions(n_boot=args.boot, seed=1)
    print(
        f"data: {args.items:,} items × {args.raters} raters × {args.categories} categories, {args.boot} resamples"
    )

    def run(data, statistics, **kw):
        return lambda: bootstrap_intervals(data, statistics=statistics, bootstrap=options, **kw)

    t_k, _ = _timed(run(counts, ("fleiss_kappa",)), args.repeat)
    t_a, _ = _timed(run(counts, ("krippendorff_alpha",)), args.repeat)
    reference = t_k + t_a
    print(f"1. reference: Fleiss' κ {t_k:.2f} s + Krippendorff's α {t_a:.2f} s = {reference:.2f} s")
    steps = (
        ("2. count-table coefficients", counts, COUNT),
        ("3. Conger, weighted Conger, Light", table, RATERS),
        ("4. all new coefficients, one pass", table, COUNT + RATERS),
    )
    for label, data, statistics in steps:
        elapsed, res = _timed(run(data, statistics, weights="quadratic"), args.repeat)
        shown = ", ".join(
            f"{s} {res[s].value:.4f} [{res[s].ci_low:.4f}, {res[s].ci_high:.4f}]" for s in statistics[:3]
        )
        print(f"{label}: {elapsed:.2f} s, ×{elapsed / reference:.2f} of the reference; {shown}")
    from wordplay_audit.analysis.agreement._core import sample_patterns
    from wordplay_audit.analysis.agreement._raters import rater_patterns

    pats = sample_patterns(counts)
    print(f"   patterns: {len(pats.freq)} count rows, {len(rater_patterns(table, pats).freq)} code rows")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
