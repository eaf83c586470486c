"""Interval width against labels spent in an adaptive campaign: a table and a plot
from the campaign manifest's ``rounds`` (written by ``annotate next``).

Each round record holds, per stratum, the labels people had given when the round was planned
(``strata[].labelled``) and the labels it adds (``strata[].add``), and per target the predicted
half-width with the labels so far (``half_width_before``, the current width) and after the
round's labels (``half_width_after``). :func:`width_history` lays them out one row per round
and target: ``labels`` = Σ labelled, ``half_width`` = before, ``labels_after`` = labels + Σ add,
``predicted`` = after. A prediction that was infinite (a stratum without labels) is None in the
manifest and nan here.

>>> rounds = [{"round": 2, "strata": [{"labelled": 10, "add": 5}, {"labelled": 6, "add": 5}],
...            "half_width_before": {"tdr a": 0.12}, "half_width_after": {"tdr a": 0.09}}]
>>> width_history({"rounds": rounds}).iloc[0].to_dict()  # doctest: +NORMALIZE_WHITESPACE
{'round': 2, 'target': 'tdr a', 'labels': 16, 'half_width': 0.12, 'labels_after': 26,
 'predicted': 0.09}
"""

from __future__ import annotations

import math

import pandas as pd

from wordplay_audit.analysis.report import (
    Figure,
    Paragraph,
    Section,
    Table,
    figure_png,
    new_figure,
    plot_text,
)
from wordplay_audit.analysis.report.plotting import (
    MAX_SERIES,
    axis_labels,
    legend_outside,
    palette,
    panel_grid,
)
from wordplay_audit.errors import InputError

COLUMNS = ["round", "target", "labels", "half_width", "labels_after", "predicted"]


def _number(value, where: str, source: str) -> float:
    if value is None:
        return math.nan
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
        raise InputError(f"{source}: {where}: expected a number ≥ 0 (or null), got {value!r}")
    return float(value)


def _round_rows(pos: int, record, source: str) -> list[dict]:
    where = f"rounds[{pos}]"
    if not isinstance(record, dict):
        raise InputError(f"{source}: {where}: expected an object, got {type(record).__name__}")
    strata = record.get("strata")
    if not isinstance(strata, list) or not all(isinstance(s, dict) for s in strata):
        raise InputError(f"{source}: {where}.strata: expected a list of objects")
    labels = sum(
        _number(s.get("labelled", 0), f"{where}.strata[{i}].labelled", source) for i, s in enumerate(strata)
    )
    added = sum(_number(s.get("add", 0), f"{where}.strata[{i}].add", source) for i, s in enumerate(strata))
    before, after = record.get("half_width_before"), record.get("half_width_after")
    for name, value in (("half_width_before", before), ("half_width_after", after)):
        if not isinstance(value, dict):
            raise InputError(f"{source}: {where}.{name}: expected an object of target → half-width")
    rows = []
    for target, width in before.items():
        rows.append(
            {
                "round": record.get("round", pos + 2),
                "target": str(target),
                "labels": int(labels),
                "half_width": _number(width, f"{where}.half_width_before.{target}", source),
                "labels_after": int(labels + added),
                "predicted": _number(after.get(target), f"{where}.half_width_after.{target}", source),
            }
        )
    return rows


def width_history(manifest: dict, *, source: str = "manifest") -> pd.DataFrame:
    """One row per round and target (see the module docstring); empty without ``rounds``."""
    rounds = manifest.get("rounds", []) if isinstance(manifest, dict) else None
    if not isinstance(rounds, list):
        raise InputError(f"{source}: rounds: expected a list of round records")
    rows = [row for pos, record in enumerate(rounds) for row in _round_rows(pos, record, source)]
    return pd.DataFrame(rows, columns=COLUMNS)


def _panels(targets: list[str]) -> tuple[dict[str, list[str]], dict[str, str]]:
    """Panel title → its targets, and each target's series name. All targets in one panel while
    they are at most :data:`MAX_SERIES`; else a panel per group (a target is named ``"<metric>
    <group>"``) with the metrics as series, or a panel per target if a group holds too many."""
    if len(targets) <= MAX_SERIES:
        return {"": targets}, {t: t for t in targets}
    groups: dict[str, list[str]] = {}
    for target in targets:
        metric, _, group = target.partition(" ")
        groups.setdefault(group or target, []).append(target)
    if len(groups) > 1 and max(len(members) for members in groups.values()) <= MAX_SERIES:
        return groups, {t: t.partition(" ")[0] if t.partition(" ")[2] else t for t in targets}
    return {t: [t] for t in targets}, {t: t for t in targets}


def width_figure(history: pd.DataFrame):
    """Per target the half-width with the labels so far (solid, one point per round) and each
    round's prediction after its labels (dashed line to an open point); small multiples per
    group when the targets are more than a panel holds (see :func:`_panels`)."""
    from matplotlib.lines import Line2D

    layout, series = _panels(sorted(history["target"].unique()))
    names = list(dict.fromkeys(series[t] for members in layout.values() for t in members))
    colour = dict(zip(names, palette(len(names)), strict=True))
    cols = min(3, len(layout))
    rows = -(-len(layout) // cols)
    fig = new_figure(6.4 if cols == 1 else min(9.6, 3.2 * cols), 4.0 if rows == 1 else 0.6 + 2.6 * rows)
    axes = panel_grid(fig, len(layout), ncols=cols)
    for ax, (title, members) in zip(axes, layout.items(), strict=True):
        for target in members:
            part = history[history["target"] == target].sort_values("labels")
            c = colour[series[target]]
            ax.plot(part["labels"], part["half_width"], "o-", color=c, label=plot_text(series[target]))
            for row in part.itertuples(index=False):
                if math.isfinite(row.half_width) and math.isfinite(row.predicted):
                    ax.plot([row.labels, row.labels_after], [row.half_width, row.predicted], "--", color=c)
                if math.isfinite(row.predicted):
                    ax.plot([row.labels_after], [row.predicted], "o", mfc="white", color=c)
        if title:
            ax.set_title(plot_text(title), fontsize="medium")
    for ax in axes:
        ax.set_ylim(bottom=0)
    axis_labels(axes, cols, xlabel="labels spent", ylabel="95 % half-width (predicted)")
    if len(history):
        handles = [Line2D([], [], color=colour[n], marker="o") for n in names] + [
            Line2D([], [], color="0.3", marker="o", ls="-"),
            Line2D([], [], color="0.3", marker="o", mfc="white", ls="--"),
        ]
        labels = [plot_text(n) for n in names] + ["with the labels so far", "predicted after the round"]
        legend_outside(fig, handles, labels)
    return fig


def adaptive_section(
    manifest: dict, *, title: str = "Adaptive campaign: interval width against labels"
) -> Section:
    """Report section: the width-against-labels plot and its table (or a note: no round yet)."""
    history = width_history(manifest)
    if history.empty:
        return Section(title, [Paragraph("No adaptive round yet (annotate next has not been run).")])
    return Section(title, adaptive_blocks(history))


def adaptive_blocks(history: pd.DataFrame) -> list:
    """The blocks of :func:`adaptive_section` for a :func:`width_history` table."""
    return [
        Paragraph(
            "Per target, the predicted 95 % half-width with the labels people had given when each "
            "round was planned (solid) and the allocation's prediction after the round's labels "
            "(dashed, open point). Predictions use the stratified variance of analysis.allocation."
        ),
        Figure(
            figure_png(width_figure(history)), caption="Interval half-width against labels spent, per target"
        ),
        Table(history, caption="Half-width per round and target (labels so far → after the round)"),
    ]
