"""Fast path of the report reader for well-formed files (10⁶ moves in a few seconds).

Lines are parsed a chunk at a time in one ``json.loads`` call over ``[line, line, …]`` and
checked column by column. Whenever anything is off — a line that is not one JSON object, a
key missing or of another type than the game master writes, a game not opening with ``_``, a
solution changing inside a game, undecodable bytes — :func:`fast_columns` returns ``None`` and
the caller re-reads the file line by line, which names the file and line or skips and counts.
It accepts nothing the line-by-line path would refuse.
"""

from __future__ import annotations

import json
from operator import itemgetter
from pathlib import Path

import numpy as np
from wordplay_audit.corpora.wof.reader import MOVE_KEYS, NOT_APPLICABLE, OPENING

CHUNK = 20_000
_getter = itemgetter(*MOVE_KEYS)


def _int_or_na_ok(column: tuple) -> bool:
    """Only integers (no booleans) and ``"/"``."""
    types = set(map(type, column))
    if not types <= {int, str}:
        return False
    return str not in types or all(v.__class__ is int or v == NOT_APPLICABLE for v in set(column))


def _parse_chunk(texts: list[str], data: dict[str, list], pool: dict[str, str]) -> bool:
    try:
        records = json.loads("[" + ",".join(texts) + "]")
    except ValueError:
        return False
    if len(records) != len(texts) or set(map(type, records)) != {dict}:
        return False
    try:
        letter, masked, guess, solution, budget, reward, occ = zip(
            *map(_getter, records), strict=True
        )
    except KeyError:
        return False
    if any(set(map(type, c)) != {str} for c in (letter, masked, guess, solution)):
        return False
    if set(map(type, budget)) != {int} or not (_int_or_na_ok(reward) and _int_or_na_ok(occ)):
        return False
    if list(map(len, masked)) != list(map(len, solution)):
        return False
    data["letter"].extend(map(pool.setdefault, letter, letter))
    data["masked"].extend(masked)
    data["guess"].extend(map(pool.setdefault, guess, guess))
    data["solution"].extend(map(pool.setdefault, solution, solution))
    data["budget"].extend(budget)
    data["wheel_reward"].extend(None if v == NOT_APPLICABLE else v for v in reward)
    data["letter_occurences"].extend(None if v == NOT_APPLICABLE else v for v in occ)
    return True


def _games_ok(data: dict[str, list]) -> bool:
    if not data["game"]:
        return True
    move = np.asarray(data["move"])
    letter = np.asarray(data["letter"], dtype=object)
    if (letter[move == 0] != OPENING).any():
        return False
    game = np.asarray(data["game"])
    same = game[1:] == game[:-1]
    solution = np.asarray(data["solution"], dtype=object)
    return not (solution[1:][same] != solution[:-1][same]).any()


def fast_columns(path: Path) -> tuple[dict[str, list], dict[str, int]] | None:
    """The moves' columns and layout counts of a well-formed report, or ``None``."""
    data: dict[str, list] = {k: [] for k in ("game", "move", "line", *MOVE_KEYS)}
    counts = {"extra_blank_lines": 0, "unterminated_last_game": 0}
    pool: dict[str, str] = {}
    games, moves, lines, texts = data["game"], data["move"], data["line"], []
    game, move, in_game = -1, 0, False
    try:
        with path.open(encoding="utf-8", newline=None) as handle:
            for number, text in enumerate(handle, start=1):
                if text.strip():
                    if not in_game:
                        game, move, in_game = game + 1, 0, True
                    games.append(game)
                    moves.append(move)
                    lines.append(number)
                    texts.append(text)
                    move += 1
                    if len(texts) >= CHUNK:
                        if not _parse_chunk(texts, data, pool):
                            return None
                        texts = []
                elif in_game:
                    in_game = False
                else:
                    counts["extra_blank_lines"] += 1
    except UnicodeDecodeError:
        return None
    if texts and not _parse_chunk(texts, data, pool):
        return None
    counts["unterminated_last_game"] = int(in_game)
    return (data, counts) if _games_ok(data) else None
