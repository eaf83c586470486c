"""The LLM judge's scores through the real ``openai`` client over real HTTP against the local
server: P(yes) from scripted log-probabilities (expected values by hand), the share of yes over
k samples where the server gives none, unparsed replies kept apart, a cached rerun that returns
the same scores and makes no call (the server counts its requests)."""

from __future__ import annotations

import csv
import json
import math
import sqlite3

import pandas as pd
import pytest

from wordplay_audit.judges.base import Query, cache_key
from wordplay_audit.judges.cache import VerdictCache
from wordplay_audit.judges.llm import OpenAIJudge
from wordplay_audit.judges.runner import FatalJudgeError, run_judge
from wordplay_audit.judges.server import LocalServer, Script

e = math.exp


@pytest.fixture(autouse=True)
def _dummy_key(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-local-dummy")


def _q(item_id: str, reference: str, candidate: str, context: str = "a puzzle") -> Query:
    return Query(item_id, "guess", context, reference, candidate)


# The server shows the pair as "A: <reference>" / "B: <candidate>" (given order); its scripted
# alternatives are keyed by that pair.
ALTERNATIVES = {
    # reply "Yes" (the most likely). yes-class: Yes, " yes"; no-class: No, " no"; "The" neither.
    ("cheese", "cheeses"): [("Yes", -0.2), (" yes", -2.0), ("No", -1.9), (" no", -4.0), ("The", -3.0)],
    # reply "no". yes-class: yes; no-class: no, NO.
    ("cat", "dog"): [("no", -0.1), ("NO", -3.0), ("yes", -2.5)],
    # reply "yes"; no no-class token listed: "no" gets the upper bound min(listed alternative,
    # 1 − listed total).
    ("car", "auto"): [("yes", -0.1), ("Yes", -3.2), ("Sure", -4.0)],
}
# P(yes) by hand (softmax over the two classes, each the sum of its tokens' probabilities):
# cheese: (e^−0.2 + e^−2.0) / (e^−0.2 + e^−2.0 + e^−1.9 + e^−4.0)
#       = (0.818731 + 0.135335) / (0.954066 + 0.149569 + 0.018316) = 0.954066 / 1.121951 = 0.850363
# cat:    e^−2.5 / (e^−0.1 + e^−3.0 + e^−2.5) = 0.082085 / (0.904837 + 0.049787 + 0.082085) = 0.079179
# car:    yes = e^−0.1 + e^−3.2 = 0.904837 + 0.040762 = 0.945599; listed = 0.945599 + e^−4.0 (0.018316)
#         = 0.963915; bound for no = min(0.018316, 1 − 0.963915 = 0.036085) = 0.018316;
#         P = 0.945599 / (0.945599 + 0.018316) = 0.980998
EXPECTED = {
    "cheese": (e(-0.2) + e(-2.0)) / (e(-0.2) + e(-2.0) + e(-1.9) + e(-4.0)),
    "cat": e(-2.5) / (e(-0.1) + e(-3.0) + e(-2.5)),
    "car": (e(-0.1) + e(-3.2)) / (e(-0.1) + e(-3.2) + e(-4.0)),
}


def test_hand_computed_values():  # the arithmetic in the comment above
    assert EXPECTED["cheese"] == pytest.approx(0.850363, abs=1e-6)
    assert EXPECTED["cat"] == pytest.approx(0.079179, abs=1e-6)
    assert EXPECTED["car"] == pytest.approx(0.980998, abs=1e-6)


def _scored_items() -> list[Query]:
    return [
        _q("cheese", "cheese", "cheeses"),
        _q("cat", "cat", "dog"),
        _q("car", "car", "auto"),
        # generated alternatives (Script.confidence 0.9): yes/Yes hold 0.95·0.9, no/No 0.95·0.1, so
        # P(yes) = 0.855 / (0.855 + 0.095) = 0.9 for the "equal" rule's yes, and 0.1 for its no
        _q("same", "rome", "ROME"),
        _q("differ", "rome", "paris"),
        # the reply '"Yes."' (scripted sequence): its first token is a quote; the answer token is
        # "Yes", whose generated alternatives give P(yes) = 0.95·0.9 / 0.95 = 0.9
        _q("quoted", "oslo", "OSLO."),
        # a reply the strict parser cannot read: unparsed, no score
        _q("garbage", "x", "y", context="GARBAGE riddle"),
    ]


def _score_server() -> LocalServer:
    script = Script(rule="equal", alternatives=ALTERNATIVES, sequence={("oslo", "OSLO."): ['"Yes."']})
    return LocalServer(script)


def test_p_yes_from_logprobs_then_a_cached_rerun_calls_nothing(tmp_path):
    items = _scored_items()
    with _score_server() as server, VerdictCache(tmp_path) as cache:
        judge = OpenAIJudge("m", base_url=server.base_url)
        first = run_judge(judge, items, cache=cache, progress=False)
        assert server.requests == len(items)
        labels = first.labels.set_index("item_id")
        for item, want in EXPECTED.items():
            assert labels.loc[item, "score"] == pytest.approx(want, abs=1e-12), item
        assert labels.loc["same", "score"] == pytest.approx(0.9, abs=1e-12)
        assert labels.loc["differ", "score"] == pytest.approx(0.1, abs=1e-12)
        assert labels.loc["quoted", "score"] == pytest.approx(0.9, abs=1e-12)
        assert labels.loc["quoted", "label"] == "true" and labels.loc["quoted", "raw"] == '"Yes."'
        assert [labels.loc[i, "label"] for i in ("cheese", "cat", "car")] == ["true", "false", "true"]
        # unparsed kept apart: no score, no source (never 0)
        assert labels.loc["garbage", "label"] == "unparsed" and pd.isna(labels.loc["garbage", "score"])
        assert pd.isna(labels.loc["garbage", "score_source"])
        assert set(labels.drop(index="garbage")["score_source"]) == {"logprobs"}
        assert first.to_dict()["scores"] == {"logprobs": 6, "none": 1}

        before = server.requests
        again = run_judge(judge, items, cache=cache, progress=False)
        assert server.requests == before and again.stats.called == 0 and again.stats.cached == len(items)
        pd.testing.assert_frame_equal(again.labels, first.labels)
    # the cache holds each query's P(yes) (NULL for the unparsed reply)
    with sqlite3.connect(tmp_path / "judges.sqlite") as db:
        stored = sorted(row[0] for row in db.execute("SELECT score FROM verdicts") if row[0] is not None)
    assert stored == pytest.approx(sorted([*EXPECTED.values(), 0.9, 0.1, 0.9]))


def test_the_server_speaks_the_sdk_shape_including_logprobs():
    """The local server's reply parses as the SDK's own ``ChatCompletion`` (typed, not raw)."""
    from openai import OpenAI

    with _score_server() as server:
        client = OpenAI(api_key="x", base_url=server.base_url, max_retries=0)
        body = OpenAIJudge("m").request_body(_q("cheese", "cheese", "cheeses"))
        reply = client.chat.completions.create(**body)
    choice = reply.choices[0]
    assert choice.message.content == "Yes"
    tops = choice.logprobs.content[0].top_logprobs
    assert len(tops) == 5 and tops[0].token == "Yes" and tops[0].logprob == pytest.approx(-0.2)


SEQUENCES = {
    ("rome", "ROME"): ["yes", "no", "yes", "yes", "maybe"],  # parsed 4: yes 3 → share 3/4 = 0.75
    ("rome", "paris"): ["no"] * 5,  # share 0/5 = 0: a known score of 0
    ("rome", "x"): ["maybe"] * 5,  # nothing parsed: no score
}
SHARE_ITEMS = [_q("mostly", "rome", "ROME"), _q("never", "rome", "paris"), _q("lost", "rome", "x")]


@pytest.mark.parametrize(
    ("sampling", "honour_n", "requests"),
    [
        ("n", True, 3),  # one request per item with n=5
        ("calls", True, 15),  # five requests per item
        ("n", False, 15),  # a server ignoring n: asked again for the rest (n = 5, 4, 3, 2, 1)
    ],
)
def test_shares_of_yes_over_k_samples_where_the_server_gives_no_logprobs(
    tmp_path, sampling, honour_n, requests
):
    script = Script(logprobs=False, sequence=SEQUENCES, honour_n=honour_n)
    with LocalServer(script) as server, VerdictCache(tmp_path) as cache:
        judge = OpenAIJudge("m", base_url=server.base_url, samples=5, temperature=1.0, sampling=sampling)
        result = run_judge(judge, SHARE_ITEMS, cache=cache, progress=False)
        assert server.requests == requests and server.choices == 15 and result.stats.called == 15
        labels = result.labels.set_index("item_id")
        assert labels.loc["mostly", "score"] == pytest.approx(0.75)
        assert labels.loc["mostly", "label"] == "true"
        assert (labels.loc["mostly", "votes_true"], labels.loc["mostly", "votes_false"]) == (3, 1)
        assert labels.loc["mostly", "votes_unparsed"] == 1
        assert labels.loc["never", "score"] == 0.0 and labels.loc["never", "score_source"] == "share"
        assert pd.isna(labels.loc["lost", "score"]) and labels.loc["lost", "comment"] == "no parsed reply"
        before = server.requests
        again = run_judge(judge, SHARE_ITEMS, cache=cache, progress=False)
        assert server.requests == before
        pd.testing.assert_frame_equal(again.labels, result.labels)


def test_with_logprobs_the_samples_mean_p_yes_is_the_score():
    # generated alternatives at confidence 0.8: each parsed yes has P(yes) 0.8, each no 0.2;
    # the parsed votes of "mostly" (yes, no, yes, yes): (0.8 + 0.2 + 0.8 + 0.8) / 4 = 0.65
    with LocalServer(Script(sequence=SEQUENCES, confidence=0.8)) as server:
        judge = OpenAIJudge("m", base_url=server.base_url, samples=5, temperature=1.0)
        labels = run_judge(judge, SHARE_ITEMS, progress=False).labels.set_index("item_id")
    assert labels.loc["mostly", "score"] == pytest.approx(0.65)
    assert labels.loc["never", "score"] == pytest.approx(0.2)
    assert set(labels["score_source"].dropna()) == {"logprobs"} and pd.isna(labels.loc["lost", "score"])


def test_one_sample_without_logprobs_has_no_score_and_the_csv_leaves_it_empty(run_cli, tmp_path):
    rows = [{"item_id": f"w{i}", "game": "wof", "kind": "guess", "context": "c", "reference": f"word {i}",
             "candidate": f"WORD {i}" if i % 2 else "other"} for i in range(6)]  # fmt: skip
    pd.DataFrame(rows).to_csv(tmp_path / "items.csv", index=False)
    with LocalServer(Script(rule="equal", logprobs=False)) as server:
        code, out, err = run_cli("judge", "run", str(tmp_path / "items.csv"), "--judge", "openai:m",
                                 "--base-url", server.base_url, "--cache", str(tmp_path / "c"),
                                 "--out", str(tmp_path / "l.csv"), "--no-progress")  # fmt: skip
    assert code == 0, err
    assert "scores: 6 none" in out
    with open(tmp_path / "l.csv", encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == 6
    assert all((r["score"], r["score_source"], r["calibrated"]) == ("", "", "") for r in rows)  # never 0


def test_cli_run_writes_p_yes_and_says_where_scores_came_from(run_cli, tmp_path):
    rows = [{"item_id": "cheese", "game": "demo", "kind": "guess", "context": "c", "reference": "cheese",
             "candidate": "cheeses"}, {"item_id": "cat", "game": "demo", "kind": "guess", "context": "c",
             "reference": "cat", "candidate": "dog"}]  # fmt: skip
    pd.DataFrame(rows).to_csv(tmp_path / "items.csv", index=False)
    args = ["judge", "run", str(tmp_path / "items.csv"), "--judge", "openai:m", "--cache", str(tmp_path / "c"),
            "--out", str(tmp_path / "l.csv"), "--no-progress"]  # fmt: skip
    with _score_server() as server:
        code, out, err = run_cli(*args, "--base-url", server.base_url, "--json")
        assert code == 0, err
        assert json.loads(out)["scores"] == {"logprobs": 2}
        labels = pd.read_csv(tmp_path / "l.csv").set_index("item_id")
        assert labels.loc["cheese", "score"] == pytest.approx(EXPECTED["cheese"], abs=1e-12)
        assert labels.loc["cat", "score"] == pytest.approx(EXPECTED["cat"], abs=1e-12)
        before = server.requests
        code, out, err = run_cli(*args, "--base-url", server.base_url)
        assert code == 0 and server.requests == before and "scores: 2 logprobs" in out
    assert (
        pd.read_csv(tmp_path / "l.csv").set_index("item_id")["score"].to_dict() == labels["score"].to_dict()
    )


def test_no_logprobs_asked_keeps_the_key_of_a_plain_request():
    q = _q("i", "a", "b")
    plain = OpenAIJudge("m", top_logprobs=0)
    assert "logprobs" not in plain.request_body(q) and "top_logprobs" not in plain.request_body(q)
    body = OpenAIJudge("m").request_body(q)
    assert body["logprobs"] is True and body["top_logprobs"] == 10
    # the key of a request without log-probabilities is the one it always was (older caches hold it)
    old = cache_key(model="m", prompt_version="guess-v1", inputs=q.inputs(),
                    params={"temperature": 0.0, "max_tokens": 5})  # fmt: skip
    assert plain.key(q) == old and OpenAIJudge("m").key(q) != old
    assert OpenAIJudge("m", top_logprobs=5).key(q) != OpenAIJudge("m").key(q)
    assert OpenAIJudge("m", sampling="calls").key(q) == OpenAIJudge("m").key(q)


def test_no_logprobs_asked_gives_no_scores():
    with _score_server() as server:
        judge = OpenAIJudge("m", base_url=server.base_url, top_logprobs=0)
        labels = run_judge(judge, _scored_items()[:3], progress=False).labels
    assert labels["score"].isna().all() and labels["label"].tolist() == ["true", "false", "true"]


@pytest.mark.parametrize(
    ("options", "needle"),
    [
        ({"top_logprobs": 21}, "top_logprobs: expected a whole number in [0, 20]"),
        ({"top_logprobs": -1}, "top_logprobs: expected a whole number in [0, 20]"),
        ({"top_logprobs": True}, "top_logprobs: expected a whole number"),
        ({"sampling": "batch"}, "sampling: expected one of n, calls; got 'batch'"),
    ],
)
def test_bad_score_options_name_the_parameter(options, needle):
    with pytest.raises(FatalJudgeError) as info:
        OpenAIJudge("m", **options)
    assert needle in str(info.value)


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--top-logprobs", "21"], "--top-logprobs: expected a whole number in [0, 20]; got 21"),
        (["--sampling", "batch"], "--sampling: expected one of n, calls; got 'batch'"),
    ],
)
def test_bad_score_options_one_line_on_the_command_line(run_cli, tmp_path, args, needle):
    pd.DataFrame(
        [{"item_id": "a", "game": "demo", "kind": "guess", "reference": "x", "candidate": "y"}]
    ).to_csv(tmp_path / "items.csv", index=False)
    code, out, err = run_cli("judge", "run", str(tmp_path / "items.csv"), "--judge", "openai:m",
                             "--out", str(tmp_path / "l.csv"), *args)  # fmt: skip
    assert code == 2 and needle in err and len(err.strip().splitlines()) == 1


