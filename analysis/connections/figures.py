"""PNG plots of a :class:`ConnectionsResult`: object-oriented matplotlib (no pyplot, no backend
switch); every text from the data (model names, category names) escaped for mathtext."""

from __future__ import annotations

import numpy as np

from wordplay_audit.analysis.connections.result import ConnectionsResult
from wordplay_audit.analysis.connections.taxonomy import TAXONOMY_COLUMNS
from wordplay_audit.analysis.report import figure_png, new_figure, plot_text
from wordplay_audit.corpora.connections import MODEL_NAMES


def model_label(model: str) -> str:
    """The paper's name of a model (its file stem when the paper does not name it)."""
    return MODEL_NAMES.get(model, model)


def _offsets(count: int, width: float) -> np.ndarray:
    return np.arange(count) * width - 0.4 + width / 2


def unweighted_figure(result: ConnectionsResult) -> bytes:
    """Share of games per unweighted score (0–4), one bar per model."""
    models = sorted(m for m, s in result.models.items() if s["unweighted_hist"] is not None)
    fig = new_figure(8, 3.8)
    ax = fig.add_subplot()
    width = 0.8 / max(len(models), 1)
    for i, model in enumerate(models):
        hist = np.asarray(result.models[model]["unweighted_hist"])
        ax.bar(
            np.arange(5) + _offsets(len(models), width)[i],
            hist / hist.sum(),
            width,
            label=plot_text(model_label(model)),
        )
    ax.set_xticks(range(5))
    ax.set_xlabel("unweighted clustering score (gold groups reproduced)")
    ax.set_ylabel("share of games")
    ax.legend(fontsize=7)
    ax.set_title(f"Clustering scores over {result.games} games")
    return figure_png(fig)


def knowledge_figure(result: ConnectionsResult) -> bytes:
    """Share of categories clustered and named correctly, per knowledge type and model."""
    models = sorted(m for m, s in result.models.items() if s["unweighted_hist"] is not None)
    success = result.knowledge_success
    fig = new_figure(9, 4)
    ax = fig.add_subplot()
    width = 0.8 / max(len(models), 1)
    columns = [c for c in TAXONOMY_COLUMNS if c in set(success["knowledge_type"])]
    for i, model in enumerate(models):
        mine = success[success["model"] == model].set_index("knowledge_type").reindex(columns)
        ax.bar(
            np.arange(len(columns)) + _offsets(len(models), width)[i],
            mine["reasoned_share"],
            width,
            label=plot_text(model_label(model)),
        )
    ax.set_xticks(range(len(columns)))
    ax.set_xticklabels([plot_text(c.replace(" + ", " +\n").replace("/", "/\n")) for c in columns], fontsize=7)
    ax.set_ylabel("share clustered and named correctly")
    ax.set_ylim(0, 1)
    ax.legend(fontsize=7)
    ax.set_title("Categories both clustered and reasoned correctly, by knowledge type")
    return figure_png(fig)


def connections_figures(result: ConnectionsResult) -> dict[str, bytes]:
    """PNG plots: score distributions and per-knowledge-type success (name → PNG bytes)."""
    figures = {"unweighted_scores": unweighted_figure(result)}
    if not result.knowledge_success.empty:
        figures["knowledge_type_success"] = knowledge_figure(result)
    return figures
