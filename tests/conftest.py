"""Shared fixtures.

Outside data: tests marked ``shared`` read ``$WORDPLAY_AUDIT_SHARED`` (default ``../shared/corpora``
beside the checkout). Where it is absent they skip with the reason shown; with
``WORDPLAY_AUDIT_REQUIRE_SHARED=1`` (set by ``.ci/run``) its absence is a failure instead.

Markers (``pyproject.toml``): ``slow`` (a long simulation, or over about 5 s), ``server`` (the
Label Studio server), ``browser`` (Chromium), ``realjudge`` (the real model server,
``tests/judges/conftest.py``). ``make test`` runs ``-m "not slow and not server and not browser
and not realjudge"``, ``make test-all`` everything.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from wordplay_audit.cli.main import main as cli_main

REPO = Path(__file__).resolve().parent.parent

pytest.register_assert_rewrite("tests.support")  # the helpers' asserts report like the tests'
pytest_plugins = ["tests.support.ls_server"]  # the Label Studio server fixtures


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    """A test that uses the Label Studio server is marked ``server`` also where its module does not
    say so, before ``-m`` deselects: ``make test`` (``-m "not server …"``) never needs the server."""
    for item in items:
        if "label_studio" in getattr(item, "fixturenames", ()) and item.get_closest_marker("server") is None:
            item.add_marker(pytest.mark.server)


def shared_root() -> Path:
    return Path(os.environ.get("WORDPLAY_AUDIT_SHARED", REPO.parent / "shared" / "corpora"))


def _require(path: Path) -> Path:
    if path.exists():
        return path
    message = f"outside data not found at {path} (set WORDPLAY_AUDIT_SHARED)"
    if os.environ.get("WORDPLAY_AUDIT_REQUIRE_SHARED") == "1":
        pytest.fail(message + "; WORDPLAY_AUDIT_REQUIRE_SHARED=1 forbids skipping")
    pytest.skip(message)


@pytest.fixture(scope="session")
def connections_dir() -> Path:
    return _require(shared_root() / "connections")


@pytest.fixture(scope="session")
def wof_dir() -> Path:
    return _require(shared_root() / "wof")


@pytest.fixture
def run_cli(capsys):
    """Run the console entry point in-process; return (exit code, stdout, stderr)."""

    def run(*args: str) -> tuple[int, str, str]:
        code = cli_main(list(args))
        captured = capsys.readouterr()
        return code, captured.out, captured.err

    return run


@pytest.fixture(scope="session")
def fleiss_1971():
    """Fleiss (1971), "Measuring nominal scale agreement among many raters", Psychological
    Bulletin 76(5), Table 1: 30 patients, 6 psychiatrists each, 5 diagnoses (depression,
    personality disorder, schizophrenia, neurosis, other); cell = raters giving that diagnosis.
    Transcription as published in the quadagree R package (data_raw/fleiss1971.csv, "scraped by
    hand from Fleiss (1971)"); it reproduces every summary number the paper prints."""
    import numpy as np

    table = np.array(
        [
            [0, 0, 0, 6, 0], [0, 3, 0, 0, 3], [0, 1, 4, 0, 1], [0, 0, 0, 0, 6], [0, 3, 0, 3, 0],
            [2, 0, 4, 0, 0], [0, 0, 4, 0, 2], [2, 0, 3, 1, 0], [2, 0, 0, 4, 0], [0, 0, 0, 0, 6],
            [1, 0, 0, 5, 0], [1, 1, 0, 4, 0], [0, 3, 3, 0, 0], [1, 0, 0, 5, 0], [0, 2, 0, 3, 1],
            [0, 0, 5, 0, 1], [3, 0, 0, 1, 2], [5, 1, 0, 0, 0], [0, 2, 0, 4, 0], [1, 0, 2, 0, 3],
            [0, 0, 0, 0, 6], [0, 1, 0, 5, 0], [0, 2, 0, 1, 3], [2, 0, 0, 4, 0], [1, 0, 0, 4, 1],
            [0, 5, 0, 1, 0], [4, 0, 0, 0, 2], [0, 2, 0, 4, 0], [1, 0, 5, 0, 0], [0, 0, 0, 0, 6],
        ]
    )  # fmt: skip
    table.flags.writeable = False
    return table


def _tree_digest(folder: Path) -> str:
    """Hash of every path and file content under ``folder`` ("absent" when it does not exist)."""
    import hashlib

    if not folder.exists():
        return "absent"
    digest = hashlib.sha256()
    for path in sorted(folder.rglob("*")):
        digest.update(str(path.relative_to(folder)).encode())
        if path.is_file():
            digest.update(path.read_bytes())
    return digest.hexdigest()


@pytest.fixture(scope="session")
def tree_digest():
    """The folder-state hash used to show an output folder is exactly as before (or complete)."""
    return _tree_digest


def _load_benchmark(name: str):
    """A script of ``benchmarks/`` as a module of its own, loaded by its path."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(name, REPO / "benchmarks" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="session")
def load_benchmark():
    """Load a benchmark script by name: ``load_benchmark("sim_share_bound_lp")``."""
    return _load_benchmark
