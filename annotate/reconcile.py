"""Annotation records → the contract's labels table, reconciled against the assignments.

Every assigned (item, rater) ends in exactly one status:

* ``labelled`` — a submitted annotation answered at least one question;
* ``skipped``  — only skipped (``was_cancelled``) annotations;
* ``missing``  — nothing submitted (drafts do not count);
* ``empty``    — a submitted annotation with no answer.

Annotations are keyed on (item_id, rater), never on Label Studio's annotation id: a second
submitted annotation by the same rater on the same item is a counted duplicate and the most
recently updated one is kept. Counted and left out, each with a warning: annotations on tasks
not in the rater's assignment.

The roster (:func:`~.roster.as_roster`: ``rater → email``) names each project's rater's
accounts. An annotation by another account (*foreign*: on Community Edition every account can
label in every project, and can name anyone as ``completed_by``), or submitted by another
account (``submitted_by``, where known as an email), is refused (:class:`InputError` naming the first and the count) unless
``foreign="leave_out"``, which leaves such annotations out, counted (``foreign_annotator``) with
a warning each. A roster none of whose emails made any of the annotations is a
:class:`ParameterError` (a reversed mapping or another server's roster, which would otherwise
leave every annotation out). Without a roster every annotation counts as the project's rater's;
a project whose annotations come from more than one account gets a warning. An unknown choice
or control raises :class:`InputError` naming the place.

Honeypot accuracy per rater = (honeypot questions answered as the gold answer) / (honeypot
questions answered).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import pandas as pd

from wordplay_audit.annotate.configs import parse_result, question_labels
from wordplay_audit.annotate.roster import Roster, as_roster
from wordplay_audit.corpora.consensus import consensus
from wordplay_audit.corpora.ratings import ADJUDICATOR
from wordplay_audit.errors import InputError, ParameterError, check_choice

FOREIGN = ("refuse", "leave_out")
STATUSES = ("labelled", "skipped", "missing", "empty")
LABEL_OUTPUT_COLUMNS = ("item_id", "rater", "rater_type", "label", "question", "comment", "unsure")


@dataclass
class Reconciled:
    """Labels, one status per assigned (item, rater), honeypot accuracy, and every count."""

    labels: pd.DataFrame
    status: pd.DataFrame  # rater, item_id, honeypot, status
    honeypots: pd.DataFrame  # rater, answered, correct, accuracy
    counts: dict[str, int]
    warnings: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        per_rater = (
            self.status.groupby(["rater", "status"])
            .size()
            .unstack(fill_value=0)
            .reindex(columns=list(STATUSES), fill_value=0)
        )
        return {
            "counts": dict(self.counts),
            "per_rater": {r: {k: int(v) for k, v in row.items()} for r, row in per_rater.iterrows()},
            "honeypot_accuracy": self.honeypots.to_dict(orient="records"),
            "n_labels": len(self.labels),
            "warnings": list(self.warnings[:20]),
            "n_warnings": len(self.warnings),
        }


def _foreign(record: dict, rater: str, roster: Roster | None) -> str | None:
    """Why ``record`` is not the project rater's own (None: it is, or there is no roster): its
    annotator, or the account that submitted it (when known as an email), is not the rater's."""
    if roster is None or record["annotator"] is None:
        return None
    who = roster.rater_of(record["annotator"])
    if who != rater:
        what = "is not in the roster" if who is None else f"is rater {who!r}"
        return f"{record['where']}: annotator {record['annotator']!r} {what}, in the project of {rater!r}"
    sender = record.get("submitted_by")
    if sender is None or "@" not in str(sender):
        return None
    by = roster.rater_of(sender)
    if by == rater:
        return None
    what = "not in the roster" if by is None else f"rater {by!r}"
    return (
        f"{record['where']}: annotator {record['annotator']!r} (rater {rater!r}) but submitted by "
        f"{sender!r}, {what}, in the project of {rater!r}"
    )


