"""A `judge run` killed with SIGKILL half-way resumes: every item judged exactly once by a
successful call (the server counts them); a further run calls nothing; the key is nowhere."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from wordplay_audit.judges.server import LocalServer, Script

KEY = "sk-test-7f3a9c-never-store-me"
N = 60


def _write_items(path: Path) -> pd.DataFrame:
    rows = [
        {"item_id": f"it{i}", "game": "demo", "kind": "guess", "context": f"puzzle {i}",
         "reference": f"answer {i}", "candidate": f"ANSWER {i}" if i % 3 else f"other {i}",
         "player_model": "m1" if i < N // 2 else "m2"}
        for i in range(N)
    ]  # fmt: skip
    frame = pd.DataFrame(rows)
    frame.to_csv(path, index=False)
    return frame


def _cmd(items: Path, out: Path, cache: Path, url: str, *extra: str) -> list[str]:
    return [
        sys.executable, "-m", "wordplay_audit", "judge", "run", str(items), "--judge", "openai:local",
        "--base-url", url, "--cache", str(cache), "--out", str(out), "--concurrency", "4", *extra,
    ]  # fmt: skip


def _cached_rows(cache: Path) -> int:
    db = cache / "judges.sqlite"
    if not db.exists():
        return 0
    try:
        with sqlite3.connect(db, timeout=5) as con:
            return int(con.execute("SELECT COUNT(*) FROM verdicts").fetchone()[0])
    except sqlite3.OperationalError:
        return 0


@pytest.mark.slow
def test_sigkill_half_way_then_resume(tmp_path):
    items = tmp_path / "items.csv"
    frame = _write_items(items)
    out, cache = tmp_path / "labels.csv", tmp_path / "cache"
    env = {**os.environ, "OPENAI_API_KEY": KEY}
    with LocalServer(Script(rule="equal", latency=0.01, freeze_after=N // 2)) as server:
        proc = subprocess.Popen(
            _cmd(items, out, cache, server.base_url, "--no-progress"), env=env,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        )  # fmt: skip
        deadline = time.monotonic() + 60
        while _cached_rows(cache) < N // 2 and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.05)
        assert _cached_rows(cache) == N // 2, proc.stderr.read().decode() if proc.poll() is not None else ""
        while server.requests <= N // 2 and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.01)  # until a call beyond the first N/2 has reached the server: it is held there
        assert server.requests > N // 2, "no call held by the server"
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
        assert proc.returncode == -signal.SIGKILL
        assert not out.exists()  # nothing half-written
        in_flight = server.requests - server.answered
        assert in_flight >= 1  # the kill hit calls in flight
        server.release(wake_held=False)  # the killed run's held calls are never answered

        done = subprocess.run(
            _cmd(items, out, cache, server.base_url, "--no-progress", "--json"),
            env=env, capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        # every item answered exactly once by a successful call, over both runs
        assert len(server.answered_by_pair) == N
        assert set(server.answered_by_pair.values()) == {1}
        labels = pd.read_csv(out, dtype=str, keep_default_na=False)
        assert len(labels) == N and set(labels["item_id"]) == set(frame["item_id"])
        expected = {f"it{i}": "true" if i % 3 else "false" for i in range(N)}
        assert dict(zip(labels["item_id"], labels["label"], strict=True)) == expected

        # a third run: zero calls
        before = server.requests
        again = subprocess.run(
            _cmd(items, tmp_path / "again.csv", cache, server.base_url, "--no-progress"),
            env=env, capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        assert again.returncode == 0, again.stderr
        assert server.requests == before

    # the API key appears in no file written and no output printed
    texts = [done.stdout, done.stderr, again.stdout, again.stderr]
    for path in tmp_path.rglob("*"):
        if path.is_file():
            assert KEY.encode() not in path.read_bytes(), path
    assert all(KEY not in t for t in texts)
    assert "sk-test" not in "".join(texts)


@pytest.mark.slow
def test_sigkill_at_unplanned_moments_loses_nothing(tmp_path):
    # no freeze: the kill lands wherever the run is (calls in flight, a commit, between calls).
    # Nothing is lost, and a kill can cost at most the calls in flight (≤ concurrency) again.
    items = tmp_path / "items.csv"
    _write_items(items)
    out, cache = tmp_path / "labels.csv", tmp_path / "cache"
    env = {**os.environ, "OPENAI_API_KEY": KEY}
    kills = (12, 37)
    with LocalServer(Script(rule="equal", latency=0.02)) as server:
        for at in kills:
            proc = subprocess.Popen(_cmd(items, out, cache, server.base_url, "--no-progress"), env=env,
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
            deadline = time.monotonic() + 60
            while _cached_rows(cache) < at and time.monotonic() < deadline and proc.poll() is None:
                time.sleep(0.005)
            proc.send_signal(signal.SIGKILL)
            proc.wait(10)
        done = subprocess.run(_cmd(items, out, cache, server.base_url, "--no-progress"), env=env,
                              capture_output=True, text=True, timeout=120)  # fmt: skip
        assert done.returncode == 0, done.stderr
        answered = server.answered_by_pair
    labels = pd.read_csv(out, dtype=str, keep_default_na=False)
    assert len(labels) == N and _cached_rows(cache) == N
    assert len(answered) == N and min(answered.values()) == 1
    assert sum(answered.values()) - N <= 4 * len(kills)  # concurrency 4
