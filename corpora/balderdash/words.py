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


def _band(record: dict, columns: pd.Index, path: Path, line: int) -> str:
    if "frequency_band" in columns:
        return str(record["frequency_band"]).strip()
    if "zipf" not in columns or not str(record["zipf"]).strip():
        return ""
    try:
        zipf = check_number(record["zipf"], f"{path} line {line}: column 'zipf'")
    except InputError:
        raise InputError(f"{path} line {line}: column 'zipf' must be a number") from None
    return _frequency_band(float(zipf))


def _read_csv(path: Path) -> pd.DataFrame:
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
    return frame


def read_words_file(path: str | Path) -> pd.DataFrame:
    """Read one of the framework's words CSV files (UTF-8, a byte-order mark allowed).

    Returns one row per word: ``word`` (stripped, lower case, as the framework plays it),
    ``senses`` (list of str; ``def`` is a Python-literal list read with :func:`ast.literal_eval`,
    or a single definition), ``pos`` and ``frequency_band`` (from a ``frequency_band`` column, or
    binned from a ``zipf`` column: rare < 2 ≤ uncommon < 3.5 ≤ common; ``""`` when unknown).
    """
    path = Path(path)
    frame = _read_csv(path)
    rows = []
    for pos_, record in enumerate(frame.to_dict(orient="records")):
        line = pos_ + 2
        rows.append(
            {
                "word": str(record["words"]).strip().lower(),
                "senses": _senses(str(record["def"]), path, line),
                "pos": str(record.get("POS", "")),
                "frequency_band": _band(record, frame.columns, path, line),
            }
        )
    out = pd.DataFrame(rows, columns=["word", "senses", "pos", "frequency_band"])
    return out.drop_duplicates("word", keep="first").reset_index(drop=True)


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
