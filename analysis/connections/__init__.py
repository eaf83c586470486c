"""The Connections study recomputed from its raw answers: scores, Table 1 / Table 5, humans vs
models, the data-quality audit, the result object, its tables, plots and report section.

>>> from wordplay_audit.analysis.connections import score_game
>>> gold = [["A", "B", "C", "D"], ["E", "F", "G", "H"], ["I", "J", "K", "L"], ["M", "N", "O", "P"]]
>>> score_game(gold, {"x": ["D", "C", "B", "A"]}).weighted
1
"""

from wordplay_audit.analysis.connections.audit import (
    published_deviations,
    quality_audit,
    study_scorer_scores,
    table5_check,
)
from wordplay_audit.analysis.connections.contract import to_contract
from wordplay_audit.analysis.connections.humans import human_scores, paired_tests
from wordplay_audit.analysis.connections.published import PUBLISHED_TABLE1, PUBLISHED_TABLE5
from wordplay_audit.analysis.connections.result import ConnectionsResult, analyze_connections
from wordplay_audit.analysis.connections.scores import (
    MATCH_MODES,
    WEIGHTS,
    GameScore,
    MatchMode,
    game_scores,
    histogram,
    match_groups,
    reasoning_ratio,
    score_game,
)
from wordplay_audit.analysis.connections.section import MARKDOWN_TABLES, connections_section, result_tables
from wordplay_audit.analysis.connections.taxonomy import (
    TAXONOMY_COLUMNS,
    knowledge_type_success,
    taxonomy_column,
    taxonomy_counts,
)

__all__ = [
    "MARKDOWN_TABLES",
    "MATCH_MODES",
    "PUBLISHED_TABLE1",
    "PUBLISHED_TABLE5",
    "TAXONOMY_COLUMNS",
    "WEIGHTS",
    "ConnectionsResult",
    "GameScore",
    "MatchMode",
    "analyze_connections",
    "connections_section",
    "game_scores",
    "histogram",
    "human_scores",
    "knowledge_type_success",
    "match_groups",
    "paired_tests",
    "published_deviations",
    "quality_audit",
    "reasoning_ratio",
    "result_tables",
    "score_game",
    "study_scorer_scores",
    "table5_check",
    "taxonomy_column",
    "taxonomy_counts",
    "to_contract",
]
