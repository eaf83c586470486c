"""The campaign's steps after ``plan``: push, pull, status, adjudicate, and the file mode.

Each function takes a :class:`~wordplay_audit.annotate.campaign.Campaign` and returns plain
results; writing files is left to :func:`write_pulled` / :func:`write_task_files` (called inside
the CLI's output transaction).

Adjudication (:mod:`~wordplay_audit.annotate.adjudication`: the queue of disputed items, the
adjudicator's project) is one of these steps, listed here with the others; ``pull`` also pulls
the adjudicator's project, whose rows carry ``rater_type`` ``adjudicator`` and whose labels
become final (:func:`~.reconcile.final_labels`).
"""

from __future__ import annotations

import hashlib
import json
import re
import unicodedata
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from wordplay_audit.annotate.adjudication import adjudication_assignments, read_adjudication
from wordplay_audit.annotate.campaign import Campaign, push_lock
from wordplay_audit.annotate.configs import label_config, question_labels
from wordplay_audit.annotate.exports import read_export_file, records_from_json
from wordplay_audit.annotate.reconcile import Reconciled, final_labels, reconcile
from wordplay_audit.annotate.roster import NO_ROSTER, as_roster
from wordplay_audit.annotate.server import (
    Server,
    Target,
    adjudication_marker,
    build_tasks,
    push_queues,
    rater_marker,
    server_notes,
)
from wordplay_audit.corpora.ratings import ADJUDICATOR
from wordplay_audit.errors import InputError, ParameterError

__all__ = [
    "Pulled",
    "import_files",
    "progress_bar",
    "pull_campaign",
    "push_campaign",
    "queues",
    "status_campaign",
    "task_file_name",
    "write_pulled",
    "write_task_files",
]


def queues(campaign: Campaign) -> dict[str, pd.DataFrame]:
    a = campaign.assignments
    return {r: a[a["rater"] == r].sort_values("position") for r in campaign.raters}


def push_campaign(campaign: Campaign, server: Server, *, review: bool = False) -> list[dict]:
    """Create or find each rater's project and import the missing tasks (idempotent; under
    :func:`push_lock`)."""
    judge = campaign.judge_labels if review else None
    if review and judge is None:
        raise InputError(f"{campaign.folder}: --review needs judge labels (plan with --judge-labels)")
    with push_lock(campaign.folder):
        return push_queues(
            server,
            Target(campaign.manifest["campaign_id"], campaign.name, campaign.kind),
            items=campaign.items,
            queues=queues(campaign),
            judge=judge,
        )


@dataclass
class Pulled:
    """The campaign's labels reconciled, the adjudication (if any), and the final labels."""

    main: Reconciled
    adjudication: Reconciled | None
    final: pd.DataFrame

    def to_dict(self) -> dict:
        out = self.main.to_dict()
        out["adjudication"] = self.adjudication.to_dict() if self.adjudication else None
        out["final_settled_by"] = (
            self.final["settled_by"].value_counts().to_dict() if not self.final.empty else {}
        )
        return out


def _senders(records: list[dict], accounts: Mapping[str, str]) -> list[dict]:
    """Each record's ``submitted_by`` as the account's email (``accounts``: user id → email);
    an account not in ``accounts`` — the one running the pull (which may submit on a rater's
    behalf), or one since deleted — is left unchecked (None)."""
    return [{**r, "submitted_by": accounts.get(str(r.get("submitted_by")))} for r in records]


