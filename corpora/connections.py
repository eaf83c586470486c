"""Reader for the released data of the NYT Connections study (Samadarshi et al., 2024).

``read_connections(folder)`` turns a folder laid out like ``shared/corpora/connections`` into
tidy DataFrames (:class:`ConnectionsData`) and the project's data contract (items + labels).
Every quirk of the real files is handled and counted in ``data.quirks`` (file, quirk → count);
nothing is dropped silently.

Matching of words: a word is compared after stripping outer white space, case-sensitively, as
the study's own scorer did (see docs/CONNECTIONS.md). Words are kept as written; scoring in
``analysis.connections`` decides how to compare them.
"""

from __future__ import annotations

import csv
import difflib
import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
from wordplay_audit.corpora.contract import game_key, validate_items, validate_labels
from wordplay_audit.corpora.literal import maybe_literal, parse_groups

from wordplay_audit.errors import InputError

DIFFICULTY = ("yellow", "green", "blue", "purple")
GOLD_FILE = "gold_data.json"
TAXONOMY_FILE = "game_with_knowledge_taxonomy.json"
FLAT_GOLD_FILE = "connections_gold.json"
HUMAN_LEVELS = ("novice", "expert")
NOT_MODEL_FILES = {GOLD_FILE, TAXONOMY_FILE, FLAT_GOLD_FILE, "novice.json", "expert.json"}
# display names used in the paper, by file stem
MODEL_NAMES = {
    "gemini1.5pro": "Gemini 1.5 Pro",
    "claude3.5sonnet": "Claude 3.5 Sonnet",
    "gpt4o": "GPT-4o",
    "llama3.1405B": "Llama 3.1 405B",
    "mistral2large": "Mistral Large 2",
    "gpt_strawberry": "GPT strawberry (not in the paper)",
}


@dataclass
class ConnectionsData:
    """Everything read from one Connections folder.

    games        one row per game: ``game_index`` (position in gold_data.json), ``game_key``,
                 ``allwords``, ``excluded`` (few-shot example), ``text_words`` (False when the
                 words are not text, e.g. all ``?``), ``scored`` (neither).
    gold         one row per gold group: ``game_key``, ``gold_index`` 0–3 (yellow→purple),
                 ``difficulty``, ``gold_name``, ``words`` (tuple), ``words_from_dict`` (stored as
                 ``{"Words": [...]}``), and the taxonomy labels ``knowledge_type``,
                 ``complexity``, ``based_on`` when known.
    answers      one row per model group: ``model``, ``game_key``, ``group_index``,
                 ``model_name``, ``words`` (tuple).
    answer_meta  one row per model and game: ``model``, ``game_key``, ``game_index``,
                 ``malformed``, ``stored_score``, ``status`` (``ok`` or why no groups were read).
    judgements   one row per human name judgement: ``model``, ``game_key``, ``model_name``,
                 ``gold_name``, ``decision`` (``Yes``/``No``).
    human_answers one row per human player's group: ``level``, ``player``, ``row``,
                 ``game_number``, ``game_key`` (None when unmatched), ``group_index``, ``words``.
    human_stored  the stored scores of novice.json / expert.json: ``level``, ``game_key``,
                 ``stored_score``.
    quirks       (file, quirk) → count of every irregularity met.
    """

    folder: Path
    games: pd.DataFrame
    gold: pd.DataFrame
    answers: pd.DataFrame
    answer_meta: pd.DataFrame
    judgements: pd.DataFrame
    human_answers: pd.DataFrame
    human_stored: pd.DataFrame
    quirks: Counter = field(default_factory=Counter)
    notes: list[dict[str, Any]] = field(default_factory=list)

    @property
    def models(self) -> list[str]:
        return sorted(self.answer_meta["model"].unique().tolist())

    def note(self, file: str, quirk: str, detail: str = "", game_key: str | None = None) -> None:
        """Count a quirk and keep a short note of where it was."""
        self.quirks[(file, quirk)] += 1
        self.notes.append({"file": file, "quirk": quirk, "game_key": game_key, "detail": detail})


def _load_json(path: Path) -> Any:
    if not path.exists():
        raise InputError(f"{path}: no such file")
    try:
        with path.open(encoding="utf-8") as handle:
            return json.load(handle)
    except json.JSONDecodeError as exc:
        raise InputError(f"{path}: line {exc.lineno}: not valid JSON ({exc.msg})") from None
    except UnicodeDecodeError:
        raise InputError(f"{path}: not UTF-8 text") from None


