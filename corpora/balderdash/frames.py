"""The columns read from the rounds file turned into the export's tables, sorted, in one pass.

Rows are sorted by game, round and player: ids as text, round numbers as numbers. The player-round table is gathered by position from
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
CATEGORY_COLUMNS = ("model", *GAME_TEXT_FIELDS, "word")
"""Text columns of the player-round table with few distinct values, kept as categoricals
(categories in text order): ≈ 100 MB less at a million rows than one string per row."""


def as_category(values: pd.Series) -> pd.Series:
    """``values`` as a categorical whose categories are its distinct texts in sorted order."""
    if isinstance(values.dtype, pd.CategoricalDtype):
        return values
    codes, uniques = pd.factorize(values, sort=True)
    return pd.Series(
        pd.Categorical.from_codes(codes, categories=uniques), index=values.index, name=values.name
    )


def factorize(values: list[str]) -> tuple[np.ndarray, list[str]]:
    """``(codes, distinct values)`` of a list of ids."""
    codes, uniques = pd.factorize(np.asarray(values, dtype=object))
    return codes, list(uniques)


def text_ranks(codes: np.ndarray, uniques: list[str]) -> np.ndarray:
    """Rank of every id in text order ("10" before "9"), the order of the tables so far.

    Ids are sorted as text, as the reader has done with pandas ≥ 3 (its numeric sort applied
    only to object columns); numbers that depend on row order (resampled intervals) stay the same.
    """
    order = np.argsort(np.asarray(uniques, dtype=object), kind="stable")
    rank = np.empty(len(uniques), dtype=np.int64)
    rank[order] = np.arange(len(uniques))
    return rank[codes]


def _text(values) -> pd.Series:
    return pd.Series(pd.array(np.asarray(values, dtype=object), dtype="str"))


def _positions(codes: np.ndarray, uniques: list[str], table_ids: pd.Series) -> np.ndarray:
    """Row in ``table_ids`` of every id (all ids are known to be there)."""
    return pd.Index(table_ids.astype(object)).get_indexer(uniques)[codes]


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
    round_id = np.asarray(r.pop("round_id"), dtype=np.int64)
    game_codes, game_ids = factorize(r.pop("game_id"))
    round_order = _sort_order(round_id, text_ranks(game_codes, game_ids))
    new_row = np.arange(len(round_id))
    if round_order is not None:
        new_row[round_order] = np.arange(len(round_order))
    def_round = new_row[d.pop("round_row")]
    player_codes, player_ids = factorize(d.pop("player_id"))
    def_order = _sort_order(text_ranks(player_codes, player_ids), def_round)
    round_rows = _ordered(def_round, def_order)
    game_rows = _ordered(_positions(game_codes, game_ids, games["game_id"]), round_order)[round_rows]
    player_rows = _ordered(_positions(player_codes, player_ids, players["player_id"]), def_order)
    rounds = pd.DataFrame(
        {
            "game_id": _ordered(_text(np.asarray(game_ids, dtype=object)[game_codes]), round_order),
            "round_id": _ordered(round_id, round_order),
            **{k: _ordered(_text(r.pop(k)), round_order) for k in ("word", "correct_definition", "pos")},
            **{
                k: _ordered(np.asarray(r.pop(k), dtype=np.int64), round_order)
                for k in ("n_players", "n_true")
            },
        }
    )
    definitions = pd.DataFrame(
        {
            "game_id": rounds["game_id"].take(round_rows).reset_index(drop=True),
            "round_id": rounds["round_id"].to_numpy()[round_rows],
            "player_id": _text(_ordered(np.asarray(player_ids, dtype=object)[player_codes], def_order)),
            **({"definition": _ordered(d.pop("definition"), def_order)} if "definition" in d else {}),
            **{k: _ordered(d.pop(k), def_order) for k in ("judge_decision", "llm_knows")},
            "vote": _text(_ordered(np.asarray(d.pop("vote"), dtype=object), def_order)),
            "score": _ordered(d.pop("score"), def_order),
        }
    )
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
        if column.name in CATEGORY_COLUMNS:  # the small table's column first: codes are taken
            column = as_category(column)
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
