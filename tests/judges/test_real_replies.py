"""What a real model answers, without the server: the raw replies of SmolLM2-135M-Instruct behind
llama-cpp-python's server (``tests/judges/data/smollm2_replies.jsonl``, recorded by
``benchmarks/bench_real_judge.py --record``: request and response body of 120 queries, 60
Connections category names and 60 simulated Balderdash definitions) through the adapter's
parsing: verdict, raw text kept, P(yes) from the recorded log-probabilities."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from wordplay_audit.judges.base import Query
from wordplay_audit.judges.llm import OpenAIJudge, verdicts_from_completion

DATA = Path(__file__).parent / "data" / "smollm2_replies.jsonl"


@pytest.fixture(scope="module")
def replies() -> list[dict]:
    return [json.loads(line) for line in DATA.read_text(encoding="utf-8").splitlines()]


def _hand_p_yes(choice: dict) -> float | None:
    """P(yes) by hand from the first token's alternatives: every listed token whose text is yes
    or no (case and surrounding space ignored) adds its probability to its class."""
    first = choice["logprobs"]["content"][0]
    mass = {"yes": 0.0, "no": 0.0}
    seen = {}
    for entry in [first, *first["top_logprobs"]]:
        seen[entry["token"]] = entry["logprob"]
    for token, logprob in seen.items():
        word = token.strip().lower()
        if word in mass:
            mass[word] += math.exp(logprob)
    if mass["yes"] and mass["no"]:
        return mass["yes"] / (mass["yes"] + mass["no"])
    return None


def test_the_recorded_requests_are_what_the_judge_sends_today(replies):
    judge = OpenAIJudge("smollm2")
    for r in replies:
        user = r["request"]["messages"][1]["content"]
        assert r["request"] == judge.request_body(_query_of(r)), (r["item_id"], user[:80])


def _query_of(r: dict) -> Query:
    return Query(r["item_id"], r["kind"], r["context"], r["reference"], r["candidate"])


def test_every_recorded_reply_is_parsed_or_unparsed_with_its_text_kept(replies):
    seen = {"true": 0, "false": 0, "unparsed": 0}
    for r in replies:
        choice = r["response"]["choices"][0]
        text = choice["message"]["content"]
        (verdict,) = verdicts_from_completion(r["response"])
        assert verdict.raw == text  # kept as the model wrote it
        # read by hand: the model answers "Yes." / "Yes" / "No." / "No", or starts to repeat the
        # prompt's "A: …" line (cut at max_tokens: finish_reason "length")
        if text.rstrip(".") == "Yes":
            expected = "true"
        elif text.rstrip(".") == "No":
            expected = "false"
        else:
            assert text.startswith("A: ") and choice["finish_reason"] == "length", text
            expected = "unparsed"
        assert verdict.label == expected, text
        seen[expected] += 1
        assert verdict.tokens_in == r["response"]["usage"]["prompt_tokens"] > 50
    assert min(seen.values()) > 0, seen  # the recording holds all three


def test_scores_of_the_recorded_replies_are_the_hand_computed_p_yes(replies):
    scored = 0
    for r in replies:
        choice = r["response"]["choices"][0]
        (verdict,) = verdicts_from_completion(r["response"])
        first = choice["logprobs"]["content"][0]
        assert first["bytes"] is None and all(
            t["bytes"] is None for t in first["top_logprobs"]
        )  # this server's
        if verdict.label == "unparsed":
            assert verdict.score is None  # an unread reply has no P(yes), though its alternatives list both
            assert _hand_p_yes(choice) is not None
            continue
        assert verdict.score == pytest.approx(_hand_p_yes(choice), abs=1e-12)
        assert 0.0 < verdict.score < 1.0
        assert (verdict.score > 0.5) == (
            verdict.label == "true"
        )  # the greedy answer is the likelier class here
        scored += 1
    assert scored >= len(replies) // 2


def test_the_weak_judge_says_yes_to_every_placeholder_definition(replies):
    """The simulated Balderdash definitions are placeholders ("a definition of W written by player
    P"): the 135M model says yes to every one, with P(yes) 0.7-0.85 — no signal, as the audit shows."""
    definitions = [verdicts_from_completion(r["response"])[0] for r in replies if r["kind"] == "definition"]
    assert definitions and all(v.label == "true" for v in definitions)
    assert all(0.7 < v.score < 0.85 for v in definitions)
