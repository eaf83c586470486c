"""wordplay-audit: check the labels behind LLM word-game benchmarks.

The public API is this module: ``import wordplay_audit as wa``, then one function per step —
read a game into the data contract (``wa.read_balderdash``, ``wa.read_connections``,
``wa.read_wof``, ``wa.read_labels`` …), build items, plan and run an annotation campaign, run
and fit judges, agreement and consensus, the judge audit, corrected metrics, convergence and
trend tests, report sections. Each returns a result with ``to_dict()``, ``to_frame()``,
``summary()``, ``section()`` and ``write(out)``; every command of the ``wordplay-audit`` CLI
is one of these calls. The rooms below (``wordplay_audit.annotate``, ``.judges``,
``.analysis``, ``.corpora``) hold the parts; see docs/ARCHITECTURE.md.
"""

from __future__ import annotations

from collections.abc import Callable

__version__ = "0.1.0"


def lazy_exports(package: str, exports: dict[str, str], submodules: tuple[str, ...] = ()) -> Callable:
    """A module ``__getattr__`` that imports ``exports`` (name → sub-module) and the sub-modules
    of ``package`` on first use, so importing a package stays light (no pandas, openai or
    Label Studio SDK until a name that needs them is touched). Every sub-module found on disk is
    reachable as an attribute (``submodules`` is kept for callers that list them); an export may
    not share a sub-module's name (the import system would replace one by the other)."""
    import importlib
    import pkgutil
    import sys

    def __getattr__(name: str):
        if name in exports:
            value = getattr(importlib.import_module(f"{package}.{exports[name]}"), name)
            setattr(sys.modules[package], name, value)  # the same object on every later access
            return value
        path = getattr(sys.modules[package], "__path__", ())
        if name in submodules or name in {m.name for m in pkgutil.iter_modules(path)}:
            return importlib.import_module(f"{package}.{name}")
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    return __getattr__


# The public API: each name → the module that defines it (loaded on first use; the same object
# on every access). tests/workflow/test_api.py checks every name resolves.
W = "wordplay_audit.workflow"

