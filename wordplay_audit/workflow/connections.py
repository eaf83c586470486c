"""The Connections study from Python: read the released files, score every model and human
player (Tables 1 and 5 reproduced, the data-quality audit), and the scored groups as contract
items (category names with the study's decisions, knowledge types).

In a notebook::

    import wordplay_audit as wa
    data = wa.read_connections("../shared/corpora/connections")
    wa.connections_score(data).models["gpt4o"]["unweighted_hist"]   # [112, 140, 111, 10, 65]
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import pandas as pd

from wordplay_audit.workflow.items import Items
from wordplay_audit.workflow.results import Result, plain
from wordplay_audit.workflow.text import number

__all__ = [
    "ConnectionsRecompute",
    "ConnectionsScore",
    "connections_items",
    "connections_recompute",
    "connections_score",
    "read_connections",
]

Match = Literal["exact", "casefold"]


def read_connections(data: str | Path):
    """Read the study's folder (gold, taxonomy, model answers, human players) into
    :class:`~wordplay_audit.corpora.connections.ConnectionsData`; quirks are counted."""
    from wordplay_audit.corpora.connections import read_connections as read

    return read(data)


@dataclass
class ConnectionsScore(Result):
    """Every model's and human level's scores, Tables 1 and 5 reproduced, the audit."""

    title = "Connections"
    main_table = "table5_unweighted"

    source: str
    result: Any  # analysis.connections.ConnectionsResult

    @property
    def models(self) -> dict[str, dict]:
        return self.result.models

    def tables(self) -> dict[str, pd.DataFrame]:
        from wordplay_audit.analysis.connections import result_tables

        return result_tables(self.result)

    def figures(self) -> dict[str, bytes]:
        return dict(self.result.figures)

    def to_dict(self) -> dict[str, Any]:
        return plain(self.result.to_dict())

    def summary(self) -> list[str]:
        summary = self.to_dict()
        lines = [f"{summary['games']} games scored ({summary['match']} matching)"]
        for model, info in summary["models"].items():
            if info["reason"] is not None:  # a model file without answers: unknown, not 0
                lines.append(f"  {model:18s} n/a ({info['reason']})")
                continue
            ratio = number(info["reasoning_ratio"], "no game with a group")
            lines.append(f"  {model:18s} unweighted {info['unweighted_hist']}  reasoning ratio {ratio}")
        if summary["taxonomy_reason"] is not None:
            lines.append(f"  Table 1: n/a ({summary['taxonomy_reason']})")
        else:
            lines.append("  Table 1: " + ", ".join(f"{k} {v}" for k, v in summary["taxonomy_counts"].items()))
        for row in summary["table5"]:
            if row["reason"] is not None:
                lines.append(f"  Table 5 {row['model']}: n/a ({row['reason']})")
                continue
            verdict = "agrees" if row["agrees"] else "DIFFERS"
            lines.append(f"  Table 5 {row['model']}: {verdict} (explained games {row['explained_games']})")
        for level, info in summary["humans"].items():
            lines.append(
                f"  {level}: {info['answers']} answers to {info['games']} games; "
                f"{info['games_without_raw_answer']} games of {level}.json without a raw answer (left out)"
            )
        return lines

    def section(self):
        from wordplay_audit.analysis.connections import connections_section

        return connections_section(self.result)

    def write(self, out: str | Path, *, title: str | None = None) -> list[str]:
        """Score CSVs, Markdown tables, plots and ``report.html`` into ``out`` in one step."""
        from wordplay_audit.analysis.connections import MARKDOWN_TABLES
        from wordplay_audit.analysis.report import Report
        from wordplay_audit.corpora.io import output_folder
        from wordplay_audit.workflow.files import write_outputs

        report = Report(title or "wordplay-audit: Connections", intro=f"Data: {self.source}")
        report.add(self.section())
        with output_folder(out, option="out") as staging:
            written = write_outputs(staging, tables=self.tables(), figures=self.figures(), report=report,
                                    markdown=MARKDOWN_TABLES)  # fmt: skip
        return sorted(str(p) for p in written.values())


def connections_score(data, *, match: Match = "exact") -> ConnectionsScore:
    """Score every model and human player of the study (``data`` from
    :func:`read_connections`, or its folder), reproduce Tables 1 and 5, audit the files.
    ``match``: ``exact`` (case-sensitive, the study's rule) or ``casefold``."""
    from wordplay_audit.analysis.connections import MATCH_MODES, analyze_connections
    from wordplay_audit.errors import check_choice

    check_choice("match", match, MATCH_MODES)  # before the files are read
    if isinstance(data, str | Path):
        source, data = str(data), read_connections(data)
    else:
        source = str(getattr(data, "folder", "connections data"))
    return ConnectionsScore(source, analyze_connections(data, match=match))


def connections_items(data, *, match: Match = "exact") -> Items:
    """The scored groups as contract items: ``category_name`` items (a model's name for a group
    it reproduced, against the gold name; the study's human decision as a label of rater
    ``study-judge``) and ``knowledge_type`` items (each gold category, the linguists' majority
    label as rater ``linguists-majority``)."""
    score = connections_score(data, match=match)
    strata = ("player_model", "difficulty", "knowledge_type")
    return Items(score.source, score.result.items, score.result.labels, {}, strata)


@dataclass
class ConnectionsRecompute(Result):
    """Per model the categorical-reasoning (CR) score under the study's decisions, under the
    judge, and corrected by the human sample with its interval; Table 2's reasoned share per
    knowledge type likewise; Table 1 and the linguists' agreement under a relabelled taxonomy."""

    title = "Connections: categorical reasoning recomputed"
    main_table = "models"

    source: str
    result: Any  # analysis.connections.recompute.CategoricalRecompute
    seed: int = 0  # of the randomised intervals

    def tables(self) -> dict[str, pd.DataFrame]:
        table1 = pd.DataFrame(
            {"knowledge_type": list(self.result.table1), "categories": list(self.result.table1.values())}
        )
        return {"models": self.result.models, "table2": self.result.table2, "table1": table1}

    def to_dict(self) -> dict[str, Any]:
        models = [
            {
                "model": r["model"],
                "games": r["games"],
                "cr_study_mean": r["cr_study"],
                "cr_judge_mean": r["judge"],
                "cr_corrected_mean": {"value": r["estimate"], "ci_low": r["ci_low"], "ci_high": r["ci_high"],
                                      "reason": r["reason"], "unknown": r["unknown"]},
                "n_items": r["n"],
                "n_human_labelled": r["n_labelled"],
            }
            for r in self.result.models.to_dict(orient="records")
        ]  # fmt: skip
        return plain({"data": self.source, "confidence": self.result.confidence, "seed": self.seed, "models": models,
                      "table2": self.result.table2, "table1": self.result.table1, "counts": self.result.counts})  # fmt: skip

    def summary(self) -> list[str]:
        from wordplay_audit.workflow.text import aligned, interval

        level = round(100 * self.result.confidence)
        rows = [["model", "games", "CR study", "CR judge", f"CR corrected [{level} %]", "labelled"]]
        for r in self.result.models.to_dict(orient="records"):
            rows.append([r["model"], r["games"], number(r["cr_study"]), number(r["judge"]),
                         interval(r["estimate"], r["ci_low"], r["ci_high"], r["reason"] if r["n_labelled"] else "no human labels"),
                         f"{number(r['n_labelled'])} of {number(r['n'])}"])  # fmt: skip
        c = self.result.counts
        lines = [
            f"categorical reasoning per game (judge {c.get('judge')!r}; taxonomy: {c.get('taxonomy')}):",
            *aligned(rows, indent="  "),
        ]
        left = {
            k: c[k]
            for k in (
                "items_without_verdict",
                "unparsed_verdicts",
                "human_ties",
                "human_adjudicated",
                "human_rows_on_other_items",
            )
            if c.get(k)
        }
        if left:
            lines.append("counted: " + ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in left.items()))
        agreement = c.get("taxonomy_agreement")
        if agreement:
            kappa = agreement["fleiss_kappa"]
            said = (
                number(kappa)
                if kappa is not None
                else f"not computed ({agreement.get('fleiss_kappa_reason')})"
            )
            raters = f"{agreement['raters']} raters" if agreement["raters"] is not None else "final labels"
            lines.append(f"taxonomy: {raters} on {agreement['categories_labelled']} categories, Fleiss' kappa "
                         f"{said} (paper: {agreement['paper_kappa']}), ties {agreement['human_ties']}")  # fmt: skip
            lines.append("Table 1: " + ", ".join(f"{k} {v}" for k, v in self.result.table1.items()))
        from wordplay_audit.analysis.correction import SEED_NOTE

        lines.append(SEED_NOTE.format(seed=self.seed))
        return lines


