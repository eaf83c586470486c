"""The Balderdash study over rounds: convergence of LKR (the study's Eq 6), trend tests of LKR
and TDR, and the full report (metrics, audit, corrected rates per deck and per round, convergence,
trends) for one's own export."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from wordplay_audit.errors import ParameterError, check_choice
from wordplay_audit.workflow.balderdash import DESIGNS, BalderdashData, Design, human_rows
from wordplay_audit.workflow.balderdash_recompute import _CORRECTED
from wordplay_audit.workflow.results import Result, loaded, plain
from wordplay_audit.workflow.text import counts, frame_lines

__all__ = [
    "BalderdashConvergence",
    "BalderdashReport",
    "BalderdashTrend",
    "balderdash_convergence",
    "balderdash_report",
    "balderdash_trend",
    "check_eps",
]


# ------------------------------------------------------------------------------ convergence

CONVERGENCE_SHOWN = ["deck", "model", "eps", "converged_judge", "T_judge", "converged_replaced", "se", "tau",
                     "judge_unreachable", "window_estimate", "window_lower", "window_basis", "converged_window"]  # fmt: skip


@dataclass
class BalderdashConvergence(Result):
    """Convergence of LKR (the study's Eq 6) per ε under judge, replaced and corrected labels."""

    title = "Balderdash convergence"
    main_table = "convergence"

    export: str
    eps: tuple[float, ...]
    window: int
    assume_constant_accuracy: bool
    table: pd.DataFrame

    def tables(self) -> dict[str, pd.DataFrame]:
        return {"convergence": self.table}

    def to_dict(self) -> dict[str, Any]:
        return plain({"export": self.export, "eps": list(self.eps), "window": self.window,
                      "assume_constant_accuracy": self.assume_constant_accuracy,
                      "convergence": self.table})  # fmt: skip

    def summary(self) -> list[str]:
        lines = ["convergence of LKR (T – = never; a verdict – = cannot tell, see below):"]
        lines += frame_lines(self.table, [c for c in CONVERGENCE_SHOWN if c in self.table.columns])
        for column in [c for c in self.table.columns if c.endswith("_reason")]:
            for reason in self.table[column].dropna().unique():
                rows = int((self.table[column] == reason).sum())
                lines.append(f"  {column.removesuffix('_reason')} undetermined in {rows} rows: {reason}")
        return lines

    def section(self):
        from wordplay_audit.analysis.balderdash.report import _convergence_blocks as convergence_blocks
        from wordplay_audit.analysis.report import Section

        return Section(self.title, convergence_blocks(self.table))


def balderdash_convergence(
    data: BalderdashData,
    human: pd.DataFrame | None = None,
    *,
    eps: Sequence[float] | None = None,
    window: int = 5,
    assume_se: float | None = None,
    assume_sp: float | None = None,
    design: Design = "stratified",
    assume_constant_accuracy: bool = False,
) -> BalderdashConvergence:
    """Per ε: the round LKR converges under the judge's labels (Eq 6), under replaced labels,
    and the corrected window bound. Without ``human``, ``assume_se``/``assume_sp`` give the
    judge's accuracy to assume (both or neither). ``data``: :func:`read_balderdash`'s, or a
    function returning it (called once the parameters are checked)."""
    from wordplay_audit.analysis.balderdash.convergence import DEFAULT_EPS, convergence_table
    from wordplay_audit.analysis.correction import JudgeAccuracy
    from wordplay_audit.corpora.values import check_number

    check_choice("design", design, DESIGNS)
    grid = check_eps(eps, DEFAULT_EPS)
    if window < 1:
        raise ParameterError(f"window: expected a whole number of rounds ≥ 1, got {window}")
    assumed = (assume_se, assume_sp)
    if human is not None and assumed != (None, None):
        raise ParameterError(
            "assume_se, assume_sp: used only without human labels (with them the judge's Se and Sp "
            "are estimated from the labels); drop them or the labels"
        )
    if None in assumed and assumed != (None, None):
        raise ParameterError("assume_se, assume_sp: give both or neither")
    for name, v in (("assume_se", assume_se), ("assume_sp", assume_sp)):
        if v is not None:
            check_number(v, name, low=0.0, high=1.0, error=ParameterError)
    data = loaded(data)
    labels = human_rows(data, human) if human is not None else None
    accuracy = None
    if assume_se is not None and assume_sp is not None:
        acc = JudgeAccuracy(assume_se, assume_sp, 0.0, 0.0, 0.0, 0, ("assumed",))
        accuracy = {m: acc for m in data.obs["model"].unique()}
    table = convergence_table(
        data.obs, labels, eps=grid, window=window, accuracy=accuracy, design=design,
        constant_accuracy=assume_constant_accuracy,
    )  # fmt: skip
    return BalderdashConvergence(str(data.folder), grid, window, assume_constant_accuracy, table)


def check_eps(eps: Iterable[float] | None, default: tuple[float, ...] = ()) -> tuple[float, ...]:
    """ε values strictly between 0 and 1 (at least one); ``default`` when None."""
    values = tuple(float(e) for e in eps) if eps is not None else default
    if not values:
        raise ParameterError("eps: give at least one value (e.g. 0.1)")
    for e in values:
        if not 0 < e < 1:
            raise ParameterError(f"eps: {e} is not strictly between 0 and 1")
    return values


# ------------------------------------------------------------------------------------ trend

TREND_SHOWN = ("labels", "outcome", "model", "history_type", "games", "slope", "gee_p_t", "gee_ci_low",
               "gee_ci_high", "twostage_p", "adj_slope", "adj_p", "note")  # fmt: skip


@dataclass
class BalderdashTrend(Result):
    """Trend tests of LKR and TDR over rounds (judge labels, adjusted for the judge's errors
    with human labels; replaced labels), and the judge-drift check."""

    title = "Balderdash trend tests"
    main_table = "trend"

    export: str
    analysis: Any  # analysis.balderdash.summary.TrendAnalysis

    def tables(self) -> dict[str, pd.DataFrame]:
        return {"trend": self.analysis.table}

    def to_dict(self) -> dict[str, Any]:
        return plain({"export": self.export, **self.analysis.to_dict()})

    def summary(self) -> list[str]:
        from wordplay_audit.analysis.balderdash.drift import drift_text

        table = self.analysis.table
        lines = ["trend over rounds (slope per first-to-last round, logit scale; p from t with G−1 df):"]
        lines += frame_lines(table, [c for c in TREND_SHOWN if c in table.columns])
        lines += [f"judge drift ({o}): {drift_text(d)}" for o, d in self.analysis.drift.items()]
        from wordplay_audit.analysis.balderdash.report import fallback_lines

        return lines + fallback_lines(table)

    def section(self):
        from wordplay_audit.analysis.balderdash.report import trend_section

        return trend_section(self.analysis.table)


def balderdash_trend(
    data: BalderdashData, human: pd.DataFrame | None = None, *, seed: int = 0, progress: bool | None = None
) -> BalderdashTrend:
    """Trend tests of LKR and TDR over rounds; with ``human`` also under replaced labels,
    adjusted for the judge's errors, and the judge's Se/Sp drift over rounds. ``progress``: a
    bar on stderr (None: as the calling context decides; off in a notebook unless asked)."""
    from wordplay_audit.analysis.balderdash.summary import trend_analysis

    labels = human_rows(data, human) if human is not None else None
    return BalderdashTrend(str(data.folder), trend_analysis(data.obs, labels, seed=seed, progress=progress))


# ----------------------------------------------------------------------------------- report


@dataclass
class BalderdashReport(Result):
    """Everything the Balderdash report shows: metrics, the judge audit, corrected rates per
    model × deck and per round (curves), replaced labels, convergence and trend tests."""

    title = "Balderdash"
    main_table = "corrected"

    export: str
    analysis: Any  # analysis.balderdash.summary.BalderdashAnalysis
    extra: dict[str, Any] = field(default_factory=dict)

    def tables(self) -> dict[str, pd.DataFrame]:
        a = self.analysis
        out = {"settings": a.metrics["settings"], "convergence": a.convergence, "trend": a.trend.table}
        for name in ("corrected", "corrected_round", "replaced_rates"):
            if getattr(a, name) is not None:
                out[name] = getattr(a, name)
        out.update({f"judge_audit_{q}": t for q, t in a.audits.items()})
        return out

    def to_dict(self) -> dict[str, Any]:
        return plain({"export": self.export, **self.analysis.to_dict(), **self.extra})

    def summary(self) -> list[str]:
        a = self.analysis
        lines = [f"Balderdash report of {self.export}: {len(a.obs)} player-rounds"]
        lines.append(f"left out: {counts(a.skipped)}")
        if a.corrected is not None:
            lines.append("corrected rates per model and deck:")
            lines += frame_lines(a.corrected, [c for c in _CORRECTED if c in a.corrected.columns])
        else:
            lines.append("no human labels: metrics, convergence and trend under the judge's labels only")
        return lines

    def section(self):
        from wordplay_audit.analysis.balderdash.report import balderdash_section

        return balderdash_section(self.analysis, title=f"Balderdash ({self.export})")


def balderdash_report(
    data: BalderdashData,
    human: pd.DataFrame | None = None,
    *,
    eps: Sequence[float] | None = None,
    design: Design = "stratified",
    assume_constant_accuracy: bool = False,
    seed: int = 0,
    metrics: Any = None,
    recompute: Any = None,
    convergence: BalderdashConvergence | None = None,
    trend: BalderdashTrend | None = None,
    progress: bool | None = None,
) -> BalderdashReport:
    """The full Balderdash analysis of an export (what the demo's Balderdash section shows, for
    your own data): ``.write(out)`` writes its tables, plots and ``report.html``.

    Built from the results of :func:`balderdash_metrics`, :func:`balderdash_recompute` (with
    ``human``), :func:`balderdash_convergence` and :func:`balderdash_trend`: pass the ones you
    already have (``metrics=``, ``recompute=``, ``convergence=``, ``trend=``; they are used as
    they are, so ``eps``/``design``/``seed`` then do not change them) and the others are
    computed once; the report adds only the corrected rates per round for its curves.
    ``progress``: a bar over the steps on stderr (None: as the calling context decides)."""
    from wordplay_audit.analysis.balderdash.corrected import CorrectionOptions, corrected_rates
    from wordplay_audit.analysis.balderdash.summary import BalderdashAnalysis
    from wordplay_audit.corpora.progress import bar
    from wordplay_audit.workflow.balderdash import balderdash_metrics
    from wordplay_audit.workflow.balderdash_recompute import balderdash_recompute

    check_choice("design", design, DESIGNS)
    grid = check_eps(eps, (0.1, 0.2, 0.3))
    for name, part in (("metrics", metrics), ("recompute", recompute), ("convergence", convergence),
                       ("trend", trend)):  # fmt: skip
        if part is not None and getattr(part, "export", None) != str(data.folder):
            raise ParameterError(f"{name}: a result of another export ({getattr(part, 'export', part)!r})")
    if recompute is not None and human is None:
        raise ParameterError("recompute: given without human (pass the labels it was computed from)")
    labels = human_rows(data, human) if human is not None and len(human) else None
    with bar(total=5 if labels is not None else 3, desc="report", unit="step", enabled=progress) as steps:
        metrics = balderdash_metrics(data) if metrics is None else metrics
        steps.update(1)
        convergence = convergence if convergence is not None else balderdash_convergence(
            data, human if labels is not None else None, eps=grid, design=design,
            assume_constant_accuracy=assume_constant_accuracy,
        )  # fmt: skip
        steps.update(1)
        trend = trend if trend is not None else balderdash_trend(data, human if labels is not None else None, seed=seed,
                                          progress=progress)  # fmt: skip
        steps.update(1)
        analysis = BalderdashAnalysis(
            obs=data.obs, metrics=metrics.metrics, convergence=convergence.table, trend=trend.analysis,
            skipped=dict(data.skipped),
        )  # fmt: skip
        if labels is not None:
            if recompute is None:
                recompute = balderdash_recompute(data, human, design=design, seed=seed)
            steps.update(1)
            analysis.audits, analysis.corrected = recompute.audits, recompute.corrected
            analysis.replaced, analysis.replaced_rates = recompute.rescored, recompute.replaced_rates
            analysis.corrected_round = corrected_rates(
                data.obs, labels, by=("model", "deck", "round_id"), design=design,
                options=CorrectionOptions(constant_accuracy=assume_constant_accuracy),
            )  # fmt: skip
            steps.update(1)
    return BalderdashReport(str(data.folder), analysis)
