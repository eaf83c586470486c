"""A campaign folder: what ``annotate plan`` writes and every later command reads.

Files:

* ``manifest.json`` — format, campaign name and id, kind, the design (seed, strata counts,
  inclusion probabilities and weights, loads, pairs) and the assignments (rater, position,
  item_id, uid, honeypot): enough to redraw the campaign;
* ``items.csv`` — the sampled items (contract columns, strata, ``stratum``,
  ``inclusion_probability``, ``sampling_weight``) and the honeypot items (``honeypot`` = true,
  their ``gold*`` answer columns);
* ``config.xml`` — the Label Studio labelling config of the campaign's kind;
* ``judge_labels.csv`` — optional, the judge's verdicts on the sampled items (review mode).

Honeypot answers: a column ``gold`` for a kind with one question, ``gold_<question>`` for each
question of a kind with several (``gold`` is read as the first question's answer).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from wordplay_audit.annotate.configs import interface, label_config, question_labels
from wordplay_audit.annotate.design import Design
from wordplay_audit.corpora.contract import normalize_bool_label, place, read_table, validate_items
from wordplay_audit.errors import InputError, ParameterError

FORMAT = "wordplay-audit-campaign/1"
MANIFEST = "manifest.json"
ASSIGNMENT_COLUMNS = ("rater", "position", "item_id", "uid", "honeypot")
NAME_CHARS = re.compile(r"\w[\w .-]{0,99}")  # \w: any script's letters and digits, and _


def check_campaign_name(name: str, *, from_out: bool = False) -> str:
    """``name`` (NFC) if it is safe as a file and a project name, else :class:`ParameterError`.

    Letters, digits, ``_``, ``-``, ``.`` and spaces; a letter, digit or ``_`` first, no space or
    ``.`` last, at most 100 characters: no path separator, no ``..``, nothing a file system or
    a project title would refuse or read differently. ``from_out``: the name was the ``--out``
    folder's (no ``--name`` given), which the message says.

    >>> check_campaign_name("deck-7 pilot")
    'deck-7 pilot'
    >>> check_campaign_name("a/b")
    Traceback (most recent call last):
    ...
    wordplay_audit.errors.ParameterError: name: expected a campaign name of letters, digits, '_', '-', '.' and spaces (a letter, digit or '_' first, no space or '.' last, at most 100 characters); got 'a/b'
    """
    text = unicodedata.normalize("NFC", name) if isinstance(name, str) else name
    if not isinstance(text, str) or not NAME_CHARS.fullmatch(text) or text.endswith((" ", ".")):
        hint = " (taken from the output folder's name; give one with `name`)" if from_out else ""
        raise ParameterError(
            "name: expected a campaign name of letters, digits, '_', '-', '.' and spaces (a letter, "
            f"digit or '_' first, no space or '.' last, at most 100 characters); got {name!r}{hint}"
        )
    return text


@dataclass
class Campaign:
    """A campaign read back from its folder."""

    folder: Path
    manifest: dict
    items: pd.DataFrame
    assignments: pd.DataFrame
    judge_labels: pd.DataFrame | None
    digest: str = ""  #: SHA-256 of manifest.json as read

    @property
    def name(self) -> str:
        return str(self.manifest["campaign"])

    @property
    def kind(self) -> str:
        return str(self.manifest["kind"])

    @property
    def raters(self) -> tuple[str, ...]:
        return tuple(self.manifest["design"]["raters"])

    def source(self, key: str) -> Path | None:
        """The manifest's ``sources.<key>`` as a path (None when not recorded). ``plan`` stores it
        absolute; a relative one (a manifest written before) was relative to the folder ``plan``
        ran in, so it is looked for beside the campaign folder and its parents first, then in the
        current folder (``annotate next`` refuses a table lacking a campaign item)."""
        text = str(self.manifest.get("sources", {}).get(key) or "")
        if not text:
            return None
        path = Path(text)
        if path.is_absolute():
            return path
        here = self.folder.resolve()
        for base in (*here.parents, Path.cwd()):
            if (base / path).is_file():
                return base / path
        return here.parent / path

    def gold(self) -> dict[tuple[str, str], str]:
        """Honeypot answers: (item_id, question) → label."""
        return honeypot_gold(self.items[self.items["honeypot"] == "true"], self.kind)


def gold_column(kind: str, question: str) -> str:
    return f"gold_{question}" if question else "gold"


def honeypot_gold(
    honeypots: pd.DataFrame, kind: str, source: str | None = None
) -> dict[tuple[str, str], str]:
    """Read the answers of honeypot items (see the module docstring); bool kinds normalised."""
    questions = question_labels(kind)
    out: dict[tuple[str, str], str] = {}
    for pos, row in enumerate(honeypots.to_dict(orient="records")):  # pos: for the message
        for index, question in enumerate(questions):
            value = row.get(gold_column(kind, question))
            if (value is None or str(value).strip() in ("", "nan")) and index == 0:
                value = row.get("gold")
            if value is None or str(value).strip() in ("", "nan"):
                continue
            text = str(value).strip()
            if kind != "knowledge_type":
                try:
                    text = normalize_bool_label(text)
                except ValueError:
                    where = place(honeypots, pos, source)
                    raise InputError(
                        f"{where}{gold_column(kind, question)}: expected true/false, got {text!r}"
                    ) from None
            out[(str(row["item_id"]), question)] = text
    return out


def check_honeypots(table: pd.DataFrame, kind: str) -> pd.DataFrame:
    """Honeypot items: contract items of ``kind`` with at least one answer each."""
    source = str(table.attrs.get("source") or "honeypots")
    frame = validate_items(table, source=source)
    wrong = (frame["kind"] != kind).to_numpy().nonzero()[0]
    if len(wrong):
        raise InputError(
            f"{place(frame, int(wrong[0]), source)}kind {frame['kind'].iloc[wrong[0]]!r}, "
            f"the campaign's is {kind!r}"
        )
    gold = honeypot_gold(frame, kind, source)
    lacking = [i for i, item in enumerate(frame["item_id"]) if not any(k[0] == item for k in gold)]
    if lacking:
        raise InputError(
            f"{place(frame, lacking[0], source)}honeypot has no answer (column gold or gold_<question>)"
        )
    out = frame.reset_index(drop=True)
    out.attrs = {}
    return out


def campaign_id(name: str, design: Design) -> str:
    """12 hex digits naming the campaign on the server (its projects carry it)."""
    text = json.dumps({"campaign": name, "seed": design.seed, "n": design.n, "raters": list(design.raters)})
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def write_campaign(
    folder: Path,
    *,
    name: str,
    kind: str,
    design: Design,
    honeypots: pd.DataFrame | None,
    judge_labels: pd.DataFrame | None,
    sources: dict[str, str],
) -> dict:
    """Write a campaign's files into ``folder`` (a staging folder); return the manifest."""
    interface(kind)
    sample = design.sample.copy()
    sample["honeypot"] = "false"
    parts = [sample]
    if honeypots is not None and not honeypots.empty:
        used = set(design.assignments.loc[design.assignments["honeypot"], "item_id"])
        hp = honeypots[honeypots["item_id"].isin(used)].copy()
        hp["honeypot"] = "true"
        parts.append(hp)
    items = pd.concat(parts, ignore_index=True)
    items.to_csv(folder / "items.csv", index=False)
    (folder / "config.xml").write_text(label_config(kind), encoding="utf-8")
    if judge_labels is not None:
        judge_labels.to_csv(folder / "judge_labels.csv", index=False)
    manifest = {
        "format": FORMAT,
        "campaign": name,
        "campaign_id": campaign_id(name, design),
        "kind": kind,
        "sources": sources,
        "design": design.to_dict(),
        "assignments": design.assignments[list(ASSIGNMENT_COLUMNS)].to_dict(orient="records"),
    }
    return write_manifest(folder, manifest)


