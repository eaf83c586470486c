"""Games and players documents parsed into typed tables (one-line errors); rounds in :mod:`.rounds`."""

from __future__ import annotations

import math
from collections.abc import Iterable

import pandas as pd

from wordplay_audit.corpora.balderdash.documents import ID_LIMIT, Doc
from wordplay_audit.corpora.balderdash.model import FILTER_WORDS, HISTORY_TYPES
from wordplay_audit.corpora.balderdash.words import deck_of

GAME_COLUMNS = [
    "game_id",
    "deck",
    "words_file",
    "filter_words",
    "history_type",
    "judge_model",
    "number_of_rounds",
    "receiving_vote_points",
    "correct_vote_points",
    "correct_definition_points",
    "random_seed",
    "game_description",
]
POINT_FIELDS = ("receiving_vote_points", "correct_vote_points", "correct_definition_points")
PLAYER_COLUMNS = ["player_id", "game_id", "name", "model", "final_score"]


def _choice(doc: Doc, name: str, allowed: tuple[str, ...], default: str | None = None) -> str:
    value = doc.text(name) if default is None else doc.text(name, default)
    if value not in allowed and value != default:
        raise doc.fail(f"field {name!r} must be one of {', '.join(allowed)}, got {value!r}")
    return value


def _game_row(doc: Doc) -> dict:
    filter_words = _choice(doc, "filter_words", FILTER_WORDS)
    history_type = _choice(doc, "history_type", HISTORY_TYPES, "unknown")
    words_file = doc.text("words_file")
    number_of_rounds = doc.integer("number_of_rounds")
    if number_of_rounds < 1:
        raise doc.fail(f"field 'number_of_rounds' must be at least 1, got {number_of_rounds}")
    return {
        "deck": deck_of(words_file),
        "words_file": words_file,
        "filter_words": filter_words,
        "history_type": history_type,
        "judge_model": doc.text("judge_llm_model_name"),
        "number_of_rounds": number_of_rounds,
        **{name: doc.number(name) for name in POINT_FIELDS},
        "random_seed": doc.data.get("random_seed"),
        "game_description": str(doc.data.get("game_description") or ""),
    }


def parse_games(source: str, docs: Iterable[tuple[int, dict]]) -> pd.DataFrame:
    """One row per game (see :class:`BalderdashExport`); point values must be finite numbers."""
    rows, seen = [], {}
    for line, data in docs:
        doc = Doc(source, line, data)
        game_id = doc.ident("game_id")
        if game_id in seen:
            raise doc.fail(f"game_id {game_id} appears twice (first on line {seen[game_id]})")
        seen[game_id] = line
        rows.append({"game_id": game_id, **_game_row(doc)})
    return pd.DataFrame(rows, columns=GAME_COLUMNS)


def _final_score(doc: Doc) -> float:
    if doc.data.get("score") is None:
        return math.nan
    return doc.number("score")


def _plain_player(data: dict, seen: dict[str, int], games: set[str]) -> tuple | None:
    """The row of a player of the usual shape (integer ids, a new player of a known game, a
    model name, an integer score or none), as the checks below give it; None for any other."""
    pid, gid, model = data.get("player_id"), data.get("game_id"), data.get("llm_name")
    score, name = data.get("score"), data.get("name")
    if not (
        type(pid) is int
        and type(gid) is int
        and -ID_LIMIT <= pid <= ID_LIMIT
        and -ID_LIMIT <= gid <= ID_LIMIT
        and type(model) is str
        and (score is None or (type(score) is int and -ID_LIMIT <= score <= ID_LIMIT))
        and (name is None or type(name) is str)
    ):
        return None
    player_id, game_id, model = str(pid), str(gid), model.strip()
    if player_id in seen or game_id not in games or not model:
        return None
    return (player_id, game_id, name or "", model, math.nan if score is None else float(score))


def parse_players(source: str, docs: Iterable[tuple[int, dict]], games: set[str]) -> pd.DataFrame:
    """One row per player; ``final_score`` is nan when absent, a finite number when present."""
    rows, seen = [], {}
    for line, data in docs:
        row = _plain_player(data, seen, games)
        if row is not None:
            seen[row[0]] = line
            rows.append(row)
            continue
        doc = Doc(source, line, data)
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
        name = str(data.get("name") or "")
        rows.append((player_id, game_id, name, model, _final_score(doc)))
    return pd.DataFrame(rows, columns=PLAYER_COLUMNS)
