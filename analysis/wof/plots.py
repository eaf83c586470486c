"""Plots of :class:`~wordplay_audit.analysis.wof.metrics.WofMetrics` as matplotlib ``Figure``
objects (object-oriented API; no pyplot state, no backend switch)."""

from __future__ import annotations

import numpy as np

from wordplay_audit.analysis.report import new_figure, plot_text
from wordplay_audit.analysis.wof.metrics import ENGLISH_CONSONANT_PERCENT, WofMetrics
from wordplay_audit.corpora.wof.reader import LOSS_CLASSES

OUTCOME_LABELS = {
    "win": "win",
    "insufficient_budget": "insufficient budget",
    "action_na": "action N/A",
    "consonant_na": "consonant N/A",
    "vowel_na": "vowel N/A",
    "missing_letter": "letter not in riddle",
    "wrong_guess": "wrong guess",
    "round_limit": "round limit",
}


def outcome_figure(metrics: WofMetrics):
    """Horizontal stacked bars: per model, the percent of games won and lost by each error."""
    models = metrics.models["model"].tolist()
    games = metrics.models.set_index("model")["games"].astype(float)
    counts = metrics.errors.pivot(index="model", columns="outcome", values="count").reindex(models)
    counts.insert(0, "win", metrics.models.set_index("model")["wins"].reindex(models))
    fig = new_figure(7.0, 0.6 * len(models) + 1.6)
    ax = fig.add_subplot()
    left = np.zeros(len(models))
    for k, outcome in enumerate(["win", *LOSS_CLASSES]):
        share = 100.0 * counts[outcome].fillna(0).to_numpy(float) / games.reindex(models).to_numpy()
        ax.barh(range(len(models)), share, left=left, label=OUTCOME_LABELS[outcome], color=f"C{k}")
        left += share
    ax.set_yticks(range(len(models)), [plot_text(m) for m in models])
    ax.set_xlabel("percent of games")
    ax.set_xlim(0, 100)
    ax.legend(fontsize="small", ncol=4, loc="upper center", bbox_to_anchor=(0.5, -0.25))
    ax.set_title("Wheel of Fortune: wins and losing errors")
    return fig


def first_consonant_figure(metrics: WofMetrics):
    """Grouped bars: per model, percent of games opening with T, N, S, H, R (and any other
    first consonant), beside the letter's frequency in English text."""
    table = metrics.first_consonants
    letters = list(ENGLISH_CONSONANT_PERCENT) + sorted(set(table["letter"]) - set(ENGLISH_CONSONANT_PERCENT))
    models = metrics.models["model"].tolist()
    fig = new_figure(min(11.0, max(6.4, 0.12 * len(letters) * (len(models) + 1))), 4.0)
    ax = fig.add_subplot()
    width = 0.8 / (len(models) + 1)
    x = np.arange(len(letters))
    english = [ENGLISH_CONSONANT_PERCENT.get(c, np.nan) for c in letters]
    ax.bar(x, english, width, label="English text", color="0.6")
    for k, model in enumerate(models):
        pct = table[table["model"] == model].set_index("letter")["percent"].reindex(letters).fillna(0)
        ax.bar(x + (k + 1) * width, pct.to_numpy(), width, label=plot_text(model), color=f"C{k}")
    ax.set_xticks(x + width * len(models) / 2, letters)
    ax.set_ylabel("percent")
    ax.set_title("First consonant named in a game vs frequency in English")
    ax.legend(fontsize="small")
    return fig
