"""A local OpenAI-compatible server for tests, benchmarks and the demo (127.0.0.1, a free port).

``POST /v1/chat/completions`` answers with scripted behaviour (:class:`Script`): a verdict by
rule from the ``A:`` and ``B:`` lines of the last user message (``equal``: yes when the two are
equal after case folding and trimming; ``overlap``: yes when they share a word of three or more
letters; ``longer_first``: yes when A is longer, a judge with pure position bias;
``yes``/``no``: always), a fixed latency, and injected faults drawn with a seeded
generator: 429 with ``Retry-After``, 500, a hang longer than the client's timeout, and garbage
text (also for every prompt containing :attr:`Script.garbage_marker`). It counts every request
and every answered (200) request per pair of texts, so tests can check who was asked what.

Log-probabilities: a request with ``logprobs: true`` gets, per choice, ``logprobs.content`` in
the OpenAI shape (``{token, logprob, bytes, top_logprobs: [{token, logprob, bytes}]}``, the
request's ``top_logprobs`` alternatives at most, most likely first) unless ``logprobs=False``
(a server without them: ``"logprobs": null``). The answer token's alternatives are the pair's
entry in :attr:`Script.alternatives` when given (the reply is then the most likely of them),
else ``yes``, ``Yes``, ``no``, ``No``, ``Maybe`` and ``The`` with P(yes-class) =
``confidence`` for a yes and 1 − ``confidence`` for a no, so that the softmax over the yes/no
tokens gives exactly that number back. ``n`` gives that many choices (``honour_n=False``: one,
as a server without ``n``); :attr:`Script.sequence` scripts a pair's successive replies (one
per choice, cycling), e.g. ``["yes", "no", "maybe"]``.

``freeze_after=N`` lets N chat requests through, then holds every later one unanswered until
:meth:`LocalServer.release` (a test kills its client there, with calls in flight). Run it from Python as a context manager
(``with LocalServer(Script(latency=0.05)) as server: server.base_url``), or from a shell:
``python -m wordplay_audit.judges.server --latency 0.05`` prints the base URL and serves.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import math
import random
import re
import socket
import threading
import time
from collections import Counter
from dataclasses import dataclass
from typing import Literal

Rule = Literal["equal", "overlap", "longer_first", "yes", "no"]
_LINE = re.compile(r"^([AB]): (.*)$", re.MULTILINE)
_REASONS = {200: "OK", 404: "Not Found", 429: "Too Many Requests", 500: "Internal Server Error"}


@dataclass
class Script:
    """What the server does; probabilities are per request, drawn from ``random.Random(seed)``."""

    rule: Rule = "equal"
    latency: float = 0.0
    p_429: float = 0.0
    p_500: float = 0.0
    p_timeout: float = 0.0
    p_garbage: float = 0.0
    hang: float = 30.0
    retry_after: float | None = 0.05
    garbage_marker: str = "GARBAGE"  #: a prompt containing it gets garbage text
    seed: int = 0
    freeze_after: int | None = None
    logprobs: bool = True
    confidence: float = 0.9
    #: per pair of texts, the answer token's alternatives and their probabilities
    alternatives: dict[tuple[str, str], list[tuple[str, float]]] | None = None
    #: per pair of texts, its successive replies (one per choice, cycling)
    sequence: dict[tuple[str, str], list[str]] | None = None
    honour_n: bool = True


def pair_of(messages: list[dict]) -> tuple[str, str]:
    """The ``A:`` and ``B:`` texts of the last user message (empty strings when absent)."""
    users = [m.get("content") or "" for m in messages if m.get("role") == "user"]
    found = dict(_LINE.findall(users[-1] if users else ""))
    return found.get("A", ""), found.get("B", "")


def rule_verdict(rule: Rule, first: str, second: str) -> str:
    """The scripted answer, ``yes`` or ``no``."""
    if rule in ("yes", "no"):
        return rule
    a, b = first.casefold().strip(), second.casefold().strip()
    if rule == "equal":
        return "yes" if a == b else "no"
    if rule == "longer_first":  # answers by position, so swapping the texts flips it
        return "yes" if len(a) > len(b) else "no"
    words = {w for w in re.findall(r"\w+", a) if len(w) >= 3}
    return "yes" if words & {w for w in re.findall(r"\w+", b) if len(w) >= 3} else "no"


class LocalServer:
    """The server in a background thread with its own event loop; counters readable any time."""

    def __init__(self, script: Script | None = None, *, host: str = "127.0.0.1", port: int = 0):
        self.script = script or Script()
        self.host, self.port = host, port
        self.requests = 0
        self.by_status: Counter[str] = Counter()
        self.answered_by_pair: Counter[tuple[str, str]] = Counter()
        self.choices = 0  # choices answered (a request with n asks several)
        self._turn: Counter[tuple[str, str]] = Counter()  # position in each pair's sequence
        self.log: list[tuple[float, tuple[str, str] | None, int]] = []
        self._rng = random.Random(self.script.seed)
        self._admitted = 0  # chat requests let through the freeze gate
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._release: asyncio.Event | None = None
        self._ready = threading.Event()

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}/v1"

    @property
    def answered(self) -> int:
        return int(self.by_status["200"])

    def __enter__(self) -> LocalServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def start(self) -> LocalServer:
        self._thread = threading.Thread(target=self._run, name="local-openai-server", daemon=True)
        self._thread.start()
        if not self._ready.wait(10):
            raise RuntimeError("local server did not start")
        return self

    def stop(self) -> None:
        if self._loop is not None:
            self._loop.call_soon_threadsafe(self._stop_event.set)
        if self._thread is not None:
            self._thread.join(10)

    def release(self, *, wake_held: bool = True) -> None:
        """Stop holding requests; with ``wake_held`` also answer those held so far."""
        self.script.freeze_after = None
        if wake_held and self._loop is not None and self._release is not None:
            self._loop.call_soon_threadsafe(self._release.set)

    def _run(self) -> None:
        asyncio.run(self.serve())

    async def serve(self, *, announce: bool = False) -> None:
        self._loop = asyncio.get_running_loop()
        self._release = asyncio.Event()
        self._stop_event = asyncio.Event()
        server = await asyncio.start_server(self._connection, self.host, self.port, backlog=1024)
        self.port = server.sockets[0].getsockname()[1]
        if announce:
            print(self.base_url, flush=True)
        self._ready.set()
        async with server:
            await self._stop_event.wait()

    async def _connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        sock = writer.get_extra_info("socket")
        try:
            while True:
                _quick_ack(sock)
                request = await _read_request(reader)
                if request is None:
                    break
                arrived = time.monotonic()
                status, headers, body, pair = await self._respond(*request)
                self.log.append((arrived, pair, status))
                if status == 0:
                    break
                if reader.at_eof() or writer.is_closing():  # the client left: not delivered
                    self.by_status["dropped"] += 1
                    break
                writer.write(_encode(status, headers, body))
                await writer.drain()
                self.by_status[str(status)] += 1
                if status == 200 and pair is not None:  # delivered: a successful call
                    self.answered_by_pair[pair] += 1
        except (ConnectionError, asyncio.IncompleteReadError, asyncio.CancelledError):
            pass  # client gone, or the server stopping with this request held
        finally:
            writer.close()

    async def _respond(self, method: str, path: str, body: bytes) -> tuple[int, dict, bytes, tuple | None]:
        self.requests += 1
        if method != "POST" or path.rstrip("/") != "/v1/chat/completions":
            return (
                404,
                {},
                json.dumps({"error": {"message": f"no route {method} {path}"}}).encode(),
                None,
            )
        payload = json.loads(body or b"{}")
        messages = payload.get("messages") or []
        pair = pair_of(messages)
        s = self.script
        if s.freeze_after is not None and self._admitted >= s.freeze_after:
            await self._release.wait()
        self._admitted += 1
        draw = self._rng.random()
        if draw < s.p_429:
            headers = {"Retry-After": f"{s.retry_after:g}"} if s.retry_after is not None else {}
            return 429, headers, b'{"error": {"message": "rate limited (scripted)"}}', pair
        if draw < s.p_429 + s.p_500:
            return 500, {}, b'{"error": {"message": "server error (scripted)"}}', pair
        if draw < s.p_429 + s.p_500 + s.p_timeout:
            self.by_status["hang"] += 1
            await asyncio.sleep(s.hang)  # then drop the connection unanswered
            return 0, {}, b"", None
        if s.latency:
            await asyncio.sleep(s.latency)
        garbage = draw >= 1 - s.p_garbage or s.garbage_marker in json.dumps(messages)
        n = int(payload.get("n") or 1) if s.honour_n else 1
        choices = [self._choice(i, pair, garbage, payload) for i in range(max(1, n))]
        self.choices += len(choices)
        return 200, {}, json.dumps(_completion(payload, choices, messages)).encode(), pair

    def _choice(self, index: int, pair: tuple[str, str], garbage: bool, payload: dict) -> dict:
        """One scripted choice: its reply and, when asked for and scripted, its log-probabilities."""
        s = self.script
        alternatives = (s.alternatives or {}).get(pair)
        if garbage:
            text, alternatives = GARBAGE, None
        elif s.sequence and pair in s.sequence:
            replies = s.sequence[pair]
            text = replies[self._turn[pair] % len(replies)]
            self._turn[pair] += 1
        elif alternatives:
            text = max(alternatives, key=lambda a: a[1])[0]
        else:
            text = rule_verdict(s.rule, *pair)
        choice = {"index": index, "finish_reason": "stop", "message": {"role": "assistant", "content": text}}
        if payload.get("logprobs") and s.logprobs:
            top = int(payload.get("top_logprobs") or 0)
            choice["logprobs"] = {"content": _token_logprobs(text, alternatives, s.confidence, top)}
        else:
            choice["logprobs"] = None
        return choice


GARBAGE = "The answer depends on context ¯\\_(ツ)_/¯"


def _tokens(text: str) -> list[str]:
    """A crude tokenisation of a reply: words with their leading space, and single marks."""
    return re.findall(r"\s*\w+|\s*[^\w\s]", text) or [text]


def _answer_alternatives(word: str, confidence: float) -> list[tuple[str, float]]:
    """yes/Yes/no/No share 0.95 of the probability (P(yes-class) = ``confidence`` for a yes,
    1 − ``confidence`` for a no, split 4:1 between the lower- and upper-case form); Maybe
    0.03, The 0.02. Tokens of probability 0 are left out."""
    p_yes = confidence if word.casefold() == "yes" else 1 - confidence
    shares = [("yes", 0.95 * p_yes * 0.8), ("Yes", 0.95 * p_yes * 0.2), ("no", 0.95 * (1 - p_yes) * 0.8),
              ("No", 0.95 * (1 - p_yes) * 0.2), ("Maybe", 0.03), ("The", 0.02)]  # fmt: skip
    return [(token, math.log(p)) for token, p in shares if p > 0]


def _token_logprobs(
    text: str, alternatives: list[tuple[str, float]] | None, confidence: float, top: int
) -> list[dict]:
    """``logprobs.content`` for a reply: the answer token (the first that is a word) carries the
    scripted alternatives, every other token only itself at log-probability −0.01."""
    content, answered = [], False
    for token in _tokens(text):
        own = [(token, -0.01)]
        if not answered and re.search(r"\w", token):
            answered = True
            word = token.strip()
            own = alternatives or (
                _answer_alternatives(word, confidence) if word.casefold() in ("yes", "no") else own
            )
        ranked = sorted(own, key=lambda a: -a[1])
        chosen = next((lp for t, lp in ranked if t == token), ranked[0][1])
        content.append({
            "token": token, "logprob": chosen, "bytes": list(token.encode()),
            "top_logprobs": [{"token": t, "logprob": lp, "bytes": list(t.encode())} for t, lp in ranked[:top]],
        })  # fmt: skip
    return content


def _completion(payload: dict, choices: list[dict], messages: list[dict]) -> dict:
    prompt_tokens = sum(len(str(m.get("content", "")).split()) for m in messages)
    completion_tokens = sum(len(c["message"]["content"].split()) for c in choices)
    return {
        "id": f"chatcmpl-local-{time.monotonic_ns()}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": payload.get("model", "local"),
        "choices": choices,
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    }


def _quick_ack(sock: socket.socket | None) -> None:
    """Acknowledge at once (Linux ``TCP_QUICKACK``, reset by the kernel, so set before each read):
    a client that sends headers and body in two writes otherwise waits for the delayed ACK."""
    if sock is not None and hasattr(socket, "TCP_QUICKACK"):
        with contextlib.suppress(OSError):
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_QUICKACK, 1)


async def _read_request(reader: asyncio.StreamReader) -> tuple[str, str, bytes] | None:
    line = await reader.readline()
    if not line:
        return None
    method, path, _ = line.decode("latin-1").split(" ", 2)
    length = 0
    while True:
        header = await reader.readline()
        if header in (b"\r\n", b"\n", b""):
            break
        name, _, value = header.decode("latin-1").partition(":")
        if name.strip().lower() == "content-length":
            length = int(value.strip())
    body = await reader.readexactly(length) if length else b""
    return method, path, body


def _encode(status: int, headers: dict, body: bytes) -> bytes:
    lines = [f"HTTP/1.1 {status} {_REASONS.get(status, 'Error')}", "Content-Type: application/json"]
    lines += [f"{k}: {v}" for k, v in headers.items()]
    lines += [f"Content-Length: {len(body)}", "Connection: keep-alive", "", ""]
    return "\r\n".join(lines).encode("latin-1") + body


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Local OpenAI-compatible judge server.")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--rule", default="equal", choices=["equal", "overlap", "longer_first", "yes", "no"])
    parser.add_argument("--latency", type=float, default=0.0)
    parser.add_argument("--p-429", type=float, default=0.0)
    parser.add_argument("--p-500", type=float, default=0.0)
    parser.add_argument("--p-garbage", type=float, default=0.0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-logprobs", action="store_true", help="answer no log-probabilities")
    args = parser.parse_args(argv)
    script = Script(args.rule, args.latency, args.p_429, args.p_500, 0.0, args.p_garbage, seed=args.seed,
                    logprobs=not args.no_logprobs)  # fmt: skip
    server = LocalServer(script, port=args.port)
    try:
        asyncio.run(server.serve(announce=True))
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