def connections_recompute(
    data,
    *,
    judge_labels: pd.DataFrame | None = None,
    human: pd.DataFrame | None = None,
    taxonomy: pd.DataFrame | None = None,
    match: Match = "exact",
    confidence: float = 0.95,
    seed: int | None = None,
) -> ConnectionsRecompute:
    """The categorical-reasoning score per model and Table 2 recomputed: under ``judge_labels``
    (any judge's verdicts on the ``category_name`` items of :func:`connections_items`; default:
    the study's own decisions) corrected by ``human`` (people's labels on a sample of the items,
    or a panel's on all: one label per item by majority); with ``taxonomy`` (knowledge-type
    labels of several linguists on the ``knowledge_type`` items) Tables 1 and 2 under their
    consensus and their Fleiss' κ beside the paper's 0.78. ``seed``: of the randomised intervals;
    None (default) draws a fresh one per run, recorded in the result."""
    from wordplay_audit.analysis.connections import MATCH_MODES, analyze_connections, match_groups
    from wordplay_audit.analysis.connections.recompute import recompute_categorical
    from wordplay_audit.analysis.correction import randomisation_seed
    from wordplay_audit.errors import check_choice, check_level

    check_choice("match", match, MATCH_MODES)
    check_level(confidence)
    seed = randomisation_seed(seed)
    source = str(data) if isinstance(data, str | Path) else str(getattr(data, "folder", "connections data"))
    if isinstance(data, str | Path):
        data = read_connections(data)
    if judge_labels is None:  # the study's single human judge as the judge
        judge_labels = analyze_connections(data, match=match, plots=False).labels
    result = recompute_categorical(data, match_groups(data, match=match), judge_labels, human, taxonomy=taxonomy,
                                   confidence=confidence, seed=seed)  # fmt: skip
    return ConnectionsRecompute(source, result, seed)
