"""``annotate next``: the next round of an adaptive campaign (issue 14).

Composes the rooms: the campaign folder and final labels (``annotate``), the allocation
(``analysis.allocation``), the population items table the campaign was planned from (its
``sources.items``, or ``--items``). Steps:

1. strata = the ``--by`` columns × ``judge_verdict`` of the population items; per stratum N_h,
   items drawn so far d_h (every earlier round) and labelled ones n_h with x_h human-true
   (the campaign's final labels on the metric's question: the kind's first, e.g.
   ``reference``; ``any_sense`` for ``lkr``);
2. one target per ``--by`` group and metric: ``tdr`` = share human-true (linear, Σ W_h q_h),
   ``lkr`` = the same on ``any_sense`` (definitions only), ``fnr`` = share the judge called
   false among the human-true (ratio, delta method). Drawn
   but not yet labelled items count as labelled at the stratum's current share
   (x'_h = x_h d_h/n_h; ½ where nothing is labelled), so they are neither drawn again nor
   ignored;
3. :func:`~wordplay_audit.analysis.allocation.allocate` spreads ``--budget`` labels; items are
   drawn (seeded) by simple random sampling without replacement from the undrawn items of
   each stratum, assigned to the raters with the campaign's overlap, appended to the queues;
4. every campaign item's inclusion probability becomes π_i = 1 − Π_r (1 − n_{r,s}/R_{r,s}) over
   all rounds (round 1 = the plan's strata and π; see ``analysis.allocation``), with
   ``sampling_weight`` = 1/π and ``round``; the manifest gains ``rounds`` (allocation,
   predicted half-widths before and after, item ids);
5. :func:`run_next` writes it all in one transaction (the folder's other files and sub-folders
   kept; refused when another run wrote the manifest after this one read it), then pushes the
   round through ``push``'s code path (only task uids not on the server are imported) when the
   campaign lives on a server; the server is reached before anything is written.
"""

from __future__ import annotations

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
    linear_target,
)
from wordplay_audit.annotate.campaign import MANIFEST, Campaign, write_manifest
from wordplay_audit.annotate.configs import question_labels
from wordplay_audit.annotate.design import STRATUM_COLUMN, assign_overlap, uid_of
from wordplay_audit.annotate.plan import select_kind
from wordplay_audit.corpora.contract import read_items, read_labels, read_table
from wordplay_audit.corpora.io import MARKER
from wordplay_audit.corpora.sampling import inclusion_probabilities
from wordplay_audit.errors import InputError, ParameterError, check_choice, expect_file

METRICS = ("tdr", "fnr", "lkr")
LKR_QUESTION = "any_sense"
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
    if spec.items is not None:  # given by the user: say what is wrong with it
        expect_file(spec.items, "the planned items CSV for --items")
    path = spec.items or c.source("items")
    if path is None or not Path(path).is_file():
        raise InputError(
            f"{c.folder}: the planned items table {str(path or '')!r} is not there (give --items)"
        )
    items, _kind = select_kind(read_items(path), c.kind, str(path))
    sampled = c.items.loc[c.items["honeypot"].astype(str) != "true", "item_id"].astype(str)
    absent = sampled[~sampled.isin(set(items["item_id"]))]
    if len(absent):
        raise InputError(
            f"{path}: campaign item {absent.iloc[0]!r} is not in this table ({len(absent)} of the "
            f"campaign's {len(sampled)} items missing); expected the items table the campaign was "
            "planned from (give it with --items)"
        )
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


def metric_question(kind: str, metric: str) -> str:
    """The question whose human answers a metric's strata shares count: ``lkr`` → ``any_sense``
    (the player knows a sense of the word), ``tdr`` and ``fnr`` → the kind's first question.

    >>> metric_question("definition", "lkr"), metric_question("definition", "tdr")
    ('any_sense', 'reference')
    """
    check_choice("--target", metric, METRICS)
    questions = question_labels(kind)
    if metric != "lkr":
        return questions[0]
    if LKR_QUESTION not in questions:
        raise ParameterError(
            f"--target lkr: needs people's {LKR_QUESTION} labels (kind definition); this campaign's kind "
            f"{kind!r} asks {', '.join(q or 'label' for q in questions)}"
        )
    return LKR_QUESTION


