"""Annotation campaigns from Python: plan a stratified, overlapping, blinded sample; send it to
Label Studio (one project per rater) or as files; pull or import the answers (reconciled,
honeypots scored, final labels); see how far each rater is. ``campaign`` is a campaign folder
(or what :func:`open_campaign` returns); ``server`` a :class:`LabelStudio` (default: the one
``LABEL_STUDIO_URL`` / ``LABEL_STUDIO_API_KEY`` name).

In a notebook::

    import wordplay_audit as wa
    plan = wa.plan_campaign(items, n=300, raters=["ann", "bob", "cyd"], overlap=2,
                            strata=["player_model", "judge_verdict"], seed=7, out="campaign")
    wa.export_task_files("campaign", out="files")                 # file mode: send each rater a file
    pulled = wa.import_answers("campaign", {"ann": "ann.json", "bob": "bob.json", "cyd": "cyd.json"})
    pulled.final                                                 # one label per item and question
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import pandas as pd

from wordplay_audit.errors import InputError, ParameterError
from wordplay_audit.workflow.results import Result, plain
from wordplay_audit.workflow.text import counts

__all__ = [
    "CampaignPlan",
    "LabelStudio",
    "Pulled",
    "Pushed",
    "TaskFiles",
    "export_task_files",
    "import_answers",
    "open_campaign",
    "plan_campaign",
    "pull_campaign",
    "push_campaign",
]


def LabelStudio(url: str | None = None, *, timeout: float = 120):  # noqa: N802 - a constructor
    """A connected Label Studio server: ``url`` (default ``LABEL_STUDIO_URL``); the token always
    comes from the environment (``LABEL_STUDIO_API_KEY``), never from code or files."""
    from wordplay_audit.annotate.server import Server

    return Server(url, timeout=timeout)


def open_campaign(campaign):
    """The campaign in a folder written by :func:`plan_campaign` (its manifest, items,
    assignments, judge labels); a campaign object is returned as it is."""
    from wordplay_audit.annotate.campaign import Campaign, read_campaign

    return campaign if isinstance(campaign, Campaign) else read_campaign(campaign)


def _server(server):
    return server if server is not None else LabelStudio()


def _names(values: Sequence[str] | str, name: str) -> list[str]:
    """Names, NFC-normalised; empty ones and names holding '=' refused."""
    parts = [values] if isinstance(values, str) else list(values)
    names = [unicodedata.normalize("NFC", str(p).strip()) for p in parts]
    if not names or not all(names):
        raise ParameterError(f"{name}: expected non-empty names, got {parts!r}")
    odd = [n for n in names if "=" in n]
    if odd:
        raise ParameterError(
            f"{name}: {odd[0]!r} holds '=' (an export is named RATER=FILE); choose another name"
        )
    return names


@dataclass
class CampaignPlan(Result):
    """A drawn campaign written to its folder: the manifest (design, strata, loads, pairs)."""

    title = "Campaign plan"
    main_table = "strata"

    folder: str
    manifest: dict

    @property
    def campaign(self):
        return open_campaign(self.folder)

    def tables(self) -> dict[str, pd.DataFrame]:
        return {"strata": pd.DataFrame(self.manifest["design"]["strata"])}

    def to_dict(self) -> dict[str, Any]:
        return plain({"out": self.folder, **{k: v for k, v in self.manifest.items() if k != "assignments"}})

    def summary(self) -> list[str]:
        m, d = self.manifest, self.manifest["design"]
        lines = [
            f"campaign {m['campaign']} ({m['kind']}): {d['n']} items, {len(d['raters'])} raters, overlap "
            f"{d['overlap']}, seed {d['seed']} -> {self.folder}",
            "items per rater: " + ", ".join(f"{r} {n}" for r, n in d["loads"].items()),
            "items shared by each pair of raters: "
            + ", ".join(f"{p} {n}" for p, n in d["pairs_sharing"].items()),
        ]
        return lines + [f"note: {note}" for note in d["notes"]]


def _population_source(items: pd.DataFrame, staging: Path) -> str:
    """Where ``annotate next`` finds the population later: the items' file, or a copy in the
    campaign folder when the table was built in memory."""
    source = items.attrs.get("source")
    if source and Path(source).is_file():
        return str(Path(source).resolve())
    items.to_csv(staging / "population.csv", index=False)
    return "population.csv"


def plan_campaign(
    items: pd.DataFrame,
    *,
    out: str | Path,
    n: int,
    raters: Sequence[str],
    strata: Sequence[str] = (),
    allocation: Literal["proportional", "equal"] = "proportional",
    overlap: int = 2,
    honeypots: pd.DataFrame | None = None,
    honeypot_rate: float = 0.0,
    seed: int = 0,
    kind: str | None = None,
    judge_labels: pd.DataFrame | None = None,
    name: str | None = None,
) -> CampaignPlan:
    """Draw a seeded stratified sample of ``n`` items (``strata`` columns, ``allocation``
    proportional or equal), give each to ``overlap`` of ``raters``, mix honeypots (items with
    answers) into each queue at ``honeypot_rate``, shuffle the queues, and write the campaign
    folder ``out`` in one step. ``judge_labels``: verdicts shown to raters with ``review``."""
    from wordplay_audit.annotate.campaign import check_campaign_name
    from wordplay_audit.annotate.design import DesignSpec
    from wordplay_audit.annotate.plan import plan_campaign as plan
    from wordplay_audit.corpora.io import output_folder
    from wordplay_audit.workflow.campaign_guard import keep_other_campaign

    name = check_campaign_name(Path(out).resolve().name if name is None else name, from_out=name is None)
    spec = DesignSpec(n=n, raters=_names(raters, "raters"), strata=list(strata), allocation=allocation,
                      overlap=overlap, honeypot_rate=honeypot_rate, seed=seed)  # fmt: skip
    with output_folder(out, option="out") as staging:
        manifest = plan(items, staging, spec, honeypots=honeypots, kind=kind, judge_labels=judge_labels, name=name,
                        population=lambda chosen: _population_source(chosen, staging))  # fmt: skip
        keep_other_campaign(out, manifest)  # before the folder is replaced
    return CampaignPlan(str(out), manifest)


@dataclass
class Pushed(Result):
    """One row per project pushed: created or found, tasks imported, already there."""

    title = "Campaign pushed"
    main_table = "projects"

    campaign: str
    projects: list[dict]
    warnings: list[str] = field(default_factory=list)

    def tables(self) -> dict[str, pd.DataFrame]:
        return {"projects": pd.DataFrame(self.projects)}

    def to_dict(self) -> dict[str, Any]:
        return plain({"campaign": self.campaign, "projects": self.projects, "warnings": self.warnings})

    def summary(self) -> list[str]:
        lines = [f"warning: {w}" for w in self.warnings] + [f"{r['owner']}: project {r['project_id']} ({'created' if r['created'] else 'found'}), "
                 f"{r['imported']} tasks imported, {r['already_there']} already there" for r in self.projects]  # fmt: skip
        return lines + [
            f"warning: project {r['project_id']} ({r['owner']}) holds {r['duplicate_tasks']} extra copy(ies) "
            "of tasks (a uid more than once); delete them on the server"
            for r in self.projects
            if r.get("duplicate_tasks")
        ]


def push_campaign(campaign, *, review: bool = False, roster=None, server=None) -> Pushed:
    """Create (or find again) one project per rater and import the tasks not yet there
    (idempotent; one push at a time). ``review`` shows the judge's verdicts as predictions;
    ``roster`` (as in :func:`pull_campaign`) is checked to name every rater with an account on
    the server, and its absence is said (the first warning)."""
    from wordplay_audit.annotate.roster import as_roster, roster_notes
    from wordplay_audit.annotate.workflow import push_campaign as push

    c, people = open_campaign(campaign), as_roster(roster)  # both checked before any connection
    connected = _server(server)
    notes = roster_notes(c.raters, connected, people)
    return Pushed(c.name, push(c, connected, review=review), notes)


@dataclass
class TaskFiles(Result):
    """File mode: the labelling config and one importable tasks file per rater."""

    title = "Task files"

    out: str
    files: list[str]

    def to_dict(self) -> dict[str, Any]:
        return {"out": self.out, "files": list(self.files)}

    def summary(self) -> list[str]:
        return [f"wrote {self.out}: {', '.join(self.files)}"]


def export_task_files(campaign, *, out: str | Path, review: bool = False) -> TaskFiles:
    """File mode: write ``config.xml`` and ``tasks_<rater>.json`` (import into any Label Studio)
    into the folder ``out``. ``review`` puts the judge's verdicts in as predictions."""
    from wordplay_audit.annotate.workflow import write_task_files
    from wordplay_audit.corpora.io import output_folder

    c = open_campaign(campaign)
    if review and c.judge_labels is None:
        raise ParameterError(f"review: {c.folder} has no judge labels (plan it with judge_labels)")
    with output_folder(out, option="out") as staging:
        written = write_task_files(staging, c, review=review)
    return TaskFiles(str(out), written)


