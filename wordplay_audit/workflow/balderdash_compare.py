"""The Balderdash study's comparisons under human labels, from Python: a rate compared between the
levels of a setting per model (``balderdash compare``), the judge's self-preference
(``balderdash self-preference``) and the models ranked with the uncertainty of the order
(``balderdash rankings``).

In a notebook::

    import wordplay_audit as wa
    data = wa.read_balderdash("sim/")
    human = wa.read_labels("sim/labels.csv")
    wa.balderdash_compare(data, human, by="deck").to_frame("differences")
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from wordplay_audit.errors import ParameterError, check_choice
from wordplay_audit.workflow.balderdash import BalderdashData, human_rows
from wordplay_audit.workflow.results import Result, plain
from wordplay_audit.workflow.text import frame_lines

__all__ = [
    "BalderdashCompare",
    "BalderdashRankings",
    "BalderdashSelfPreference",
    "balderdash_compare",
    "balderdash_rankings",
    "balderdash_self_preference",
]

METRICS = ("tdr", "lkr")
_CELLS = ["model", "level", "n", "n_labelled", "judge", "estimate", "ci_low", "ci_high"]
_DIFFS = ["model", "level_a", "level_b", "judge_difference", "difference", "ci_low", "ci_high", "p", "p_holm"]
_SELF = ["rate", "own", "own_low", "own_high", "others", "others_low", "others_high", "difference",
         "ci_low", "ci_high", "p_holm"]  # fmt: skip
_RANKS = ["level", "model", "judge", "judge_rank", "estimate", "ci_low", "ci_high", "rank", "expected_rank"]


def _skipped_lines(skipped: dict[str, int]) -> list[str]:
    return [f"left out {n} {what.replace('_', ' ')}" for what, n in skipped.items() if n]


def _labels(data: BalderdashData, human: pd.DataFrame) -> tuple[pd.DataFrame, dict[str, int]]:
    labels = human_rows(data, human)
    return labels, {"judge_rows_in_human_file": int(labels.attrs.get("judge_rows_left_out", 0))}


@dataclass
class BalderdashCompare(Result):
    """Per model, the corrected rate in each level of a setting and the differences between
    levels, each with its interval, Holm-adjusted test and verdict."""

    title = "Balderdash settings compared under human labels"
    main_table = "differences"

    export: str
    by: str
    metric: str
    cells: pd.DataFrame
    differences: pd.DataFrame
    confidence: float
    margin: float
    skipped: dict[str, int] = field(default_factory=dict)

    def tables(self) -> dict[str, pd.DataFrame]:
        return {"cells": self.cells, "differences": self.differences}

    def to_dict(self) -> dict[str, Any]:
        return plain({"export": self.export, "by": self.by, "metric": self.metric, "confidence": self.confidence,
                      "margin": self.margin, "multiplicity": self.multiplicity(), "skipped": self.skipped,
                      "cells": self.cells, "differences": self.differences})  # fmt: skip

    def multiplicity(self) -> str:
        return (f"Holm's step-down adjustment over the {len(self.differences)} differences "
                f"(models × pairs of levels) controls the family-wise error at {1 - self.confidence:.0%}")  # fmt: skip

    def summary(self) -> list[str]:
        m, level = self.metric.upper(), f"{self.confidence:.0%}"
        lines = [f"{m} by {self.by}, corrected under people's labels ({level} intervals):"]
        lines += frame_lines(self.cells, _CELLS)
        no_interval = self.cells[self.cells["reason"].notna()]
        for r in no_interval.itertuples():
            lines.append(f"  no interval for {r.model} / {r.level}: {r.reason}")
        lines.append(f"differences level_b − level_a (rate behind each level; {self.multiplicity()}):")
        lines += frame_lines(self.differences, _DIFFS)
        lines += [
            f"  {r.model}, {r.level_b} − {r.level_a}: {r.verdict}" for r in self.differences.itertuples()
        ]
        return lines + _skipped_lines(self.skipped)


def balderdash_compare(
    data: BalderdashData, human: pd.DataFrame, *, by: str, metric: str = "tdr", confidence: float = 0.95,
    margin: float = 0.10, seed: int = 0,
) -> BalderdashCompare:  # fmt: skip
    """Compare ``metric`` (``tdr`` or ``lkr``) between the levels of the setting ``by``
    (``correct_definition_points``, ``history_type``, ``deck`` or ``filter_words``) per model,
    corrected under people's labels ``human`` (:mod:`~wordplay_audit.analysis.balderdash.compare`).
    ``margin``: the largest difference a verdict may call *no difference detected*."""
    from wordplay_audit.analysis.balderdash.compare import SETTINGS, compare_settings

    check_choice("by", by, SETTINGS)
    check_choice("metric", metric, METRICS)
    levels = sorted(map(str, data.obs[by].dropna().unique())) if by in data.obs.columns else []
    if len(levels) < 2:
        raise ParameterError(
            f"by: the export holds {len(levels)} level of {by} ({', '.join(levels)}); nothing to compare"
        )
    labels, skipped = _labels(data, human)
    found = compare_settings(
        data.obs, labels, by=by, metric=metric, confidence=confidence, margin=margin, seed=seed
    )
    # the realised difference's interval is not given: it fell to 0.917 coverage in a simulated design
    diffs = found.differences.drop(columns=["realised_low", "realised_high"])
    return BalderdashCompare(str(data.folder), by, metric, found.cells, diffs, confidence, margin, skipped)


@dataclass
class BalderdashSelfPreference(Result):
    """The judge's sensitivity and specificity on its own model's definitions against the
    other players', with the difference, its interval and a Holm-adjusted test."""

    title = "Balderdash judge self-preference"
    main_table = "self_preference"

    export: str
    metric: str
    judge_model: str
    table: pd.DataFrame
    skipped: dict[str, int] = field(default_factory=dict)

    def tables(self) -> dict[str, pd.DataFrame]:
        return {"self_preference": self.table}

    def to_dict(self) -> dict[str, Any]:
        return plain({"export": self.export, "metric": self.metric, "judge_model": self.judge_model,
                      "skipped": self.skipped, "self_preference": self.table})  # fmt: skip

    def summary(self) -> list[str]:
        lines = [f"judge's accuracy ({self.metric.upper()} question) on {self.judge_model}'s definitions "
                 "(own) and the other players' (others), re-weighted to every judged definition:"]  # fmt: skip
        lines += frame_lines(self.table, _SELF)
        lines += [f"  {r.rate}: {r.verdict}" for r in self.table.itertuples()]
        lines.append(
            "  the difference is of the judge's propensities (own − others); Holm over the two rates"
        )
        return lines + _skipped_lines(self.skipped)