def _records(path: Path, data: Any, required: tuple[str, ...]) -> list[dict]:
    if not isinstance(data, list):
        raise InputError(f"{path}: expected a JSON list of game records, got {type(data).__name__}")
    for index, record in enumerate(data):
        if not isinstance(record, dict):
            raise InputError(f"{path}: record {index}: expected an object, got {type(record).__name__}")
        for name in required:
            if name not in record:
                raise InputError(f"{path}: record {index}: missing field {name!r}")
        if not isinstance(record["allwords"], str):
            raise InputError(f"{path}: record {index}: field 'allwords' must be a string")
    return data


def split_allwords(allwords: str) -> list[str]:
    """Split the ``allwords`` string on ``", "`` (a bare comma can sit inside a word: ``20,000``)."""
    return [w.strip() for w in allwords.split(", ")]


def _allwords_key(allwords: str) -> str:
    return game_key(split_allwords(allwords))


def _group_words(value: Any) -> tuple[list[str] | None, bool]:
    """Words of a gold or model group: a list, or ``{"Words": [...]}``. (None, _) if neither."""
    value = maybe_literal(value)
    if isinstance(value, dict) and isinstance(value.get("Words"), list):
        return [str(w).strip() for w in value["Words"]], True
    if isinstance(value, list | tuple):
        return [str(w).strip() for w in value], False
    return None, False


def _read_gold(folder: Path, data: ConnectionsData) -> dict[str, int]:
    path = folder / GOLD_FILE
    records = _records(path, _load_json(path), ("allwords", "categories"))
    game_rows, gold_rows = [], []
    index_of: dict[str, int] = {}
    for index, record in enumerate(records):
        key = _allwords_key(record["allwords"])
        words = split_allwords(record["allwords"])
        text_words = any(ch.isalnum() for w in words for ch in w)
        excluded = bool(maybe_literal(record.get("exclude", False)))
        if key in index_of:
            data.note(GOLD_FILE, "duplicate game", f"record {index} repeats record {index_of[key]}", key)
            continue
        index_of[key] = index
        if excluded:
            data.note(GOLD_FILE, "few-shot game marked exclude", f"record {index}", key)
        if not text_words:
            data.note(GOLD_FILE, "game whose words are not text", f"record {index}: {record['allwords'][:40]}", key)
        categories = maybe_literal(record["categories"])
        if not isinstance(categories, dict) or len(categories) != 4:
            raise InputError(f"{path}: record {index}: field 'categories' must hold 4 named groups")
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
        for gold_index, (name, value) in enumerate(categories.items()):
            group, from_dict = _group_words(value)
            if group is None:
                raise InputError(f"{path}: record {index}: category {name!r}: expected a list of words")
            if from_dict:
                data.note(GOLD_FILE, 'gold group stored as {"Words": [...]}', f"record {index}: {name}", key)
            gold_rows.append(
                {
                    "game_key": key,
                    "gold_index": gold_index,
                    "difficulty": DIFFICULTY[gold_index],
                    "gold_name": str(name),
                    "words": tuple(group),
                    "words_from_dict": from_dict,
                }
            )
        if sorted(w for r in gold_rows[-4:] for w in r["words"]) != sorted(words):
            data.note(GOLD_FILE, "allwords differ from the words of the categories", f"record {index}", key)
    data.games = pd.DataFrame(game_rows)
    data.gold = pd.DataFrame(gold_rows)
    return index_of


