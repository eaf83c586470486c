"""Reader for the released data of the NYT Connections study (Samadarshi et al., 2024).

``read_connections(folder)`` turns a folder laid out like ``shared/corpora/connections`` into
tidy DataFrames (:class:`ConnectionsData`). Every quirk of the real files is handled and counted
in ``data.quirks`` (file, quirk → count); nothing is dropped silently. JSON is read with a size
and depth guard, numbers are checked, a key written twice in any object is an error (never
last-one-wins), every gold game whose words are text is 4 groups of 4 distinct words of its
16, CSV is UTF-8 with a BOM accepted, and every text is NFC-normalised (see docs/CONNECTIONS.md).

Words are compared after stripping outer white space, case-sensitively, as the study's own
scorer did; words are kept as written and scoring in ``wordplay_audit.analysis.connections``
decides how to compare them. Building contract items and labels from scored groups is analysis
(``wordplay_audit.analysis.connections.to_contract``).
"""

from wordplay_audit.corpora.connections.data import (
    DIFFICULTY,
    FLAT_GOLD_FILE,
    GOLD_FILE,
    HUMAN_LEVELS,
    MODEL_NAMES,
    TAXONOMY_FILE,
    ConnectionsData,
    category_item_id,
    split_allwords,
    taxonomy_item_id,
)
from wordplay_audit.corpora.connections.jsonfile import MAX_JSON_BYTES, MAX_JSON_DEPTH, RawNumber, load_json
from wordplay_audit.corpora.connections.reader import read_connections

__all__ = [
    "DIFFICULTY",
    "FLAT_GOLD_FILE",
    "GOLD_FILE",
    "HUMAN_LEVELS",
    "MAX_JSON_BYTES",
    "MAX_JSON_DEPTH",
    "MODEL_NAMES",
    "TAXONOMY_FILE",
    "ConnectionsData",
    "RawNumber",
    "category_item_id",
    "load_json",
    "read_connections",
    "split_allwords",
    "taxonomy_item_id",
]
