"""Pipelines of the app layer: read (corpora) → analyse (analysis, judges) → write (report, tables).

Each pipeline is also callable from Python; names load on first use."""

_EXPORTS = {
    "run_demo": "demo",
    "score_connections": "connections",
    "judge_audit_run": "judge_audit",
    "metrics_run": "wof",
    "recompute_run": "wof",
    "simulate_run": "wof",
    "write_outputs": "outputs",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    """Import on first use, so importing the package stays light."""
    import importlib

    if name in _EXPORTS:
        return getattr(importlib.import_module(f"{__name__}.{_EXPORTS[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