def judge_player(obs: pd.DataFrame, judge_model: str | None) -> str:
    """The player model that is the judge's: ``judge_model``, or the export's judge when it
    names one player model; ParameterError otherwise."""
    players = sorted(map(str, obs["model"].dropna().unique()))
    if judge_model is not None:
        return judge_model
    judges = sorted(map(str, obs["judge_model"].dropna().unique())) if "judge_model" in obs else []
    if len(judges) == 1 and judges[0] in players:
        return judges[0]
    raise ParameterError(
        f"judge_model: the export names the judge {', '.join(judges) or '(none)'}, which is not one of "
        f"the player models ({', '.join(players)}); give the player model that is the judge's"
    )


def balderdash_self_preference(
    data: BalderdashData, human: pd.DataFrame, *, judge_model: str | None = None, metric: str = "tdr",
    confidence: float = 0.95, seed: int = 0,
) -> BalderdashSelfPreference:  # fmt: skip
    """Whether the judge is kinder to its own model's definitions
    (:mod:`~wordplay_audit.analysis.judge_audit_self`). ``judge_model``: the player model that
    is the judge's (default: the export's judge, when it is one of the players)."""
    from wordplay_audit.analysis.balderdash.corrected_frame import question_frame
    from wordplay_audit.analysis.balderdash.recompute import labels_for
    from wordplay_audit.analysis.judge_audit_self import self_preference

    check_choice("metric", metric, METRICS)
    player = judge_player(data.obs, judge_model)
    labels, skipped = _labels(data, human)
    frame = question_frame(data.obs, labels_for(data.obs, labels), metric)
    table = self_preference(frame.data.assign(item_id=frame.item_ids), judge_model=player, by="model",
                            confidence=confidence, seed=seed)  # fmt: skip
    return BalderdashSelfPreference(str(data.folder), metric, player, table, skipped)


@dataclass
class BalderdashRankings(Result):
    """Per level of a setting, the models ordered by a corrected rate with the probability of
    each rank and the set of models that could be first."""

    title = "Balderdash models ranked under human labels"
    main_table = "rankings"

    export: str
    by: str | None
    metric: str
    table: pd.DataFrame
    confidence: float
    skipped: dict[str, int] = field(default_factory=dict)

    def tables(self) -> dict[str, pd.DataFrame]:
        return {"rankings": self.table}

    def to_dict(self) -> dict[str, Any]:
        return plain({"export": self.export, "by": self.by, "metric": self.metric, "confidence": self.confidence,
                      "skipped": self.skipped, "rankings": self.table})  # fmt: skip

    def first_sets(self) -> dict[str, list[str]]:
        """Per level, the models that could be first."""
        kept = self.table[self.table["could_be_first"].fillna(False).astype(bool)]
        return {str(k): list(map(str, p["model"])) for k, p in kept.groupby("level", sort=True)}

    def summary(self) -> list[str]:
        probs = [c for c in self.table.columns if c.startswith("p_rank_")]
        lines = [f"models ranked by corrected {self.metric.upper()} (1 = highest; {self.confidence:.0%} intervals; "
                 "p_rank_k: share of draws over the correction in which the model holds rank k):"]  # fmt: skip
        lines += frame_lines(self.table, [*_RANKS, *probs])
        for level, models in self.first_sets().items():
            lines.append(
                f"  could be first ({level}): {', '.join(models)} (Holm over each model's tests of another above it)"
            )
        for r in self.table[self.table["reason"].notna()].itertuples():
            lines.append(f"  not ranked: {r.model} / {r.level}: {r.reason}")
        return lines + _skipped_lines(self.skipped)


def balderdash_rankings(
    data: BalderdashData, human: pd.DataFrame, *, by: str | None = None, metric: str = "tdr",
    confidence: float = 0.95, seed: int = 0,
) -> BalderdashRankings:  # fmt: skip
    """Rank the models by corrected ``metric`` per level of ``by`` (None: the whole export) with
    rank probabilities and the could-be-first set (:mod:`~wordplay_audit.analysis.balderdash.rankings`)."""
    from wordplay_audit.analysis.balderdash.rankings import rank_models

    check_choice("metric", metric, METRICS)
    labels, skipped = _labels(data, human)
    table = rank_models(data.obs, labels, by=by, metric=metric, confidence=confidence, seed=seed)
    return BalderdashRankings(str(data.folder), by, metric, table, confidence, skipped)
