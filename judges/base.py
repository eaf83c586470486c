"""The judge interface: what a judge is asked (:class:`Query`) and what it answers (:class:`Verdict`).

A judge is anything with a ``judge_id``, a ``batch_size``, a ``key(query)`` and one coroutine
``judge(batch) -> list[Verdict]`` (:class:`Judge`). Retries, the cache, concurrency and progress
are wrapped around that one method by :mod:`wordplay_audit.judges.runner`; a judge never does them.

One *item* (a row of the contract's items table) becomes one or more *queries*: the LLM judge
asks ``k`` samples, each in the given order and, with order swap, in the swapped order (the
candidate shown first). Each query is cached and retried on its own, so a run killed between two
samples of one item loses nothing.

Labels are ``true``, ``false`` or ``unparsed`` (the reply could not be read; never coerced to
``false``). A judge signals a fault worth retrying (rate limit, 5xx, timeout, dropped connection)
by raising :class:`TransientJudgeError`, optionally with the server's ``retry_after`` seconds.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

import pandas as pd

from wordplay_audit.corpora.contract import validate_items

VERDICTS = ("true", "false", "unparsed")
TRUE, FALSE, UNPARSED = VERDICTS
REFUSED = "[refused by the server] "
"""How the raw reply of a query the server refused (a per-query 400 such as ``content_filter``)
begins; its verdict is ``unparsed`` and the item's comment says "refused by the server"."""


@dataclass(frozen=True)
class Query:
    """One question put to a judge: an item's texts, which sample, and in which order."""

    item_id: str
    kind: str
    context: str
    reference: str
    candidate: str
    sample: int = 0
    swapped: bool = False

    def inputs(self) -> dict[str, Any]:
        """What the judge sees (the cache key hashes this, never the ``item_id``)."""
        return {
            "kind": self.kind,
            "context": self.context,
            "reference": self.reference,
            "candidate": self.candidate,
            "sample": self.sample,
            "swapped": self.swapped,
        }


@dataclass
class Verdict:
    """A judge's answer to one query: label, raw reply, token counts and latency (seconds)."""

    label: str
    raw: str = ""
    tokens_in: int = 0
    tokens_out: int = 0
    latency: float = 0.0
    score: float | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "label": self.label,
            "raw": self.raw,
            "tokens_in": self.tokens_in,
            "tokens_out": self.tokens_out,
            "latency": self.latency,
            "score": self.score,
        }


class TransientJudgeError(Exception):
    """A fault worth retrying (429, 5xx, timeout, connection); ``retry_after`` in seconds if known."""

    def __init__(self, message: str, *, retry_after: float | None = None, status: int | None = None):
        super().__init__(message)
        self.retry_after = retry_after
        self.status = status


@runtime_checkable
class Judge(Protocol):
    """A judge: one coroutine over a batch of queries; everything else is wrapped around it."""

    judge_id: str
    batch_size: int

    def queries(self, item: Query) -> list[Query]:
        """The queries one item needs (one for offline judges; samples × orders for LLMs)."""
        ...

    def key(self, query: Query) -> str:
        """Cache key of a query (:func:`cache_key` over what changes the answer)."""
        ...

    async def judge(self, batch: Sequence[Query]) -> list[Verdict]:
        """Answer each query of ``batch`` (same order); raise TransientJudgeError to be retried."""
        ...


def canonical_json(payload: Any) -> str:
    """JSON with sorted keys, no spaces, UTF-8 kept: the same payload always gives the same text."""
    return json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def cache_key(*, model: str, prompt_version: str, inputs: dict[str, Any], params: dict[str, Any]) -> str:
    """sha256 (hex) of the canonical JSON of model, prompt version, inputs and parameters.

    Nothing else goes in: not the API key, not the base URL, not the item id.

    >>> a = cache_key(model="m", prompt_version="v1", inputs={"x": 1}, params={"t": 0})
    >>> a == cache_key(model="m", prompt_version="v1", inputs={"x": 1}, params={"t": 0})
    True
    >>> a == cache_key(model="m", prompt_version="v2", inputs={"x": 1}, params={"t": 0})
    False
    """
    payload = {"model": model, "prompt_version": prompt_version, "inputs": inputs, "params": params}
    return hashlib.sha256(canonical_json(payload).encode("utf-8")).hexdigest()


def queries_from_items(items: pd.DataFrame, *, source: str | None = None) -> list[Query]:
    """Validate a contract items table and turn each row into its base query (sample 0, given order)."""
    checked = validate_items(items, source=source)
    return [
        Query(str(r.item_id), str(r.kind), str(r.context), str(r.reference), str(r.candidate))
        for r in checked[["item_id", "kind", "context", "reference", "candidate"]].itertuples(index=False)
    ]


def expand_samples(query: Query, *, samples: int = 1, swap: bool = False) -> list[Query]:
    """``samples`` queries in the given order, and as many swapped when ``swap``."""
    orders = (False, True) if swap else (False,)
    return [
        Query(query.item_id, query.kind, query.context, query.reference, query.candidate, s, o)
        for s in range(samples)
        for o in orders
    ]
