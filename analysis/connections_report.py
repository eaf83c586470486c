"""The whole Connections analysis as one result object, its tables, plots and report section."""

from __future__ import annotations

from dataclasses import dataclass, field

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from wordplay_audit.analysis.connections import (  # noqa: E402
    TAXONOMY_COLUMNS,
    game_scores,
    histogram,
    human_scores,
    knowledge_type_success,
    match_groups,
    paired_tests,
    reasoning_ratio,
    taxonomy_counts,
)
from wordplay_audit.analysis.connections_audit import (  # noqa: E402
    PUBLISHED_TABLE1,
    published_deviations,
    quality_audit,
    table5_check,
)
from wordplay_audit.analysis.report import Bullets, Figure, Paragraph, Section, Table, figure_png  # noqa: E402
from wordplay_audit.corpora.connections import MODEL_NAMES, ConnectionsData, to_contract  # noqa: E402


@dataclass
class ConnectionsResult:
    """Everything ``wordplay-audit connections score`` reports."""

    match: str
    games: int
    scores: pd.DataFrame
    models: dict[str, dict]
    taxonomy: dict[str, int]
    knowledge_success: pd.DataFrame
    human: pd.DataFrame
    humans: dict[str, dict]
    table5: pd.DataFrame
    deviations: pd.DataFrame
    quality_summary: pd.DataFrame
    quality_details: pd.DataFrame
    items: pd.DataFrame
    labels: pd.DataFrame
    figures: dict[str, bytes] = field(default_factory=dict)

    def to_json(self) -> dict:
        quality: dict[str, int] = {}
        for row in self.quality_summary.itertuples(index=False):
            quality[row.issue] = quality.get(row.issue, 0) + int(row.count)
        return {
            "games": self.games,
            "match": self.match,
            "models": self.models,
            "taxonomy_counts": self.taxonomy,
            "humans": self.humans,
            "table5": self.table5.to_dict(orient="records"),
            "published_deviations": self.deviations.to_dict(orient="records"),
            "quality": quality,
            "quality_by_file": {
                f"{r.file}: {r.issue}": int(r.count) for r in self.quality_summary.itertuples(index=False)
            },
        }


def analyze_connections(data: ConnectionsData, *, match: str = "exact", plots: bool = True) -> ConnectionsResult:
    """Score every model and human answer, build the tables, the audit and (optionally) plots."""
    matched = match_groups(data, match=match)
    scores = game_scores(data, matched)
    models = {}
    for model, group in scores.groupby("model"):
        models[model] = {
            "unweighted_hist": histogram(group["unweighted"], 5),
            "weighted_hist": histogram(group["weighted"], 11),
            "categorical_hist": histogram(group["categorical"], 5),
            "reasoning_ratio": reasoning_ratio(group),
            "mean_unweighted": float(group["unweighted"].mean()),
            "mean_weighted": float(group["weighted"].mean()),
            "mean_categorical": float(group["categorical"].mean()),
        }
    human = human_scores(data, match=match)
    humans = {}
    for level, group in human.groupby("level", sort=False):
        humans[level] = {
            "games": int(group["game_key"].nunique()),
            "answers": int(len(group)),
            "unweighted_hist": histogram(group["unweighted"], 5),
            "vs": {
                model: paired_tests(group, scores[scores["model"] == model]) for model in sorted(models)
            },
        }
    deviations = published_deviations(data, matched, scores)
    other = "casefold" if match == "exact" else "exact"
    other_scores = game_scores(data, match_groups(data, match=other))
    summary, details = quality_audit(
        data, matched, scores, human, casefold_scores=other_scores if match == "exact" else None
    )
    items, labels = to_contract(data, matched)
    result = ConnectionsResult(
        match=match,
        games=int(data.games["scored"].sum()),
        scores=scores,
        models=models,
        taxonomy=taxonomy_counts(data),
        knowledge_success=knowledge_type_success(data, matched),
        human=human,
        humans=humans,
        table5=table5_check(scores, deviations),
        deviations=deviations,
        quality_summary=summary,
        quality_details=details,
        items=items,
        labels=labels,
    )
    if plots:
        result.figures = connections_figures(result)
    return result


def _label(model: str) -> str:
    return MODEL_NAMES.get(model, model)


def connections_figures(result: ConnectionsResult) -> dict[str, bytes]:
    """PNG plots: score distributions and per-knowledge-type success."""
    figures = {}
    models = sorted(result.models)
    fig, ax = plt.subplots(figsize=(8, 3.8))
    width = 0.8 / max(len(models), 1)
    for i, model in enumerate(models):
        hist = np.asarray(result.models[model]["unweighted_hist"])
        ax.bar(np.arange(5) + i * width - 0.4 + width / 2, hist / hist.sum(), width, label=_label(model))
    ax.set_xticks(range(5))
    ax.set_xlabel("unweighted clustering score (gold groups reproduced)")
    ax.set_ylabel("share of games")
    ax.legend(fontsize=7)
    ax.set_title(f"Clustering scores over {result.games} games")
    figures["unweighted_scores"] = figure_png(fig)

    success = result.knowledge_success
    if not success.empty:
        fig, ax = plt.subplots(figsize=(9, 4))
        columns = [c for c in TAXONOMY_COLUMNS if c in set(success["knowledge_type"])]
        for i, model in enumerate(models):
            mine = success[success["model"] == model].set_index("knowledge_type").reindex(columns)
            ax.bar(np.arange(len(columns)) + i * width - 0.4 + width / 2, mine["reasoned_share"], width, label=_label(model))
        ax.set_xticks(range(len(columns)))
        ax.set_xticklabels([c.replace(" + ", " +\n").replace("/", "/\n") for c in columns], fontsize=7)
        ax.set_ylabel("share clustered and named correctly")
        ax.set_ylim(0, 1)
        ax.legend(fontsize=7)
        ax.set_title("Categories both clustered and reasoned correctly, by knowledge type")
        figures["knowledge_type_success"] = figure_png(fig)
    return figures


