"""Report section and plot of a judge audit (:class:`~.judge_audit_groups.JudgeAuditResult`):
takes the result, never recomputes it."""

from __future__ import annotations

import numpy as np
import pandas as pd

from wordplay_audit.analysis.judge_audit_cells import estimate_text
from wordplay_audit.analysis.judge_audit_groups import ALL, JudgeAuditResult
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


def _scored_rows(result: JudgeAuditResult) -> list[tuple[str, dict]]:
    """(legend label, row) of every scored judge × group, the judge's overall row first."""
    if not result.scores:
        return []
    multi = len(result.judges) > 1
    out = []
    for row in result.rows:
        group = " / ".join(str(row[c]) for c in result.by if str(row[c]) != ALL) or "all"
        if row.get("n_scored", 0):
            out.append((f"{row['judge'][:40]} | {group}" if multi else group, row))
    return out


def roc_plot(result: JudgeAuditResult) -> bytes:
    """ROC curves per judge and group (stored points), the AUC and its interval in the legend."""
    fig = new_figure(5.6, 5.0)
    ax = fig.add_subplot(1, 1, 1)
    for k, (label, row) in enumerate(_scored_rows(result)):
        roc, auc = row["roc"], row["auc"]
        if not roc["fpr"]:
            continue
        text = estimate_text(auc["value"], auc["ci_low"], auc["ci_high"], auc["ci_reason"])
        ax.plot(roc["fpr"], roc["tpr"], color=f"C{k % 10}", lw=1.6 if label.endswith("all") else 1.0,
                label=plot_text(f"{label}: AUC {text}"))  # fmt: skip
    ax.plot([0, 1], [0, 1], ls=":", color="0.6", lw=0.8)
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_xlabel("false-positive rate (human false, judge score ≥ cut)")
    ax.set_ylabel("true-positive rate (human true, judge score ≥ cut)")
    ax.legend(fontsize="x-small", loc="lower right")
    return figure_png(fig)


def reliability_plot(result: JudgeAuditResult) -> bytes:
    """Reliability curves (share human-true against mean predicted probability per bin, marker
    area ∝ items) per judge and group with a probability, ECE and Brier in the legend."""
    fig = new_figure(5.6, 5.0)
    ax = fig.add_subplot(1, 1, 1)
    for k, (label, row) in enumerate(_scored_rows(result)):
        table = pd.DataFrame(row["reliability"])
        if table.empty:
            continue
        size = 12 + 60 * table["n"].to_numpy(float) / table["n"].max()
        colour = f"C{k % 10}"
        ax.plot(table["mean_predicted"], table["share_true"], "-", color=colour, lw=1.0,
                label=plot_text(f"{label}: ECE {row['ece']:.3f}, Brier {row['brier']:.3f}"))  # fmt: skip
        ax.scatter(table["mean_predicted"], table["share_true"], s=size, color=colour)
    ax.plot([0, 1], [0, 1], ls=":", color="0.6", lw=0.8)
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_xlabel("mean predicted probability of true (bin)")
    ax.set_ylabel("share human-true (bin)")
    ax.legend(fontsize="x-small", loc="upper left")
    return figure_png(fig)


def score_table(result: JudgeAuditResult) -> pd.DataFrame:
    """One row per scored judge × group: items scored and without a score, AUC [interval],
    Brier, ECE (or why not), the cross-validated threshold with its CV sensitivity/specificity."""
    rows = []
    for _, row in _scored_rows(result) or []:
        auc, cut = row["auc"], row["cv_threshold"]
        rows.append({
            "judge": row["judge"], **{c: row[c] for c in result.by},
            "n_scored": row["n_scored"], "n_no_score": row["n_no_score"],
            "auc": estimate_text(auc["value"], auc["ci_low"], auc["ci_high"], auc["ci_reason"]),
            "brier": row["brier"], "ece": row["ece"],
            "probability": row["calibration_source"] or f"none ({row['calibration_reason']})",
            "cv_threshold": cut["threshold"],
            "cv_sensitivity": cut.get("cv_sensitivity", np.nan), "cv_specificity": cut.get("cv_specificity", np.nan),
        })  # fmt: skip
    return pd.DataFrame(rows)


def audit_figures(result: JudgeAuditResult) -> dict[str, bytes]:
    """The audit's plots by file stem: ``judge_fnr``, and for a scored audit with a scored item
    ``judge_roc`` and ``judge_reliability``."""
    figures = {"judge_fnr": fnr_plot(result)}
    if _scored_rows(result):
        figures.update(judge_roc=roc_plot(result), judge_reliability=reliability_plot(result))
    return figures


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
    blocks = [
        Paragraph(f"Judges against human labels, per {', '.join(result.by) or 'item set'}."),
        Table(show, caption="Confusion cells and rates (value [low, high])"),
        Figure(fnr_plot(result), caption="False-negative rate per group"),
    ]
    if result.scores:
        scored = score_table(result)
        if scored.empty:
            notes.append("Scores: no counted item carries a score.")
        else:
            blocks += [
                Table(
                    scored,
                    caption="Scores: ROC-AUC [DeLong, logit scale], Brier, ECE, cross-validated Youden cut",
                ),
                Figure(roc_plot(result), caption="ROC curves per group"),
                Figure(reliability_plot(result), caption="Reliability: share human-true per probability bin"),
            ]
            notes.append(
                "Scores: items without a score are left out of AUC, ECE and Brier and counted (n_no_score); "
                "ECE and Brier need a probability (calibrated, or a P(yes) score)."
            )
    return Section(title, [*blocks, Bullets(notes)])