def _read_taxonomy(folder: Path, data: ConnectionsData, index_of: dict[str, int]) -> None:
    path = folder / TAXONOMY_FILE
    for column in ("knowledge_type", "complexity", "based_on"):
        data.gold[column] = None
    if not path.exists():
        data.note(TAXONOMY_FILE, "file absent")
        return
    records = _records(path, _load_json(path), ("allwords", "reasoning_annotation"))
    position = {(k, i): n for n, (k, i) in enumerate(zip(data.gold["game_key"], data.gold["gold_index"], strict=True))}
    for index, record in enumerate(records):
        key = _allwords_key(record["allwords"])
        if key not in index_of:
            data.note(TAXONOMY_FILE, "game not in gold", f"record {index}", key)
            continue
        notes = maybe_literal(record["reasoning_annotation"])
        if not isinstance(notes, list):
            data.note(TAXONOMY_FILE, "annotation is not a list", f"record {index}", key)
            continue
        gold_names = {
            data.gold.at[position[(key, i)], "gold_name"]: i for i in range(4) if (key, i) in position
        }
        for entry in notes:
            if not isinstance(entry, dict):
                data.note(TAXONOMY_FILE, "annotation entry is not an object", f"record {index}", key)
                continue
            name = str(entry.get("Categories", ""))
            gold_index = gold_names.get(name)
            listed, _ = _group_words(entry.get("Words in Category"))
            if gold_index is None and listed is not None:
                by_words = [
                    i for i in range(4)
                    if (key, i) in position and sorted(data.gold.at[position[(key, i)], "words"]) == sorted(listed)
                ]
                if len(by_words) == 1:
                    gold_index = by_words[0]
                    data.note(TAXONOMY_FILE, "category name differs from gold (matched by words)", f"record {index}: {name}", key)
            if gold_index is None:
                data.note(TAXONOMY_FILE, "category matches no gold group", f"record {index}: {name}", key)
                continue
            row = position[(key, gold_index)]
            if listed is not None and sorted(listed) != sorted(data.gold.at[row, "words"]):
                data.note(TAXONOMY_FILE, "words differ from gold", f"record {index}: {name}", key)
            data.gold.at[row, "knowledge_type"] = str(entry.get("Knowledge Type", "")).strip() or None
            data.gold.at[row, "complexity"] = str(entry.get("Complexity", "")).strip() or None
            data.gold.at[row, "based_on"] = str(entry.get("Based On", "")).strip() or None


def _check_flat_gold(folder: Path, data: ConnectionsData) -> None:
    """Compare connections_gold.json (the gold flattened) with gold_data.json; count differences."""
    path = folder / FLAT_GOLD_FILE
    if not path.exists():
        return
    records = _load_json(path)
    if not isinstance(records, list):
        raise InputError(f"{path}: expected a JSON list")
    by_name = Counter()
    for _, row in data.gold.iterrows():
        by_name[(row["gold_name"], tuple(sorted(row["words"])))] += 1
    seen = Counter()
    for index, record in enumerate(records):
        if not isinstance(record, dict) or "Categories" not in record or "Words in Category" not in record:
            data.note(FLAT_GOLD_FILE, "record without Categories / Words in Category", f"record {index}")
            continue
        words, _ = _group_words(record["Words in Category"])
        if words is None:
            words = [w for g in parse_groups(str(record["Words in Category"]))[0] for w in g]
            data.note(FLAT_GOLD_FILE, "broken word list repaired", f"record {index}: {record['Words in Category']}")
        seen[(str(record["Categories"]), tuple(sorted(words)))] += 1
    for entry in seen - by_name:
        data.note(FLAT_GOLD_FILE, "group differs from gold_data.json", f"{entry[0]}: {', '.join(entry[1])}")


