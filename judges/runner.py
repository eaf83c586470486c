"""Run any :class:`~wordplay_audit.judges.base.Judge` over many items: cache, retries, concurrency.

``run_judge(judge, items, cache=..., concurrency=8)`` expands each item into the judge's
queries, answers those already in the cache without calling anything, and sends the rest in
batches of ``judge.batch_size`` through ``concurrency`` workers (an asyncio bound on calls in
flight). Each batch call is retried with tenacity on :class:`TransientJudgeError`: exponential
backoff with jitter (``initial · 2^(attempt−1)`` plus up to ``jitter`` seconds, capped at
``max_wait``), or, when the server sent ``Retry-After``, that many seconds plus jitter. Every
verdict is written to the cache the moment it arrives, so a killed run resumes where it stopped.
A batch still failing after ``attempts`` tries is counted in ``failed`` and left out of the
labels (a rerun asks it again); :class:`FatalJudgeError` (bad key, unknown model) stops the run.

Per item, the label is the majority of its parsed votes (samples × orders); no parsed vote or a
tie gives ``unparsed``. With order swap, a sample whose two orders disagree is a position flip.

Per item, the score is the mean score of its votes that carry one (``score_source`` = the
judge's ``score_kind``: ``logprobs`` for the LLM judge's P(yes), ``similarity`` or ``match`` for
the offline judges); where none carries one and the item had two or more votes, the share of
``true`` among its parsed votes (``share``); else it is empty (never 0). A judge with a
``calibrate(score)`` method (a similarity judge fitted with a calibration) also gives the
item's ``calibrated`` probability of ``true``.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from tenacity import AsyncRetrying, retry_if_exception_type, stop_after_attempt
from tenacity.wait import wait_base

from wordplay_audit.corpora.votes import plurality
from wordplay_audit.errors import InputError, ParameterError
from wordplay_audit.judges.base import (
    FALSE,
    REFUSED,
    TRUE,
    UNPARSED,
    Judge,
    Query,
    TransientJudgeError,
    Verdict,
)
from wordplay_audit.judges.cache import VerdictCache

LABEL_COLUMNS = (
    "item_id", "rater", "rater_type", "label", "comment", "score", "score_source", "calibrated",
    "raw", "votes_true", "votes_false", "votes_unparsed", "position_flips",
)  # fmt: skip
SHARE = "share"
"""``score_source`` of an item scored by the share of ``true`` among its parsed votes."""


class FatalJudgeError(ParameterError):
    """A fault that retrying cannot mend (bad API key, unknown model): the run stops."""


class _WaitRetryAfter(wait_base):
    """Exponential backoff with jitter; the server's ``Retry-After`` (plus jitter) when given.

    ``offset`` counts attempts made before tenacity took over (the first, made directly)."""

    def __init__(self, initial: float, max_wait: float, jitter: float, offset: int = 0) -> None:
        self.initial, self.max_wait, self.jitter, self.offset = initial, max_wait, jitter, offset

    def __call__(self, retry_state: Any) -> float:
        exc = retry_state.outcome.exception() if retry_state.outcome else None
        return self.seconds(exc, retry_state.attempt_number + self.offset)

    def seconds(self, exc: BaseException | None, attempt: int) -> float:
        after = getattr(exc, "retry_after", None)
        extra = random.uniform(0, self.jitter)
        if after is not None and after >= 0:
            return min(float(after) + extra, self.max_wait)
        return min(self.initial * 2 ** (attempt - 1) + extra, self.max_wait)


@dataclass
class RetryPolicy:
    """How often and how long to retry a batch (seconds)."""

    attempts: int = 8
    initial: float = 0.1
    max_wait: float = 60.0
    jitter: float = 0.1


@dataclass
class RunStats:
    items: int = 0
    queries: int = 0
    cached: int = 0
    called: int = 0
    failed: int = 0
    retries: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    tokens_in_cached: int = 0
    tokens_out_cached: int = 0
    elapsed: float = 0.0
    errors: dict[str, int] = field(default_factory=dict)


@dataclass
class RunResult:
    """Labels (contract columns plus votes and raw replies) and what the run cost."""

    judge_id: str
    labels: pd.DataFrame
    stats: RunStats
    failed_items: list[str]
    prices: tuple[float, float] | None = None

    @property
    def cost(self) -> float | None:
        """``(tokens_in · p_in + tokens_out · p_out) / 10⁶`` for the calls made in this run."""
        if self.prices is None:
            return None
        return (self.stats.tokens_in * self.prices[0] + self.stats.tokens_out * self.prices[1]) / 1e6

    def score_counts(self) -> dict[str, int]:
        """Items by ``score_source`` (``none``: no score)."""
        sources = self.labels["score_source"].fillna("none") if len(self.labels) else pd.Series(dtype=str)
        return {str(k): int(v) for k, v in sources.value_counts().sort_index().items()}

    def to_dict(self) -> dict[str, Any]:
        counts = self.labels["label"].value_counts() if len(self.labels) else pd.Series(dtype=int)
        s = self.stats
        return {
            "judge": self.judge_id,
            "items": s.items,
            "judged": int(len(self.labels)),
            "labels": {v: int(counts.get(v, 0)) for v in (TRUE, FALSE, UNPARSED)},
            "scores": self.score_counts(),
            "failed_items": len(self.failed_items),
            "queries": s.queries,
            "cached": s.cached,
            "called": s.called,
            "failed_queries": s.failed,
            "retries": s.retries,
            "errors": dict(s.errors),
            "position_flips": int(self.labels["position_flips"].sum()) if len(self.labels) else 0,
            "tokens": {"input": s.tokens_in, "output": s.tokens_out,
                       "input_cached": s.tokens_in_cached, "output_cached": s.tokens_out_cached},
            "cost": self.cost,
            "elapsed_s": round(s.elapsed, 3),
        }  # fmt: skip


def _batches(queries: Sequence[tuple[str, Query]], size: int) -> list[list[tuple[str, Query]]]:
    size = max(1, int(size))
    return [list(queries[i : i + size]) for i in range(0, len(queries), size)]


def _count_retry(stats: RunStats, exc: BaseException) -> None:
    stats.retries += 1
    name = f"http {exc.status}" if getattr(exc, "status", None) else (str(exc) or type(exc).__name__)
    stats.errors[name] = stats.errors.get(name, 0) + 1


async def _call(judge: Judge, batch: list[Query], policy: RetryPolicy, stats: RunStats) -> list[Verdict]:
    """One batch call; the first attempt is made directly (no retry machinery on the fast path),
    the rest through tenacity with the same backoff as if it had made the first."""
    try:
        verdicts = await judge.judge(batch)
    except TransientJudgeError as first:
        if policy.attempts <= 1:
            raise
        _count_retry(stats, first)
        wait = _WaitRetryAfter(policy.initial, policy.max_wait, policy.jitter, offset=1)
        await asyncio.sleep(wait.seconds(first, 1))
        retrying = AsyncRetrying(
            retry=retry_if_exception_type(TransientJudgeError),
            stop=stop_after_attempt(policy.attempts - 1),
            wait=wait,
            before_sleep=lambda state: _count_retry(stats, state.outcome.exception()),
            reraise=True,
        )
        async for attempt in retrying:
            with attempt:
                verdicts = await judge.judge(batch)
    if len(verdicts) != len(batch):
        raise RuntimeError(f"judge {judge.judge_id} answered {len(verdicts)} of {len(batch)} queries")
    return verdicts


async def _answer_missing(
    judge: Judge,
    missing: list[tuple[str, Query]],
    *,
    cache: VerdictCache | None,
    concurrency: int,
    policy: RetryPolicy,
    stats: RunStats,
    progress: bool | None,
) -> dict[str, Verdict]:
    from wordplay_audit.corpora.progress import bar as progress_bar

    answers: dict[str, Verdict] = {}
    pending = _batches(missing, judge.batch_size)
    pending.reverse()
    bar = progress_bar(total=len(missing), unit="query", desc=judge.judge_id[:40], enabled=progress)

    async def worker() -> None:
        while pending:
            batch = pending.pop()
            try:
                verdicts = await _call(judge, [q for _, q in batch], policy, stats)
            except TransientJudgeError as exc:
                stats.failed += len(batch)
                name = f"gave up after {exc}" if str(exc) else "gave up"  # e.g. http 503, APIConnectionError
                stats.errors[name] = stats.errors.get(name, 0) + 1
                bar.update(len(batch))
                continue
            for (key, _), verdict in zip(batch, verdicts, strict=True):
                if cache is not None:
                    cache.put(key, judge.judge_id, verdict)
                answers[key] = verdict
                stats.called += 1
                stats.tokens_in += verdict.tokens_in
                stats.tokens_out += verdict.tokens_out
            bar.update(len(batch))

    try:
        async with asyncio.TaskGroup() as group:
            for _ in range(max(1, min(concurrency, len(pending)))):
                group.create_task(worker())
    except* (FatalJudgeError, InputError) as eg:  # a refused key, a cache found damaged mid-run
        raise eg.exceptions[0] from None
    finally:
        bar.close()
    return answers


def _item_score(votes: list[tuple[Query, Verdict]], n_true: int, n_false: int, judge: Judge):
    """(score, score_source, calibrated) of one item (see the module docstring)."""
    scores = [v.score for _, v in votes if v.score is not None]
    if scores:
        score, source = sum(scores) / len(scores), getattr(judge, "score_kind", "score")
    elif len(votes) >= 2 and n_true + n_false:
        score, source = n_true / (n_true + n_false), SHARE
    else:
        return None, None, None
    calibrate = getattr(judge, "calibrate", None)
    return score, source, (calibrate(score) if calibrate is not None else None)


def _combine(item: Query, votes: list[tuple[Query, Verdict]], judge: Judge) -> dict[str, Any]:
    """One label row from an item's votes: majority of parsed votes, position flips counted."""
    n_true = sum(v.label == TRUE for _, v in votes)
    n_false = sum(v.label == FALSE for _, v in votes)
    n_unparsed = len(votes) - n_true - n_false
    winner, top, tied = plurality(np.array([[n_false, n_true]]))  # the one majority rule
    if top[0] and not tied[0]:
        label, comment = (FALSE, TRUE)[int(winner[0])], ""
    else:
        refused = any(v.raw.startswith(REFUSED) for _, v in votes)
        label, comment = (
            UNPARSED,
            "tie" if n_true else "refused by the server" if refused else "no parsed reply",
        )
    by_sample: dict[int, dict[bool, str]] = {}
    for q, v in votes:
        by_sample.setdefault(q.sample, {})[q.swapped] = v.label
    flips = sum(
        1 for d in by_sample.values()
        if len(d) == 2 and UNPARSED not in d.values() and d[False] != d[True]
    )  # fmt: skip
    score, source, calibrated = _item_score(votes, n_true, n_false, judge)
    raws = [v.raw for _, v in votes]
    return {
        "item_id": item.item_id, "rater": judge.judge_id, "rater_type": "judge", "label": label,
        "comment": comment, "score": score, "score_source": source, "calibrated": calibrated,
        "raw": raws[0] if len(raws) == 1 else json.dumps(raws, ensure_ascii=False),
        "votes_true": n_true, "votes_false": n_false, "votes_unparsed": n_unparsed,
        "position_flips": flips,
    }  # fmt: skip


