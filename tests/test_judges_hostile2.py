"""Hostile inputs to `wordplay-audit judge …` found by a probe on 2026-12-02: replies that are
JSON but not a chat completion, unreadable headers, refusals of one query, a key echoed back,
damaged caches, outputs that would destroy another output, silent drops in `judge fit`.

Each server here is a few lines of the standard library on 127.0.0.1 (a free port) answering
one fixed way, so a test states exactly what the client met."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pandas as pd
import pytest

from wordplay_audit.judges.base import Query
from wordplay_audit.judges.llm import retry_after_seconds
from wordplay_audit.judges.offline import TfidfJudge

KEY = "sk-hostile-test-0123456789abcdef"


@pytest.fixture(autouse=True)
def _key(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)


class _Server:
    """``reply(payload) -> (status, body dict | text)`` for every POST; ``delay`` seconds first."""

    def __init__(self, reply, delay: float = 0.0):
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 - the handler's name
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                time.sleep(outer.delay)
                status, answer = outer.reply(body, self.headers.get("Authorization", ""))
                data = answer.encode() if isinstance(answer, str) else json.dumps(answer).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):
                pass

        self.reply, self.delay = reply, delay
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base_url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def __enter__(self):
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc):
        self.httpd.shutdown()
        self.httpd.server_close()


def _completion(content):
    return {"choices": [{"message": {"role": "assistant", "content": content}}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 1}}  # fmt: skip


def _user_text(payload) -> str:
    return " ".join(m.get("content") or "" for m in payload["messages"] if m.get("role") == "user")


def _items(path: Path, words=("apple", "pear", "kiwi")) -> Path:
    rows = [{"item_id": f"i{k}", "game": "demo", "kind": "guess", "context": "ctx", "reference": w,
             "candidate": w if k % 2 == 0 else "lime"} for k, w in enumerate(words)]  # fmt: skip
    pd.DataFrame(rows).to_csv(path, index=False)
    return path


def _run(run_cli, server, tmp_path, *extra):
    items = _items(tmp_path / "items.csv")
    return run_cli("judge", "run", str(items), "--judge", "openai:m", "--base-url", server.base_url,
                   "--cache", str(tmp_path / "cache"), "--out", str(tmp_path / "labels.csv"),
                   "--no-progress", "--attempts", "1", *extra)  # fmt: skip


@pytest.mark.parametrize("body", [[], None, {"choices": ["yes"]}, {"choices": [{"message": "yes"}]}])
def test_a_reply_that_is_not_a_completion_fails_the_query_not_the_program(run_cli, tmp_path, body):
    with _Server(lambda payload, auth: (200, body)) as server:
        code, out, err = _run(run_cli, server, tmp_path)
    assert code == 1 and "Traceback" not in err
    assert (
        err.strip().splitlines()[-1].startswith("error: 3 items not judged (retries exhausted after reply is")
    )
    assert not (tmp_path / "labels.csv").exists()


def test_content_parts_are_read_and_token_counts_that_are_not_numbers_count_zero(run_cli, tmp_path):
    def reply(payload, auth):
        parts = [{"type": "text", "text": "y"}, {"type": "text", "text": "es"}]
        return 200, {"choices": [{"message": {"content": parts}}], "usage": {"prompt_tokens": "many"}}

    with _Server(reply) as server:
        code, out, err = _run(run_cli, server, tmp_path, "--json")
    assert code == 0, err
    result = json.loads(out)
    assert result["labels"] == {"true": 3, "false": 0, "unparsed": 0}
    assert result["tokens"]["input"] == 0


def test_an_unreadable_retry_after_falls_back_to_the_backoff():
    assert retry_after_seconds({"retry-after": "soon"}) is None
    assert retry_after_seconds({"retry-after": "3"}) == 3.0


def test_one_refused_query_is_unparsed_with_a_reason_and_the_run_goes_on(run_cli, tmp_path):
    def reply(payload, auth):
        if "kiwi" in _user_text(payload):
            return 400, {"error": {"message": "filtered by the content management policy", "type": None,
                                   "param": "prompt", "code": "content_filter"}}  # fmt: skip
        return 200, _completion("yes")

    with _Server(reply) as server:
        code, out, err = _run(run_cli, server, tmp_path)
    assert code == 0, err
    labels = pd.read_csv(tmp_path / "labels.csv", dtype=str, keep_default_na=False).set_index("item_id")
    assert labels.loc["i2", "label"] == "unparsed" and labels.loc["i2", "comment"] == "refused by the server"
    assert labels.loc["i2", "raw"].startswith("[refused by the server] http 400 content_filter")
    assert labels.loc["i0", "label"] == "true" and labels.loc["i1", "label"] == "true"


def test_another_400_stops_the_run_naming_the_item(run_cli, tmp_path):
    with _Server(lambda payload, auth: (400, {"error": {"message": "bad parameter", "code": "x"}})) as server:
        code, out, err = _run(run_cli, server, tmp_path, "--concurrency", "1")
    assert code == 2 and "item i0: http 400" in err and len(err.strip().splitlines()) == 1


def test_a_reply_echoing_the_key_is_stored_without_it(run_cli, tmp_path):
    with _Server(lambda payload, auth: (200, _completion(f"no ({auth})"))) as server:
        code, out, err = _run(run_cli, server, tmp_path)
    assert code == 0, err
    written = (tmp_path / "labels.csv").read_text() + "".join(
        p.read_bytes().decode("latin-1") for p in (tmp_path / "cache").iterdir()
    )
    assert KEY not in written and "Bearer [key]" in written
    assert KEY not in out + err


def test_a_key_wrapped_over_two_lines_in_an_error_is_still_hidden(run_cli, tmp_path):
    body = {"error": {"message": f"bad key {KEY[:7]}\n{KEY[7:]}", "code": "invalid_api_key"}}
    with _Server(lambda payload, auth: (400, body)) as server:
        code, out, err = _run(run_cli, server, tmp_path)
    assert code == 2 and "bad key [key]" in err
    assert KEY[7:] not in err and KEY[:7] + " " not in err


def test_batch_read_hides_the_key_and_refuses_non_objects_and_foreign_ids(run_cli, tmp_path):
    key = "b" * 64
    results = tmp_path / "results.jsonl"
    cache = ["--judge", "openai:m", "--cache", str(tmp_path / "cache")]
    line = {"custom_id": key, "response": {"status_code": 401, "body": {}}, "error": {"code": f"bad {KEY}"}}
    results.write_text(json.dumps(line) + "\n")
    code, out, err = run_cli("judge", "batch-read", str(results), *cache, "--json")
    assert code == 0 and KEY not in out and json.loads(out)["error_kinds"] == {"bad [key]": 1}
    for bad, said in (
        # a string error is vLLM run-batch's (counted: tests/judges/test_batch_formats.py); a list is not
        (
            {"custom_id": key, "error": ["x"]},
            "line 1: error: expected an object, a message or null, got list",
        ),
        ({"custom_id": key, "response": [1]}, "line 1: response: expected an object or null, got list"),
        ({"custom_id": "not-a-key", "response": None}, "custom_id 'not-a-key': expected a query key"),
    ):
        results.write_text(json.dumps(bad) + "\n")
        code, out, err = run_cli("judge", "batch-read", str(results), *cache)
        assert code == 2 and said in err and len(err.strip().splitlines()) == 1, err


def _cached_run(run_cli, tmp_path):
    items = _items(tmp_path / "items.csv")
    args = ["judge", "run", str(items), "--judge", "exact", "--cache", str(tmp_path / "c"), "--no-progress"]
    assert run_cli(*args, "--out", str(tmp_path / "a.csv"))[0] == 0
    return args


@pytest.mark.parametrize("damage", ["page", "schema", "row"])
def test_a_damaged_cache_is_one_line(run_cli, tmp_path, damage):
    args = _cached_run(run_cli, tmp_path)
    db = tmp_path / "c" / "judges.sqlite"
    if damage == "page":
        con = sqlite3.connect(db)  # enough rows for pages beyond the first two
        con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        con.executemany("INSERT INTO verdicts VALUES (?,?,?,?,?,?,?,?,?)",
                        [(f"{k:064x}", "j", "true", "x" * 200, 1, 1, 0.1, None, 0.0) for k in range(200)])  # fmt: skip
        con.commit()
        con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        con.close()
        with open(db, "r+b") as handle:
            handle.seek(8192)
            handle.write(b"\xde\xad\xbe\xef" * 2048)
    elif damage == "schema":
        db.unlink()
        con = sqlite3.connect(db)
        con.execute("CREATE TABLE verdicts (key TEXT PRIMARY KEY, label TEXT)")
        con.commit()
        con.close()
    else:
        con = sqlite3.connect(db)
        con.execute("UPDATE verdicts SET tokens_in = 'abc'")
        con.commit()
        con.close()
    code, out, err = run_cli(*args, "--out", str(tmp_path / "b.csv"))
    assert code == 2 and "not a usable judge cache" in err and len(err.strip().splitlines()) == 1, err
    assert not (tmp_path / "b.csv").exists()


def test_out_onto_the_cache_file_is_refused_before_anything_runs(run_cli, tmp_path):
    args = _cached_run(run_cli, tmp_path)
    db = tmp_path / "c" / "judges.sqlite"
    before = db.read_bytes()
    code, out, err = run_cli(*args, "--out", str(db))
    assert code == 2 and "is the judge cache's own file" in err
    assert db.read_bytes() == before


def test_tfidf_cache_keys_differ_by_corpus(run_cli, tmp_path):
    query = Query("x1", "guess", "c", "apple pie", "apple tart")
    one, two = TfidfJudge(0.5, corpus=["apple pie", "apple tart"]), TfidfJudge(0.5, corpus=["apple pie", "x"])
    assert one.key(query) != two.key(query)
    assert one.key(query) == TfidfJudge(0.5, corpus=["apple tart", "apple pie", "apple pie"]).key(query)


def _fit_files(tmp_path, extra_rows=()):
    rows = [{"item_id": f"f{k:02d}", "game": "demo", "kind": "guess", "context": "c",
             "reference": f"word{k} thing", "candidate": f"word{k} thing" if k % 2 == 0 else f"other{k}"}
            for k in range(20)]  # fmt: skip
    pd.DataFrame(rows).to_csv(tmp_path / "items.csv", index=False)
    human = [{"item_id": f"f{k:02d}", "rater": "ann", "rater_type": "human", "label": "true" if k % 2 == 0 else "false"}
             for k in range(20)]  # fmt: skip
    pd.DataFrame([*human, *extra_rows]).to_csv(tmp_path / "human.csv", index=False)
    return [
        "judge",
        "fit",
        str(tmp_path / "items.csv"),
        "--human",
        str(tmp_path / "human.csv"),
        "--judge",
        "tfidf",
    ]


def test_fit_refuses_one_path_for_both_outputs(run_cli, tmp_path):
    args = _fit_files(tmp_path)
    same = str(tmp_path / "fit.json")
    code, out, err = run_cli(*args, "--out", same, "--labels", same)
    assert code == 2 and "is also the --out file" in err and not Path(same).exists()


def test_fit_refuses_a_second_label_by_one_rater_and_counts_labels_naming_no_item(run_cli, tmp_path):
    args = _fit_files(tmp_path, [{"item_id": "f00", "rater": "ann", "rater_type": "human", "label": "false"}])
    code, out, err = run_cli(*args, "--out", str(tmp_path / "fit.json"))
    # header line 1, f00…f19 on lines 2–21: the repeated f00 is line 22
    assert code == 2 and "human.csv line 22: rater 'ann' labelled item 'f00' already" in err
    ghosts = [{"item_id": g, "rater": "ann", "rater_type": "human", "label": "true"} for g in ("gh1", "gh2")]
    args = _fit_files(tmp_path, ghosts)
    code, out, err = run_cli(*args, "--out", str(tmp_path / "fit.json"), "--json")
    assert code == 0, err
    assert json.loads(out)["labels_unmatched"] == 2 and json.loads(out)["items_unlabelled"] == 0
    code, out, err = run_cli(*args, "--out", str(tmp_path / "fit.json"))
    assert "left out: 2 human label row(s) naming no item" in out


def test_a_header_only_items_file_is_refused(run_cli, tmp_path):
    (tmp_path / "items.csv").write_text("item_id,game,kind,context,reference,candidate\n")
    code, out, err = run_cli("judge", "run", str(tmp_path / "items.csv"), "--judge", "exact",
                             "--out", str(tmp_path / "l.csv"))  # fmt: skip
    assert code == 2 and "holds no items" in err and not (tmp_path / "l.csv").exists()


def test_a_key_with_a_line_break_is_one_line(run_cli, tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY + "\r")
    with _Server(lambda payload, auth: (200, _completion("yes"))) as server:
        code, out, err = _run(run_cli, server, tmp_path)
    assert code == 2 and "OPENAI_API_KEY: expected one line" in err and len(err.strip().splitlines()) == 1


def test_a_refused_connection_is_named_so(run_cli, tmp_path):
    import socket

    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = type("S", (), {"base_url": f"http://127.0.0.1:{port}/v1"})()
    code, out, err = _run(run_cli, server, tmp_path)
    assert code == 1 and "connection refused" in err


def test_ctrl_c_says_so(tmp_path):
    with _Server(lambda payload, auth: (200, _completion("yes")), delay=5) as server:
        items = _items(tmp_path / "items.csv")
        cmd = [sys.executable, "-m", "wordplay_audit.cli.main", "judge", "run", str(items), "--judge", "openai:m",
               "--base-url", server.base_url, "--cache", str(tmp_path / "c"), "--out", str(tmp_path / "l.csv"),
               "--no-progress"]  # fmt: skip
        proc = subprocess.Popen(cmd, stderr=subprocess.PIPE, env={**os.environ, "OPENAI_API_KEY": KEY})
        time.sleep(3)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130
    assert err.decode().strip().splitlines()[-1] == "error: interrupted; no output was changed"
