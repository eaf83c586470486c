"""``balderdash metrics`` on a simulated export of 1M player-rounds against a bare ``json.loads``
loop over the same files that computes nothing — the reader's anchor, in the same run.

Each measurement runs in a fresh process, timed from outside (wall seconds, and the child's CPU
seconds, user + system, from ``getrusage(RUSAGE_CHILDREN)``: on a loaded machine the CPU time
is the figure to compare; DuckDB reads on several threads, so its CPU can exceed its wall):

* ``bare loop``  — ``json.loads`` of every line of games, players and rounds, nothing kept;
* ``wa calls``   — ``wa.balderdash_metrics(wa.read_balderdash(folder, texts=False))`` in a
  notebook-style process (its imports included), and inside it the calls alone;
* ``command``    — ``wordplay-audit balderdash metrics FOLDER`` (text output to /dev/null).

With ``--parsers`` the rounds file is also decoded by each JSON parser installed (json, orjson,
msgspec, pysimdjson — per line, into Python objects) and by DuckDB's reader alone (raw columns),
for the choice of parser. The export (``bench_balderdash.write_synthetic_export``: 6 players of
3 models, 20 rounds a game, the framework's mongoexport format) is cached in ``--cache``.

    python -m benchmarks bench_balderdash_reader -- [--player-rounds 1000000] [--repeat 1] [--parsers]
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BARE = """
import json, sys
from pathlib import Path
for name in ("games", "players", "rounds"):
    with open(Path(sys.argv[1]) / f"{name}.jsonl", "rb") as handle:
        for line in handle:
            json.loads(line)
"""
WA = """
import sys, time
start = time.perf_counter()
import wordplay_audit as wa
data = wa.read_balderdash(sys.argv[1], texts=False)
read = time.perf_counter()
result = wa.balderdash_metrics(data)
done = time.perf_counter()
print(read - start, done - read, len(data.obs))
"""
PARSE = """
import sys, time
path, name = sys.argv[1], sys.argv[2]
if name == "duckdb (raw columns)":
    import duckdb
    duckdb.execute("SET enable_progress_bar = false")
    from wordplay_audit.corpora.balderdash.columnar import _COLUMNS
    start = time.process_time()
    duckdb.sql(f"SELECT * FROM read_json('{path}', format='newline_delimited', columns={_COLUMNS})").to_arrow_table()
else:
    lines = open(path, "rb").read().splitlines()
    if name == "json":
        import json; decode = json.loads
    elif name == "orjson":
        import orjson; decode = orjson.loads
    elif name == "msgspec":
        import msgspec; decode = msgspec.json.Decoder().decode
    else:
        import simdjson; parser = simdjson.Parser(); decode = lambda line: parser.parse(line).as_dict()
    start = time.process_time()
    for line in lines:
        decode(line)
print(time.process_time() - start)
"""
PARSERS = {"json": "json", "orjson": "orjson", "msgspec": "msgspec", "pysimdjson": "simdjson"}


def timed(command: list[str]) -> tuple[float, float, str]:
    """Wall and CPU seconds of a child process, and its standard output."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, check=True, capture_output=True, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return wall, cpu, done.stdout


def export(folder: Path, player_rounds: int) -> Path:
    """The cached export, written on first use."""
    from benchmarks.bench_balderdash import write_synthetic_export

    if not (folder / "rounds.jsonl").exists():
        start = time.perf_counter()
        write_synthetic_export(folder, player_rounds)
        print(f"export written in {time.perf_counter() - start:.1f} s", flush=True)
    return folder


def installed(module: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(module) is not None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--player-rounds", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=1, help="runs of each; the fastest is kept")
    parser.add_argument(
        "--cache", type=Path, default=Path(tempfile.gettempdir()) / "wordplay_audit_bench_reader"
    )
    parser.add_argument("--parsers", action="store_true", help="also time each JSON parser on rounds.jsonl")
    args = parser.parse_args(argv)
    folder = export(args.cache / f"export_{args.player_rounds}", args.player_rounds)
    megabytes = sum(p.stat().st_size for p in folder.glob("*.jsonl")) / 1e6
    print(f"{args.player_rounds:,} player-rounds, {megabytes:.0f} MB of JSON lines ({folder})", flush=True)
    py = sys.executable
    cli = str(Path(py).with_name("wordplay-audit"))
    runs = {
        "bare loop": [py, "-c", BARE, str(folder)],
        "wa calls": [py, "-c", WA, str(folder)],
        "command": [cli, "balderdash", "metrics", str(folder)],
    }
    best: dict[str, tuple[float, float, str]] = {}
    for _ in range(args.repeat):
        for name, command in runs.items():  # interleaved: the load falls on every one alike
            result = timed(command)
            if name not in best or result[0] < best[name][0]:
                best[name] = result
    bare_wall, bare_cpu, _ = best["bare loop"]
    for name in runs:
        wall, cpu, out = best[name]
        line = f"  {name:10s} wall {wall:6.2f} s  cpu {cpu:6.2f} s"
        if name != "bare loop":
            line += f"  ÷ bare loop: wall {wall / bare_wall:.2f}×  cpu {cpu / bare_cpu:.2f}×"
        if name == "wa calls":
            read, metrics, rows = out.strip().splitlines()[-1].split()
            line += f"  (in the process: read {float(read):.2f} s incl. imports, metrics {float(metrics):.2f} s, {int(rows):,} rows)"
        print(line, flush=True)
    if args.parsers:
        print("rounds.jsonl decoded (CPU seconds, one process each):")
        names = [n for n, module in PARSERS.items() if installed(module)] + ["duckdb (raw columns)"]
        for name in names:
            out = timed([py, "-c", PARSE, str(folder / "rounds.jsonl"), PARSERS.get(name, name)])[2]
            seconds = float(out.strip().splitlines()[-1])
            print(f"  {name:22s} {seconds:6.2f} s", flush=True)
    print(json.dumps({k: {"wall": v[0], "cpu": v[1]} for k, v in best.items()}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
