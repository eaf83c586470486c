"""Pipelines of the app layer: read (corpora) → analyse (analysis, judges) → write (report, tables).

Each pipeline is also callable from Python; names load on first use."""

from wordplay_audit import lazy_exports

_EXPORTS = {
    "score_connections": "connections",
    "judge_audit_run": "judge_audit",
    "metrics_run": "wof",
    "recompute_run": "wof",
    "simulate_run": "wof",
    "write_outputs": "outputs",
}
__all__ = sorted(_EXPORTS)
__getattr__ = lazy_exports(__name__, _EXPORTS, ())
