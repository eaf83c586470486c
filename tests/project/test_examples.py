"""The examples in docs/examples run as a researcher would run them (``python
docs/examples/NAME.py --out DIR``), use only the public API, print one JSON object of their key
results, and stay short (user code ≤ about 40 lines)."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "examples"
NAMES = ("balderdash_audit", "connections_judge_audit", "wof_recompute")


def user_lines(source: str) -> int:
    """Lines of code other than the docstring, imports and the argument parsing."""
    tree = ast.parse(source)
    lines = set()
    for node in tree.body:
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            continue
        if isinstance(node, ast.Import | ast.ImportFrom):
            continue
        text = ast.get_source_segment(source, node) or ""
        if "argparse" in text or text.startswith(("parser.", "args =", "out = parser")):
            continue
        lines.update(range(node.lineno, node.end_lineno + 1))
    return len(lines)


@pytest.mark.parametrize("name", NAMES)
def test_example_uses_only_the_public_api_and_is_short(name):
    source = (EXAMPLES / f"{name}.py").read_text(encoding="utf-8")
    modules = [n.module or "" for n in ast.walk(ast.parse(source)) if isinstance(n, ast.ImportFrom)]
    modules += [a.name for n in ast.walk(ast.parse(source)) if isinstance(n, ast.Import) for a in n.names]
    assert all(not m.startswith("wordplay_audit.") for m in modules), modules
    assert user_lines(source) <= 42, user_lines(source)


def _run(name: str, out: Path, *extra: str) -> dict:
    done = subprocess.run([sys.executable, str(EXAMPLES / f"{name}.py"), "--out", str(out), *extra],
                          capture_output=True, text=True, timeout=1800, env=os.environ.copy())  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)


@pytest.mark.slow
def test_balderdash_audit_example(tmp_path):
    found = _run("balderdash_audit", tmp_path)
    assert found["sampled"] == 300 and found["labels"] == 2 * 300 * 2  # two raters, two questions each
    assert 0.5 < found["fleiss_kappa"] < 0.9  # raters 90 % accurate on the simulation's truth
    assert {r["model"] for r in found["tdr_corrected"]} == {"gemma-2-9b", "gpt-4o-mini", "llama-3-8b"}
    assert all(r["ppi_low"] <= r["ppi"] <= r["ppi_high"] for r in found["tdr_corrected"])
    assert (Path(found["report"])).is_file()


@pytest.mark.slow
@pytest.mark.shared
def test_connections_judge_audit_example(tmp_path, connections_dir):
    found = _run("connections_judge_audit", tmp_path, "--data", str(connections_dir))
    assert set(found["models"]) == {"claude3.5sonnet", "gemini1.5pro", "gpt4o", "gpt_strawberry", "llama3.1405B",
                                    "mistral2large"}  # fmt: skip
    assert found["cv"]["specificity"] > 0.5  # not a constant judge
    for model in found["models"].values():
        corrected = model["cr_corrected"]
        assert corrected["ci_low"] <= corrected["value"] <= corrected["ci_high"]
        assert model["n_human_labelled"] > 0


@pytest.mark.slow
def test_wof_recompute_example(tmp_path):
    found = _run("wof_recompute", tmp_path)
    assert set(found) == {"frequent-consonant", "random", "overconfident"}
    for model in found.values():
        assert model["corrected_low"] <= model["corrected"] <= model["corrected_high"]
        assert model["exact_match"] <= model["true"]  # an exact match is always a true win