@dataclass
class Pulled(Result):
    """The campaign's answers reconciled with its assignments: per-rater ``labels`` (for
    agreement), ``final`` labels (one per item and question, how each was settled), each
    assignment's ``status``, honeypot accuracy per rater, and every count."""

    title = "Campaign labels"
    main_table = "final"

    campaign: str
    pulled: Any  # annotate.workflow.Pulled
    kind: str
    out: str | None = None
    files: tuple[str, ...] = ()

    @property
    def labels(self) -> pd.DataFrame:
        labels = self.pulled.main.labels
        if self.pulled.adjudication is not None:
            labels = pd.concat([labels, self.pulled.adjudication.labels], ignore_index=True)
        return labels

    @property
    def final(self) -> pd.DataFrame:
        return self.pulled.final

    def tables(self) -> dict[str, pd.DataFrame]:
        return {"labels": self.labels, "final": self.final, "status": self.pulled.main.status,
                "honeypots": self.pulled.main.honeypots}  # fmt: skip

    def to_dict(self) -> dict[str, Any]:
        out = {"campaign": self.campaign, **self.pulled.to_dict()}
        if self.out is not None:
            out.update(out=self.out, files=list(self.files))
        return plain(out)

    def summary(self) -> list[str]:
        from wordplay_audit.annotate.roster import NO_ROSTER

        d = self.pulled.to_dict()
        lines = [f"warning: {w}" for w in d["warnings"] if w == NO_ROSTER]  # said first, loudly
        lines += [f"wrote {self.out}: {', '.join(self.files)}"] if self.out else []
        lines.append(
            f"assigned items: {counts({k: d['counts'][k] for k in ('labelled', 'skipped', 'missing', 'empty')})}"
        )
        other = {
            k: v for k, v in d["counts"].items() if k not in ("labelled", "skipped", "missing", "empty") and v
        }
        if other:
            lines.append(f"left out: {counts(other)}")
        for rater, by in d["per_rater"].items():
            lines.append(f"  {rater}: {counts(by)}")
        for h in d["honeypot_accuracy"]:
            if h["answered"]:
                lines.append(
                    f"  honeypot questions answered by {h['rater']}: {h['correct']} of {h['answered']} correct"
                )
        from wordplay_audit.corpora.consensus import ties_note

        settled = d.get("final_settled_by") or {}
        if settled:
            lines.append(f"final labels, settled by: {counts(settled)}")
            lines += [f"  {note}" for note in [ties_note(settled.get("tie", 0))] if note]
        lines += [f"warning: {w}" for w in d["warnings"] if w != NO_ROSTER]
        return lines

    def write(self, out: str | Path, *, title: str | None = None) -> list[str]:
        """labels.csv (+ labels_<question>.csv), status.csv, honeypots.csv, final.csv, summary.json."""
        from wordplay_audit.annotate.workflow import write_pulled
        from wordplay_audit.corpora.io import output_folder

        del title
        with output_folder(out, option="out") as staging:
            files = write_pulled(staging, self.pulled, self.kind)
        self.out, self.files = str(out), tuple(files)
        return list(files)


