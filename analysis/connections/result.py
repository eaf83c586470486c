"""The whole Connections analysis as one result object (:class:`ConnectionsResult`)."""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

from wordplay_audit.analysis.connections.audit import published_deviations, quality_audit, table5_check
from wordplay_audit.analysis.connections.contract import to_contract
from wordplay_audit.analysis.connections.humans import human_scores, paired_tests
from wordplay_audit.analysis.connections.scores import (
    MATCH_MODES,
    MatchMode,
    game_scores,
    histogram,
    match_groups,
    reasoning_ratio,
)
from wordplay_audit.analysis.connections.taxonomy import (
    knowledge_type_success,
    taxonomy_counts,
    taxonomy_reason,
)
from wordplay_audit.corpora.connections import ConnectionsData
from wordplay_audit.errors import check_choice


@dataclass
class ConnectionsResult:
    """Everything ``wordplay-audit connections score`` reports; :meth:`to_dict` is its ``--json``."""

    match: MatchMode
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
    taxonomy_reason: str | None = None  # why Table 1 is unknown (its counts None)

    def to_dict(self) -> dict:
        """The JSON payload: scores, Table 1/5 checks, humans and the audit counts (``quality``
        by issue, ``quality_by_file`` by ``"<file>: <issue>"``)."""
        quality: dict[str, int] = {}
        for row in self.quality_summary.itertuples(index=False):
            quality[row.issue] = quality.get(row.issue, 0) + int(row.count)
        return {
            "games": self.games,
            "match": self.match,
            "models": self.models,
            "taxonomy_counts": self.taxonomy,
            "taxonomy_reason": self.taxonomy_reason,
            "humans": self.humans,
            "table5": self.table5.astype(object).where(self.table5.notna(), None).to_dict(orient="records"),
            "published_deviations": self.deviations.to_dict(orient="records"),
            "quality": quality,
            "quality_by_file": {
                f"{r.file}: {r.issue}": int(r.count) for r in self.quality_summary.itertuples(index=False)
            },
        }


_SUMMARY_KEYS = ("unweighted_hist", "weighted_hist", "categorical_hist", "reasoning_ratio",
                 "mean_unweighted", "mean_weighted", "mean_categorical")  # fmt: skip


def unscored_models(data: ConnectionsData, scores: pd.DataFrame) -> dict[str, str]:
    """Model files from which no answer was read (e.g. ``[]``), each with the reason: listed with
    null scores, never dropped."""
    scored = set(scores["model"])
    return {
        m: f"no answer to a game of the gold read from {m}.json" for m in data.model_files if m not in scored
    }


def model_summary(scores: pd.DataFrame | None, reason: str | None = None) -> dict:
    """Histograms, means and the reasoning ratio of one model's per-game scores; every figure
    None with ``reason`` for a model without scores."""
    if scores is None:
        return {**dict.fromkeys(_SUMMARY_KEYS), "reason": reason}
    return {
        "reason": None,
        "unweighted_hist": histogram(scores["unweighted"], 5),
        "weighted_hist": histogram(scores["weighted"], 11),
        "categorical_hist": histogram(scores["categorical"], 5),
        "reasoning_ratio": reasoning_ratio(scores),
        "mean_unweighted": float(scores["unweighted"].mean()),
        "mean_weighted": float(scores["weighted"].mean()),
        "mean_categorical": float(scores["categorical"].mean()),
    }


def humans_summary(
    human: pd.DataFrame, scores: pd.DataFrame, stored: pd.DataFrame, unscored: dict[str, str]
) -> dict:
    """Per level: games, answers, histogram, paired tests against each model (None with the
    reason for a model without scores), and ``games_without_raw_answer``: games of the level's
    stored scores (``novice.json``) that no raw answer was matched to (left out of the tests)."""
    models = sorted(scores["model"].unique())
    out = {}
    for level, group in human.groupby("level", sort=False):
        stored_games = set(stored.loc[stored["level"] == level, "game_key"])
        vs = {model: paired_tests(group, scores[scores["model"] == model]) for model in models}
        vs.update({model: {"games": None, "reason": why} for model, why in unscored.items()})
        out[level] = {
            "games": int(group["game_key"].nunique()),
            "answers": int(len(group)),
            "games_without_raw_answer": len(stored_games - set(group["game_key"])),
            "unweighted_hist": histogram(group["unweighted"], 5),
            "vs": vs,
        }
    return out


def analyze_connections(
    data: ConnectionsData, *, match: MatchMode = "exact", plots: bool = True
) -> ConnectionsResult:
    """Score every model and human answer, build the tables, the audit and (optionally) plots."""
    check_choice("match", match, MATCH_MODES)
    matched = match_groups(data, match=match)
    scores = game_scores(data, matched)
    human = human_scores(data, match=match)
    deviations = published_deviations(data, matched, scores)
    casefold = game_scores(data, match_groups(data, match="casefold")) if match == "exact" else None
    summary, details = quality_audit(data, matched, scores, human, casefold_scores=casefold)
    items, labels = to_contract(data, matched)
    unscored = unscored_models(data, scores)
    models = {model: model_summary(group) for model, group in scores.groupby("model")}
    models.update({model: model_summary(None, why) for model, why in unscored.items()})
    result = ConnectionsResult(
        match=match,
        games=int(data.games["scored"].sum()),
        scores=scores,
        models=dict(sorted(models.items())),
        taxonomy=taxonomy_counts(data),
        taxonomy_reason=taxonomy_reason(data),
        knowledge_success=knowledge_type_success(data, matched),
        human=human,
        humans=humans_summary(human, scores, data.human_stored, unscored),
        table5=table5_check(scores, deviations, unscored),
        deviations=deviations,
        quality_summary=summary,
        quality_details=details,
        items=items,
        labels=labels,
    )
    if plots:
        from wordplay_audit.analysis.connections.figures import connections_figures

        result.figures = connections_figures(result)
    return result
