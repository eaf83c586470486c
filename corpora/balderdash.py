"""Read the Balderdash framework's game database, as exported by ``mongoexport``.

The framework (Hejabi et al. 2024, "Evaluating Creativity and Deception in Large Language
Models: A Simulation Framework for Multi-Agent Balderdash") stores its games in the MongoDB
database ``balderdash_game`` in three collections, ``games``, ``players`` and ``rounds``.
An export folder holds one file per collection, named ``games``, ``players`` and ``rounds`` with
suffix ``.json`` or ``.jsonl``. Each file may be JSON lines (``mongoexport`` default; pretty
printed, concatenated documents are accepted too) or one JSON array (``--jsonArray``), in relaxed
or canonical Extended JSON (``{"$oid": …}``, ``{"$date": …}``, ``{"$numberInt": …}``,
``{"$numberLong": …}``, ``{"$numberDouble": …}``), also mixed within one file.

Optional words files (the framework's CSV decks: ``words``, ``def`` – a Python-literal list of
senses, read with :func:`ast.literal_eval` – and ``POS``) add every dictionary sense and, when the
file has a ``frequency_band`` or ``zipf`` column, a word-frequency band to the items.

:func:`read_export` returns a :class:`BalderdashExport`; :func:`player_round_table` turns it into
one row per (game, round, player), the input of every analysis in :mod:`analysis.balderdash`.
Any bad input raises :class:`~corpora.contract.InputError` naming the file, its line and the field.
"""

from __future__ import annotations

import ast
import json
import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
from wordplay_audit.corpora.contract import validate_items

from wordplay_audit.errors import InputError

COLLECTIONS = ("games", "players", "rounds")
SUFFIXES = (".jsonl", ".json")
FILTER_WORDS = ("all", "known", "unknown")
HISTORY_TYPES = ("none", "mini", "full")
PLAYER_ROUND_COLUMNS = (
    "game_id",
    "round_id",
    "player_id",
    "model",
    "history_type",
    "filter_words",
    "deck",
    "judge_model",
    "knows",
    "true_def",
    "item_id",
)
"""The columns of :func:`player_round_table` that other modules rely on (names fixed)."""

REFERENCE_VOTE = "-1"
"""How a vote for the dictionary (reference) definition is stored in the ``vote`` column."""


@dataclass
class BalderdashExport:
    """One exported Balderdash database.

    Attributes
    ----------
    games
        One row per game: ``game_id`` (str), ``deck`` (stem of ``words_file``), ``words_file``,
        ``filter_words``, ``history_type`` (``"unknown"`` when the game predates the field),
        ``judge_model``, ``number_of_rounds``, the three point values and ``n_rounds_found``.
    players
        One row per player: ``player_id`` (str), ``game_id``, ``name``, ``model`` (``llm_name``),
        ``final_score`` (nan when absent).
    rounds
        One row per round: ``game_id``, ``round_id`` (int, 1-based), ``word``,
        ``correct_definition``, ``pos``, ``n_players``, ``n_true`` (judge verdicts true).
    definitions
        One row per (game, round, player): ``definition``, ``judge_decision`` (bool),
        ``llm_knows`` (bool), ``vote`` (target player id, ``"-1"`` for the reference, ``""`` for
        none) and ``score`` (the round score as recorded, nan when absent).
    items
        The contract's items table (kind ``definition``), one per definition.
    words
        Per deck, the words file read (``word``, ``senses``, ``pos``, ``frequency_band``).
    skipped
        Counts of what was left out or found odd (see docs/BALDERDASH.md), never silently dropped.
    """

    games: pd.DataFrame
    players: pd.DataFrame
    rounds: pd.DataFrame
    definitions: pd.DataFrame
    items: pd.DataFrame
    words: dict[str, pd.DataFrame] = field(default_factory=dict)
    skipped: dict[str, int] = field(default_factory=dict)
    source: str = ""

    @property
    def incomplete_games(self) -> list[str]:
        """Games with fewer rounds found than ``number_of_rounds`` (the framework drops them)."""
        g = self.games
        return g.loc[g["n_rounds_found"] < g["number_of_rounds"], "game_id"].tolist()


