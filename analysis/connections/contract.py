"""The study's scored groups and taxonomy as items and labels of the data contract (docs/DATA.md)."""

from __future__ import annotations

import pandas as pd

from wordplay_audit.corpora.connections import ConnectionsData, category_item_id, taxonomy_item_id
from wordplay_audit.corpora.contract import validate_items, validate_labels

LABEL_COLUMNS = ["item_id", "rater", "rater_type", "label"]


def _category_items(data: ConnectionsData, matched: pd.DataFrame, scored: set) -> tuple[list, list]:
    gold = data.gold.set_index(["game_key", "gold_index"])
    items, labels = [], []
    for row in matched.itertuples(index=False):
        if row.game_key not in scored or row.model_name is None:
            continue
        g = gold.loc[(row.game_key, row.gold_index)]
        item_id = category_item_id(row.game_key, row.model, row.gold_index)
        items.append(
            {
                "item_id": item_id,
                "game": "connections",
                "kind": "category_name",
                "context": ", ".join(g["words"]),
                "reference": g["gold_name"],
                "candidate": row.model_name,
                "player_model": row.model,
                "difficulty": g["difficulty"],
                "knowledge_type": g["knowledge_type"],
            }
        )
        if row.decision in ("Yes", "No"):
            label = "true" if row.decision == "Yes" else "false"
            labels.append({"item_id": item_id, "rater": "study-judge", "rater_type": "human", "label": label})
    return items, labels


def _game_words(data: ConnectionsData) -> dict[str, str]:
    """Each game's 16 words in alphabetical order (the gold order would give the grouping away)."""
    words: dict[str, list[str]] = {}
    for row in data.gold.itertuples(index=False):
        words.setdefault(row.game_key, []).extend(row.words)
    return {key: ", ".join(sorted(w)) for key, w in words.items()}


def _taxonomy_items(data: ConnectionsData, scored: set) -> tuple[list, list]:
    items, labels = [], []
    game_words = _game_words(data)
    for row in data.gold.itertuples(index=False):
        if row.game_key not in scored:
            continue
        item_id = taxonomy_item_id(row.game_key, row.gold_index)
        items.append(
            {
                "item_id": item_id,
                "game": "connections",
                "kind": "knowledge_type",
                "context": ", ".join(row.words),
                "game_words": game_words[row.game_key],
                "reference": row.gold_name,
                "candidate": "",
                "player_model": "",
                "difficulty": row.difficulty,
                "knowledge_type": row.knowledge_type,
            }
        )
        if row.knowledge_type:
            labels.append(
                {
                    "item_id": item_id,
                    "rater": "linguists-majority",
                    "rater_type": "human",
                    "label": row.knowledge_type,
                }
            )
    return items, labels


def to_contract(data: ConnectionsData, matched: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Items and labels in the contract.

    ``matched`` comes from :func:`~wordplay_audit.analysis.connections.match_groups` (one row
    per model, game and gold group, with ``model_name`` of the model group that reproduced it,
    or None). A category-name item exists for each gold group a model reproduced exactly (only
    those had a name to judge); its human label is the released Yes/No (``true``/``false``).
    Taxonomy items carry the game's 16 words (``game_words``, alphabetical) and the linguists'
    majority label as a human label from rater ``linguists-majority``.
    """
    scored = set(data.games.loc[data.games["scored"], "game_key"])
    items, labels = _category_items(data, matched, scored)
    more_items, more_labels = _taxonomy_items(data, scored)
    items_frame = validate_items(pd.DataFrame(items + more_items), source="connections")
    labels_frame = validate_labels(
        pd.DataFrame(labels + more_labels, columns=LABEL_COLUMNS), items=items_frame, source="connections"
    )
    return items_frame, labels_frame
