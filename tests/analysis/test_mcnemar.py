"""The exact McNemar p-value of :mod:`analysis.proportions` against statsmodels' on the same
tables (every discordant split up to 60 pairs, and large unbalanced ones)."""

from __future__ import annotations

import numpy as np
import pytest
from statsmodels.stats.contingency_tables import mcnemar

from wordplay_audit.analysis.proportions import mcnemar_exact_p

TABLES = [[[a, b], [c, d]] for b in range(0, 31) for c in range(0, 31) for a, d in ((0, 0), (7, 3))]
TABLES += [[[100, 950], [1020, 5]], [[0, 3000], [2500, 0]], [[1, 0], [40, 1]], [[2, 1], [1, 2]]]


def test_every_table_matches_statsmodels():
    got = [mcnemar_exact_p(t) for t in TABLES]
    expected = [float(mcnemar(np.asarray(t), exact=True).pvalue) for t in TABLES]
    np.testing.assert_allclose(got, expected, rtol=1e-9, atol=0)


def test_by_hand():
    # b = 1, c = 6: X ~ Bin(7, 1/2), 2 · (1 + 7) / 2⁷ = 0.125; b = c: capped at 1
    assert mcnemar_exact_p([[10, 1], [6, 3]]) == pytest.approx(0.125, rel=1e-12)
    assert mcnemar_exact_p([[0, 4], [4, 0]]) == 1.0
    assert mcnemar_exact_p([[3, 0], [5, 0]]) == pytest.approx(2 / 32, rel=1e-12)
