"""The LLM judge over any OpenAI-compatible chat endpoint (OpenAI, vLLM, Ollama, the local server).

The only module that imports ``openai``. The key comes from ``OPENAI_API_KEY`` only and goes
nowhere but the client: not into the judge id, the cache key,
the cache, messages or outputs. The SDK's own retries are off (``max_retries=0``); the runner
retries, and this adapter only sorts faults: 408/409/429/5xx, timeouts and dropped connections
become :class:`TransientJudgeError` carrying ``Retry-After``; anything else (401, 403, 404, 400)
is :class:`FatalJudgeError` and stops the run.

HTTP goes through the SDK's aiohttp transport (``openai.DefaultAioHttpClient``, the ``aiohttp``
extra of ``openai``) when it is installed, else the SDK's default httpx client: at many calls in
flight the aiohttp transport costs about half the client CPU per call (measured by
``benchmarks/bench_judges.py``). Setting ``judge.transport = "httpx"`` forces the default.

The judge id reads ``openai:<model>@prompts-<version>,t=<temperature>,k=<samples>[,swap]``.

**Scores.** Each request asks for token log-probabilities (``logprobs: true``,
``top_logprobs: k``, ``top_logprobs=10`` by default; 0 asks for none, for a server or model that
refuses them) and each parsed reply stores P(yes) as its score
(:func:`~wordplay_audit.judges.prompts.yes_probability`); a reply without log-probabilities,
or one the strict parser cannot read, has none. The runner then gives an item the mean P(yes)
of its votes, or, where none carries one, the share of yes among its parsed samples.

**Samples.** ``samples=k`` asks k samples per order. With ``sampling="n"`` (the default) they
are one request with ``n=k`` – the prompt is sent and counted once –, and a server that returns
fewer choices than asked is asked again for the rest; ``sampling="calls"`` makes k requests.
Either way each sample is its own query, cached and counted on its own, with the same cache key.
At temperature 0 the samples of a deterministic model agree, so their share is no score.
"""

from __future__ import annotations

import asyncio
import dataclasses
import email.utils
import json
import os
import re
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

from wordplay_audit.judges.base import (
    REFUSED,
    UNPARSED,
    Query,
    TransientJudgeError,
    Verdict,
    cache_key,
    expand_samples,
)
from wordplay_audit.judges.prompts import (
    SET_VERSION,
    Template,
    load_template,
    parse_verdict,
    template_for,
    yes_probability,
)
from wordplay_audit.judges.runner import FatalJudgeError

TRANSIENT_STATUS = frozenset({408, 409, 429, 500, 502, 503, 504})
MAX_TOP_LOGPROBS = 20
"""The most alternatives per token OpenAI's chat API returns (and vLLM's default ``max_logprobs``)."""
SAMPLING = ("n", "calls")


def retry_after_seconds(headers: Any) -> float | None:
    """Seconds to wait from ``retry-after-ms`` or ``retry-after`` (seconds or an HTTP date)."""
    if headers is None:
        return None
    ms = headers.get("retry-after-ms")
    if ms is not None:
        try:
            return max(0.0, float(ms) / 1000)
        except ValueError:
            pass
    value = headers.get("retry-after")
    try:
        return max(0.0, float(value)) if value is not None else None
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value) if value else None
    except (TypeError, ValueError):  # neither seconds nor a date ("soon"): the usual backoff
        when = None
    return None if when is None else max(0.0, when.timestamp() - time.time())


SECRET_MIN = 8
"""Keys shorter than this (``x`` for a local server) are not secrets: redacting them would
rewrite ordinary words of a reply."""


def scrub(text: str, secret: str | None) -> str:
    """``text`` with ``secret`` replaced by ``[key]``, also where whitespace or a line break was
    put inside it (a wrapped error body); the rest unchanged.

    >>> scrub("bad key sk-ab\\ncdefgh1 here", "sk-abcdefgh1")
    'bad key [key] here'
    """
    text = str(text)
    if secret and len(secret) >= SECRET_MIN:
        text = re.sub(r"\s*".join(re.escape(c) for c in secret), "[key]", text)
    return text


