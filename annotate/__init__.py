"""Annotation campaigns in Label Studio: configs, campaign design, push/pull, file mode,
reconciliation. Names load on first use (``label_studio_sdk`` only when a server is used)."""

from wordplay_audit import lazy_exports

_EXPORTS = {
    "label_config": "configs",
    "task_data": "configs",
    "parse_result": "configs",
    "DesignSpec": "design",
    "Design": "design",
    "design_campaign": "design",
    "stratified_sample": "design",
    "assign_overlap": "design",
    "Campaign": "campaign",
    "read_campaign": "campaign",
    "write_campaign": "campaign",
    "plan_campaign": "plan",
    "read_export_file": "exports",
    "honeypot_accuracy": "reconcile",
    "final_labels": "reconcile",
    "Server": "server",
    "rater_accounts": "accounts",
    "Roster": "roster",
    "as_roster": "roster",
    "push_campaign": "workflow",
    "pull_campaign": "workflow",
    "import_files": "workflow",
    "status_campaign": "workflow",
    "write_task_files": "workflow",
}
_SUBMODULES = ()
__all__ = sorted([*_EXPORTS, *_SUBMODULES])
__getattr__ = lazy_exports(__name__, _EXPORTS, _SUBMODULES)
