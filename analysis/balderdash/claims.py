"""The Balderdash study's claims, each beside its judge-based figure and its figure under
people's labels, with a one-line verdict: a table built from results computed elsewhere
(comparisons of settings, convergence, trend tests, rankings, self-preference, known words), so
that it recomputes nothing and can join any report.

One row per claim × subject (a model, or model × deck): ``claim``, ``subject``, ``figure`` (what
the numbers are), ``judge`` (the judge-based figure), ``corrected`` with ``ci_low``/``ci_high``
(under people's labels; an empty bound where the source gives none), ``verdict`` (the source's
own words) and ``status``, the claim against it: ``supported``, ``not supported`` (no
difference where the study reports one), ``contradicted`` (the opposite of what the study says
is detected) or ``cannot tell``. Where the study's claim is the judge-based conclusion itself
(convergence, trends, the leaderboard's first), ``supported`` means that conclusion stands
under people's labels.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from wordplay_audit.errors import ParameterError

__all__ = ["CLAIMS", "CLAIM_COLUMNS", "claims_table"]

CLAIM_COLUMNS = ["claim", "subject", "figure", "judge", "corrected", "ci_low", "ci_high", "verdict", "status"]
"""The columns of the claims table."""

CLAIMS = {
    "deck": ("rare vs frequent words: the models' rate differs between the word decks", True),
    "history_type": ("history types: what players see of past rounds changes the rate", True),
    "correct_definition_points": ("rule change (points for the true definition): models do not adapt", False),
    "filter_words": ("word filter: the rate differs between filtered and unfiltered words", True),
}
"""Setting → (the study's claim, whether it asserts a difference)."""
KNOWN_CLAIM = "LLMs are not familiar with more than half of the Balderdash words"
KNOWN_COLUMNS = ("model", "words", "judge_known", "known", "ci_low", "ci_high")
"""The columns of the known-word step's per-model table (``wa.balderdash_known``'s ``models``)."""


def _status(verdict: str, asserts_difference: bool) -> str:
    if verdict.startswith("cannot tell"):
        return "cannot tell"
    if verdict.startswith("differs"):
        return "supported" if asserts_difference else "contradicted"
    return "not supported" if asserts_difference else "supported"


def _comparison_rows(by: str, metric: str, differences: pd.DataFrame) -> list[dict]:
    claim, asserts = CLAIMS[by]
    return [
        {
            "claim": claim,
            "subject": r.model,
            "figure": f"{metric.upper()} {r.level_b} − {r.level_a}",
            "judge": r.judge_difference,
            "corrected": r.difference,
            "ci_low": r.ci_low,
            "ci_high": r.ci_high,
            "verdict": r.verdict,
            "status": _status(r.verdict, asserts),
        }  # fmt: skip
        for r in differences.itertuples()
    ]


_SETTING_COLUMNS = ("deck", "history_type", "filter_words", "correct_definition_points")


def _subject(row, varying: list[str]) -> str:
    return " / ".join(
        [str(row.model), *(f"{c} {getattr(row, c)}" if c != "deck" else str(row.deck) for c in varying)]
    )


def _agreement(judge_says: bool, people_verdict: str, people_say: bool) -> str:
    """Whether the judge-based conclusion stands under people's labels."""
    if people_verdict.startswith("cannot"):
        return "cannot tell"
    return "supported" if judge_says == people_say else "contradicted"


def _convergence_rows(table: pd.DataFrame, eps: float) -> list[dict]:
    near = table[np.isclose(table["eps"].astype(float), eps)]
    if near.empty:
        have = ", ".join(f"{e:g}" for e in sorted(table["eps"].unique()))
        raise ParameterError(f"eps: {eps:g} is not in the convergence table (has {have})")
    varying = [c for c in _SETTING_COLUMNS if c in near.columns and (c == "deck" or near[c].nunique() > 1)]
    rows = []
    for r in near.itertuples():
        judge = f"converged at round {int(r.T_judge)}" if pd.notna(r.T_judge) else "never converged"
        if r.converged_window is None or pd.isna(r.converged_window):
            people = f"cannot tell ({r.converged_window_reason or 'no verdict'})"
        else:
            people = "converges" if r.converged_window else "does not converge"
        rows.append({"claim": f"convergence of LKR (Eq. 6, ε = {eps:g})", "subject": _subject(r, varying),
                     "figure": "judge: round of convergence; people: LKR of the last window (lower bound)",
                     "judge": float(r.T_judge) if pd.notna(r.T_judge) else np.nan, "corrected": r.window_estimate,
                     "ci_low": r.window_lower, "ci_high": np.nan,
                     "verdict": f"judge: {judge}; under people's labels: {people}",
                     "status": _agreement(bool(r.converged_judge), people, people == "converges")})  # fmt: skip
    return rows


def _trend_rows(table: pd.DataFrame, alpha: float) -> list[dict]:
    rows = []
    for r in table[table["labels"] == "judge"].itertuples():
        if not np.isfinite(r.adj_p):
            people = (
                "cannot tell (no trend test under people's labels: no human labels for the judge's errors)"
            )
        elif r.adj_p < alpha:
            people = f"trend ({'rising' if r.adj_slope > 0 else 'falling'}; p = {r.adj_p:.3g})"
        else:
            people = f"no trend detected (p = {r.adj_p:.3g})"
        judge_trend = bool(np.isfinite(r.gee_p_t) and r.gee_p_t < alpha)
        judge = f"{'trend' if judge_trend else 'no trend detected'} (p = {r.gee_p_t:.3g})"
        rows.append({"claim": f"trend of {r.outcome} over rounds (history {r.history_type})", "subject": r.model,
                     "figure": "slope per first-to-last round (logit)", "judge": r.slope,
                     "corrected": r.adj_slope, "ci_low": r.adj_ci_low, "ci_high": r.adj_ci_high,
                     "verdict": f"judge: {judge}; under people's labels: {people}",
                     "status": _agreement(judge_trend, people, people.startswith("trend"))})  # fmt: skip
    return rows


def _ranking_rows(table: pd.DataFrame) -> list[dict]:
    rows = []
    for (metric, level), part in table.groupby(["metric", "level"], sort=True):
        judge_first = sorted(part.loc[part["judge_rank"] == 1, "model"].astype(str))
        first = sorted(part.loc[part["could_be_first"].fillna(False).astype(bool), "model"].astype(str))
        top = part.sort_values("rank").iloc[0]
        inside = [m for m in judge_first if m in first]
        if not first:
            verdict, status = "cannot tell (no model could be ranked)", "cannot tell"
        elif inside and len(first) == 1:
            verdict, status = f"{first[0]} is first under people's labels", "supported"
        elif inside:
            verdict, status = f"cannot tell: could be first {', '.join(first)}", "cannot tell"
        else:
            verdict, status = (
                f"the judge's first is ruled out: could be first {', '.join(first)}",
                "contradicted",
            )
        rows.append({"claim": f"leaderboard order by {str(metric).upper()} ({level}): first is {', '.join(judge_first)}",
                     "subject": str(top["model"]), "figure": f"corrected {str(metric).upper()} of the first",
                     "judge": float(part.loc[part["judge_rank"] == 1, "judge"].max()), "corrected": top["estimate"],
                     "ci_low": top["ci_low"], "ci_high": top["ci_high"], "verdict": verdict, "status": status})  # fmt: skip
    return rows


def _self_rows(table: pd.DataFrame) -> list[dict]:
    return [
        {
            "claim": f"the judge ({r.judge_model}) rates its own model's definitions as it rates the others'",
            "subject": r.rate,
            "figure": f"{r.rate} own − others",
            "judge": np.nan,
            "corrected": r.difference,
            "ci_low": r.ci_low,
            "ci_high": r.ci_high,
            "verdict": r.verdict,
            "status": _status(r.verdict, asserts_difference=False),
        }  # fmt: skip
        for r in table.itertuples()
    ]


def _known_rows(table: pd.DataFrame) -> list[dict]:
    missing = [c for c in KNOWN_COLUMNS if c not in table.columns]
    if missing:
        raise ParameterError(f"known: lacks column {missing[0]!r} (expected {', '.join(KNOWN_COLUMNS)})")
    rows = []
    for r in table.itertuples():
        half = r.words / 2
        if not (np.isfinite(r.ci_low) and np.isfinite(r.ci_high)):
            verdict, status = "cannot tell (no interval)", "cannot tell"
        elif r.ci_high < half:
            verdict, status = "fewer than half the words known", "supported"
        elif r.ci_low > half:
            verdict, status = "more than half the words known", "contradicted"
        else:
            verdict, status = "cannot tell (the interval holds half the words)", "cannot tell"
        rows.append({"claim": KNOWN_CLAIM, "subject": r.model, "figure": f"words known of {int(r.words)}",
                     "judge": r.judge_known, "corrected": r.known, "ci_low": r.ci_low,
                     "ci_high": r.ci_high, "verdict": verdict, "status": status})  # fmt: skip
    return rows


def claims_table(
    *, comparisons: Sequence[tuple[str, str, pd.DataFrame]] = (), convergence: pd.DataFrame | None = None,
    trend: pd.DataFrame | None = None, rankings: pd.DataFrame | None = None,
    self_preference: pd.DataFrame | None = None, known: pd.DataFrame | None = None, eps: float = 0.05,
    confidence: float = 0.95,
) -> pd.DataFrame:  # fmt: skip
    """The claims table (module doc, :data:`CLAIM_COLUMNS`) from what is given: ``comparisons``
    as (setting, metric, differences of :func:`~.compare.compare_settings`); ``convergence``
    (``convergence_table``, read at ``eps``); ``trend`` (the trend tests, judge
    rows with their misclassification-adjusted test); ``rankings`` (:func:`~.rankings.rank_models`);
    ``self_preference`` (:func:`~wordplay_audit.analysis.judge_audit_self.self_preference`);
    ``known`` (per model :data:`KNOWN_COLUMNS`: ``words``, the judge's ``judge_known``, the
    corrected ``known`` count and its ``ci_low``/``ci_high``). Claims without a source have no row."""
    rows: list[dict] = [] if known is None else _known_rows(known)
    for by, metric, differences in comparisons:
        if by not in CLAIMS:
            raise ParameterError(f"comparisons: {by!r} is not a setting the study makes a claim of")
        rows += _comparison_rows(by, metric, differences)
    sources: Mapping = {"convergence": (convergence, lambda t: _convergence_rows(t, eps)),
                        "trend": (trend, lambda t: _trend_rows(t, 1 - confidence)), "rankings": (rankings, _ranking_rows),
                        "self_preference": (self_preference, _self_rows)}  # fmt: skip
    for table, build in sources.values():
        if table is not None:
            rows += build(table)
    return pd.DataFrame(rows, columns=CLAIM_COLUMNS)
