"""Wheel of Fortune (LLMike): metrics per model, plots, and win rates under human labels."""

from wordplay_audit.analysis.wof.metrics import WofMetrics, per_game, wof_metrics
from wordplay_audit.analysis.wof.plots import first_consonant_figure, outcome_figure
from wordplay_audit.analysis.wof.recompute import (
    WinRecompute,
    mcnemar_tests,
    paired_bootstrap,
    recompute_wins,
)
from wordplay_audit.analysis.wof.section import wof_section

__all__ = [
    "WinRecompute",
    "WofMetrics",
    "first_consonant_figure",
    "mcnemar_tests",
    "outcome_figure",
    "paired_bootstrap",
    "per_game",
    "recompute_wins",
    "wof_metrics",
    "wof_section",
]
