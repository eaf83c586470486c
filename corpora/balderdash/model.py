"""The Balderdash export as tables: :class:`BalderdashExport` and the fixed names."""

from __future__ import annotations

from dataclasses import InitVar, dataclass, field

import numpy as np
import pandas as pd

#: The three collections of a Balderdash export.
COLLECTIONS = ("games", "players", "rounds")
SUFFIXES = (".jsonl", ".json")
#: The framework's ``filter_words`` settings: every word, the ones the model knows, or not.
FILTER_WORDS = ("all", "known", "unknown")
#: The framework's ``history_type`` settings: how much of the game so far a player sees.
HISTORY_TYPES = ("none", "mini", "full")
PLAYER_ROUND_COLUMNS = (
    "game_id",
    "round_id",
    "player_id",
    "model",
    "history_type",
    "filter_words",
    "deck",
    "judge_model",
    "knows",
    "true_def",
    "item_id",
)
"""The columns of :func:`player_round_table` that other modules rely on (names fixed)."""

REFERENCE_VOTE = "-1"
"""How a vote for the dictionary (reference) definition is stored in the ``vote`` column."""


@dataclass
class BalderdashExport:
    """One exported Balderdash database.

    Attributes
    ----------
    games
        One row per game: ``game_id`` (str), ``deck`` (stem of ``words_file``), ``words_file``,
        ``filter_words``, ``history_type`` (``"unknown"`` when the game predates the field),
        ``judge_model``, ``number_of_rounds``, the three point values and ``n_rounds_found``.
    players
        One row per player: ``player_id`` (str), ``game_id``, ``name``, ``model`` (``llm_name``),
        ``final_score`` (nan when absent).
    rounds
        One row per round: ``game_id``, ``round_id`` (int, 1-based), ``word``,
        ``correct_definition``, ``pos``, ``n_players``, ``n_true`` (judge verdicts true).
    definitions
        One row per (game, round, player): ``definition``, ``judge_decision`` (bool),
        ``llm_knows`` (bool), ``vote`` (target player id, ``"-1"`` for the reference, ``""`` for
        none) and ``score`` (the round score as recorded, nan when absent).
    items
        The contract's items table (kind ``definition``), one per definition; built on first
        use (``items_table=`` gives it ready-made).
    words
        Per deck, the words file read (``word``, ``senses``, ``pos``, ``frequency_band``).
    skipped
        Counts of what was left out or found odd (see docs/BALDERDASH.md), never silently dropped.
    """

    games: pd.DataFrame
    players: pd.DataFrame
    rounds: pd.DataFrame
    definitions: pd.DataFrame
    items_table: InitVar[pd.DataFrame | None] = None
    words: dict[str, pd.DataFrame] = field(default_factory=dict)
    skipped: dict[str, int] = field(default_factory=dict)
    source: str = ""
    player_rounds: pd.DataFrame | None = field(default=None, repr=False, compare=False)
    """:func:`player_round_table`, built once by :func:`read_export` from the columns it read
    (None: built from the tables above when asked for)."""
    round_rows: np.ndarray | None = field(default=None, repr=False, compare=False)
    """For each row of ``player_rounds`` (and ``definitions``), its row in ``rounds``."""
    _items: pd.DataFrame | None = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self, items_table: pd.DataFrame | None) -> None:
        self._items = items_table

    @property
    def items(self) -> pd.DataFrame:
        """The contract's items table, built from the player-round table on first use."""
        if self._items is None:
            from wordplay_audit.corpora.balderdash.tables import build_items

            self._items = build_items(self)
        return self._items

    @items.setter
    def items(self, value: pd.DataFrame) -> None:
        self._items = value

    @property
    def incomplete_games(self) -> list[str]:
        """Games with fewer rounds found than ``number_of_rounds`` (the framework drops them)."""
        g = self.games
        return g.loc[g["n_rounds_found"] < g["number_of_rounds"], "game_id"].tolist()
