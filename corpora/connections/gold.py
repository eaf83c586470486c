"""The gold side of the study: ``gold_data.json`` (games and their four groups), the linguists'
taxonomy (``game_with_knowledge_taxonomy.json``) and the flattened copy ``connections_gold.json``."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pandas as pd

from wordplay_audit.corpora.connections.data import (
    DIFFICULTY,
    FLAT_GOLD_FILE,
    GOLD_FILE,
    TAXONOMY_FILE,
    ConnectionsData,
    allwords_key,
    group_words,
    split_allwords,
)
from wordplay_audit.corpora.connections.jsonfile import load_json, refuse_duplicate_keys
from wordplay_audit.corpora.literal import maybe_literal, nfc, parse_groups
from wordplay_audit.errors import InputError, at_field


def json_type(value: Any) -> str:
    """The JSON name of a parsed value's type (``object``, ``array``, ``string`` …)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "an array"
    return "a number" if isinstance(value, int | float) else "a string"


def game_records(path: Path, data: Any, required: tuple[str, ...]) -> list[dict]:
    """Check that ``data`` is a list of objects with the ``required`` fields and a string
    ``allwords``; a key written twice in any object of a record is an error (which one would
    count?), :func:`~wordplay_audit.corpora.connections.jsonfile.refuse_duplicate_keys`."""
    if not isinstance(data, list):
        raise InputError(f"{path}: expected a JSON list of game records, got {json_type(data)}")
    for index, record in enumerate(data):
        if not isinstance(record, dict):
            raise InputError(f"{at_field(path, f'[{index}]')}expected an object, got {json_type(record)}")
        refuse_duplicate_keys(path, record, f"[{index}]")
        for name in required:
            if name not in record:
                raise InputError(f"{at_field(path, f'[{index}]')}missing field {name!r}")
        if not isinstance(record["allwords"], str):
            raise InputError(f"{at_field(path, f'[{index}].allwords')}expected a string")
    return data


def _flag(path: Path, index: int, value: Any) -> bool:
    value = maybe_literal(value)
    if value is None or value in (True, False):
        return bool(value)
    raise InputError(f"{at_field(path, f'[{index}].exclude')}expected true or false, got {value!r}")


def _gold_groups(path: Path, index: int, record: dict, key: str) -> list[dict]:
    categories = maybe_literal(record["categories"])
    where = at_field(path, f"[{index}].categories")
    if not isinstance(categories, dict):
        raise InputError(f"{where}expected an object of 4 named groups")
    if len(categories) != 4:
        raise InputError(f"{where}expected 4 named groups, got {len(categories)}")
    rows = []
    for gold_index, (name, value) in enumerate(categories.items()):
        group, from_dict = group_words(value)
        if group is None:
            raise InputError(f"{where}category {name!r}: expected a list of words")
        rows.append(
            {
                "game_key": key,
                "gold_index": gold_index,
                "difficulty": DIFFICULTY[gold_index],
                "gold_name": nfc(name),
                "words": tuple(group),
                "words_from_dict": from_dict,
            }
        )
    return rows


def _note_gold_quirks(data: ConnectionsData, index: int, key: str, rows: list[dict]) -> None:
    for row in rows:
        if row["words_from_dict"]:
            data.note(
                GOLD_FILE, 'gold group stored as {"Words": [...]}', f"record {index}: {row['gold_name']}", key
            )


def check_gold_game(path: Path, index: int, words: list[str], rows: list[dict]) -> None:
    """A game whose words are text is 16 distinct words in 4 gold groups of 4 distinct words
    each; anything else is an :class:`InputError` naming the record and the category (a group of
    3 and one of 5 would score as if both were groups, and a word in two groups twice)."""
    if len(words) != 16 or len(set(words)) != 16:
        distinct = f" ({len(set(words))} distinct)" if len(set(words)) != len(words) else ""
        raise InputError(
            f"{at_field(path, f'[{index}].allwords')}{len(words)} words{distinct}; expected the game's 16 "
            "distinct words"
        )
    where, game_words, holder = at_field(path, f"[{index}].categories"), set(words), {}
    for row in rows:
        name, group = row["gold_name"], row["words"]
        if len(group) != 4:
            raise InputError(
                f"{where}category {name!r} has {len(group)} words; a gold group is 4 distinct words of "
                "the game's 16"
            )
        for word in group:
            if word not in game_words:
                raise InputError(
                    f"{where}category {name!r} holds {word!r}, which is not one of the game's 16 words (allwords)"
                )
            if word in holder:
                other = holder[word]
                raise InputError(
                    f"{where}category {name!r} holds {word!r} twice"
                    if other == name
                    else f"{where}category {name!r} holds {word!r}, which category {other!r} holds too"
                )
            holder[word] = name


