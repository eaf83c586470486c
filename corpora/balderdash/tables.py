"""Tables derived from an export: one row per (game, round, player), items and judge labels."""

from __future__ import annotations

import numpy as np
import pandas as pd

from wordplay_audit.corpora.balderdash.frames import (
    CATEGORY_COLUMNS,
    GAME_TEXT_FIELDS,
    POINT_FIELDS,
    TABLE_COLUMNS,
    as_category,
)
from wordplay_audit.corpora.balderdash.model import BalderdashExport
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
    point values, which the metrics and score recomputation use. Rows follow ``definitions``.
    ``model``, ``history_type``, ``filter_words``, ``deck``, ``judge_model`` and ``word`` are
    categoricals (:data:`~.frames.CATEGORY_COLUMNS`, categories in text order); group them with
    pandas ≥ 3's default ``observed=True``.

    :func:`read_export` builds this table once while reading; it is returned (a copy that
    shares memory until written to). An export put together by hand gets it joined from its tables.
    """
    if export.player_rounds is not None:
        return export.player_rounds.copy(deep=False)
    return _joined_table(export)


def _joined_table(export: BalderdashExport) -> pd.DataFrame:
    d = export.definitions
    players = export.players[["player_id", "model"]]
    games = export.games[["game_id", *GAME_TEXT_FIELDS, *POINT_FIELDS]]
    out = d.merge(players, on="player_id", how="left").merge(games, on="game_id", how="left")
    out = out.merge(export.rounds[["game_id", "round_id", "word"]], on=["game_id", "round_id"], how="left")
    out["knows"] = out["llm_knows"].astype(bool)
    out["true_def"] = out["judge_decision"].astype(bool)
    out["round_id"] = out["round_id"].astype(int)
    out["item_id"] = "bd:" + out["game_id"].astype(str) + ":" + out["round_id"].astype(str) + ":"
    out["item_id"] = out["item_id"] + out["player_id"].astype(str)
    out = out[TABLE_COLUMNS].reset_index(drop=True)
    for name in CATEGORY_COLUMNS:
        out[name] = as_category(out[name])
    return out


def _texts_of_rows(export: BalderdashExport, table: pd.DataFrame) -> tuple[pd.Series, pd.Series]:
    """The reference (round) and candidate (definition) text of every row of ``table``."""
    if export.player_rounds is not None and export.round_rows is not None:
        reference = export.rounds["correct_definition"].take(export.round_rows)
        return reference.reset_index(drop=True), export.definitions["definition"]
    keys = ["game_id", "round_id", "player_id"]
    joined = table[keys].merge(
        export.rounds[["game_id", "round_id", "correct_definition"]], on=["game_id", "round_id"], how="left"
    )
    joined = joined.merge(export.definitions[[*keys, "definition"]], on=keys, how="left")
    return joined["correct_definition"], joined["definition"]


def _senses_and_bands(export: BalderdashExport, table: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """Per row, the word's senses (`` | ``-joined) and frequency band from the deck's words file."""
    lookup: dict[tuple[str, str], tuple[str, str]] = {}
    for deck, words in export.words.items():
        for word, senses, band in zip(words["word"], words["senses"], words["frequency_band"], strict=True):
            lookup[(deck, word)] = (" | ".join(senses), band)
    codes, pairs = pd.factorize(pd.MultiIndex.from_arrays([table["deck"], table["word"]]))
    found = [lookup.get((d, str(w).strip().lower()), ("", "")) for d, w in pairs]
    senses = np.asarray([f[0] for f in found] or [""], dtype=object)[codes]
    bands = np.asarray([f[1] for f in found] or [""], dtype=object)[codes]
    return senses, bands


def build_items(export: BalderdashExport) -> pd.DataFrame:
    """The contract's items table: one ``definition`` item per (game, round, player).

    ``context`` is the word, ``reference`` the dictionary definition shown in the game,
    ``candidate`` the player's definition; strata columns ``player_model``, ``deck``,
    ``history_type``, ``filter_words``, ``judge_model``, ``judge_verdict`` and ``judge_knows``
    (``true``/``false``), ``round_id``, ``game_id``, ``player_id``, and, from words files,
    ``senses`` (every dictionary sense, `` | ``-separated) and ``frequency_band`` (``""`` when
    unknown). Strata are plain text, as every reader's items are (the table's categoricals are
    not carried over: items of several games are concatenated into one campaign).
    """
    if "definition" not in export.definitions.columns:
        raise ValueError("the export was read with texts=False: its items need the definition texts")
    table = player_round_table(export)
    reference, candidate = _texts_of_rows(export, table)
    senses, bands = _senses_and_bands(export, table)
    verdict = {True: "true", False: "false"}
    items = pd.DataFrame(
        {
            "item_id": table["item_id"],
            "game": "balderdash",
            "kind": "definition",
            "context": table["word"].astype(str),
            "reference": reference.astype(str),
            "candidate": candidate.astype(str),
            "player_model": table["model"].astype("str"),
            "deck": table["deck"].astype("str"),
            "history_type": table["history_type"].astype("str"),
            "filter_words": table["filter_words"].astype("str"),
            "judge_model": table["judge_model"].astype("str"),
            "judge_verdict": table["true_def"].map(verdict),
            "judge_knows": table["knows"].map(verdict),
            "round_id": table["round_id"].astype(int),
            "game_id": table["game_id"],
            "player_id": table["player_id"],
            "senses": pd.array(senses, dtype="str"),
            "frequency_band": pd.array(bands, dtype="str"),
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
