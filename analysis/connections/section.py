"""The tables written by ``connections score`` and the report section. Both only lay out a
precomputed :class:`ConnectionsResult`; nothing is recomputed here."""

from __future__ import annotations

import pandas as pd

from wordplay_audit.analysis.connections.figures import model_label
from wordplay_audit.analysis.connections.published import PUBLISHED_TABLE1
from wordplay_audit.analysis.connections.result import ConnectionsResult
from wordplay_audit.analysis.report import Bullets, Figure, Paragraph, Section, Table

MARKDOWN_TABLES = (
    "table5_unweighted",
    "table1_knowledge_types",
    "knowledge_type_success",
    "table5_check",
    "published_deviations",
    "humans_vs_models",
    "quality_summary",
)
"""The tables also written as Markdown."""

SCORE_COLUMNS = [
    "game_index",
    "game_key",
    "unweighted",
    "weighted",
    "categorical",
    "stored_score",
    "status",
    "malformed",
]
_LISTS = ("recomputed", "explained_games", "recomputed_with_explained_games_as_published", "published")


def _bins(hist: list[int] | None, size: int) -> dict[str, object]:
    """One column per score; empty (unknown, not 0) for a model without scores."""
    return (
        {str(i): v for i, v in enumerate(hist)} if hist is not None else dict.fromkeys(map(str, range(size)))
    )


def _histograms(result: ConnectionsResult) -> dict[str, pd.DataFrame]:
    rows = [
        {
            "model": model_label(model),
            "file": model,
            **_bins(s["unweighted_hist"], 5),
            "mean": s["mean_unweighted"],
            "reasoning_ratio": s["reasoning_ratio"],
            "reason": s["reason"],
        }
        for model, s in result.models.items()
    ]
    tables = {"table5_unweighted": pd.DataFrame(rows).astype({str(i): "Int64" for i in range(5)})}
    for name, size in (("weighted_hist", 11), ("categorical_hist", 5)):
        tables[name] = pd.DataFrame(
            [{"model": model_label(m), **_bins(s[name], size)} for m, s in result.models.items()]
        ).astype({str(i): "Int64" for i in range(size)})
    return tables


def _table5_check(result: ConnectionsResult) -> pd.DataFrame:
    if result.table5.empty:
        return result.table5
    return result.table5.assign(
        **{
            c: result.table5[c].map(lambda v: " ".join(map(str, v)) if v is not None else None)
            for c in _LISTS
        }
    )


def _humans_vs_models(result: ConnectionsResult) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {
                "level": level,
                "model": model_label(model),
                "games": vs["games"],
                "mean_human": vs.get("mean_human"),
                "mean_model": vs.get("mean_model"),
                "wilcoxon_p": vs.get("wilcoxon_p"),
                "mcnemar_p": vs.get("mcnemar_p"),
                "reason": vs.get("reason"),
            }
            for level, summary in result.humans.items()
            for model, vs in summary["vs"].items()
        ]
    )


def result_tables(result: ConnectionsResult) -> dict[str, pd.DataFrame]:
    """The tables written by ``connections score`` (name → frame)."""
    tables: dict[str, pd.DataFrame] = {
        f"scores_{model}": group[SCORE_COLUMNS] for model, group in result.scores.groupby("model")
    }
    tables.update(_histograms(result))
    table1 = pd.DataFrame(
        {
            "knowledge_type": list(result.taxonomy),
            "categories": pd.array(list(result.taxonomy.values()), dtype="Int64"),  # None: unknown
        }
    )
    if result.taxonomy_reason is not None:
        table1["reason"] = f"n/a ({result.taxonomy_reason})"
    table1["published"] = pd.array([PUBLISHED_TABLE1.get(k) for k in result.taxonomy], dtype="Int64")
    tables["table1_knowledge_types"] = table1
    tables["knowledge_type_success"] = result.knowledge_success
    tables["table5_check"] = _table5_check(result)
    tables["published_deviations"] = result.deviations
    tables["humans_vs_models"] = _humans_vs_models(result)
    tables["human_scores"] = result.human
    tables["quality_summary"] = result.quality_summary
    tables["quality_details"] = result.quality_details
    tables["items"] = result.items
    tables["labels"] = result.labels
    return tables


def _score_blocks(result: ConnectionsResult, tables: dict[str, pd.DataFrame]) -> list:
    rule = "exactly (case-sensitive)" if result.match == "exact" else "ignoring case"
    blocks = [
        Paragraph(
            f"{result.games} games scored; words compared {rule}. "
            "Unweighted = gold groups reproduced exactly (0–4); weighted = yellow 1 … purple 4; categorical = "
            "groups reproduced and named equivalently by the human judge."
        ),
        Table(
            tables["table5_unweighted"],
            caption="Frequency of unweighted clustering scores (Table 5), with the reasoning ratio",
        ),
    ]
    if "unweighted_scores" in result.figures:
        blocks.append(
            Figure(result.figures["unweighted_scores"], caption="Distribution of unweighted scores")
        )
    if not result.table5.empty:
        blocks.append(Table(tables["table5_check"], caption="Recomputed vs published Table 5"))
    if not result.deviations.empty:
        blocks.append(
            Table(result.deviations, caption="Games where the published table departs from the recomputation")
        )
    return blocks


def _knowledge_blocks(result: ConnectionsResult, tables: dict[str, pd.DataFrame]) -> list:
    blocks = [
        Table(tables["weighted_hist"], caption="Weighted clustering score frequency (0–10)"),
        Table(tables["categorical_hist"], caption="Categorical reasoning score frequency (0–4)"),
        Table(
            tables["table1_knowledge_types"],
            caption="Knowledge types of the gold categories (Table 1)"
            + (f": n/a ({result.taxonomy_reason})" if result.taxonomy_reason else ""),
        ),
        Table(
            result.knowledge_success, caption="Share of categories clustered / clustered and named correctly"
        ),
    ]
    if "knowledge_type_success" in result.figures:
        blocks.append(
            Figure(
                result.figures["knowledge_type_success"],
                caption="Clustered and reasoned correctly, by knowledge type",
            )
        )
    return blocks


def connections_section(
    result: ConnectionsResult, *, title: str = "Connections: scores recomputed from the raw answers"
) -> Section:
    """The report section: tables, plots and the data-quality audit."""
    tables = result_tables(result)
    blocks = _score_blocks(result, tables) + _knowledge_blocks(result, tables)
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
