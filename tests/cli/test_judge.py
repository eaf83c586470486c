"""`wordplay-audit judge …` in-process: run, batch-write/batch-read, fit; one-line errors."""

from __future__ import annotations

import json
import urllib.request

import pandas as pd
import pytest

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
        (["--judge", "tfidf"], "needs --fit FILE"),
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
    assert err == f"error: {tmp_path / 'folder'}: is a folder, expected a file name for --labels\n"
