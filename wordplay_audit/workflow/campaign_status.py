"""How far a campaign is (``annotate status``): per rater, done / skipped / left on the server;
per target, the corrected estimate with its calibrated interval now, and the planning
predictions of the interval's half-width.

*The estimate* of each ``tdr``/``lkr`` target is the corrected-metric engine's
(:func:`wordplay_audit.analysis.correction.engine.corrected_shares`) over the population: per
``by`` group, the realised share people would call true, post-stratified on the judge's verdict
on the target's question (``judge_verdict``; ``judge_knows`` for ``any_sense`` when the
population has it) × the judge's other decision (when the population has both), each label
weighted by the campaign's 1/π (``sampling_weight``, every round included), with the randomised
exact interval (seeded by the group's first item id, stream ``rg``) and the engine's rule of 5
labels per post-stratum. For a Balderdash campaign whose groups are ``player_model × deck`` it
is the number ``balderdash recompute --weights <campaign>/items.csv --seed 0`` prints as ``rg``
for that model × deck cell (the engine on a cell of whole sampling strata, same post-strata; the
status seeds its intervals with 0, the recompute with a fresh seed unless given);
where the groups or post-strata differ (a model across decks; no ``judge_knows``) the output
says so. ``fnr`` = B̂/(Â + B̂) from the engine's corrected true counts of the judge-false (B̂)
and judge-true (Â) verdicts of the group: a ratio with no calibrated interval here
(:mod:`~wordplay_audit.workflow.campaign_estimate`). On a campaign with uncertainty strata
(``annotate next --sampling uncertainty``) the post-stratum is the item's stratum
(``score_band``), the strata of the predictions are those strata, and the next batch is placed
as an uncertainty round would place it (the strata's mean probability as the prior).

*Planning predictions* (delta method; the allocation's predicted half-width z·√V_t,
V_t = Σ_h g_th² S²_th (1/n_h − 1/N_h), S² from q̃ = (x + 3)/(n + 6), floored;
:mod:`wordplay_audit.analysis.allocation`), comparable with each other, not intervals:

``half_width``          now: n_h = the items of stratum h labelled, x_h the human-true among them;
``half_width_pending``  once every item drawn so far is labelled (the round in progress; drawn
                        but unlabelled items counted at their stratum's share, as ``next`` does);
``half_width_next``     after that and the next ``budget`` labels placed as ``next`` would
                        place them (nothing is drawn or written).

Without ``labels`` the widths come from the manifest's last ``rounds`` entry: its
``half_width_before`` (when the round was drawn) and ``half_width_after`` (predicted once the
round is labelled). Settings not given (``by``, ``targets``, ``budget``, objective,
confidence) are the last round's, else ``next``'s defaults.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from wordplay_audit.errors import ParameterError
from wordplay_audit.workflow.campaign_estimate import estimates, finite, recompute_note
from wordplay_audit.workflow.campaign_strata import (
    NextSpec,
    final_labels,
    labels_source,
    make_targets,
    metric_question,
    scaled_true,
    strata_counts_of,
    ties_notes,
)
from wordplay_audit.workflow.campaign_uncertainty import recorded, round_strata
from wordplay_audit.workflow.results import Result, plain

__all__ = ["CampaignStatus", "campaign_status"]


@dataclass
class CampaignStatus(Result):
    """Per rater progress (``raters``: None in file mode) and per target the estimate now
    (``adaptive``; None for a campaign without labels given and no adaptive round)."""

    title = "Campaign status"
    main_table = "targets"

    campaign: str
    raters: list[dict] | None
    adaptive: dict | None
    server_url: str | None = None
    notes: list[str] = field(default_factory=list)

    def tables(self) -> dict[str, pd.DataFrame]:
        out = {}
        if self.raters is not None:
            out["raters"] = pd.DataFrame(self.raters)
        if self.adaptive is not None:
            out["targets"] = pd.DataFrame(self.adaptive["targets"])
        return out

    def to_dict(self) -> dict[str, Any]:
        return plain({"campaign": self.campaign, "raters": self.raters, "adaptive": self.adaptive})

    def summary(self) -> list[str]:
        lines = _rater_lines(self.raters) if self.raters is not None else [*self.notes]
        if self.adaptive is not None:
            lines += status_lines(self.adaptive)
        return lines


def _rater_lines(rows: list[dict]) -> list[str]:
    from wordplay_audit.annotate.workflow import progress_bar

    width = max((len(r["rater"]) for r in rows), default=5)
    lines = [
        f"{r['rater']:<{width}} {progress_bar(r['done'] + r['skipped'], r['tasks'])}"
        f"  done {r['done']}, skipped {r['skipped']}, left {r['left']}"
        + (f", not on the server {r['not_on_server']}" if r["not_on_server"] else "")
        for r in rows
    ]
    return lines + [f"warning: {w}" for r in rows for w in r["warnings"]]


def campaign_status(
    campaign,
    *,
    labels: pd.DataFrame | str | Path | None = None,
    budget: int | None = None,
    targets: Sequence[str] | None = None,
    by: Sequence[str] | None = None,
    items: pd.DataFrame | str | Path | None = None,
    server=None,
) -> CampaignStatus:
    """Per rater, done / skipped / left on the server (``server``, default the one
    ``LABEL_STUDIO_URL`` names; asked when it is set, or when there is nothing else to show); per
    target the corrected estimate with its calibrated interval and the planning half-widths now,
    once the drawn items are labelled and after the next ``budget`` labels (module docstring).

    ``labels``: people's final labels (pull's ``final`` table, or the path of ``final.csv``);
    without them the last round's recorded widths. ``targets``, ``by``, ``budget``: default the
    last round's; ``items``: the population (default: the campaign's recorded one)."""
    import os

    from wordplay_audit.annotate.server import URL_ENV
    from wordplay_audit.workflow.campaign import open_campaign

    c = open_campaign(campaign)
    if labels is not None:
        overrides = {"budget": budget, "targets": None if targets is None else tuple(targets),
                     "by": None if by is None else tuple(by), "items": items}  # fmt: skip
        adaptive = status_from_labels(c, labels, overrides)
    else:
        adaptive = status_from_manifest(c)
    rows, notes, url = None, [], None
    if server is not None or adaptive is None or os.environ.get(URL_ENV):
        from wordplay_audit.annotate.workflow import status_campaign
        from wordplay_audit.workflow.campaign import LabelStudio

        connected = server if server is not None else LabelStudio()
        rows, url = status_campaign(c, connected), connected.url
    else:
        notes = [f"file mode ({URL_ENV} not set): no rater progress"]
    return CampaignStatus(c.name, rows, adaptive, url, notes)


def status_spec(c, labels, overrides: dict) -> NextSpec:
    """The settings of the status: given options, else the last round's, else the defaults."""
    rounds = c.manifest.get("rounds", [])
    last = rounds[-1] if rounds else {}
    spec = NextSpec(budget=int(last.get("budget", 0)), labels=labels)
    for key in ("targets", "by", "objective", "confidence"):
        if key in last:
            value = last[key]
            spec = replace(spec, **{key: tuple(value) if isinstance(value, list) else value})
    given = {k: v for k, v in overrides.items() if v is not None}
    return replace(spec, **given)


