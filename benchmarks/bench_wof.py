"""``wordplay-audit wof metrics`` on about 1,000,000 simulated moves: time and peak memory.

Writes three report files (frequent-consonant, random, overconfident; LLMike's rules without
letter loss so games run long) with the game master until the moves reach ``--moves``, then
times, in-process, the reader and the metrics separately, and runs the command line
``wordplay-audit wof metrics FOLDER --json`` in a child process for its wall time and peak
resident memory (``getrusage(RUSAGE_CHILDREN).ru_maxrss``). Riddles: the outside WoF.jsonl when
found (``$WORDPLAY_AUDIT_SHARED/wof``), else the demo riddles. Run:
    .venv/bin/python -m benchmarks bench_wof -- [--moves 1000000] [--seed 0] [--keep DIR]
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from wordplay_audit.analysis.wof.metrics import wof_metrics
from wordplay_audit.corpora.wof.demo_riddles import demo_riddles
from wordplay_audit.corpora.wof.game import Rules, write_report
from wordplay_audit.corpora.wof.reader import read_reports
from wordplay_audit.corpora.wof.riddles import read_riddles
from wordplay_audit.corpora.wof.simulate import simulate_games

POLICIES = ("frequent-consonant", "random", "overconfident")


def riddles():
    root = Path(
        os.environ.get("WORDPLAY_AUDIT_SHARED", Path(__file__).resolve().parents[2] / "shared" / "corpora")
    )
    path = root / "wof" / "WoF.jsonl"
    return (read_riddles(path), str(path)) if path.exists() else (demo_riddles(), "demo riddles")


def generate(folder: Path, target: int, seed: int) -> tuple[int, int]:
    table, _ = riddles()
    rules = Rules(letter_loss=False)
    moves = games = 0
    per_policy = target // len(POLICIES)
    for k, policy in enumerate(POLICIES):
        played, chunk_seed = [], seed * 1000 + k
        count = 0
        while count < per_policy:
            chunk = simulate_games(table, policy, n_games=2000, seed=chunk_seed, rules=rules)
            chunk_seed += len(POLICIES)
            for g in chunk:
                played.append(g.moves)
                count += len(g.moves)
        write_report(folder / f"{policy}.jsonl", played)
        moves += count
        games += len(played)
    return moves, games


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--keep", type=Path, default=None, help="Folder to keep the reports in (reused if it holds some)."
    )
    args = parser.parse_args()
    folder = args.keep or Path(tempfile.mkdtemp(prefix="bench_wof_"))
    folder.mkdir(parents=True, exist_ok=True)
    existing = sorted(folder.glob("*.jsonl"))
    if args.keep and existing:
        print(f"reusing the reports in {folder}")
    else:
        start = time.perf_counter()
        moves, games = generate(folder, args.moves, args.seed)
        print(f"riddles: {riddles()[1]}")
        print(f"generated {moves:,} moves in {games:,} games in {time.perf_counter() - start:.1f} s")
    size = sum(p.stat().st_size for p in folder.glob("*.jsonl"))
    wall, cpu = time.perf_counter(), time.process_time()
    log = read_reports(folder)
    read_s = (time.perf_counter() - wall, time.process_time() - cpu)
    wall, cpu = time.perf_counter(), time.process_time()
    result = wof_metrics(log.moves)
    metrics_s = (time.perf_counter() - wall, time.process_time() - cpu)
    print(
        f"in-process, {len(log.moves):,} moves, {len(result.games):,} games, {size / 1e6:.0f} MB: "
        f"read {read_s[0]:.2f} s wall / {read_s[1]:.2f} s CPU, metrics {metrics_s[0]:.2f} s wall / {metrics_s[1]:.2f} s CPU"
    )
    cli = Path(sys.executable).with_name("wordplay-audit")
    start = time.perf_counter()
    done = subprocess.run(
        [str(cli), "wof", "metrics", str(folder), "--json"], capture_output=True, text=True, check=False
    )
    wall_s = time.perf_counter() - start
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    print(
        f"wordplay-audit wof metrics --json: exit {done.returncode}, {wall_s:.2f} s wall, "
        f"{usage.ru_utime + usage.ru_stime:.2f} s CPU, peak RSS {usage.ru_maxrss / 1024:.0f} MB "
        f"(load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs)"
    )
    if done.returncode != 0:
        print(done.stderr, file=sys.stderr)
        raise SystemExit(1)


if __name__ == "__main__":
    main()
