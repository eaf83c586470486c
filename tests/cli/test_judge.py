"""`wordplay-audit judge …` in-process: run, batch-write/batch-read, fit; servers that answer oddly,
damaged caches, Ctrl-C; one-line errors and malformed input."""

from __future__ import annotations

import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pandas as pd
import pytest

from tests.support import bad_inputs
from wordplay_audit.judges.server import LocalServer, Script

KEY = "sk-cli-test-0xDEADBEEF-secret"


def _items(path, n=12):
    rows = [{"item_id": f"g{i}", "game": "wof", "kind": "guess", "context": "PHRASE",
             "reference": f"WHEEL NUMBER {i}", "candidate": f"wheel number {i}" if i % 2 else f"whale {i}",
             "player_model": "a" if i < n // 2 else "b"} for i in range(n)]  # fmt: skip
    pd.DataFrame(rows).to_csv(path, index=False)
    return path


@pytest.fixture(autouse=True)
def _key(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)


def test_run_normalized_writes_contract_labels(run_cli, tmp_path):
    items = _items(tmp_path / "items.csv")
    code, out, err = run_cli(
        "judge", "run", str(items), "--judge", "normalized", "--out", str(tmp_path / "l.csv"), "--json"
    )
    assert code == 0, err
    labels = pd.read_csv(tmp_path / "l.csv", dtype=str, keep_default_na=False)
    assert labels["label"].tolist() == ["false", "true"] * 6
    assert set(labels["rater_type"]) == {"judge"} and labels["rater"].iloc[0].startswith("normalized@v1")
    assert json.loads(out)["labels"] == {"true": 6, "false": 6, "unparsed": 0}


def test_run_llm_against_local_server_key_nowhere(run_cli, tmp_path):
    items = _items(tmp_path / "items.csv")
    cache = tmp_path / "cache"
    with LocalServer(Script(rule="equal", p_429=0.2, retry_after=0.01, seed=4)) as server:
        args = ["judge", "run", str(items), "--judge", "openai:local-model", "--base-url", server.base_url,
                "--cache", str(cache), "--out", str(tmp_path / "l.csv"), "--no-progress", "--json",
                "--price-in", "0.15", "--price-out", "0.6"]  # fmt: skip
        code, out, err = run_cli(*args)
        assert code == 0, err
        first = json.loads(out)
        assert first["called"] == 12 and first["cost"] > 0
        before = server.requests
        code, out2, err2 = run_cli(*args)
        assert code == 0 and server.requests == before and json.loads(out2)["called"] == 0
    labels = pd.read_csv(tmp_path / "l.csv", dtype=str, keep_default_na=False)
    assert labels["label"].tolist() == ["false", "true"] * 6
    for path in tmp_path.rglob("*"):
        if path.is_file():
            assert KEY.encode() not in path.read_bytes(), path
    assert KEY not in out + err + out2 + err2


def _complete(url: str, body: dict) -> dict:
    request = urllib.request.Request(url + "/chat/completions", data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"})  # fmt: skip
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())


def test_batch_write_read_then_run_calls_nothing(run_cli, tmp_path):
    items = _items(tmp_path / "items.csv", n=8)
    cache = tmp_path / "cache"
    code, out, err = run_cli("judge", "batch-write", str(items), "--judge", "openai:gpt-x", "--cache", str(cache),
                             "--out", str(tmp_path / "requests.jsonl"), "--json")  # fmt: skip
    assert code == 0, err
    assert json.loads(out)["requests"] == 8
    requests = [json.loads(line) for line in (tmp_path / "requests.jsonl").read_text().splitlines()]
    assert {r["url"] for r in requests} == {"/v1/chat/completions"} and len(
        {r["custom_id"] for r in requests}
    ) == 8
    # play the Batch API with the local server; one result fails
    with LocalServer(Script(rule="equal")) as server:
        results = [{"id": f"r{k}", "custom_id": r["custom_id"], "error": None,
                    "response": {"status_code": 200, "body": _complete(server.base_url, r["body"])}}
                   for k, r in enumerate(requests[:-1])]  # fmt: skip
    results.append({"id": "r-last", "custom_id": requests[-1]["custom_id"], "response": None,
                    "error": {"code": "batch_expired", "message": "expired"}})  # fmt: skip
    (tmp_path / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in results))
    code, out, err = run_cli("judge", "batch-read", str(tmp_path / "results.jsonl"), "--judge", "openai:gpt-x",
                             "--cache", str(cache), "--json")  # fmt: skip
    assert code == 0, err
    assert json.loads(out)["stored"] == 7 and json.loads(out)["error_kinds"] == {"batch_expired": 1}
    # a second batch-write asks only for the missing one; a run then calls the server once
    code, out, _ = run_cli("judge", "batch-write", str(items), "--judge", "openai:gpt-x", "--cache", str(cache),
                           "--out", str(tmp_path / "again.jsonl"), "--json")  # fmt: skip
    assert json.loads(out)["requests"] == 1 and json.loads(out)["cached"] == 7
    with LocalServer(Script(rule="equal")) as server:
        code, out, err = run_cli("judge", "run", str(items), "--judge", "openai:gpt-x", "--base-url", server.base_url,
                                 "--cache", str(cache), "--out", str(tmp_path / "l.csv"), "--no-progress", "--json")  # fmt: skip
        assert code == 0, err
        assert server.requests == 1
    assert json.loads(out)["cached"] == 7 and json.loads(out)["called"] == 1
    assert pd.read_csv(tmp_path / "l.csv")["label"].astype(str).str.lower().tolist() == ["false", "true"] * 4


def test_batch_read_bad_line_names_file_and_line(run_cli, tmp_path):
    bad = tmp_path / "results.jsonl"
    bad.write_text('{"custom_id": "%s", "response": {"status_code": 500}}\n{not json\n' % ("a" * 64))
    code, _, err = run_cli(
        "judge", "batch-read", str(bad), "--judge", "openai:m", "--cache", str(tmp_path / "c")
    )
    assert code == 2 and f"{bad} line 2:" in err and len(err.strip().splitlines()) == 1


def test_fit_then_run_tfidf(run_cli, tmp_path):
    items = _items(tmp_path / "items.csv", n=40)
    frame = pd.read_csv(items)
    human = pd.DataFrame({"item_id": frame["item_id"], "rater": "p", "rater_type": "human",
                          "label": ["no", "yes"] * 20})  # fmt: skip
    human.to_csv(tmp_path / "human.csv", index=False)
    code, out, err = run_cli("judge", "fit", str(items), "--human", str(tmp_path / "human.csv"), "--judge", "tfidf",
                             "--out", str(tmp_path / "fit.json"), "--folds", "4", "--json")  # fmt: skip
    assert code == 0, err
    fit = json.loads(out)
    assert fit["cv"]["f1"] <= fit["in_sample"]["f1"] and fit["judge_id"].startswith("tfidf:char_wb2-4@t=")
    code, out, err = run_cli("judge", "run", str(items), "--judge", "tfidf", "--fit", str(tmp_path / "fit.json"),
                             "--out", str(tmp_path / "l.csv"), "--json")  # fmt: skip
    assert code == 0, err
    assert json.loads(out)["judge"] == fit["judge_id"]


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--judge", "gpt4"], "--judge: expected one of openai:MODEL, tfidf"),
        (
            ["--judge", "tfidf"],
            "--fit: the tfidf judge needs a threshold fitted on human labels (`wordplay-audit judge fit`)",
        ),
        (["--judge", "exact", "--concurrency", "0"], "--concurrency"),
        # accepted silently before (nan went into the judge id and the cache key as "t=nan")
        (["--judge", "exact", "--temperature", "nan"], "--temperature: expected a finite number ≥ 0"),
        (["--judge", "exact", "--temperature", "-1"], "--temperature:"),
        (["--judge", "exact", "--timeout", "0"], "--timeout: expected a finite number > 0"),
        (["--judge", "exact", "--timeout", "inf"], "--timeout:"),
        (["--judge", "normalized", "--max-edits", "-1"], "--max-edits: expected a whole number ≥ 0"),
        (["--judge", "exact", "--price-in", "nan", "--price-out", "1"], "--price-in:"),
        (["--judge", "exact", "--price-in", "1", "--price-out", "-1"], "--price-out:"),
        (
            ["--judge", "exact", "--samples", str(10**12)],
            "--samples: expected a whole number in [1, ",
        ),  # hung
        (
            ["--judge", "openai:m", "--base-url", ""],
            "--base-url: expected an http(s) URL",
        ),  # went to the default
        (["--judge", "openai:m", "--base-url", "127.0.0.1:9"], "--base-url:"),
        # refused on the option, before any connection to the (closed) port
        (
            ["--judge", "openai:m", "--base-url", "http://127.0.0.1:9/v1", "--temperature", "inf"],
            "--temperature:",
        ),
    ],
)
def test_bad_options_one_line(run_cli, tmp_path, args, needle):
    items = _items(tmp_path / "items.csv")
    code, _, err = run_cli("judge", "run", str(items), *args, "--out", str(tmp_path / "l.csv"))
    assert code == 2 and needle in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "l.csv").exists()


