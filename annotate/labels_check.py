"""Labels files given to ``annotate next``, ``status --labels`` and ``adjudicate``, checked
against the campaign before they are used (``next`` and ``status`` take final labels or
per-rater labels, ``adjudicate`` per-rater labels).

A row whose ``item_id`` names no item of the campaign (a labels file of another campaign or
game) is counted and reported by the command, never silently dropped; when not one row names a
campaign item the file is refused. Final labels (pull's ``final.csv``) are also checked row by
row: every label is one of the kind's answers or empty (``unresolved``), every ``question`` one
the kind asks (the column may be left out only for a kind that asks one question), and no
(item, question) is given two different labels. Pulled labels (``labels.csv``, for
``adjudicate``) get the same checks, with no empty label and one label per (rater, item,
question). A row with more fields than the header is refused. Each error names the file's line.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from wordplay_audit.annotate.campaign import Campaign
from wordplay_audit.annotate.configs import allowed_labels, question_labels
from wordplay_audit.corpora.contract import is_final_labels, place, read_labels
from wordplay_audit.errors import InputError, at_line, expect_file


def campaign_rows(campaign: Campaign, labels: pd.DataFrame, source: str | Path) -> tuple[pd.DataFrame, int]:
    """The rows of ``labels`` that name an item of ``campaign``, and how many do not; InputError
    when none does."""
    known = set(campaign.items["item_id"].astype(str))
    ids = labels["item_id"].astype(str).str.strip()
    matched = ids.isin(known).to_numpy()
    if len(labels) and not matched.any():
        raise InputError(
            f"{place(labels, 0, str(source))}item {ids.iloc[0]!r}: none of the {len(labels)} label rows "
            f"names an item of campaign {campaign.name!r} (labels of another campaign?)"
        )
    return labels[matched], int((~matched).sum())


def check_final_labels(campaign: Campaign, labels: pd.DataFrame) -> dict[str, int]:
    """Check pull's final labels (the table of ``final.csv``; ``attrs["source"]`` names its file)
    for ``campaign`` (see the module docstring); return the counts ``{"rows", "unmatched"}``
    (rows naming no campaign item). Per-rater labels (pull's ``labels.csv``: it has ``rater``) are
    checked as :func:`check_labels` does (``next`` and ``status`` settle them by the consensus)."""
    source = str(labels.attrs.get("source") or "labels")
    if not is_final_labels(labels) and {"rater", "rater_type"} & set(labels.columns):
        _rows, unmatched = check_label_rows(campaign, labels)  # per-rater: settled by the consensus
        return {"rows": int(len(labels)), "unmatched": unmatched}
    if "item_id" not in labels.columns or "label" not in labels.columns:
        raise InputError(
            f"{at_line(source, 1) if labels.attrs.get('line_index') else source + ': '}expected pull's "
            f"final.csv (columns item_id, question, label); got {', '.join(map(str, labels.columns)) or 'no columns'}"
        )
    _check_answers(campaign, labels, source, ["item_id", "question"], unresolved=True)
    _matched, unmatched = campaign_rows(campaign, labels, source)
    return {"rows": int(len(labels)), "unmatched": unmatched}


def check_labels(campaign: Campaign, path: str | Path) -> tuple[pd.DataFrame, int]:
    """Pull's ``labels.csv`` (the contract's labels) checked for ``campaign`` like final labels,
    one label per rater, item and question; return its rows naming a campaign item and how many
    do not (``adjudicate --labels``)."""
    return check_label_rows(campaign, read_labels(expect_file(path, "pull's labels.csv for --labels")))


def check_label_rows(campaign: Campaign, table: pd.DataFrame) -> tuple[pd.DataFrame, int]:
    """:func:`check_labels` on a labels table (``attrs["source"]`` names its file)."""
    from wordplay_audit.corpora.contract import validate_labels

    source = str(table.attrs.get("source") or "labels")
    table = validate_labels(table, source=source)
    _check_answers(campaign, table, source, ["item_id", "rater", "question"], unresolved=False)
    return campaign_rows(campaign, table, source)


def _check_answers(campaign: Campaign, table: pd.DataFrame, path, key: list[str], *, unresolved: bool):
    """Every ``question`` one the kind asks, every label one of its answers (or empty where
    ``unresolved``), and one label per ``key`` (the file's lines in the messages)."""
    asked = question_labels(campaign.kind)
    if "question" in table.columns:
        question = table["question"].astype(str).str.strip()
    elif len(asked) == 1:
        question = pd.Series(asked[0], index=table.index)
    else:
        raise InputError(
            f"{at_line(path, 1)}no 'question' column; campaign kind {campaign.kind!r} asks "
            f"{', '.join(asked)} (expected pull's labels)"
        )
    label = table["label"].astype(str).str.strip()
    for name in sorted(set(question)):
        if name not in asked:
            pos = int((question == name).to_numpy().nonzero()[0][0])
            raise InputError(
                f"{place(table, pos, str(path))}question {name!r} is not a question the campaign's kind "
                f"{campaign.kind!r} asks ({', '.join(repr(q) for q in asked)})"
            )
        allowed = {a.lower() for a in allowed_labels(campaign.kind, name)}
        bad = (
            (question == name) & ~label.str.lower().isin(allowed | ({""} if unresolved else set()))
        ).to_numpy()
        if bad.any():
            pos = int(bad.nonzero()[0][0])
            empty = " (or empty: unresolved)" if unresolved else ""
            raise InputError(
                f"{place(table, pos, str(path))}label {label.iloc[pos]!r} is not one of "
                f"{', '.join(sorted(allowed))}{empty}"
            )
    columns = {c: table[c].astype(str).str.strip() for c in key if c != "question"}
    keys = pd.DataFrame({**columns, "question": question, "label": label.str.lower()})
    clash = keys.drop_duplicates().duplicated(key)
    if clash.any():
        line = clash[clash].index[0]  # read_table's index is the file's line (place says so)
        what = f"item {columns['item_id'][line]!r}" + (
            f", question {question[line]!r}" if question[line] else ""
        )
        if "rater" in columns:
            what = f"rater {columns['rater'][line]!r}, {what}"
        raise InputError(
            f"{place(table, int(table.index.get_loc(line)), str(path))}{what}: label {label[line]!r} contradicts an earlier row "
            f"(expected one {'final label per item' if unresolved else 'label per rater, item'} and question)"
        )
