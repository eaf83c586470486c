"""Agreement between raters and the labels a campaign settles on.

Statistics (nominal unless stated): :func:`percent_agreement`, :func:`fleiss_kappa`,
:func:`per_category_kappa`, :func:`krippendorff_alpha` (nominal/ordinal/interval/ratio),
:func:`gwet_ac1`, :func:`pairwise_agreement` (Cohen's κ per rater pair); item-bootstrap
intervals in :func:`bootstrap_intervals`; everything at once in :func:`agreement`.
Consensus: :func:`majority_vote` and :class:`DawidSkene`; :func:`rater_quality`.

See docs/AGREEMENT.md for the formulas, the shapes and the undefined-result policy.
"""

from ._common import UndefinedStatisticWarning
from .ac1 import gwet_ac1, gwet_ac1_se
from .aggregation import DawidSkene, majority_vote
from .alpha import krippendorff_alpha
from .bootstrap import Interval, bootstrap_intervals
from .kappa import (
    PairwiseAgreement,
    cohen_kappa_matrix,
    fleiss_kappa,
    fleiss_kappa_se,
    pabak,
    pairwise_agreement,
    per_category_kappa,
    percent_agreement,
    prevalence_index,
)
from .quality import rater_quality
from .summary import AgreementResult, agreement
from .tables import RatingTable, count_patterns, rating_table

__all__ = [
    "AgreementResult",
    "DawidSkene",
    "Interval",
    "PairwiseAgreement",
    "RatingTable",
    "UndefinedStatisticWarning",
    "agreement",
    "bootstrap_intervals",
    "cohen_kappa_matrix",
    "count_patterns",
    "fleiss_kappa",
    "fleiss_kappa_se",
    "gwet_ac1",
    "gwet_ac1_se",
    "krippendorff_alpha",
    "majority_vote",
    "pabak",
    "pairwise_agreement",
    "per_category_kappa",
    "percent_agreement",
    "prevalence_index",
    "rater_quality",
    "rating_table",
]
