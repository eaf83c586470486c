"""Annotation records → the contract's labels table, reconciled against the assignments.

Every assigned (item, rater) ends in exactly one status:

* ``labelled`` — a submitted annotation answered at least one question;
* ``skipped``  — only skipped (``was_cancelled``) annotations;
* ``missing``  — nothing submitted (drafts do not count);
* ``empty``    — a submitted annotation with no answer.

Annotations are keyed on (item_id, rater), never on Label Studio's annotation id: a second
submitted annotation by the same rater on the same item is a counted duplicate and the most
recently updated one is kept. Counted and left out, each with a warning: annotations on tasks
not in the rater's assignment, annotations by someone the roster does not name as the project's
rater. An unknown choice or control raises :class:`InputError` naming the place.

Honeypot accuracy per rater = (honeypot questions answered as the gold answer) / (honeypot
questions answered).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import pandas as pd

from wordplay_audit.annotate.configs import parse_result, question_labels
from wordplay_audit.corpora.consensus import ADJUDICATOR, consensus

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


def _check_roster(record: dict, rater: str, roster: Mapping[str, str] | None, counts, warnings) -> bool:
    if roster is None or record["annotator"] is None:
        return True
    who = roster.get(record["annotator"])
    if who == rater:
        return True
    counts["foreign_annotator"] += 1
    what = "is not in the roster" if who is None else f"is rater {who!r}"
    warnings.append(
        f"{record['where']}: annotator {record['annotator']!r} {what}, in the project of {rater!r}; left out"
    )
    return False


def _kept_records(records_by_rater, lookup, roster, counts, warnings) -> dict[tuple[str, str], list[dict]]:
    """Records on assigned tasks by the project's rater, grouped by (rater, uid)."""
    by_key: dict[tuple[str, str], list[dict]] = {}
    for rater, records in records_by_rater.items():
        for record in records:
            if (rater, record["uid"]) not in lookup:
                counts["unknown_task"] += 1
                warnings.append(
                    f"{record['where']}: task uid {record['uid']!r} is not assigned to {rater!r}; left out"
                )
            elif _check_roster(record, rater, roster, counts, warnings):
                by_key.setdefault((rater, record["uid"]), []).append(record)
    return by_key


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
    roster: Mapping[str, str] | None = None,
    counts: Mapping[str, int] | None = None,
) -> Reconciled:
    """Reconcile each rater's records with their assignment (``rater, item_id, uid, honeypot``)."""
    total = {"unknown_task": 0, "foreign_annotator": 0, "duplicate_annotations": 0, "unanswered_questions": 0}
    total.update({k: int(v) for k, v in (counts or {}).items()})
    warnings: list[str] = []
    columns = (assignments[c] for c in ("rater", "uid", "item_id", "honeypot"))
    lookup = {(r, u): (i, bool(h)) for r, u, i, h in zip(*columns, strict=True)}
    by_key = _kept_records(records_by_rater, lookup, roster, total, warnings)
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
