"""The columns read from the rounds file turned into the export's tables, sorted, in one pass.

Rows are sorted by game, round and player, ids in natural order (numerically when every id of
the column is an integer, else as text). The player-round table is gathered by position from
the games, players and rounds tables (no joins on text keys): one array ``take`` per column.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from wordplay_audit.corpora.balderdash.model import PLAYER_ROUND_COLUMNS
from wordplay_audit.corpora.balderdash.rounds import RoundColumns

GAME_TEXT_FIELDS = ("history_type", "filter_words", "deck", "judge_model")
POINT_FIELDS = ("receiving_vote_points", "correct_vote_points", "correct_definition_points")
TABLE_COLUMNS = [*PLAYER_ROUND_COLUMNS, "vote", "score", "word", *POINT_FIELDS]


def natural_ranks(values: list[str]) -> np.ndarray:
    """Rank of every id in sort order: numeric when all ids are integers of ≤ 18 digits, else text."""
    codes, uniques = pd.factorize(np.asarray(values, dtype=object))
    texts = list(uniques)
    if all(t.lstrip("-").isdigit() and len(t) <= 18 for t in texts):
        order = np.argsort(np.asarray([int(t) for t in texts], dtype=np.int64), kind="stable")
    else:
        order = np.argsort(np.asarray(texts, dtype=object), kind="stable")
    rank = np.empty(len(texts), dtype=np.int64)
    rank[order] = np.arange(len(texts))
    return rank[codes]


def _text(values) -> pd.Series:
    return pd.Series(pd.array(np.asarray(values, dtype=object), dtype="str"))


def _positions(values: list[str], table_ids: pd.Series) -> np.ndarray:
    """Row of every value in ``table_ids`` (all values are known to be there)."""
    codes, uniques = pd.factorize(np.asarray(values, dtype=object))
    where = pd.Index(table_ids.astype(object)).get_indexer(uniques)
    return where[codes]


def _ordered(values, order: np.ndarray | None):
    """``values`` (array or Series) in ``order``; as they are when ``order`` is None."""
    if order is None:
        return values.reset_index(drop=True) if isinstance(values, pd.Series) else values
    if isinstance(values, pd.Series):
        return values.take(order).reset_index(drop=True)
    return values[order]


def _sort_order(*keys: np.ndarray) -> np.ndarray | None:
    """``np.lexsort(keys)``, or None when the rows are in that order already (the usual export)."""
    order = np.lexsort(keys)
    return None if bool(np.all(order == np.arange(len(order)))) else order


def build_frames(columns: RoundColumns, games: pd.DataFrame, players: pd.DataFrame):
    """``(rounds, definitions, player_rounds, round_rows)``, sorted by game, round, player."""
    r, d = columns.round_columns(), columns.definition_columns()
    round_id = np.asarray(r["round_id"], dtype=np.int64)
    round_order = _sort_order(round_id, natural_ranks(r["game_id"]))
    new_row = np.arange(len(round_id))
    if round_order is not None:
        new_row[round_order] = np.arange(len(round_order))
    def_round = new_row[d["round_row"]]
    def_order = _sort_order(natural_ranks(d["player_id"]), def_round)
    round_rows = _ordered(def_round, def_order)
    rounds = pd.DataFrame(
        {
            "game_id": _ordered(_text(r["game_id"]), round_order),
            "round_id": _ordered(round_id, round_order),
            **{k: _ordered(_text(r[k]), round_order) for k in ("word", "correct_definition", "pos")},
            "n_players": _ordered(np.asarray(r["n_players"], dtype=np.int64), round_order),
            "n_true": _ordered(np.asarray(r["n_true"], dtype=np.int64), round_order),
        }
    )
    definitions = pd.DataFrame(
        {
            "game_id": rounds["game_id"].take(round_rows).reset_index(drop=True),
            "round_id": rounds["round_id"].to_numpy()[round_rows],
            "player_id": _text(_ordered(np.asarray(d["player_id"], dtype=object), def_order)),
            "definition": _ordered(d["definition"], def_order),
            **{k: _ordered(d[k], def_order) for k in ("judge_decision", "llm_knows")},
            "vote": _text(_ordered(np.asarray(d["vote"], dtype=object), def_order)),
            "score": _ordered(d["score"], def_order),
        }
    )
    game_rows = _ordered(_positions(r["game_id"], games["game_id"]), round_order)[round_rows]
    player_rows = _ordered(_positions(d["player_id"], players["player_id"]), def_order)
    r.clear()
    d.clear()
    table = _player_rounds(definitions, rounds, round_rows, (games, game_rows), (players, player_rows))
    return rounds, definitions, table, round_rows


def _player_rounds(
    definitions: pd.DataFrame,
    rounds: pd.DataFrame,
    round_rows: np.ndarray,
    games: tuple[pd.DataFrame, np.ndarray],
    players: tuple[pd.DataFrame, np.ndarray],
) -> pd.DataFrame:
    """The player-round table; ``games``/``players`` are a table and each row's row in it."""

    def gather(column: pd.Series, rows: np.ndarray) -> pd.Series:
        return column.take(rows).reset_index(drop=True)

    (game_table, game_rows), (player_table, player_rows) = games, players
    out = {
        "game_id": definitions["game_id"],
        "round_id": definitions["round_id"],
        "player_id": definitions["player_id"],
        "model": gather(player_table["model"], player_rows),
        **{k: gather(game_table[k], game_rows) for k in GAME_TEXT_FIELDS},
        "knows": definitions["llm_knows"],
        "true_def": definitions["judge_decision"],
        "item_id": "bd:"
        + definitions["game_id"]
        + ":"
        + definitions["round_id"].astype("str")
        + ":"
        + definitions["player_id"],
        "vote": definitions["vote"],
        "score": definitions["score"],
        "word": gather(rounds["word"], round_rows),
        **{k: gather(game_table[k], game_rows) for k in POINT_FIELDS},
    }
    return pd.DataFrame({k: out[k] for k in TABLE_COLUMNS})