def _kept_records(records_by_rater, lookup, roster, counts, warnings) -> tuple[dict, list[str]]:
    """Records on assigned tasks by the project's rater, grouped by (rater, uid), and why each
    foreign one is foreign."""
    by_key: dict[tuple[str, str], list[dict]] = {}
    foreign: list[str] = []
    for rater, records in records_by_rater.items():
        for record in records:
            if (rater, record["uid"]) not in lookup:
                counts["unknown_task"] += 1
                warnings.append(
                    f"{record['where']}: task uid {record['uid']!r} is not assigned to {rater!r}; left out"
                )
            elif (why := _foreign(record, rater, roster)) is not None:
                foreign.append(why)
            else:
                by_key.setdefault((rater, record["uid"]), []).append(record)
    counts["foreign_annotator"] += len(foreign)
    warnings += [f"{why}; left out" for why in foreign]
    return by_key, foreign


def _shown(values, limit: int = 3) -> str:
    values = sorted(set(map(str, values)))
    more = f", … ({len(values)} in all)" if len(values) > limit else ""
    return ", ".join(repr(v) for v in values[:limit]) + more


def check_roster_matches(roster: Roster, records_by_rater: Mapping[str, Sequence[dict]]) -> None:
    """ParameterError when the roster leaves out a rater who has annotations, or when none of its
    emails made any of the annotations (a reversed ``{email: rater}`` or another server's roster:
    every annotation would be foreign)."""
    annotated = [r for r, recs in records_by_rater.items() if any(x["annotator"] is not None for x in recs)]
    roster.require(annotated)
    annotators = {str(x["annotator"]) for recs in records_by_rater.values() for x in recs if x["annotator"]}
    if annotators and not any(roster.rater_of(a) is not None for a in annotators):
        n = sum(x["annotator"] is not None for recs in records_by_rater.values() for x in recs)
        emails = [e for found in roster.emails.values() for e in found]
        raise ParameterError(
            f"{roster.name}: none of its {len(emails)} email(s) ({_shown(emails)}) made any of the {n} "
            f"annotation(s) (their annotators: {_shown(annotators)}); expected {{rater: email}} with the "
            "emails of the raters' Label Studio accounts, as the roster CSV's rater,email columns"
        )


def _refuse_foreign(foreign: list[str]) -> None:
    raise InputError(
        f"{foreign[0]}: refused, {len(foreign)} annotation(s) in all by an account that is not the "
        "project's rater (on Community Edition every account can label in every project); check "
        "them on the server, or pass foreign='leave_out' to leave them out (counted)"
    )


def _several_annotators(records_by_rater) -> list[str]:
    """Without a roster: a warning per project whose annotations come from several accounts."""
    notes = []
    for rater, records in records_by_rater.items():
        who = {str(r["annotator"]) for r in records if r["annotator"] is not None}
        if len(who) > 1:
            notes.append(
                f"rater {rater!r}: annotations by {len(who)} accounts ({_shown(who)}); without a roster "
                f"all count as rater {rater!r}"
            )
    return notes


def _settle(
    kind: str, rater: str, item_id: str, found: list[dict], counts, warnings
) -> tuple[str, list[dict]]:
    """The status of one assigned (item, rater) and its label rows."""
    submitted = sorted((r for r in found if not r["cancelled"]), key=lambda r: r["updated"])
    if len(submitted) > 1:
        counts["duplicate_annotations"] += len(submitted) - 1
        warnings.append(
            f"{submitted[-1]['where']}: {len(submitted)} annotations by {rater!r} on {item_id!r}; kept the latest"
        )
    if not submitted:
        return ("skipped" if found else "missing"), []
    parsed = parse_result(kind, submitted[-1]["result"], submitted[-1]["where"])
    if not parsed["labels"]:
        return "empty", []
    counts["unanswered_questions"] += len(set(question_labels(kind)) - set(parsed["labels"]))
    unsure = "true" if parsed["unsure"] else "false"
    rows = [
        {
            "item_id": item_id,
            "rater": rater,
            "rater_type": "human",
            "label": label,
            "question": question,
            "comment": parsed["comment"],
            "unsure": unsure,
        }
        for question, label in parsed["labels"].items()
    ]
    return "labelled", rows


