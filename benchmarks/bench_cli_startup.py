"""How fast the command line starts: wall time of ``--help`` for the root and every command
group (median of repeated runs), and the slowest imports by ``python -X importtime``.

Target (issue 7): ``wordplay-audit --help`` and ``wordplay-audit balderdash --help`` ≤ 0.5 s.
Baseline in the same run: ``python -c pass`` (the interpreter alone) and ``import pandas``
(what every command imported at start-up before the command groups became lazy).

    python -m benchmarks bench_cli_startup -- [--repeat 7] [--top 12]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time

GROUPS = ["", "analyze", "balderdash", "connections", "annotate", "judge", "wof", "demo"]


def wall(args: list[str], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        subprocess.run(args, capture_output=True, check=False)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def importtime_top(top: int) -> list[tuple[int, str]]:
    """The ``top`` imports with the largest cumulative time (µs) when loading the CLI."""
    result = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "import wordplay_audit.cli.main"],
        capture_output=True,
        text=True,
    )
    rows = []
    for line in result.stderr.splitlines():
        parts = [p.strip() for p in line.removeprefix("import time:").split("|")]
        if len(parts) == 3 and parts[1].isdigit():
            rows.append((int(parts[1]), parts[2]))
    return sorted(rows, reverse=True)[:top]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--top", type=int, default=12)
    args = parser.parse_args()
    py = sys.executable
    base = wall([py, "-c", "pass"], args.repeat)
    pandas = wall([py, "-c", "import pandas"], args.repeat)
    print(f"interpreter alone: {base:.3f} s   import pandas: {pandas:.3f} s")
    for group in GROUPS:
        argv = [py, "-m", "wordplay_audit", *([group] if group else []), "--help"]
        t = wall(argv, args.repeat)
        name = f"wordplay-audit {group} --help".replace("  ", " ")
        flag = "ok" if t <= 0.5 else "OVER 0.5 s"
        print(f"{name:40s} {t:.3f} s  ({t / pandas:.2f}× import pandas)  {flag}")
    print("slowest imports (cumulative µs) when loading the CLI:")
    for micros, module in importtime_top(args.top):
        print(f"  {micros:>9d}  {module}")


if __name__ == "__main__":
    main()