def test_missing_items_file(run_cli, tmp_path):
    code, _, err = run_cli(
        "judge", "run", str(tmp_path / "nope.csv"), "--judge", "exact", "--out", str(tmp_path / "l.csv")
    )
    assert code == 2 and "nope.csv: no such file" in err


@pytest.mark.parametrize("seed", ["-1", str(2**32)])
def test_fit_seed_refused_under_its_own_name(run_cli, tmp_path, seed):
    # both ended in a traceback from the fold split ("Seed must be between 0 and 2**32 - 1")
    items = _items(tmp_path / "items.csv", n=8)
    frame = pd.read_csv(items)
    human = pd.DataFrame(
        {"item_id": frame["item_id"], "rater": "p", "rater_type": "human", "label": ["no", "yes"] * 4}
    )
    human.to_csv(tmp_path / "human.csv", index=False)
    code, out, err = run_cli("judge", "fit", str(items), "--human", str(tmp_path / "human.csv"), "--judge", "tfidf",
                             "--out", str(tmp_path / "fit.json"), "--seed", seed)  # fmt: skip
    assert code == 2 and out == "" and not (tmp_path / "fit.json").exists()
    assert len(err.strip().splitlines()) == 1 and "'--seed'" in err


def test_fit_labels_folder_refused_before_the_fit_is_written(run_cli, tmp_path):
    # the fit JSON was written, then --labels failed: exit 2 with --out half-done
    items = _items(tmp_path / "items.csv", n=8)
    frame = pd.read_csv(items)
    human = pd.DataFrame(
        {"item_id": frame["item_id"], "rater": "p", "rater_type": "human", "label": ["no", "yes"] * 4}
    )
    human.to_csv(tmp_path / "human.csv", index=False)
    (tmp_path / "folder").mkdir()
    code, out, err = run_cli("judge", "fit", str(items), "--human", str(tmp_path / "human.csv"), "--judge", "tfidf",
                             "--out", str(tmp_path / "fit.json"), "--folds", "2", "--labels", str(tmp_path / "folder"))  # fmt: skip
    assert code == 2 and out == "" and not (tmp_path / "fit.json").exists()
    assert err == f"error: --labels: {tmp_path / 'folder'} is a folder, expected a file name\n"


