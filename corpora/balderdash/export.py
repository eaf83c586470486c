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
Any bad input raises :class:`~wordplay_audit.errors.InputError` naming the file, its line and the field.
"""

from __future__ import annotations

import gc
from collections.abc import Iterable
from pathlib import Path

import pandas as pd

from wordplay_audit.corpora.balderdash.columnar import read_rounds_columnar
from wordplay_audit.corpora.balderdash.documents import collection_path, iter_objects
from wordplay_audit.corpora.balderdash.frames import build_frames
from wordplay_audit.corpora.balderdash.model import BalderdashExport
from wordplay_audit.corpora.balderdash.parse import parse_games, parse_players
from wordplay_audit.corpora.balderdash.rounds import RoundColumns
from wordplay_audit.corpora.balderdash.words import collect_words
from wordplay_audit.errors import InputError


def read_export(
    folder: str | Path, *, words: Iterable[str | Path] | None = None, texts: bool = True
) -> BalderdashExport:
    """Read a folder of ``mongoexport`` files (games, players, rounds) and optional words files.

    A rounds file whose documents all have the plain shape is read into columns by DuckDB
    (:mod:`.columnar`); any other is streamed: each round is checked and appended to typed
    columns. The player-round table is gathered from those columns once
    (:func:`player_round_table` returns it; the items table is built from it on first use).

    Parameters
    ----------
    folder
        Folder holding ``games``, ``players`` and ``rounds`` with suffix ``.json`` or ``.jsonl``.
        CSV files in it whose stem equals a game's deck (``words_file`` stem) are read as words
        files.
    words
        Further words files or folders of them.
    texts
        False: the definition texts are checked as always but not kept — ``definitions`` has no
        ``definition`` column and ``items`` cannot be built (the metrics, recomputation and
        trend commands never show a text; ≈ 100 MB less at a million player-rounds).

    Returns
    -------
    BalderdashExport
        All tables, the contract's items, and counts of everything skipped.
    """
    folder = Path(folder)
    if folder.is_file():
        raise InputError(f"{folder}: is a file, expected a folder of games/players/rounds exports")
    if not folder.is_dir():
        raise InputError(f"{folder}: no such folder (expected a folder of games/players/rounds exports)")
    paths = {name: collection_path(folder, name) for name in ("games", "players", "rounds")}
    skipped: dict[str, int] = {}
    games = parse_games(str(paths["games"]), iter_objects(paths["games"]))
    if games.empty:
        raise InputError(f"{paths['games']}: holds no games")
    game_set = set(games["game_id"])
    players = parse_players(str(paths["players"]), iter_objects(paths["players"]), game_set)
    columns = read_rounds_columnar(paths["rounds"], players, game_set, texts=texts)
    if columns is None:
        columns = _read_rounds(paths["rounds"], players, game_set, skipped, texts)
    rounds, definitions, table, round_rows = build_frames(columns, games, players)
    del columns
    _count_games(games, rounds, skipped)
    decks = collect_words(folder, words, set(games["deck"]))
    if decks:  # words were given: a game whose deck has none gets no senses or band (counted)
        unmatched = int((~games["deck"].isin(list(decks))).sum())
        if unmatched:
            skipped["games_without_words_file"] = unmatched
    return BalderdashExport(
        games=games,
        players=players,
        rounds=rounds,
        definitions=definitions,
        words=decks,
        skipped=skipped,
        source=str(folder),
        player_rounds=table,
        round_rows=round_rows,
    )


def _read_rounds(
    path: Path, players: pd.DataFrame, game_set: set[str], skipped: dict[str, int], texts: bool
) -> RoundColumns:
    """The rounds file streamed into :class:`RoundColumns`.

    The cyclic garbage collector is paused meanwhile: reading makes millions of containers and
    no cycle, and each collection would walk every container still held (≈ 10 % of the time at
    1M player-rounds, measured once).
    """
    columns = RoundColumns(
        dict(zip(players["player_id"], players["game_id"], strict=True)), game_set, skipped, texts=texts
    )
    source = str(path)
    enabled = gc.isenabled()
    gc.disable()
    try:
        for line, data in iter_objects(path):
            columns.add(source, line, data)
    finally:
        if enabled:
            gc.enable()
    if not columns.round_records:
        raise InputError(f"{source}: holds no rounds")
    return columns


def _count_games(games: pd.DataFrame, rounds: pd.DataFrame, skipped: dict[str, int]) -> None:
    """Add ``n_rounds_found`` to ``games``; count games without rounds, incomplete games and
    games with more rounds than ``number_of_rounds``."""
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
    extra = int((games["n_rounds_found"] > games["number_of_rounds"]).sum())
    if extra:  # more rounds than planned: not "incomplete", but not the planned game either
        skipped["games_with_extra_rounds"] = extra
