"""Agreement weights: how much two categories *k*, *l* count as agreeing (:math:`w_{kl}`, 1 on
the diagonal, between 0 and 1).

The families are those of Gwet (2014, ch. 3) as the R package irrCAC defines them, with
category values :math:`x_k` (the numbers the names spell when every category is a number,
else the positions 1..q in category order), :math:`x_{min}`, :math:`x_{max}` their range:

* ``identity``: :math:`[k = l]` (the unweighted coefficients);
* ``linear``: :math:`1 - |x_k - x_l| / (x_{max} - x_{min})`;
* ``quadratic``: :math:`1 - (x_k - x_l)^2 / (x_{max} - x_{min})^2`;
* ``radical``: :math:`1 - \\sqrt{|x_k - x_l|} / \\sqrt{x_{max} - x_{min}}`;
* ``ratio``: :math:`1 - ((x_k - x_l)/(x_k + x_l))^2 / ((x_{max} - x_{min})/(x_{max} + x_{min}))^2`
  (values ≥ 0; the diagonal is 1 also where :math:`x_k = 0`);
* ``circular``: :math:`1 - \\sin^2(\\pi (x_k - x_l)/U) / \\max`, :math:`U = x_{max} - x_{min} + 1`;
* ``bipolar``: :math:`1 - \\frac{(x_k - x_l)^2}{(x_k + x_l - 2x_{min})(2x_{max} - x_k - x_l)} / \\max`;
* ``ordinal`` (positions only): :math:`1 - \\binom{|k-l|+1}{2} / \\max`.

A user matrix (array or DataFrame, or a CSV file of one: header = category names, first column
= the row's category) is checked: *q* × *q*, finite, within [0, 1], 1 on the diagonal. A
DataFrame's (or file's) rows and columns are matched to the categories by name.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from os import PathLike
from pathlib import Path
from typing import Literal, get_args

import numpy as np
import pandas as pd

from wordplay_audit.corpora.values import parse_number
from wordplay_audit.errors import InputError, ParameterError

__all__ = [
    "WeightName",
    "WEIGHT_NAMES",
    "Weights",
    "weight_matrix",
    "matrix_of",
    "read_weights",
    "category_scores",
]

#: A family of agreement weights by name.
WeightName = Literal["identity", "linear", "quadratic", "ordinal", "radical", "ratio", "circular", "bipolar"]
#: Every :data:`WeightName`.
WEIGHT_NAMES: tuple[str, ...] = get_args(WeightName)


@dataclass(frozen=True)
class Weights:
    """A checked weight matrix ``(q, q)`` and its name (a family, ``"custom"`` or the file)."""

    name: str
    matrix: np.ndarray

    @property
    def weighted(self) -> bool:
        """False for the identity (unweighted) matrix."""
        return not np.array_equal(self.matrix, np.eye(len(self.matrix)))

    def to_dict(self) -> dict:
        """``{name, matrix}`` (the matrix as nested lists)."""
        return {"name": self.name, "matrix": self.matrix.tolist()}


def category_scores(categories: Sequence[object]) -> np.ndarray:
    """The numbers the category names spell when all are numbers, else positions 1..q."""
    values = [parse_number(c) for c in categories]
    if values and None not in values:
        return np.asarray(values, dtype=float)
    return np.arange(1, len(categories) + 1, dtype=float)


def _scaled(distance: np.ndarray) -> np.ndarray:
    top = distance.max()
    return 1.0 - distance / top if top > 0 else np.eye(len(distance))


def _ratio(x: np.ndarray, diff: np.ndarray) -> np.ndarray:
    if x.min() < 0:
        raise ParameterError(f"weights: 'ratio' needs category values ≥ 0, got {x.min():g}")
    total = x[:, None] + x[None, :]
    ratio = np.divide(diff, total, out=np.zeros_like(diff), where=total != 0) ** 2
    return 1.0 - ratio / ((x.max() - x.min()) / (x.max() + x.min())) ** 2


def _bipolar(x: np.ndarray, diff: np.ndarray) -> np.ndarray:
    total = x[:, None] + x[None, :]
    den = (total - 2 * x.min()) * (2 * x.max() - total)
    off = ~np.eye(len(x), dtype=bool) & (den != 0)
    return _scaled(np.where(off, np.divide(diff**2, den, out=np.zeros_like(diff), where=off), 0.0))


def _ordinal(x: np.ndarray, diff: np.ndarray) -> np.ndarray:
    steps = np.abs(np.arange(len(x))[:, None] - np.arange(len(x))[None, :]) + 1.0
    return _scaled(steps * (steps - 1) / 2)  # n_kl (n_kl - 1)/2, n_kl = |k - l| + 1


_FAMILIES = {
    "linear": lambda x, d: 1.0 - np.abs(d) / (x.max() - x.min()),
    "quadratic": lambda x, d: 1.0 - d**2 / (x.max() - x.min()) ** 2,
    "radical": lambda x, d: 1.0 - np.sqrt(np.abs(d)) / np.sqrt(x.max() - x.min()),
    "ratio": _ratio,
    "circular": lambda x, d: _scaled(np.sin(np.pi * d / (x.max() - x.min() + 1.0)) ** 2),
    "bipolar": _bipolar,
    "ordinal": _ordinal,
}


def _named(name: str, categories: Sequence[object]) -> np.ndarray:
    q = len(categories)
    if name == "identity" or q == 1:
        return np.eye(q)
    x = category_scores(categories) if name != "ordinal" else np.arange(1.0, q + 1)
    if x.max() == x.min():
        raise ParameterError(
            f"weights: {name!r} needs categories of different values, got {list(categories)}"
        )
    return _FAMILIES[name](x, x[:, None] - x[None, :])


def read_weights(path: str | PathLike) -> pd.DataFrame:
    """A weight matrix from a CSV file: a header naming the categories (its first cell names
    the row column), then one row per category, its name first. Numbers only; one-line
    :class:`InputError` naming the file's line otherwise."""
    from wordplay_audit.corpora.tables import read_table

    table = read_table(path)
    if table.shape[1] < 2:
        raise InputError(
            f"{path}: a weight matrix needs a column of category names and one column per category"
        )
    names = table.iloc[:, 0].astype(str).str.strip()
    values = table.iloc[:, 1:].map(parse_number)
    bad = values.isna().to_numpy()
    if bad.any():
        row, col = np.argwhere(bad)[0]
        raise InputError(
            f"{path} line {table.index[row]}: weight for {values.columns[col]!r} is not a number "
            f"({table.iat[row, col + 1]!r})"
        )
    frame = values.astype(float)
    frame.index = pd.Index(names.to_list())
    frame.columns = pd.Index([str(c).strip() for c in frame.columns])
    frame.attrs["source"] = str(path)
    return frame


