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

from collections.abc import Iterable
from pathlib import Path

import pandas as pd

from wordplay_audit.corpora.balderdash.documents import read_collection
from wordplay_audit.corpora.balderdash.model import BalderdashExport
from wordplay_audit.corpora.balderdash.parse import parse_games, parse_players, parse_rounds
from wordplay_audit.corpora.balderdash.tables import build_items
from wordplay_audit.corpora.balderdash.words import collect_words
from wordplay_audit.errors import InputError


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
    g_source, g_docs = read_collection(folder, "games")
    p_source, p_docs = read_collection(folder, "players")
    r_source, r_docs = read_collection(folder, "rounds")
    games = parse_games(g_source, g_docs)
    if games.empty:
        raise InputError(f"{g_source}: holds no games")
    game_set = set(games["game_id"])
    players = parse_players(p_source, p_docs, game_set)
    player_game = dict(zip(players["player_id"], players["game_id"], strict=True))
    rounds, definitions = parse_rounds(r_source, r_docs, player_game, game_set, skipped)
    if rounds.empty:
        raise InputError(f"{r_source}: holds no rounds")
    rounds = rounds.sort_values(["game_id", "round_id"], key=_natural_key).reset_index(drop=True)
    definitions = definitions.sort_values(["game_id", "round_id", "player_id"], key=_natural_key).reset_index(
        drop=True
    )
    found = rounds.groupby("game_id").size()
    games["n_rounds_found"] = games["game_id"].map(found).fillna(0).astype(int)
    games_without_rounds = int((games["n_rounds_found"] == 0).sum())
    if games_without_rounds:
        skipped["games_without_rounds"] = games_without_rounds
    incomplete = int(
        ((games["n_rounds_found"] < games["number_of_rounds"]) & (games["n_rounds_found"] > 0)).sum()
    )
    if incomplete:
        skipped["incomplete_games"] = incomplete
    words_tables = collect_words(folder, words, set(games["deck"]))
    export = BalderdashExport(
        games=games,
        players=players,
        rounds=rounds,
        definitions=definitions,
        items=pd.DataFrame(),
        words=words_tables,
        skipped=skipped,
        source=str(folder),
    )
    export.items = build_items(export)
    return export


def _natural_key(values: pd.Series) -> pd.Series:
    """Sort ids numerically when they are all integers, else as text."""
    if values.dtype == object and values.map(lambda v: isinstance(v, str) and v.lstrip("-").isdigit()).all():
        return values.astype(int)
    return values
