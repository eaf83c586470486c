"""Exact coverage of the randomised share interval on grids of shares, by side, with and without
anchoring the unanimous post-strata (``analysis.correction.calibration``; no simulation).

    PYTHONPATH=. python benchmarks/sim_share_coverage_grids.py [--cases 1,2] [--v-points 128]

For each case (unlabelled items and labels per post-stratum) and grid of shares, prints the
coverage range and mean, the largest miss below (the realised count under the interval) and
above, and the share vector of the lowest coverage, for ``anchor=False`` (the interval without
anchoring, for comparison) and ``anchor=True`` (the toolkit's). Grids: *mid* – 30 share vectors uniform on
[0.05, 0.95] (seeded); *edges* – every vector over {0.005, 0.3, 0.995}; *same* – every
post-stratum at one share of 0.001 … 0.05 or 0.95 … 0.999 (a model that almost never or almost
always gives the true definition). An equal-tailed 95 % interval aims at 0.025 on each side.
"""

from __future__ import annotations

import argparse
import itertools
import time

import numpy as np

from wordplay_audit.analysis.correction.calibration import share_misses

CASES = {
    1: ([200, 50, 30, 300], [6, 5, 5, 8]),
    2: ([400, 400, 60, 60], [10, 10, 5, 5]),
    3: ([400, 100, 60], [20, 10, 8]),
    4: ([400, 400], [10, 10]),
    5: ([400, 400], [30, 30]),
    6: ([224, 66], [5, 5]),
    7: ([150, 60], [5, 5]),
}
SAME = (0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.95, 0.98, 0.995, 0.999)


def grids(strata: int, seed: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng([seed, strata])
    return {
        "mid": rng.uniform(0.05, 0.95, size=(30, strata)),
        "edges": np.array(list(itertools.product([0.005, 0.3, 0.995], repeat=strata))),
        "same": np.repeat(np.array(SAME)[:, None], strata, axis=1),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--cases", default=",".join(str(k) for k in CASES), help="comma-separated case numbers"
    )
    parser.add_argument("--v-points", type=int, default=128, help="Sobol points for v (a power of 2)")
    parser.add_argument("--seed", type=int, default=20261201)
    args = parser.parse_args(argv)
    for key in (int(k) for k in args.cases.split(",")):
        u, n = CASES[key]
        for name, shares in grids(len(u), args.seed).items():
            start = time.perf_counter()
            line = []
            for anchor in (False, True):
                below, above = share_misses(u, n, shares, v_points=args.v_points, anchor=anchor)
                cover = 1 - below - above
                worst = shares[int(np.argmin(cover))]
                line.append(
                    f"{'anchored' if anchor else 'plain   '} {cover.min():.3f}–{cover.max():.3f} (mean {cover.mean():.3f}),"
                    f" max below {below.max():.3f} above {above.max():.3f}, lowest at {np.round(worst, 3).tolist()}"
                )
            print(
                f"case {key} {u} items, {n} labels, {name} ({len(shares)} vectors, {time.perf_counter() - start:.0f} s)"
            )
            for text in line:
                print("   ", text, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
