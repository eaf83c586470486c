"""The bootstrap's progress bar: shown for a command's readable summary on a terminal, never
under --json unless asked (--progress), never from a notebook-style ``wa`` call unless
``progress=True``. stderr is made to look like a terminal, so that *auto* would show it."""

from __future__ import annotations

import sys

import pytest

import wordplay_audit as wa
from tests.cli.test_analyze import fleiss_labels

BAR = "bootstrap:"


@pytest.fixture
def terminal(monkeypatch, capsys):
    """stderr (pytest's capture) reports a terminal, as an interactive shell's would."""
    monkeypatch.setattr(type(sys.stderr), "isatty", lambda self: True, raising=False)
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True, raising=False)


@pytest.fixture
def labels_file(tmp_path, fleiss_1971):
    path = tmp_path / "labels.csv"
    fleiss_labels(fleiss_1971).to_csv(path, index=False)
    return path


def _agreement(run_cli, labels_file, *extra):
    code, out, err = run_cli("analyze", "agreement", str(labels_file), "--bootstrap", "300", *extra)
    assert code == 0, err
    return out, err


def test_summary_on_a_terminal_shows_the_bar(run_cli, labels_file, terminal):
    out, err = _agreement(run_cli, labels_file)
    assert BAR in err and BAR not in out


def test_json_prints_no_bar(run_cli, labels_file, terminal):
    out, err = _agreement(run_cli, labels_file, "--json")
    assert err == "" and BAR not in out


def test_json_with_progress_asked_shows_it_on_stderr(run_cli, labels_file, terminal):
    out, err = _agreement(run_cli, labels_file, "--json", "--progress")
    assert BAR in err and BAR not in out
    _, err = _agreement(run_cli, labels_file, "--no-progress")
    assert err == ""


def test_a_notebook_call_prints_nothing_unless_asked(fleiss_1971, capsys, terminal):
    labels = fleiss_labels(fleiss_1971)
    quiet = wa.agreement(labels, bootstrap=300)
    seen = capsys.readouterr()
    assert seen.out == "" and seen.err == ""
    loud = wa.agreement(labels, bootstrap=300, progress=True)
    seen = capsys.readouterr()
    assert BAR in seen.err and seen.out == ""
    assert loud.to_frame("per_category").equals(quiet.to_frame("per_category"))  # the bar changes no number


def test_judge_run_bar_follows_the_same_default(run_cli, tmp_path, terminal):
    from tests.cli.test_judge import _items

    items = _items(tmp_path / "items.csv")
    base = ["judge", "run", str(items), "--judge", "normalized", "--out", str(tmp_path / "l.csv")]
    code, _, err = run_cli(*base)
    assert code == 0 and "normalized" in err  # the bar's name is the judge's id
    code, out, err = run_cli(*base, "--json")
    assert code == 0 and err == "", err
    code, _, err = run_cli(*base, "--json", "--progress")
    assert code == 0 and "normalized" in err
