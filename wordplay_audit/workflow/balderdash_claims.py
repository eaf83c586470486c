"""The Balderdash study's claims re-tested under human labels, as one table (``balderdash claims``):
each claim's judge-based figure, its figure under people's labels with the interval, and the
verdict in one line (:mod:`~wordplay_audit.analysis.balderdash.claims`).

Built from the results of the other steps, passed in (nothing is recomputed)::

    import wordplay_audit as wa
    data, human = wa.read_balderdash("sim/"), wa.read_labels("sim/labels.csv")
    wa.balderdash_claims(compare=[wa.balderdash_compare(data, human, by="deck")],
                         rankings=wa.balderdash_rankings(data, human)).to_frame()

:func:`balderdash_claims_of` runs the steps an export supports and builds the table from them
(what the command does).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from wordplay_audit.errors import ParameterError
from wordplay_audit.workflow.balderdash import BalderdashData
from wordplay_audit.workflow.results import Result, plain
from wordplay_audit.workflow.text import frame_lines

__all__ = ["BalderdashClaims", "balderdash_claims", "balderdash_claims_of"]

_SHOWN = ["subject", "figure", "judge", "corrected", "ci_low", "ci_high", "status"]


@dataclass
class BalderdashClaims(Result):
    """One row per claim × subject: the judge-based figure, the corrected one with its interval,
    the verdict and whether the claim stands (``status``)."""

    title = "Balderdash claims under human labels"
    main_table = "claims"

    table: pd.DataFrame
    sources: list[str] = field(default_factory=list)
    left_out: dict[str, str] = field(default_factory=dict)

    def tables(self) -> dict[str, pd.DataFrame]:
        return {"claims": self.table}

    def to_dict(self) -> dict[str, Any]:
        return plain({"sources": self.sources, "left_out": self.left_out, "claims": self.table})

    def summary(self) -> list[str]:
        lines = [f"the study's claims under people's labels (from: {', '.join(self.sources) or 'nothing'}):"]
        for claim, part in self.table.groupby("claim", sort=False):
            lines.append(f"{claim}:")
            lines += frame_lines(part, _SHOWN, indent="    ")
            lines += [f"    {r.subject}: {r.verdict}" for r in part.itertuples()]
        lines += [f"no row for {what}: {why}" for what, why in self.left_out.items()]
        return lines

    def section(self):
        from wordplay_audit.analysis.report import Paragraph, Section, Table

        blocks = [Paragraph("Each claim of the study, its judge-based figure, its figure under people's labels "
                            "with the 95 % interval, and the verdict.")]  # fmt: skip
        blocks.append(
            Table(self.table, caption="Claims (status: supported, not supported, contradicted, cannot tell)")
        )
        blocks += [Paragraph(f"No row for {what}: {why}.") for what, why in self.left_out.items()]
        return Section(self.title, blocks)


def _frame(value, name: str, attribute: str | None = None) -> pd.DataFrame | None:
    """A result's table (``attribute``, or its main table), a DataFrame as is, or None."""
    if value is None or isinstance(value, pd.DataFrame):
        return value
    if attribute is not None and hasattr(value, attribute):
        found = getattr(value, attribute)
        return getattr(found, "table", found)
    if isinstance(value, Result):
        return value.to_frame()
    raise ParameterError(f"{name}: expected a workflow result or a DataFrame, got {type(value).__name__}")


def balderdash_claims(
    *, compare: Sequence[Any] = (), convergence=None, trend=None, rankings=None, self_preference=None,
    known=None, eps: float = 0.05, left_out: dict[str, str] | None = None,
) -> BalderdashClaims:  # fmt: skip
    """The claims table from results passed in: ``compare`` (:class:`BalderdashCompare` results,
    one per setting), ``convergence`` (:class:`BalderdashConvergence`, read at ``eps``),
    ``trend`` (:class:`BalderdashTrend`), ``rankings`` (:class:`BalderdashRankings`),
    ``self_preference`` (:class:`BalderdashSelfPreference`) and ``known`` (the known-word step's
    result, or a table per model of ``words``, ``judge_known``, ``known``, ``ci_low``, ``ci_high``).
    A claim without its result has no row."""
    from wordplay_audit.analysis.balderdash.claims import claims_table

    comparisons = []
    for k, found in enumerate(compare):
        if not all(hasattr(found, a) for a in ("by", "metric", "differences")):
            raise ParameterError(f"compare: item {k} is not a balderdash_compare result")
        comparisons.append((found.by, found.metric, found.differences))
    given = {"convergence": convergence, "trend": trend, "rankings": rankings,
             "self_preference": self_preference, "known": known}  # fmt: skip
    tables = {
        "convergence": _frame(convergence, "convergence", "table"),
        "trend": _frame(trend, "trend", "analysis"),
        "rankings": _frame(rankings, "rankings", "table"),
        "self_preference": _frame(self_preference, "self_preference", "table"),
        "known": _frame(known, "known"),
    }
    table = claims_table(comparisons=comparisons, eps=eps, **tables)
    sources = [f"compare by {c[0]}" for c in comparisons] + [k for k, v in given.items() if v is not None]
    return BalderdashClaims(table, sources, dict(left_out or {}))


def balderdash_claims_of(
    data: BalderdashData, human: pd.DataFrame, *, known=None, judge_model: str | None = None,
    eps: float = 0.05, seed: int = 0,
) -> BalderdashClaims:  # fmt: skip
    """Run the steps the export supports — the comparisons of every setting with two or more
    levels (TDR), convergence, trend tests, the rankings by TDR, self-preference when the judge's
    model plays — and build the claims table from them (:func:`balderdash_claims`); what could
    not run is named in ``left_out``."""
    from wordplay_audit.analysis.balderdash.claims import CLAIMS
    from wordplay_audit.workflow.balderdash_compare import (
        balderdash_compare,
        balderdash_rankings,
        balderdash_self_preference,
        judge_player,
    )
    from wordplay_audit.workflow.balderdash_rounds import balderdash_convergence, balderdash_trend

    left_out: dict[str, str] = {}
    compared = []
    for by in CLAIMS:
        levels = data.obs[by].nunique() if by in data.obs.columns else 0
        if levels >= 2:
            compared.append(balderdash_compare(data, human, by=by, seed=seed))
        else:
            left_out[f"compare by {by}"] = f"the export holds {levels} level of it"
    try:
        player = judge_player(data.obs, judge_model)
        preference = balderdash_self_preference(data, human, judge_model=player, seed=seed)
    except ParameterError as exc:
        preference, left_out["self_preference"] = None, str(exc).split(": ", 1)[1]
    convergence = balderdash_convergence(data, human, eps=(eps,))
    return balderdash_claims(
        compare=compared, convergence=convergence, trend=balderdash_trend(data, human),
        rankings=balderdash_rankings(data, human, seed=seed), self_preference=preference, known=known,
        eps=eps, left_out=left_out,
    )  # fmt: skip
