"""The Balderdash section of the HTML report: lays out a precomputed
:class:`~wordplay_audit.analysis.balderdash.summary.BalderdashAnalysis` (no analysis here)."""

from __future__ import annotations

import pandas as pd

from wordplay_audit.analysis import stats_models
from wordplay_audit.analysis.balderdash.adaptive_report import adaptive_blocks, width_history
from wordplay_audit.analysis.balderdash.metrics import DEFAULT_SETTING
from wordplay_audit.analysis.balderdash.recompute import REPLACED_NOTE
from wordplay_audit.analysis.balderdash.summary import BalderdashAnalysis, TrendAnalysis
from wordplay_audit.analysis.balderdash.trend import MIXED_NOTE
from wordplay_audit.analysis.balderdash.trend_inputs import check_frame
from wordplay_audit.analysis.correction.cells import UNKNOWN_PART
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
from wordplay_audit.analysis.report.plotting import legend_outside, palette

ROUND_SERIES = ("judge", "replaced", "corrected (RG)")
"""The lines of each panel of :func:`round_figure`, drawn dashed, dotted and solid."""


def round_figure(obs: pd.DataFrame, corrected: pd.DataFrame, replaced: pd.DataFrame | None, metric: str):
    """Small multiples of ``metric`` (``"lkr"`` or ``"tdr"``) per round: a row per model, a
    column per deck; in each panel the judge's rate (dashed), the rate with human labels
    replacing the judge's (dotted) and the corrected rate with its 95 % Rogan–Gladen band
    (solid); one legend beside the panels."""
    decks = sorted(obs["deck"].unique())
    models = sorted(obs["model"].unique())
    fig = new_figure(min(9.6, 1.6 + 4.0 * len(decks)), 0.8 + 2.4 * len(models))
    axes = fig.subplots(len(models), len(decks), squeeze=False, sharex=True, sharey=True)
    column = "knows" if metric == "lkr" else "true_def"
    judge_colour, replaced_colour, corrected_colour = palette(len(ROUND_SERIES))
    for row, model in enumerate(models):
        for ax, deck in zip(axes[row], decks, strict=True):
            part = obs[(obs["deck"] == deck) & (obs["model"] == model)]
            judge = part.groupby("round_id")[column].mean()
            ax.plot(judge.index, judge.to_numpy(), ls="--", color=judge_colour, label=ROUND_SERIES[0])
            if replaced is not None:
                rp = replaced[(replaced["deck"] == deck) & (replaced["model"] == model)]
                rep = rp.groupby("round_id")[column].mean()
                ax.plot(rep.index, rep.to_numpy(), ls=":", lw=2, color=replaced_colour, label=ROUND_SERIES[1])
            c = corrected[
                (corrected["deck"] == deck) & (corrected["model"] == model) & (corrected["metric"] == metric)
            ]
            if len(c):
                c = c.sort_values("round_id")
                ax.plot(c["round_id"], c["rg"], color=corrected_colour, label=ROUND_SERIES[2])
                ax.fill_between(
                    c["round_id"], c["rg_low"], c["rg_high"], color=corrected_colour, alpha=0.15,
                    label="corrected 95 % band",
                )  # fmt: skip
            ax.set_title(plot_text(f"{model} — {deck}"), fontsize="medium")
            ax.set_ylim(0, 1.02)
        axes[row][0].set_ylabel(metric.upper())
    for ax in axes[-1]:
        ax.set_xlabel("round")
    fig.suptitle(f"{metric.upper()} per round")
    legend_outside(fig)
    return fig


_SHOWN = (
    "labels", "model", "history_type", "outcome", "games", "n_obs", "rate", "slope", "gee_ci_low",
    "gee_ci_high", "gee_p_t", "gee_p_z", "twostage_slope", "twostage_p", "mixed_slope",
    "mixed_p", "adj_slope", "adj_ci_low", "adj_ci_high", "adj_p", "note",
)  # fmt: skip


