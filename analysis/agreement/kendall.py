"""Kendall's coefficient of concordance *W*, with the tie correction and its chi-square test.

Each of the *m* raters ranks the *n* items it rated (average ranks for ties); with
:math:`R_i` the sum of item *i*'s ranks and :math:`S = \\sum_i (R_i - \\bar R)^2`,

.. math:: W = \\frac{12 S}{m^2 (n^3 - n) - m \\sum_j T_j}, \\qquad
          T_j = \\sum_{g} (t_g^3 - t_g)

over the groups *g* of :math:`t_g` tied ratings of rater *j* (Kendall 1948; :math:`T_j = 0`
without the correction). The test of no concordance is :math:`\\chi^2 = m(n-1)W` on *n* − 1
degrees of freedom (the Friedman statistic; a large-sample test). As R irr's ``kendall`` and
DescTools' ``KendallW``, items not rated by every rater are left out (listwise).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from ._common import RaterType
from ._matrix import ScoreMatrix, score_matrix
from .tables import RatingTable

__all__ = ["KendallW", "kendall_w", "column_ranks", "kendall_w_of_matrix"]


@dataclass(frozen=True)
class KendallW:
    """*W* (``value``), the chi-square test (``chi2``, ``df``, ``p_value``), whether the tie
    correction was applied (``ties_corrected``), the items and raters read; ``reason`` says why
    the numbers are None."""

    value: float | None
    chi2: float | None
    df: int | None
    p_value: float | None
    ties_corrected: bool
    n_items: int
    n_raters: int
    n_left_out: int
    reason: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """``{value, chi2, df, p_value, ties_corrected, items, raters, items_left_out, reason}``."""
        return {
            "value": self.value,
            "chi2": self.chi2,
            "df": self.df,
            "p_value": self.p_value,
            "ties_corrected": self.ties_corrected,
            "items": self.n_items,
            "raters": self.n_raters,
            "items_left_out": self.n_left_out,
            "reason": self.reason,
        }


def column_ranks(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Average ranks of each column of ``values`` ``(n, m)`` (ties share their mean rank) and
    each column's :math:`T_j = \\sum_g (t_g^3 - t_g)`.

    One hash factorisation per column (:func:`pandas.factorize`, distinct values sorted) and a
    bincount: the rank of a value is the count below it plus half its own count plus ½ — no
    sort of the *n* ratings, so graded scales with few levels rank in linear time.
    """
    n, m = values.shape
    ranks = np.empty((n, m))
    ties = np.empty(m)
    for j in range(m):  # m raters: a short loop over columns
        codes, _ = pd.factorize(values[:, j], sort=True)
        counts = np.bincount(codes).astype(float)
        below = np.cumsum(counts) - counts
        ranks[:, j] = (below + (counts + 1.0) / 2.0)[codes]
        ties[j] = float((counts**3 - counts).sum())
    return ranks, ties


def kendall_w_of_matrix(matrix: ScoreMatrix, *, correct_ties: bool = True) -> KendallW:
    """*W* of a :class:`~._matrix.ScoreMatrix` (complete rows)."""
    n, m = matrix.n_items, matrix.n_raters

    def null(reason: str) -> KendallW:
        return KendallW(None, None, None, None, correct_ties, n, m, matrix.n_left_out, reason)

    if m < 2:
        return null(f"{m} rater{'s' if m != 1 else ''}: W needs two or more raters on each item")
    if n < 2:
        return null(f"{n} item{'s' if n != 1 else ''} rated by all {m} raters: W needs two or more")
    ranks, tie_sums = column_ranks(matrix.values)
    sums = ranks.sum(axis=1)
    s = float(np.square(sums - sums.mean()).sum())
    ties = float(tie_sums.sum()) if correct_ties else 0.0
    den = m**2 * (float(n) ** 3 - n) - m * ties
    if den <= 0:
        return null("every rater gave every item the same rating: W's denominator is 0")
    w = 12.0 * s / den
    chi2 = m * (n - 1) * w
    p = float(stats.chi2.sf(chi2, n - 1))
    return KendallW(float(w), float(chi2), n - 1, p, correct_ties, n, m, matrix.n_left_out)


def kendall_w(
    data: pd.DataFrame | RatingTable | np.ndarray,
    *,
    correct_ties: bool = True,
    numbers: np.ndarray | None = None,
    rater_type: RaterType | None = "human",
) -> KendallW:
    """Kendall's *W* of ``data``: a labels table with numeric labels (or ``numbers``, one per
    category, e.g. the ranks of an ordinal scale), a :class:`~.tables.RatingTable`, or an
    ``(n items, m raters)`` array (nan: not rated).

    >>> w = kendall_w([[1, 1, 2], [6, 5, 3], [3, 6, 6], [2, 2, 5], [5, 4, 4], [4, 3, 1]])
    >>> round(w.value, 6), round(w.chi2, 4), w.df
    (0.568254, 8.5238, 5)
    """
    matrix = score_matrix(data, numbers=numbers, rater_type=rater_type)
    return kendall_w_of_matrix(matrix, correct_ties=correct_ties)
