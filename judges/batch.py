"""Batch mode: write the request file, read the result file into the verdict cache.

One file format serves OpenAI's Batch API and vLLM's offline runner (``vllm run-batch``, module
``vllm/entrypoints/openai/run_batch.py``: ``BatchRequestInput`` / ``BatchRequestOutput``).

Request file (JSON lines, one per query not yet cached; OpenAI takes up to 50,000 a file)::

    {"custom_id": <cache key>, "method": "POST", "url": "/v1/chat/completions",
     "body": {"model": ..., "messages": [...], "temperature": ..., "max_tokens": ...,
              "logprobs": true, "top_logprobs": k}}

One line per sample (no ``n``): each sample is its own query with its own key.

Result file, one line per request, in any order::

    {"id": ..., "custom_id": <cache key>,
     "response": {"status_code": 200, "request_id": ..., "body": <chat completion>}, "error": null}

A failed request has ``error`` set – an object ``{"code", "message"}`` (OpenAI's error file; vLLM's
``{"error": {"message", "type", "code"}}``) or a string (vLLM's message for a request it could
not run) – and/or a ``status_code`` other than 200; it is counted by its code (or the status, or
the start of the message) and not stored. A body's choice carrying ``logprobs`` gives the
verdict its P(yes) score, as in ``judge run``.

The ``custom_id`` is the query's cache key, so reading the results stores each verdict exactly
where a later ``judge run`` with the same judge looks for it, and that run calls nothing.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from wordplay_audit.errors import InputError, at_line, expect_file
from wordplay_audit.judges.base import Query, Verdict
from wordplay_audit.judges.cache import VerdictCache
from wordplay_audit.judges.llm import OpenAIJudge, redact, scrub, verdict_from_completion

ENDPOINT = "/v1/chat/completions"
OPENAI_MAX_REQUESTS = 50_000
"""The most requests one OpenAI Batch API input file may hold."""


def batch_requests(
    judge: OpenAIJudge, items: Sequence[Query], *, cache: VerdictCache | None = None
) -> tuple[list[dict], int]:
    """The request lines for the queries not in ``cache`` (each key once), and how many were cached."""
    lines, seen, cached = [], set(), 0
    known = cache.get_many(judge.key(q) for item in items for q in judge.queries(item)) if cache else {}
    for item in items:
        for query in judge.queries(item):
            key = judge.key(query)
            if key in known:
                cached += 1
                continue
            if key in seen:
                continue
            seen.add(key)
            lines.append(
                {
                    "custom_id": key,
                    "method": "POST",
                    "url": ENDPOINT,
                    "body": judge.request_body(query),
                }
            )
    return lines, cached


def write_requests(lines: list[dict], path: str | Path) -> None:
    """Write the request ``lines`` (from :func:`batch_requests`) as a JSON-lines file, the
    upload of the OpenAI Batch API."""
    with open(path, "w", encoding="utf-8") as handle:
        for line in lines:
            handle.write(json.dumps(line, ensure_ascii=False) + "\n")


@dataclass
class BatchReadResult:
    stored: int = 0
    errors: int = 0
    lines: int = 0
    scored: int = 0  # stored verdicts with a P(yes) from log-probabilities
    error_kinds: dict[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "lines": self.lines,
            "stored": self.stored,
            "scored": self.scored,
            "errors": self.errors,
            "error_kinds": self.error_kinds,
        }


def _record(line: str, where: str) -> dict:
    try:
        record = json.loads(line)
    except json.JSONDecodeError as exc:
        raise InputError(f"{where}expected a JSON object, got invalid JSON ({exc.msg})") from None
    if not isinstance(record, dict) or not isinstance(record.get("custom_id"), str):
        raise InputError(f"{where}expected an object with a string 'custom_id'")
    if not KEY.fullmatch(record["custom_id"]):
        raise InputError(
            f"{where}custom_id {record['custom_id'][:40]!r}: expected a query key as batch-write "
            "writes it (64 hex digits)"
        )
    if record.get("response") is not None and not isinstance(record["response"], dict):
        raise InputError(
            f"{where}response: expected an object or null, got {type(record['response']).__name__}"
        )
    if record.get("error") is not None and not isinstance(record["error"], dict | str):
        raise InputError(
            f"{where}error: expected an object, a message or null, got {type(record['error']).__name__}"
        )
    return record


def _error_kind(record: dict, status: Any, body: Any) -> str:
    """How a failed line is counted: the error's code (OpenAI ``error.code``, vLLM
    ``error.error.code`` – an HTTP status, shown ``http <status>`` –, a body's ``error.code``),
    else ``http <status>``, else the message (vLLM's error string)."""
    error = record.get("error")
    if isinstance(error, str):
        return error.strip() or "error"
    inner = [error, (error or {}).get("error"), (body or {}).get("error") if isinstance(body, dict) else None]
    for part in inner:
        if isinstance(part, dict) and part.get("code") not in (None, ""):
            code = part["code"]  # vLLM's is the HTTP status
            return f"http {code}" if isinstance(code, int) and not isinstance(code, bool) else str(code)
    if status != 200:
        return f"http {status}"
    message = next((p.get("message") for p in inner if isinstance(p, dict) and p.get("message")), None)
    return str(message) if message else "no response body"


KEY = re.compile(r"[0-9a-f]{64}")


def read_results(path: str | Path, cache: VerdictCache, *, judge_id: str) -> BatchReadResult:
    """Store every successful result of a batch result file (OpenAI or vLLM) in ``cache``;
    count the rest.

    The whole file is checked before anything is stored; two successful results for one
    ``custom_id`` (one query answered twice, which should the cache keep?) are refused."""
    path = expect_file(path, "a Batch API result file (JSON lines)")
    result = BatchReadResult()
    secret = os.environ.get("OPENAI_API_KEY")  # an error message echoing it is not printed with it
    answers: dict[str, tuple[int, Verdict]] = {}
    for number, line in _lines(path):
        result.lines += 1
        record = _record(line, at_line(path, number))
        response = record.get("response") or {}
        status = response.get("status_code")
        body = response.get("body")
        if record.get("error") or status != 200 or not isinstance(body, dict):
            kind = redact(_error_kind(record, status, body), secret)[:80]
            result.error_kinds[kind] = result.error_kinds.get(kind, 0) + 1
            result.errors += 1
            continue
        key = record["custom_id"]
        if key in answers:
            raise InputError(
                f"{at_line(path, number)}custom_id {key[:40]!r} was answered already on line "
                f"{answers[key][0]}; expected one result per request (nothing stored)"
            )
        try:
            verdict = verdict_from_completion(body)
        except (AttributeError, TypeError, ValueError):  # e.g. "choices": ["yes"]
            raise InputError(
                f"{at_line(path, number)}response body: expected a chat completion "
                "(choices[0].message.content, usage token counts)"
            ) from None
        verdict.raw = scrub(verdict.raw, secret)
        answers[key] = (number, verdict)
    for key, (_, verdict) in answers.items():
        cache.put(key, judge_id, verdict)
        result.stored += 1
        result.scored += verdict.score is not None
    return result


def _lines(path: Path) -> list[tuple[int, str]]:
    """(line number, text) of the non-blank lines; one-line errors for bytes that are not
    UTF-8 (a BOM is fine) and for a file with no result at all."""
    raw = path.read_bytes()
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise InputError(f"{at_line(path, line)}not UTF-8 text (byte {raw[exc.start]:#04x})") from None
    found = [(n, line) for n, line in enumerate(text.splitlines(), start=1) if line.strip()]
    if not found:
        raise InputError(f"{path}: empty; expected a Batch API result file (one JSON object a line)")
    return found
