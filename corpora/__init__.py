"""The data room: the contract, readers and writers of each game's files, simulators, the output transaction."""

from wordplay_audit import lazy_exports

_EXPORTS = {}
_SUBMODULES = (
    "balderdash",
    "connections",
    "consensus",
    "contract",
    "demo",
    "final_labels",
    "io",
    "literal",
    "ratings",
    "thresholds",
    "values",
    "votes",
    "wof",
)
__all__ = sorted([*_EXPORTS, *_SUBMODULES])
__getattr__ = lazy_exports(__name__, _EXPORTS, _SUBMODULES)
