"""The Balderdash section of the HTML report, and the small simulated campaign of the demo."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from wordplay_audit.analysis.balderdash.convergence import DEFAULT_EPS, convergence_table
from wordplay_audit.analysis.balderdash.metrics import DEFAULT_SETTING, balderdash_metrics
from wordplay_audit.analysis.balderdash.recompute import (
    corrected_rates,
    recompute_scores,
    replace_labels,
    replaced_round_metrics,
)
from wordplay_audit.analysis.judge_audit import judge_confusion
from wordplay_audit.analysis.report import Bullets, Figure, Paragraph, Section, Table, figure_png


def judge_rows(obs: pd.DataFrame) -> pd.DataFrame:
    """The judge's two decisions per definition as contract labels (from a player-round table)."""
    from wordplay_audit.corpora.balderdash import judge_labels_from_table

    return judge_labels_from_table(obs)


def strata_items(obs: pd.DataFrame) -> pd.DataFrame:
    """Minimal items (``item_id``, ``player_model``, ``deck``) for :func:`judge_confusion`."""
    return pd.DataFrame({"item_id": obs["item_id"], "player_model": obs["model"], "deck": obs["deck"]})


def judge_audit_tables(obs: pd.DataFrame, labels: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """Per-model judge audit for both questions (``reference`` → TDR, ``any_sense`` → LKR)."""
    combined = pd.concat([labels, judge_rows(obs)], ignore_index=True)
    items = strata_items(obs)
    out = {}
    for question in ("reference", "any_sense"):
        has = labels.get("question", pd.Series(["reference"] * len(labels))).fillna("reference").replace("", "reference")
        if not (has == question).any():
            continue
        out[question] = judge_confusion(combined, items, by="player_model", question=question, strata=("deck",))
    return out


def _round_figure(obs: pd.DataFrame, corrected: pd.DataFrame, replaced: pd.DataFrame | None, metric: str) -> bytes:
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    decks = sorted(obs["deck"].unique())
    fig, axes = plt.subplots(1, len(decks), figsize=(5.5 * len(decks), 3.8), squeeze=False, sharey=True)
    column = "knows" if metric == "lkr" else "true_def"
    for ax, deck in zip(axes[0], decks, strict=True):
        for k, model in enumerate(sorted(obs["model"].unique())):
            colour = f"C{k}"
            part = obs[(obs["deck"] == deck) & (obs["model"] == model)]
            judge = part.groupby("round_id")[column].mean()
            ax.plot(judge.index, judge.to_numpy(), ls="--", color=colour, label=f"{model} judge")
            if replaced is not None:
                rp = replaced[(replaced["deck"] == deck) & (replaced["model"] == model)]
                rep = rp.groupby("round_id")[column].mean()
                ax.plot(rep.index, rep.to_numpy(), ls=":", color=colour, label=f"{model} replaced")
            c = corrected[(corrected["deck"] == deck) & (corrected["model"] == model) & (corrected["metric"] == metric)]
            if len(c):
                c = c.sort_values("round_id")
                ax.plot(c["round_id"], c["rg"], color=colour, label=f"{model} corrected (RG)")
                ax.fill_between(c["round_id"], c["rg_low"], c["rg_high"], color=colour, alpha=0.15)
        ax.set_title(f"{metric.upper()} per round — {deck}")
        ax.set_xlabel("round")
        ax.set_ylim(0, 1.02)
    axes[0][0].set_ylabel(metric.upper())
    axes[0][-1].legend(fontsize=7, loc="lower right")
    return figure_png(fig)


OUTCOME_QUESTION = {"knows": ("any_sense", "human_any", "knows_judge"), "true_def": ("reference", "human_ref", "true_def_judge")}
"""Trend outcome → (question people answered, consensus column, judge column of replace_labels)."""


def _pseudo_counts(audit: pd.DataFrame) -> dict[str, tuple[int, int, int, int]]:
    """(TP, FN, TN, FP) per model for the adjusted trend test, from the re-weighted Se and Sp.

    Under a sample stratified on the judge's verdict the raw counts over-represent one verdict,
    so Se = TP/(TP + FN) is biased; the re-weighted ``recall_w``/``specificity_w`` are not. The
    counts passed on keep the human sample's positive and negative sizes and the re-weighted
    rates (raw rates where a re-weighted one is undefined).
    """
    out = {}
    for r in audit.to_dict(orient="records"):
        n_pos, n_neg = int(r["tp"] + r["fn"]), int(r["tn"] + r["fp"])
        se = r.get("recall_w", np.nan)
        sp = r.get("specificity_w", np.nan)
        se = se if np.isfinite(se) else (r["tp"] / n_pos if n_pos else np.nan)
        sp = sp if np.isfinite(sp) else (r["tn"] / n_neg if n_neg else np.nan)
        if not (np.isfinite(se) and np.isfinite(sp)):
            continue
        tp, tn = int(round(se * n_pos)), int(round(sp * n_neg))
        out[str(r["player_model"])] = (tp, n_pos - tp, tn, n_neg - tn)
    return out


def trend_analysis(
    obs: pd.DataFrame, labels: pd.DataFrame | None = None, *, mixed: bool = True, seed: int = 0
) -> dict[str, Any]:
    """Trend tests of LKR (``knows``) and TDR (``true_def``) over rounds.

    Under judge labels, with the misclassification-adjusted slope when ``labels`` hold human
    answers for the outcome's question; under replaced labels too when ``labels`` are given;
    and the judge drift check (Se, Sp vs round) in the human sample. Returns ``table`` (all
    rows, column ``labels`` = judge | replaced) and ``drift`` {outcome: DriftResult fields}.
    """
    import warnings

    from wordplay_audit.analysis.balderdash.trend import DriftWarning, se_sp_drift, trend_tests

    audits = judge_audit_tables(obs, labels) if labels is not None and len(labels) else {}
    replaced = replace_labels(obs, labels) if labels is not None and len(labels) else None
    tables, drift = [], {}
    pooled = obs["history_type"].nunique() > 1  # an "all" row only adds something then
    for outcome, (question, human_col, judge_col) in OUTCOME_QUESTION.items():
        se_sp = _pseudo_counts(audits[question]) if question in audits else None
        table = trend_tests(obs, outcome=outcome, se_sp=se_sp or None, mixed=mixed, seed=seed, pooled=pooled)
        table.insert(0, "labels", "judge")
        tables.append(table)
        if replaced is None:
            continue
        table = trend_tests(replaced, outcome=outcome, mixed=mixed, seed=seed, pooled=pooled)
        table.insert(0, "labels", "replaced")
        tables.append(table)
        sample = replaced[replaced[human_col].notna()]
        if len(sample):
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always", DriftWarning)
                result = se_sp_drift(sample.assign(human=sample[human_col].astype(bool), judge=sample[judge_col]))
            drift[outcome] = {**result.__dict__, "warnings": [str(w.message) for w in caught]}
    return {"table": pd.concat(tables, ignore_index=True), "drift": drift}


def _trend_blocks(obs: pd.DataFrame, labels: pd.DataFrame | None) -> list:
    """The trend tests' report blocks (table, how to read it, drift warnings)."""
    from wordplay_audit.analysis.balderdash.trend import trend_section

    analysis = trend_analysis(obs, labels)
    blocks = list(trend_section(analysis["table"]).blocks)
    for outcome, result in analysis["drift"].items():
        text = (
            f"Judge drift over rounds in the human sample ({outcome}): Se p = {result['se_p']:.3g}, "
            f"Sp p = {result['sp_p']:.3g}" + (" — DRIFT: a trend in judged outcomes may come from the judge alone."
                                               if result["drift"] else " — no drift detected.")
        )
        blocks.append(Paragraph(text))
    return blocks


def balderdash_section(
    obs: pd.DataFrame,
    labels: pd.DataFrame | None = None,
    *,
    eps: Sequence[float] = DEFAULT_EPS,
    design: str = "stratified",
    skipped: dict[str, int] | None = None,
    title: str = "Balderdash: metrics under judge and human labels",
    convergence: pd.DataFrame | None = None,
) -> Section:
    """Report section: metrics per setting, judge FNR per model, LKR/TDR per round under judge,
    replaced and corrected labels (95 % Rogan–Gladen bands), and the convergence table."""
    blocks: list = []
    metrics = balderdash_metrics(obs)
    settings = metrics["settings"]
    show = [c for c in ("deck", "filter_words", "history_type", "model", "n_games") if c in settings.columns]
    show += [f"{m}_{s}" for m in ("lkr", "tdr", "dr", "cgr", "as") for s in ("mean", "sd")]
    blocks.append(Paragraph(
        "Metrics as the study computes them (judge labels): per round, averaged over a game's rounds, "
        "then mean and population SD over games; undefined DR/CGR values are left out."
    ))
    blocks.append(Table(settings[show], caption="Study metrics per setting and model (judge labels)"))
    if skipped:
        blocks.append(Bullets([f"{k}: {v}" for k, v in sorted(skipped.items())]))
    replaced = None
    corrected_round = None
    if labels is not None and len(labels):
        audits = judge_audit_tables(obs, labels)
        for question, table in audits.items():
            cols = ["player_model", "n_labelled", "tp", "fp", "fn", "tn", "precision", "recall", "f1",
                    "fnr", "fnr_low", "fnr_high", "fnr_w", "fnr_w_low", "fnr_w_high"]
            blocks.append(Table(table[cols], caption=f"Judge vs human consensus per model, question {question!r} "
                                "(Wilson 95 % intervals; _w = re-weighted to all judged definitions)"))
        replaced = recompute_scores(replace_labels(obs, labels))
        rm = replaced_round_metrics(replaced)
        status = replaced.drop_duplicates(["game_id", "round_id"])["round_status"].value_counts()
        blocks.append(Paragraph(
            "Rounds after replacing the judge's verdicts by the human consensus: "
            + ", ".join(f"{k} {v}" for k, v in status.items())
            + f". LKR/TDR under replaced labels: mean LKR {rm['lkr'].mean():.3f}, TDR {rm['tdr'].mean():.3f} "
            "(judge: " + f"{metrics['rounds']['lkr'].mean():.3f}, {metrics['rounds']['tdr'].mean():.3f})."
        ))
        corrected = corrected_rates(obs, labels, design=design)
        blocks.append(Table(
            corrected[["metric", "model", "deck", "n", "n_labelled", "judge", "replaced", "rg", "rg_low", "rg_high",
                       "ppi", "ppi_low", "ppi_high"]],
            caption="Corrected LKR and TDR per model and deck (95 % intervals: Rogan–Gladen and PPI++)",
        ))
        corrected_round = corrected_rates(obs, labels, by=("model", "deck", "round_id"), design=design)
        for metric in ("lkr", "tdr"):
            blocks.append(Figure(_round_figure(obs, corrected_round, replaced, metric),
                                 caption=f"{metric.upper()} per round: judge (dashed), replaced (dotted), "
                                 "corrected with 95 % Rogan–Gladen band (solid)"))
    conv = convergence
    if conv is None:
        conv = convergence_table(obs, labels if labels is not None and len(labels) else None, eps=eps, design=design)
    keys = [c for c in DEFAULT_SETTING if c in conv.columns and conv[c].nunique() > 1]
    cols = [*keys, "model", "eps", "converged_judge", "T_judge", "converged_replaced", "converged_corrected",
            "se", "tau", "judge_unreachable", "window_lower", "converged_window"]
    blocks.append(Table(conv[cols], caption="Convergence (Eq. 6: LKR_n > 1 − ε for all n > T) per ε"))
    blocks.extend(_trend_blocks(obs, labels))
    return Section(title, blocks)


def run_demo_part(out_dir: str | Path, seed: int = 0) -> tuple[dict[str, Any], Section]:
    """Simulate a small campaign (one model knows every word), write it under ``out_dir`` and
    analyse it as a user would: read the export back, audit the judge, correct, test convergence.

    Returns a JSON-ready summary and the report section. Runs in a few seconds.
    """
    from wordplay_audit.analysis.balderdash.simulate import SimConfig, true_rates
    from wordplay_audit.corpora.balderdash import player_round_table, read_export
    from wordplay_audit.corpora.balderdash_sim import simulate_to_folder
    from wordplay_audit.corpora.contract import read_labels

    folder = Path(out_dir) / "balderdash"
    models = ("omniscient-llm", "average-llm")
    config = SimConfig(
        models=models,
        games_per_deck=2,
        players_per_model=2,
        n_rounds=12,
        know={"omniscient-llm": {"basic_english_words": 1.0, "balderdash_words": 1.0}},
        labels_per_stratum=20,
    )
    campaign = simulate_to_folder(folder, seed=seed, config=config)
    export = read_export(folder)
    obs = player_round_table(export)
    labels = read_labels(folder / "labels.csv")
    conv = convergence_table(obs, labels, eps=(0.1, 0.2, 0.3))
    section = balderdash_section(obs, labels, skipped=export.skipped, convergence=conv,
                                 title="Balderdash (simulated demo campaign)")
    audits = judge_audit_tables(obs, labels)
    omni = conv[(conv["model"] == "omniscient-llm") & (conv["eps"] == 0.1)]
    truth = true_rates(campaign)
    summary = {
        "export": str(folder),
        "n_definitions": int(len(obs)),
        "n_human_labels": int(len(labels)),
        "judge_fnr": {
            str(r["player_model"]): float(r["fnr_w"]) for r in audits["reference"].to_dict(orient="records")
        },
        "omniscient_true_lkr": float(truth.loc[truth["model"] == "omniscient-llm", "lkr"].mean()),
        "omniscient_judge_lkr": float(obs.loc[obs["model"] == "omniscient-llm", "knows"].mean()),
        "omniscient_converged_eps_0.1": {
            "judge_labels": bool(omni["converged_judge"].all()),
            "corrected": bool(omni["converged_corrected"].fillna(False).all()),
            "window_bound": bool(omni["converged_window"].fillna(False).all()),
        },
        "window_lower_bound": [float(v) for v in omni["window_lower"].to_numpy() if np.isfinite(v)],
    }
    return summary, section
