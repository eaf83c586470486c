"""``connections score`` killed at random moments (SIGINT, SIGKILL) never leaves a partial
``--out``: the folder is absent, exactly as before, or complete; the next run succeeds and
leaves no staging debris."""

import random
import signal
import subprocess
import sys
import time

import pytest

from wordplay_audit.corpora.demo import write_demo_corpus

pytestmark = pytest.mark.slow

KILL_POINTS = 10  # per signal: 20 kill points in all


def command(data, out):
    return [
        sys.executable,
        "-m",
        "wordplay_audit",
        "connections",
        "score",
        "--data",
        str(data),
        "--out",
        str(out),
    ]


def snapshot(folder):
    if not folder.exists():
        return None
    return {
        p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()
    }


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """The demo corpus, one complete run's output, and how long a run takes."""
    root = tmp_path_factory.mktemp("interrupts")
    data = write_demo_corpus(root / "cx")
    out = root / "reference"
    start = time.monotonic()
    subprocess.run(command(data, out), check=True, capture_output=True)
    return data, snapshot(out), time.monotonic() - start


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGKILL])
def test_killed_runs_leave_out_absent_or_complete(reference, tmp_path, signum):
    data, complete, duration = reference
    rng = random.Random(int(signum))
    out = tmp_path / "o"
    for point in range(KILL_POINTS):
        before = snapshot(out)
        proc = subprocess.Popen(command(data, out), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(rng.uniform(0, 1.2 * duration))
        proc.send_signal(signum)
        proc.wait()
        after = snapshot(out)
        assert after in (before, complete), f"kill point {point}: partial output"
    subprocess.run(command(data, out), check=True, capture_output=True)
    assert snapshot(out) == complete
    assert sorted(p.name for p in tmp_path.iterdir()) == ["o"]  # no staging folder, no lock left