def _read_model(path: Path, data: ConnectionsData, index_of: dict[str, int]) -> None:
    model = path.stem
    records = _records(path, _load_json(path), ("allwords", "categories"))
    meta_rows, answer_rows, judgement_rows = [], [], []
    seen: set[str] = set()
    stringly = 0
    excluded = dict(zip(data.games["game_key"], data.games["excluded"], strict=True))
    for index, record in enumerate(records):
        key = _allwords_key(record["allwords"])
        if key not in index_of:
            data.note(path.name, "game not in gold", f"record {index}", key)
            continue
        if key in seen:
            data.note(path.name, "duplicate game", f"record {index}", key)
            continue
        seen.add(key)
        raw = {k: record.get(k) for k in ("categories", "malformed", "score", "categorical_score")}
        if any(isinstance(v, str) and v.strip()[:1] in ("[", "{") for v in raw.values()) or isinstance(
            raw["malformed"], str
        ):
            stringly += 1
        categories = maybe_literal(raw["categories"])
        malformed = maybe_literal(raw["malformed"])
        stored = maybe_literal(raw["score"])
        judged = maybe_literal(raw["categorical_score"])
        if malformed is True:
            data.note(path.name, "answer flagged malformed", f"record {index}", key)
        if record.get("score") is None and not excluded[key]:
            data.note(path.name, "record without stored score", f"record {index}", key)
        status = "ok"
        if not isinstance(categories, dict):
            status = "categories is not a dict"
            data.note(path.name, "answer categories is not a dict", f"record {index}: {str(categories)[:30]!r}", key)
        else:
            for group_index, (name, value) in enumerate(categories.items()):
                words, _ = _group_words(value)
                if words is None:
                    data.note(path.name, "model group is not a word list", f"record {index}: {name}", key)
                    continue
                answer_rows.append(
                    {
                        "model": model,
                        "game_key": key,
                        "group_index": group_index,
                        "model_name": str(name),
                        "words": tuple(words),
                    }
                )
        if judged is not None and not isinstance(judged, dict):
            data.note(path.name, "categorical_score is not a dict", f"record {index}", key)
            judged = None
        for pair, decision in (judged or {}).items():
            model_name, sep, gold_name = str(pair).partition("_#_")
            if not sep:
                data.note(path.name, "judgement key without _#_", f"record {index}: {pair}", key)
                continue
            decision_text = str(decision).strip()
            if decision_text not in ("Yes", "No"):
                data.note(path.name, "judgement neither Yes nor No", f"record {index}: {decision!r}", key)
                continue
            judgement_rows.append(
                {
                    "model": model,
                    "game_key": key,
                    "model_name": model_name,
                    "gold_name": gold_name,
                    "decision": decision_text,
                }
            )
        meta_rows.append(
            {
                "model": model,
                "game_key": key,
                "game_index": index_of[key],
                "record_index": index,
                "malformed": bool(malformed is True),
                "stored_score": int(stored) if isinstance(stored, int | float) else None,
                "status": status,
            }
        )
    if stringly:
        data.note(path.name, "fields stored as strings holding Python literals", f"{stringly} records")
    missing = set(index_of) - seen
    for key in missing:
        data.note(path.name, "game without an answer", "", key)
    data.answer_meta = pd.concat([data.answer_meta, pd.DataFrame(meta_rows)], ignore_index=True)
    data.answers = pd.concat([data.answers, pd.DataFrame(answer_rows)], ignore_index=True)
    data.judgements = pd.concat([data.judgements, pd.DataFrame(judgement_rows)], ignore_index=True)


def _match_game(tokens: list[str], vocab: dict[str, set[str]]) -> tuple[str | None, int]:
    """The game whose words the tokens hit most often (exact hits); (None, 0) if no hit."""
    best, best_hits = None, 0
    token_set = set(tokens)
    for key, words in vocab.items():
        hits = len(token_set & words)
        if hits > best_hits:
            best, best_hits = key, hits
    return best, best_hits


def _split_joined(group: list[str], vocab: set[str]) -> list[str]:
    """Upper-cased words of a group; a quoted string holding several comma-separated words
    (``'COUGH, CORN, MAPLE'``) is split when it is not itself a game word."""
    words: list[str] = []
    for word in group:
        word = word.strip().upper()
        if word not in vocab and "," in word:
            words.extend(p.strip() for p in word.split(",") if p.strip())
        else:
            words.append(word)
    return words


def _read_humans(folder: Path, data: ConnectionsData) -> None:
    vocab = {
        key: {w.upper() for ws in group["words"] for w in ws}
        for key, group in data.gold.groupby("game_key", sort=False)
    }
    rows, stored_rows = [], []
    for level in HUMAN_LEVELS:
        stored_path = folder / f"{level}.json"
        if stored_path.exists():
            for index, record in enumerate(_records(stored_path, _load_json(stored_path), ("allwords",))):
                key = _allwords_key(record["allwords"])
                if key not in vocab:
                    data.note(stored_path.name, "game not in gold", f"record {index}", key)
                    continue
                stored = maybe_literal(record.get("score"))
                stored_rows.append(
                    {"level": level, "game_key": key, "stored_score": int(stored) if isinstance(stored, int) else None}
                )
        raw_path = folder / f"{level}_raw.csv"
        if not raw_path.exists():
            data.note(raw_path.name, "file absent")
            continue
        with raw_path.open(encoding="utf-8", newline="") as handle:
            reader = csv.DictReader(handle)
            missing = {"player", "input"} - set(reader.fieldnames or [])
            if missing:
                raise InputError(f"{raw_path}: line 1: missing column {sorted(missing)[0]!r}")
            for line_number, record in enumerate(reader, start=2):
                groups, repaired = parse_groups(record["input"] or "")
                if repaired:
                    data.note(raw_path.name, "broken list literal repaired", f"line {line_number}")
                tokens = [w.strip().upper() for g in groups for w in g]
                if any(w != w.strip() for g in groups for w in g) or "' " in (record["input"] or ""):
                    data.note(raw_path.name, "words with stray spaces", f"line {line_number}")
                key, hits = _match_game(tokens, vocab)
                if key is None or hits < 8:
                    data.note(raw_path.name, "answer matches no game", f"line {line_number}")
                    key = None
                if len(groups) != 4 or any(len(g) != 4 for g in groups):
                    data.note(raw_path.name, "groups not of 4 words", f"line {line_number}", key)
                for group_index, group in enumerate(groups):
                    words = []
                    for word in _split_joined(group, vocab.get(key, set())):
                        if key is not None and word not in vocab[key]:
                            unused = sorted(vocab[key] - set(tokens))
                            close = difflib.get_close_matches(word, unused, n=1, cutoff=0.8)
                            if close:
                                data.note(raw_path.name, "typo corrected to a game word", f"line {line_number}: {word}->{close[0]}", key)
                                word = close[0]
                            else:
                                data.note(raw_path.name, "word not in the game", f"line {line_number}: {word}", key)
                        words.append(word)
                    rows.append(
                        {
                            "level": level,
                            "player": record.get("player", ""),
                            "row": line_number,
                            "game_number": record.get("game_number", ""),
                            "game_key": key,
                            "group_index": group_index,
                            "words": tuple(words),
                        }
                    )
    data.human_answers = pd.DataFrame(
        rows, columns=["level", "player", "row", "game_number", "game_key", "group_index", "words"]
    )
    data.human_stored = pd.DataFrame(stored_rows, columns=["level", "game_key", "stored_score"])


