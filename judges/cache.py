"""A persistent verdict cache: one SQLite file in WAL mode, one row per answered query.

Each row is keyed by :func:`wordplay_audit.judges.base.cache_key` (sha256 of the canonical JSON
of model, prompt version, inputs and parameters) and holds the judge id, the verdict, the raw
reply, token counts and latency. Every result is committed as it arrives (autocommit), so a
process killed at any moment keeps every answer it had received; WAL lets a second process read
while one writes. Nothing secret is stored: the key and row never contain an API key.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterable
from pathlib import Path

from wordplay_audit.errors import InputError
from wordplay_audit.judges.base import VERDICTS, Verdict

FILE_NAME = "judges.sqlite"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS verdicts (
    key TEXT PRIMARY KEY,
    judge_id TEXT NOT NULL,
    label TEXT NOT NULL,
    raw TEXT NOT NULL,
    tokens_in INTEGER NOT NULL,
    tokens_out INTEGER NOT NULL,
    latency REAL NOT NULL,
    score REAL,
    created REAL NOT NULL
)
"""


class VerdictCache:
    """``VerdictCache(folder)`` opens (creating) ``folder/judges.sqlite``; use as a context manager."""

    def __init__(self, folder: str | Path) -> None:
        folder = Path(folder)
        if folder.exists() and not folder.is_dir():
            raise InputError(f"{folder}: is a file, expected a cache folder for --cache")
        folder.mkdir(parents=True, exist_ok=True)
        self.path = folder / FILE_NAME
        try:
            self._db = sqlite3.connect(self.path, isolation_level=None, timeout=30)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute(_SCHEMA)
            columns = [row[1] for row in self._db.execute("PRAGMA table_info(verdicts)")]
        except sqlite3.DatabaseError as exc:
            raise self._unusable(exc) from None
        if columns != COLUMNS:
            raise InputError(
                f"{self.path}: not a usable judge cache (table verdicts has columns "
                f"{', '.join(columns)}; expected {', '.join(COLUMNS)})"
            )

    def _unusable(self, exc: Exception) -> InputError:
        """Damage found while reading or writing (a page overwritten, a row of the wrong type)."""
        return InputError(f"{self.path}: not a usable judge cache ({exc}); move it away to start afresh")

    def __enter__(self) -> VerdictCache:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._db.close()

    def get_many(self, keys: Iterable[str]) -> dict[str, Verdict]:
        """The cached verdicts among ``keys`` (absent keys are left out)."""
        found: dict[str, Verdict] = {}
        keys = list(dict.fromkeys(keys))
        try:
            for start in range(0, len(keys), 900):
                chunk = keys[start : start + 900]
                marks = ",".join("?" * len(chunk))
                rows = self._db.execute(
                    "SELECT key, label, raw, tokens_in, tokens_out, latency, score "
                    f"FROM verdicts WHERE key IN ({marks})",
                    chunk,
                ).fetchall()
                for key, label, raw, t_in, t_out, latency, score in rows:
                    found[key] = _verdict(key, label, raw, t_in, t_out, latency, score)
        except (sqlite3.DatabaseError, ValueError) as exc:
            raise self._unusable(exc) from None
        return found

    def put(self, key: str, judge_id: str, verdict: Verdict) -> None:
        """Store one verdict and commit it now (a later answer for the same key replaces it)."""
        try:
            self._insert(key, judge_id, verdict)
        except sqlite3.DatabaseError as exc:
            raise self._unusable(exc) from None

    def _insert(self, key: str, judge_id: str, verdict: Verdict) -> None:
        self._db.execute(
            "INSERT OR REPLACE INTO verdicts VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                key,
                judge_id,
                verdict.label,
                verdict.raw,
                int(verdict.tokens_in),
                int(verdict.tokens_out),
                float(verdict.latency),
                verdict.score,
                time.time(),
            ),
        )

    def __len__(self) -> int:
        try:
            return int(self._db.execute("SELECT COUNT(*) FROM verdicts").fetchone()[0])
        except sqlite3.DatabaseError as exc:
            raise self._unusable(exc) from None


COLUMNS = ["key", "judge_id", "label", "raw", "tokens_in", "tokens_out", "latency", "score", "created"]


def _verdict(key, label, raw, t_in, t_out, latency, score) -> Verdict:
    """A row as a verdict; ``ValueError`` naming the key for a value of the wrong type (a hand edit)."""
    ok = (
        label in VERDICTS
        and isinstance(raw, str)
        and all(isinstance(v, int) for v in (t_in, t_out))
        and isinstance(latency, int | float)
        and (score is None or isinstance(score, int | float))
    )
    if not ok:
        raise ValueError(
            f"row {key[:16]}…: expected label {'/'.join(VERDICTS)}, raw text, whole token counts"
        )
    return Verdict(label, raw, t_in, t_out, float(latency), score)