def reconcile(
    kind: str,
    assignments: pd.DataFrame,
    records_by_rater: Mapping[str, Sequence[dict]],
    *,
    gold: Mapping[tuple[str, str], str] | None = None,
    roster=None,
    foreign: str = "refuse",
    counts: Mapping[str, int] | None = None,
) -> Reconciled:
    """Reconcile each rater's records with their assignment (``rater, item_id, uid, honeypot``).

    ``roster``: anything :func:`~.roster.as_roster` takes (``rater → email``); ``foreign``:
    ``"refuse"`` (an annotation by an account that is not the project's rater is an error) or
    ``"leave_out"`` (left out, counted, a warning each)."""
    check_choice("foreign", foreign, FOREIGN)
    people = as_roster(roster)
    if people is not None:
        check_roster_matches(people, records_by_rater)
    total = {"unknown_task": 0, "foreign_annotator": 0, "duplicate_annotations": 0, "unanswered_questions": 0}
    total.update({k: int(v) for k, v in (counts or {}).items()})
    warnings: list[str] = [] if people is not None else _several_annotators(records_by_rater)
    columns = (assignments[c] for c in ("rater", "uid", "item_id", "honeypot"))
    lookup = {(r, u): (i, bool(h)) for r, u, i, h in zip(*columns, strict=True)}
    by_key, refused = _kept_records(records_by_rater, lookup, people, total, warnings)
    if refused and foreign == "refuse":
        _refuse_foreign(refused)
    rows, status_rows, honey = [], [], []
    for (rater, uid), (item_id, is_honeypot) in lookup.items():
        status, found = _settle(kind, rater, item_id, by_key.get((rater, uid), []), total, warnings)
        (honey if is_honeypot else rows).extend(found)
        status_rows.append({"rater": rater, "item_id": item_id, "honeypot": is_honeypot, "status": status})
    status_frame = pd.DataFrame(status_rows, columns=["rater", "item_id", "honeypot", "status"])
    for name in STATUSES:
        total[name] = int((status_frame["status"] == name).sum())
    labels = pd.DataFrame(rows, columns=list(LABEL_OUTPUT_COLUMNS))
    accuracy = honeypot_accuracy(honey, gold or {}, list(records_by_rater))
    return Reconciled(labels, status_frame, accuracy, total, warnings)


def honeypot_accuracy(
    rows: list[dict], gold: Mapping[tuple[str, str], str], raters: Sequence[str]
) -> pd.DataFrame:
    """Per rater: honeypot questions answered, answered as the gold answer, and the share."""
    out = []
    for rater in raters:
        mine = [r for r in rows if r["rater"] == rater and (r["item_id"], r["question"]) in gold]
        correct = sum(gold[(r["item_id"], r["question"])] == r["label"] for r in mine)
        out.append(
            {
                "rater": rater,
                "answered": len(mine),
                "correct": int(correct),
                "accuracy": correct / len(mine) if mine else float("nan"),
            }
        )
    return pd.DataFrame(out, columns=["rater", "answered", "correct", "accuracy"])


def final_labels(labels: pd.DataFrame, adjudicated: pd.DataFrame | None = None) -> pd.DataFrame:
    """One label per (item, question): the contract's final labels table
    (:func:`wordplay_audit.corpora.consensus.consensus`, tie policy ``adjudicate``).

    ``labels``: the raters' rows; ``adjudicated``: the adjudicator's rows (any ``rater_type``:
    they are taken as adjudications), whose label wins over the vote. ``settled_by`` says how
    each item was settled (``single``, ``unanimous``, ``majority``, ``adjudicated``, or ``tie``:
    unresolved, ``label`` empty); ``n_raters`` and ``n_votes`` count the raters and their votes
    for the label.
    """
    rows = labels
    if adjudicated is not None and not adjudicated.empty:
        rows = pd.concat([labels, adjudicated.assign(rater_type=ADJUDICATOR)], ignore_index=True)
    question = rows["question"].fillna("") if "question" in rows.columns else ""
    return consensus(rows.assign(question=question), tie="adjudicate")


def disputed(labels: pd.DataFrame) -> pd.DataFrame:
    """(item, question) pairs whose labels disagree (any two differ): to be adjudicated."""
    spread = labels.groupby(["item_id", "question"])["label"].nunique()
    return spread[spread > 1].reset_index()[["item_id", "question"]]
