"""Label Studio exports → annotation records (JSON snapshot, JSON_MIN, CSV).

An *annotation record* is one submitted or skipped annotation of one task:
``{"uid", "annotation_id", "annotator", "cancelled", "result", "updated", "where"}``, where
``result`` is Label Studio's result list and ``where`` names the place for messages.

* Full JSON (snapshot export, ``[{"id", "data", "annotations", "drafts", "predictions"}]``):
  drafts and predictions are counted and ignored; skipped annotations have ``was_cancelled``.
* JSON_MIN and CSV (one flat row per annotation, control names as columns, data fields beside
  them): they hold no skipped annotations and no drafts, so a skipped task reads as missing
  there; a task without annotations is a row with an empty ``annotation_id``. Refused, each at
  its place: a row with answers but no ``annotation_id``, annotations none of which names one of
  the kind's questions (a renamed control column), a CSV header naming a column twice, a CSV row
  with more or fewer fields than the header (a truncated export).
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, Literal

from wordplay_audit.annotate.configs import interface
from wordplay_audit.errors import InputError, ParameterError, at_line, expect_file

ExportFormat = Literal["auto", "json", "json-min", "csv"]
EXPORT_FORMATS: tuple[str, ...] = ("auto", "json", "json-min", "csv")


def _annotator(value: Any) -> str | None:
    if isinstance(value, Mapping):
        return str(value.get("email") or value.get("id") or "") or None
    return None if value in (None, "") else str(value)


def records_from_json(tasks: Any, source: str) -> tuple[list[dict], dict[str, int]]:
    """Records from a full JSON export (a list of tasks); counts drafts and predictions."""
    if not isinstance(tasks, list):
        raise InputError(f"{source}: expected a JSON list of tasks, got {type(tasks).__name__}")
    records: list[dict] = []
    counts = {"tasks": 0, "drafts_ignored": 0, "predictions_ignored": 0}
    for index, task in enumerate(tasks):
        where = f"{source}: [{index}]"
        if not isinstance(task, Mapping) or not isinstance(task.get("data"), Mapping):
            raise InputError(f"{where}: expected a task object with 'data'")
        uid = task["data"].get("uid")
        if not uid:
            raise InputError(f"{where}.data: no 'uid' (a task this toolkit did not push)")
        for key in ("annotations", "drafts", "predictions"):
            if task.get(key) is not None and not isinstance(task[key], list):
                raise InputError(f"{where}.{key}: expected a list, got {type(task[key]).__name__}")
        counts["tasks"] += 1
        counts["drafts_ignored"] += len(task.get("drafts") or [])
        counts["predictions_ignored"] += len(task.get("predictions") or [])
        for a_index, ann in enumerate(task.get("annotations") or []):
            if not isinstance(ann, Mapping):
                raise InputError(f"{where}.annotations[{a_index}]: expected an object")
            result = ann.get("result")
            if result is not None and not isinstance(result, list):
                raise InputError(
                    f"{where}.annotations[{a_index}].result (task uid {uid!r}): expected a list of "
                    f"answers, got {type(result).__name__} {str(result)[:40]!r}"
                )
            records.append(
                {
                    "uid": str(uid),
                    "annotation_id": ann.get("id"),
                    "annotator": _annotator(ann.get("completed_by")),
                    "cancelled": bool(ann.get("was_cancelled")),
                    "result": result or [],
                    "updated": str(ann.get("updated_at") or ann.get("created_at") or ""),
                    "where": f"{where}.annotations[{a_index}]",
                }
            )
    return records, counts


def _min_value(name: str, raw: Any, where: str) -> dict:
    """One flat JSON_MIN/CSV answer as a result entry."""
    if isinstance(raw, str) and raw.startswith("{"):
        try:
            raw = json.loads(raw)
        except json.JSONDecodeError:
            raise InputError(f"{where}: column {name!r}: not JSON ({raw[:40]!r})") from None
    if isinstance(raw, Mapping):
        if "choices" in raw:  # a bare string is one choice (list() would split its characters)
            given = raw["choices"]
            chosen = list(given) if isinstance(given, list) else [given]
            return {"from_name": name, "type": "choices", "value": {"choices": chosen}}
        raise InputError(f"{where}: column {name!r}: expected choices, got keys {', '.join(map(str, raw))}")
    if name == "comment":
        return {"from_name": name, "type": "textarea", "value": {"text": [str(raw)]}}
    return {"from_name": name, "type": "choices", "value": {"choices": [str(raw)]}}


def records_from_rows(
    rows: Iterable[tuple[str, Mapping[str, Any]]], kind: str, source: str, header: list[str] | None = None
) -> tuple[list[dict], dict[str, int]]:
    """Records from JSON_MIN objects or CSV rows (``(where, row)`` pairs; ``header``: the CSV's).

    A row with answers but no ``annotation_id`` is an error (it would read as missing), and so
    is an export whose annotations never name one of the kind's questions (a renamed column)."""
    ui = interface(kind)
    controls = [q.name for q in ui.questions] + list(ui.extras) + ["flags", "comment"]
    records: list[dict] = []
    counts = {"tasks": 0, "drafts_ignored": 0, "predictions_ignored": 0}
    seen: set[str] = set()
    keys: set[str] = set(header or ())
    for where, row in rows:
        uid = row.get("uid")
        if uid in (None, ""):
            raise InputError(f"{where}: no 'uid' (a task this toolkit did not push)")
        if str(uid) not in seen:
            seen.add(str(uid))
            counts["tasks"] += 1
        answered = [n for n in controls if row.get(n) not in (None, "")]
        if row.get("annotation_id") in (None, ""):
            if answered:
                raise InputError(
                    f"{where}: answers ({', '.join(answered)}) but no annotation_id; expected Label "
                    "Studio's JSON_MIN or CSV export (every annotation has its id)"
                )
            continue
        keys.update(row)
        result = [_min_value(n, row[n], where) for n in answered]
        records.append(
            {
                "uid": str(uid),
                "annotation_id": row.get("annotation_id"),
                "annotator": _annotator(row.get("annotator")),
                "cancelled": False,
                "result": result,
                "updated": str(row.get("updated_at") or ""),
                "where": where,
            }
        )
    absent = [q.name for q in ui.questions if q.name not in keys]
    if records and absent:
        place = f"{source} line 1: no column" if header is not None else f"{source}: no annotation has a key"
        raise InputError(
            f"{place} {absent[0]!r} (the {kind} config's question; its controls are "
            f"{', '.join(controls)}): expected Label Studio's export of this campaign's config"
        )
    return records, counts


def csv_rows(path: Path, text: str) -> tuple[list[str], list[tuple[str, dict[str, str]]]]:
    """A CSV export's header and ``(where, row)`` pairs; a header naming a column twice, or a
    row with more or fewer fields than the header (a truncated export), is an error at its line."""
    reader = csv.reader(io.StringIO(text))
    rows: list[tuple[str, dict[str, str]]] = []
    try:
        header = next(reader, [])
        repeated = sorted({c for c in header if header.count(c) > 1})
        if repeated:
            raise InputError(f"{path} line 1: column {repeated[0]!r} appears twice in the header")
        if "uid" not in header:
            raise InputError(
                f"{path} line 1: expected a header with 'uid', got {', '.join(header) or 'nothing'}"
            )
        start = reader.line_num + 1
        for row in reader:
            if row and len(row) != len(header):
                hint = " (truncated export?)" if len(row) < len(header) else ""
                raise InputError(
                    f"{path} line {start}: expected {len(header)} fields (the header's), got {len(row)}{hint}"
                )
            if row:
                rows.append((f"{path} line {start}", dict(zip(header, row, strict=True))))
            start = reader.line_num + 1
    except csv.Error as exc:
        raise InputError(f"{path} line {reader.line_num}: not a readable CSV row ({exc})") from None
    return header, rows


def _load_json(text: str, source: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(
            f"{at_line(source, exc.lineno)}not valid JSON ({exc.msg}; truncated export?)"
        ) from None


def detect_format(path: Path, text: str) -> str:
    if path.suffix.lower() == ".csv":
        return "csv"
    data = _load_json(text, str(path))
    if not isinstance(data, list):
        raise InputError(
            f"{path}: expected a JSON list of tasks (a JSON or JSON_MIN export), got {type(data).__name__}"
        )
    if data and isinstance(data[0], Mapping) and "annotations" in data[0]:
        return "json"
    return "json-min"


def read_export_file(
    path: str | Path, kind: str, fmt: str = "auto"
) -> tuple[list[dict], dict[str, int], str]:
    """Records from an export file; returns (records, counts, the format read)."""
    path = expect_file(path, "a Label Studio export file (JSON, JSON_MIN or CSV)")
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError:
        raise InputError(
            f"{path}: not UTF-8 text (expected a Label Studio JSON, JSON_MIN or CSV export)"
        ) from None
    if fmt == "auto":
        fmt = detect_format(path, text)
    if fmt == "json":
        records, counts = records_from_json(_load_json(text, str(path)), str(path))
    elif fmt == "json-min":
        data = _load_json(text, str(path))
        if not isinstance(data, list) or not all(isinstance(r, Mapping) for r in data):
            raise InputError(f"{path}: expected a JSON list of flat objects (JSON_MIN)")
        rows = ((f"{path}: [{i}]", r) for i, r in enumerate(data))
        records, counts = records_from_rows(rows, kind, str(path))
    elif fmt == "csv":
        header, csv_data = csv_rows(path, text)
        records, counts = records_from_rows(csv_data, kind, str(path), header)
    else:
        raise ParameterError(f"format: expected one of {', '.join(EXPORT_FORMATS)}; got {fmt!r}")
    return records, counts, fmt