def write_manifest(folder: Path, manifest: dict) -> dict:
    """Write ``manifest.json`` into ``folder`` (a staging folder); return what was written."""
    manifest = jsonable(manifest)
    (folder / MANIFEST).write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    return manifest


def jsonable(value):
    """``value`` with numpy scalars made plain and NaN made None (dict keys become str).

    >>> import numpy as np
    >>> jsonable({1: (np.int64(2), np.float64("nan"), np.bool_(True))})
    {'1': [2, None, True]}
    """
    import numpy as np

    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [jsonable(v) for v in value]
    if isinstance(value, np.bool_ | bool):
        return bool(value)
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating | float):
        return None if math.isnan(float(value)) else float(value)
    return value


def read_campaign(folder: str | Path) -> Campaign:
    """Read a campaign folder written by :func:`write_campaign`; one-line errors. The manifest's
    schema and ``items.csv`` are checked first (:mod:`.manifest_check`); ``digest`` fingerprints
    ``manifest.json`` (a writer re-reads it under the output lock to see nobody wrote meanwhile)."""
    from wordplay_audit.annotate.manifest_check import validate_campaign_items, validate_manifest

    folder = Path(folder)
    path = folder / MANIFEST
    if not path.is_file():
        raise InputError(f"{folder}: not a campaign folder (no {MANIFEST}; write one with `annotate plan`)")
    raw = path.read_bytes()
    try:
        manifest = json.loads(raw.decode("utf-8-sig"))
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise InputError(f"{path} line {line}: not UTF-8 text (byte {raw[exc.start]:#04x})") from None
    except json.JSONDecodeError as exc:
        raise InputError(f"{path} line {exc.lineno}: not JSON ({exc.msg})") from None
    validate_manifest(manifest, path, FORMAT)
    items = read_table(folder / "items.csv")
    validate_campaign_items(items, manifest, folder / "items.csv")
    assignments = pd.DataFrame(manifest["assignments"], columns=list(ASSIGNMENT_COLUMNS))
    assignments["item_id"] = assignments["item_id"].astype(str)
    assignments["honeypot"] = assignments["honeypot"].astype(bool)  # checked: JSON true/false
    judge_path = folder / "judge_labels.csv"
    judge = read_table(judge_path) if judge_path.is_file() else None
    return Campaign(folder, manifest, items, assignments, judge, hashlib.sha256(raw).hexdigest())


def manifest_digest(folder: str | Path) -> str:
    """SHA-256 of ``<folder>/manifest.json`` as :attr:`Campaign.digest` has it ("" when absent)."""
    path = Path(folder) / MANIFEST
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else ""


@contextlib.contextmanager
def push_lock(folder: Path) -> Iterator[None]:
    """Hold an exclusive lock for a run that pushes the campaign (``push``, ``adjudicate``,
    ``next``'s push): two at once would each create the projects and import the tasks. The
    lock file ``.<campaign>.push.lock`` lies beside the campaign folder (``next`` replaces the
    folder itself); a second run is refused with one line."""
    from wordplay_audit.corpora.io import _Lock

    folder = Path(folder).resolve()
    lock = _Lock(folder.parent / f"{folder.name}.push", "campaign")
    try:
        lock.acquire()
    except InputError:
        raise InputError(
            f"{folder}: another run is pushing this campaign (`annotate push`, `next` or `adjudicate`; "
            f"lock {lock.path}); wait for it to end, then run again"
        ) from None
    try:
        yield
    finally:
        lock.release()
