"""A campaign's answers coming back: pulled from Label Studio or imported from exports
downloaded by hand (reconciled with the assignments, honeypots scored, final labels), and
scripted answers to try a campaign before people label (``annotate pull``, ``import-file``)."""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import pandas as pd

from wordplay_audit.errors import ParameterError
from wordplay_audit.workflow.campaign import _server, open_campaign
from wordplay_audit.workflow.results import Result, plain
from wordplay_audit.workflow.text import counts

__all__ = ["Pulled", "ScriptedAnswers", "import_answers", "pull_campaign", "simulate_answers"]


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
