"""``wordplay-audit demo``: every analysis on the project's own demo corpus, one HTML report,
offline. Everything is written into one output transaction (:func:`output_folder`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from wordplay_audit.analysis.report import Report, Section
from wordplay_audit.corpora.io import output_folder
from wordplay_audit.workflow.files import write_outputs
from wordplay_audit.workflow.results import Result, plain
from wordplay_audit.workflow.text import number

Part = Callable[..., tuple[dict[str, Any], Section, dict]]


@dataclass
class Demo(Result):
    """What the demo found on its corpus, and where its report is."""

    title = "demo"

    found: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        return plain(self.found)

    def summary(self) -> list[str]:
        lines = [f"{part}: {_text(value)}" for part, value in self.found.items() if part != "report"]
        return [*lines, f"report written to {self.found['report']}"]


def _text(value: Any) -> str:
    """A summary value as readable text: numbers rounded, mappings as ``key value`` pairs."""
    if isinstance(value, dict):
        return "; ".join(f"{k} {_text(v)}" for k, v in value.items())
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_text(v) for v in value) + "]"
    return number(value) if isinstance(value, float | int) and not isinstance(value, bool) else str(value)


def _connections_part(*, folder: Path, seed: int):
    """The demo puzzles written in the study's layout, read back by the real reader, scored."""
    from wordplay_audit.analysis.connections import (
        MARKDOWN_TABLES,
        analyze_connections,
        connections_section,
        result_tables,
    )
    from wordplay_audit.corpora.connections import read_connections
    from wordplay_audit.corpora.demo import write_demo_corpus

    del seed
    corpus = write_demo_corpus(folder / "connections-demo")
    result = analyze_connections(read_connections(corpus), match="exact")
    section = connections_section(result, title="Connections (demo corpus)")
    summary = {"connections": {m: s["unweighted_hist"] for m, s in result.models.items()}}
    tables = {f"connections/{k}": v for k, v in result_tables(result).items()}
    figures = {f"connections_{k}": v for k, v in result.figures.items()}
    markdown = tuple(f"connections/{k}" for k in MARKDOWN_TABLES)
    return summary, section, {"tables": tables, "figures": figures, "markdown": markdown}


def _judge_part(*, folder: Path, seed: int):
    """TF-IDF and an LLM judge (local server) on the demo's category names, audited."""
    from wordplay_audit.workflow.demo_parts import judge_part

    return judge_part(folder, seed=seed)


def _agreement_part(*, folder: Path, seed: int):
    """Agreement of the three simulated linguists on the demo's knowledge-type labels."""
    from wordplay_audit.analysis.agreement import BootstrapOptions, agreement, majority_vote
    from wordplay_audit.analysis.agreement.section import agreement_section
    from wordplay_audit.corpora.contract import read_labels

    labels = read_labels(folder / "connections-demo" / "knowledge_type_labels.csv")
    result = agreement(labels, bootstrap=BootstrapOptions(n_boot=1000, seed=seed))
    summary = {
        "knowledge_type_labels": int(len(labels)),
        "agreement": {
            name: round(getattr(result, name).value, 3)
            for name in ("fleiss_kappa", "krippendorff_alpha", "gwet_ac1")
        },
    }
    section = agreement_section(result, title="Agreement: three simulated linguists label knowledge types")
    return summary, section, {"tables": {"agreement/consensus": majority_vote(labels)}}


def _balderdash_part(*, folder: Path, seed: int):
    """A simulated Balderdash campaign written in the export format, read back and audited."""
    from wordplay_audit.workflow.demo_parts import balderdash_part

    summary, section = balderdash_part(folder / "balderdash", seed=seed)
    return {"balderdash": summary}, section, {}


def _wof_part(*, folder: Path, seed: int):
    """Simulated LLMike runs on the demo riddles, read back, measured, audited and corrected."""
    from wordplay_audit.workflow.demo_parts import wof_part

    summary, section = wof_part(folder / "wof", seed=seed)
    return {"wof": summary}, section, {}


PARTS: tuple[Part, ...] = (_connections_part, _judge_part, _agreement_part, _balderdash_part, _wof_part)


def run_demo(out_dir: str | Path, *, seed: int = 0) -> Demo:
    """Run every part on the demo corpus into ``out_dir`` (replaced whole, or left as it was on
    an error or interrupt); return its summary with the report's path."""
    report = Report(
        "wordplay-audit demo",
        intro="Original puzzles in the Connections format, two invented models, simulated raters "
        "and a simulated Balderdash campaign. Nothing here is real study data.",
    )
    summary: dict = {}
    tables: dict = {}
    figures: dict = {}
    markdown: tuple[str, ...] = ()
    with output_folder(out_dir, option="out") as staging:
        for part in PARTS:
            part_summary, section, files = part(folder=staging, seed=seed)
            summary.update(part_summary)
            report.add(section)
            tables.update(files.get("tables", {}))
            figures.update(files.get("figures", {}))
            markdown += tuple(files.get("markdown", ()))
        write_outputs(staging, tables=tables, figures=figures, report=report, markdown=markdown)
    summary = _relocated(summary, str(staging), str(Path(out_dir)))  # paths where they ended up
    summary["report"] = str(Path(out_dir) / "report.html")
    return Demo(summary)


def _relocated(value, staging: str, final: str):
    """``value`` with every path string under the staging folder moved to the final folder.

    >>> _relocated({"a": ["/t/.x.staging/wof", 3]}, "/t/.x.staging", "/t/x")
    {'a': ['/t/x/wof', 3]}
    """
    if isinstance(value, dict):
        return {k: _relocated(v, staging, final) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return type(value)(_relocated(v, staging, final) for v in value)
    if isinstance(value, str) and (value == staging or value.startswith(staging + "/")):
        return final + value[len(staging) :]
    return value
