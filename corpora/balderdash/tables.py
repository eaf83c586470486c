"""Tables derived from an export: one row per (game, round, player), items and judge labels."""

from __future__ import annotations

import pandas as pd

from wordplay_audit.corpora.balderdash.model import PLAYER_ROUND_COLUMNS, BalderdashExport
from wordplay_audit.corpora.contract import validate_items

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
        [
            "game_id",
            "history_type",
            "filter_words",
            "deck",
            "judge_model",
            "receiving_vote_points",
            "correct_vote_points",
            "correct_definition_points",
        ]
    ]
    out = d.merge(players, on="player_id", how="left").merge(games, on="game_id", how="left")
    out = out.merge(export.rounds[["game_id", "round_id", "word"]], on=["game_id", "round_id"], how="left")
    out["knows"] = out["llm_knows"].astype(bool)
    out["true_def"] = out["judge_decision"].astype(bool)
    out["round_id"] = out["round_id"].astype(int)
    out["item_id"] = [
        item_id_of(g, r, p) for g, r, p in zip(out["game_id"], out["round_id"], out["player_id"], strict=True)
    ]
    columns = list(PLAYER_ROUND_COLUMNS) + [
        "vote",
        "score",
        "word",
        "receiving_vote_points",
        "correct_vote_points",
        "correct_definition_points",
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
        on=["game_id", "round_id", "player_id"],
        how="left",
    )
    lookup: dict[tuple[str, str], tuple[str, str]] = {}
    for deck, words in export.words.items():
        for word, senses, band in zip(words["word"], words["senses"], words["frequency_band"], strict=True):
            lookup[(deck, word)] = (" | ".join(senses), band)
    found = [
        lookup.get((d, str(w).strip().lower()), ("", ""))
        for d, w in zip(table["deck"], table["word"], strict=True)
    ]
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
