"""The batch files against the formats they claim: the request file is what OpenAI's Batch API
and vLLM's ``run-batch`` take, and ``batch-read`` reads both runners' result files, logprobs
included.

Formats checked at the source:
* OpenAI: the request line is ``BatchRequestInput`` {custom_id, method "POST", url, body}, the
  result line ``BatchRequestOutput`` {id, custom_id, response {status_code, request_id, body},
  error {code, message} | null} (OpenAI's OpenAPI spec); the openai SDK ships the body types
  (``CompletionCreateParamsNonStreaming``, ``ChatCompletion`` with ``ChoiceLogprobs``) and
  ``BatchError``, which build the lines below, but no type for a whole batch line.
* vLLM: ``vllm/entrypoints/openai/run_batch.py`` (``BatchRequestInput``: custom_id, method,
  url, body validated as ``ChatCompletionRequest``; ``BatchRequestOutput``: id "vllm-…",
  custom_id, response ``BatchResponseData`` {status_code = 200, request_id "vllm-batch-…",
  body ``ChatCompletionResponse`` | null}, error: a string (``make_error_request_output``) or an
  ``ErrorResponse`` {"error": {message, type, param, code: int}}), and the protocol's
  ``ChatCompletionLogProbs`` {content: [{token, logprob = −9999.0, bytes, top_logprobs}]}.
"""

from __future__ import annotations

import json
import math

import pandas as pd
import pydantic
import pytest
from openai.types import BatchError
from openai.types.chat import ChatCompletion, ChatCompletionMessage, ChatCompletionTokenLogprob
from openai.types.chat.chat_completion import Choice, ChoiceLogprobs
from openai.types.chat.chat_completion_token_logprob import TopLogprob
from openai.types.chat.completion_create_params import CompletionCreateParamsNonStreaming
from openai.types.completion_usage import CompletionUsage

from wordplay_audit.judges.server import LocalServer, Script

e = math.exp
WORDS = {"g0": ("cheese", "cheeses"), "g1": ("cat", "dog"), "g2": ("car", "auto"), "g3": ("sun", "moon")}


@pytest.fixture(autouse=True)
def _key(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-batch-test-key-0001")


def _items(path):
    rows = [{"item_id": i, "game": "demo", "kind": "guess", "context": "c", "reference": r, "candidate": c}
            for i, (r, c) in WORDS.items()]  # fmt: skip
    pd.DataFrame(rows).to_csv(path, index=False)
    return path


def _write_requests(run_cli, tmp_path, *extra) -> list[dict]:
    code, out, err = run_cli("judge", "batch-write", str(_items(tmp_path / "items.csv")), "--judge", "openai:m",
                             "--cache", str(tmp_path / "cache"), "--out", str(tmp_path / "requests.jsonl"),
                             *extra, "--json")  # fmt: skip
    assert code == 0, err
    return [
        json.loads(line) for line in (tmp_path / "requests.jsonl").read_text(encoding="utf-8").splitlines()
    ]


def test_the_request_file_is_a_batch_input_for_openai_and_vllm(run_cli, tmp_path):
    requests = _write_requests(run_cli, tmp_path, "--samples", "3", "--swap", "--temperature", "0.7")
    assert len(requests) == 4 * 3 * 2  # one line per sample and order (no n)
    params = pydantic.TypeAdapter(CompletionCreateParamsNonStreaming)
    allowed = (
        CompletionCreateParamsNonStreaming.__required_keys__
        | CompletionCreateParamsNonStreaming.__optional_keys__
    )
    for line in requests:
        assert set(line) == {"custom_id", "method", "url", "body"}
        assert line["method"] == "POST" and line["url"] == "/v1/chat/completions"
        body = line["body"]
        assert set(body) <= allowed, set(body) - allowed  # nothing the API does not know
        checked = params.validate_python(body)  # the SDK's own request type
        assert [m["role"] for m in checked["messages"]] == ["system", "user"]
        # the fields vLLM's ChatCompletionRequest reads: model, messages, temperature, max_tokens,
        # logprobs (bool), top_logprobs (int, only with logprobs true)
        assert body["logprobs"] is True and body["top_logprobs"] == 10 and "n" not in body
        assert body["temperature"] == 0.7 and body["max_tokens"] == 5 and body["model"] == "m"
    ids = [line["custom_id"] for line in requests]
    assert len(set(ids)) == len(ids)  # unique per request, as both runners require


def _openai_body(content: str, top: list[tuple[str, float]]) -> dict:
    """A chat completion built from the SDK's own types, with log-probabilities."""
    tops = [TopLogprob(token=t, logprob=lp, bytes=list(t.encode())) for t, lp in top]
    chosen = next(lp for t, lp in top if t == content)
    completion = ChatCompletion(
        id="chatcmpl-batch", object="chat.completion", created=1, model="m",
        choices=[Choice(index=0, finish_reason="stop",
                        message=ChatCompletionMessage(role="assistant", content=content),
                        logprobs=ChoiceLogprobs(content=[ChatCompletionTokenLogprob(
                            token=content, logprob=chosen, bytes=list(content.encode()), top_logprobs=tops)]))],
        usage=CompletionUsage(prompt_tokens=40, completion_tokens=1, total_tokens=41),
    )  # fmt: skip
    return completion.model_dump(mode="json")


def _vllm_body(content: str, top: list[tuple[str, float]]) -> dict:
    """A ChatCompletionResponse as vLLM's run-batch writes it (its extra fields included)."""
    chosen = next(lp for t, lp in top if t == content)
    return {
        "id": "chatcmpl-0123", "object": "chat.completion", "created": 1, "model": "m",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content, "refusal": None,
                                             "annotations": None, "audio": None, "function_call": None,
                                             "tool_calls": [], "reasoning": None},
                     "logprobs": {"content": [{"token": content, "logprob": chosen, "bytes": list(content.encode()),
                                               "top_logprobs": [{"token": t, "logprob": lp, "bytes": None}
                                                                for t, lp in top]}]},
                     "finish_reason": "stop", "stop_reason": None, "token_ids": None}],
        "service_tier": None, "system_fingerprint": None,
        "usage": {"prompt_tokens": 40, "total_tokens": 41, "completion_tokens": 1, "prompt_tokens_details": None},
        "prompt_logprobs": None, "prompt_token_ids": None, "kv_transfer_params": None,
    }  # fmt: skip


