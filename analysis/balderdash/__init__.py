"""Balderdash: the study's metrics, their recomputation under human labels, convergence, trend
tests over rounds and a campaign-size planner.

Reading the export and simulating campaigns live in :mod:`wordplay_audit.corpora.balderdash`;
its :func:`~wordplay_audit.corpora.balderdash.player_round_table` is the shared input.
:func:`analyze_balderdash` computes everything the report shows once; :mod:`.report` lays it out.
"""

from wordplay_audit.analysis.balderdash.convergence import (
    DEFAULT_EPS,
    convergence_round,
    convergence_table,
    observed_threshold,
)
from wordplay_audit.analysis.balderdash.corrected import (
    CorrectionOptions,
    ModelAccuracy,
    corrected_rates,
    model_accuracy,
    model_accuracy_draws,
)
from wordplay_audit.analysis.balderdash.drift import DriftResult, DriftWarning, se_sp_drift
from wordplay_audit.analysis.balderdash.metrics import (
    DEFAULT_SETTING,
    METRICS,
    balderdash_metrics,
    complete_games,
    game_metrics,
    player_deception,
    round_curves,
    round_metrics,
    setting_metrics,
)
from wordplay_audit.analysis.balderdash.misclassification import (
    RubinResult,
    draw_se_sp,
    rubin_combine,
)
from wordplay_audit.analysis.balderdash.plan import (
    labels_for_corrected_rate,
    labels_for_fnr,
    rg_halfwidth,
    trend_power,
)
from wordplay_audit.analysis.balderdash.recompute import (
    METRIC_QUESTION,
    REPLACED_NOTE,
    recompute_scores,
    replace_labels,
    replaced_rates,
    replaced_round_metrics,
)
from wordplay_audit.analysis.balderdash.summary import (
    BalderdashAnalysis,
    TrendAnalysis,
    analyze_balderdash,
    judge_audit_tables,
    trend_analysis,
)
from wordplay_audit.analysis.balderdash.trend import trend_tests
from wordplay_audit.analysis.balderdash.trend_inputs import rescale_rounds

__all__ = [
    "DEFAULT_EPS",
    "DEFAULT_SETTING",
    "METRICS",
    "METRIC_QUESTION",
    "REPLACED_NOTE",
    "BalderdashAnalysis",
    "CorrectionOptions",
    "ModelAccuracy",
    "DriftResult",
    "DriftWarning",
    "RubinResult",
    "TrendAnalysis",
    "analyze_balderdash",
    "balderdash_metrics",
    "complete_games",
    "convergence_round",
    "convergence_table",
    "corrected_rates",
    "draw_se_sp",
    "game_metrics",
    "judge_audit_tables",
    "labels_for_corrected_rate",
    "labels_for_fnr",
    "model_accuracy",
    "model_accuracy_draws",
    "observed_threshold",
    "player_deception",
    "recompute_scores",
    "replace_labels",
    "replaced_rates",
    "replaced_round_metrics",
    "rescale_rounds",
    "rg_halfwidth",
    "round_curves",
    "round_metrics",
    "rubin_combine",
    "se_sp_drift",
    "setting_metrics",
    "trend_analysis",
    "trend_power",
    "trend_tests",
]
