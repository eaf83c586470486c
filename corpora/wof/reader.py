"""Read LLMike (Wheel of Fortune) game-master report files into tables and the data contract.

The report format (one file per model, written by LLMike's game master) is one JSON object per
move (:mod:`~wordplay_audit.corpora.wof.moves`: the keys, the special letters, one line parsed);
a blank line ends each game. A game whose last move is not one that ends a game is unfinished
(:func:`~wordplay_audit.corpora.wof.items.game_table`).

Every ``"_"`` move opens a game: a block of lines (between blank lines) holding a second one —
the lines of a game a run died in, then the games of the run continuing it, with no blank line
between — is split there into its games (counted in ``WofLog.skipped["games_split_off"]``).

:func:`read_report` reads one file and :func:`read_reports` a folder of them (``<model>.jsonl``
or ``<model>/report.jsonl``). A missing trailing blank line is accepted; runs of blank lines
are counted. A broken line (bytes that are not UTF-8, not JSON, not an object, a key missing,
repeated or of the wrong type, a ``letter`` that is not ``"_"``, one letter A–Z or a special
value, an integer beyond 18 digits, a negative ``wheel_reward`` or ``letter_occurences``, a
game not opening with ``"_"``, a solution that changes inside a game) raises a one-line
:class:`~wordplay_audit.errors.InputError` ``<file> line <N>: …`` with ``on_error="raise"``
(the default); with ``on_error="skip"`` the game holding it is left out, counted in
``WofLog.skipped`` and named in ``WofLog.problems`` (a broken line is in the game of the last
``"_"`` move above it in its block). Game indices count every game in the file, kept or not,
so an item id never shifts.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO, Literal

import numpy as np
import pandas as pd
from pandas.api.types import union_categoricals

from wordplay_audit.corpora.wof._fast import fast_columns
from wordplay_audit.corpora.wof.moves import MOVE_KEYS, OPENING, BadLine, parse_move
from wordplay_audit.errors import InputError, at_line, check_choice

OnError = Literal["raise", "skip"]
ON_ERROR = ("raise", "skip")
_MAX_PROBLEMS = 20


@dataclass
class WofLog:
    """Moves of one or more report files, plus what was left out.

    ``moves``: one row per move — ``model``, ``game`` (0-based index in the file), ``move``
    (0-based within the game), ``line`` (the file's line number, from 1), the seven keys of a
    move (``wheel_reward`` and ``letter_occurences`` as nullable integers, ``"/"`` → NA).
    ``skipped``: counts (``broken_lines``, ``games_dropped``, ``lines_dropped`` — every line of
    a dropped game —, ``extra_blank_lines``, ``unterminated_last_game`` — the file's last lines
    have no blank line after them —, ``games_split_off`` — games opening inside a block, right
    after another game's lines —, ``empty_files``).
    ``problems``: the first messages of what was skipped.
    """

    moves: pd.DataFrame
    skipped: dict[str, int] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    files: dict[str, str] = field(default_factory=dict)

    def to_dict(self) -> dict:
        return {"files": self.files, "skipped": self.skipped, "problems": self.problems}


def _games(lines: Iterable[str], counts: dict[str, int]) -> Iterator[tuple[list[tuple[int, str]], bool]]:
    """Split lines into games: yield ``([(line number, text), …], ended by a blank line)``.

    Blank lines that end no game (runs, a blank first line) are counted in ``counts``.
    """
    game: list[tuple[int, str]] = []
    for number, text in enumerate(lines, start=1):
        if text.strip():
            game.append((number, text))
        elif game:
            yield game, True
            game = []
        else:
            counts["extra_blank_lines"] += 1
    if game:
        yield game, False


class _Columns:
    """Column lists for the moves table; repeated strings are shared (memory for 10⁶ moves)."""

    def __init__(self) -> None:
        self.data: dict[str, list] = {k: [] for k in ("game", "move", "line", *MOVE_KEYS)}
        self._pool: dict[str, str] = {}

    def add(self, game: int, parsed: list[tuple[int, tuple]]) -> None:
        pool = self._pool
        d = self.data
        for move, (number, values) in enumerate(parsed):
            d["game"].append(game)
            d["move"].append(move)
            d["line"].append(number)
            letter, masked, guess, solution, budget, reward, occ = values
            d["letter"].append(pool.setdefault(letter, letter))
            d["masked"].append(masked)
            d["guess"].append(pool.setdefault(guess, guess))
            d["solution"].append(pool.setdefault(solution, solution))
            d["budget"].append(budget)
            d["wheel_reward"].append(reward)
            d["letter_occurences"].append(occ)


class _NotUtf8(str):
    """A line whose bytes are not UTF-8: its text is the problem (never blank, never parsed)."""


_LINE_END = re.compile(r"\r\n|\r|\n")


def _text_lines(handle: BinaryIO) -> Iterator[str]:
    """The file's lines as text, each decoded on its own (so a bad byte is named by its line;
    a BOM is dropped; ``\r\n``, ``\r`` and ``\n`` end lines, as text mode reads them)."""
    first = True
    for raw in handle:
        if first and raw.startswith(codecs.BOM_UTF8):
            raw = raw[len(codecs.BOM_UTF8) :]
        first = False
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            yield _NotUtf8(f"not UTF-8 text ({exc.reason}, byte 0x{raw[exc.start]:02x})")
            continue
        if "\r" not in text:
            yield text
            continue
        pieces = _LINE_END.split(text)
        yield from (p + "\n" for p in pieces[:-1])
        if pieces[-1]:
            yield pieces[-1]


def _parse_lines(block: list[tuple[int, str]]) -> list[tuple[int, tuple | None, str | None]]:
    """Each line of a block as ``(line number, parsed move or None, problem or None)``."""
    out: list[tuple[int, tuple | None, str | None]] = []
    for number, text in block:
        if type(text) is _NotUtf8:
            out.append((number, None, str(text)))
            continue
        try:
            out.append((number, parse_move(text), None))
        except BadLine as exc:
            out.append((number, None, str(exc)))
    return out


def _split_block(block: list[tuple[int, str]]) -> list[list[tuple[int, tuple | None, str | None]]]:
    """The games of a block: a new one opens at every ``"_"`` move after its first line."""
    lines = _parse_lines(block)
    starts = [0] + [k for k in range(1, len(lines)) if lines[k][1] is not None and lines[k][1][0] == OPENING]
    return [lines[a:b] for a, b in zip(starts, [*starts[1:], len(lines)], strict=True)]


def _check_game(
    game: list[tuple[int, tuple | None, str | None]],
) -> list[tuple[int, tuple]] | tuple[int, str]:
    """A game's parsed moves, or ``(line number, problem)`` of its first broken line."""
    for number, _, problem in game:
        if problem is not None:
            return number, problem
    parsed = [(number, values) for number, values, _ in game]
    first = parsed[0][1]
    if first[0] != OPENING:
        return parsed[0][0], f"a game's first move has letter {OPENING!r}, got {first[0]!r}"
    for number, values in parsed[1:]:
        if values[3] != first[3]:
            return number, f"solution {values[3]!r} differs from the game's {first[3]!r}"
    return parsed


def _model_name(path: Path) -> str:
    return path.parent.name if path.stem == "report" and path.parent.name else path.stem


def read_report(path: str | Path, *, model: str | None = None, on_error: OnError = "raise") -> WofLog:
    """Read one report file; ``model`` defaults to the file's stem (its folder's name for
    ``report.jsonl``). See the module docstring for ``on_error``."""
    check_choice("on_error", on_error, ON_ERROR)
    path = Path(path)
    if not path.is_file():
        raise InputError(
            f"{path}: no such report file"
            if not path.exists()
            else f"{path}: is a folder, expected a report file"
        )
    model = model or _model_name(path)
    fast = fast_columns(path)
    if fast is not None:
        data, counts = fast
        skipped = {"broken_lines": 0, "games_dropped": 0, "lines_dropped": 0, "games_split_off": 0, **counts}
        log = WofLog(_frame(data, model), skipped, [], {model: str(path)})
    else:
        log = _read_line_by_line(path, model, on_error)
    log.skipped["empty_files"] = int(log.moves.empty and log.skipped["games_dropped"] == 0)
    return log


def _read_line_by_line(path: Path, model: str, on_error: OnError) -> WofLog:
    """The careful path: every line parsed and checked on its own (see the module docstring)."""
    columns = _Columns()
    skipped = {
        "broken_lines": 0,
        "games_dropped": 0,
        "lines_dropped": 0,
        "extra_blank_lines": 0,
        "unterminated_last_game": 0,
        "games_split_off": 0,
    }
    problems: list[str] = []
    index = 0
    with path.open("rb") as handle:
        for block, ended in _games(_text_lines(handle), skipped):
            skipped["unterminated_last_game"] += not ended
            games = _split_block(block)
            skipped["games_split_off"] += len(games) - 1
            for game in games:
                parsed = _check_game(game)
                index += 1
                if isinstance(parsed, list):
                    columns.add(index - 1, parsed)
                    continue
                message = at_line(path, parsed[0]) + parsed[1]
                if on_error == "raise":
                    raise InputError(message)
                skipped["broken_lines"] += 1
                skipped["games_dropped"] += 1
                skipped["lines_dropped"] += len(game)
                if len(problems) < _MAX_PROBLEMS:
                    problems.append(message)
    moves = _frame(columns.data, model)
    return WofLog(moves, skipped, problems, {model: str(path)})


def _frame(data: dict[str, list], model: str) -> pd.DataFrame:
    frame = pd.DataFrame(
        {
            "model": pd.Categorical([model] * len(data["game"])),
            "game": np.asarray(data["game"], dtype=np.int64),
            "move": np.asarray(data["move"], dtype=np.int64),
            "line": np.asarray(data["line"], dtype=np.int64),
            "letter": pd.Categorical(data["letter"]),
            "masked": pd.Series(data["masked"], dtype=object),
            "guess": pd.Series(data["guess"], dtype=object),
            "solution": pd.Series(data["solution"], dtype=object),
            "budget": np.asarray(data["budget"], dtype=np.int64),
            "wheel_reward": pd.array(data["wheel_reward"], dtype="Int64"),
            "letter_occurences": pd.array(data["letter_occurences"], dtype="Int64"),
        }
    )
    return frame


def report_files(path: str | Path) -> list[Path]:
    """The report files a path names: itself, or ``*.jsonl`` and ``*/report.jsonl`` in a folder."""
    path = Path(path)
    if not path.exists():
        raise InputError(f"{path}: no such file or folder")
    if path.is_file():
        return [path]
    files = sorted(p for p in path.glob("*.jsonl") if p.is_file())
    files += sorted(p for p in path.glob("*/report.jsonl") if p.is_file())
    if not files:
        raise InputError(f"{path}: no report files (expected <model>.jsonl or <model>/report.jsonl)")
    return files


def read_reports(paths: str | Path | Iterable[str | Path], *, on_error: OnError = "raise") -> WofLog:
    """Read every report file under ``paths`` (files or folders); one model per file."""
    check_choice("on_error", on_error, ON_ERROR)
    if isinstance(paths, str | Path):
        paths = [paths]
    logs: list[WofLog] = []
    for path in paths:
        for file in report_files(path):
            log = read_report(file, on_error=on_error)
            clash = set(log.files) & {m for lg in logs for m in lg.files}
            if clash:
                name = clash.pop()
                earlier = next(lg.files[name] for lg in logs if name in lg.files)
                raise InputError(f"{file}: model {name!r} already read from {earlier}; rename one file")
            logs.append(log)
    joined = _concat(logs)
    if joined.moves.empty:
        why = f"; first problem: {joined.problems[0]}" if joined.problems else ""
        raise InputError(f"{', '.join(joined.files.values())}: no game to read (empty report files){why}")
    return joined


def _concat(logs: list[WofLog]) -> WofLog:
    if len(logs) == 1:
        return logs[0]
    frames = [lg.moves for lg in logs if not lg.moves.empty] or [logs[0].moves]
    categorical = {c: union_categoricals([f[c] for f in frames]) for c in ("model", "letter")}
    moves = pd.concat([f.drop(columns=list(categorical)) for f in frames], ignore_index=True)
    for column, values in categorical.items():
        moves.insert(0 if column == "model" else 4, column, values)
    skipped = {k: sum(lg.skipped[k] for lg in logs) for k in logs[0].skipped}
    problems = [p for lg in logs for p in lg.problems][:_MAX_PROBLEMS]
    files = {k: v for lg in logs for k, v in lg.files.items()}
    return WofLog(moves, skipped, problems, files)
