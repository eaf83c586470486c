"""What the Connections reader returns (:class:`ConnectionsData`), the study's file names, and
the small helpers every part of the reader shares (word lists, game keys, item ids)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from wordplay_audit.corpora.contract import game_key
from wordplay_audit.corpora.literal import maybe_literal, nfc

#: The four groups of a game from the easiest to the hardest.
DIFFICULTY = ("yellow", "green", "blue", "purple")
#: The study's gold games.
GOLD_FILE = "gold_data.json"
#: The gold games with their knowledge taxonomy (Table 1 of the study).
TAXONOMY_FILE = "game_with_knowledge_taxonomy.json"
#: The gold groups flattened, one record per group (compared with the gold games).
FLAT_GOLD_FILE = "connections_gold.json"
#: The levels of the human players' files.
HUMAN_LEVELS = ("novice", "expert")
NOT_MODEL_FILES = frozenset({GOLD_FILE, TAXONOMY_FILE, FLAT_GOLD_FILE, "novice.json", "expert.json"})
MODEL_NAMES = {
    "gemini1.5pro": "Gemini 1.5 Pro",
    "claude3.5sonnet": "Claude 3.5 Sonnet",
    "gpt4o": "GPT-4o",
    "llama3.1405B": "Llama 3.1 405B",
    "mistral2large": "Mistral Large 2",
    "gpt_strawberry": "GPT strawberry (not in the paper)",
}
"""Display names used in the paper, by file stem."""

ANSWER_COLUMNS = ("model", "game_key", "group_index", "model_name", "words")
META_COLUMNS = (
    "model",
    "game_key",
    "game_index",
    "record_index",
    "malformed",
    "stored_score",
    "status",
)
JUDGEMENT_COLUMNS = ("model", "game_key", "model_name", "gold_name", "decision")
HUMAN_COLUMNS = ("level", "player", "row", "game_number", "game_key", "group_index", "words")
HUMAN_STORED_COLUMNS = ("level", "game_key", "stored_score")


@dataclass
class ConnectionsData:
    """Everything read from one Connections folder. Every text (words, names, labels) is
    NFC-normalised.

    Attributes
    ----------
    games
        One row per game: ``game_index`` (position in gold_data.json), ``game_key``, ``allwords``,
        ``excluded`` (few-shot example), ``text_words`` (False when the words are not text, e.g. all
        ``?``), ``scored`` (neither).
    gold
        One row per gold group: ``game_key``, ``gold_index`` 0–3 (yellow→purple), ``difficulty``,
        ``gold_name``, ``words`` (tuple), ``words_from_dict`` (stored as ``{"Words": [...]}``), and
        the taxonomy labels ``knowledge_type``, ``complexity``, ``based_on`` when known.
    answers
        One row per model group: ``model``, ``game_key``, ``group_index``, ``model_name``, ``words``
        (tuple).
    answer_meta
        One row per model and game: ``model``, ``game_key``, ``game_index``, ``record_index``,
        ``malformed``, ``stored_score``, ``status`` (``ok`` or why no groups were read).
    judgements
        One row per human name judgement: ``model``, ``game_key``, ``model_name``, ``gold_name``,
        ``decision`` (``Yes``/``No``).
    human_answers
        One row per human player's group: ``level``, ``player``, ``row`` (the line of the raw CSV
        file), ``game_number``, ``game_key`` (None when unmatched), ``group_index``, ``words``.
    human_stored
        The stored scores of novice.json / expert.json: ``level``, ``game_key``, ``stored_score``.
    quirks
        (file, quirk) → count of every irregularity met; ``notes`` says where.
    model_files
        The stem of every model answer file read (also one from which no answer was read, e.g.
        ``[]``: it is reported with null scores, not dropped).
    taxonomy_absent
        True when game_with_knowledge_taxonomy.json is absent (Table 1 unknown).
    """

    folder: Path
    games: pd.DataFrame = field(default_factory=pd.DataFrame)
    gold: pd.DataFrame = field(default_factory=pd.DataFrame)
    answers: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=ANSWER_COLUMNS))
    answer_meta: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=META_COLUMNS))
    judgements: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=JUDGEMENT_COLUMNS))
    human_answers: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=HUMAN_COLUMNS))
    human_stored: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=HUMAN_STORED_COLUMNS))
    quirks: Counter = field(default_factory=Counter)
    notes: list[dict[str, Any]] = field(default_factory=list)
    model_files: list[str] = field(default_factory=list)
    taxonomy_absent: bool = False

    @property
    def models(self) -> list[str]:
        return sorted(self.answer_meta["model"].unique().tolist())

    def note(self, file: str, quirk: str, detail: str = "", game_key: str | None = None) -> None:
        """Count a quirk and keep a short note of where it was."""
        self.quirks[(file, quirk)] += 1
        self.notes.append({"file": file, "quirk": quirk, "game_key": game_key, "detail": detail})


def split_allwords(allwords: str) -> list[str]:
    """Split the ``allwords`` string on ``", "`` (a bare comma can sit inside a word: ``20,000``).

    >>> split_allwords("20,000, LEAGUES, UNDER")
    ['20,000', 'LEAGUES', 'UNDER']
    """
    return [nfc(w.strip()) for w in allwords.split(", ")]


def allwords_key(allwords: str) -> str:
    """The stable game key of a game's ``allwords`` string."""
    return game_key(split_allwords(allwords))


def group_words(value: Any) -> tuple[list[str] | None, bool]:
    """Words of a gold or model group: a list, or ``{"Words": [...]}``. (None, _) if neither."""
    value = maybe_literal(value)
    if isinstance(value, dict) and isinstance(value.get("Words"), list):
        return [nfc(str(w).strip()) for w in value["Words"]], True
    if isinstance(value, list | tuple):
        return [nfc(str(w).strip()) for w in value], False
    return None, False


def category_item_id(key: str, model: str, gold_index: int) -> str:
    """``cx:<game_key>:<model>:<gold_category_index>`` — one gold category judged for one model."""
    return f"cx:{key}:{model}:{gold_index}"


def taxonomy_item_id(key: str, gold_index: int) -> str:
    """``cxt:<game_key>:<gold_category_index>`` — one gold category to label with a knowledge type."""
    return f"cxt:{key}:{gold_index}"
