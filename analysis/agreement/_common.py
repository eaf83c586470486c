"""The agreement package's warning class, option types and parameter checks.

Every string option is a ``Literal`` type here (the tie policy is the consensus's one,
:data:`wordplay_audit.corpora.votes.TiePolicy`), with its allowed values as a tuple
(``typing.get_args``), checked by :func:`wordplay_audit.errors.check_choice` so a typo raises
:class:`~wordplay_audit.errors.ParameterError` listing what is allowed.
"""

from __future__ import annotations

import warnings
from typing import Literal, get_args

from wordplay_audit.corpora.votes import TIE_POLICIES as TIE_POLICIES  # re-exported: the one policy
from wordplay_audit.corpora.votes import TiePolicy as TiePolicy
from wordplay_audit.errors import ParameterError, check_choice, check_level

#: The measurement level of Krippendorff's α (which disagreement function it uses).
Level = Literal["nominal", "ordinal", "interval", "ratio"]
#: The rater type an agreement statistic reads.
RaterType = Literal["human", "judge"]
#: How a bootstrap interval is read off the resamples.
CIMethod = Literal["bca", "percentile"]
#: How the bootstrap resamples items: pattern counts from a multinomial, or item indices.
Draws = Literal["multinomial", "indices"]
#: The name of a statistic the bootstrap can resample.
Statistic = Literal[
    "fleiss_kappa",
    "krippendorff_alpha",
    "gwet_ac1",
    "per_category_kappa",
    "percent_agreement",
    "brennan_prediger",
    "conger_kappa",
    "light_kappa",
    "fleiss_kappa_weighted",
    "gwet_ac2",
    "brennan_prediger_weighted",
    "conger_kappa_weighted",
]

LEVELS: tuple[str, ...] = get_args(Level)
RATER_TYPES: tuple[str, ...] = get_args(RaterType)
CI_METHODS: tuple[str, ...] = get_args(CIMethod)
DRAWS: tuple[str, ...] = get_args(Draws)
#: Every :data:`Statistic`, in order.
STATISTICS: tuple[str, ...] = get_args(Statistic)

#: The largest rater × rater × category × category table the pairwise statistics build.
MAX_PAIRWISE_CELLS = 50_000_000
"""Largest rater × rater × category × category confusion array built for pairwise tables
(:math:`R^2K^2`; 50 million int64 cells = 400 MB)."""


class UndefinedStatisticWarning(RuntimeWarning):
    """A statistic is undefined for this input (e.g. κ when every rating is one category).

    The function returns ``nan`` and emits this warning; silence it where that is expected with
    ``warnings.catch_warnings()`` + ``warnings.simplefilter("ignore", UndefinedStatisticWarning)``.
    """


def warn_undefined(message: str, *, stacklevel: int = 3) -> None:
    """Emit :class:`UndefinedStatisticWarning`; the default ``stacklevel`` points at the caller
    of the public function that calls this."""
    warnings.warn(message, UndefinedStatisticWarning, stacklevel=stacklevel)


def check_rater_type(rater_type: object) -> RaterType | None:
    """``rater_type`` if it is ``"human"``, ``"judge"`` or None (all ratings); else
    :class:`ParameterError`."""
    if rater_type is None:
        return None
    return check_choice("rater_type", rater_type, RATER_TYPES)  # type: ignore[return-value]


def check_whole(name: str, value: object, *, low: int) -> int:
    """``value`` as an int if it is a whole number ≥ ``low``; else :class:`ParameterError`."""
    try:
        whole = int(value)  # type: ignore[call-overload]
        ok = whole == value and whole >= low and not isinstance(value, bool)
    except (TypeError, ValueError, OverflowError):
        ok = False
    if not ok:
        raise ParameterError(f"{name}: expected a whole number ≥ {low}, got {value!r}")
    return whole


def check_confidence(confidence: object) -> float:
    """``confidence`` if it lies strictly between 0 and 1; else :class:`ParameterError`
    (:func:`wordplay_audit.errors.check_level`)."""
    return check_level(confidence)
