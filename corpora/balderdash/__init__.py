"""The Balderdash framework's game database as exported by ``mongoexport``: read, derive, simulate.

The framework (Hejabi et al. 2024, "Evaluating Creativity and Deception in Large Language
Models: A Simulation Framework for Multi-Agent Balderdash") stores its games in three
collections, ``games``, ``players`` and ``rounds``. :func:`read_export` reads an export folder
(see :mod:`.export`); :func:`player_round_table` turns it into one row per (game, round,
player), the input of every analysis in :mod:`wordplay_audit.analysis.balderdash`;
:func:`simulate_campaign` and :func:`write_campaign` produce campaigns with known truth in the
same file format.
"""

from wordplay_audit.corpora.balderdash.export import read_export
from wordplay_audit.corpora.balderdash.extended_json import (
    decode_extended_json,
    iter_json_documents,
)
from wordplay_audit.corpora.balderdash.model import (
    COLLECTIONS,
    FILTER_WORDS,
    HISTORY_TYPES,
    PLAYER_ROUND_COLUMNS,
    REFERENCE_VOTE,
    BalderdashExport,
)
from wordplay_audit.corpora.balderdash.simulate import (
    DEFAULT_DECKS,
    DEFAULT_MODELS,
    SimConfig,
    SimulatedCampaign,
    simulate_campaign,
    true_rates,
)
from wordplay_audit.corpora.balderdash.tables import (
    build_items,
    item_id_of,
    judge_labels,
    judge_labels_from_table,
    player_round_table,
)
from wordplay_audit.corpora.balderdash.words import read_words_file
from wordplay_audit.corpora.balderdash.writer import (
    campaign_documents,
    simulate_to_folder,
    write_campaign,
)

__all__ = [
    "COLLECTIONS",
    "FILTER_WORDS",
    "HISTORY_TYPES",
    "PLAYER_ROUND_COLUMNS",
    "REFERENCE_VOTE",
    "BalderdashExport",
    "read_export",
    "decode_extended_json",
    "iter_json_documents",
    "read_words_file",
    "player_round_table",
    "build_items",
    "item_id_of",
    "judge_labels",
    "judge_labels_from_table",
    "DEFAULT_DECKS",
    "DEFAULT_MODELS",
    "SimConfig",
    "SimulatedCampaign",
    "simulate_campaign",
    "true_rates",
    "campaign_documents",
    "write_campaign",
    "simulate_to_folder",
]
