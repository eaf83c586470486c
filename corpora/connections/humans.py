"""The human players: stored scores (``novice.json``, ``expert.json``) and raw answers
(``novice_raw.csv``, ``expert_raw.csv``: each player's four groups as a Python-literal list).

Raw answers are matched to their game by their words (``game_number`` does not index the game
files); a word that is not in the game becomes the closest unused game word when the similarity
is at least 0.8 (counted), otherwise it is kept (and cannot match). A row repeating an earlier
row of the same player and answer, or a second answer of one player to one game, is counted and
not scored again. Rows are named by their line in the file (header = line 1).
"""

from __future__ import annotations

import csv
import difflib
import io
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pandas as pd

from wordplay_audit.corpora.connections.answers import stored_score
from wordplay_audit.corpora.connections.data import (
    HUMAN_COLUMNS,
    HUMAN_LEVELS,
    HUMAN_STORED_COLUMNS,
    ConnectionsData,
    allwords_key,
)
from wordplay_audit.corpora.connections.gold import game_records
from wordplay_audit.corpora.connections.jsonfile import decode_utf8, load_json
from wordplay_audit.corpora.literal import nfc, parse_groups
from wordplay_audit.errors import InputError, at_line

MIN_GAME_HITS = 8
"""An answer is matched to the game whose words it uses most, if at least this many."""
TYPO_CUTOFF = 0.8
"""Similarity (difflib ratio) from which a word outside the game is read as a typo of a game word."""


def csv_records(path: Path, required: tuple[str, ...]) -> Iterator[tuple[int, dict[str, str]]]:
    """(line where the record starts, record) of a UTF-8 CSV file (a BOM accepted).

    A bad byte, a header without a ``required`` column or with a column twice, a quoted field
    still open at the end of the file (a cut-off file; named by the line it opens on), or a CSV
    error (a field over the csv module's limit of 131,072 characters, which no answer reaches)
    is an :class:`InputError` naming the line.
    """
    text = decode_utf8(path, path.read_bytes())
    reader = csv.DictReader(io.StringIO(text, newline=""))
    try:
        names = reader.fieldnames or []
    except csv.Error as exc:
        raise InputError(f"{at_line(path, 1)}not readable as CSV ({exc})") from None
    header = [nfc(name).strip() for name in names]
    for name, count in Counter(header).items():
        if count > 1:
            raise InputError(f"{at_line(path, 1)}column {name!r} appears {count} times")
    missing = [name for name in required if name not in header]
    if missing:
        raise InputError(f"{at_line(path, 1)}missing column {missing[0]!r}")
    reader.fieldnames = header
    opened = _unclosed_quote_line(text)
    if opened is not None:  # the csv module would end the field at the end of the file, silently
        raise InputError(
            f"{at_line(path, opened)}a quoted field opened on this line is not closed by the end of "
            "the file (a cut-off file?)"
        )
    last = reader.line_num
    while True:
        try:
            record = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:  # named by the line the record starts on
            raise InputError(f"{at_line(path, last + 1)}not readable as CSV ({exc})") from None
        inner = sum(v.count("\n") for v in record.values() if isinstance(v, str))
        yield reader.line_num - inner, record
        last = reader.line_num


def _unclosed_quote_line(text: str) -> int | None:
    """The line on which a quoted field opens that the end of ``text`` leaves open, or None. The
    csv module's rules: a quote opens a field only at its start, ``""`` inside is a quote.

    >>> _unclosed_quote_line('a,b\\n1,"x""y"\\n2,"cut'), _unclosed_quote_line('a\\n"ok\\nstill"\\n')
    (3, None)
    """
    line, opened, state = 1, 0, "start"
    for char in text:
        if state == "quoted":
            state = "quote" if char == '"' else "quoted"
        elif state == "quote" and char == '"':
            state = "quoted"  # "" inside a quoted field
        elif char in ",\r\n":
            state = "start"
        elif state == "start" and char == '"':
            state, opened = "quoted", line
        else:
            state = "field"
        line += char == "\n"
    return opened if state == "quoted" else None


def _match_game(tokens: list[str], vocab: dict[str, set[str]]) -> tuple[str | None, int]:
    """The game whose words the tokens hit most often (exact hits); (None, 0) if no hit."""
    best, best_hits = None, 0
    token_set = set(tokens)
    for key, words in vocab.items():
        hits = len(token_set & words)
        if hits > best_hits:
            best, best_hits = key, hits
    return best, best_hits


def _split_joined(group: list[str], vocab: set[str]) -> list[str]:
    """Upper-cased words of a group; a quoted string holding several comma-separated words
    (``'COUGH, CORN, MAPLE'``) is split when it is not itself a game word."""
    words: list[str] = []
    for word in group:
        word = nfc(word.strip().upper())
        if word not in vocab and "," in word:
            words.extend(p.strip() for p in word.split(",") if p.strip())
        else:
            words.append(word)
    return words