def human_labels(labels_file: Path, question: str, metric: str = "tdr") -> dict[str, bool]:
    """item_id → human label (pull's resolved final labels) on ``question``."""
    table = read_table(expect_file(labels_file, "pull's final.csv for --labels"))  # UTF-8 (BOM), NFC
    for col in ("item_id", "label"):
        if col not in table.columns:
            raise InputError(f"{labels_file}: expected pull's final.csv (columns item_id, question, label)")
    if "question" in table.columns:
        table = table[table["question"] == question]
    elif metric == "lkr":
        table = table.iloc[:0]
    value = table["label"].str.strip().str.lower()
    table = table[value.isin(("true", "false"))]
    if metric == "lkr" and table.empty:
        raise ParameterError(
            f"--target lkr: {labels_file} holds no {LKR_QUESTION} label (LKR is corrected by people's "
            f"answers to {LKR_QUESTION}; label it, or target tdr/fnr)"
        )
    return dict(zip(table["item_id"], table["label"].str.strip().str.lower() == "true", strict=True))


def strata_table(pop: pd.DataFrame, drawn: np.ndarray, humans: dict[str, dict[str, bool]]) -> pd.DataFrame:
    """Per stratum: group, judge-false flag, N, drawn and, per question q, labelled ``n_q`` and
    human-true ``x_q`` among the drawn items."""
    frame = pd.DataFrame(
        {
            "stratum": pop["_stratum"],
            "group": pop["_group"],
            "false": pop["_false"],
            "N": 1,
            "drawn": drawn.astype(int),
        }
    )
    for question, human in humans.items():
        label = pop["item_id"].map(human)
        frame[f"n_{question}"] = label.notna().to_numpy() & drawn
        frame[f"x_{question}"] = (label == True).to_numpy() & drawn  # noqa: E712 (NA-safe)
    sums = {c: (c, "sum") for c in frame.columns if c[:2] in ("n_", "x_") or c in ("N", "drawn")}
    return frame.groupby("stratum", sort=True).agg(group=("group", "first"), false=("false", "first"), **sums)


def scaled_true(table: pd.DataFrame, question: str) -> np.ndarray:
    """x'_h = x_h d_h/n_h: drawn but unlabelled items count at the stratum's share (d/2 if none)."""
    d, n, x = (table[c].to_numpy(float) for c in ("drawn", f"n_{question}", f"x_{question}"))
    return np.where(n > 0, x * d / np.maximum(n, 1), d / 2)


def make_targets(table: pd.DataFrame, counts: StrataCounts, metrics, kind: str, true_of) -> list:
    """One target per metric and group; ``true_of(question)`` gives the x per stratum."""
    out = []
    for metric in metrics:
        question = metric_question(kind, metric)
        x = true_of(question)
        for group in sorted(table["group"].unique()):
            members = (table["group"] == group).to_numpy()
            if metric == "fnr":
                out.append(fnr_target(f"fnr {group}", counts, members, table["false"].to_numpy(), x))
            else:
                out.append(linear_target(f"{metric} {group}", counts, members, x))
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


def campaign_strata(
    c: Campaign, spec: NextSpec, labels: Path
) -> tuple[pd.DataFrame, np.ndarray, pd.DataFrame]:
    """The population (with strata), the drawn flags and :func:`strata_table` for ``spec``'s
    targets (each target's question checked before the labels are read)."""
    questions = {m: metric_question(c.kind, m) for m in spec.targets}
    pop = _population(c, spec)
    humans: dict[str, dict[str, bool]] = {}
    for metric, question in questions.items():
        if question not in humans or metric == "lkr":
            humans[question] = human_labels(labels, question, metric)
    sampled = set(c.items.loc[c.items["honeypot"].astype(str) != "true", "item_id"])
    drawn = pop["item_id"].isin(sampled).to_numpy()
    return pop, drawn, strata_table(pop, drawn, humans)


def _judge_labels(c: Campaign, new_ids: list[str]) -> tuple[pd.DataFrame | None, list[str]]:
    """The campaign's judge labels with the new items' rows from ``sources.judge_labels``."""
    if c.judge_labels is None:
        return None, []
    source = c.source("judge_labels")
    if source is None or not source.is_file():
        text = str(source or "")
        return c.judge_labels, [f"judge labels {text!r} not found: --review shows no verdict on new items"]
    labels = read_labels(source)
    new = labels[(labels["rater_type"] == "judge") & labels["item_id"].isin(set(new_ids))]
    return pd.concat([c.judge_labels.astype(object), new.astype(object)], ignore_index=True), []