def redact(text: str, secret: str | None) -> str:
    """:func:`scrub`, then on one line (for a message)."""
    return " ".join(scrub(text, secret).split())


REFUSAL_CODES = frozenset({"content_filter", "content_policy_violation", "context_length_exceeded",
                           "string_above_max_length", "invalid_prompt"})  # fmt: skip
"""Codes of a 400 that concern one query's text, not the run: that query's verdict is
``unparsed`` ("refused by the server: …"), cached, and the run goes on."""


class OpenAIJudge:
    """``OpenAIJudge(model, base_url=..., temperature=0, samples=1, swap=False, prompt=None,
    top_logprobs=10, sampling="n")`` (see the module docstring)."""

    transport = "auto"  # "aiohttp" (required), "httpx" (the SDK's default client) or "auto"
    score_kind = "logprobs"  # what a verdict's score is (the runner writes it as score_source)

    def __init__(  # noqa: PLR0913 - one keyword-only parameter per request option
        self,
        model: str,
        *,
        base_url: str | None = None,
        temperature: float = 0.0,
        samples: int = 1,
        swap: bool = False,
        max_tokens: int = 5,
        timeout: float = 60.0,
        prompt: str | Path | None = None,
        top_logprobs: int = 10,
        sampling: Literal["n", "calls"] = "n",
    ) -> None:
        if samples < 1:
            raise FatalJudgeError(f"samples: expected a whole number ≥ 1; got {samples}")
        if (
            isinstance(top_logprobs, bool)
            or not isinstance(top_logprobs, int)
            or not 0 <= top_logprobs <= MAX_TOP_LOGPROBS
        ):
            raise FatalJudgeError(
                f"top_logprobs: expected a whole number in [0, {MAX_TOP_LOGPROBS}] (0: ask for no "
                f"log-probabilities); got {top_logprobs!r}"
            )
        if sampling not in SAMPLING:
            raise FatalJudgeError(f"sampling: expected one of {', '.join(SAMPLING)}; got {sampling!r}")
        self.model = model
        self.base_url = base_url
        self.samples, self.swap, self.timeout = samples, swap, timeout
        self.top_logprobs, self.sampling = top_logprobs, sampling
        self.params: dict[str, Any] = {"temperature": float(temperature), "max_tokens": int(max_tokens)}
        if top_logprobs:  # the stored P(yes) depends on how many alternatives were listed
            self.params.update(logprobs=True, top_logprobs=int(top_logprobs))
        # with n-sampling, the runner hands one item's queries to one judge() call
        self.batch_size = samples * (2 if swap else 1) if sampling == "n" else 1
        self._prompt_path = Path(prompt) if prompt is not None else None
        version = load_template(prompt, kind="any").version if prompt is not None else SET_VERSION
        self.prompt_version = version
        swap_tag = ",swap" if swap else ""
        self.judge_id = f"openai:{model}@prompts-{version},t={temperature:g},k={samples}{swap_tag}"
        self._templates: dict[str, Template] = {}
        self._client: Any = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def template(self, kind: str) -> Template:
        if kind not in self._templates:
            self._templates[kind] = template_for(kind, path=self._prompt_path)
        return self._templates[kind]

    def queries(self, item: Query) -> list[Query]:
        return expand_samples(item, samples=self.samples, swap=self.swap)

    def key(self, query: Query) -> str:
        return cache_key(
            model=self.model,
            prompt_version=self.template(query.kind).version,
            inputs=query.inputs(),
            params=self.params,
        )

    def request_body(self, query: Query) -> dict[str, Any]:
        """The chat-completions request for one query (also what batch mode writes)."""
        first, second = (
            (query.candidate, query.reference) if query.swapped else (query.reference, query.candidate)
        )
        messages = self.template(query.kind).render(context=query.context, first=first, second=second)
        return {"model": self.model, "messages": messages, **self.params}

    def _client_for_loop(self) -> Any:
        loop = asyncio.get_running_loop()
        if self._client is None or self._loop is not loop:
            from openai import AsyncOpenAI

            key = os.environ.get("OPENAI_API_KEY")
            if not key:
                raise FatalJudgeError("OPENAI_API_KEY is not set; export it (any value for a local server)")
            if not key.isprintable() or key != key.strip():
                raise FatalJudgeError(
                    "OPENAI_API_KEY: expected one line of printable text; it holds a line break, tab or "
                    "other control character, or leading/trailing space (a key file saved with CRLF?)"
                )
            self._client = AsyncOpenAI(
                api_key=key,
                base_url=self.base_url,
                max_retries=0,
                timeout=self.timeout,
                http_client=_http_client(self.transport, self.timeout),
            )
            self._loop = loop
        return self._client

    async def aclose(self) -> None:
        if self._client is not None and self._loop is asyncio.get_running_loop():
            await self._client.close()
        self._client, self._loop = None, None

    async def judge(self, batch: Sequence[Query]) -> list[Verdict]:
        """Answer ``batch``: the samples of one text pair in one order are one request (``n``)."""
        groups: dict[tuple, list[int]] = {}
        for position, query in enumerate(batch):
            same = (query.kind, query.context, query.reference, query.candidate, query.swapped)
            groups.setdefault(same if self.sampling == "n" else (position,), []).append(position)
        answers: list[Verdict | None] = [None] * len(batch)
        for positions in groups.values():
            for position, verdict in zip(
                positions, await self._ask([batch[p] for p in positions]), strict=True
            ):
                answers[position] = verdict
        return [a for a in answers if a is not None]

    async def _ask(self, queries: list[Query]) -> list[Verdict]:
        """Verdicts for ``queries`` (samples of one pair and order): requests with ``n`` = the
        number still missing until each has one (a server may return fewer choices than asked)."""
        verdicts: list[Verdict] = []
        while len(verdicts) < len(queries):
            missing = len(queries) - len(verdicts)
            verdicts += (await self._post(queries[len(verdicts)], n=missing))[:missing]
        return verdicts

    async def _post(self, query: Query, *, n: int) -> list[Verdict]:
        """One request (``n`` choices asked); at least one verdict, the usage on the first."""
        import httpx
        import openai

        client = self._client_for_loop()
        body = self.request_body(query)
        if n > 1:
            body["n"] = n
        started = time.perf_counter()
        try:
            # the SDK's documented raw request (``client.post(..., cast_to=httpx.Response)``): same
            # auth, timeouts and error mapping, without building pydantic models (≈ 40 % less CPU)
            response = await client.post("/chat/completions", cast_to=httpx.Response, body=body)
        except (openai.APITimeoutError, openai.APIConnectionError) as exc:
            raise TransientJudgeError(_fault_name(exc)) from None
        except openai.APIStatusError as exc:
            refused = self._status_fault(query, exc)
            return [dataclasses.replace(refused) for _ in range(n)]
        try:
            data = json.loads(response.content)
        except ValueError:
            raise TransientJudgeError("reply is not JSON") from None
        try:
            verdicts = verdicts_from_completion(data, latency=time.perf_counter() - started)
        except ValueError:
            raise TransientJudgeError("reply is not a chat completion") from None
        for verdict in verdicts:
            verdict.raw = scrub(verdict.raw, os.environ.get("OPENAI_API_KEY"))  # never stored with the key
        return verdicts

    def _status_fault(self, query: Query, exc: Any) -> Verdict:
        """The verdict of a query the server refused (a 400 about its text); else raise: a
        transient fault to retry, or a fatal one naming the item (and the option to change)."""
        status = exc.status_code
        if status in TRANSIENT_STATUS or status >= 500:
            after = retry_after_seconds(exc.response.headers)
            raise TransientJudgeError(f"http {status}", retry_after=after, status=status) from None
        key = os.environ.get("OPENAI_API_KEY")
        message = redact(exc.message, key)[:200]
        if status == 400 and getattr(exc, "code", None) in REFUSAL_CODES:
            return Verdict(UNPARSED, f"{REFUSED}http 400 {exc.code}: {message}")
        hint = ""
        if status == 400 and "logprob" in message.lower() and self.top_logprobs:
            hint = " (a server or model without log-probabilities: set `top_logprobs` to 0)"
        elif status == 400 and re.search(r"\bn\b", message) and self.sampling == "n" and self.samples > 1:
            hint = " (a server without n: set sampling='calls')"
        raise FatalJudgeError(
            f"{self.judge_id}: item {query.item_id}: http {status}: {message}{hint}"
        ) from None