class _Refusing:
    """A server answering every request with one 400 error (a model without log-probabilities)."""

    def __init__(self, message: str):
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        body = json.dumps(
            {"error": {"message": message, "type": "invalid_request_error", "code": None}}
        ).encode()

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 - the handler's name
                self.rfile.read(int(self.headers["Content-Length"]))
                self.send_response(400)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base_url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def __enter__(self):
        import threading

        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc):
        self.httpd.shutdown()
        self.httpd.server_close()


def test_a_model_refusing_logprobs_stops_the_run_and_says_which_option_to_change(run_cli, tmp_path):
    pd.DataFrame(
        [{"item_id": "a", "game": "demo", "kind": "guess", "reference": "x", "candidate": "y"}]
    ).to_csv(tmp_path / "items.csv", index=False)
    with _Refusing("logprobs is not supported with this model") as server:
        with pytest.raises(FatalJudgeError, match=r"set `top_logprobs` to 0\)$"):
            run_judge(OpenAIJudge("m", base_url=server.base_url), [_q("a", "x", "y")], progress=False)
        code, out, err = run_cli("judge", "run", str(tmp_path / "items.csv"), "--judge", "openai:m",
                                 "--base-url", server.base_url, "--cache", str(tmp_path / "c"),
                                 "--out", str(tmp_path / "l.csv"), "--no-progress")  # fmt: skip
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert "http 400: " in err and "logprobs is not supported with this model" in err
    assert err.rstrip().endswith("(a server or model without log-probabilities: set `--top-logprobs` to 0)")