API: dict[str, str] = {
    # errors and the data contract
    "InputError": "wordplay_audit.errors",
    "ParameterError": "wordplay_audit.errors",
    "read_table": "wordplay_audit.corpora.tables",
    "read_items": "wordplay_audit.corpora.contract",
    "read_labels": "wordplay_audit.corpora.contract",
    "validate_items": "wordplay_audit.corpora.contract",
    "validate_labels": "wordplay_audit.corpora.contract",
    "Result": f"{W}.results",
    "Items": f"{W}.items",
    "show_progress": "wordplay_audit.corpora.progress",
    # Connections
    "read_connections": f"{W}.connections",
    "connections_score": f"{W}.connections",
    "connections_items": f"{W}.connections",
    "ConnectionsScore": f"{W}.connections",
    "connections_recompute": f"{W}.connections",
    "ConnectionsRecompute": f"{W}.connections",
    # Balderdash
    "read_balderdash": f"{W}.balderdash",
    "BalderdashData": f"{W}.balderdash",
    "balderdash_metrics": f"{W}.balderdash",
    "balderdash_recompute": f"{W}.balderdash_recompute",
    "BalderdashMetrics": f"{W}.balderdash",
    "BalderdashRecompute": f"{W}.balderdash_recompute",
    "balderdash_convergence": f"{W}.balderdash_rounds",
    "balderdash_trend": f"{W}.balderdash_rounds",
    "balderdash_report": f"{W}.balderdash_rounds",
    "BalderdashConvergence": f"{W}.balderdash_rounds",
    "BalderdashTrend": f"{W}.balderdash_rounds",
    "BalderdashReport": f"{W}.balderdash_rounds",
    "balderdash_items": f"{W}.balderdash_sim",
    "simulate_balderdash": f"{W}.balderdash_sim",
    "plan_labels": f"{W}.balderdash_sim",
    "SimulatedBalderdash": f"{W}.balderdash_sim",
    "BalderdashPlan": f"{W}.balderdash_sim",
    "balderdash_compare": f"{W}.balderdash_compare",
    "balderdash_self_preference": f"{W}.balderdash_compare",
    "balderdash_rankings": f"{W}.balderdash_compare",
    "BalderdashCompare": f"{W}.balderdash_compare",
    "BalderdashSelfPreference": f"{W}.balderdash_compare",
    "BalderdashRankings": f"{W}.balderdash_compare",
    "balderdash_claims": f"{W}.balderdash_claims",
    "balderdash_claims_of": f"{W}.balderdash_claims",
    "BalderdashClaims": f"{W}.balderdash_claims",
    "balderdash_known_items": f"{W}.balderdash_known",
    "balderdash_known": f"{W}.balderdash_known",
    "BalderdashKnown": f"{W}.balderdash_known",
    # Wheel of Fortune
    "read_wof": f"{W}.wof",
    "read_riddles": f"{W}.wof",
    "wof_metrics": f"{W}.wof",
    "wof_items": f"{W}.wof",
    "wof_recompute": f"{W}.wof",
    "simulate_wof": f"{W}.wof",
    "WofMetricsResult": f"{W}.wof",
    "WofRecompute": f"{W}.wof",
    "SimulatedWof": f"{W}.wof",
    # agreement and consensus
    "agreement": f"{W}.agreement",
    "consensus": f"{W}.agreement",
    "select_labels": f"{W}.agreement",
    "Agreement": f"{W}.agreement",
    "Consensus": f"{W}.agreement",
    # judges
    "run_judge": f"{W}.judging",
    "fit_judge": f"{W}.judging",
    "load_fit": f"{W}.judging",
    "batch_write": f"{W}.judging_batch",
    "batch_read": f"{W}.judging_batch",
    "JudgeRun": f"{W}.judging",
    "JudgeFit": f"{W}.judging",
    "BatchRequests": f"{W}.judging_batch",
    "BatchRead": f"{W}.judging_batch",
    # the judge audit
    "judge_audit": f"{W}.audit",
    "JudgeAudit": f"{W}.audit",
    # campaigns
    "LabelStudio": f"{W}.campaign",
    "open_campaign": f"{W}.campaign",
    "plan_campaign": f"{W}.campaign",
    "push_campaign": f"{W}.campaign",
    "pull_campaign": f"{W}.campaign_answers",
    "export_task_files": f"{W}.campaign",
    "import_answers": f"{W}.campaign_answers",
    "CampaignPlan": f"{W}.campaign",
    "Pushed": f"{W}.campaign",
    "Pulled": f"{W}.campaign_answers",
    "TaskFiles": f"{W}.campaign",
    "simulate_answers": f"{W}.campaign_answers",
    "create_raters": f"{W}.campaign_people",
    "adjudicate": f"{W}.campaign_people",
    "RaterAccounts": f"{W}.campaign_people",
    "Adjudication": f"{W}.campaign_people",
    "ScriptedAnswers": f"{W}.campaign_answers",
    "next_round": f"{W}.campaign_next",
    "NextRound": f"{W}.campaign_next",
    "campaign_status": f"{W}.campaign_status",
    "CampaignStatus": f"{W}.campaign_status",
    "label_config": "wordplay_audit.annotate.configs",
    # the demo
    "run_demo": f"{W}.demo",
    "Demo": f"{W}.demo",
}


def lazy_names(package: str, exports: dict[str, str]) -> Callable:
    """A module ``__getattr__`` that imports ``exports`` (name → defining module) on first use
    and keeps the object in the package's namespace, so every later access finds the same one."""
    import importlib
    import sys

    def __getattr__(name: str):
        if name not in exports:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(exports[name]), name)
        setattr(sys.modules[package], name, value)
        return value

    return __getattr__


__all__ = ["__version__", "lazy_exports", *sorted(API)]
__getattr__ = lazy_names(__name__, API)
