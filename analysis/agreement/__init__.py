"""Agreement between raters and the labels a campaign settles on.

Statistics (nominal unless stated): :func:`percent_agreement`, :func:`fleiss_kappa`,
:func:`per_category_kappa`, :func:`krippendorff_alpha` (nominal/ordinal/interval/ratio),
:func:`gwet_ac1`, :func:`pairwise_agreement` (Cohen's κ per rater pair, :func:`cohen_kappa`
of a confusion table); item-bootstrap intervals in :func:`bootstrap_intervals`
(:class:`BootstrapOptions`); everything at once in :func:`agreement`.
Consensus: the estimators :class:`MajorityVote` (and :func:`majority_vote`; the rule is the
toolkit's one consensus, :mod:`wordplay_audit.corpora.consensus`) and :class:`DawidSkene`;
:func:`from_crowdkit` reads crowd-kit's ``task``/``worker``/``label`` frame;
:func:`rater_quality`. Rows of ``rater_type`` ``adjudicator`` are never ratings.

See docs/AGREEMENT.md for the formulas, the shapes and the undefined-result policy.
"""

from ._common import (
    CIMethod,
    Draws,
    Level,
    RaterType,
    Statistic,
    TiePolicy,
    UndefinedStatisticWarning,
)
from .ac1 import gwet_ac1, gwet_ac1_se
from .aggregation import DawidSkene, MajorityVote, NotFittedError, from_crowdkit, majority_vote
from .alpha import krippendorff_alpha
from .bootstrap import BootstrapOptions, Interval, bootstrap_intervals
from .kappa import (
    PairwiseAgreement,
    RatingPairs,
    cohen_kappa,
    cohen_kappa_matrix,
    fleiss_kappa,
    fleiss_kappa_se,
    items_used,
    pabak,
    pairwise_agreement,
    per_category_kappa,
    percent_agreement,
    prevalence_index,
    rating_pairs,
)
from .numbers import equal_numbers, merge_equal_numbers
from .quality import consensus_confusion, gold_labels, rater_quality
from .summary import AgreementResult, agreement
from .tables import RatingTable, as_counts, count_patterns, rating_table, resolve_counts

__all__ = [
    "AgreementResult",
    "BootstrapOptions",
    "CIMethod",
    "DawidSkene",
    "Draws",
    "Interval",
    "Level",
    "MajorityVote",
    "NotFittedError",
    "PairwiseAgreement",
    "RaterType",
    "RatingPairs",
    "RatingTable",
    "Statistic",
    "TiePolicy",
    "UndefinedStatisticWarning",
    "agreement",
    "as_counts",
    "bootstrap_intervals",
    "cohen_kappa",
    "cohen_kappa_matrix",
    "consensus_confusion",
    "count_patterns",
    "equal_numbers",
    "fleiss_kappa",
    "fleiss_kappa_se",
    "from_crowdkit",
    "gold_labels",
    "gwet_ac1",
    "gwet_ac1_se",
    "items_used",
    "krippendorff_alpha",
    "majority_vote",
    "merge_equal_numbers",
    "pabak",
    "pairwise_agreement",
    "per_category_kappa",
    "percent_agreement",
    "prevalence_index",
    "rater_quality",
    "rating_pairs",
    "rating_table",
    "resolve_counts",
]