def result_tables(result: ConnectionsResult) -> dict[str, pd.DataFrame]:
    """The tables written by ``connections score`` (name → frame)."""
    tables: dict[str, pd.DataFrame] = {}
    for model, group in result.scores.groupby("model"):
        tables[f"scores_{model}"] = group[
            ["game_index", "game_key", "unweighted", "weighted", "categorical", "stored_score", "status", "malformed"]
        ]
    rows = []
    for model, summary in result.models.items():
        rows.append(
            {"model": _label(model), "file": model, **{str(i): v for i, v in enumerate(summary["unweighted_hist"])},
             "mean": summary["mean_unweighted"], "reasoning_ratio": summary["reasoning_ratio"]}
        )
    tables["table5_unweighted"] = pd.DataFrame(rows)
    tables["weighted_hist"] = pd.DataFrame(
        [{"model": _label(m), **{str(i): v for i, v in enumerate(s["weighted_hist"])}} for m, s in result.models.items()]
    )
    tables["categorical_hist"] = pd.DataFrame(
        [{"model": _label(m), **{str(i): v for i, v in enumerate(s["categorical_hist"])}} for m, s in result.models.items()]
    )
    table1 = pd.DataFrame({"knowledge_type": list(result.taxonomy), "categories": list(result.taxonomy.values())})
    table1["published"] = pd.array([PUBLISHED_TABLE1.get(k) for k in result.taxonomy], dtype="Int64")
    tables["table1_knowledge_types"] = table1
    tables["knowledge_type_success"] = result.knowledge_success
    tables["table5_check"] = result.table5.assign(
        **{c: result.table5[c].map(lambda v: " ".join(map(str, v))) for c in
           ("recomputed", "explained_games", "recomputed_with_explained_games_as_published", "published")}
    ) if not result.table5.empty else result.table5
    tables["published_deviations"] = result.deviations
    human_rows = []
    for level, summary in result.humans.items():
        for model, vs in summary["vs"].items():
            human_rows.append(
                {"level": level, "model": _label(model), "games": vs["games"], "mean_human": vs["mean_human"],
                 "mean_model": vs["mean_model"], "wilcoxon_p": vs["wilcoxon_p"], "mcnemar_p": vs["mcnemar_p"]}
            )
    tables["humans_vs_models"] = pd.DataFrame(human_rows)
    tables["human_scores"] = result.human
    tables["quality_summary"] = result.quality_summary
    tables["quality_details"] = result.quality_details
    tables["items"] = result.items
    tables["labels"] = result.labels
    return tables


MARKDOWN_TABLES = (
    "table5_unweighted",
    "table1_knowledge_types",
    "knowledge_type_success",
    "table5_check",
    "published_deviations",
    "humans_vs_models",
    "quality_summary",
)


def connections_section(result: ConnectionsResult, *, title: str = "Connections: scores recomputed from the raw answers") -> Section:
    """The report section: tables, plots and the data-quality audit."""
    tables = result_tables(result)
    blocks = [
        Paragraph(
            f"{result.games} games scored; words compared {'exactly (case-sensitive)' if result.match == 'exact' else 'ignoring case'}. "
            "Unweighted = gold groups reproduced exactly (0–4); weighted = yellow 1 … purple 4; categorical = "
            "groups reproduced and named equivalently by the human judge."
        ),
        Table(tables["table5_unweighted"], caption="Frequency of unweighted clustering scores (Table 5), with the reasoning ratio"),
    ]
    if "unweighted_scores" in result.figures:
        blocks.append(Figure(result.figures["unweighted_scores"], caption="Distribution of unweighted scores"))
    if not result.table5.empty:
        blocks.append(Table(tables["table5_check"], caption="Recomputed vs published Table 5"))
    if not result.deviations.empty:
        blocks.append(Table(result.deviations, caption="Games where the published table departs from the recomputation"))
    blocks += [
        Table(tables["weighted_hist"], caption="Weighted clustering score frequency (0–10)"),
        Table(tables["categorical_hist"], caption="Categorical reasoning score frequency (0–4)"),
        Table(tables["table1_knowledge_types"], caption="Knowledge types of the gold categories (Table 1)"),
        Table(result.knowledge_success, caption="Share of categories clustered / clustered and named correctly"),
    ]
    if "knowledge_type_success" in result.figures:
        blocks.append(Figure(result.figures["knowledge_type_success"], caption="Clustered and reasoned correctly, by knowledge type"))
    if not tables["humans_vs_models"].empty:
        blocks.append(
            Table(
                tables["humans_vs_models"],
                caption="Human players vs models on the same games (Wilcoxon signed-rank on the unweighted score; "
                "exact McNemar on solving all four)",
            )
        )
    blocks.append(Table(result.quality_summary, caption="Data-quality audit: inconsistencies per file"))
    explained = [
        f"{r.model}, game {r.game_index}: recomputed {r.recomputed}, published {r.published} — {r.reason}"
        for r in result.deviations.itertuples(index=False)
    ]
    if explained:
        blocks.append(Bullets(explained))
    return Section(title, blocks)