def _members(table, name: str) -> np.ndarray:
    """The strata of target ``name`` ("<metric> <group>")."""
    return (table["group"] == name.split(" ", 1)[1]).to_numpy()


def _now(c, table, metric: str, confidence: float, prior=None) -> tuple[list[str], np.ndarray, np.ndarray]:
    """Target names, planned half-widths with the labels so far, and labelled items per target."""
    from wordplay_audit.analysis.allocation import AllocationOptions, predicted_half_widths, unit_variances

    question = metric_question(c.kind, metric)
    counts = strata_counts_of(table, f"n_{question}")
    targets = make_targets(table, counts, [metric], c.kind, lambda q: table[f"x_{q}"].to_numpy(float))
    unit = unit_variances(counts, targets, AllocationOptions().floor, prior=prior)
    widths = predicted_half_widths(unit, counts, confidence=confidence)
    labelled = np.array([counts.labelled[_members(table, t.name)].sum() for t in targets])
    return [t.name for t in targets], widths, labelled


def status_from_labels(c, labels, overrides: dict) -> dict:
    """Estimates now, and the planning widths now, pending and after the next batch (module
    docstring), and the label rows naming no campaign item (``labels_unmatched``)."""
    from wordplay_audit.analysis.allocation import (
        AllocationOptions,
        allocate,
        predicted_half_widths,
        unit_variances,
    )
    from wordplay_audit.annotate.labels_check import check_final_labels

    table = final_labels(labels)
    unmatched = check_final_labels(c, table)["unmatched"]
    spec = status_spec(c, labels, overrides)
    spec.check()
    if isinstance(spec.budget, bool) or not isinstance(spec.budget, int | np.integer) or spec.budget < 0:
        raise ParameterError(f"budget: expected 0 or more labels, got {spec.budget!r}")
    if recorded(c) is not None:  # the campaign's uncertainty strata: predict an uncertainty round
        spec = replace(spec, sampling="uncertainty")
    pop, drawn_flags, strata, design, prior = round_strata(c, spec, table)
    drawn = strata_counts_of(strata)
    targets = make_targets(strata, drawn, spec.targets, c.kind, lambda q: scaled_true(strata, q))
    options = AllocationOptions(objective=spec.objective, confidence=spec.confidence)
    unit = unit_variances(drawn, targets, options.floor, options.pseudo, prior=prior)
    pending = predicted_half_widths(unit, drawn, confidence=spec.confidence)
    after = allocate(drawn, targets, spec.budget, options, prior=prior).after if spec.budget > 0 else None
    now: dict[str, tuple[float, float]] = {}  # target → (half-width, labelled) with the labels so far
    for metric in spec.targets:
        names, widths, labelled = _now(c, strata, metric, spec.confidence, prior)
        now.update(zip(names, zip(widths, labelled, strict=True), strict=True))
    found = estimates(c, pop, drawn_flags, table, spec.targets, spec.confidence, design)
    rows = []
    for i, target in enumerate(targets):
        at = _members(strata, target.name)
        rows.append(
            {
                "target": target.name,
                **found[target.name],
                "labelled": int(now[target.name][1]),
                "drawn": int(drawn.labelled[at].sum()),
                "half_width": finite(now[target.name][0]),
                "half_width_pending": finite(pending[i]),
                "half_width_next": None if after is None else finite(after[i]),
            }
        )
    return {
        "source": labels_source(labels),
        "by": list(spec.by),
        "budget": spec.budget,
        "confidence": spec.confidence,
        "targets": rows,
        "labels_unmatched": unmatched,
        "human_labels": strata.attrs.get("human_labels", {}),
        "recompute": recompute_note(c, spec, pop, design),
        "sampling": spec.sampling,
    }


