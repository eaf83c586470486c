"""``analyze agreement`` from a CSV file against the in-process API on prepared columns.

Writes a labels CSV of N items × R raters × K categories (chunked, so 5M items fit), then times
(1) the command line end to end in a subprocess (read, validate once, κ + α + AC1 with
1,000-resample intervals, print JSON) with its peak RSS, and (2) ``agreement()`` on the same
labels already in memory as categorical columns. Target: CLI ≤ 4× the API, ≤ 1 GB.

    python -m benchmarks bench_cli_agreement -- [--items 1000000] [--raters 5] [--categories 8]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd


def write_labels(path: Path, n_items: int, raters: int, categories: int, seed: int = 0) -> None:
    rng = np.random.default_rng(seed)
    chunk = 200_000
    with open(path, "w", encoding="utf-8") as stream:
        stream.write("item_id,rater,rater_type,label\n")
        for start in range(0, n_items, chunk):
            ids = np.arange(start, min(start + chunk, n_items))
            truth = rng.integers(0, categories, ids.size)
            for r in range(raters):
                noisy = np.where(rng.random(ids.size) < 0.7, truth, rng.integers(0, categories, ids.size))
                frame = pd.DataFrame(
                    {
                        "item_id": "i" + pd.Series(ids).astype(str),
                        "rater": f"r{r}",
                        "rater_type": "human",
                        "label": "c" + pd.Series(noisy).astype(str),
                    }
                )
                frame.to_csv(stream, header=False, index=False)


def cli_run(path: Path) -> tuple[float, float]:
    """Wall seconds and peak RSS (GB) of the command in a child process."""
    code = (
        "import resource, sys, time; from wordplay_audit.cli.main import main; t = time.perf_counter(); "
        f"rc = main(['analyze', 'agreement', {str(path)!r}, '--bootstrap', '1000', '--json']); "
        "print(time.perf_counter() - t, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, rc, file=sys.stderr)"
    )
    t0 = time.perf_counter()
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    wall = time.perf_counter() - t0
    inner, rss_kb, rc = result.stderr.strip().splitlines()[-1].split()
    if rc != "0":
        raise SystemExit(result.stderr[-2000:])
    return wall, int(rss_kb) / 2**20


def api_run(path: Path) -> float:
    from wordplay_audit.analysis.agreement import BootstrapOptions, agreement

    frame = pd.read_csv(path, dtype="category")
    t0 = time.perf_counter()
    agreement(frame, bootstrap=BootstrapOptions(n_boot=1000, seed=0))
    return time.perf_counter() - t0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=1_000_000)
    parser.add_argument("--raters", type=int, default=5)
    parser.add_argument("--categories", type=int, default=8)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "labels.csv"
        write_labels(path, args.items, args.raters, args.categories)
        size = os.path.getsize(path) / 2**20
        print(
            f"{args.items:,} items × {args.raters} raters × {args.categories} categories: {size:.0f} MB CSV"
        )
        wall, rss = cli_run(path)
        api = api_run(path)
        print(f"CLI end to end: {wall:.1f} s, peak RSS {rss:.2f} GB")
        print(f"API on prepared categorical columns: {api:.1f} s")
        print(f"ratio CLI / API: {wall / api:.2f}  (target ≤ 4);  peak RSS target ≤ 1 GB")


if __name__ == "__main__":
    main()
