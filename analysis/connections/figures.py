"""Plots of a :class:`ConnectionsResult`: object-oriented matplotlib (no pyplot, no backend
switch) in the report's plot style (:mod:`wordplay_audit.analysis.report.plotting`); every
text from the data (model names, category names) escaped for mathtext."""

from __future__ import annotations

import numpy as np

from wordplay_audit.analysis.connections.result import ConnectionsResult
from wordplay_audit.analysis.connections.taxonomy import TAXONOMY_COLUMNS
from wordplay_audit.analysis.report import figure_png
from wordplay_audit.analysis.report.plotting import grouped_bars
from wordplay_audit.corpora.connections import MODEL_NAMES


def model_label(model: str) -> str:
    """The paper's name of a model (its file stem when the paper does not name it)."""
    return MODEL_NAMES.get(model, model)


def _scored(result: ConnectionsResult) -> list[str]:
    return sorted(m for m, s in result.models.items() if s["unweighted_hist"] is not None)


def unweighted_figure(result: ConnectionsResult):
    """Share of games per unweighted score (0–4), one bar per model (a panel per model when
    there are more models than a panel holds)."""
    series = []
    for model in _scored(result):
        hist = np.asarray(result.models[model]["unweighted_hist"], dtype=float)
        series.append((model_label(model), hist / hist.sum()))
    fig, _ = grouped_bars(
        [str(i) for i in range(5)],
        series,
        panel=(8.0, 3.8),
        xlabel="unweighted score",
        ylabel="share of games",
    )
    fig.suptitle(f"Unweighted clustering scores (gold groups reproduced, 0–4) over {result.games} games")
    return fig


def knowledge_figure(result: ConnectionsResult):
    """Share of categories clustered and named correctly, per knowledge type and model."""
    success = result.knowledge_success
    columns = [c for c in TAXONOMY_COLUMNS if c in set(success["knowledge_type"])]
    series = [
        (model_label(model), success[success["model"] == model].set_index("knowledge_type").reindex(columns)["reasoned_share"])
        for model in _scored(result)
    ]  # fmt: skip
    fig, axes = grouped_bars(
        columns, series, panel=(9.0, 0.6 * len(columns) + 1.2), horizontal=True,
        xlabel="share clustered and named correctly",
    )  # fmt: skip
    for ax in axes:
        ax.tick_params(axis="y", labelsize="small")
        ax.set_xlim(0, 1)
        if len(axes) > 1:  # narrow panels side by side: no tick labels meeting at their borders
            ax.set_xticks([0, 0.5, 1])
    fig.suptitle("Categories both clustered and reasoned correctly, by knowledge type")
    return fig


def connections_figures(result: ConnectionsResult) -> dict[str, bytes]:
    """PNG plots: score distributions and per-knowledge-type success (name → PNG bytes)."""
    figures = {"unweighted_scores": figure_png(unweighted_figure(result))}
    if not result.knowledge_success.empty:
        figures["knowledge_type_success"] = figure_png(knowledge_figure(result))
    return figures