Foreign = Literal["refuse", "leave_out"]


def pull_campaign(
    campaign, *, out: str | Path | None = None, roster=None, foreign: Foreign = "refuse", server=None
) -> Pulled:
    """Snapshot-export every rater's project (and the adjudication) and reconcile; with ``out``
    write the files :meth:`Pulled.write` lists. ``roster``: which account (email) is which
    rater — the credentials file :func:`create_raters` writes, a table (``rater``, ``email``)
    or a mapping rater → email; an annotation by any other account is refused (``foreign``
    ``refuse``) or left out and counted (``leave_out``). Without a roster every annotation in a
    rater's project counts as theirs (the first warning says so)."""
    from wordplay_audit.annotate.roster import as_roster
    from wordplay_audit.annotate.workflow import pull_campaign as pull
    from wordplay_audit.errors import check_choice

    check_choice("foreign", foreign, ("refuse", "leave_out"))
    c = open_campaign(campaign)
    people = as_roster(roster)  # checked before any connection
    result = Pulled(c.name, pull(c, _server(server), roster=people, foreign=foreign), c.kind)
    if out is not None:
        result.write(out)
    return result


def import_answers(
    campaign,
    exports: Mapping[str, str | Path],
    *,
    out: str | Path | None = None,
    format: Literal["auto", "json", "json-min", "csv"] = "auto",  # noqa: A002 - the export's format
    roster=None,
    foreign: Foreign = "refuse",
) -> Pulled:
    """File mode: reconcile Label Studio exports downloaded by hand, one per rater
    (``{rater: file}``; JSON, JSON_MIN or CSV); with ``out`` write the same files as a pull.
    ``roster`` and ``foreign`` as in :func:`pull_campaign`."""
    from wordplay_audit.annotate.exports import EXPORT_FORMATS
    from wordplay_audit.annotate.roster import as_roster
    from wordplay_audit.annotate.workflow import import_files
    from wordplay_audit.errors import check_choice

    check_choice("format", format, EXPORT_FORMATS)
    check_choice("foreign", foreign, ("refuse", "leave_out"))
    if not exports:
        raise ParameterError("exports: give one export file per rater ({rater: file})")
    c = open_campaign(campaign)
    files = {unicodedata.normalize("NFC", str(r).strip()): Path(p) for r, p in exports.items()}
    result = Pulled(
        c.name, import_files(c, files, fmt=format, roster=as_roster(roster), foreign=foreign), c.kind
    )
    if out is not None:
        result.write(out)
    return result


