"""How fast the command line starts: wall time of ``--help`` for the root and every command
group (median of repeated runs), and the slowest imports by ``python -X importtime``.

Target: ``wordplay-audit --help`` and ``wordplay-audit balderdash --help`` ≤ 0.5 s.
Baseline in the same run: ``python -c pass`` (the interpreter alone) and ``import pandas``
(what every command imported at start-up before the command groups became lazy).

With ``--commands``: whole commands on a simulated WoF run (``wof simulate``, 2 policies × 80
games; people's labels = the exact-match verdicts), each as a command (a fresh process: its
imports included) and as the same ``wa`` calls in one warm process, so that the difference is
what start-up costs; and the heaviest imports each command makes (``-X importtime``). A
command should cost what its work needs: ``wof recompute`` imports no statsmodels, ``wof
metrics --out`` draws each plot once.

    python -m benchmarks bench_cli_startup -- [--repeat 7] [--top 12] [--commands]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

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


def command_inputs(folder: Path) -> dict[str, list[str]]:
    """A simulated WoF run and people's labels in ``folder``; the commands timed on them."""
    import pandas as pd

    import wordplay_audit as wa

    reports, human = folder / "wof", folder / "human.csv"
    if not reports.exists():
        wa.simulate_wof(reports, policies=["frequent-consonant", "random"], games=80, seed=1)
        labels = wa.wof_metrics(wa.read_wof([reports])).items.labels
        pd.DataFrame({**labels, "rater": "ann1", "rater_type": "human"}).to_csv(human, index=False)
    return {
        "wof recompute": ["wof", "recompute", str(reports), "--human", str(human)],
        "wof metrics --out": ["wof", "metrics", str(reports), "--out", str(folder / "out")],
    }


def in_process(argv: list[str], repeat: int) -> float:
    """Median CPU seconds of the command's ``wa`` calls in this (warm) process."""
    import shutil

    import wordplay_audit as wa

    times = []
    for _ in range(repeat):
        out = Path(argv[-1]) if "--out" in argv else None
        if out is not None:
            shutil.rmtree(out, ignore_errors=True)
        start = time.process_time()
        log = wa.read_wof([argv[2]])
        if argv[1] == "recompute":
            wa.wof_recompute(log, wa.read_labels(argv[4], accept_final=True))
        else:
            wa.wof_metrics(log).write(out)
        times.append(time.process_time() - start)
    return statistics.median(times)


def heaviest_imports(argv: list[str], top: int) -> list[tuple[int, str]]:
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "wordplay_audit", *argv],
                          capture_output=True, text=True)  # fmt: skip
    rows = []
    for line in done.stderr.splitlines():
        parts = [p.strip() for p in line.removeprefix("import time:").split("|")]
        if len(parts) == 3 and parts[1].isdigit() and not parts[2].startswith(" "):
            rows.append((int(parts[1]), parts[2]))
    return sorted(rows, reverse=True)[:top]


def commands(repeat: int, top: int) -> None:
    import shutil
    import tempfile

    folder = Path(tempfile.mkdtemp(prefix="bench_cli_startup_"))
    try:
        for name, argv in command_inputs(folder).items():
            if "--out" in argv:
                shutil.rmtree(argv[-1], ignore_errors=True)
            runs = []
            for _ in range(repeat):
                if "--out" in argv:
                    shutil.rmtree(argv[-1], ignore_errors=True)
                runs.append(timed([sys.executable, "-m", "wordplay_audit", *argv], 1))
            wall = statistics.median(r[0] for r in runs)
            cpu = statistics.median(r[1] for r in runs)
            warm = in_process(argv, repeat)
            print(f"{name:20s} command wall {wall:.2f} s  cpu {cpu:.2f} s   wa calls, warm process: cpu {warm:.2f} s"
                  f"   start-up ≈ {cpu - warm:.2f} s cpu")  # fmt: skip
            if "--out" in argv:
                shutil.rmtree(argv[-1], ignore_errors=True)
            heavy = ", ".join(f"{m} {us / 1e6:.2f} s" for us, m in heaviest_imports(argv, top))
            print(f"  heaviest imports: {heavy}")
            print(f"  statsmodels imported: {'statsmodels' in imported_modules(argv)}")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def imported_modules(argv: list[str]) -> set[str]:
    code = ("import runpy, sys; sys.argv = ['wordplay-audit', *sys.argv[1:]]\n"
            "try:\n    runpy.run_module('wordplay_audit', run_name='__main__')\n"
            "except SystemExit:\n    pass\n"
            "print(' '.join(sorted({m.split('.')[0] for m in sys.modules})), file=sys.stderr)")  # fmt: skip
    done = subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, text=True)
    return set(done.stderr.strip().splitlines()[-1].split()) if done.stderr.strip() else set()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--top", type=int, default=12)
    parser.add_argument(
        "--commands", action="store_true", help="also time wof recompute and wof metrics --out"
    )
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
    if args.commands:
        commands(max(1, args.repeat // 2), 5)


if __name__ == "__main__":
    main()