def trend_section(table: pd.DataFrame) -> Section:
    """Report section for a :func:`trend_tests` table: how to read it, the table, the caveats."""
    frame = check_frame(table, ("outcome", "games", "slope", "gee_p_t", "note"), "trend")
    shown = frame[[c for c in _SHOWN if c in frame.columns]]
    outcomes = ", ".join(sorted(set(frame["outcome"].astype(str))))
    blocks = [
        Paragraph(
            "Trend over rounds, per model and history type ('all' pools history types). "
            "Round is rescaled so a slope is the change from the first to the last round. "
            "Primary: GEE logistic slope (logit scale), exchangeable correlation within game, "
            "Mancl-DeRouen bias-reduced SE, p-value and 95% interval from t with G - 1 df "
            "(G = games); gee_p_z is the normal-reference p-value statsmodels prints, shown "
            "for comparison only (too small with few games). Two-stage: a least-squares slope "
            "of the per-round proportion per game (proportion scale), then a one-sample t-test "
            "across games."
        ),
        Table(shown, caption=f"Trend tests ({outcomes})"),
        Paragraph(f"Mixed model (secondary): {MIXED_NOTE}; " + " ".join(fallback_lines(frame))),
        Paragraph(
            "A p-value above 0.05 is not evidence of no trend: with a handful of games the "
            "intervals are wide. Read 'no trend' only where the whole interval lies inside "
            "the smallest change that would matter."
        ),
    ]
    if "adj_slope" in frame.columns:
        blocks.append(
            Paragraph(
                "adj_*: slope corrected for the judge's errors, P(judged true) = (1 - Sp) + "
                "(Se + Sp - 1) expit(eta), over posterior draws of Se and Sp from the human "
                "sample, combined by Rubin's rules. It assumes Se and Sp do not change with "
                "round; check with se_sp_drift."
            )
        )
    return Section("Trend over rounds", blocks)


def fallback_lines(table: pd.DataFrame) -> list[str]:
    """Which mixed-model fits fell back from the first optimiser (one line, naming the rows)."""
    if "mixed_optimizer" not in table.columns:
        return []
    first, fallback = stats_models.FIRST_OPTIMIZER, stats_models.FALLBACK_OPTIMIZER
    fell = table[table["mixed_optimizer"] == fallback]
    if fell.empty:
        return [f"mixed model: no fit fell back ({first} converged wherever it was fitted)"]
    keys = [c for c in ("labels", "outcome", "model", "history_type") if c in fell.columns]
    rows = ", ".join("/".join(str(v) for v in r) for r in fell[keys].itertuples(index=False))
    return [f"mixed model: {len(fell)} fit(s) fell back from {first} (did not converge) to {fallback}: {rows}"]  # fmt: skip


def _drift_blocks(trend: TrendAnalysis) -> list:
    from wordplay_audit.analysis.balderdash.drift import drift_text  # statsmodels: only with a drift

    blocks = []
    for outcome, result in trend.drift.items():
        verdict = drift_text(result)
        if result["drift"]:
            verdict += " — a trend in judged outcomes may come from the judge alone"
        blocks.append(Paragraph(f"Judge drift over rounds in the human sample ({outcome}): {verdict}."))
    return blocks


def _metrics_blocks(result: BalderdashAnalysis) -> list:
    settings = result.metrics["settings"]
    show = [c for c in ("deck", "filter_words", "history_type", "model", "n_games") if c in settings.columns]
    show += [f"{m}_{s}" for m in ("lkr", "tdr", "dr", "cgr", "as") for s in ("mean", "sd")]
    blocks: list = [
        Paragraph(
            "Metrics as the study computes them (judge labels): per round, averaged over a game's rounds, "
            "then mean and population SD over games; undefined DR/CGR values are left out."
        ),
        Table(settings[show], caption="Study metrics per setting and model (judge labels)"),
    ]
    if result.skipped:
        blocks.append(Bullets([f"{k}: {v}" for k, v in sorted(result.skipped.items())]))
    return blocks


_AUDIT_W = [
    "player_model", "n_labelled", "recall_w", "fnr_w", "fnr_w_low", "fnr_w_high", "specificity_w",
    "specificity_w_low", "specificity_w_high", "precision_w",
]  # fmt: skip
_AUDIT_RAW = ["player_model", "tp", "fp", "fn", "tn", "precision", "recall", "fnr", "fnr_low", "fnr_high"]
CORRECTED_SHOWN = _CORRECTED_COLUMNS = [
    "metric", "model", "deck", "n", "n_labelled", "judge", "rg", "rg_low", "rg_high", "rg_unknown",
    "ppi", "ppi_low", "ppi_high", "ppi_unknown", "rg_reason", "ppi_reason",
]  # fmt: skip

UNKNOWN_NOTE = f"rg_unknown, ppi_unknown: definitions of {UNKNOWN_PART}, counted as unknown in the interval"


