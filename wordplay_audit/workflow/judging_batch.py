"""Batch files of a judge from Python: the request file for OpenAI's Batch API or vLLM's offline
``run-batch`` (the queries not yet in the cache), and its result file read back into the cache,
so that a later :func:`~wordplay_audit.workflow.judging.run_judge` with the same options calls
nothing (``judge batch-write``, ``batch-read``).

In a notebook::

    import wordplay_audit as wa
    wa.batch_write(items, judge="openai:gpt-4o-mini", out="requests.jsonl")
    wa.batch_read("results.jsonl", judge="openai:gpt-4o-mini")
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from wordplay_audit.errors import ParameterError
from wordplay_audit.workflow.judging import default_cache, judge_items, llm_options
from wordplay_audit.workflow.results import Result, plain

__all__ = ["BatchRead", "BatchRequests", "batch_read", "batch_write"]


@dataclass
class BatchRequests(Result):
    """A batch request file (JSON lines) for the queries not yet in the cache."""

    title = "Batch requests"

    info: dict

    def to_dict(self) -> dict[str, Any]:
        return plain(self.info)

    def summary(self) -> list[str]:
        from wordplay_audit.judges.batch import OPENAI_MAX_REQUESTS

        i = self.info
        lines = [f"{i['requests']} requests written to {i['out']} ({i['cached']} queries already cached)"]
        if i["requests"] > OPENAI_MAX_REQUESTS:
            lines.append(
                f"  note: OpenAI's Batch API takes at most {OPENAI_MAX_REQUESTS} requests per file; split it"
            )
        return lines


def _batch_judge(judge: str, **llm: Any):
    from wordplay_audit.judges.make import check_judge_name, make_judge

    if not check_judge_name(judge).startswith("openai:"):
        raise ParameterError(f"judge: batch mode needs openai:MODEL; got {judge!r}")
    return make_judge(judge, **llm_options(judge, base_url=None, timeout=60.0, sampling="calls", **llm))


def batch_write(
    items: pd.DataFrame,
    *,
    judge: str,
    out: str | Path,
    kind: str | None = None,
    cache: str | Path | None = None,
    temperature: float = 0.0,
    samples: int = 1,
    swap: bool = False,
    prompt: str | Path | None = None,
    top_logprobs: int = 10,
) -> BatchRequests:
    """Write the batch request file ``out`` (the JSONL OpenAI's Batch API and vLLM's offline
    ``run-batch`` take) for the queries of ``items`` not yet in the cache."""
    from wordplay_audit.corpora.io import output_file
    from wordplay_audit.judges.base import queries_from_items
    from wordplay_audit.judges.batch import batch_requests, write_requests
    from wordplay_audit.judges.cache import VerdictCache

    made = _batch_judge(
        judge, temperature=temperature, samples=samples, swap=swap, prompt=prompt, top_logprobs=top_logprobs
    )
    queries = queries_from_items(judge_items(items, kind), source=str(items.attrs.get("source") or "items"))
    with VerdictCache(cache or default_cache()) as store:
        lines, cached = batch_requests(made, queries, cache=store)
    with output_file(out, option="out") as tmp:
        write_requests(lines, tmp)
    return BatchRequests({"judge": made.judge_id, "items": len(queries), "requests": len(lines), "cached": cached,
                          "out": str(out)})  # fmt: skip


@dataclass
class BatchRead(Result):
    """A batch result file stored in the cache (a later run with the same options calls nothing)."""

    title = "Batch results"

    info: dict

    def to_dict(self) -> dict[str, Any]:
        return plain(self.info)

    def summary(self) -> list[str]:
        i = self.info
        kinds = ", ".join(f"{n} {kind}" for kind, n in i["error_kinds"].items())
        return [f"{i['stored']} verdicts stored in {i['cache']}, {i['errors']} errors" + (f" ({kinds})" if kinds else ""),
                f"  scores (P(yes) from log-probabilities): {i['scored']} of {i['stored']}"]  # fmt: skip


def batch_read(
    results: str | Path,
    *,
    judge: str,
    cache: str | Path | None = None,
    temperature: float = 0.0,
    samples: int = 1,
    swap: bool = False,
    prompt: str | Path | None = None,
    top_logprobs: int = 10,
) -> BatchRead:
    """Read a batch result file (OpenAI Batch API or vLLM ``run-batch``) into the cache; the
    options must be those the requests were written with."""
    from wordplay_audit.judges.batch import read_results
    from wordplay_audit.judges.cache import VerdictCache

    made = _batch_judge(
        judge, temperature=temperature, samples=samples, swap=swap, prompt=prompt, top_logprobs=top_logprobs
    )
    folder = Path(cache or default_cache())
    with VerdictCache(folder) as store:
        found = read_results(results, store, judge_id=made.judge_id)
    return BatchRead({"judge": made.judge_id, **found.to_dict(), "cache": str(folder)})
