"""Balderdash campaigns with known truth, an export's definitions as contract items, and how
many human labels a chosen interval width needs (``balderdash simulate``, ``items``, ``plan``)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from wordplay_audit.errors import ParameterError, check_choice
from wordplay_audit.workflow.balderdash import DESIGNS, BalderdashData, Design
from wordplay_audit.workflow.items import Items
from wordplay_audit.workflow.results import Result, plain
from wordplay_audit.workflow.text import frame_lines, percent

__all__ = ["BalderdashPlan", "SimulatedBalderdash", "balderdash_items", "plan_labels", "simulate_balderdash"]

ITEM_STRATA = ("player_model", "deck", "round_id", "judge_verdict", "frequency_band")


@dataclass
class SimulatedBalderdash(Result):
    """A simulated campaign written in the export format with its human labels and truth."""

    title = "simulated Balderdash campaign"
    main_table = "true_rates"

    out: str
    seed: int
    n_definitions: int
    n_labels: int
    true_rates: pd.DataFrame
    truth_labels: pd.DataFrame
    """The truth of every definition as a final labels table (``item_id``, ``question``
    ``reference``/``any_sense``, ``label``): what careful raters would say, e.g. for
    :func:`~wordplay_audit.workflow.campaign_answers.simulate_answers`."""

    def tables(self) -> dict[str, pd.DataFrame]:
        return {"true_rates": self.true_rates, "truth_labels": self.truth_labels}

    def to_dict(self) -> dict[str, Any]:
        return plain({"out": self.out, "seed": self.seed, "n_definitions": self.n_definitions,
                      "n_labels": self.n_labels, "true_rates": self.true_rates})  # fmt: skip

    def summary(self) -> list[str]:
        return [
            f"wrote {self.out} ({self.n_definitions} definitions, {self.n_labels} human labels, seed {self.seed})"
        ]


def simulate_balderdash(
    out: str | Path,
    *,
    seed: int = 0,
    games_per_deck: int = 3,
    rounds: int = 20,
    players_per_model: int = 2,
    labels_per_stratum: int = 25,
    judge_se: float = 0.74,
    judge_sp: float = 0.97,
    rater_accuracy: float = 1.0,
    design: Design = "stratified",
) -> SimulatedBalderdash:
    """Simulate a campaign (seeded, deterministic) and write it into the folder ``out`` in the
    export format, with ``labels.csv`` (people's labels) and ``truth.csv``."""
    from wordplay_audit.corpora.balderdash import DEFAULT_MODELS, SimConfig, simulate_campaign, true_rates
    from wordplay_audit.corpora.balderdash.writer import write_campaign
    from wordplay_audit.corpora.io import output_folder
    from wordplay_audit.corpora.values import check_number

    check_choice("design", design, DESIGNS)
    for name, value in (("judge_se", judge_se), ("judge_sp", judge_sp), ("rater_accuracy", rater_accuracy)):
        check_number(value, name, low=0.0, high=1.0, error=ParameterError)
    for name, value, low in (("games_per_deck", games_per_deck, 1), ("rounds", rounds, 2),
                             ("players_per_model", players_per_model, 1), ("labels_per_stratum", labels_per_stratum, 0)):  # fmt: skip
        if int(value) != value or value < low:
            raise ParameterError(f"{name}: expected a whole number ≥ {low}, got {value!r}")
    config = SimConfig(
        games_per_deck=games_per_deck,
        n_rounds=rounds,
        players_per_model=players_per_model,
        labels_per_stratum=labels_per_stratum,
        design=design,
        rater_accuracy=rater_accuracy,
        judge_se={m: judge_se for m in DEFAULT_MODELS},
        judge_sp={m: judge_sp for m in DEFAULT_MODELS},
    )
    campaign = simulate_campaign(config, seed=seed)
    with output_folder(out, option="out") as staging:
        write_campaign(campaign, staging)
    truth = campaign.truth
    labels = pd.concat(
        [pd.DataFrame({"item_id": truth["item_id"], "question": q, "label": truth[c].map({True: "true", False: "false"})})
         for q, c in (("reference", "true_ref"), ("any_sense", "true_any"))],
        ignore_index=True,
    )  # fmt: skip
    return SimulatedBalderdash(
        str(out), seed, len(campaign.obs), len(campaign.labels), true_rates(campaign), labels
    )


def balderdash_items(data: BalderdashData) -> Items:
    """The export's definitions as contract items (one ``definition`` item per player-round,
    with its strata) and the judge's two verdicts per definition as labels (``question``
    ``reference`` and ``any_sense``, ``rater_type`` judge). Needs the texts
    (:func:`read_balderdash` with ``texts=True``)."""
    from wordplay_audit.corpora.balderdash import judge_labels
    from wordplay_audit.corpora.contract import validate_labels

    items = data.export.items
    labels = validate_labels(judge_labels(data.export), items=items, source=str(data.folder))
    strata = tuple(c for c in ITEM_STRATA if c in items.columns)
    return Items(str(data.folder), items, labels, data.skipped, strata)


# ------------------------------------------------------------------------------------- plan

_RANGES = {  # name → (lowest, highest, lowest allowed, highest allowed)
    "fnr": (0.0, 1.0, True, True),
    "fnr_halfwidth": (0.0, 0.5, False, False),
    "true_share": (0.0, 1.0, False, True),
    "rate": (0.0, 1.0, False, False),  # at 0 or 1 the variance formula plans 1 label
    "rate_halfwidth": (0.0, 0.5, False, False),
    "se": (0.0, 1.0, True, True),
    "sp": (0.0, 1.0, True, True),
    "confidence": (0.0, 1.0, False, False),
    "trend_slope": (-math.inf, math.inf, False, False),
}


def _check_range(name: str, value: float) -> None:
    low, high, low_in, high_in = _RANGES[name]
    above = value >= low if low_in else value > low
    below = value <= high if high_in else value < high
    if not (above and below):  # also nan
        left, right = "[" if low_in else "(", "]" if high_in else ")"
        raise ParameterError(f"{name}: expected a number in {left}{low:g}, {high:g}{right}, got {value!r}")


@dataclass
class BalderdashPlan(Result):
    """Human labels per model for a chosen interval width on the judge's FNR and on a
    corrected rate, the trend test's power, and (adaptive) the labels an adaptive campaign saves
    and what uncertainty sampling needs."""

    title = "Balderdash label plan"

    fnr: dict
    corrected_rate: dict
    trend_power: dict
    settings: dict
    adaptive: dict | None = None

    def to_dict(self) -> dict[str, Any]:
        out = {"fnr": self.fnr, "corrected_rate": self.corrected_rate, "trend_power": self.trend_power}
        if self.adaptive is not None:
            out["adaptive"] = self.adaptive
        return plain(out)

    def tables(self) -> dict[str, pd.DataFrame]:
        if self.adaptive is None:
            return {}
        rows = [{"method": m, **{k: v for k, v in r.items() if not isinstance(v, list)}}
                for m, r in self.adaptive["methods"].items()]  # fmt: skip
        return {"adaptive": pd.DataFrame(rows)}

    def summary(self) -> list[str]:
        s, a, b, c = self.settings, self.fnr, self.corrected_rate, self.trend_power
        lines = [
            f"FNR {s['fnr']:.2f} ± {s['fnr_halfwidth']:.3f}: {a['true_definitions']:.0f} true definitions per "
            f"model, {a['labels']:.0f} labels at true share {s['true_share']:.2f}",
            f"corrected rate {s['rate']:.2f} ± {s['rate_halfwidth']:.3f} (Se {s['se']:.2f}, Sp {s['sp']:.2f}): "
            + (b["labels_reason"] or f"{b['labels']:.0f} random labels per model")
            + (
                f"; for the realised share of the {b['n_items']:g} definitions (the corrected engine's target, "
                f"sampled without replacement): {b['labels_realised']:.0f}"
                if math.isfinite(b["n_items"])
                else ""
            ),
            f"trend test power: {percent(c['power'], digits=0)} ± {percent(c['se'], digits=0)} for a log-odds "
            f"change of {s['trend_slope']:g} (odds × {c['odds_ratio']:.1f}) with {s['games']} games × "
            f"{s['rounds']} rounds × {s['players']} players (two-stage t; the GEE t-test has somewhat less)",
        ]
        if self.adaptive is not None:
            from wordplay_audit.workflow.balderdash_adaptive import adaptive_lines

            lines += adaptive_lines(self.adaptive)
            u = self.adaptive.get("saving_uncertainty_vs_adaptive")
            if u:
                verb = "saves" if u["labels"] >= 0 else "needs"
                lines.append(
                    f"  uncertainty sampling {verb} {abs(u['labels']):.1f} ± {u['labels_se']:.1f} labels "
                    f"({abs(u['share']):.1%}) {'against' if u['labels'] >= 0 else 'more than'} adaptive (judge "
                    "scores simulated: calibrated, binormal with the judges' Se and Sp; 2 score bands)"
                )
        return lines


def plan_labels(
    *,
    fnr: float = 0.26,
    fnr_halfwidth: float = 0.05,
    true_share: float = 0.5,
    rate: float = 0.5,
    rate_halfwidth: float = 0.05,
    se: float = 0.74,
    sp: float = 0.97,
    items: float = math.inf,
    trend_slope: float = 1.0,
    games: int = 5,
    rounds: int = 20,
    players: int = 3,
    confidence: float = 0.95,
    adaptive: bool = False,
    models: int | None = None,
    decks: int = 1,
    model_rate: Sequence[float] | None = None,
    model_se: Sequence[float] | None = None,
    model_sp: Sequence[float] | None = None,
    campaigns: int = 20,
    batch: int = 20,
    seed: int = 0,
) -> BalderdashPlan:
    """Labels per model for ± ``fnr_halfwidth`` on the judge's FNR and ± ``rate_halfwidth`` on a
    corrected rate, and the trend test's power (seeded simulation); with ``adaptive``, the
    labels proportional, equal and adaptive allocation and uncertainty sampling (a calibrated
    judge score simulated per item, ``analysis.balderdash.plan_adaptive.judge_probabilities``)
    need in ``campaigns`` simulated campaigns, with each method's coverage
    (``model_rate``/``model_se``/``model_sp``: one value per model)."""
    from wordplay_audit.analysis.balderdash.plan import labels_for_corrected_rate, labels_for_fnr, trend_power

    settings = dict(locals())
    for name in _RANGES:
        _check_range(name, settings[name])
    if not (items >= 1):
        raise ParameterError(f"items: expected a number of definitions ≥ 1 (or inf), got {items!r}")
    for name, least in (("games", 2), ("rounds", 2), ("players", 1)):
        if settings[name] < least:
            raise ParameterError(f"{name}: expected {least} or more, got {settings[name]}")
    a = labels_for_fnr(fnr, fnr_halfwidth, true_share=true_share, confidence=confidence)
    b = labels_for_corrected_rate(rate, rate_halfwidth, se=se, sp=sp, n_items=items, confidence=confidence)
    c = trend_power(trend_slope, games=games, rounds=rounds, players=players, confidence=confidence)
    plan = BalderdashPlan(a, b, c, settings)
    if adaptive:
        from wordplay_audit.workflow.balderdash_adaptive import adaptive_plan

        plan.adaptive = adaptive_plan(settings)
    return plan


def true_rates_lines(rates: pd.DataFrame) -> list[str]:
    """The simulation's true LKR and TDR per model and deck as a text table."""
    return frame_lines(rates)
