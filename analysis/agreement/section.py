"""The agreement section of the HTML report: tables and three plots (matplotlib, no pyplot state).

Everything here lays out an :class:`~.summary.AgreementResult` that :func:`.summary.agreement`
computed; nothing is recomputed. Plots are :class:`matplotlib.figure.Figure` objects (no
pyplot, no backend switch) in the report's plot style (:mod:`wordplay_audit.analysis.report.plotting`):
numbers on heatmap cells in black or white by the cell's luminance.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from matplotlib.figure import Figure as MplFigure

from wordplay_audit.analysis.report import Bullets, Figure, Paragraph, Section, Table, figure_png, new_figure
from wordplay_audit.analysis.report.plotting import DIVERGING, SEQUENTIAL, label_cells, palette

from .summary import AgreementResult

__all__ = ["agreement_section", "category_kappa_figure", "pairwise_heatmap", "consensus_confusions"]


def _fmt(x: float | None, digits: int = 3) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "–"
    return f"{x:.{digits}f}"


def category_kappa_figure(result: AgreementResult) -> MplFigure:
    """Bars of per-category κ with their bootstrap intervals; prevalence under each bar."""
    frame = result.per_category
    fig = new_figure(max(4.0, 0.9 * len(frame) + 1.5), 3.4)
    ax = fig.add_subplot()
    x = np.arange(len(frame))
    kappa = frame["kappa"].to_numpy(dtype=float)
    low = frame["ci_low"].to_numpy(dtype=float)
    high = frame["ci_high"].to_numpy(dtype=float)
    ax.bar(x, np.nan_to_num(kappa), color=palette(1)[0])
    has_ci = ~(np.isnan(low) | np.isnan(high) | np.isnan(kappa))
    if has_ci.any():
        err = np.vstack([kappa - low, high - kappa])[:, has_ci]
        ax.errorbar(
            x[has_ci],
            kappa[has_ci],
            yerr=np.clip(err, 0, None),
            fmt="none",
            ecolor="black",
            capsize=3,
        )
    ax.axhline(0, color="black", linewidth=0.6)
    ticks = [f"{c} ({p:.0%})" for c, p in zip(frame.index, frame["prevalence"], strict=True)]
    ax.set_xticks(x, ticks, fontsize=8, rotation=30, ha="right")
    ax.set_ylabel("κ (category vs rest)")
    ax.set_xlabel("category and its share of ratings", fontsize=8)
    ax.set_title(
        f"Per-category κ ({int(round(result.fleiss_kappa.confidence * 100))} % intervals)",
        fontsize=10,
    )
    return fig


def pairwise_heatmap(result: AgreementResult) -> MplFigure | None:
    """Rater × rater Cohen's κ as a heatmap (None when there is no pairwise table)."""
    if result.pairwise is None:
        return None
    kappa = result.pairwise.kappa
    r = len(kappa)
    size = min(1.0 + 0.45 * r, 12.0)
    fig = new_figure(size + 1.2, size)
    ax = fig.add_subplot()
    values = kappa.to_numpy(dtype=float)
    image = ax.imshow(values, vmin=-1, vmax=1, cmap=DIVERGING)
    ax.set_xticks(range(r), [str(c) for c in kappa.columns], rotation=90, fontsize=7)
    ax.set_yticks(range(r), [str(c) for c in kappa.index], fontsize=7)
    if r <= 12:
        label_cells(ax, image, values, [[f"{v:.2f}" for v in row] for row in values], fontsize=7)
    fig.colorbar(image, ax=ax, label="Cohen's κ")
    ax.set_title("Pairwise Cohen's κ")
    return fig


def consensus_confusions(result: AgreementResult, *, max_raters: int = 16) -> MplFigure:
    """For each rater, the row-normalised confusion matrix of their labels (columns) against
    the majority-vote consensus (rows), on items whose consensus is not tied
    (``result.consensus_confusion``, computed by :func:`.summary.agreement`)."""
    table = result.table
    k = table.n_categories
    cells = result.consensus_confusion
    shown = min(table.n_raters, max_raters)
    cols = min(4, shown)
    rows = math.ceil(shown / cols)
    fig = new_figure(3.0 * cols, 2.8 * rows)
    names = [str(c) for c in table.categories]
    for idx in range(shown):
        ax = fig.add_subplot(rows, cols, idx + 1)
        counts = cells[idx].astype(float)
        with np.errstate(invalid="ignore", divide="ignore"):
            share = counts / counts.sum(axis=1, keepdims=True)
        share = np.nan_to_num(share)
        image = ax.imshow(share, vmin=0, vmax=1, cmap=SEQUENTIAL)
        if k <= 8:
            texts = [[str(int(c)) if c else None for c in row] for row in counts]
            label_cells(ax, image, share, texts, fontsize=6)
        ax.set_title(str(table.raters[idx]), fontsize=8)
        ax.set_xticks(range(k), names if k <= 8 else [""] * k, rotation=90, fontsize=6)
        ax.set_yticks(range(k), names if k <= 8 else [""] * k, fontsize=6)
        if idx % cols == 0:
            ax.set_ylabel("consensus", fontsize=7)
        ax.set_xlabel("rater", fontsize=7)
    return fig