def check_labels_for(campaign, labels: pd.DataFrame) -> pd.DataFrame:
    """``labels`` (pull's final labels or per-rater labels) checked against the campaign."""
    if "item_id" not in labels.columns:
        raise InputError(f"{labels.attrs.get('source') or 'labels'}: column 'item_id' is missing")
    return labels


@dataclass
class ScriptedAnswers(Result):
    """Label Studio JSON exports of scripted raters, one file per rater (``exports``: rater →
    path), ready for :func:`import_answers`."""

    title = "Scripted answers"

    out: str
    exports: dict[str, Path]

    def to_dict(self) -> dict[str, Any]:
        return plain({"out": self.out, "exports": self.exports})

    def summary(self) -> list[str]:
        return [f"wrote {self.out}: " + ", ".join(f"{r} {p.name}" for r, p in self.exports.items())]


def simulate_answers(
    campaign,
    truth: pd.DataFrame,
    *,
    out: str | Path,
    accuracy: float | Mapping[str, float] = 1.0,
    skip: float = 0.0,
    seed: int = 0,
) -> ScriptedAnswers:
    """Answer a campaign's tasks as scripted raters would and write each rater's answers as a
    Label Studio JSON export into ``out``: the label in ``truth`` (``item_id``, ``label``,
    ``question``) with probability ``accuracy`` (one share, or one per rater), another answer
    otherwise; a share ``skip`` of tasks skipped. To try a campaign end to end before real
    people label, or to simulate one."""
    import json

    from wordplay_audit.annotate.scripted import scripted_exports
    from wordplay_audit.annotate.workflow import task_file_name
    from wordplay_audit.corpora.io import output_folder

    c = open_campaign(campaign)
    exports = scripted_exports(c, truth, accuracy=accuracy, skip=skip, seed=seed)
    used: set[str] = set()
    paths = {}
    with output_folder(out, option="out") as staging:
        for rater, tasks in exports.items():
            name = task_file_name(rater, used).replace("tasks_", "answers_", 1)
            (staging / name).write_text(
                json.dumps(tasks, indent=1, ensure_ascii=False) + "\n", encoding="utf-8"
            )
            paths[rater] = Path(out) / name
    return ScriptedAnswers(str(out), paths)