def read_gold(folder: Path, data: ConnectionsData) -> dict[str, int]:
    """Fill ``data.games`` and ``data.gold``; return game key → record index."""
    path = folder / GOLD_FILE
    records = game_records(path, load_json(path), ("allwords", "categories"))
    if not records:
        raise InputError(f"{path}: no games (an empty list)")
    game_rows, gold_rows = [], []
    index_of: dict[str, int] = {}
    for index, record in enumerate(records):
        key = allwords_key(record["allwords"])
        words = split_allwords(record["allwords"])
        text_words = any(ch.isalnum() for w in words for ch in w)
        excluded = _flag(path, index, record.get("exclude", False))
        if key in index_of:
            data.note(GOLD_FILE, "duplicate game", f"record {index} repeats record {index_of[key]}", key)
            continue
        index_of[key] = index
        if excluded:
            data.note(GOLD_FILE, "few-shot game marked exclude", f"record {index}", key)
        if not text_words:
            data.note(
                GOLD_FILE, "game whose words are not text", f"record {index}: {record['allwords'][:40]}", key
            )
        rows = _gold_groups(path, index, record, key)
        if text_words:
            check_gold_game(path, index, words, rows)
        _note_gold_quirks(data, index, key, rows)
        game_rows.append(
            {
                "game_index": index,
                "game_key": key,
                "allwords": record["allwords"],
                "excluded": excluded,
                "text_words": text_words,
                "scored": (not excluded) and text_words,
            }
        )
        gold_rows += rows
    if not any(row["scored"] for row in game_rows):
        raise InputError(f"{path}: no game to score (all {len(game_rows)} are excluded or not text)")
    data.games = pd.DataFrame(game_rows)
    data.gold = pd.DataFrame(gold_rows)
    return index_of


def _taxonomy_gold_index(
    data: ConnectionsData, position: dict, key: str, entry: dict, where: str
) -> tuple[int | None, list[str] | None]:
    """The gold group an annotation entry labels: by name, else by its words (counted)."""
    name = nfc(entry.get("Categories", ""))
    gold_names = {data.gold.at[position[(key, i)], "gold_name"]: i for i in range(4) if (key, i) in position}
    gold_index = gold_names.get(name)
    listed, _ = group_words(entry.get("Words in Category"))
    if gold_index is None and listed is not None:
        by_words = [
            i
            for i in range(4)
            if (key, i) in position and sorted(data.gold.at[position[(key, i)], "words"]) == sorted(listed)
        ]
        if len(by_words) == 1:
            gold_index = by_words[0]
            data.note(
                TAXONOMY_FILE, "category name differs from gold (matched by words)", f"{where}: {name}", key
            )
    if gold_index is None:
        data.note(TAXONOMY_FILE, "category matches no gold group", f"{where}: {name}", key)
    return gold_index, listed


def _label(entry: dict, field: str) -> str | None:
    return nfc(str(entry.get(field, "")).strip()) or None


def _apply_annotation(data: ConnectionsData, position: dict, key: str, notes: list, where: str) -> None:
    for entry in notes:
        if not isinstance(entry, dict):
            data.note(TAXONOMY_FILE, "annotation entry is not an object", where, key)
            continue
        gold_index, listed = _taxonomy_gold_index(data, position, key, entry, where)
        if gold_index is None:
            continue
        row = position[(key, gold_index)]
        if listed is not None and sorted(listed) != sorted(data.gold.at[row, "words"]):
            data.note(
                TAXONOMY_FILE, "words differ from gold", f"{where}: {nfc(entry.get('Categories', ''))}", key
            )
        data.gold.at[row, "knowledge_type"] = _label(entry, "Knowledge Type")
        data.gold.at[row, "complexity"] = _label(entry, "Complexity")
        data.gold.at[row, "based_on"] = _label(entry, "Based On")


def read_taxonomy(folder: Path, data: ConnectionsData, index_of: dict[str, int]) -> None:
    """Add the linguists' labels (``knowledge_type``, ``complexity``, ``based_on``) to ``data.gold``."""
    path = folder / TAXONOMY_FILE
    for column in ("knowledge_type", "complexity", "based_on"):
        data.gold[column] = None
    if not path.exists():
        data.note(TAXONOMY_FILE, "file absent")
        data.taxonomy_absent = True
        return
    records = game_records(path, load_json(path), ("allwords", "reasoning_annotation"))
    pairs = zip(data.gold["game_key"], data.gold["gold_index"], strict=True)
    position = {(k, i): n for n, (k, i) in enumerate(pairs)}
    for index, record in enumerate(records):
        key = allwords_key(record["allwords"])
        if key not in index_of:
            data.note(TAXONOMY_FILE, "game not in gold", f"record {index}", key)
            continue
        notes = maybe_literal(record["reasoning_annotation"])
        if not isinstance(notes, list):
            data.note(TAXONOMY_FILE, "annotation is not a list", f"record {index}", key)
            continue
        _apply_annotation(data, position, key, notes, f"record {index}")


def check_flat_gold(folder: Path, data: ConnectionsData) -> None:
    """Compare connections_gold.json (the gold flattened) with gold_data.json; count differences."""
    path = folder / FLAT_GOLD_FILE
    if not path.exists():
        return
    records = load_json(path)
    if not isinstance(records, list):
        raise InputError(f"{path}: expected a JSON list")
    refuse_duplicate_keys(path, records, "")
    by_name = Counter((row.gold_name, tuple(sorted(row.words))) for row in data.gold.itertuples(index=False))
    seen = Counter()
    for index, record in enumerate(records):
        if not isinstance(record, dict) or "Categories" not in record or "Words in Category" not in record:
            data.note(FLAT_GOLD_FILE, "record without Categories / Words in Category", f"record {index}")
            continue
        words, _ = group_words(record["Words in Category"])
        if words is None:
            words = [nfc(w) for g in parse_groups(str(record["Words in Category"]))[0] for w in g]
            data.note(
                FLAT_GOLD_FILE, "broken word list repaired", f"record {index}: {record['Words in Category']}"
            )
        seen[(nfc(record["Categories"]), tuple(sorted(words)))] += 1
    for entry in seen - by_name:
        data.note(FLAT_GOLD_FILE, "group differs from gold_data.json", f"{entry[0]}: {', '.join(entry[1])}")