TOPS = {  # the answer token's alternatives per item; the reply is the first
    "g0": [("Yes", -0.2), ("No", -1.9)],  # P = e^−0.2 / (e^−0.2 + e^−1.9) = 1 / (1 + e^−1.7) = 0.845535
    "g1": [("no", -0.1), ("yes", -2.5)],  # P = e^−2.5 / (e^−0.1 + e^−2.5) = 1 / (1 + e^2.4) = 0.083173
    # −9999.0 is how both runners write "very unlikely": e^−9999 = 0, so P = 1
    "g2": [("yes", -0.01), ("no", -9999.0)],
}
EXPECTED = {"g0": 1 / (1 + e(-1.7)), "g1": 1 / (1 + e(2.4)), "g2": 1.0}


def test_hand_computed_values():
    assert EXPECTED["g0"] == pytest.approx(0.845535, abs=1e-6)
    assert EXPECTED["g1"] == pytest.approx(0.083173, abs=1e-6)


def _by_item(requests: list[dict]) -> dict[str, dict]:
    """Request line per item (the user message names the pair)."""
    found = {}
    for line in requests:
        user = line["body"]["messages"][-1]["content"]
        item = next(i for i, (r, c) in WORDS.items() if f"A: {r}\nB: {c}" in user)
        found[item] = line
    return found


def _read_then_run(run_cli, tmp_path, results: list[dict]) -> tuple[dict, pd.DataFrame, int]:
    (tmp_path / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in results), encoding="utf-8")
    code, out, err = run_cli("judge", "batch-read", str(tmp_path / "results.jsonl"), "--judge", "openai:m",
                             "--cache", str(tmp_path / "cache"), "--json")  # fmt: skip
    assert code == 0, err
    read = json.loads(out)
    with LocalServer(Script(rule="equal")) as server:  # answers only what the batch did not
        code, out, err = run_cli("judge", "run", str(tmp_path / "items.csv"), "--judge", "openai:m",
                                 "--base-url", server.base_url, "--cache", str(tmp_path / "cache"),
                                 "--out", str(tmp_path / "labels.csv"), "--no-progress")  # fmt: skip
        assert code == 0, err
        calls = server.requests
    return read, pd.read_csv(tmp_path / "labels.csv", dtype={"label": str}).set_index("item_id"), calls


