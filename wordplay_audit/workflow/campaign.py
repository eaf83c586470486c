"""Annotation campaigns from Python: plan a stratified, overlapping, blinded sample; send it to
Label Studio (one project per rater) or as files; pull or import the answers (reconciled,
honeypots scored, final labels: :mod:`~wordplay_audit.workflow.campaign_answers`); see how far
each rater is. ``campaign`` is a campaign folder (or what :func:`open_campaign` returns);
``server`` a :class:`LabelStudio` (default: the one ``LABEL_STUDIO_URL`` /
``LABEL_STUDIO_API_KEY`` name).

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
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import pandas as pd

from wordplay_audit.errors import ParameterError
from wordplay_audit.workflow.results import Result, plain

__all__ = [
    "CampaignPlan",
    "LabelStudio",
    "Pushed",
    "TaskFiles",
    "export_task_files",
    "open_campaign",
    "plan_campaign",
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
            *(
                [
                    "items by raters per item: "
                    + ", ".join(f"{n} at {k}" for k, n in d["items_by_overlap"].items())
                ]
                if d.get("overlap_share")
                else []
            ),
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
    overlap_share: dict[int, float] | None = None,
) -> CampaignPlan:
    """Draw a seeded stratified sample of ``n`` items (``strata`` columns, ``allocation``
    proportional or equal), give each to ``overlap`` of ``raters``, mix honeypots (items with
    answers) into each queue at ``honeypot_rate``, shuffle the queues, and write the campaign
    folder ``out`` in one step. ``judge_labels``: verdicts shown to raters with ``review``.
    ``overlap_share``: more raters on a share of the items, ``{raters: share}`` – ``overlap=2,
    overlap_share={3: 0.3}`` gives a seeded random 30 % of the sample a third rater (the rest 2);
    recorded in the manifest's design and used by every ``annotate next`` round."""
    from wordplay_audit.annotate.campaign import check_campaign_name
    from wordplay_audit.annotate.design import DesignSpec
    from wordplay_audit.annotate.plan import plan_campaign as plan
    from wordplay_audit.corpora.io import output_folder
    from wordplay_audit.workflow.campaign_guard import keep_other_campaign

    name = check_campaign_name(Path(out).resolve().name if name is None else name, from_out=name is None)
    spec = DesignSpec(n=n, raters=_names(raters, "raters"), strata=list(strata), allocation=allocation,
                      overlap=overlap, honeypot_rate=honeypot_rate, seed=seed, overlap_share=overlap_share)  # fmt: skip
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