async def run_judge_async(
    judge: Judge,
    items: Sequence[Query],
    *,
    cache: VerdictCache | None = None,
    concurrency: int = 8,
    policy: RetryPolicy | None = None,
    progress: bool | None = None,
    prices: tuple[float, float] | None = None,
) -> RunResult:
    """Judge every item (see the module docstring); ``prices`` = (input, output) per 10⁶ tokens."""
    if concurrency < 1:
        raise ParameterError(f"concurrency: expected a whole number ≥ 1; got {concurrency}")
    policy = policy or RetryPolicy()
    started = time.perf_counter()
    stats = RunStats(items=len(items))
    plan = [(item, [(judge.key(q), q) for q in judge.queries(item)]) for item in items]
    stats.queries = sum(len(qs) for _, qs in plan)
    known = cache.get_many(k for _, qs in plan for k, _ in qs) if cache is not None else {}
    stats.cached = sum(1 for _, qs in plan for k, _ in qs if k in known)
    stats.tokens_in_cached = sum(v.tokens_in for v in known.values())
    stats.tokens_out_cached = sum(v.tokens_out for v in known.values())
    seen: set[str] = set(known)
    missing = []
    for _, qs in plan:
        for key, q in qs:
            if key not in seen:
                seen.add(key)
                missing.append((key, q))
    answers = dict(known)
    try:
        if missing:
            answers.update(
                await _answer_missing(
                    judge, missing, cache=cache, concurrency=concurrency,
                    policy=policy, stats=stats, progress=progress,
                )
            )  # fmt: skip
    finally:
        closer = getattr(judge, "aclose", None)
        if closer is not None:
            await closer()
    rows, failed = [], []
    for item, qs in plan:
        if all(k in answers for k, _ in qs):
            rows.append(_combine(item, [(q, answers[k]) for k, q in qs], judge))
        else:
            failed.append(item.item_id)
    stats.elapsed = time.perf_counter() - started
    labels = pd.DataFrame(rows, columns=list(LABEL_COLUMNS))
    return RunResult(judge.judge_id, labels, stats, failed, prices)


def run_judge(
    judge: Judge,
    items: Sequence[Query],
    *,
    cache: VerdictCache | None = None,
    concurrency: int = 8,
    policy: RetryPolicy | None = None,
    progress: bool | None = None,
    prices: tuple[float, float] | None = None,
) -> RunResult:
    """Synchronous :func:`run_judge_async` (starts its own event loop)."""
    run = run_judge_async(
        judge, items, cache=cache, concurrency=concurrency, policy=policy, progress=progress, prices=prices
    )
    return asyncio.run(run)
