"""Judge runner throughput against the local OpenAI-compatible server, and the cached rerun.

The server runs in its own process (``python -m wordplay_audit.judges.server``) with a fixed
latency (50 ms by default); the runner drives the real ``openai`` client. For each concurrency
c the ideal time is ``items × latency / c``; the share of ideal is ideal / measured. Then the
same items are judged again from the SQLite cache (no call). Concurrency 1 uses fewer items by
default (``--c1-items``; 10,000 items at 50 ms one at a time is 500 s of waiting).

Run:
    .venv/bin/python -m benchmarks bench_judges -- [--items 10000] [--latency 0.05]
        [--concurrency 1,8,64] [--c1-items 400]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from wordplay_audit.judges.base import Query
from wordplay_audit.judges.cache import VerdictCache
from wordplay_audit.judges.llm import OpenAIJudge
from wordplay_audit.judges.runner import run_judge


def _items(n: int, tag: str) -> list[Query]:
    return [
        Query(f"{tag}{i}", "guess", "bench", f"answer {i}", f"answer {i}" if i % 2 else f"x {i}")
        for i in range(n)
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=10_000)
    parser.add_argument("--c1-items", type=int, default=400)
    parser.add_argument("--latency", type=float, default=0.05)
    parser.add_argument("--concurrency", default="1,8,64")
    args = parser.parse_args()
    os.environ.setdefault("OPENAI_API_KEY", "sk-local-bench")
    server = subprocess.Popen(
        [sys.executable, "-m", "wordplay_audit.judges.server", "--latency", str(args.latency)],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        url = server.stdout.readline().strip()
        print(f"server {url}, latency {args.latency * 1000:.0f} ms")
        with tempfile.TemporaryDirectory() as tmp:
            run_judge(OpenAIJudge("bench", base_url=url), _items(5, "warm-"), progress=False)  # imports, pool
            for c in (int(x) for x in args.concurrency.split(",")):
                n = args.c1_items if c == 1 else args.items
                items = _items(n, f"c{c}-")
                judge = OpenAIJudge("bench", base_url=url)
                with VerdictCache(Path(tmp) / f"c{c}") as cache:
                    start, cpu = time.perf_counter(), time.process_time()
                    result = run_judge(judge, items, cache=cache, concurrency=c, progress=False)
                    took, cpu = time.perf_counter() - start, time.process_time() - cpu
                    ideal = n * args.latency / c
                    assert result.stats.called == n and not result.failed_items
                    print(f"concurrency {c:>3}: {n} items in {took:7.2f} s; ideal {ideal:7.2f} s; "
                          f"share of ideal {ideal / took:6.1%}; {n / took:7.1f} items/s")  # fmt: skip
                    print(f"                 client CPU {1000 * cpu / n:.2f} ms per call: one core allows "
                          f"{n / cpu:.0f} calls/s, ideal needs {c / args.latency:.0f}/s; load average "
                          f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")  # fmt: skip
                    start = time.perf_counter()
                    again = run_judge(judge, items, cache=cache, concurrency=c, progress=False)
                    print(f"                 cached rerun of {n} items: {time.perf_counter() - start:.2f} s "
                          f"({again.stats.called} calls)")  # fmt: skip
    finally:
        server.terminate()
        server.wait(10)


if __name__ == "__main__":
    main()
