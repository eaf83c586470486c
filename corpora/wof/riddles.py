"""Riddle lists: JSON lines with ``category`` and ``sentence`` (LLMike's ``WoF.jsonl`` layout)."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from wordplay_audit.corpora.values import surrogate_problem
from wordplay_audit.errors import InputError, at_line, expect_file


def read_riddles(path: str | Path) -> pd.DataFrame:
    """Read a riddles file (JSON lines with ``category`` and ``sentence``; blank lines allowed)."""
    path = expect_file(path, "a riddles file (JSON lines)")
    rows = []
    with path.open(encoding="utf-8-sig") as handle:
        for number, text in enumerate(handle, start=1):
            if not text.strip():
                continue
            try:
                record = json.loads(text)
            except json.JSONDecodeError as exc:
                raise InputError(
                    f"{at_line(path, number)}expected a JSON object with category and sentence ({exc.msg})"
                ) from None
            if (problem := surrogate_problem(record, text)) is not None:
                raise InputError(f"{at_line(path, number)}{problem}")
            if not isinstance(record, dict) or not all(
                isinstance(record.get(k), str) for k in ("category", "sentence")
            ):
                raise InputError(
                    f"{at_line(path, number)}expected string keys 'category' and 'sentence', got {text.strip()[:60]!r}"
                )
            sentence = record["sentence"].strip().upper()
            if not sentence or not all(c == " " or "A" <= c <= "Z" for c in sentence):
                raise InputError(
                    f"{at_line(path, number)}sentence {record['sentence']!r}: expected letters A-Z and spaces"
                )
            rows.append({"category": record["category"], "sentence": sentence, "line": number})
    if not rows:
        raise InputError(f"{path}: holds no riddles")
    return pd.DataFrame(rows)
