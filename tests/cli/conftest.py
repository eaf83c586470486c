"""Good inputs the command tests break one thing of (``tests/support/bad_inputs.py``), built once
for the package, and the in-process runner with the temporary folder as current directory."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.bad_inputs import LABELS
from wordplay_audit.corpora.balderdash import SimConfig, simulate_to_folder
from wordplay_audit.corpora.demo import write_demo_corpus


@pytest.fixture(scope="package")
def good(tmp_path_factory) -> dict[str, Path]:
    """A small simulated Balderdash export, the demo Connections corpus and a labels file."""
    root = tmp_path_factory.mktemp("good")
    export = root / "export"
    simulate_to_folder(export, seed=3, config=SimConfig(games_per_deck=1, n_rounds=4, labels_per_stratum=3))
    corpus = write_demo_corpus(root / "connections")
    labels = root / "labels.csv"
    labels.write_text(LABELS)
    return {"export": export, "connections": corpus, "labels": labels}


@pytest.fixture(scope="package")
def more_good(good, tmp_path_factory) -> dict[str, Path]:
    """Items and judge labels from ``balderdash items``, a planned campaign, a WoF run."""
    from wordplay_audit.cli.main import main

    root = tmp_path_factory.mktemp("more")
    assert main(["balderdash", "items", str(good["export"]), "--out", str(root / "items")]) == 0
    items = root / "items" / "items.csv"
    assert (
        main(
            [
                "annotate",
                "plan",
                str(items),
                "--n",
                "10",
                "--raters",
                "a,b",
                "--out",
                str(root / "camp"),
                "--seed",
                "1",
            ]
        )
        == 0
    )
    assert main(["wof", "simulate", "--out", str(root / "wof"), "--games", "4", "--seed", "1"]) == 0
    return {
        "items": items,
        "judge_labels": root / "items" / "labels.csv",
        "human": good["export"] / "labels.csv",
        "campaign": root / "camp",
        "wof": root / "wof",
    }


@pytest.fixture
def in_tmp(run_cli, tmp_path, monkeypatch):
    """Run the CLI in-process with the temporary folder as the current directory."""
    monkeypatch.chdir(tmp_path)
    return run_cli