def status_from_manifest(c) -> dict | None:
    """The last round's recorded widths (None when the campaign has no adaptive round)."""
    rounds = c.manifest.get("rounds", [])
    if not rounds:
        return None
    last = rounds[-1]
    rows = [
        {
            "target": name,
            "half_width": last["half_width_before"][name],
            "half_width_next": last["half_width_after"].get(name),
        }
        for name in last["half_width_before"]
    ]
    return {
        "source": f"manifest round {last['round']}",
        "by": last["by"],
        "budget": last["budget"],
        "confidence": last["confidence"],
        "targets": rows,
    }


def _show(value) -> str:
    return "?" if value is None else f"±{value:.3f}"


def _interval(row: dict) -> str:
    value = "?" if row["estimate"] is None else f"{row['estimate']:.3f}"
    if row["ci_low"] is None:
        return f"{value} ({row['reason']})"
    unknown = f", {row['unknown']} item(s) unknown" if row.get("unknown") else ""
    return f"{value} [{row['ci_low']:.3f}, {row['ci_high']:.3f}]{unknown}"


def status_lines(status: dict) -> list[str]:
    """The text form: one line per target.

    >>> status_lines({"source": "manifest round 2", "confidence": 0.95, "budget": 40, "targets": [
    ...     {"target": "tdr m1", "half_width": 0.2, "half_width_next": 0.15}]})
    ['planned half-widths (manifest round 2, 95 %, delta method: a planning prediction):', '  tdr m1: ±0.200 when drawn, ±0.150 once labelled']
    """
    level = f"{100 * status['confidence']:g} %"
    if status["targets"] and "labelled" not in status["targets"][0]:
        lines = [f"planned half-widths ({status['source']}, {level}, delta method: a planning prediction):"]
        return lines + [f"  {r['target']}: {_show(r['half_width'])} when drawn, {_show(r['half_width_next'])} "
                        "once labelled" for r in status["targets"]]  # fmt: skip
    strata = ", post-stratified on the uncertainty strata" if status.get("sampling") == "uncertainty" else ""
    lines = [f"estimates now ({status['source']}; the corrected-metric engine, {level} randomised exact "
             f"intervals, labels weighted by 1/π{strata}):"]  # fmt: skip
    lines += [f"  {r['target']}: {_interval(r)} ({r['labelled']} labelled)" for r in status["targets"]]
    if status.get("recompute"):
        lines.append(f"note: {status['recompute']}")
    lines.append(f"planned half-widths ({level}, delta method: a planning prediction, not an interval):")
    for r in status["targets"]:
        text = (f"  {r['target']}: {_show(r['half_width'])} now, {_show(r['half_width_pending'])} once the "
                f"{r['drawn']} drawn are labelled")  # fmt: skip
        if status["budget"]:
            text += f", {_show(r['half_width_next'])} after the next {status['budget']}"
        lines.append(text)
    lines += [f"note: {note}" for note in ties_notes(status.get("human_labels") or {})]
    if status.get("labels_unmatched"):
        lines.append(f"note: left out {status['labels_unmatched']} label row(s) of {status['source']} naming "
                     "no item of the campaign")  # fmt: skip
    return lines