def next_round(c: Campaign, staging: Path, spec: NextSpec) -> dict:
    """Draw the next round into ``staging`` (a copy of the campaign folder); return its record."""
    if spec.budget < 1:
        raise ParameterError(f"--budget: expected a positive number of items, got {spec.budget}")
    pop, drawn, table = campaign_strata(c, spec, spec.labels)
    counts = StrataCounts(table["N"].to_numpy(float), table["drawn"].to_numpy(float))
    targets = make_targets(table, counts, spec.targets, c.kind, lambda q: scaled_true(table, q))
    options = AllocationOptions(objective=spec.objective, confidence=spec.confidence)
    result = allocate(counts, targets, spec.budget, options)
    rng = np.random.default_rng(spec.seed)
    new_ids = _draw(pop, drawn, table.index, result.add, rng)
    first = metric_question(c.kind, spec.targets[0])
    record = {
        "round": len(c.manifest.get("rounds", [])) + 2,
        "seed": spec.seed,
        "budget": spec.budget,
        "by": list(spec.by),
        "targets": list(spec.targets),
        "objective": spec.objective,
        "confidence": spec.confidence,
        "labels": str(spec.labels),
        "question": first,
        "strata": [
            {
                "stratum": s,
                "population": int(row.N),
                "drawn_before": int(row.drawn),
                "labelled": int(row[f"n_{first}"]),
                "human_true": int(row[f"x_{first}"]),
                "add": int(a),
            }
            for (s, row), a in zip(table.iterrows(), result.add, strict=True)
        ],
        **result.to_dict(),
        "item_ids": new_ids,
    }
    judge, notes = _judge_labels(c, new_ids)
    record["notes"] = [*record["notes"], *notes]
    _write_round(c, staging, pop, record, judge, rng)
    return record


def _write_round(c: Campaign, staging: Path, pop: pd.DataFrame, record: dict, judge, rng) -> None:
    rounds = [*c.manifest.get("rounds", []), record]
    pi = _pi(c, pop, rounds)
    manifest = dict(c.manifest)
    manifest["rounds"] = rounds
    new_ids = record["item_ids"]
    manifest["assignments"] = pd.concat([c.assignments, _assign(c, new_ids, rng)]).to_dict(orient="records")
    for path in c.folder.iterdir():  # everything else of the folder goes over as it is
        if path.name in (MANIFEST, "items.csv", MARKER):
            continue
        if path.is_dir() and not path.is_symlink():
            shutil.copytree(path, staging / path.name, symlinks=True)
        else:
            shutil.copy2(path, staging / path.name, follow_symlinks=False)
    _items_table(c, pop, new_ids, pi, record["round"]).to_csv(staging / "items.csv", index=False)
    if judge is not None:
        judge.to_csv(staging / "judge_labels.csv", index=False)
    write_manifest(staging, manifest)


def run_next(folder: Path, spec: NextSpec, *, push: bool | None = None, review: bool = False) -> dict:
    """``annotate next``: draw and write the round (one transaction), then push it when the
    campaign lives on a server (``push`` None: when ``LABEL_STUDIO_URL`` is set and the campaign
    has a project there; True: always; False: never). The server is reached before anything is
    written, so a refused token or a server that is down leaves the folder as it was."""
    from wordplay_audit.annotate.campaign import manifest_digest, read_campaign
    from wordplay_audit.annotate.labels_check import check_final_labels
    from wordplay_audit.corpora.io import output_folder

    c = read_campaign(folder)
    unmatched = check_final_labels(c, spec.labels)["unmatched"]  # before the server or the folder
    server, why = _server_for(c, push)
    with output_folder(folder, option="campaign") as staging:
        if manifest_digest(folder) != c.digest:  # another run wrote the campaign since it was read
            raise InputError(
                f"{Path(folder) / MANIFEST}: the campaign changed while this run read it (another "
                "`annotate next`?); nothing written – run it again on the campaign as it is now"
            )
        record = next_round(c, staging, spec)
    record = {"campaign": c.name, **record, "pushed": None, "push_note": why, "labels_unmatched": unmatched}
    if server is not None:
        from wordplay_audit.annotate.workflow import push_campaign

        try:
            record["pushed"] = push_campaign(read_campaign(folder), server, review=review)
        except InputError as exc:
            raise InputError(
                f"{exc} (round {record['round']} is written to {folder}: `annotate push` sends it)"
            ) from None
    return record


def _server_for(c: Campaign, push: bool | None):
    """(server, None) when the round is to be pushed, else (None, why not)."""
    import os

    from wordplay_audit.annotate.server import URL_ENV, Server, rater_marker

    if push is False:
        return None, "not pushed (--no-push)"
    if push is None and not os.environ.get(URL_ENV):
        return None, f"file mode ({URL_ENV} not set): send the new tasks with `annotate export-files`"
    server = Server()
    if push is None and not any(
        server.find_project(rater_marker(c.manifest["campaign_id"], r)) for r in c.raters
    ):
        return None, f"not pushed: the campaign has no project on {server.url} yet (run `annotate push`)"
    return server, None
