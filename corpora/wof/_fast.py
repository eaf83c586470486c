"""Fast path of the report reader for well-formed files (10⁶ moves in a few seconds).

Lines are read in blocks of about 4 MB, their layout (games, moves) computed with numpy,
and parsed a block at a time in one ``json.loads`` call over ``[line, line, …]`` and
checked column by column. Whenever anything is off — a line that is not one JSON object, a
key missing, repeated or of another type than the game master writes, a value out of range
(an unknown ``letter``, an integer beyond 18 digits, a negative count), a game not opening
with ``_``, a ``_`` move inside a game (a block holding two games, which the careful path
splits), a solution changing inside a game, undecodable bytes — :func:`fast_columns`
returns ``None`` and the caller re-reads the file line by line, which names the file and line
or skips and counts.
It accepts nothing the line-by-line path would refuse.
"""

from __future__ import annotations

import gc
import json
from itertools import compress
from operator import itemgetter
from pathlib import Path

import numpy as np
import pandas as pd

from wordplay_audit.corpora.values import SURROGATE_ESCAPE
from wordplay_audit.corpora.wof.moves import (
    INT_LIMIT,
    MOVE_KEYS,
    NOT_APPLICABLE,
    OPENING,
    VALID_LETTERS,
    json_object,
)

BLOCK_BYTES = 1 << 22
_getter = itemgetter(*MOVE_KEYS)


def _int_or_na_ok(column: tuple) -> bool:
    """Only integers (no booleans) in [0, INT_LIMIT) and ``"/"``."""
    types = set(map(type, column))
    if not types <= {int, str}:
        return False
    values = set(column)
    if str in types and not all(v.__class__ is int or v == NOT_APPLICABLE for v in values):
        return False
    numbers = [v for v in values if v.__class__ is int]
    return not numbers or (min(numbers) >= 0 and max(numbers) < INT_LIMIT)


def _columns(texts: list[str]) -> tuple | None:
    """The seven columns of a block's lines, or None when a line is not a move object."""
    block = "[" + ",".join(texts) + "]"
    if SURROGATE_ESCAPE.search(block):
        return None  # the line-by-line path checks the strings
    try:
        records = json.loads(block)
        if block.count(":") != sum(map(len, records)):  # ':' in a string, or a key given twice
            records = json.loads(block, object_pairs_hook=json_object)  # a repeated key: ValueError
    except (ValueError, TypeError, RecursionError):
        return None
    if len(records) != len(texts) or set(map(type, records)) != {dict}:
        return None
    try:
        return tuple(zip(*map(_getter, records), strict=True))
    except KeyError:
        return None


def _types_ok(columns: tuple) -> bool:
    """Texts are strings, letters valid, budget integers within ±INT_LIMIT, reward and
    occurrences integers ≥ 0 or ``"/"``, and the mask as long as the solution."""
    letter, masked, guess, solution, budget, reward, occ = columns
    if any(set(map(type, c)) != {str} for c in (letter, masked, guess, solution)):
        return False
    if not set(letter) <= VALID_LETTERS:
        return False
    if set(map(type, budget)) != {int} or not -INT_LIMIT < min(budget) <= max(budget) < INT_LIMIT:
        return False
    if not (_int_or_na_ok(reward) and _int_or_na_ok(occ)):
        return False
    return list(map(len, masked)) == list(map(len, solution))


def _parse_chunk(texts: list[str], data: dict[str, list], pool: dict[str, str]) -> bool:
    if not texts:
        return True
    gc_was_on = gc.isenabled()
    gc.disable()  # 10⁵ new dicts and tuples per block would start collections that find nothing
    try:
        columns = _columns(texts)
    finally:
        if gc_was_on:
            gc.enable()
    if columns is None or not _types_ok(columns):
        return False
    letter, masked, guess, solution, budget, reward, occ = columns
    data["letter"].extend(map(pool.setdefault, letter, letter))
    data["masked"].extend(masked)
    data["guess"].extend(map(pool.setdefault, guess, guess))
    data["solution"].extend(map(pool.setdefault, solution, solution))
    data["budget"].append(np.array(budget, dtype=np.int64))
    data["wheel_reward"].append(_masked_ints(reward))
    data["letter_occurences"].append(_masked_ints(occ))
    return True


