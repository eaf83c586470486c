"""Outside-data tests skip visibly when the data is absent, and fail instead under CI's switch."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

TARGET = "tests/analysis/connections/test_released_data.py::test_438_scored_games"
REPO = Path(__file__).resolve().parents[2]


def run(require: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, WORDPLAY_AUDIT_SHARED="/nonexistent/shared", WORDPLAY_AUDIT_REQUIRE_SHARED=require)
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", TARGET],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.slow
def test_absent_data_skips_with_reason():
    proc = run("0")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "1 skipped" in proc.stdout
    assert "outside data not found at /nonexistent/shared/connections" in proc.stdout


@pytest.mark.slow
def test_absent_data_fails_when_required():
    proc = run("1")
    assert proc.returncode == 1
    assert "forbids skipping" in proc.stdout