# --- judge run against servers that answer oddly (a few lines of the standard library each) -------


class _Server:
    """``reply(payload) -> (status, body dict | text)`` for every POST. With ``hold`` every POST sets
    ``arrived`` and is answered only once the test sets ``released`` (set on exit at the latest)."""

    def __init__(self, reply, hold: bool = False):
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 - the handler's name
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                if outer.hold:
                    outer.arrived.set()
                    outer.released.wait()
                status, answer = outer.reply(body, self.headers.get("Authorization", ""))
                data = answer.encode() if isinstance(answer, str) else json.dumps(answer).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):
                pass

        self.reply, self.hold = reply, hold
        self.arrived, self.released = threading.Event(), threading.Event()
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base_url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def __enter__(self):
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc):
        self.released.set()  # held handlers answer, so server_close can join their threads
        self.httpd.shutdown()
        self.httpd.server_close()


def _completion(content):
    return {"choices": [{"message": {"role": "assistant", "content": content}}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 1}}  # fmt: skip


def _user_text(payload) -> str:
    return " ".join(m.get("content") or "" for m in payload["messages"] if m.get("role") == "user")


def _fruit_items(path: Path, words=("apple", "pear", "kiwi")) -> Path:
    rows = [{"item_id": f"i{k}", "game": "demo", "kind": "guess", "context": "ctx", "reference": w,
             "candidate": w if k % 2 == 0 else "lime"} for k, w in enumerate(words)]  # fmt: skip
    pd.DataFrame(rows).to_csv(path, index=False)
    return path


