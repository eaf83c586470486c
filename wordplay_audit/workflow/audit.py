"""A judge's verdicts against people's labels per group, with intervals (``analyze judge-audit``).

In a notebook::

    import wordplay_audit as wa
    audit = wa.judge_audit(wa.read_labels("judge.csv"), wa.read_labels("human.csv"),
                           items=wa.read_items("items.csv"), by=["player_model"])
    audit.to_frame()[["judge", "player_model", "f1", "fnr"]]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import pandas as pd

from wordplay_audit.errors import ParameterError
from wordplay_audit.workflow.results import Result, plain
from wordplay_audit.workflow.text import counted, number

__all__ = ["JudgeAudit", "judge_audit"]

MAX_BOOTSTRAP = 10**7  # 4 cells × 8 bytes × a few copies per resample: ~1.5 GB at the cap


def one_question(labels: pd.DataFrame, question: str) -> pd.DataFrame:
    """The rows of ``labels`` about ``question`` (all rows without a ``question`` column; an
    empty value counts as ``reference``)."""
    if "question" not in labels.columns:
        return labels
    asked = labels["question"].astype(str).str.strip().replace("", "reference")
    kept = labels[(asked == question).to_numpy()]
    kept.attrs = dict(labels.attrs)
    return kept


@dataclass
class JudgeAudit(Result):
    """One row per (judge, group): the confusion counts, precision, recall, F1, FNR, FPR, κ
    with intervals (:class:`~wordplay_audit.analysis.judge_audit_groups.JudgeAuditResult`)."""

    title = "Judge audit"
    main_table = "judge_audit"

    result: Any

    def tables(self) -> dict[str, pd.DataFrame]:
        return {"judge_audit": self.result.table()}

    def figures(self) -> dict[str, bytes]:
        from wordplay_audit.analysis.judge_audit_report import audit_figures

        return audit_figures(self.result)

    def to_dict(self) -> dict[str, Any]:
        return plain(self.result.to_dict())

    def summary(self) -> list[str]:
        from wordplay_audit.analysis.judge_audit_cells import estimate_text

        def est(e: dict) -> str:
            return estimate_text(e["value"], e["ci_low"], e["ci_high"], e["ci_reason"])

        lines = []
        for row in self.result.rows:
            group = " / ".join(str(row[c]) for c in self.result.by) or "all"
            flag = " (small)" if row["small"] else ""
            lines.append(f"{row['judge']} | {group}{flag}: n {row['n']} (tp {row['tp']} fp {row['fp']} fn {row['fn']} "
                         f"tn {row['tn']}, unparsed {row['n_unparsed']})  F1 {est(row['f1'])}  FNR {est(row['fnr'])}")  # fmt: skip
            if self.result.scores and row.get("n_scored"):
                lines.append(f"    scores: {row['n_scored']} scored ({row['n_no_score']} without a score, left out)  "
                             f"AUC {est(row['auc'])}  Brier {number(row['brier'])}  ECE {number(row['ece'])}  "
                             f"cross-validated Youden cut {number(row['cv_threshold']['threshold'])}")  # fmt: skip
        lines.append(counted(self.result.skipped))
        return lines

    def section(self):
        from wordplay_audit.analysis.judge_audit_report import judge_audit_section

        return judge_audit_section(self.result)


def judge_audit(
    judge_labels: pd.DataFrame,
    human: pd.DataFrame,
    *,
    items: pd.DataFrame | None = None,
    by: Sequence[str] = ("player_model",),
    question: str = "reference",
    human_rater: str | None = None,
    unparsed: Literal["exclude", "as_false", "as_true"] = "exclude",
    weight: str | None = None,
    bootstrap: int = 1000,
    seed: int = 0,
    confidence: float = 0.95,
    min_cell: int = 10,
    scores: bool = False,
) -> JudgeAudit:
    """Audit each judge of ``judge_labels`` against ``human`` (the majority of people per item,
    or one ``human_rater``), per ``by`` group (columns of ``items``) and overall. Labels with a
    ``question`` column are audited on ``question``; ``weight``: an items column of sampling
    weights; ``bootstrap`` resamples for the F1 and κ intervals (0: none); ``scores``: also
    ROC-AUC with its interval, Brier, ECE, the reliability curve and a cross-validated threshold
    of each scored judge (:mod:`wordplay_audit.analysis.judge_scores`)."""
    from wordplay_audit.analysis.judge_audit_groups import judge_audit as audit
    from wordplay_audit.errors import check_choice, check_level

    check_choice("question", question, ("reference", "any_sense"))
    if not 0 <= bootstrap <= MAX_BOOTSTRAP:
        raise ParameterError(f"bootstrap: expected a whole number in [0, {MAX_BOOTSTRAP}]; got {bootstrap}")
    if bootstrap == 1:  # as agreement: one resample gives no interval
        raise ParameterError("bootstrap: expected 0 (no bootstrap) or a whole number ≥ 2; got 1")
    check_level(confidence)
    for name, value in (("seed", seed), ("min_cell", min_cell)):
        if value < 0:
            raise ParameterError(f"{name}: expected a whole number ≥ 0; got {value}")
    if weight is not None and not str(weight).strip():
        raise ParameterError(f"weight: expected the name of an items column; got {weight!r}")
    judged, people = one_question(judge_labels, question), one_question(human, question)
    result = audit(judged, people, items, by=list(by), human_rater=human_rater, weight=weight, unparsed=unparsed,
                   n_boot=bootstrap, seed=seed, confidence=confidence, min_cell=min_cell, scores=scores)  # fmt: skip
    return JudgeAudit(result)
