"""``wordplay-audit demo``: every analysis on the demo corpus, one HTML report, offline."""

from __future__ import annotations

from pathlib import Path

from wordplay_audit.analysis.connections_report import (
    MARKDOWN_TABLES,
    analyze_connections,
    connections_section,
    result_tables,
)
from wordplay_audit.analysis.report import Report
from wordplay_audit.analysis.report.outputs import write_outputs
from wordplay_audit.corpora.connections import read_connections
from wordplay_audit.corpora.contract import read_labels
from wordplay_audit.corpora.demo import write_demo_corpus


def run_demo(out_dir: str | Path, *, seed: int = 0) -> dict:
    """Write the demo corpus under ``out_dir``, run every analysis on it; return a summary with
    the report's path."""
    out_dir = Path(out_dir)
    report = Report(
        "wordplay-audit demo",
        intro="Original puzzles in the Connections format, two invented models, simulated raters "
        "and a simulated Balderdash campaign. Nothing here is real study data.",
    )
    summary: dict = {}
    corpus = write_demo_corpus(out_dir / "connections-demo")
    result = analyze_connections(read_connections(corpus), match="exact")
    report.add(connections_section(result, title="Connections (demo corpus)"))
    summary["connections"] = {m: s["unweighted_hist"] for m, s in result.models.items()}
    tables = {f"connections/{k}": v for k, v in result_tables(result).items()}
    figures = {f"connections_{k}": v for k, v in result.figures.items()}

    labels = read_labels(corpus / "knowledge_type_labels.csv")
    summary["knowledge_type_labels"] = int(len(labels))
    for part in _optional_parts():
        part_summary, section, part_tables = part(labels=labels, out_dir=out_dir, seed=seed)
        summary.update(part_summary)
        report.add(section)
        tables.update(part_tables)

    paths = write_outputs(out_dir, tables=tables, figures=figures, report=report,
                          markdown=tuple(f"connections/{k}" for k in MARKDOWN_TABLES))
    summary["report"] = str(paths["report.html"])
    return summary


def _agreement_part(*, labels, out_dir, seed):
    """Agreement of the three simulated linguists on the demo's knowledge-type labels."""
    from wordplay_audit.analysis.agreement import agreement, majority_vote
    from wordplay_audit.analysis.agreement.section import agreement_section

    result = agreement(labels, n_boot=1000, seed=seed)
    consensus = majority_vote(labels)
    summary = {
        "agreement": {
            name: round(getattr(result, name).value, 3)
            for name in ("fleiss_kappa", "krippendorff_alpha", "gwet_ac1")
        }
    }
    section = agreement_section(result, title="Agreement: three simulated linguists label knowledge types")
    return summary, section, {"agreement/consensus": consensus}


def _balderdash_part(*, labels, out_dir, seed):
    """A simulated Balderdash campaign written in the export format, read back and audited."""
    from wordplay_audit.analysis.balderdash.report import run_demo_part

    del labels
    summary, section = run_demo_part(out_dir, seed=seed)
    return {"balderdash": summary}, section, {}


def _optional_parts():
    """The demo parts of the other analyses."""
    return [_agreement_part, _balderdash_part]