def _summary_table(result: AgreementResult) -> pd.DataFrame:
    """The coefficients with interval, SEs and p-value; percent agreement, PABAK, prevalence and
    bias indices."""
    conf = int(round(result.fleiss_kappa.confidence * 100))
    rows = []
    estimates = [
        ("Fleiss' κ", result.fleiss_kappa),
        (f"Krippendorff's α ({result.level})", result.krippendorff_alpha),
        ("Gwet's AC1", result.gwet_ac1),
        ("Brennan–Prediger", result.brennan_prediger),
        ("Conger's κ", result.conger_kappa),
        ("Light's κ", result.light_kappa),
    ]
    estimates += [
        (f"{key} ({result.weights.name})", est) for key, est in result.weighted.items() if result.weights
    ]
    for name, est in estimates:
        if est is None:
            continue
        rows.append(
            {
                "statistic": name,
                "value": est.value,
                f"{conf} % interval ({est.method})": f"[{_fmt(est.ci_low)}, {_fmt(est.ci_high)}]",
                "bootstrap SE": est.boot_se,
                "analytic SE": float("nan") if est.se is None else est.se,
                "p (θ = 0)": est.p_value,
            }
        )
    for name, value in (
        ("percent agreement (pairwise)", result.percent_agreement),
        ("PABAK", result.pabak),
        ("prevalence index", result.prevalence_index),
        ("bias index", result.bias_index),
    ):
        rows.append({"statistic": name, "value": value})
    return pd.DataFrame(rows)


def _notes(result: AgreementResult) -> list[str]:
    """What the numbers say in words: kappa paradox (PI > 0.3 and AC1 − κ > 0.1), rater bias
    (bias index > 0.1), raters with κ < 0.4 against the others' majority."""
    notes = []
    top = result.per_category["prevalence"].max()
    kappa, ac1 = result.fleiss_kappa.value, result.gwet_ac1.value
    paradox = not math.isnan(kappa) and not math.isnan(ac1)
    if paradox and result.prevalence_index > 0.3 and ac1 - kappa > 0.1:
        notes.append(
            f"Kappa paradox: one category takes {top:.0%} of ratings (prevalence index "
            f"{result.prevalence_index:.2f}); κ = {kappa:.3f} is well below AC1 = {ac1:.3f} and "
            f"PABAK = {result.pabak:.3f} although raw agreement is {result.percent_agreement:.3f}."
        )
    if result.bias_index > 0.1:
        notes.append(
            f"Raters use the categories at different rates (bias index {result.bias_index:.2f}), "
            "which lowers Cohen's κ of the affected pairs."
        )
    weak = result.rater_quality["kappa_vs_rest"]
    weak = weak[weak < 0.4].dropna()
    if len(weak):
        notes.append(
            "Raters with κ < 0.4 against the others' majority: "
            + ", ".join(f"{r} ({v:.2f})" for r, v in weak.items())
        )
    return notes


def _graded_blocks(result: AgreementResult) -> list:
    """The ICC table (exact F intervals) and Kendall's W, when the labels are graded."""
    graded = result.graded
    if graded is None or graded.icc is None:
        return []
    found = graded.icc
    frame = found.frame().reset_index()[
        ["form", "value", "ci_low", "ci_high", "F", "df1", "df2", "p_value", "description"]
    ]
    caption = (f"Intraclass correlation ({found.n_items} items rated by every rater, {found.n_left_out} left out; "
               "exact F intervals)")  # fmt: skip
    blocks: list = [Table(frame, caption=caption)]
    w = graded.kendall_w
    if w is not None and w.value is not None:
        blocks.append(
            Paragraph(f"Kendall's W = {w.value:.3f}, χ²({w.df}) = {w.chi2:.2f}, p = {w.p_value:.2g}.")
        )
    return blocks


def agreement_section(result: AgreementResult, *, title: str = "Agreement between raters") -> Section:
    """Report section: summary table, kappa-paradox check, per-category κ bars with intervals,
    pairwise κ heatmap, each rater's confusion against the consensus, rater quality table."""
    intro = (
        f"{result.n_items} items, {len(result.raters)} raters ({result.rater_type or 'all types'}), "
        f"{result.n_ratings} ratings, {len(result.categories)} categories. "
        f"{result.n_items_single} items with a single rating are "
        f"{'kept in the category shares (Gwet) and left out of α' if result.single_rated == 'gwet' else 'left out'}. "
        f"Intervals: item bootstrap with {result.fleiss_kappa.n_boot} resamples."
    )
    blocks: list = [Paragraph(intro), Table(_summary_table(result), caption="Agreement")]
    blocks += _graded_blocks(result)
    notes = _notes(result)
    if notes:
        blocks.append(Bullets(notes))
    per_cat = result.per_category.reset_index()
    blocks.append(Table(per_cat, caption="Per-category κ (Fleiss 1971) and prevalence"))
    blocks.append(Figure(figure_png(category_kappa_figure(result)), "Per-category κ with intervals"))
    heat = pairwise_heatmap(result)
    if heat is not None:
        blocks.append(Figure(figure_png(heat), "Pairwise Cohen's κ"))
    blocks.append(
        Figure(
            figure_png(consensus_confusions(result)),
            "Each rater against the majority-vote consensus",
        )
    )
    blocks.append(Table(result.rater_quality, caption="Rater quality", index=True))
    return Section(title, blocks)
