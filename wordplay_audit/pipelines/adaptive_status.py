"""``annotate status``'s adaptive part: per target, the interval half-width now and after the next batch.

Every width is the allocation's predicted half-width z·√V_t, V_t = Σ_h g_th² S²_th (1/n_h − 1/N_h)
(:mod:`wordplay_audit.analysis.allocation`; S² from q̃ = (x + 3)/(n + 6), floored), so the
three columns are comparable:

``half_width``          now: n_h = the items of stratum h labelled in ``--labels``, x_h the
                        human-true among them;
``half_width_pending``  once every item drawn so far is labelled (the round in progress; drawn
                        but unlabelled items counted at their stratum's share, as ``next`` does);
``half_width_next``     after that and the next ``--budget`` labels placed as ``annotate next``
                        would place them (nothing is drawn or written);
``estimate``            the corrected estimate from the labels so far, each labelled item weighted
                        by 1/π (``inclusion_probability`` of ``items.csv``, every round
                        included): Σ_h W_h q̂_h with q̂_h the Hájek share of stratum h
                        (``tdr``, ``lkr``), B̂/(Â + B̂) with N_h q̂_h summed over the judge's
                        true (Â) and false (B̂) strata (``fnr``); None while a stratum of the
                        target has no label.

Without ``--labels`` the widths come from the manifest's last ``rounds`` entry: its
``half_width_before`` (when the round was drawn) and ``half_width_after`` (predicted once the
round is labelled). Settings not given (``--by``, ``--target``, ``--budget``, objective,
confidence) are the last round's, else ``annotate next``'s defaults.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np

from wordplay_audit.analysis.allocation import (
    AllocationOptions,
    StrataCounts,
    allocate,
    predicted_half_widths,
    unit_variances,
    weighted_share,
)
from wordplay_audit.annotate.campaign import Campaign
from wordplay_audit.errors import ParameterError
from wordplay_audit.pipelines.adaptive import (
    NextSpec,
    campaign_strata,
    human_labels,
    make_targets,
    metric_question,
    scaled_true,
    ties_notes,
)


def _finite(value: float) -> float | None:
    return float(value) if np.isfinite(value) else None


def status_spec(c: Campaign, labels: Path, overrides: dict) -> NextSpec:
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


def _now(c: Campaign, table, metric: str, confidence: float) -> tuple[list[str], np.ndarray, np.ndarray]:
    """Target names, half-widths with the labels so far, and labelled items per target."""
    question = metric_question(c.kind, metric)
    counts = StrataCounts(table["N"].to_numpy(float), table[f"n_{question}"].to_numpy(float))
    targets = make_targets(table, counts, [metric], c.kind, lambda q: table[f"x_{q}"].to_numpy(float))
    unit = unit_variances(counts, targets, AllocationOptions().floor)
    widths = predicted_half_widths(unit, counts, confidence=confidence)
    labelled = np.array([counts.labelled[_members(table, t.name)].sum() for t in targets])
    return [t.name for t in targets], widths, labelled


def stratum_shares(c: Campaign, pop, table, labels: Path, metric: str) -> np.ndarray:
    """Hájek share q̂_h = Σ y_i/π_i / Σ 1/π_i of each stratum's labelled items (NaN if none)."""
    question = metric_question(c.kind, metric)
    human = human_labels(labels, question, metric)
    sampled = c.items[c.items["honeypot"].astype(str) != "true"]
    pi = dict(zip(sampled["item_id"], sampled["inclusion_probability"].astype(float), strict=True))
    frame = pop[["item_id", "_stratum"]].assign(y=pop["item_id"].map(human), pi=pop["item_id"].map(pi))
    frame = frame[frame["y"].notna() & frame["pi"].notna()]
    shares = {h: weighted_share(g["y"].astype(float), g["pi"])[0] for h, g in frame.groupby("_stratum")}
    return np.array([shares.get(h, np.nan) for h in table.index], dtype=float)


