"""``wordplay-audit connections score``: files absent, empty or cut off, and malformed input."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from tests.support import bad_inputs
from wordplay_audit.corpora.demo import write_demo_corpus


def _one_line(code: int, err: str, *needles: str) -> None:
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    for needle in needles:
        assert needle in lines[0], lines[0]


@pytest.fixture
def folder(tmp_path):
    return write_demo_corpus(tmp_path / "cx")


def test_absent_taxonomy_is_unknown_not_zero(folder, run_cli, tmp_path):
    (folder / "game_with_knowledge_taxonomy.json").unlink()
    code, out, err = run_cli(
        "connections", "score", "--data", str(folder), "--out", str(tmp_path / "o"), "--json"
    )
    assert code == 0, err
    data = json.loads(out)
    assert set(data["taxonomy_counts"].values()) == {None}  # was 0 for every type
    assert data["taxonomy_reason"] == "game_with_knowledge_taxonomy.json absent"
    table = pd.read_csv(tmp_path / "o" / "table1_knowledge_types.csv")
    assert table["categories"].isna().all()
    assert (table["reason"] == "n/a (game_with_knowledge_taxonomy.json absent)").all()


def test_empty_model_file_is_listed_with_a_reason(folder, run_cli, tmp_path):
    (folder / "model-b.json").write_text("[]")
    code, out, err = run_cli(
        "connections", "score", "--data", str(folder), "--out", str(tmp_path / "o"), "--json"
    )
    assert code == 0, err
    data = json.loads(out)
    entry = data["models"]["model-b"]  # was absent
    assert entry["unweighted_hist"] is None and "model-b.json" in entry["reason"]
    assert data["humans"]["novice"]["vs"]["model-b"]["games"] is None
    code, out, _ = run_cli("connections", "score", "--data", str(folder), "--out", str(tmp_path / "p"))
    assert "model-b" in out and "n/a (no answer" in out


def test_cut_off_raw_answers_are_an_error(folder, run_cli, tmp_path):
    raw = folder / "novice_raw.csv"
    text = raw.read_text()
    raw.write_text(text[: text.index("SATURN")])  # cut inside the quoted field of line 3
    code, _, err = run_cli("connections", "score", "--data", str(folder), "--out", str(tmp_path / "o"))
    _one_line(code, err, "novice_raw.csv line 3: a quoted field opened on this line is not closed")


# --- malformed input: one line, exit 2, the output folder as it was (tests/support/bad_inputs.py) ---


@pytest.mark.parametrize(
    ("command", "slot", "kind"), bad_inputs.malformed_cases("connections"), ids=bad_inputs.case_id
)
def test_malformed_input_gives_one_line_and_exit_2(good, tmp_path, in_tmp, command, slot, kind, tree_digest):
    bad_inputs.check_malformed_input(good, tmp_path, in_tmp, command, slot, kind, tree_digest)


@pytest.mark.parametrize("args", bad_inputs.bad_parameters("connections"), ids=bad_inputs.parameters_id)
def test_bad_parameters_give_one_line_and_exit_2(good, tmp_path, in_tmp, args, tree_digest):
    bad_inputs.check_bad_parameters(good, tmp_path, in_tmp, args, tree_digest)
