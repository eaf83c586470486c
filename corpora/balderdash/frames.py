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


def build_frames(columns: RoundColumns, games: pd.DataFrame, players: pd.DataFrame):
    """``(rounds, definitions, player_rounds, round_rows)``, sorted by game, round, player."""
    r, d = columns.rounds, columns.definitions
    game_rank = natural_ranks(r["game_id"])
    round_id = np.asarray(r["round_id"], dtype=np.int64)
    round_order = np.lexsort((round_id, game_rank))
    new_row = np.empty(len(round_order), dtype=np.int64)
    new_row[round_order] = np.arange(len(round_order))
    def_round = new_row[np.asarray(d["round_row"], dtype=np.int64)]
    def_order = np.lexsort((natural_ranks(d["player_id"]), def_round))
    round_rows = def_round[def_order]
    rounds = pd.DataFrame(
        {
            "game_id": _text(r["game_id"]).take(round_order).reset_index(drop=True),
            "round_id": round_id[round_order],
            **{
                k: _text(r[k]).take(round_order).reset_index(drop=True)
                for k in ("word", "correct_definition", "pos")
            },
            "n_players": np.asarray(r["n_players"], dtype=np.int64)[round_order],
            "n_true": np.asarray(r["n_true"], dtype=np.int64)[round_order],
        }
    )
    definitions = pd.DataFrame(
        {
            "game_id": rounds["game_id"].take(round_rows).reset_index(drop=True),
            "round_id": rounds["round_id"].to_numpy()[round_rows],
            "player_id": _text(d["player_id"]).take(def_order).reset_index(drop=True),
            "definition": _text(d["definition"]).take(def_order).reset_index(drop=True),
            "judge_decision": np.asarray(d["judge_decision"], dtype=bool)[def_order],
            "llm_knows": np.asarray(d["llm_knows"], dtype=bool)[def_order],
            "vote": _text(d["vote"]).take(def_order).reset_index(drop=True),
            "score": np.asarray(d["score"], dtype=np.float64)[def_order],
        }
    )
    item_ids = _text(d["item_id"]).take(def_order).reset_index(drop=True)
    game_rows = _positions(r["game_id"], games["game_id"])[round_order][round_rows]
    player_rows = _positions(d["player_id"], players["player_id"])[def_order]
    table = _player_rounds(
        definitions, rounds, round_rows, (games, game_rows), (players, player_rows), item_ids
    )
    return rounds, definitions, table, round_rows


def _player_rounds(
    definitions: pd.DataFrame,
    rounds: pd.DataFrame,
    round_rows: np.ndarray,
    games: tuple[pd.DataFrame, np.ndarray],
    players: tuple[pd.DataFrame, np.ndarray],
    item_ids: pd.Series,
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
        "item_id": item_ids,
        "vote": definitions["vote"],
        "score": definitions["score"],
        "word": gather(rounds["word"], round_rows),
        **{k: gather(game_table[k], game_rows) for k in POINT_FIELDS},
    }
    return pd.DataFrame({k: out[k] for k in TABLE_COLUMNS})