def _aligned(frame: pd.DataFrame, categories: Sequence[object]) -> np.ndarray:
    """The DataFrame's rows and columns in category order (same names, each once)."""
    names = [str(c) for c in categories]
    where = f"{frame.attrs['source']}: " if "source" in frame.attrs else "weights: "
    for axis, labels in (("rows", frame.index), ("columns", frame.columns)):
        got = [str(x) for x in labels]
        if sorted(got) != sorted(names) or len(set(got)) != len(got):
            raise (InputError if "source" in frame.attrs else ParameterError)(
                f"{where}{axis} name {got}, expected each category once: {names}"
            )
    frame = frame.set_axis([str(x) for x in frame.index], axis=0).set_axis(
        [str(x) for x in frame.columns], axis=1
    )
    return frame.loc[names, names].to_numpy(dtype=float)


def _checked(matrix: np.ndarray, q: int, where: str, error: type) -> np.ndarray:
    if matrix.shape != (q, q):
        raise error(
            f"{where}expected a {q}×{q} matrix (one row and column per category), got shape {matrix.shape}"
        )
    if not np.all(np.isfinite(matrix)) or matrix.min() < 0 or matrix.max() > 1:
        raise error(f"{where}weights must be numbers between 0 and 1")
    if not np.all(np.diag(matrix) == 1):
        raise error(f"{where}the diagonal must be 1 (a category agrees fully with itself)")
    return matrix


def weight_matrix(weights: object, categories: Sequence[object]) -> Weights:
    """The :class:`Weights` of ``weights`` for ``categories`` (in order).

    ``weights``: a family name (:data:`WEIGHT_NAMES`), a *q* × *q* array, a DataFrame with the
    category names on both axes, or the path of a CSV file of one (:func:`read_weights`).
    Raises :class:`ParameterError` (``weights: …``) for an unknown name or a bad matrix, and
    :class:`InputError` naming the file for a bad file.
    """
    q = len(categories)
    if isinstance(weights, Weights):
        return Weights(
            weights.name, _checked(np.asarray(weights.matrix, float), q, "weights: ", ParameterError)
        )
    if isinstance(weights, str) and weights in WEIGHT_NAMES:
        return Weights(weights, _named(weights, categories))
    if isinstance(weights, str | PathLike):
        if not Path(weights).is_file():
            raise ParameterError(
                f"weights: expected one of {', '.join(WEIGHT_NAMES)}, a q×q matrix or a CSV file of one; "
                f"got {str(weights)!r} (no such file)"
            )
        frame = read_weights(weights)
        return Weights(str(weights), _checked(_aligned(frame, categories), q, f"{weights}: ", InputError))
    if isinstance(weights, pd.DataFrame):
        return Weights("custom", _checked(_aligned(weights, categories), q, "weights: ", ParameterError))
    try:
        matrix = np.asarray(weights, dtype=float)
    except (TypeError, ValueError):
        raise ParameterError(
            f"weights: expected one of {', '.join(WEIGHT_NAMES)}, a q×q matrix or a CSV file of one; "
            f"got {type(weights).__name__}"
        ) from None
    return Weights("custom", _checked(matrix, q, "weights: ", ParameterError))


def matrix_of(weights: object, categories: Sequence[object]) -> np.ndarray | None:
    """:func:`weight_matrix` of ``weights`` as an array; None when ``weights`` is None."""
    return None if weights is None else weight_matrix(weights, categories).matrix
