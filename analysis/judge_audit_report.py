"""Report section and plot of a judge audit (:class:`~.judge_audit_groups.JudgeAuditResult`):
takes the result, never recomputes it."""

from __future__ import annotations

import numpy as np
import pandas as pd

from wordplay_audit.analysis.judge_audit_groups import ALL, JudgeAuditResult, estimate_text
from wordplay_audit.analysis.report import (
    Bullets,
    Figure,
    Paragraph,
    Section,
    Table,
    figure_png,
    new_figure,
    plot_text,
)
from wordplay_audit.analysis.report.plotting import (
    MAX_SERIES,
    legend_outside,
    palette,
    panel_grid,
)

SHOWN = ("n", "tp", "fp", "fn", "tn", "n_unparsed", "small")


def _label(row: pd.Series, by: list[str]) -> str:
    parts = [str(row[c]) for c in by if str(row[c]) != ALL]
    return " / ".join(parts) if parts else "all"


def fnr_figure(result: JudgeAuditResult):
    """False-negative rate per group with its Wilson interval, one marker series per judge with
    the legend below; a panel per judge, titled with it, when there are more judges than a
    panel holds."""
    table = result.table()
    labels = list(dict.fromkeys(_label(r, result.by) for _, r in table.iterrows()))
    judges = list(result.judges)
    colours = palette(len(judges))
    panels = len(judges) > MAX_SERIES
    cols = min(3, len(judges)) if panels else 1
    rows = -(-len(judges) // cols) if panels else 1
    fig = new_figure(7.0 if cols == 1 else min(9.6, 3.2 * cols), rows * (0.32 * len(labels) + 1.2) + 0.6)
    axes = panel_grid(fig, len(judges) if panels else 1, ncols=cols, sharex=True, sharey=True)
    step = 0.8 / (1 if panels else max(len(judges), 1))
    for k, judge in enumerate(judges):
        ax = axes[k] if panels else axes[0]
        part = table[table["judge"] == judge]
        shift = 0.0 if panels else k * step - step * (len(judges) - 1) / 2
        y = np.array([labels.index(_label(r, result.by)) for _, r in part.iterrows()]) + shift
        value = part["fnr"].to_numpy(float)
        err = np.vstack([value - part["fnr_low"].to_numpy(float), part["fnr_high"].to_numpy(float) - value])
        ax.errorbar(
            value,
            y,
            xerr=np.clip(np.nan_to_num(err), 0, None),
            fmt="o",
            capsize=3,
            color=colours[k],
            label=plot_text(judge[:50]),
        )
        if panels:
            ax.set_title(plot_text(judge[:50]), fontsize="small")
    for ax in axes:
        ax.set_yticks(np.arange(len(labels)), [plot_text(t) for t in labels])
        ax.set_ylim(len(labels) - 0.5, -0.5)
        ax.set_xlim(0, 1)
        if panels:  # narrow panels side by side: no tick labels meeting at their borders
            ax.set_xticks([0, 0.5, 1])
        ax.grid(axis="x", alpha=0.3)
    xlabel = f"false-negative rate (human true, judge false), {result.confidence:.0%} Wilson interval"
    if panels:  # the panels' titles name the judges: no legend, one x label
        fig.supxlabel(xlabel, fontsize="medium")
    else:
        axes[0].set_xlabel(xlabel)
        legend_outside(fig, ncols=1 if len(judges) <= 2 else 2)
    return fig


def fnr_plot(result: JudgeAuditResult) -> bytes:
    """:func:`fnr_figure` as PNG bytes."""
    return figure_png(fnr_figure(result))


def judge_audit_section(result: JudgeAuditResult, *, title: str = "Judge audit") -> Section:
    """Table of cells and rates with intervals per judge and group, the FNR plot, the policies."""
    table = result.table()
    show = table[["judge", *result.by, *SHOWN]].copy()
    for m in ("precision", "recall", "f1", "fnr", "fpr", "kappa"):
        columns = (table[m], table[f"{m}_low"], table[f"{m}_high"], table[f"{m}_ci_reason"])
        show[m] = [estimate_text(*e) for e in zip(*columns, strict=True)]
    boot = (
        f"percentile bootstrap ({result.n_boot} resamples) for F1 and κ"
        if result.n_boot
        else "none for F1 and κ (no resamples: bootstrap 0)"
    )
    notes = [
        f"Unparsed verdicts: {result.unparsed} (see n_unparsed).",
        f"Intervals: Wilson for proportions; {boot}.",
        "small = fewer than the minimum of human-true or human-false items in the group.",
        f"Left out: {', '.join(f'{k} {v}' for k, v in result.skipped.items())}.",
    ]
    return Section(
        title,
        [
            Paragraph(f"Judges against human labels, per {', '.join(result.by) or 'item set'}."),
            Table(show, caption="Confusion cells and rates (value [low, high])"),
            Figure(fnr_plot(result), caption="False-negative rate per group"),
            Bullets(notes),
        ],
    )