def test_batch_read_reads_an_openai_result_file_with_logprobs(run_cli, tmp_path):
    line = _by_item(_write_requests(run_cli, tmp_path))
    results = [
        {"id": f"batch_req_{i}", "custom_id": line[i]["custom_id"], "error": None,
         "response": {"status_code": 200, "request_id": f"req_{i}", "body": _openai_body(top[0][0], top)}}
        for i, top in TOPS.items()
    ]  # fmt: skip
    # g3 failed: an output-file line with the SDK's BatchError
    error = BatchError(
        code="batch_expired",
        message="This request could not be executed before the completion window expired.",
    )
    results.append({"id": "batch_req_g3", "custom_id": line["g3"]["custom_id"], "response": None,
                    "error": error.model_dump(mode="json")})  # fmt: skip
    read, labels, calls = _read_then_run(run_cli, tmp_path, results)
    assert (read["stored"], read["scored"], read["errors"]) == (3, 3, 1)
    assert read["error_kinds"] == {"batch_expired": 1}
    assert calls == 1  # only g3 was asked again
    for item, want in EXPECTED.items():
        assert labels.loc[item, "score"] == pytest.approx(want, abs=1e-12), item
    assert labels["label"].to_dict() == {"g0": "true", "g1": "false", "g2": "true", "g3": "false"}


def test_batch_read_reads_an_openai_error_file(run_cli, tmp_path):
    line = _by_item(_write_requests(run_cli, tmp_path))
    body = {"error": {"message": "Invalid value for 'top_logprobs'.", "type": "invalid_request_error",
                      "param": "top_logprobs", "code": "invalid_value"}}  # fmt: skip
    results = [{"id": f"batch_req_{i}", "custom_id": line[i]["custom_id"], "error": None,
                "response": {"status_code": 400, "request_id": f"req_{i}", "body": body}} for i in WORDS]  # fmt: skip
    (tmp_path / "errors.jsonl").write_text("".join(json.dumps(r) + "\n" for r in results), encoding="utf-8")
    code, out, err = run_cli("judge", "batch-read", str(tmp_path / "errors.jsonl"), "--judge", "openai:m",
                             "--cache", str(tmp_path / "cache"))  # fmt: skip
    assert code == 0, err
    assert "0 verdicts stored" in out and "4 errors (4 invalid_value)" in out


def test_batch_read_reads_a_vllm_run_batch_result_file_with_logprobs(run_cli, tmp_path):
    line = _by_item(_write_requests(run_cli, tmp_path))
    results = [
        {"id": f"vllm-{n:032x}", "custom_id": line[i]["custom_id"], "error": None,
         "response": {"status_code": 200, "request_id": f"vllm-batch-{n:032x}", "body": _vllm_body(top[0][0], top)}}
        for n, (i, top) in enumerate(TOPS.items())
    ]  # fmt: skip
    # g3: vLLM's error line for a request it could not run: a string error, no body
    results.append({"id": "vllm-f", "custom_id": line["g3"]["custom_id"], "error": "The model does not support Chat Completions API",
                    "response": {"status_code": 400, "request_id": "vllm-batch-f", "body": None}})  # fmt: skip
    read, labels, calls = _read_then_run(run_cli, tmp_path, results)
    assert (read["stored"], read["scored"], read["errors"]) == (3, 3, 1)
    assert read["error_kinds"] == {"The model does not support Chat Completions API": 1}
    assert calls == 1
    for item, want in EXPECTED.items():
        assert labels.loc[item, "score"] == pytest.approx(want, abs=1e-12), item


def test_batch_read_counts_vllm_error_responses_by_status(run_cli, tmp_path):
    line = _by_item(_write_requests(run_cli, tmp_path))
    error = {
        "error": {
            "message": "top_logprobs must be ≤ 20",
            "type": "BadRequestError",
            "param": None,
            "code": 400,
        }
    }
    results = [{"id": f"vllm-{i}", "custom_id": line[i]["custom_id"], "error": error,
                "response": {"status_code": 400, "request_id": f"vllm-batch-{i}", "body": None}} for i in WORDS]  # fmt: skip
    (tmp_path / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in results), encoding="utf-8")
    code, out, err = run_cli("judge", "batch-read", str(tmp_path / "results.jsonl"), "--judge", "openai:m",
                             "--cache", str(tmp_path / "cache"), "--json")  # fmt: skip
    assert code == 0, err
    assert json.loads(out)["error_kinds"] == {"http 400": 4} and json.loads(out)["stored"] == 0


def test_a_result_without_logprobs_is_stored_without_a_score(run_cli, tmp_path):
    line = _by_item(_write_requests(run_cli, tmp_path))
    body = _openai_body("yes", [("yes", -0.1)])
    body["choices"][0]["logprobs"] = None  # a runner that did not honour logprobs
    results = [{"id": "r", "custom_id": line["g0"]["custom_id"], "error": None,
                "response": {"status_code": 200, "request_id": "q", "body": body}}]  # fmt: skip
    read, labels, _ = _read_then_run(run_cli, tmp_path, results)
    assert (read["stored"], read["scored"]) == (1, 0)
    assert labels.loc["g0", "label"] == "true" and pd.isna(labels.loc["g0", "score"])
