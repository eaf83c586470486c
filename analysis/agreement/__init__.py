"""Agreement between raters and the labels a campaign settles on.

Statistics (nominal unless weighted): :func:`percent_agreement`, :func:`fleiss_kappa`,
:func:`per_category_kappa`, :func:`krippendorff_alpha` (nominal/ordinal/interval/ratio),
:func:`gwet_ac1`, :func:`gwet_ac2`, :func:`brennan_prediger`, :func:`conger_kappa`,
:func:`light_kappa`, :func:`pairwise_agreement` / :func:`pairwise_kappa` (Cohen's κ per rater
pair, :func:`cohen_kappa` of a confusion table), each with its ``*_se``; weights in
:func:`weight_matrix`; item-bootstrap intervals, t tests and Wald/t intervals in
:func:`bootstrap_intervals` (:class:`BootstrapOptions`); benchmarking in :func:`benchmark`;
graded ratings: :func:`icc` (the six Shrout–Fleiss forms with F tests and exact intervals) and
:func:`kendall_w`; everything at once in :func:`agreement`.
Consensus: the estimators :class:`MajorityVote` (and :func:`majority_vote`) and
:class:`DawidSkene` (optionally anchored on gold items), :class:`OneCoinDawidSkene`,
:class:`MACE`; the skill-weighted votes :class:`WeightedMajorityVote`, :class:`Wawa`,
:class:`ZeroBasedSkill` and :class:`GoldMajorityVote` (honeypots), and :class:`GLAD` (item
difficulty); :func:`from_crowdkit` reads crowd-kit's ``task``/``worker``/``label``
frame; :func:`rater_quality`. The consensus rule is the toolkit's one
(:mod:`wordplay_audit.corpora.consensus`); rows of ``rater_type`` ``adjudicator`` are never ratings.

See docs/AGREEMENT.md for the shapes and the undefined-result policy, docs/methods/agreement.md for
the formulas.
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
from ._core import SingleRated
from .ac1 import brennan_prediger, brennan_prediger_se, gwet_ac1, gwet_ac1_se, gwet_ac2, gwet_ac2_se
from .aggregation import MajorityVote, NotFittedError, from_crowdkit, majority_vote
from .alpha import krippendorff_alpha, krippendorff_alpha_se
from .bootstrap import BootstrapOptions, Interval, bootstrap_intervals
from .conger import conger_kappa, conger_kappa_se, light_kappa, light_kappa_se
from .dawid_skene import DawidSkene
from .glad import GLAD
from .gold_majority_vote import GoldMajorityVote
from .icc import ICC_FORMS, ICCEstimate, ICCForm, ICCResult, icc
from .inference import Benchmark, Scale, benchmark
from .kappa import (
    cohen_kappa,
    cohen_kappa_se,
    fleiss_kappa,
    fleiss_kappa_se,
    items_used,
    pabak,
    per_category_kappa,
    percent_agreement,
    percent_agreement_se,
    prevalence_index,
)
from .kendall import KendallW, kendall_w
from .mace import MACE
from .numbers import equal_numbers, merge_equal_numbers
from .one_coin import OneCoinDawidSkene
from .pairwise import (
    PairwiseAgreement,
    PairwiseKappa,
    RatingPairs,
    cohen_kappa_matrix,
    pairwise_agreement,
    pairwise_kappa,
    rating_pairs,
)
from .quality import consensus_confusion, gold_labels, rater_quality
from .summary import AgreementResult, agreement
from .tables import RatingTable, as_counts, count_patterns, rating_table, resolve_counts
from .wawa import Wawa
from .weighted_vote import WeightedMajorityVote
from .weights import WeightName, Weights, read_weights, weight_matrix
from .zero_based_skill import ZeroBasedSkill

__all__ = [
    "AgreementResult",
    "Benchmark",
    "BootstrapOptions",
    "CIMethod",
    "DawidSkene",
    "GLAD",
    "GoldMajorityVote",
    "MACE",
    "OneCoinDawidSkene",
    "Draws",
    "ICCEstimate",
    "ICCForm",
    "ICCResult",
    "ICC_FORMS",
    "Interval",
    "KendallW",
    "Level",
    "MajorityVote",
    "NotFittedError",
    "PairwiseAgreement",
    "PairwiseKappa",
    "RaterType",
    "RatingPairs",
    "RatingTable",
    "Scale",
    "SingleRated",
    "Statistic",
    "TiePolicy",
    "UndefinedStatisticWarning",
    "Wawa",
    "WeightName",
    "WeightedMajorityVote",
    "Weights",
    "ZeroBasedSkill",
    "agreement",
    "as_counts",
    "benchmark",
    "bootstrap_intervals",
    "brennan_prediger",
    "brennan_prediger_se",
    "cohen_kappa",
    "cohen_kappa_matrix",
    "cohen_kappa_se",
    "conger_kappa",
    "conger_kappa_se",
    "consensus_confusion",
    "count_patterns",
    "equal_numbers",
    "fleiss_kappa",
    "fleiss_kappa_se",
    "from_crowdkit",
    "gold_labels",
    "gwet_ac1",
    "gwet_ac1_se",
    "gwet_ac2",
    "gwet_ac2_se",
    "icc",
    "items_used",
    "kendall_w",
    "krippendorff_alpha",
    "krippendorff_alpha_se",
    "light_kappa",
    "light_kappa_se",
    "majority_vote",
    "merge_equal_numbers",
    "pabak",
    "pairwise_agreement",
    "pairwise_kappa",
    "per_category_kappa",
    "percent_agreement",
    "percent_agreement_se",
    "prevalence_index",
    "rater_quality",
    "rating_pairs",
    "rating_table",
    "read_weights",
    "resolve_counts",
    "weight_matrix",
]
