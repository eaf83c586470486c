"""Everything the Balderdash report and commands show, computed once: :func:`analyze_balderdash`.

The judge audit per question, metrics under replaced labels, corrected rates per cell and per
round, convergence and the trend tests are each computed here one time; the report section
(:mod:`.report`) only lays the result out, and the CLI prints parts of it.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from wordplay_audit.analysis.balderdash.convergence import DEFAULT_EPS, convergence_table
from wordplay_audit.analysis.balderdash.corrected import CorrectionOptions, corrected_rates
from wordplay_audit.analysis.balderdash.metrics import balderdash_metrics
from wordplay_audit.analysis.balderdash.recompute import (
    REPLACED_NOTE,
    ids_unique,
    item_rows,
    recompute_scores,
    replace_labels,
    replaced_rates,
    replaced_round_metrics,
)
from wordplay_audit.analysis.judge_audit import audit_frame, confusion_table, human_consensus, judge_confusion
from wordplay_audit.corpora.balderdash import judge_labels_from_table
from wordplay_audit.corpora.consensus import PEOPLE
from wordplay_audit.corpora.contract import is_final_labels

OUTCOME_QUESTION = {
    "knows": ("any_sense", "human_any", "knows_judge"),
    "true_def": ("reference", "human_ref", "true_def_judge"),
}
"""Trend outcome → (question people answered, consensus column, judge column of replace_labels)."""


def strata_items(obs: pd.DataFrame) -> pd.DataFrame:
    """Minimal items (``item_id``, ``player_model``, ``deck``) for :func:`judge_confusion`."""
    return pd.DataFrame({"item_id": obs["item_id"], "player_model": obs["model"], "deck": obs["deck"]})


def _questions(labels: pd.DataFrame) -> set[str]:
    if "question" not in labels.columns:
        return {"reference"}
    return set(labels["question"].fillna("").astype(str).str.strip().replace("", "reference"))


def judge_audit_tables(obs: pd.DataFrame, labels: pd.DataFrame, *, seed: int = 0) -> dict[str, pd.DataFrame]:
    """Per-model judge audit for each question people answered (``reference`` → TDR,
    ``any_sense`` → LKR), re-weighted within deck × judge verdict (``seed``: its randomised
    intervals, :func:`analysis.judge_audit.judge_confusion`)."""
    present = [q for q in ("reference", "any_sense") if q in _questions(labels)]
    if _direct_audit_ok(obs, labels):
        return {
            q: confusion_table(
                _audit_frame_of(obs, labels, q), by="player_model", strata=("deck",), seed=seed
            )
            for q in present
        }
    items = strata_items(obs)
    if is_final_labels(labels):  # one label per item: the judge's rows beside it, not in it
        judged = judge_labels_from_table(obs)
        return {
            question: confusion_table(
                audit_frame(judged, items, question=question, human=labels),
                by="player_model",
                strata=("deck",),
                seed=seed,
            )  # fmt: skip
            for question in present
        }
    combined = pd.concat([labels, judge_labels_from_table(obs)], ignore_index=True)
    return {
        question: judge_confusion(
            combined, items, by="player_model", question=question, strata=("deck",), seed=seed
        )
        for question in present
    }


def _direct_audit_ok(obs: pd.DataFrame, labels: pd.DataFrame) -> bool:
    """Whether :func:`_audit_frame_of` gives what the judge's rows as labels would: people's
    labels only (per rater, with adjudications, or final), one named judge, boolean verdicts,
    every definition once (else the labels path, with its errors)."""
    people_only = is_final_labels(labels) or (
        "rater_type" in labels.columns and labels["rater_type"].astype(str).str.strip().isin(PEOPLE).all()
    )
    if not people_only:
        return False
    judges = obs["judge_model"].unique()
    return (
        len(judges) == 1
        and isinstance(judges[0], str)
        and judges[0].strip() != ""
        and all(obs[c].dtype == bool for c in ("true_def", "knows"))
        and ids_unique(obs["item_id"])
    )


_JUDGE_COLUMN = {"reference": "true_def", "any_sense": "knows"}


def _audit_frame_of(obs: pd.DataFrame, labels: pd.DataFrame, question: str) -> pd.DataFrame:
    """:func:`analysis.judge_audit.audit_frame` of the judge's verdicts in ``obs`` and people's
    ``labels`` (the columns the audit uses), by position: no 2 × n label rows, no joins."""
    consensus = human_consensus(labels, question=question)
    found = item_rows(obs["item_id"], consensus["item_id"])
    hit = found >= 0
    human = consensus["human"].to_numpy(object)[found] if len(consensus) else found.astype(object)
    tie = consensus["tie"].to_numpy(bool)[found] if len(consensus) else hit
    frame = pd.DataFrame(
        {
            "item_id": obs["item_id"].array,
            "judge": obs[_JUDGE_COLUMN[question]].to_numpy(bool),
            "human": pd.array(np.where(hit, human, None), dtype="boolean"),
            "tie": hit & tie,
            # categoricals: the audit groups the million rows by model, deck and verdict
            "player_model": pd.Categorical(obs["model"]),
            "deck": pd.Categorical(obs["deck"]),
        }
    )
    frame["labelled"] = frame["human"].notna()
    in_obs = np.zeros(len(consensus), dtype=bool)
    in_obs[found[hit]] = True
    frame.attrs["skipped"] = {"human_without_judge": int((~in_obs).sum()), "ties": int(frame["tie"].sum())}
    return frame


def pseudo_counts(audit: pd.DataFrame) -> dict[str, tuple[int, int, int, int]]:
    """(TP, FN, TN, FP) per model for the adjusted trend test, from the re-weighted Se and Sp.

    Under a sample stratified on the judge's verdict the raw counts over-represent one verdict,
    so Se = TP/(TP + FN) is biased; the re-weighted ``recall_w``/``specificity_w`` are not. The
    counts keep the human sample's positive and negative sizes and the re-weighted rates (raw
    rates where a re-weighted one is undefined).
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


