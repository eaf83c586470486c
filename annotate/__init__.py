"""Annotation campaigns in Label Studio: configs, campaign design, push/pull, file mode,
reconciliation. Names load on first use (``label_studio_sdk`` only when a server is used)."""

_EXPORTS = {
    "label_config": "configs",
    "task_data": "configs",
    "parse_result": "configs",
    "DesignSpec": "design",
    "Design": "design",
    "design_campaign": "design",
    "stratified_sample": "design",
    "assign_overlap": "design",
    "allocate": "design",
    "Campaign": "campaign",
    "read_campaign": "campaign",
    "write_campaign": "campaign",
    "plan_campaign": "plan",
    "read_export_file": "exports",
    "reconcile": "reconcile",
    "honeypot_accuracy": "reconcile",
    "final_labels": "reconcile",
    "Server": "server",
    "push_campaign": "workflow",
    "pull_campaign": "workflow",
    "import_files": "workflow",
    "status_campaign": "workflow",
    "write_task_files": "workflow",
}
_SUBMODULES = ()
__all__ = sorted([*_EXPORTS, *_SUBMODULES])


def __getattr__(name: str):
    """Import on first use, so importing the package stays light."""
    import importlib

    if name in _EXPORTS:
        return getattr(importlib.import_module(f"{__name__}.{_EXPORTS[name]}"), name)
    if name in _SUBMODULES:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(__all__)