def estimate(metric: str, members: np.ndarray, table, shares: np.ndarray) -> float | None:
    """The target's corrected estimate from the strata shares (see the module docstring)."""
    big_n = table["N"].to_numpy(float)
    if np.isnan(shares[members]).any():
        return None
    mass = np.where(members, big_n * np.nan_to_num(shares), 0.0)
    if metric != "fnr":
        return float(mass.sum() / big_n[members].sum())
    total = mass.sum()
    return float(mass[table["false"].to_numpy(bool)].sum() / total) if total > 0 else None


def status_from_labels(c: Campaign, labels: Path, overrides: dict) -> dict:
    """Widths now, pending and after the next batch (see the module docstring), and the label
    rows naming no campaign item (``labels_unmatched``; the file is checked first)."""
    from wordplay_audit.annotate.labels_check import check_final_labels

    unmatched = check_final_labels(c, labels)["unmatched"]
    spec = status_spec(c, labels, overrides)
    if spec.budget < 0:
        raise ParameterError(f"--budget: expected 0 or more labels, got {spec.budget}")
    _pop, _drawn, table = campaign_strata(c, spec, labels)
    drawn = StrataCounts(table["N"].to_numpy(float), table["drawn"].to_numpy(float))
    targets = make_targets(table, drawn, spec.targets, c.kind, lambda q: scaled_true(table, q))
    options = AllocationOptions(objective=spec.objective, confidence=spec.confidence)
    unit = unit_variances(drawn, targets, options.floor, options.pseudo)
    pending = predicted_half_widths(unit, drawn, confidence=spec.confidence)
    after = allocate(drawn, targets, spec.budget, options).after if spec.budget > 0 else None
    now: dict[str, tuple[float, float]] = {}  # target → (half-width, labelled) with the labels so far
    for metric in spec.targets:
        names, widths, labelled = _now(c, table, metric, spec.confidence)
        now.update(zip(names, zip(widths, labelled, strict=True), strict=True))
    shares = {m: stratum_shares(c, _pop, table, labels, m) for m in spec.targets}
    rows = []
    for i, target in enumerate(targets):
        at = _members(table, target.name)
        metric = target.name.split(" ", 1)[0]
        rows.append(
            {
                "target": target.name,
                "estimate": estimate(metric, at, table, shares[metric]),
                "labelled": int(now[target.name][1]),
                "drawn": int(drawn.labelled[at].sum()),
                "half_width": _finite(now[target.name][0]),
                "half_width_pending": _finite(pending[i]),
                "half_width_next": None if after is None else _finite(after[i]),
            }
        )
    return {
        "source": str(labels),
        "by": list(spec.by),
        "budget": spec.budget,
        "confidence": spec.confidence,
        "targets": rows,
        "labels_unmatched": unmatched,
        "human_labels": table.attrs["human_labels"],
    }


def status_from_manifest(c: Campaign) -> dict | None:
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


def status_lines(status: dict) -> list[str]:
    """The text form: one line per target.

    >>> status_lines({"source": "manifest round 2", "confidence": 0.95, "budget": 40, "targets": [
    ...     {"target": "tdr m1", "half_width": 0.2, "half_width_next": 0.15}]})
    ['targets (manifest round 2, 95 % intervals):', '  tdr m1: ±0.200 when drawn, ±0.150 once labelled']
    """

    def show(value) -> str:
        return "?" if value is None else f"±{value:.3f}"

    lines = [f"targets ({status['source']}, {100 * status['confidence']:g} % intervals):"]
    for row in status["targets"]:
        if "labelled" not in row:
            lines.append(
                f"  {row['target']}: {show(row['half_width'])} when drawn, "
                f"{show(row['half_width_next'])} once labelled"
            )
            continue
        value = "?" if row["estimate"] is None else f"{row['estimate']:.3f}"
        text = (
            f"  {row['target']}: {value} {show(row['half_width'])} now ({row['labelled']} labelled), "
            f"{show(row['half_width_pending'])} once the {row['drawn']} drawn are labelled"
        )
        if status["budget"]:
            text += f", {show(row['half_width_next'])} after the next {status['budget']}"
        lines.append(text)
    return lines + [f"note: {note}" for note in ties_notes(status.get("human_labels", {}))]
