"""The framework's words files (decks): senses and word-frequency bands."""

from __future__ import annotations

import ast
from collections.abc import Iterable
from pathlib import Path

import pandas as pd

from wordplay_audit.errors import InputError


def _frequency_band(zipf: float) -> str:
    """Band of a Zipf frequency (log10 occurrences per billion words): rare < 2 ≤ uncommon < 3.5 ≤ common."""
    if zipf < 2.0:
        return "rare"
    if zipf < 3.5:
        return "uncommon"
    return "common"


def read_words_file(path: str | Path) -> pd.DataFrame:
    """Read one of the framework's words CSV files.

    Returns one row per word: ``word`` (stripped, lower case, as the framework plays it),
    ``senses`` (list of str; ``def`` is a Python-literal list read with :func:`ast.literal_eval`,
    or a single definition), ``pos`` and ``frequency_band`` (from a ``frequency_band`` column, or
    binned from a ``zipf`` column: rare < 2 ≤ uncommon < 3.5 ≤ common; ``""`` when unknown).
    """
    path = Path(path)
    if not path.is_file():
        raise InputError(f"{path}: no such words file")
    try:
        frame = pd.read_csv(path, dtype=str, keep_default_na=False)
    except (ValueError, pd.errors.ParserError, UnicodeDecodeError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise InputError(f"{path}: not a readable CSV ({first})") from None
    for column in ("words", "def"):
        if column not in frame.columns:
            raise InputError(f"{path}: words file lacks column {column!r} (expected words, def, POS)")
    rows = []
    for pos_, record in enumerate(frame.to_dict(orient="records")):
        line = pos_ + 2
        raw = str(record["def"]).strip()
        if raw.startswith("["):
            try:
                senses = ast.literal_eval(raw)
            except (ValueError, SyntaxError):
                raise InputError(f"{path} line {line}: column 'def' is not a Python list literal") from None
            if not isinstance(senses, list) or not all(isinstance(s, str) for s in senses):
                raise InputError(f"{path} line {line}: column 'def' must be a list of strings")
            senses = [s.strip() for s in senses]
        else:
            senses = [raw] if raw else []
        band = ""
        if "frequency_band" in frame.columns:
            band = str(record["frequency_band"]).strip()
        elif "zipf" in frame.columns and str(record["zipf"]).strip():
            try:
                band = _frequency_band(float(record["zipf"]))
            except ValueError:
                raise InputError(f"{path} line {line}: column 'zipf' must be a number") from None
        rows.append(
            {
                "word": str(record["words"]).strip().lower(),
                "senses": senses,
                "pos": str(record.get("POS", "")),
                "frequency_band": band,
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
                paths.extend(sorted(entry.glob("*.csv")))
            elif entry.is_file():
                paths.append(entry)
            else:
                raise InputError(f"{entry}: no such words file or folder")
    paths.extend(p for p in sorted(folder.glob("*.csv")) if p not in paths)
    found: dict[str, pd.DataFrame] = {}
    for path in paths:
        if path.stem in decks and path.stem not in found:
            found[path.stem] = read_words_file(path)
    return found
