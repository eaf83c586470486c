"""Correct a rate that a judge produced, using a human sample — for any game.

* :mod:`.poststratify` — the judge's sensitivity and specificity, post-stratified on its own
  decision (and sampling strata), with delta-method variances.
* :mod:`.rogan_gladen` — θ̂ = (p + Sp − 1)/(Se + Sp − 1) with its variance.
* :mod:`.intervals` — for cells that are not made of whole sampling strata (one round, a
  window): Jeffreys posterior draws of the Se and Sp generating the stratum's verdicts, then the
  cell's prevalence and its unlabelled true items (``mixture_share_interval``).
* :mod:`.engine` — the corrected-metric engine every game calls: per cell the post-stratified
  realised share under people's labels with the randomised exact interval
  (:func:`corrected_shares`; one interval method, one minimum-labels rule, :data:`MIN_LABELS`).
* :mod:`.cells` — a cell's post-strata as (unlabelled, labelled, labelled true) triples and its
  own-label interval (the pieces the engine and Balderdash's corrected rates share).
* :mod:`.calibration` — the randomised exact (Stevens / Clopper–Pearson) predictive interval of
  a cell's realised share from its own post-strata, and its exact coverage at given shares.
* :mod:`.ratio` — the same predictives for a realised ratio of two sums over post-strata: the
  judge audit's interval of the judge's realised FNR and specificity.
* :mod:`.ppi` — prediction-powered means: PPI++ for a random sample, the stratified
  (double-sampling) estimator for a sample drawn within the judge's verdicts.

Inputs are plain arrays or a frame with ``judge``, ``labelled``, ``human`` columns; Balderdash,
Wheel of Fortune and Connections build those from their own tables.
"""

from wordplay_audit.analysis.correction.calibration import (
    randomised_share_interval,
    share_coverage,
    share_misses,
)
from wordplay_audit.analysis.correction.engine import NO_LABEL, CellShare, cell_share, corrected_shares
from wordplay_audit.analysis.correction.intervals import (
    MIN_LABELS,
    SEED_NOTE,
    TOO_FEW,
    accuracy_draws,
    generating_accuracy_draws,
    randomisation_seed,
    rogan_gladen_interval,
    se_sp_from_true,
    seeded_rng,
    stratified_share_interval,
    true_count_draws,
)
from wordplay_audit.analysis.correction.poststratify import (
    JudgeAccuracy,
    accuracy_counts,
    post_strata_counts,
    poststratified_accuracy,
    variance_share,
)
from wordplay_audit.analysis.correction.ppi import ppi_mean, stratified_mean
from wordplay_audit.analysis.correction.rogan_gladen import rogan_gladen

__all__ = [
    "MIN_LABELS",
    "NO_LABEL",
    "SEED_NOTE",
    "TOO_FEW",
    "CellShare",
    "cell_share",
    "corrected_shares",
    "JudgeAccuracy",
    "accuracy_counts",
    "accuracy_draws",
    "generating_accuracy_draws",
    "rogan_gladen_interval",
    "se_sp_from_true",
    "randomisation_seed",
    "seeded_rng",
    "stratified_share_interval",
    "true_count_draws",
    "post_strata_counts",
    "poststratified_accuracy",
    "variance_share",
    "ppi_mean",
    "stratified_mean",
    "rogan_gladen",
    "randomised_share_interval",
    "share_coverage",
    "share_misses",
]
