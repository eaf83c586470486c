"""Plots of :class:`~wordplay_audit.analysis.wof.metrics.WofMetrics` as matplotlib ``Figure``
objects (object-oriented API; no pyplot state, no backend switch), in the report's plot style
(:mod:`wordplay_audit.analysis.report.plotting`)."""

from __future__ import annotations

import numpy as np

from wordplay_audit.analysis.report import new_figure, plot_text
from wordplay_audit.analysis.report.plotting import axis_labels, grouped_bars, palette, panel_grid
from wordplay_audit.analysis.wof.metrics import ENGLISH_CONSONANT_PERCENT, WofMetrics
from wordplay_audit.corpora.wof.moves import LOSS_CLASSES

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
    """Small multiples, a panel per outcome (win, then each losing error): the percent of each
    model's games that ended so, one bar per model, its value printed beside it."""
    models = metrics.models["model"].tolist()
    games = metrics.models.set_index("model")["games"].astype(float).reindex(models).to_numpy()
    counts = metrics.errors.pivot(index="model", columns="outcome", values="count").reindex(models)
    counts.insert(0, "win", metrics.models.set_index("model")["wins"].reindex(models))
    outcomes = ["win", *LOSS_CLASSES]
    cols = 4
    fig = new_figure(9.6, (-(-len(outcomes) // cols)) * (0.3 * len(models) + 1.0) + 0.5)
    axes = panel_grid(fig, len(outcomes), ncols=cols)
    y = np.arange(len(models))
    for ax, outcome, colour in zip(axes, outcomes, palette(len(outcomes)), strict=True):
        share = 100.0 * counts[outcome].fillna(0).to_numpy(float) / games
        bars = ax.barh(y, share, color=colour)
        ax.bar_label(bars, [f"{v:.0f}%" for v in share], padding=2, fontsize="x-small")
        ax.set_title(OUTCOME_LABELS[outcome], fontsize="medium")
        ax.set_xlim(0, 125)
        ax.set_xticks([0, 50, 100])
    axes[0].set_yticks(y, [plot_text(m) for m in models])
    axes[0].set_ylim(len(models) - 0.5, -0.5)
    axis_labels(axes, cols, xlabel="% of games")
    fig.suptitle("Wheel of Fortune: how each model's games ended")
    return fig


def first_consonant_figure(metrics: WofMetrics):
    """Grouped bars: per model, percent of games opening with T, N, S, H, R (and any other
    first consonant), beside the letter's frequency in English text (grey); one panel per
    model when the models and English are more than a panel holds."""
    table = metrics.first_consonants
    letters = list(ENGLISH_CONSONANT_PERCENT) + sorted(set(table["letter"]) - set(ENGLISH_CONSONANT_PERCENT))
    models = metrics.models["model"].tolist()
    english = [ENGLISH_CONSONANT_PERCENT.get(c, np.nan) for c in letters]
    series = [
        (model, table[table["model"] == model].set_index("letter")["percent"].reindex(letters).fillna(0))
        for model in models
    ]
    width = min(9.0, max(6.4, 0.12 * len(letters) * (len(models) + 1)))
    fig, _ = grouped_bars(
        letters, series, reference=("English text", english), panel=(width, 3.6), ncols=2, ylabel="percent"
    )
    fig.suptitle("First consonant named in a game vs frequency in English")
    return fig