def pull_campaign(campaign: Campaign, server: Server, *, roster=None, foreign: str = "refuse") -> Pulled:
    """Snapshot-export every rater's project (and the adjudication) and reconcile.

    ``roster``: a CSV path, a DataFrame (``rater``, ``email``) or a ``{rater: email}`` mapping
    (:func:`~.roster.as_roster`); it must name every rater (and the adjudicator). ``foreign``:
    ``"refuse"`` (an annotation by an account that is not the project's rater is an error) or
    ``"leave_out"`` (left out and counted). An annotation is the rater's when its annotator
    (``completed_by``, which the sender may set) and the account that submitted it (the
    snapshot's ``updated_by``; the account running the pull may submit on a rater's behalf)
    are the rater's. Without a roster the first warning says what that means."""
    people = as_roster(roster)
    adj = read_adjudication(campaign)
    if people is not None:
        people.require(campaign.raters)
        if adj is not None:
            people.require([adj["adjudicator"]], "adjudicator")
    cid = campaign.manifest["campaign_id"]
    accounts = server.users() if people is not None else {}
    accounts.pop(next((i for i, e in accounts.items() if e == server.email), None), None)
    records, counts = {}, {"tasks": 0, "drafts_ignored": 0, "predictions_ignored": 0}
    notes, on_server = [], {"tasks_not_on_server": 0, "duplicate_tasks": 0}
    a = campaign.assignments
    for rater in campaign.raters:
        project = server.find_project(rater_marker(cid, rater))
        if project is None:
            raise InputError(
                f"{server.url}: campaign {campaign.name!r} has no project for rater {rater!r} (push first)"
            )
        tasks = server.snapshot(project)
        recs, c = records_from_json(tasks, f"project {project} ({rater})")
        records[rater] = _senders(recs, accounts)
        counts = {k: counts[k] + c[k] for k in counts}
        missing, extra, found = server_notes(
            f"project {project} ({rater})",
            set(a.loc[a["rater"] == rater, "uid"].astype(str)),
            Counter(str(t["data"]["uid"]) for t in tasks),  # checked by records_from_json
        )
        on_server["tasks_not_on_server"] += missing
        on_server["duplicate_tasks"] += extra
        notes += found
    main = reconcile(
        campaign.kind, a, records, gold=campaign.gold(), roster=people, foreign=foreign, counts=counts
    )
    main.counts.update(on_server)
    main.warnings[:0] = ([NO_ROSTER] if people is None else []) + notes  # first: the summary keeps 20
    adjudication = None
    if adj is not None:
        project = server.find_project(adjudication_marker(cid, adj["adjudicator"]))
        if project is None:
            raise InputError(
                f"{server.url}: no adjudication project for {adj['adjudicator']!r} (run adjudicate)"
            )
        recs, c = records_from_json(server.snapshot(project), f"project {project} (adjudication)")
        recs = _senders(recs, accounts)
        adjudication = reconcile(
            campaign.kind,
            adjudication_assignments(adj),
            {adj["adjudicator"]: recs},
            roster=people,
            foreign=foreign,
            counts=c,
        )
        # the adjudicator settles disputed items and is no rater: agreement leaves these rows out
        adjudication.labels["rater_type"] = ADJUDICATOR
    final = final_labels(main.labels, adjudication.labels if adjudication else None)
    return Pulled(main, adjudication, final)


def import_files(
    campaign: Campaign,
    files: Mapping[str, Path],
    *,
    fmt: str = "auto",
    roster=None,
    foreign: str = "refuse",
) -> Pulled:
    """File mode: reconcile exports downloaded by hand, one per rater (``{rater: file}``);
    ``roster`` and ``foreign`` as in :func:`pull_campaign` (the roster must name the raters
    whose files are given; only the annotator, ``completed_by``, is checked)."""
    spelled = {unicodedata.normalize("NFC", r): r for r in campaign.raters}  # as the manifest has it
    unknown = [r for r in files if unicodedata.normalize("NFC", r) not in spelled]
    if unknown:
        raise ParameterError(
            f"exports: {unknown[0]!r} is not a rater of the campaign ({', '.join(campaign.raters)})"
        )
    files = {spelled[unicodedata.normalize("NFC", r)]: path for r, path in files.items()}
    people = as_roster(roster)
    if people is not None:
        people.require(list(files))
    records, counts = {}, {"tasks": 0, "drafts_ignored": 0, "predictions_ignored": 0}
    for rater, path in files.items():
        recs, c, _fmt = read_export_file(path, campaign.kind, fmt)
        records[rater] = _senders(recs, {})  # a file's updated_by is a user id: not looked up
        counts = {k: counts[k] + c[k] for k in counts}
    a = campaign.assignments
    main = reconcile(
        campaign.kind,
        a[a["rater"].isin(list(files))],
        records,
        gold=campaign.gold(),
        roster=people,
        foreign=foreign,
        counts=counts,
    )
    if people is None:
        main.warnings.insert(0, NO_ROSTER)
    return Pulled(main, None, final_labels(main.labels))


