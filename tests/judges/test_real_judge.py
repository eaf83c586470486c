"""240 real judge queries (237 distinct calls) through a real server: SmolLM2-135M-Instruct behind llama-cpp-python's
OpenAI-compatible server (the ``real_judge`` fixture), on the Connections study's category names.

A ``judge run`` (its own process, 4 calls in flight, a cache) is killed with SIGKILL part-way;
the resumed run asks exactly the queries the cache lacks (0 repeated) and labels every item (0
lost); a further run calls nothing. Every reply is parsed, or counted ``unparsed`` with its raw
text kept; every parsed reply has a score in [0, 1] from the model's log-probabilities."""

from __future__ import annotations

import json
import math
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from wordplay_audit.judges.prompts import parse_verdict

pytestmark = [pytest.mark.realjudge, pytest.mark.shared, pytest.mark.slow]
PER_MODEL = 40  # × 6 models = 240 items, one call each
KILL_AFTER = 60


@pytest.fixture(scope="module")
def items_file(connections_dir, tmp_path_factory) -> Path:
    import wordplay_audit as wa

    found = wa.connections_items(connections_dir).items
    names = found[found["kind"] == "category_name"].sample(frac=1.0, random_state=0)
    chosen = names.groupby("player_model", sort=False).head(PER_MODEL).sort_values("item_id")
    path = tmp_path_factory.mktemp("real-judge") / "items.csv"
    chosen.to_csv(path, index=False)
    return path


def _cached_rows(cache: Path) -> int:
    db = cache / "judges.sqlite"
    if not db.exists():
        return 0
    try:
        with sqlite3.connect(db, timeout=5) as con:
            return int(con.execute("SELECT COUNT(*) FROM verdicts").fetchone()[0])
    except sqlite3.OperationalError:
        return 0


def _args(items: Path, out: Path, cache: Path, url: str) -> list[str]:
    return ["judge", "run", str(items), "--judge", "openai:smollm2", "--base-url", url, "--cache", str(cache),
            "--out", str(out), "--concurrency", "4", "--no-progress"]  # fmt: skip


def test_real_judge_killed_resumed_and_cached(real_judge, items_file, run_cli, tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "local")
    items = pd.read_csv(items_file, dtype=str, keep_default_na=False)
    n = len(items)
    assert n == 6 * PER_MODEL
    # items whose texts are the same are one query (a model that named one group alike twice)
    distinct = len(items[["kind", "context", "reference", "candidate"]].drop_duplicates())
    out, cache = tmp_path / "labels.csv", tmp_path / "cache"
    proc = subprocess.Popen(
        [sys.executable, "-m", "wordplay_audit", *_args(items_file, out, cache, real_judge.base_url)],
        env=os.environ.copy(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )  # fmt: skip
    deadline = time.monotonic() + 900
    while _cached_rows(cache) < KILL_AFTER and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.2)
    proc.send_signal(signal.SIGKILL)
    _, err = proc.communicate(timeout=30)
    before = _cached_rows(cache)
    assert KILL_AFTER <= before < distinct, (before, err[-2000:])
    assert not out.exists()  # killed before the end: nothing half-written

    code, text, err = run_cli(*_args(items_file, out, cache, real_judge.base_url), "--json")
    assert code == 0, err
    resumed = json.loads(text)
    assert resumed["queries"] == n and resumed["cached"] >= before
    assert resumed["called"] == distinct - before  # only what the cache lacked: 0 repeated
    assert (
        resumed["failed_queries"] == 0 and resumed["failed_items"] == 0 and resumed["judged"] == n
    )  # 0 lost
    assert _cached_rows(cache) == distinct

    labels = pd.read_csv(out, dtype={"label": str, "raw": str, "score_source": str}, keep_default_na=False)
    assert sorted(labels["item_id"]) == sorted(items["item_id"])
    for row in labels.itertuples():
        assert row.label in ("true", "false", "unparsed")
        assert row.label == parse_verdict(row.raw), row  # the raw reply kept is the one parsed
        if row.label == "unparsed":
            assert row.comment == "no parsed reply" and row.votes_unparsed == 1
        else:
            score = float(row.score)
            assert row.score_source == "logprobs" and 0.0 <= score <= 1.0 and not math.isnan(score), row
    counts = labels["label"].value_counts().to_dict()
    assert resumed["labels"] == {k: counts.get(k, 0) for k in ("true", "false", "unparsed")}
    assert counts.get("true", 0) + counts.get("false", 0) >= n // 2, counts

    code, text, err = run_cli(
        *_args(items_file, tmp_path / "again.csv", cache, real_judge.base_url), "--json"
    )
    assert code == 0, err
    again = json.loads(text)
    assert again["called"] == 0 and again["cached"] == n
    rerun = pd.read_csv(tmp_path / "again.csv", dtype={"label": str, "raw": str}, keep_default_na=False)
    assert rerun.sort_values("item_id")["label"].tolist() == labels.sort_values("item_id")["label"].tolist()
