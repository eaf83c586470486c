"""The simulation and benchmark results the docs cite are data files under benchmarks/results/:
each one the docs name exists, parses as a table, and says where it came from (a header
comment naming the script of benchmarks/ (or tests/) that produced it, which exists, or for the older files without a header, a
script that writes that file name)."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "benchmarks" / "results"
DOCS = sorted((ROOT / "docs").rglob("*.md"))
CITED = re.compile(r"benchmarks/results/([\w./-]+\.(?:csv|json))")
NAMED = re.compile(r"\[`([\w.-]+\.(?:csv|json))`\]\(")


def cited_files() -> set[str]:
    names = set()
    for page in DOCS:
        text = page.read_text(encoding="utf-8")
        names |= set(CITED.findall(text)) | set(NAMED.findall(text))
    return names


def result_files() -> list[Path]:
    return sorted(p for p in RESULTS.glob("*.csv"))


def test_every_cited_results_file_exists():
    missing = sorted(n for n in cited_files() if not (RESULTS / n).is_file())
    assert not missing, missing


@pytest.mark.parametrize("path", result_files(), ids=lambda p: p.name)
def test_results_file_parses_and_names_its_source(path):
    table = pd.read_csv(path, comment="#")
    assert len(table) > 0 and len(table.columns) > 1
    lines = path.read_text(encoding="utf-8").splitlines()
    header = [line for line in lines if line.startswith("#")]
    if header:  # the first script the header names (a benchmark, or the test whose loop it ran) exists
        script = re.search(r"(benchmarks|tests)/([\w/]+)\.py", "\n".join(header))
        assert script and (ROOT / f"{script.group(0)}").is_file(), header[0]
    else:  # files a script writes under this name
        writers = [
            p for p in (ROOT / "benchmarks").glob("*.py") if path.name in p.read_text(encoding="utf-8")
        ]
        assert writers, f"{path.name}: no header comment and no benchmark script writes it"
