"""The LLM judge through the real ``openai`` client over real HTTP against the local server."""

from __future__ import annotations

import pytest

from wordplay_audit.judges.base import Query
from wordplay_audit.judges.cache import VerdictCache
from wordplay_audit.judges.llm import OpenAIJudge, retry_after_seconds
from wordplay_audit.judges.runner import FatalJudgeError, RetryPolicy, run_judge
from wordplay_audit.judges.server import LocalServer, Script

FAST = RetryPolicy(attempts=12, initial=0.01, max_wait=2.0, jitter=0.01)


def _items(n: int, *, marker: str = "") -> list[Query]:
    """Even items: candidate ≠ reference (the server's ``equal`` rule says no); odd: equal (yes)."""
    out = []
    for i in range(n):
        ref = f"answer {i}"
        cand = ref.upper() if i % 2 else f"something else {i}"
        out.append(Query(f"it{i}", "guess", f"puzzle {i}{marker}", ref, cand))
    return out


@pytest.fixture(autouse=True)
def _dummy_key(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-local-dummy")


def test_verdicts_parsed_and_raw_kept(tmp_path):
    items = _items(20)
    with LocalServer(Script(rule="equal")) as server:
        result = run_judge(OpenAIJudge("m", base_url=server.base_url), items, progress=False)
    labels = result.labels.set_index("item_id")
    for i, q in enumerate(items):
        assert labels.loc[q.item_id, "label"] == ("true" if i % 2 else "false")
        assert labels.loc[q.item_id, "raw"] == ("yes" if i % 2 else "no")
    assert (labels["rater_type"] == "judge").all()
    assert labels["rater"].iloc[0] == "openai:m@prompts-v1,t=0,k=1"
    assert result.stats.called == 20 and server.requests == 20
    # tokens: the server counts whitespace words of the messages; the runner adds them up
    assert result.stats.tokens_out == 20 and result.stats.tokens_in > 20 * 10


def test_garbage_reply_is_unparsed_never_false():
    items = _items(6)
    items[2] = Query("g", "guess", "GARBAGE riddle", "x", "y")
    with LocalServer(Script(rule="equal")) as server:
        result = run_judge(OpenAIJudge("m", base_url=server.base_url), items, progress=False)
    row = result.labels.set_index("item_id").loc["g"]
    assert row["label"] == "unparsed"
    assert "depends on context" in row["raw"]
    assert row["comment"] == "no parsed reply"
    assert result.to_dict()["labels"] == {"true": 3, "false": 2, "unparsed": 1}


TRANSPORTS = pytest.mark.parametrize("transport", ["aiohttp", "httpx"])  # the SDK's two clients


@TRANSPORTS
def test_thirty_percent_faults_every_item_judged_once(tmp_path, transport):
    items = _items(60)
    script = Script(rule="equal", latency=0.005, p_429=0.15, p_500=0.15, retry_after=0.02, seed=3)
    with LocalServer(script) as server, VerdictCache(tmp_path) as cache:
        judge = OpenAIJudge("m", base_url=server.base_url)
        judge.transport = transport
        result = run_judge(judge, items, cache=cache, concurrency=8, policy=FAST, progress=False)
        assert len(result.labels) == 60 and not result.failed_items
        assert server.by_status["429"] + server.by_status["500"] == result.stats.retries > 0
        # each pair answered (200) exactly once: no item was asked twice successfully
        assert sorted(server.answered_by_pair.values()) == [1] * 60
        assert result.stats.errors.keys() <= {"http 429", "http 500"}
        # a second run answers everything from the cache: zero calls
        before = server.requests
        again = run_judge(judge, items, cache=cache, concurrency=8, policy=FAST, progress=False)
        assert server.requests == before
        assert again.stats.called == 0 and again.stats.cached == 60
        assert again.labels["label"].tolist() == result.labels["label"].tolist()


@pytest.mark.slow  # waits out 0.3 s Retry-After replies, about 5 s
def test_retry_after_is_honoured():
    items = _items(12)
    script = Script(rule="equal", p_429=0.5, retry_after=0.3, seed=1)
    policy = RetryPolicy(attempts=20, initial=0.001, max_wait=5.0, jitter=0.0)
    with LocalServer(script) as server:
        run_judge(
            OpenAIJudge("m", base_url=server.base_url), items, concurrency=4, policy=policy, progress=False
        )
    last: dict = {}
    gaps = []
    for arrived, pair, status in server.log:
        if pair in last and last[pair][1] == 429:
            gaps.append(arrived - last[pair][0])
        last[pair] = (arrived, status)
    assert gaps, "the script should have rate-limited some request"
    assert min(gaps) >= 0.3 - 0.01  # the backoff alone (1 ms) would retry far sooner


@TRANSPORTS
def test_timeouts_are_retried(transport):
    items = _items(10)
    script = Script(rule="equal", p_timeout=0.3, hang=5.0, seed=2)
    with LocalServer(script) as server:
        judge = OpenAIJudge("m", base_url=server.base_url, timeout=1.0)
        judge.transport = transport
        result = run_judge(judge, items, concurrency=5, policy=FAST, progress=False)
    assert len(result.labels) == 10 and not result.failed_items
    # every hung request was a client timeout and was retried (a slow machine may add a few more)
    assert set(result.stats.errors) == {"APITimeoutError"}
    assert result.stats.retries == result.stats.errors["APITimeoutError"] >= server.by_status["hang"] > 0


def test_exhausted_retries_are_counted_not_labelled():
    items = _items(4)
    with LocalServer(Script(p_500=1.0)) as server:
        result = run_judge(
            OpenAIJudge("m", base_url=server.base_url), items,
            policy=RetryPolicy(attempts=2, initial=0.001, jitter=0.0), progress=False,
        )  # fmt: skip
    assert result.failed_items == [q.item_id for q in items]
    assert result.labels.empty and result.stats.failed == 4
    assert server.requests == 8  # two tries each


def test_one_attempt_means_no_retry():
    with LocalServer(Script(p_500=1.0)) as server:
        result = run_judge(
            OpenAIJudge("m", base_url=server.base_url), _items(3),
            policy=RetryPolicy(attempts=1), progress=False,
        )  # fmt: skip
    assert server.requests == 3 and result.stats.retries == 0 and result.stats.failed == 3


def test_unknown_transport_is_a_parameter_error():
    judge = OpenAIJudge("m", base_url="http://127.0.0.1:9/v1")
    judge.transport = "curl"
    with pytest.raises(FatalJudgeError, match="transport: expected auto, aiohttp or httpx"):
        run_judge(judge, _items(1), progress=False)


def test_fatal_error_stops_and_hides_key(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-very-secret-abc123")
    with LocalServer() as server:
        judge = OpenAIJudge("m", base_url=server.base_url.replace("/v1", "/wrong"))
        with pytest.raises(FatalJudgeError) as info:
            run_judge(judge, _items(3), progress=False)
    assert "http 404" in str(info.value)
    assert "sk-very-secret" not in str(info.value)


def test_missing_key_is_a_parameter_error(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY")
    with LocalServer() as server, pytest.raises(FatalJudgeError, match="OPENAI_API_KEY"):
        run_judge(OpenAIJudge("m", base_url=server.base_url), _items(1), progress=False)


def test_order_swap_counts_position_flips():
    # the longer_first server says yes iff the first text shown is longer: pure position bias.
    items = [
        Query("a", "definition", "w", "short", "a much longer text"),
        Query("b", "definition", "w", "same size", "same size"),
        Query("c", "definition", "w", "the longest text of all here", "tiny"),
    ]
    with LocalServer(Script(rule="longer_first")) as server:
        judge = OpenAIJudge("m", base_url=server.base_url, swap=True, samples=3)
        result = run_judge(judge, items, progress=False)
    labels = result.labels.set_index("item_id")
    # a and c: 3 samples × (given, swapped) disagree → 3 flips each, votes 3–3 → a tie
    assert labels.loc["a", "position_flips"] == 3 and labels.loc["c", "position_flips"] == 3
    assert labels.loc["a", "label"] == "unparsed" and labels.loc["a", "comment"] == "tie"
    # b: equal lengths → "no" in both orders: no flip, false by 6–0
    assert labels.loc["b", "position_flips"] == 0 and labels.loc["b", "label"] == "false"
    assert (labels.loc["b", "votes_false"], labels.loc["b", "votes_true"]) == (6, 0)
    # the 3 samples of one pair in one order are one request with n=3 (judges/llm.py, "Samples")
    assert server.requests == 3 * 2 and server.choices == 3 * 3 * 2
    assert result.to_dict()["position_flips"] == 6


def test_cache_key_changes_with_prompt_and_params(tmp_path):
    q = _items(1)[0]
    base = OpenAIJudge("m").key(q)
    assert OpenAIJudge("m").key(q) == base
    assert OpenAIJudge("m2").key(q) != base
    assert OpenAIJudge("m", temperature=0.7).key(q) != base
    prompt = tmp_path / "p.txt"
    prompt.write_text("system: judge\nA: {first}\nB: {second}\nSame?\n", encoding="utf-8")
    other = OpenAIJudge("m", prompt=prompt)
    assert other.key(q) != base and other.judge_id.startswith("openai:m@prompts-file-")
    assert OpenAIJudge("m", base_url="http://elsewhere/v1", timeout=5).key(q) == base


def test_retry_after_header_forms():
    assert retry_after_seconds({"retry-after": "2"}) == 2.0
    assert retry_after_seconds({"retry-after-ms": "250"}) == 0.25
    assert retry_after_seconds({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}) == 0.0
    assert retry_after_seconds({}) is None


def test_an_unreadable_retry_after_falls_back_to_the_backoff():
    assert retry_after_seconds({"retry-after": "soon"}) is None
    assert retry_after_seconds({"retry-after": "3"}) == 3.0
