"""The statistics room: pure functions of the contract's DataFrames.

Sub-packages load on first use: ``from wordplay_audit import analysis; analysis.agreement.fleiss_kappa``."""

from wordplay_audit import lazy_exports

_EXPORTS = {}
_SUBMODULES = (
    "agreement",
    "balderdash",
    "connections",
    "correction",
    "judge_audit",
    "judge_audit_cells",
    "judge_audit_groups",
    "proportions",
    "report",
    "stats_models",
    "wof",
)
__all__ = sorted([*_EXPORTS, *_SUBMODULES])
__getattr__ = lazy_exports(__name__, _EXPORTS, _SUBMODULES)