# --------------------------------------------------------------------------- Extended JSON


def decode_extended_json(value: Any) -> Any:
    """Turn MongoDB Extended JSON (relaxed or canonical) into plain Python values.

    ``{"$oid": h}`` → ``h``; ``{"$numberInt"|"$numberLong": s}`` → ``int(s)``;
    ``{"$numberDouble"|"$numberDecimal": s}`` → ``float(s)``; ``{"$date": …}`` → an ISO string
    (canonical ``{"$date": {"$numberLong": ms}}`` is converted from milliseconds since the epoch).
    Other values are returned with their containers decoded. Raises ValueError on a malformed
    wrapper such as ``{"$numberInt": "x"}``.

    >>> decode_extended_json({"a": {"$numberInt": "3"}, "b": [{"$numberDouble": "0.5"}]})
    {'a': 3, 'b': [0.5]}
    """
    if isinstance(value, dict):
        if len(value) == 1:
            ((key, inner),) = value.items()
            if key == "$oid":
                return str(inner)
            if key in ("$numberInt", "$numberLong"):
                if isinstance(inner, bool) or not isinstance(inner, str | int):
                    raise ValueError(f"{key} must hold a string of digits, got {inner!r}")
                return int(inner)
            if key in ("$numberDouble", "$numberDecimal"):
                if isinstance(inner, bool) or not isinstance(inner, str | int | float):
                    raise ValueError(f"{key} must hold a number string, got {inner!r}")
                return float(inner)
            if key == "$date":
                inner = decode_extended_json(inner)
                if isinstance(inner, int | float) and not isinstance(inner, bool):
                    return pd.Timestamp(int(inner), unit="ms", tz="UTC").isoformat()
                return str(inner)
        return {str(k): decode_extended_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [decode_extended_json(v) for v in value]
    return value


def _skip_ws(text: str, pos: int) -> int:
    while pos < len(text) and text[pos] in " \t\r\n\ufeff":
        pos += 1
    return pos


def iter_json_documents(text: str, source: str) -> Iterator[tuple[int, Any]]:
    """Yield ``(line, document)`` from JSON lines, concatenated documents or one JSON array.

    ``line`` is the 1-based line where the document starts. Invalid JSON raises InputError
    naming ``source`` and the line of the fault.
    """
    decoder = json.JSONDecoder()
    pos = _skip_ws(text, 0)
    line, counted = 1, 0

    def line_at(p: int) -> int:
        nonlocal line, counted
        line += text.count("\n", counted, p)
        counted = p
        return line

    in_array = text.startswith("[", pos)
    if in_array:
        pos = _skip_ws(text, pos + 1)
        if text.startswith("]", pos):
            pos = _skip_ws(text, pos + 1)
            if pos < len(text):
                raise InputError(f"{source} line {line_at(pos)}: unexpected text after the JSON array")
            return
    while pos < len(text):
        start_line = line_at(pos)
        try:
            document, end = decoder.raw_decode(text, pos)
        except json.JSONDecodeError as exc:
            where = "" if exc.lineno == start_line else f", found at line {exc.lineno}"
            raise InputError(f"{source} line {start_line}: not valid JSON ({exc.msg}{where})") from None
        yield start_line, document
        pos = _skip_ws(text, end)
        if in_array:
            if pos >= len(text):
                raise InputError(f"{source} line {line_at(pos)}: JSON array is not closed (expected ']')")
            if text[pos] == ",":
                pos = _skip_ws(text, pos + 1)
                continue
            if text[pos] == "]":
                pos = _skip_ws(text, pos + 1)
                if pos < len(text):
                    raise InputError(
                        f"{source} line {line_at(pos)}: unexpected text after the JSON array"
                    )
                return
            raise InputError(f"{source} line {line_at(pos)}: expected ',' or ']' in the JSON array")


def _read_collection(folder: Path, name: str) -> tuple[str, list[tuple[int, dict]]]:
    candidates = [folder / f"{name}{suffix}" for suffix in SUFFIXES]
    found = [p for p in candidates if p.is_file()]
    if not found:
        raise InputError(
            f"{folder}: no {name}.json or {name}.jsonl (export the {name!r} collection with mongoexport)"
        )
    if len(found) > 1:
        raise InputError(f"{folder}: both {found[0].name} and {found[1].name} exist; keep one")
    path = found[0]
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise InputError(f"{path}: not UTF-8 text (expected mongoexport JSON)") from None
    documents = []
    for line, raw in iter_json_documents(text, str(path)):
        if not isinstance(raw, dict):
            raise InputError(f"{path} line {line}: expected a JSON object, got {type(raw).__name__}")
        try:
            documents.append((line, decode_extended_json(raw)))
        except (ValueError, OverflowError) as exc:
            raise InputError(f"{path} line {line}: bad Extended JSON value ({exc})") from None
    return str(path), documents


# --------------------------------------------------------------------------- field access

_MISSING = object()


class _Doc:
    """A decoded document with its file and line, for one-line error messages."""

    def __init__(self, source: str, line: int, data: dict) -> None:
        self.source, self.line, self.data = source, line, data

    def fail(self, message: str) -> InputError:
        return InputError(f"{self.source} line {self.line}: {message}")

    def get(self, name: str, default: Any = _MISSING) -> Any:
        value = self.data.get(name, _MISSING)
        if value is _MISSING or value is None:
            if default is _MISSING:
                raise self.fail(f"field {name!r} is missing")
            return default
        return value

    def ident(self, name: str, value: Any = _MISSING) -> str:
        value = self.get(name) if value is _MISSING else value
        if isinstance(value, bool) or not isinstance(value, int | str | float):
            raise self.fail(f"field {name!r} must be an id (integer or string), got {value!r}")
        if isinstance(value, float):
            if not value.is_integer():
                raise self.fail(f"field {name!r} must be an integer id, got {value!r}")
            value = int(value)
        text = str(value).strip()
        if not text:
            raise self.fail(f"field {name!r} is empty")
        return text

    def integer(self, name: str, default: Any = _MISSING) -> int:
        value = self.get(name, default)
        if isinstance(value, bool):
            raise self.fail(f"field {name!r} must be an integer, got {value!r}")
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if isinstance(value, str) and value.strip().lstrip("-").isdigit():
            value = int(value)
        if not isinstance(value, int):
            raise self.fail(f"field {name!r} must be an integer, got {value!r}")
        return value

    def number(self, name: str) -> float:
        value = self.get(name)
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise self.fail(f"field {name!r} must be a number, got {value!r}")
        return float(value)

    def text(self, name: str, default: Any = _MISSING) -> str:
        value = self.get(name, default)
        if not isinstance(value, str):
            raise self.fail(f"field {name!r} must be a string, got {value!r}")
        return value

    def boolean(self, value: Any, what: str) -> bool:
        if isinstance(value, bool):
            return value
        if isinstance(value, int) and value in (0, 1):
            return bool(value)
        if isinstance(value, str) and value.strip().lower() in ("true", "false"):
            return value.strip().lower() == "true"
        raise self.fail(f"{what} must be true or false, got {value!r}")


# --------------------------------------------------------------------------- words files


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


def _deck_of(words_file: str) -> str:
    return Path(words_file.replace("\\", "/")).stem or words_file


def _parse_games(source: str, docs: list[tuple[int, dict]]) -> pd.DataFrame:
    rows, seen = [], {}
    for line, data in docs:
        doc = _Doc(source, line, data)
        game_id = doc.ident("game_id")
        if game_id in seen:
            raise doc.fail(f"game_id {game_id} appears twice (first on line {seen[game_id]})")
        seen[game_id] = line
        filter_words = doc.text("filter_words")
        if filter_words not in FILTER_WORDS:
            raise doc.fail(f"field 'filter_words' must be one of {', '.join(FILTER_WORDS)}, got {filter_words!r}")
        history_type = doc.text("history_type", "unknown")
        if history_type not in (*HISTORY_TYPES, "unknown"):
            raise doc.fail(
                f"field 'history_type' must be one of {', '.join(HISTORY_TYPES)}, got {history_type!r}"
            )
        words_file = doc.text("words_file")
        number_of_rounds = doc.integer("number_of_rounds")
        if number_of_rounds < 1:
            raise doc.fail(f"field 'number_of_rounds' must be at least 1, got {number_of_rounds}")
        rows.append(
            {
                "game_id": game_id,
                "deck": _deck_of(words_file),
                "words_file": words_file,
                "filter_words": filter_words,
                "history_type": history_type,
                "judge_model": doc.text("judge_llm_model_name"),
                "number_of_rounds": number_of_rounds,
                "receiving_vote_points": doc.number("receiving_vote_points"),
                "correct_vote_points": doc.number("correct_vote_points"),
                "correct_definition_points": doc.number("correct_definition_points"),
                "random_seed": data.get("random_seed"),
                "game_description": str(data.get("game_description") or ""),
            }
        )
    return pd.DataFrame(
        rows,
        columns=[
            "game_id", "deck", "words_file", "filter_words", "history_type", "judge_model",
            "number_of_rounds", "receiving_vote_points", "correct_vote_points",
            "correct_definition_points", "random_seed", "game_description",
        ],
    )


def _parse_players(source: str, docs: list[tuple[int, dict]], games: set[str]) -> pd.DataFrame:
    rows, seen = [], {}
    for line, data in docs:
        doc = _Doc(source, line, data)
        player_id = doc.ident("player_id")
        if player_id in seen:
            raise doc.fail(f"player_id {player_id} appears twice (first on line {seen[player_id]})")
        seen[player_id] = line
        game_id = doc.ident("game_id")
        if game_id not in games:
            raise doc.fail(f"game_id {game_id} names no game in the games export")
        model = doc.text("llm_name").strip()
        if not model:
            raise doc.fail("field 'llm_name' is empty")
        score = data.get("score")
        rows.append(
            {
                "player_id": player_id,
                "game_id": game_id,
                "name": str(data.get("name") or ""),
                "model": model,
                "final_score": float(score) if isinstance(score, int | float) and not isinstance(score, bool) else math.nan,
            }
        )
    return pd.DataFrame(rows, columns=["player_id", "game_id", "name", "model", "final_score"])


def _parse_rounds(
    source: str, docs: list[tuple[int, dict]], player_game: dict[str, str], games: set[str],
    skipped: dict[str, int],
) -> tuple[pd.DataFrame, pd.DataFrame]:
    round_rows, def_rows, seen = [], [], {}
    for line, data in docs:
        doc = _Doc(source, line, data)
        game_id = doc.ident("game_id")
        if game_id not in games:
            raise doc.fail(f"game_id {game_id} names no game in the games export")
        round_id = doc.integer("round_id")
        if round_id < 1:
            raise doc.fail(f"field 'round_id' must be 1 or more, got {round_id}")
        key = (game_id, round_id)
        if key in seen:
            raise doc.fail(f"round {round_id} of game {game_id} appears twice (first on line {seen[key]})")
        seen[key] = line
        word = doc.text("word")
        reference = doc.text("correct_definition")
        listed = doc.get("players")
        if not isinstance(listed, list) or not listed:
            raise doc.fail("field 'players' must be a non-empty list of player ids")
        player_ids = [doc.ident("players", p) for p in listed]
        if len(set(player_ids)) != len(player_ids):
            raise doc.fail("field 'players' lists a player twice")
        definitions = doc.get("player_definitions")
        votes = doc.get("votes", {})
        scores = doc.get("scores", {})
        for name, value in (("player_definitions", definitions), ("votes", votes), ("scores", scores)):
            if not isinstance(value, dict):
                raise doc.fail(f"field {name!r} must be an object keyed by player id")
        in_round = set(player_ids)
        for pid in player_ids:
            if player_game.get(pid) != game_id:
                raise doc.fail(f"player {pid} is not a player of game {game_id} in the players export")
        extra = set(definitions) - in_round
        if extra:
            raise doc.fail(f"player_definitions has player {sorted(extra)[0]} who is not in 'players'")
        extra_votes = set(votes) - in_round
        if extra_votes:
            raise doc.fail(f"votes has voter {sorted(extra_votes)[0]} who is not in 'players'")
        n_true = 0
        for pid in player_ids:
            entry = definitions.get(pid)
            if not isinstance(entry, dict):
                raise doc.fail(f"player_definitions lacks an object for player {pid}")
            where = f"player_definitions.{pid}"
            if "judge_decision" not in entry or entry["judge_decision"] is None:
                raise doc.fail(f"field '{where}.judge_decision' is missing")
            if "llm_knows_one_of_the_defs" not in entry or entry["llm_knows_one_of_the_defs"] is None:
                raise doc.fail(f"field '{where}.llm_knows_one_of_the_defs' is missing")
            judge = doc.boolean(entry["judge_decision"], f"field '{where}.judge_decision'")
            knows = doc.boolean(entry["llm_knows_one_of_the_defs"], f"field '{where}.llm_knows_one_of_the_defs'")
            definition = entry.get("definition")
            if not isinstance(definition, str):
                raise doc.fail(f"field '{where}.definition' must be a string")
            if judge and not knows:
                skipped["knows_false_but_judge_true"] = skipped.get("knows_false_but_judge_true", 0) + 1
            n_true += judge
            vote = ""
            if pid in votes:
                target = votes[pid]
                if isinstance(target, bool) or not isinstance(target, int | str):
                    raise doc.fail(f"field 'votes.{pid}' must be a player id or -1, got {target!r}")
                target = str(target).strip()
                if target != REFERENCE_VOTE and target not in in_round:
                    raise doc.fail(f"field 'votes.{pid}' names player {target}, who is not in this round")
                if judge:
                    # the framework never lets a true definition vote; such a vote is ignored
                    skipped["votes_by_true_definitions_ignored"] = skipped.get("votes_by_true_definitions_ignored", 0) + 1
                else:
                    vote = target
            elif not judge:
                skipped["missing_votes"] = skipped.get("missing_votes", 0) + 1
            score = scores.get(pid)
            if isinstance(score, bool) or not isinstance(score, int | float):
                if score is not None:
                    raise doc.fail(f"field 'scores.{pid}' must be a number, got {score!r}")
                skipped["missing_scores"] = skipped.get("missing_scores", 0) + 1
                score = math.nan
            def_rows.append(
                {
                    "game_id": game_id,
                    "round_id": round_id,
                    "player_id": pid,
                    "definition": definition,
                    "judge_decision": judge,
                    "llm_knows": knows,
                    "vote": vote,
                    "score": float(score),
                }
            )
        round_rows.append(
            {
                "game_id": game_id,
                "round_id": round_id,
                "word": word,
                "correct_definition": reference,
                "pos": str(data.get("pos") or ""),
                "n_players": len(player_ids),
                "n_true": n_true,
            }
        )
    rounds = pd.DataFrame(
        round_rows,
        columns=["game_id", "round_id", "word", "correct_definition", "pos", "n_players", "n_true"],
    )
    definitions = pd.DataFrame(
        def_rows,
        columns=["game_id", "round_id", "player_id", "definition", "judge_decision", "llm_knows", "vote", "score"],
    )
    return rounds, definitions


def _collect_words(folder: Path, words: Iterable[str | Path] | None, decks: set[str]) -> dict[str, pd.DataFrame]:
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


def read_export(folder: str | Path, *, words: Iterable[str | Path] | None = None) -> BalderdashExport:
    """Read a folder of ``mongoexport`` files (games, players, rounds) and optional words files.

    Parameters
    ----------
    folder
        Folder holding ``games``, ``players`` and ``rounds`` with suffix ``.json`` or ``.jsonl``.
        CSV files in it whose stem equals a game's deck (``words_file`` stem) are read as words
        files.
    words
        Further words files or folders of them.

    Returns
    -------
    BalderdashExport
        All tables, the contract's items, and counts of everything skipped.
    """
    folder = Path(folder)
    if not folder.is_dir():
        raise InputError(f"{folder}: no such folder (expected a folder of games/players/rounds exports)")
    skipped: dict[str, int] = {}
    g_source, g_docs = _read_collection(folder, "games")
    p_source, p_docs = _read_collection(folder, "players")
    r_source, r_docs = _read_collection(folder, "rounds")
    games = _parse_games(g_source, g_docs)
    if games.empty:
        raise InputError(f"{g_source}: holds no games")
    game_set = set(games["game_id"])
    players = _parse_players(p_source, p_docs, game_set)
    player_game = dict(zip(players["player_id"], players["game_id"], strict=True))
    rounds, definitions = _parse_rounds(r_source, r_docs, player_game, game_set, skipped)
    if rounds.empty:
        raise InputError(f"{r_source}: holds no rounds")
    rounds = rounds.sort_values(["game_id", "round_id"], key=_natural_key).reset_index(drop=True)
    definitions = definitions.sort_values(
        ["game_id", "round_id", "player_id"], key=_natural_key
    ).reset_index(drop=True)
    found = rounds.groupby("game_id").size()
    games["n_rounds_found"] = games["game_id"].map(found).fillna(0).astype(int)
    games_without_rounds = int((games["n_rounds_found"] == 0).sum())
    if games_without_rounds:
        skipped["games_without_rounds"] = games_without_rounds
    incomplete = int(((games["n_rounds_found"] < games["number_of_rounds"]) & (games["n_rounds_found"] > 0)).sum())
    if incomplete:
        skipped["incomplete_games"] = incomplete
    words_tables = _collect_words(folder, words, set(games["deck"]))
    export = BalderdashExport(
        games=games, players=players, rounds=rounds, definitions=definitions,
        items=pd.DataFrame(), words=words_tables, skipped=skipped, source=str(folder),
    )
    export.items = build_items(export)
    return export


def _natural_key(values: pd.Series) -> pd.Series:
    """Sort ids numerically when they are all integers, else as text."""
    if values.dtype == object and values.map(lambda v: isinstance(v, str) and v.lstrip("-").isdigit()).all():
        return values.astype(int)
    return values


# --------------------------------------------------------------------------- derived tables


def item_id_of(game_id: str, round_id: int, player_id: str) -> str:
    """The contract's item id of one definition: ``bd:<game_id>:<round_id>:<player_id>``."""
    return f"bd:{game_id}:{int(round_id)}:{player_id}"


def player_round_table(export: BalderdashExport) -> pd.DataFrame:
    """One row per (game, round, player): the input of the metrics, recomputation and trend tests.

    Columns (names fixed, see :data:`PLAYER_ROUND_COLUMNS`): ``game_id`` (str), ``round_id``
    (int, 1-based), ``player_id`` (str), ``model`` (the player's ``llm_name``), ``history_type``,
    ``filter_words``, ``deck`` (``words_file`` stem), ``judge_model``, ``knows`` (bool,
    ``llm_knows_one_of_the_defs``), ``true_def`` (bool, ``judge_decision``) and ``item_id``
    (``bd:<game_id>:<round_id>:<player_id>``); then ``vote`` (target player id, ``"-1"`` for the
    reference, ``""`` for none), ``score`` (recorded round score), ``word`` and the game's
    point values, which the metrics and score recomputation use.
    """
    d = export.definitions
    players = export.players[["player_id", "model"]]
    games = export.games[
        ["game_id", "history_type", "filter_words", "deck", "judge_model",
         "receiving_vote_points", "correct_vote_points", "correct_definition_points"]
    ]
    out = d.merge(players, on="player_id", how="left").merge(games, on="game_id", how="left")
    out = out.merge(export.rounds[["game_id", "round_id", "word"]], on=["game_id", "round_id"], how="left")
    out["knows"] = out["llm_knows"].astype(bool)
    out["true_def"] = out["judge_decision"].astype(bool)
    out["round_id"] = out["round_id"].astype(int)
    out["item_id"] = [item_id_of(g, r, p) for g, r, p in zip(out["game_id"], out["round_id"], out["player_id"], strict=True)]
    columns = list(PLAYER_ROUND_COLUMNS) + [
        "vote", "score", "word", "receiving_vote_points", "correct_vote_points", "correct_definition_points",
    ]
    return out[columns].reset_index(drop=True)


def build_items(export: BalderdashExport) -> pd.DataFrame:
    """The contract's items table: one ``definition`` item per (game, round, player).

    ``context`` is the word, ``reference`` the dictionary definition shown in the game,
    ``candidate`` the player's definition; strata columns ``player_model``, ``deck``,
    ``history_type``, ``filter_words``, ``judge_model``, ``judge_verdict`` and ``judge_knows``
    (``true``/``false``), ``round_id``, ``game_id``, ``player_id``, and, from words files,
    ``senses`` (every dictionary sense, `` | ``-separated) and ``frequency_band`` (``""`` when
    unknown).
    """
    table = player_round_table(export)
    table = table.merge(
        export.rounds[["game_id", "round_id", "correct_definition"]], on=["game_id", "round_id"], how="left"
    ).merge(
        export.definitions[["game_id", "round_id", "player_id", "definition"]],
        on=["game_id", "round_id", "player_id"], how="left",
    )
    lookup: dict[tuple[str, str], tuple[str, str]] = {}
    for deck, words in export.words.items():
        for word, senses, band in zip(words["word"], words["senses"], words["frequency_band"], strict=True):
            lookup[(deck, word)] = (" | ".join(senses), band)
    found = [lookup.get((d, str(w).strip().lower()), ("", "")) for d, w in zip(table["deck"], table["word"], strict=True)]
    items = pd.DataFrame(
        {
            "item_id": table["item_id"],
            "game": "balderdash",
            "kind": "definition",
            "context": table["word"].astype(str),
            "reference": table["correct_definition"].astype(str),
            "candidate": table["definition"].astype(str),
            "player_model": table["model"],
            "deck": table["deck"],
            "history_type": table["history_type"],
            "filter_words": table["filter_words"],
            "judge_model": table["judge_model"],
            "judge_verdict": table["true_def"].map({True: "true", False: "false"}),
            "judge_knows": table["knows"].map({True: "true", False: "false"}),
            "round_id": table["round_id"].astype(int),
            "game_id": table["game_id"],
            "player_id": table["player_id"],
            "senses": [f[0] for f in found],
            "frequency_band": [f[1] for f in found],
        }
    )
    return validate_items(items, source=export.source or None)


def judge_labels(export: BalderdashExport) -> pd.DataFrame:
    """The judge's decisions as a contract labels table (see :func:`judge_labels_from_table`)."""
    return judge_labels_from_table(player_round_table(export))


def judge_labels_from_table(table: pd.DataFrame) -> pd.DataFrame:
    """The judge's decisions in a :func:`player_round_table` as a contract labels table.

    Two rows per definition, ``rater`` = the game's judge model, ``rater_type`` = ``judge``:
    ``question`` = ``reference`` with ``judge_decision`` and ``question`` = ``any_sense`` with
    ``llm_knows_one_of_the_defs`` (labels ``true``/``false``).
    """
    parts = []
    for question, column in (("reference", "true_def"), ("any_sense", "knows")):
        parts.append(
            pd.DataFrame(
                {
                    "item_id": table["item_id"],
                    "rater": table["judge_model"],
                    "rater_type": "judge",
                    "label": table[column].map({True: "true", False: "false"}),
                    "question": question,
                }
            )
        )
    return pd.concat(parts, ignore_index=True)