def _run(run_cli, server, tmp_path, *extra):
    items = _fruit_items(tmp_path / "items.csv")
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
    # Ctrl-C while the run waits on its calls: the server holds every reply until the signal is
    # sent, so the run is at that point whatever the machine's speed
    with _Server(lambda payload, auth: (200, _completion("yes")), hold=True) as server:
        items = _fruit_items(tmp_path / "items.csv")
        cmd = [sys.executable, "-m", "wordplay_audit.cli.main", "judge", "run", str(items), "--judge", "openai:m",
               "--base-url", server.base_url, "--cache", str(tmp_path / "c"), "--out", str(tmp_path / "l.csv"),
               "--no-progress"]  # fmt: skip
        proc = subprocess.Popen(cmd, stderr=subprocess.PIPE, env={**os.environ, "OPENAI_API_KEY": KEY})
        while not server.arrived.wait(0.1):  # the first request has reached the server
            assert proc.poll() is None, proc.stderr.read().decode()
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130
    assert err.decode().strip().splitlines()[-1] == "error: interrupted; no output was changed"


def _one_line(err: str) -> bool:
    return len(err.strip().splitlines()) == 1 and "Traceback" not in err


def _plain_items(path, n=12):
    rows = [{"item_id": f"g{i}", "game": "wof", "kind": "guess", "context": "PHRASE",
             "reference": f"WHEEL NUMBER {i}", "candidate": f"wheel number {i}" if i % 2 else f"whale {i}"}
            for i in range(n)]  # fmt: skip
    pd.DataFrame(rows).to_csv(path, index=False)
    return path


def test_judge_run_unreachable_endpoint_leaves_out_as_it_was(run_cli, tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "x")
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]  # closed again: nothing listens there
    out = tmp_path / "l.csv"
    out.write_text("an earlier run's labels\n", encoding="utf-8")
    args = ["judge", "run", str(_plain_items(tmp_path / "i.csv", n=3)), "--judge", "openai:m", "--base-url",
            f"http://127.0.0.1:{port}/v1", "--attempts", "1", "--timeout", "5", "--no-progress",
            "--cache", str(tmp_path / "cache"), "--out", str(out)]  # fmt: skip
    code, stdout, err = run_cli(*args, "--json")
    # exit 1, not 2: a failed call is retryable (docs/JUDGES.md, "The runner")
    assert code == 1 and _one_line(err) and "3 items not judged" in err and f"{out} not written" in err
    assert json.loads(stdout)["out"] is None and json.loads(stdout)["failed_items"] == 3
    assert out.read_text(encoding="utf-8") == "an earlier run's labels\n"
    out.unlink()
    code, _, err = run_cli(*args)
    assert code == 1 and not out.exists() and not list(tmp_path.glob("l.csv*"))


