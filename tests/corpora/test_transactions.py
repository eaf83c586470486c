"""Output folders are transactions: an interrupt at any moment leaves the target
absent, exactly as before, or complete; a second writer is refused; a stale staging folder left
by SIGKILL is removed by the next run."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from wordplay_audit.corpora.io import MARKER, command_inputs, output_file, output_folder, replaced_outputs
from wordplay_audit.errors import InputError, ParameterError


def start(args: list[str], cwd: Path) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "wordplay_audit", *args],
        cwd=cwd,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )


# --------------------------------------------------------------------------- library level


def test_output_folder_appears_whole_and_replaces_an_earlier_output(tmp_path):
    target = tmp_path / "out"
    with output_folder(target) as staging:
        (staging / "a.txt").write_text("1")
        assert not target.exists()
    assert sorted(p.name for p in target.iterdir()) == [MARKER, "a.txt"]
    with output_folder(target) as staging:
        (staging / "b.txt").write_text("2")
    assert sorted(p.name for p in target.iterdir()) == [MARKER, "b.txt"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_an_error_leaves_the_target_as_it_was(tmp_path, tree_digest):
    target = tmp_path / "out"
    with output_folder(target) as staging:
        (staging / "a.txt").write_text("1")
    before = tree_digest(target)
    with pytest.raises(RuntimeError), output_folder(target) as staging:
        (staging / "b.txt").write_text("2")
        raise RuntimeError("boom")
    assert tree_digest(target) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_a_folder_not_written_by_the_toolkit_is_not_replaced(tmp_path):
    target = tmp_path / "mine"
    target.mkdir()
    (target / "thesis.tex").write_text("years of work")
    with pytest.raises(InputError, match="not written by wordplay-audit"), output_folder(target):
        pass
    assert (target / "thesis.tex").read_text() == "years of work"


@pytest.mark.parametrize("bad", ["", ".", ".."])
def test_the_current_directory_is_refused(tmp_path, monkeypatch, bad):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ParameterError), output_folder(bad):
        pass


def test_a_second_writer_is_refused_while_the_first_holds_the_lock(tmp_path):
    target = tmp_path / "out"
    with output_folder(target), pytest.raises(InputError, match="another wordplay-audit run"):
        with output_folder(target):
            pass
    with output_file(tmp_path / "x.csv"), pytest.raises(InputError, match="another wordplay-audit run"):
        with output_file(tmp_path / "x.csv"):
            pass


def test_a_stale_staging_folder_is_removed_by_the_next_run(tmp_path):
    stale = tmp_path / ".out.staging-dead"
    stale.mkdir()
    (stale / "half.csv").write_text("x")
    with output_folder(tmp_path / "out") as staging:
        (staging / "a.txt").write_text("1")
    assert not stale.exists()


def test_a_command_refuses_a_folder_held_by_another_process(tmp_path, run_cli):
    target = tmp_path / "sim"
    with output_folder(target):
        code, _, err = run_cli("balderdash", "simulate", "--out", str(target), "--seed", "1", "--rounds", "3")
    assert code == 2 and "another wordplay-audit run" in err and err.count("\n") == 1


# --------------------------------------------------------------------------- processes

COMMANDS = {
    "simulate": ["balderdash", "simulate", "--out", "TARGET", "--seed", "5", "--games-per-deck", "2"],
    "demo": ["demo", "--out", "TARGET", "--seed", "1"],
    "connections": ["connections", "score", "--data", "DATA", "--out", "TARGET"],
}
KILL_POINTS = 20


@pytest.fixture(scope="module")
def demo_data(tmp_path_factory) -> Path:
    from wordplay_audit.corpora.demo import write_demo_corpus

    return write_demo_corpus(tmp_path_factory.mktemp("data") / "connections")


def _argv(name: str, target: Path, data: Path) -> list[str]:
    return [str(target) if a == "TARGET" else str(data) if a == "DATA" else a for a in COMMANDS[name]]


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_interrupts_at_any_moment_never_leave_a_partial_folder(tmp_path, demo_data, name, tree_digest):
    target = tmp_path / "target"
    first = subprocess.run(
        [sys.executable, "-m", "wordplay_audit", *_argv(name, target, demo_data)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert first.returncode == 0, first.stderr
    complete = tree_digest(target)
    t0 = time.monotonic()
    again = subprocess.run(
        [sys.executable, "-m", "wordplay_audit", *_argv(name, target, demo_data)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    runtime = time.monotonic() - t0
    assert again.returncode == 0 and tree_digest(target) == complete  # reruns are byte-identical
    outcomes = {"as before": 0, "complete": 0}
    for i in range(KILL_POINTS):
        sig = signal.SIGINT if i % 2 == 0 else signal.SIGKILL
        proc = start(_argv(name, target, demo_data), tmp_path)
        time.sleep(runtime * (i + 0.5) / KILL_POINTS)
        proc.send_signal(sig)
        proc.communicate(timeout=120)
        state = tree_digest(target)
        assert state in (complete, "absent"), f"partial output after {sig.name} at kill point {i}"
        outcomes["complete" if state == complete else "as before"] += 1
        if state != complete:  # it did not finish: it must not claim success
            assert proc.returncode != 0
    assert sum(outcomes.values()) == KILL_POINTS
    final = subprocess.run(
        [sys.executable, "-m", "wordplay_audit", *_argv(name, target, demo_data)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert final.returncode == 0, final.stderr
    assert tree_digest(target) == complete
    assert sorted(p.name for p in tmp_path.iterdir()) == ["target"]  # no staging debris, no lock


@pytest.mark.slow
def test_two_demo_runs_on_one_folder_one_wins_the_other_is_refused(tmp_path, tree_digest):
    """The second run starts while the first holds the folder: the first is stopped (SIGSTOP) once
    its staging folder exists (it holds the lock by then) and continued after the second ended."""
    target = tmp_path / "out"
    first = start(["demo", "--out", str(target), "--seed", "0"], tmp_path)
    deadline = time.monotonic() + 120
    while not list(tmp_path.glob(".out.staging-*")):
        assert first.poll() is None, first.stderr.read() if first.stderr else ""
        assert time.monotonic() < deadline, "no staging folder appeared"
        time.sleep(0.02)
    first.send_signal(signal.SIGSTOP)
    try:
        second = start(["demo", "--out", str(target), "--seed", "0"], tmp_path)
        second.wait(timeout=600)
    finally:
        first.send_signal(signal.SIGCONT)
    procs = [first, second]
    results = [(p.wait(timeout=600), p.stderr.read()) for p in procs]
    codes = sorted(code for code, _ in results)
    assert codes == [0, 2], results
    refused = next(err for code, err in results if code == 2)
    assert refused.strip().count("\n") == 0 and "another wordplay-audit run" in refused
    single = tmp_path / "single"
    subprocess.run(
        [sys.executable, "-m", "wordplay_audit", "demo", "--out", str(single), "--seed", "0"],
        cwd=tmp_path,
        check=True,
        capture_output=True,
    )
    assert tree_digest(target) == tree_digest(single)
    assert sorted(os.listdir(tmp_path)) == ["out", "single"]


@pytest.mark.slow
def test_a_sigkilled_wof_simulate_is_cleaned_up_by_the_next_run(tmp_path, tree_digest):
    """kill -9 while `wof simulate` holds its output lock and staging folder: both are left
    behind (no handler runs). The lock is an ``flock``, which the kernel drops with the process,
    so the next run on the same folder takes it at once, removes the dead run's staging folder,
    writes the whole output (identical to a run on a fresh folder) and leaves no stale file."""
    args = ["wof", "simulate", "--out", str(tmp_path / "ws"), "--seed", "1"]
    proc = start([*args, "--games", str(10**6)], tmp_path)  # far longer than the wait below
    deadline = time.monotonic() + 120
    while not list(tmp_path.glob(".ws.staging-*")):
        assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
        assert time.monotonic() < deadline, "no staging folder appeared"
        time.sleep(0.02)
    proc.kill()  # SIGKILL
    proc.communicate(timeout=60)
    assert proc.returncode == -signal.SIGKILL
    left = sorted(p.name for p in tmp_path.iterdir())
    assert ".ws.lock" in left and any(n.startswith(".ws.staging-") for n in left) and "ws" not in left
    rerun = subprocess.run(
        [sys.executable, "-m", "wordplay_audit", *args, "--games", "30"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert rerun.returncode == 0 and rerun.stderr == "", rerun.stderr
    fresh = subprocess.run(
        [sys.executable, "-m", "wordplay_audit", "wof", "simulate", "--out", str(tmp_path / "fresh"),
         "--seed", "1", "--games", "30"],
        cwd=tmp_path, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert fresh.returncode == 0, fresh.stderr
    assert sorted(p.name for p in (tmp_path / "ws").iterdir()) == [
        MARKER,
        "frequent-consonant.jsonl",
        "truth.csv",
    ]
    assert tree_digest(tmp_path / "ws") == tree_digest(tmp_path / "fresh")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fresh", "ws"]  # no lock, no staging debris


def _tree(folder):
    return {p.relative_to(folder): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_out_onto_the_commands_own_input_is_refused(run_cli, tmp_path, monkeypatch):
    """`balderdash items sim --out sim` used to replace the simulated export (and its people's
    labels) by the items it derived, exit 0; an output that is or holds an input is refused."""
    monkeypatch.chdir(tmp_path)
    code, _, err = run_cli("balderdash", "simulate", "--out", "sim", "--games-per-deck", "1")
    assert code == 0, err
    rows = [f"i{k},r{r},human,{'yes' if (k + r) % 3 else 'no'}" for k in range(4) for r in range(3)]
    (tmp_path / "sim" / "people.csv").write_text("item_id,rater,rater_type,label\n" + "\n".join(rows) + "\n")
    before = _tree(tmp_path / "sim")
    for args in (
        ["balderdash", "items", "sim", "--out", "sim"],
        ["balderdash", "items", "sim", "--out=sim"],
        ["balderdash", "items", str(tmp_path / "sim"), "--out", "./sim/"],
        ["balderdash", "recompute", "--seed", "0", "sim", "--human", "sim/labels.csv", "--out", "sim"],
        ["analyze", "aggregate", "sim/people.csv", "--out", "sim/people.csv"],
    ):
        code, out, err = run_cli(*args)
        assert code == 2 and out == "", args
        assert err.count("\n") == 1 and "which the output would replace" in err, err
    assert _tree(tmp_path / "sim") == before  # not a byte changed
    # an output beside the input, or inside it, is fine; and the check ends with the command
    code, _, err = run_cli("balderdash", "items", "sim", "--out", "items")
    assert code == 0, err
    with output_folder(tmp_path / "sim"):  # the library, outside a command: no inputs known
        pass


def test_a_second_run_on_one_folder_says_it_replaced_the_first(run_cli, tmp_path, monkeypatch):
    # the replacement itself is allowed (the folder holds this toolkit's marker) but not silent:
    # the text names the folder, --json lists it; the first run and a new folder say nothing
    monkeypatch.chdir(tmp_path)
    args = ("balderdash", "simulate", "--out", "sim", "--games-per-deck", "1", "--rounds", "2")
    code, out, _ = run_cli(*args)
    assert code == 0 and "replaced" not in out
    code, out, _ = run_cli(*args)
    assert code == 0 and out.strip().splitlines()[-1] == "replaced the earlier output in sim"
    code, out, _ = run_cli(*args, "--json")
    assert code == 0 and json.loads(out)["replaced_outputs"] == ["sim"]
    code, out, _ = run_cli(*args[:3], "other", *args[4:], "--json")
    assert code == 0 and "replaced_outputs" not in json.loads(out)


def test_replaced_files_are_recorded_inside_a_command_only(tmp_path):
    target = tmp_path / "report.html"
    for _ in range(2):
        with output_file(target) as tmp:
            tmp.write_text("x", encoding="utf-8")
    assert replaced_outputs() == []  # outside a command nothing is recorded
    with command_inputs([]):
        with output_file(target) as tmp:
            tmp.write_text("y", encoding="utf-8")
        with output_file(tmp_path / "new.html") as tmp:
            tmp.write_text("z", encoding="utf-8")
        with output_folder(tmp_path / "campaign", option="campaign") as staging:  # not a --… target
            (staging / "a").write_text("1", encoding="utf-8")
        with output_folder(tmp_path / "campaign", option="campaign") as staging:
            (staging / "a").write_text("2", encoding="utf-8")
        assert replaced_outputs() == [str(target)]
    assert replaced_outputs() == []