def _fault_name(exc: BaseException) -> str:
    """The SDK's name of a failed call, or "APIConnectionError (connection refused)" when the
    cause was a refused connection (the aiohttp transport reports that as a connect timeout)."""
    cause: BaseException | None = exc
    for _ in range(8):
        if cause is None:
            break
        if isinstance(cause, ConnectionRefusedError):
            return "APIConnectionError (connection refused)"
        cause = cause.__cause__ or cause.__context__
    return type(exc).__name__


def _http_client(transport: str, timeout: float) -> Any:
    """The SDK's aiohttp client when wanted and installed; ``None`` (the SDK's httpx default) else."""
    if transport not in ("auto", "aiohttp", "httpx"):
        raise FatalJudgeError(f"transport: expected auto, aiohttp or httpx; got {transport!r}")
    if transport == "httpx":
        return None
    try:
        from openai import DefaultAioHttpClient

        return DefaultAioHttpClient(timeout=timeout)
    except (ImportError, RuntimeError):  # an SDK without it, or without the aiohttp extra
        if transport == "aiohttp":
            raise FatalJudgeError("transport aiohttp: install openai[aiohttp]") from None
        return None


def verdict_from_completion(response: Any, *, latency: float = 0.0) -> Verdict:
    """The verdict of a chat completion's first choice (see :func:`verdicts_from_completion`)."""
    return verdicts_from_completion(response, latency=latency)[0]