# --- judge run: the items, the fit file, the cache ------------------------------------------------


def test_a_header_only_items_file_is_refused(run_cli, tmp_path):
    (tmp_path / "items.csv").write_text("item_id,game,kind,context,reference,candidate\n")
    code, out, err = run_cli("judge", "run", str(tmp_path / "items.csv"), "--judge", "exact",
                             "--out", str(tmp_path / "l.csv"))  # fmt: skip
    assert code == 2 and "holds no items" in err and not (tmp_path / "l.csv").exists()


@pytest.mark.parametrize("missing", ["candidate", "reference"])
def test_judge_run_items_without_a_text_column_is_refused(run_cli, tmp_path, missing):
    items = tmp_path / "items.csv"
    pd.read_csv(_plain_items(items)).drop(columns=[missing]).to_csv(items, index=False)
    out = tmp_path / "l.csv"
    code, stdout, err = run_cli("judge", "run", str(items), "--judge", "exact", "--out", str(out))
    assert code == 2 and stdout == "" and _one_line(err) and not out.exists()
    assert f"{items}: items table lacks column '{missing}'" in err


@pytest.mark.parametrize("threshold", ["NaN", "Infinity", "5", "-3", '"0.3"', "true", "null"])
def test_judge_run_refuses_a_fit_threshold_outside_the_score_range(run_cli, tmp_path, threshold):
    fit = tmp_path / "fit.json"
    fields = '"n": 12, "positives": 6, "in_sample": {}, "cv": {}'  # a whole fit file but for the threshold
    fit.write_text(f'{{"judge": "tfidf", "threshold": {threshold}, {fields}}}', encoding="utf-8")
    out = tmp_path / "l.csv"
    code, stdout, err = run_cli(
        "judge",
        "run",
        str(_plain_items(tmp_path / "i.csv")),
        "--judge",
        "tfidf",
        "--fit",
        str(fit),
        "--out",
        str(out),
    )
    assert code == 2 and stdout == "" and _one_line(err) and not out.exists()
    assert f"{fit}: threshold: expected a finite number in [0, 1]" in err


def test_judge_run_accepts_the_fit_cut_below_the_lowest_score(run_cli, tmp_path):
    # best_threshold's lowest cut: (lowest score + lowest − 1e-6) / 2 = −5e-7 for a score of 0,
    # so every pair (tfidf scores ≥ 0) is true: 12 of 12. The file holds only judge and
    # threshold (the CV figures only describe a fit; their absence was a TypeError traceback)
    fit = tmp_path / "fit.json"
    fit.write_text('{"judge": "tfidf", "threshold": -5e-7}', encoding="utf-8")
    code, out, err = run_cli("judge", "run", str(_plain_items(tmp_path / "i.csv")), "--judge", "tfidf",
                             "--fit", str(fit), "--out", str(tmp_path / "l.csv"), "--json")  # fmt: skip
    assert code == 0, err
    assert json.loads(out)["labels"] == {"true": 12, "false": 0, "unparsed": 0}


def _cached_run(run_cli, tmp_path):
    items = _fruit_items(tmp_path / "items.csv")
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


# --- batch-read -----------------------------------------------------------------------------------


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


K1, K2 = "1" * 64, "2" * 64  # query keys as batch-write writes them (sha256 hex)


def _result(custom_id: str, content) -> dict:
    body = {
        "choices": [{"message": {"content": content}}],
        "usage": {"prompt_tokens": 9, "completion_tokens": 1},
    }
    return {"id": "r", "custom_id": custom_id, "response": {"status_code": 200, "body": body}, "error": None}