@dataclass
class TrendAnalysis:
    """Trend tests under judge (and replaced) labels, and the judge-drift check per outcome."""

    table: pd.DataFrame
    drift: dict[str, dict] = field(default_factory=dict)

    def to_dict(self) -> dict:
        return {"trend": self.table.to_dict(orient="records"), "drift": self.drift}


def _drift(replaced: pd.DataFrame, human_col: str, judge_col: str) -> dict | None:
    sample = replaced[replaced[human_col].notna()]
    if not len(sample):
        return None
    from wordplay_audit.analysis.balderdash.drift import DriftWarning, se_sp_drift  # statsmodels: on use

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", DriftWarning)
        result = se_sp_drift(sample.assign(human=sample[human_col].astype(bool), judge=sample[judge_col]))
    return {**result.__dict__, "warnings": [str(w.message) for w in caught]}


def trend_analysis(
    obs: pd.DataFrame,
    labels: pd.DataFrame | None = None,
    *,
    mixed: bool = True,
    seed: int = 0,
    audits: dict[str, pd.DataFrame] | None = None,
    progress: bool | None = None,
) -> TrendAnalysis:
    """Trend tests of LKR (``knows``) and TDR (``true_def``) over rounds.

    Under judge labels, with the misclassification-adjusted slope when ``labels`` hold human
    answers for the outcome's question; under replaced labels too when ``labels`` are given;
    and the judge drift check (Se, Sp vs round) in the human sample. ``table`` holds all rows
    (column ``labels`` = judge | replaced). ``progress``: bars over the cells (see
    :func:`trend_tests`).
    """
    from wordplay_audit.analysis.balderdash.trend import trend_tests  # statsmodels: imported on use

    has_labels = labels is not None and len(labels) > 0
    if audits is None:
        audits = judge_audit_tables(obs, labels, seed=seed) if has_labels else {}
    replaced = replace_labels(obs, labels) if has_labels else None
    tables, drift = [], {}
    pooled = obs["history_type"].nunique() > 1  # an "all" row only adds something then
    for outcome, (question, human_col, judge_col) in OUTCOME_QUESTION.items():
        se_sp = pseudo_counts(audits[question]) if question in audits else None
        table = trend_tests(obs, outcome=outcome, se_sp=se_sp or None, mixed=mixed, seed=seed, pooled=pooled,
                            progress=progress)  # fmt: skip
        tables.append(table.assign(labels="judge"))
        if replaced is None:
            continue
        table = trend_tests(
            replaced, outcome=outcome, mixed=mixed, seed=seed, pooled=pooled, progress=progress
        )
        tables.append(table.assign(labels="replaced"))
        found = _drift(replaced, human_col, judge_col)
        if found is not None:
            drift[outcome] = found
    table = pd.concat(tables, ignore_index=True)
    table = table[["labels", *[c for c in table.columns if c != "labels"]]]
    return TrendAnalysis(table, drift)


