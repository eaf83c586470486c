"""The framework's words files (decks): senses and word-frequency bands."""

from __future__ import annotations

import ast
import csv
import io
from collections.abc import Iterable
from pathlib import Path

import pandas as pd

from wordplay_audit.corpora.values import check_number
from wordplay_audit.errors import InputError


def _frequency_band(zipf: float) -> str:
    """Band of a Zipf frequency (log10 occurrences per billion words): rare < 2 ≤ uncommon < 3.5 ≤ common."""
    if zipf < 2.0:
        return "rare"
    if zipf < 3.5:
        return "uncommon"
    return "common"


def _senses(raw: str, path: Path, line: int) -> list[str]:
    """The senses in one ``def`` cell: a Python-literal list of strings, or one definition."""
    raw = raw.strip()
    if not raw.startswith("["):
        return [raw] if raw else []
    try:
        senses = ast.literal_eval(raw)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        raise InputError(f"{path} line {line}: column 'def' is not a Python list literal") from None
    if not isinstance(senses, list) or not all(isinstance(s, str) for s in senses):
        raise InputError(f"{path} line {line}: column 'def' must be a list of strings")
    return [s.strip() for s in senses]


BANDS = ("rare", "uncommon", "common")
"""The values a ``frequency_band`` column may hold (or nothing: unknown)."""


def _band(record: dict, columns: pd.Index, path: Path, line: int) -> str:
    if "frequency_band" in columns:
        band = str(record["frequency_band"]).strip()
        if band.lower() not in (*BANDS, ""):
            raise InputError(
                f"{path} line {line}: column 'frequency_band' must be one of {', '.join(BANDS)} "
                f"or empty, got {band[:40]!r}"
            )
        return band.lower()
    if "zipf" not in columns or not str(record["zipf"]).strip():
        return ""
    try:
        zipf = check_number(record["zipf"], f"{path} line {line}: column 'zipf'")
    except InputError:
        raise InputError(f"{path} line {line}: column 'zipf' must be a number") from None
    return _frequency_band(float(zipf))


def _read_csv(path: Path) -> tuple[pd.DataFrame, list[int]]:
    if not path.is_file():
        raise InputError(f"{path}: no such words file")
    raw = path.read_bytes()
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise InputError(f"{path} line {line}: not UTF-8 text (byte 0x{raw[exc.start]:02x})") from None
    header = next(csv.reader(io.StringIO(text)), [])
    twice = [c for k, c in enumerate(header) if c in header[:k]]
    if twice:
        raise InputError(f"{path} line 1: column {twice[0]!r} appears twice in the header")
    try:
        frame = pd.read_csv(io.StringIO(text), dtype=str, keep_default_na=False)
    except (ValueError, pd.errors.ParserError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise InputError(f"{path}: not a readable CSV ({first})") from None
    for column in ("words", "def"):
        if column not in frame.columns:
            raise InputError(f"{path}: words file lacks column {column!r} (expected words, def, POS)")
    return frame, _record_lines(text, len(frame))


def _record_lines(text: str, n: int) -> list[int]:
    """The file line each data record starts on (a quoted cell may span lines; blank lines,
    which pandas skips, are skipped here too); ``row + 2`` if the two readers disagree."""
    reader = csv.reader(io.StringIO(text))
    starts, end = [], 0
    try:
        for row in reader:
            if row:
                starts.append(end + 1)
            end = reader.line_num
    except csv.Error:
        starts = []
    starts = starts[1:]  # the header
    return starts if len(starts) == n else list(range(2, n + 2))


def read_words_file(path: str | Path) -> pd.DataFrame:
    """Read one of the framework's words CSV files (UTF-8, a byte-order mark allowed).

    Returns one row per word: ``word`` (stripped, lower case, as the framework plays it),
    ``senses`` (list of str; ``def`` is a Python-literal list read with :func:`ast.literal_eval`,
    or a single definition), ``pos`` and ``frequency_band`` (from a ``frequency_band`` column —
    rare, uncommon, common or empty —, or binned from a ``zipf`` column: rare < 2 ≤ uncommon <
    3.5 ≤ common; ``""`` when unknown). An empty word, or a word on two rows, is an error naming
    the line (of both rows).
    """
    path = Path(path)
    frame, lines = _read_csv(path)
    rows, seen = [], {}
    for line, record in zip(lines, frame.to_dict(orient="records"), strict=True):
        word = str(record["words"]).strip().lower()
        if not word:
            raise InputError(f"{path} line {line}: column 'words' is empty")
        if word in seen:  # which row would win is a guess: the file must say it once
            raise InputError(
                f"{path} line {line}: word {word[:40]!r} appears twice (first on line {seen[word]})"
            )
        seen[word] = line
        rows.append(
            {
                "word": word,
                "senses": _senses(str(record["def"]), path, line),
                "pos": str(record.get("POS", "")),
                "frequency_band": _band(record, frame.columns, path, line),
            }
        )
    return pd.DataFrame(rows, columns=["word", "senses", "pos", "frequency_band"])


# --------------------------------------------------------------------------- reader


def deck_of(words_file: str) -> str:
    return Path(words_file.replace("\\", "/")).stem or words_file


def collect_words(
    folder: Path, words: Iterable[str | Path] | None, decks: set[str]
) -> dict[str, pd.DataFrame]:
    paths: list[Path] = []
    if words is not None:
        for entry in words:
            entry = Path(entry)
            if entry.is_dir():
                inside = sorted(entry.glob("*.csv"))
                if not inside:
                    raise InputError(f"{entry}: folder holds no .csv words file")
                paths.extend(inside)
            elif entry.is_file():
                if entry.stem not in decks:  # given by name but matched to no game: never silent
                    raise InputError(
                        f"{entry}: words file matches no deck of the export (decks: "
                        f"{', '.join(sorted(decks))}; a file is matched by the stem of a game's words_file)"
                    )
                paths.append(entry)
            else:
                raise InputError(f"{entry}: no such words file or folder")
    paths.extend(p for p in sorted(folder.glob("*.csv")) if p not in paths)
    found: dict[str, pd.DataFrame] = {}
    for path in paths:
        if path.stem in decks and path.stem not in found:
            found[path.stem] = read_words_file(path)
    return found
