"""``annotate next``: the next round of an adaptive campaign (issue 14, file mode).

Composes the rooms: the campaign folder and final labels (``annotate``), the allocation
(``analysis.allocation``), the population items table the campaign was planned from (its
``sources.items``, or ``--items``). Steps:

1. strata = the ``--by`` columns × ``judge_verdict`` of the population items; per stratum N_h,
   items drawn so far d_h (every earlier round) and labelled ones n_h with x_h human-true
   (the campaign's final labels on the kind's first question, e.g. ``reference``);
2. one target per ``--by`` group and metric: ``tdr`` = share human-true (linear, Σ W_h q_h),
   ``fnr`` = share the judge called false among the human-true (ratio, delta method). Drawn
   but not yet labelled items count as labelled at the stratum's current share
   (x'_h = x_h d_h/n_h; ½ where nothing is labelled), so they are neither drawn again nor
   ignored;
3. :func:`~wordplay_audit.analysis.allocation.allocate` spreads ``--budget`` labels; items are
   drawn (seeded) by simple random sampling without replacement from the undrawn items of
   each stratum, assigned to the raters with the campaign's overlap, appended to the queues;
4. every campaign item's inclusion probability becomes π_i = 1 − Π_r (1 − n_{r,s}/R_{r,s}) over
   all rounds (round 1 = the plan's strata and π; see ``analysis.allocation``), with
   ``sampling_weight`` = 1/π and ``round``; the manifest gains ``rounds`` (allocation,
   predicted half-widths before and after, item ids).
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from wordplay_audit.analysis.allocation import (
    AllocationOptions,
    StrataCounts,
    allocate,
    fnr_target,
    inclusion_probabilities,
    linear_target,
)
from wordplay_audit.annotate.campaign import MANIFEST, Campaign, _jsonable
from wordplay_audit.annotate.configs import question_labels
from wordplay_audit.annotate.design import STRATUM_COLUMN, assign_overlap, uid_of
from wordplay_audit.annotate.plan import select_kind
from wordplay_audit.corpora.contract import read_items
from wordplay_audit.errors import InputError, ParameterError, check_choice

METRICS = ("tdr", "fnr")
VERDICT = "judge_verdict"


@dataclass(frozen=True)
class NextSpec:
    """Options of ``annotate next``."""

    budget: int
    labels: Path
    targets: tuple[str, ...] = ("tdr",)
    by: tuple[str, ...] = ("player_model",)
    seed: int = 0
    objective: str = "max"
    confidence: float = 0.95
    items: Path | None = None


def _key(frame: pd.DataFrame, columns) -> pd.Series:
    """The stratum name the way ``annotate plan`` writes it (values joined by " × ")."""
    if not columns:
        return pd.Series("all", index=frame.index)
    return frame[list(columns)].astype(str).agg(" × ".join, axis=1)


def _population(c: Campaign, spec: NextSpec) -> pd.DataFrame:
    """The items the campaign was planned from, with the plan's stratum and this round's."""
    path = spec.items or Path(str(c.manifest.get("sources", {}).get("items", "")))
    if not str(path) or not Path(path).is_file():
        raise InputError(f"{c.folder}: the planned items table {str(path)!r} is not there (give --items)")
    items, _kind = select_kind(read_items(path), c.kind, str(path))
    missing = [col for col in (*spec.by, VERDICT) if col not in items.columns]
    if missing:
        raise ParameterError(
            f"--by: column {missing[0]!r} is not in {path} (has {', '.join(map(str, items.columns))}); "
            f"the strata are --by × {VERDICT}"
        )
    items["_plan"] = _key(items, c.manifest["design"]["strata_columns"])
    items["_group"] = _key(items, spec.by)
    items["_stratum"] = _key(items, [*spec.by, VERDICT])
    items["_false"] = items[VERDICT].astype(str).str.strip().str.lower().isin(("false", "0", "no"))
    return items


def _human(c: Campaign, labels_file: Path) -> dict[str, bool]:
    """item_id → human label (resolved final labels of the kind's first question)."""
    table = pd.read_csv(labels_file, dtype=str, keep_default_na=False)
    for col in ("item_id", "label"):
        if col not in table.columns:
            raise InputError(f"{labels_file}: expected pull's final.csv (columns item_id, question, label)")
    question = question_labels(c.kind)[0]
    if "question" in table.columns:
        table = table[table["question"] == question]
    value = table["label"].str.strip().str.lower()
    table = table[value.isin(("true", "false"))]
    return dict(zip(table["item_id"], table["label"].str.strip().str.lower() == "true", strict=True))


def _counts(pop: pd.DataFrame, drawn: np.ndarray, human: dict[str, bool]):
    """Strata names and StrataCounts (labelled = drawn), x' per stratum, and the strata table."""
    label = pop["item_id"].map(human)
    frame = pd.DataFrame(
        {
            "stratum": pop["_stratum"],
            "group": pop["_group"],
            "false": pop["_false"],
            "N": 1,
            "drawn": drawn.astype(int),
            "n": label.notna().to_numpy() & drawn,
            "x": (label == True).to_numpy() & drawn,  # noqa: E712 (NA-safe)
        }
    )
    table = frame.groupby("stratum", sort=True).agg(
        group=("group", "first"),
        false=("false", "first"),
        N=("N", "sum"),
        drawn=("drawn", "sum"),
        n=("n", "sum"),
        x=("x", "sum"),
    )
    d, n, x = (table[c].to_numpy(float) for c in ("drawn", "n", "x"))
    x_scaled = np.where(n > 0, x * d / np.maximum(n, 1), d / 2)
    return table, StrataCounts(table["N"].to_numpy(float), d), x_scaled


def _targets(table: pd.DataFrame, counts: StrataCounts, x_scaled, metrics):
    out = []
    for metric in metrics:
        check_choice("--target", metric, METRICS)
        for group in sorted(table["group"].unique()):
            members = (table["group"] == group).to_numpy()
            if metric == "tdr":
                out.append(linear_target(f"tdr {group}", counts, members, x_scaled))
            else:
                out.append(fnr_target(f"fnr {group}", counts, members, table["false"].to_numpy(), x_scaled))
    return out


def _draw(pop: pd.DataFrame, drawn: np.ndarray, strata, add, rng) -> list[str]:
    chosen: list[str] = []
    for name, k in zip(strata, add, strict=True):
        if k:
            pool = pop.index[(pop["_stratum"] == name).to_numpy() & ~drawn]
            chosen += sorted(pop.loc[rng.choice(pool, size=int(k), replace=False), "item_id"].tolist())
    return chosen


def _pi(c: Campaign, pop: pd.DataFrame, rounds: list[dict]) -> np.ndarray:
    """π of every population item over the plan's round and every later round."""
    sampled = c.items[c.items["honeypot"].astype(str) != "true"]
    later = {i for r in rounds for i in r["item_ids"]}
    first = pop["item_id"].isin(set(sampled["item_id"]) - later).to_numpy()
    history = [(pop["_plan"].to_numpy(), first)]
    for r in rounds:
        history.append(
            (_key(pop, [*r["by"], VERDICT]).to_numpy(), pop["item_id"].isin(r["item_ids"]).to_numpy())
        )
    return inclusion_probabilities(history)


def _assign(c: Campaign, new_ids: list[str], rng) -> pd.DataFrame:
    design = c.manifest["design"]
    raters = list(design["raters"])
    sets = assign_overlap(len(new_ids), raters, int(design["overlap"]), rng)
    last = c.assignments.groupby("rater")["position"].max().reindex(raters, fill_value=0).to_dict()
    key = f"{c.name}:{design['seed']}"
    rows = []
    for item_id, members in zip(new_ids, sets, strict=True):
        for j in members:
            last[raters[j]] += 1
            rows.append(
                {
                    "rater": raters[j],
                    "position": int(last[raters[j]]),
                    "item_id": item_id,
                    "uid": uid_of(key, item_id),
                    "honeypot": False,
                }
            )
    return pd.DataFrame(rows, columns=list(c.assignments.columns))


def _items_table(c: Campaign, pop: pd.DataFrame, new_ids: list[str], pi: np.ndarray, n_round: int):
    """items.csv with the new items appended and every sampled item's π, weight and round."""
    items = c.items.copy()
    items.attrs = {}
    if "round" not in items.columns:
        items["round"] = np.where(items["honeypot"].astype(str) == "true", "", "1")
    new = pop[pop["item_id"].isin(new_ids)].drop(columns=["_group", "_stratum", "_false"])
    new = new.rename(columns={"_plan": STRATUM_COLUMN}).assign(honeypot="false", round=str(n_round))
    items = pd.concat([items.astype(object), new.astype(object)], ignore_index=True)
    by_id = dict(zip(pop["item_id"], pi, strict=True))
    sampled = items["honeypot"].astype(str) != "true"
    items.loc[sampled, "inclusion_probability"] = items.loc[sampled, "item_id"].map(by_id)
    items.loc[sampled, "sampling_weight"] = 1 / items.loc[sampled, "item_id"].map(by_id)
    return items


def next_round(c: Campaign, staging: Path, spec: NextSpec) -> dict:
    """Draw the next round into ``staging`` (a copy of the campaign folder); return its record."""
    if spec.budget < 1:
        raise ParameterError(f"--budget: expected a positive number of items, got {spec.budget}")
    pop = _population(c, spec)
    rounds = list(c.manifest.get("rounds", []))
    sampled = set(c.items.loc[c.items["honeypot"].astype(str) != "true", "item_id"])
    drawn = pop["item_id"].isin(sampled).to_numpy()
    table, counts, x_scaled = _counts(pop, drawn, _human(c, spec.labels))
    options = AllocationOptions(objective=spec.objective, confidence=spec.confidence)
    result = allocate(counts, _targets(table, counts, x_scaled, spec.targets), spec.budget, options)
    rng = np.random.default_rng(spec.seed)
    new_ids = _draw(pop, drawn, table.index, result.add, rng)
    record = {
        "round": len(rounds) + 2,
        "seed": spec.seed,
        "budget": spec.budget,
        "by": list(spec.by),
        "targets": list(spec.targets),
        "objective": spec.objective,
        "confidence": spec.confidence,
        "labels": str(spec.labels),
        "strata": [
            {
                "stratum": s,
                "population": int(row.N),
                "drawn_before": int(row.drawn),
                "labelled": int(row.n),
                "human_true": int(row.x),
                "add": int(a),
            }
            for (s, row), a in zip(table.iterrows(), result.add, strict=True)
        ],
        **result.to_dict(),
        "item_ids": new_ids,
    }
    pi = _pi(c, pop, [*rounds, record])
    manifest = dict(c.manifest)
    manifest["rounds"] = [*rounds, record]
    manifest["assignments"] = pd.concat([c.assignments, _assign(c, new_ids, rng)]).to_dict(orient="records")
    for path in c.folder.iterdir():
        if path.is_file() and path.name not in (MANIFEST, "items.csv", ".wordplay-audit"):
            shutil.copy2(path, staging / path.name)
    _items_table(c, pop, new_ids, pi, record["round"]).to_csv(staging / "items.csv", index=False)
    (staging / MANIFEST).write_text(json.dumps(_jsonable(manifest), indent=1) + "\n", encoding="utf-8")
    return record