@pytest.mark.parametrize(
    ("lines", "needle"),
    [
        ([_result(K1, "yes"), _result(K2, "no"), _result(K1, "no")],
         f"line 3: custom_id '{K1[:40]}' was answered already on line 1"),
        ([_result(K1, "yes"), {**_result(K2, "no"), "response": {"status_code": 200, "body": {"choices": ["no"]}}}],
         "line 2: response body: expected a chat completion"),
    ],
)  # fmt: skip
def test_batch_read_refuses_conflicts_and_stores_nothing(run_cli, tmp_path, monkeypatch, lines, needle):
    monkeypatch.setenv("OPENAI_API_KEY", "x")
    results = tmp_path / "results.jsonl"
    results.write_text("".join(json.dumps(r) + "\n" for r in lines), encoding="utf-8")
    cache = tmp_path / "cache"
    code, out, err = run_cli(
        "judge", "batch-read", str(results), "--judge", "openai:m", "--cache", str(cache)
    )
    assert code == 2 and out == "" and _one_line(err)
    assert f"{results} {needle}" in err
    with sqlite3.connect(cache / "judges.sqlite") as db:  # the whole file is checked first
        assert db.execute("SELECT COUNT(*) FROM verdicts").fetchone()[0] == 0


# --- judge fit ------------------------------------------------------------------------------------


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
    assert code == 2 and "is also the fit's file; name two files" in err and not Path(same).exists()


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


def test_judge_fit_refuses_labels_of_two_questions(run_cli, tmp_path):
    """Balderdash labels answer two questions (reference, any_sense); a fit pooled them (an item
    with true and false answers was a tie, left out). One question's rows fit; two are refused."""
    items = _plain_items(tmp_path / "i.csv")
    rows = [f"g{i},p,human,{'true' if i % 2 else 'false'},reference" for i in range(12)]
    rows += [f"g{i},p,human,true,any_sense" for i in range(12)]
    both = tmp_path / "both.csv"
    both.write_text("item_id,rater,rater_type,label,question\n" + "\n".join(rows) + "\n", encoding="utf-8")
    args = ["judge", "fit", str(items), "--judge", "tfidf", "--out", str(tmp_path / "fit.json")]
    code, out, err = run_cli(*args, "--human", str(both))
    assert code == 2 and out == "" and _one_line(err) and not (tmp_path / "fit.json").exists()
    assert f"{both}: question: holds answers to 2 questions (any_sense, reference)" in err
    one = tmp_path / "one.csv"
    one.write_text(
        "item_id,rater,rater_type,label,question\n" + "\n".join(rows[:12]) + "\n", encoding="utf-8"
    )
    code, out, err = run_cli(*args, "--human", str(one), "--json")
    assert code == 0, err
    assert json.loads(out)["n"] == 12  # every item, no tie


# --- malformed input: one line, exit 2, the output folder as it was (tests/support/bad_inputs.py) ---


@pytest.mark.parametrize(
    ("command", "build", "kind", "slot"),
    bad_inputs.other_cases("judge"),
    ids=bad_inputs.other_case_ids("judge"),
)
def test_every_other_command_on_malformed_input(
    more_good, tmp_path, in_tmp, monkeypatch, tree_digest, command, build, kind, slot
):
    bad_inputs.check_other_command(more_good, tmp_path, in_tmp, monkeypatch, tree_digest, build, kind, slot)


@pytest.mark.parametrize("command", bad_inputs.good_runs("judge"))
def test_the_table_breaks_only_the_input(more_good, good, tmp_path, in_tmp, monkeypatch, command):
    bad_inputs.check_good_run(more_good, good, tmp_path, in_tmp, monkeypatch, command)


@pytest.mark.parametrize("command", bad_inputs.folder_for_file("judge"), ids=lambda c: c.replace(" ", "-"))
def test_a_folder_where_a_file_is_expected_is_named_as_a_folder(
    more_good, good, tmp_path, in_tmp, monkeypatch, tree_digest, command
):
    bad_inputs.check_folder_for_file(more_good, good, tmp_path, in_tmp, monkeypatch, tree_digest, command)