def _masked_ints(column: tuple) -> tuple[np.ndarray, np.ndarray]:
    """Integers and ``"/"`` → (int64 values with 0 at ``"/"``, mask True at ``"/"``)."""
    values = np.array(column, dtype=object)
    mask = values == NOT_APPLICABLE
    values[mask] = 0
    return values.astype(np.int64), np.asarray(mask, dtype=bool)


def _join_blocks(data: dict[str, list]) -> None:
    """Concatenate the per-block arrays (nullable integers for reward and occurrences)."""
    data["budget"] = np.concatenate(data["budget"]) if data["budget"] else np.zeros(0, dtype=np.int64)
    for key in ("wheel_reward", "letter_occurences"):
        parts = data[key]
        values = np.concatenate([v for v, _ in parts]) if parts else np.zeros(0, dtype=np.int64)
        mask = np.concatenate([m for _, m in parts]) if parts else np.zeros(0, dtype=bool)
        data[key] = pd.arrays.IntegerArray(values, mask)


def _games_ok(data: dict[str, list]) -> bool:
    if len(data["game"]) == 0:
        return True
    move = np.asarray(data["move"])
    letter = np.asarray(data["letter"], dtype=object)
    if (letter[move == 0] != OPENING).any() or (letter[move > 0] == OPENING).any():
        return False  # a game not opening with '_', or a block holding more than one game
    game = np.asarray(data["game"])
    same = game[1:] == game[:-1]
    solution = np.asarray(data["solution"], dtype=object)
    return not (solution[1:][same] != solution[:-1][same]).any()


class _Layout:
    """Game and move numbers of non-blank lines, carried from one block of lines to the next."""

    def __init__(self) -> None:
        self.after_blank = True  # the start of the file counts as after a blank line
        self.games = 0  # games started so far
        self.next_move = 0  # the move number a continuing line would get
        self.lines = 0  # lines seen so far
        self.extra_blank_lines = 0

    def block(self, block: list[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """``(non-blank mask, game, move, line number)`` for the non-blank lines of a block."""
        n = len(block)
        nonblank = np.fromiter(map(len, map(str.strip, block)), dtype=np.int64, count=n) > 0
        prev_blank = np.r_[self.after_blank, ~nonblank[:-1]]
        self.extra_blank_lines += int((~nonblank & prev_blank).sum())
        start = (nonblank & prev_blank)[nonblank]
        game = self.games - 1 + np.cumsum(start)
        pos = np.arange(len(start))
        last_start = np.maximum.accumulate(np.where(start, pos, -1)) if len(start) else pos
        move = np.where(last_start >= 0, pos - last_start, self.next_move + pos)
        number = self.lines + 1 + np.flatnonzero(nonblank)
        self.games += int(start.sum())
        self.lines += n
        if n:
            self.after_blank = not nonblank[-1]
            self.next_move = int(move[-1]) + 1 if nonblank[-1] else 0
        return nonblank, game, move, number


def fast_columns(path: Path) -> tuple[dict[str, list], dict[str, int]] | None:
    """The moves' columns and layout counts of a well-formed report, or ``None``."""
    data: dict[str, list] = {k: [] for k in MOVE_KEYS}
    numbers: dict[str, list[np.ndarray]] = {"game": [], "move": [], "line": []}
    pool: dict[str, str] = {}
    layout = _Layout()
    try:
        with path.open(encoding="utf-8-sig", newline=None) as handle:
            for block in iter(lambda: handle.readlines(BLOCK_BYTES), []):
                nonblank, game, move, number = layout.block(block)
                if not _parse_chunk(list(compress(block, nonblank)), data, pool):
                    return None
                for key, values in (("game", game), ("move", move), ("line", number)):
                    numbers[key].append(values)
    except UnicodeDecodeError:
        return None
    for key, parts in numbers.items():
        data[key] = np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)
    _join_blocks(data)
    counts = {
        "extra_blank_lines": layout.extra_blank_lines,
        "unterminated_last_game": int(not layout.after_blank),
    }
    return (data, counts) if _games_ok(data) else None
