"""Small published rating data sets (facts, transcribed) and a helper to make contract labels.

* Gwet (2014), Handbook of Inter-Rater Reliability, 4th ed., as shipped with R irrCAC
  (``inst/extdata/*.csv`` of github.com/kgwet/irrCAC) and its Python port
  (``irrCAC/datasets.py`` of github.com/afergadis/irrCAC): ``cac.raw4raters`` (which is
  Krippendorff's 2011 reliability data), ``cac.raw5obser``, ``cac.raw.g1g2``,
  ``cac.raw.gender``, ``cac.ben.gerry``, and the contingency tables ``cont3x3abstractors``
  and ``cont4x4diagnosis`` (the latter in the Python port's orientation, the transpose of R's).
* R irr's ``diagnoses`` (Fleiss 1971, 30 patients × 6 raters, codes 1–5) and ``anxiety``
  (20 subjects × 3 raters, 1–6), as transcribed in statsmodels'
  ``statsmodels/stats/tests/test_inter_rater.py``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

N = np.nan

RAW4RATERS = np.array(
    [
        [1, 1, N, 1], [2, 2, 3, 2], [3, 3, 3, 3], [3, 3, 3, 3], [2, 2, 2, 2], [1, 2, 3, 4],
        [4, 4, 4, 4], [1, 1, 2, 1], [2, 2, 2, 2], [N, 5, 5, 5], [N, N, 1, 1], [N, N, 3, N],
    ]
)  # fmt: skip

RAW5OBSERVERS = np.array(
    [
        [1, 1, 2, N, 2], [1, 1, 0, 1, N], [2, 3, 3, 3, N], [N, 0, 0, N, 0], [0, 0, 0, N, 0],
        [0, 0, 0, N, 0], [1, 0, 2, N, 1], [1, N, 2, 0, N], [2, 2, 2, N, 2], [2, 1, 1, 1, N],
        [N, 1, 0, 0, N], [0, 0, 0, 0, N], [1, 2, 2, 2, N], [3, 3, 2, 2, 3], [1, 1, 1, N, 1],
    ]
)  # fmt: skip

RAW_G1G2 = [
    "a a . a", "b b c b", "c c c c", "c c c c", "b b b b", "a b c d", "d d d d",
    "a a b a", "b b b b", ". e e e", ". . a a", ". . c .", "b b c b", "b a c b",
]  # fmt: skip

RAW_GENDER = [
    "a a a c", "a a b c", "a a b c", "a a c c", "a b a a", "b a a a", "b b b b", "b c b b",
    "c c c c", "a a a c", "a a b c", "a a b c", "a a c c", "a b a a", "b a a a",
]  # fmt: skip

BEN_GERRY = ["a b", "a a", "b b", "b b", "d b", "c c", "c c", "c c", "e e", "d .", "d d", "a d"]

CONT3X3ABSTRACTORS = np.array([[13, 0, 0], [0, 20, 7], [0, 4, 56]])  # Ectopic, AIU, NIU
CONT4X4DIAGNOSIS = np.array([[40, 4, 4, 17], [6, 25, 2, 13], [4, 1, 21, 12], [15, 5, 9, 45]])

DIAGNOSES = np.array(
    [
        [4, 4, 4, 4, 4, 4], [2, 2, 2, 5, 5, 5], [2, 3, 3, 3, 3, 5], [5, 5, 5, 5, 5, 5],
        [2, 2, 2, 4, 4, 4], [1, 1, 3, 3, 3, 3], [3, 3, 3, 3, 5, 5], [1, 1, 3, 3, 3, 4],
        [1, 1, 4, 4, 4, 4], [5, 5, 5, 5, 5, 5], [1, 4, 4, 4, 4, 4], [1, 2, 4, 4, 4, 4],
        [2, 2, 2, 3, 3, 3], [1, 4, 4, 4, 4, 4], [2, 2, 4, 4, 4, 5], [3, 3, 3, 3, 3, 5],
        [1, 1, 1, 4, 5, 5], [1, 1, 1, 1, 1, 2], [2, 2, 4, 4, 4, 4], [1, 3, 3, 5, 5, 5],
        [5, 5, 5, 5, 5, 5], [2, 4, 4, 4, 4, 4], [2, 2, 4, 5, 5, 5], [1, 1, 4, 4, 4, 4],
        [1, 4, 4, 4, 4, 5], [2, 2, 2, 2, 2, 4], [1, 1, 1, 1, 5, 5], [2, 2, 4, 4, 4, 4],
        [1, 3, 3, 3, 3, 3], [5, 5, 5, 5, 5, 5],
    ]
)  # fmt: skip

ANXIETY = np.array(
    [
        [3, 3, 2], [3, 6, 1], [3, 4, 4], [4, 6, 4], [5, 2, 3], [5, 4, 2], [2, 2, 1], [3, 4, 6],
        [5, 3, 1], [2, 3, 1], [2, 2, 1], [6, 3, 2], [1, 3, 3], [5, 3, 3], [2, 2, 1], [2, 2, 1],
        [1, 1, 3], [2, 3, 3], [4, 3, 2], [3, 4, 2],
    ]
)  # fmt: skip


def letters(rows: list[str]) -> np.ndarray:
    """Rows of space-separated labels, ``.`` for a missing rating, as an object matrix."""
    return np.array([[None if x == "." else x for x in row.split()] for row in rows], dtype=object)


def to_labels(matrix, raters: list[str] | None = None) -> pd.DataFrame:
    """Subjects × raters (nan / None = not rated) as a contract labels table; numbers become
    their integer text (``1.0`` → ``"1"``)."""
    matrix = np.asarray(matrix, dtype=object)
    names = raters or [f"r{j + 1}" for j in range(matrix.shape[1])]
    rows = []
    for i, row in enumerate(matrix):
        for j, value in enumerate(row):
            if value is None or (isinstance(value, float) and np.isnan(value)):
                continue
            text = (
                str(int(value)) if isinstance(value, int | float | np.integer | np.floating) else str(value)
            )
            rows.append((f"s{i + 1:02d}", names[j], "human", text))
    return pd.DataFrame(rows, columns=["item_id", "rater", "rater_type", "label"])


def table_labels(table: np.ndarray, names: list[str]) -> pd.DataFrame:
    """A two-rater contingency table (rater A's label × rater B's) as contract labels."""
    rows, item = [], 0
    for a, row in enumerate(table):
        for b, count in enumerate(row):
            for _ in range(int(count)):
                rows += [(f"i{item}", "A", "human", names[a]), (f"i{item}", "B", "human", names[b])]
                item += 1
    return pd.DataFrame(rows, columns=["item_id", "rater", "rater_type", "label"])