def _audit_blocks(result: BalderdashAnalysis) -> list:
    blocks: list = []
    for question, table in result.audits.items():
        caption = (
            f"Judge accuracy per model, question {question!r}, re-weighted to all judged definitions (95 %)"
        )
        blocks.append(Table(table[_AUDIT_W], caption=caption))
        caption = f"Raw counts and rates on the labelled items only ({question!r}; Wilson 95 %)"
        blocks.append(Table(table[_AUDIT_RAW], caption=caption))
    return blocks


def _human_blocks(result: BalderdashAnalysis) -> list:
    blocks = _audit_blocks(result)
    blocks.append(
        Table(
            result.corrected[[c for c in _CORRECTED_COLUMNS if c in result.corrected.columns]],
            caption="Corrected LKR and TDR per model and deck (95 % intervals: Rogan–Gladen and PPI; "
            f"a missing interval says why in *_reason; {UNKNOWN_NOTE})",
        )
    )
    status = result.replaced.drop_duplicates(["game_id", "round_id"])["round_status"].value_counts()
    blocks.append(
        Paragraph(
            f"Replaced labels — {REPLACED_NOTE}. Rounds after replacing: "
            + ", ".join(f"{k} {v}" for k, v in status.items())
            + "."
        )
    )
    if result.replaced_rates is not None:
        blocks.append(
            Table(result.replaced_rates, caption="Replaced labels (sensitivity view, not an estimate)")
        )
    for metric in ("lkr", "tdr"):
        png = figure_png(round_figure(result.obs, result.corrected_round, result.replaced, metric))
        caption = (
            f"{metric.upper()} per round, a row per model and a column per deck: judge (dashed), "
            "replaced (dotted; a sensitivity view), corrected with 95 % Rogan–Gladen band (solid). "
            + _round_basis_note(result.corrected_round, metric)
        )
        blocks.append(Figure(png, caption=caption))
    return blocks


def _round_basis_note(rounds: pd.DataFrame | None, metric: str) -> str:
    """What the per-round corrected line rests on: borrowed Se/Sp (assumed constant), or gaps."""
    part = rounds[rounds["metric"] == metric] if rounds is not None else pd.DataFrame()
    if len(part) and (part["rg_basis"] == "stratum").any():
        return (
            "A round with too few labels of its own borrows its model × deck's Se and Sp, so its band "
            "assumes the judge as accurate in every round (see the drift check under the trend tests)"
        )
    if len(part) and part["rg_reason"].fillna("").str.contains("assuming the judge as accurate").any():
        return (
            "A round without 5 labels of its own per post-stratum has no corrected value: borrowing "
            "its deck's Se and Sp would assume the judge as accurate in every round (opt in with "
            "constant_accuracy / --assume-constant-accuracy)"
        )
    return ""


def _convergence_blocks(conv: pd.DataFrame) -> list:
    keys = [c for c in DEFAULT_SETTING if c in conv.columns and conv[c].nunique() > 1]
    cols = [
        *keys, "model", "eps", "converged_judge", "T_judge", "converged_replaced", "se", "tau",
        "judge_unreachable", "window_lower", "window_basis", "converged_window",
    ]  # fmt: skip
    cols = [c for c in cols if c in conv.columns]
    blocks: list = [
        Table(
            conv[cols], caption="Convergence (Eq. 6: LKR_n > 1 − ε for all n > T) per ε; empty = cannot tell"
        )
    ]
    reasons = []
    for column in [c for c in conv.columns if c.endswith("_reason")]:
        for reason in conv[column].dropna().unique():
            reasons.append(
                f"{column.removesuffix('_reason')} cannot be told in {int((conv[column] == reason).sum())} rows: {reason}"
            )
    if reasons:
        blocks.append(Bullets(reasons))
    return blocks


def balderdash_section(
    result: BalderdashAnalysis,
    *,
    title: str = "Balderdash: metrics under judge and human labels",
    campaign: dict | None = None,
) -> Section:
    """Report section: metrics per setting, judge FNR per model, LKR/TDR per round under judge,
    replaced and corrected labels (95 % Rogan–Gladen bands), convergence and trend tests; with
    an adaptive ``campaign`` manifest, its interval width against labels spent."""
    blocks = _metrics_blocks(result)
    if result.corrected is not None:
        blocks += _human_blocks(result)
    history = width_history(campaign) if campaign is not None else None
    if history is not None and len(history):
        blocks += adaptive_blocks(history)
    blocks += _convergence_blocks(result.convergence)
    blocks += list(trend_section(result.trend.table).blocks)
    blocks += _drift_blocks(result.trend)
    return Section(title, blocks)