@dataclass
class BalderdashAnalysis:
    """What the Balderdash report shows, computed once by :func:`analyze_balderdash`."""

    obs: pd.DataFrame
    metrics: dict[str, pd.DataFrame]
    convergence: pd.DataFrame
    trend: TrendAnalysis
    skipped: dict[str, int] = field(default_factory=dict)
    audits: dict[str, pd.DataFrame] = field(default_factory=dict)
    replaced: pd.DataFrame | None = None
    replaced_rounds: pd.DataFrame | None = None
    corrected: pd.DataFrame | None = None
    corrected_round: pd.DataFrame | None = None
    replaced_rates: pd.DataFrame | None = None

    def to_dict(self) -> dict:
        records = lambda f: None if f is None else f.to_dict(orient="records")  # noqa: E731
        return {
            "settings": records(self.metrics["settings"]),
            "skipped": self.skipped,
            "judge_audit": {q: records(t) for q, t in self.audits.items()},
            "corrected": records(self.corrected),
            "replaced_note": REPLACED_NOTE,
            "replaced_rates": records(self.replaced_rates),
            "convergence": records(self.convergence),
            **self.trend.to_dict(),
        }


def analyze_balderdash(
    obs: pd.DataFrame,
    labels: pd.DataFrame | None = None,
    *,
    eps: Sequence[float] = DEFAULT_EPS,
    design: str = "stratified",
    skipped: dict[str, int] | None = None,
    seed: int = 0,
    constant_accuracy: bool = False,
) -> BalderdashAnalysis:
    """Metrics (judge labels), and with human ``labels`` the judge audit, replaced labels,
    corrected rates per (model, deck) and per round, convergence per ε and the trend tests.
    ``constant_accuracy``: a round without enough labels of its own may borrow its deck's Se
    and Sp (``CorrectionOptions.constant_accuracy``; else it has no corrected value)."""
    has_labels = labels is not None and len(labels) > 0
    result = BalderdashAnalysis(
        obs=obs,
        metrics=balderdash_metrics(obs),
        convergence=convergence_table(
            obs, labels if has_labels else None, eps=eps, design=design, constant_accuracy=constant_accuracy
        ),
        trend=TrendAnalysis(pd.DataFrame()),
        skipped=dict(skipped or {}),
    )
    if has_labels:
        result.audits = judge_audit_tables(obs, labels, seed=seed)
        replaced = replace_labels(obs, labels)
        result.replaced = recompute_scores(replaced)
        result.replaced_rounds = replaced_round_metrics(result.replaced)
        result.corrected = corrected_rates(obs, labels, design=design)
        result.corrected_round = corrected_rates(
            obs, labels, by=("model", "deck", "round_id"), design=design,
            options=CorrectionOptions(constant_accuracy=constant_accuracy),
        )  # fmt: skip
        result.replaced_rates = replaced_rates(obs, labels, replaced=replaced)
    result.trend = trend_analysis(obs, labels if has_labels else None, seed=seed, audits=result.audits)
    return result
