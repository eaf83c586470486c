"""The models' answer files: one record per game with the model's groups (``categories``), a
stored clustering ``score`` and the human judge's ``categorical_score`` decisions.

Records may hold native JSON or strings holding Python literals (an earlier copy of
``gpt_strawberry.json``); both are read. Nothing is last-one-wins: a category name or a
judgement written twice is an error (:func:`~wordplay_audit.corpora.connections.gold.game_records`
refuses a key written twice anywhere in a record). A stored score that is not a whole number 0–4 (``NaN``,
``Infinity``, ``1e400``, a 5,001-digit integer, ``"x"``) is counted and left empty; the game is
still scored from its groups.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from wordplay_audit.corpora.connections.data import ConnectionsData, allwords_key, group_words
from wordplay_audit.corpora.connections.gold import game_records
from wordplay_audit.corpora.connections.jsonfile import load_json
from wordplay_audit.corpora.literal import maybe_literal, nfc
from wordplay_audit.corpora.values import check_number
from wordplay_audit.errors import InputError

_FIELDS = ("categories", "malformed", "score", "categorical_score")


def stored_score(data: ConnectionsData, file: str, where: str, value: Any, key: str) -> int | None:
    """A stored score as a whole number 0–4; anything else is counted and read as missing."""
    if value is None:
        return None
    try:
        return int(check_number(value, where, integer=True, low=0, high=4))
    except InputError as exc:
        data.note(file, "stored score is not a whole number 0-4 (ignored)", str(exc), key)
        return None


def _answer_rows(
    data: ConnectionsData, model: str, file: str, index: int, key: str, categories: Any
) -> tuple[str, list[dict]]:
    if not isinstance(categories, dict):
        data.note(file, "answer categories is not a dict", f"record {index}: {str(categories)[:30]!r}", key)
        return "categories is not a dict", []
    rows = []
    for group_index, (name, value) in enumerate(categories.items()):
        words, _ = group_words(value)
        if words is None:
            data.note(file, "model group is not a word list", f"record {index}: {name}", key)
            continue
        rows.append(
            {
                "model": model,
                "game_key": key,
                "group_index": group_index,
                "model_name": nfc(name),
                "words": tuple(words),
            }
        )
    return "ok", rows


def _judgement_rows(
    data: ConnectionsData, model: str, file: str, index: int, key: str, judged: Any
) -> list[dict]:
    """One row per judged (model name, gold name) pair, in file order."""
    if judged is None:
        return []
    if not isinstance(judged, dict):
        data.note(file, "categorical_score is not a dict", f"record {index}", key)
        return []
    rows = []
    for pair, decision in judged.items():
        pair = nfc(pair)
        if "_#_" not in pair:
            data.note(file, "judgement key without _#_", f"record {index}: {pair}", key)
            continue
        decision_text = nfc(str(decision).strip())
        if decision_text not in ("Yes", "No"):
            data.note(file, "judgement neither Yes nor No", f"record {index}: {decision!r}", key)
            continue
        model_name, _, gold_name = pair.partition("_#_")
        rows.append(
            {
                "model": model,
                "game_key": key,
                "model_name": model_name,
                "gold_name": gold_name,
                "decision": decision_text,
            }
        )
    return rows


def _is_stringly(raw: dict) -> bool:
    """A field written as a string holding a Python literal (``"[...]"``, ``"{...}"``, ``"True"``);
    a string that is no literal (a ``malformed`` of ``"maybe"``) is not one."""
    return any(isinstance(v, str) and v.strip()[:1] in ("[", "{") for v in raw.values()) or (
        isinstance(raw["malformed"], str) and not isinstance(maybe_literal(raw["malformed"]), str)
    )


def _read_record(
    data: ConnectionsData, path: Path, index: int, record: dict, key: str, excluded: bool
) -> tuple[dict, list, list]:
    model, file = path.stem, path.name
    raw = {k: record.get(k) for k in _FIELDS}
    categories = maybe_literal(raw["categories"])
    malformed = maybe_literal(raw["malformed"])
    stored = maybe_literal(raw["score"])
    judged = maybe_literal(raw["categorical_score"])
    if malformed is True:
        data.note(file, "answer flagged malformed", f"record {index}", key)
    elif malformed not in (False, None):
        data.note(
            file, "malformed flag is not true/false (read as false)", f"record {index}: {malformed!r}", key
        )
    if record.get("score") is None and not excluded:
        data.note(file, "record without stored score", f"record {index}", key)
    status, answers = _answer_rows(data, model, file, index, key, categories)
    judgements = _judgement_rows(data, model, file, index, key, judged)
    meta = {
        "model": model,
        "game_key": key,
        "game_index": None,
        "record_index": index,
        "malformed": bool(malformed is True),
        "stored_score": stored_score(data, file, f"record {index}: score", stored, key),
        "status": status,
    }
    return meta, answers, judgements


def read_model(path: Path, data: ConnectionsData, index_of: dict[str, int]) -> None:
    """Append one model file's records to ``data.answer_meta``, ``answers``, ``judgements``."""
    records = game_records(path, load_json(path), ("allwords", "categories"))
    data.model_files.append(path.stem)
    meta_rows, answer_rows, judgement_rows = [], [], []
    seen: set[str] = set()
    stringly = 0
    excluded = dict(zip(data.games["game_key"], data.games["excluded"], strict=True))
    for index, record in enumerate(records):
        key = allwords_key(record["allwords"])
        if key not in index_of:
            data.note(path.name, "game not in gold", f"record {index}", key)
            continue
        if key in seen:
            data.note(path.name, "duplicate game", f"record {index}", key)
            continue
        seen.add(key)
        stringly += _is_stringly({k: record.get(k) for k in _FIELDS})
        meta, answers, judgements = _read_record(data, path, index, record, key, excluded[key])
        meta["game_index"] = index_of[key]
        meta_rows.append(meta)
        answer_rows += answers
        judgement_rows += judgements
    if stringly:
        data.note(path.name, "fields stored as strings holding Python literals", f"{stringly} records")
    for key in set(index_of) - seen:
        data.note(path.name, "game without an answer", "", key)
    data.answer_meta = pd.concat([data.answer_meta, pd.DataFrame(meta_rows)], ignore_index=True)
    data.answers = pd.concat([data.answers, pd.DataFrame(answer_rows)], ignore_index=True)
    data.judgements = pd.concat([data.judgements, pd.DataFrame(judgement_rows)], ignore_index=True)