def verdicts_from_completion(response: Any, *, latency: float = 0.0) -> list[Verdict]:
    """One verdict per choice of a chat completion (an SDK object or its JSON as a dict), in the
    order of their ``index``; ``ValueError`` for anything else (``[]``, ``null``, ``"choices":
    ["yes"]``). Content given as a list of parts (``[{"type": "text", "text": …}]``) is joined;
    no choice or no content is an unparsed reply. A parsed reply's score is its P(yes) from the
    choice's ``logprobs`` (None without them). Token counts (on the first verdict: they are the
    request's) that are not numbers count 0 (they feed the cost line only)."""
    data = response if isinstance(response, dict) else getattr(response, "model_dump", lambda: None)()
    if not isinstance(data, dict):
        raise ValueError("not a chat completion")
    choices = data.get("choices") or []
    if not isinstance(choices, list) or not all(isinstance(c, dict) for c in choices):
        raise ValueError("choices: expected a list of objects")
    if all(isinstance(c.get("index"), int) for c in choices):
        choices = sorted(choices, key=lambda c: c["index"])
    verdicts = [_choice_verdict(choice, latency) for choice in choices] or [
        Verdict(UNPARSED, "", latency=latency)
    ]
    usage = data.get("usage") if isinstance(data.get("usage"), dict) else {}
    verdicts[0].tokens_in = _count(usage.get("prompt_tokens"))
    verdicts[0].tokens_out = _count(usage.get("completion_tokens"))
    return verdicts


def _choice_verdict(choice: dict, latency: float) -> Verdict:
    message = choice.get("message") or {}
    if not isinstance(message, dict):
        raise ValueError("message: expected an object")
    content = message.get("content")
    if isinstance(content, list):  # content parts
        content = "".join(p.get("text") or "" for p in content if isinstance(p, dict))
    text = content if isinstance(content, str) else ""
    label = parse_verdict(text)
    score = yes_probability(choice.get("logprobs")) if label != UNPARSED else None
    return Verdict(label, text, latency=latency, score=score)


def _count(value: Any) -> int:
    try:
        number = float(value or 0)
    except (TypeError, ValueError):
        return 0
    return int(number) if number == number and 0 <= number < 1e15 else 0