def _correct(
    word: str,
    key: str | None,
    vocab: dict[str, set[str]],
    tokens: list[str],
    data: ConnectionsData,
    file: str,
    line: int,
) -> str:
    """``word``, or the game word it is a typo of (counted); a word of no game is counted."""
    if key is None or word in vocab[key]:
        return word
    unused = sorted(vocab[key] - set(tokens))
    close = difflib.get_close_matches(word, unused, n=1, cutoff=TYPO_CUTOFF)
    if close:
        data.note(file, "typo corrected to a game word", f"line {line}: {word}->{close[0]}", key)
        return close[0]
    data.note(file, "word not in the game", f"line {line}: {word}", key)
    return word


def _answer_groups(
    data: ConnectionsData, file: str, line: int, text: str, vocab: dict[str, set[str]]
) -> tuple[str | None, list[tuple[str, ...]]]:
    """The matched game key (None when none) and the answer's groups, words corrected."""
    groups, repaired = parse_groups(text)
    if repaired:
        data.note(file, "broken list literal repaired", f"line {line}")
    tokens = [nfc(w.strip().upper()) for g in groups for w in g]
    if any(w != w.strip() for g in groups for w in g) or "' " in text:
        data.note(file, "words with stray spaces", f"line {line}")
    key, hits = _match_game(tokens, vocab)
    if key is None or hits < MIN_GAME_HITS:
        data.note(file, "answer matches no game", f"line {line}")
        key = None
    if len(groups) != 4 or any(len(g) != 4 for g in groups):
        data.note(file, "groups not of 4 words", f"line {line}", key)
    corrected = [
        tuple(
            _correct(w, key, vocab, tokens, data, file, line)
            for w in _split_joined(group, vocab.get(key, set()))
        )
        for group in groups
    ]
    return key, corrected


def _raw_answers(path: Path, level: str, vocab: dict[str, set[str]], data: ConnectionsData) -> list[dict]:
    rows: list[dict] = []
    seen_rows: dict[tuple[str, str], int] = {}
    seen_games: dict[tuple[str, str], int] = {}
    for line, record in csv_records(path, ("player", "input")):
        player, text = nfc(record.get("player") or "").strip(), nfc(record["input"] or "")
        if (player, text.strip()) in seen_rows:
            data.note(
                path.name,
                "duplicate answer row (not scored again)",
                f"line {line} repeats line {seen_rows[(player, text.strip())]}",
            )
            continue
        seen_rows[(player, text.strip())] = line
        key, groups = _answer_groups(data, path.name, line, text, vocab)
        if key is not None and (player, key) in seen_games:
            data.note(
                path.name,
                "second answer of a player to one game (not scored)",
                f"line {line}; first on line {seen_games[(player, key)]}",
                key,
            )
            continue
        if key is not None:
            seen_games[(player, key)] = line
        rows += [
            {
                "level": level,
                "player": record.get("player", ""),
                "row": line,
                "game_number": record.get("game_number", ""),
                "game_key": key,
                "group_index": i,
                "words": words,
            }
            for i, words in enumerate(groups)
        ]
    return rows


def _stored_scores(path: Path, level: str, vocab: dict[str, set[str]], data: ConnectionsData) -> list[dict]:
    if not path.exists():
        return []
    rows = []
    for index, record in enumerate(game_records(path, load_json(path), ("allwords",))):
        key = allwords_key(record["allwords"])
        if key not in vocab:
            data.note(path.name, "game not in gold", f"record {index}", key)
            continue
        stored = stored_score(data, path.name, f"record {index}: score", record.get("score"), key)
        rows.append({"level": level, "game_key": key, "stored_score": stored})
    return rows


def read_humans(folder: Path, data: ConnectionsData) -> None:
    """Fill ``data.human_answers`` and ``data.human_stored`` from both levels' files."""
    vocab = {
        key: {w.upper() for ws in group["words"] for w in ws}
        for key, group in data.gold.groupby("game_key", sort=False)
    }
    rows, stored_rows = [], []
    for level in HUMAN_LEVELS:
        stored_rows += _stored_scores(folder / f"{level}.json", level, vocab, data)
        raw_path = folder / f"{level}_raw.csv"
        if not raw_path.exists():
            data.note(raw_path.name, "file absent")
            continue
        rows += _raw_answers(raw_path, level, vocab, data)
    data.human_answers = pd.DataFrame(rows, columns=list(HUMAN_COLUMNS))
    data.human_stored = pd.DataFrame(stored_rows, columns=list(HUMAN_STORED_COLUMNS))