def read_connections(folder: str | Path) -> ConnectionsData:
    """Read a Connections study folder (gold, taxonomy, model answers, human players).

    Model answer files are every other ``*.json`` in the folder. Raises :class:`InputError` with
    one line naming the file and record when a file cannot be used at all.
    """
    folder = Path(folder)
    if not folder.is_dir():
        raise InputError(f"{folder}: no such folder (expected the Connections study's files)")
    empty = pd.DataFrame()
    data = ConnectionsData(folder, empty, empty, pd.DataFrame(columns=["model", "game_key", "group_index", "model_name", "words"]),
                           pd.DataFrame(columns=["model", "game_key", "game_index", "record_index", "malformed", "stored_score", "status"]),
                           pd.DataFrame(columns=["model", "game_key", "model_name", "gold_name", "decision"]),
                           empty, empty)
    index_of = _read_gold(folder, data)
    _read_taxonomy(folder, data, index_of)
    _check_flat_gold(folder, data)
    model_files = sorted(p for p in folder.glob("*.json") if p.name not in NOT_MODEL_FILES)
    if not model_files:
        raise InputError(f"{folder}: no model answer files (*.json besides the gold and human files)")
    for path in model_files:
        _read_model(path, data, index_of)
    _read_humans(folder, data)
    return data


# ---------------------------------------------------------------------------------------------
# The data contract


def category_item_id(key: str, model: str, gold_index: int) -> str:
    """``cx:<game_key>:<model>:<gold_category_index>`` — one gold category judged for one model."""
    return f"cx:{key}:{model}:{gold_index}"


def taxonomy_item_id(key: str, gold_index: int) -> str:
    """``cxt:<game_key>:<gold_category_index>`` — one gold category to label with a knowledge type."""
    return f"cxt:{key}:{gold_index}"


def to_contract(data: ConnectionsData, matched: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Items and labels in the contract.

    ``matched`` comes from :func:`analysis.connections.match_groups` (one row per model, game
    and gold group, with ``model_name`` of the model group that reproduced it, or None). A
    category-name item exists for each gold group a model reproduced exactly (only those had a
    name to judge); its human label is the released Yes/No (``true``/``false``). Taxonomy items
    carry the linguists' majority label as a human label from rater ``linguists-majority``.
    """
    gold = data.gold.set_index(["game_key", "gold_index"])
    scored = set(data.games.loc[data.games["scored"], "game_key"])
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
            labels.append(
                {
                    "item_id": item_id,
                    "rater": "study-judge",
                    "rater_type": "human",
                    "label": "true" if row.decision == "Yes" else "false",
                }
            )
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
    items_frame = validate_items(pd.DataFrame(items), source="connections")
    labels_frame = validate_labels(
        pd.DataFrame(labels, columns=["item_id", "rater", "rater_type", "label"]),
        items=items_frame,
        source="connections",
    )
    return items_frame, labels_frame