def write_pulled(folder: Path, pulled: Pulled, kind: str) -> list[str]:
    """Write labels.csv (and labels_<question>.csv), status.csv, honeypots.csv, final.csv (the
    contract's final labels table: one label per item and question with ``n_raters``,
    ``n_votes`` and ``settled_by``), summary.json."""
    written = ["labels.csv", "status.csv", "honeypots.csv", "final.csv", "summary.json"]
    labels = pulled.main.labels
    if pulled.adjudication is not None:
        labels = pd.concat([labels, pulled.adjudication.labels], ignore_index=True)
    labels.to_csv(folder / "labels.csv", index=False)
    for question in question_labels(kind):
        if question:
            labels[labels["question"] == question].to_csv(folder / f"labels_{question}.csv", index=False)
            written.append(f"labels_{question}.csv")
    pulled.main.status.to_csv(folder / "status.csv", index=False)
    pulled.main.honeypots.to_csv(folder / "honeypots.csv", index=False)
    pulled.final.to_csv(folder / "final.csv", index=False)
    (folder / "summary.json").write_text(
        json.dumps(_plain(pulled.to_dict()), indent=1) + "\n", encoding="utf-8"
    )
    return written


def _plain(value):
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if hasattr(value, "item"):
        value = value.item()
    if isinstance(value, float) and value != value:
        return None
    return value


def status_campaign(campaign: Campaign, server: Server) -> list[dict]:
    """Per rater: assigned tasks, done (a submitted annotation), skipped (only skipped ones),
    left, not on the server, extra copies, and warnings (a rater without a project, tasks
    missing or twice on the server). done + skipped + left + not_on_server = tasks."""
    out = []
    a = campaign.assignments
    for rater in campaign.raters:
        assigned = set(a.loc[a["rater"] == rater, "uid"].astype(str))
        project = server.find_project(rater_marker(campaign.manifest["campaign_id"], rater))
        rows = [] if project is None else server.task_rows(project)
        state: dict[str, str] = {}
        for row in rows:  # a task present twice counts once: done if either copy is
            if row["uid"] in assigned and state.get(row["uid"]) != "done":
                state[row["uid"]] = "done" if row["done"] else "skipped" if row["skipped"] else "left"
        where = f"project {project} ({rater})"
        missing, extra, notes = server_notes(where, assigned, Counter(r["uid"] for r in rows))
        if project is None:
            notes = [f"{server.url}: no project for rater {rater!r} (push first)"]
        done, skipped = Counter(state.values())["done"], Counter(state.values())["skipped"]
        out.append(
            {
                "rater": rater,
                "project_id": project,
                "tasks": len(assigned),
                "done": done,
                "skipped": skipped,
                "left": len(state) - done - skipped,
                "not_on_server": missing,
                "duplicate_tasks": extra,
                "warnings": notes,
            }
        )
    return out


def progress_bar(done: int, total: int, width: int = 30) -> str:
    share = done / total if total else 1.0
    filled = int(round(share * width))
    return f"[{'#' * filled}{'.' * (width - filled)}] {100 * share:5.1f} %"


def task_file_name(rater: str, used: set[str]) -> str:
    """``tasks_<rater>.json``, the rater's name with characters unsafe in a file name as ``_``;
    where that changed the name, or the name is taken already (also up to case: macOS and
    Windows file systems), a short hash of the rater's name keeps two raters' files apart
    (``a/b`` and ``a?b`` would both be ``tasks_a_b.json``). Adds the name to ``used``.

    >>> used = set()
    >>> task_file_name("ann", used), task_file_name("a/b", used), task_file_name("a?b", used)
    ('tasks_ann.json', 'tasks_a_b-c14cddc0.json', 'tasks_a_b-c2a7b64a.json')
    """
    safe = re.sub(r"[^A-Za-z0-9_.-]", "_", rater)
    name = f"tasks_{safe}.json"
    if safe != rater or name.lower() in used:
        name = f"tasks_{safe}-{hashlib.sha256(rater.encode('utf-8')).hexdigest()[:8]}.json"
    if name.lower() in used:  # a rater literally named like another's hashed file
        raise InputError(f"rater {rater!r}: its tasks file name {name!r} is taken by another rater")
    used.add(name.lower())
    return name


def write_task_files(folder: Path, campaign: Campaign, *, review: bool = False) -> list[str]:
    """File mode: the config and one importable tasks JSON per rater."""
    (folder / "config.xml").write_text(label_config(campaign.kind), encoding="utf-8")
    written = ["config.xml"]
    judge = campaign.judge_labels if review else None
    used: set[str] = {"config.xml"}
    for rater, queue in queues(campaign).items():
        tasks = build_tasks(queue, campaign.items, campaign.kind, judge=judge)
        name = task_file_name(rater, used)
        (folder / name).write_text(json.dumps(tasks, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        written.append(name)
    return written
