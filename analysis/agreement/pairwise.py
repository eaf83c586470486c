"""Agreement of every pair of raters: Cohen's κ (weighted with ``weights``) with its standard
error and t test, raw agreement, overlap and bias index, from one vectorised self-join of the
ratings."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from wordplay_audit.errors import InputError

from ._common import MAX_PAIRWISE_CELLS, RaterType, warn_undefined
from ._variance import cohen_kappa_se
from .kappa import cohen_kappa
from .tables import RatingTable, as_rating_table

__all__ = [
    "PairwiseAgreement",
    "PairwiseKappa",
    "RatingPairs",
    "rating_pairs",
    "pairwise_agreement",
    "pairwise_kappa",
    "pairwise_fits",
    "cohen_kappa_matrix",
]


def _rater_frame(values: np.ndarray, raters: np.ndarray) -> pd.DataFrame:
    index = pd.Index(raters, name="rater")
    return pd.DataFrame(values, index=index, columns=index.rename("other"))


def _off_diagonal(frame: pd.DataFrame, cast: type = float) -> dict[str, dict[str, Any]]:
    return {str(a): {str(b): cast(v) for b, v in row.items() if b != a} for a, row in frame.iterrows()}


@dataclass(frozen=True)
class PairwiseAgreement:
    """Rater × rater tables (DataFrames indexed and columned by rater; diagonal nan).

    ``kappa``: Cohen's κ on the items both rated; ``n_common``: those items;
    ``agreement``: share of them with the same label; ``bias``: Byrt et al.'s bias index
    generalised as :math:`\\frac12\\sum_k |p_{a,k} - p_{b,k}|` (the two raters' label shares on
    the common items; :math:`|b-c|/n` for two categories); ``confusion``: array
    ``(R, R, K, K)`` of counts, ``confusion[a, b, k, l]`` = items rater *a* put in *k* and *b* in *l*.
    """

    kappa: pd.DataFrame
    n_common: pd.DataFrame
    agreement: pd.DataFrame
    bias: pd.DataFrame
    confusion: np.ndarray

    def to_dict(self) -> dict[str, Any]:
        """``{kappa, n_common, agreement, bias}``, each ``{rater: {other rater: value}}``
        (diagonal left out); ``kappa`` and ``n_common`` are the CLI's ``pairwise_cohen`` and
        ``pairwise_n_common``."""
        return {
            "kappa": _off_diagonal(self.kappa),
            "n_common": _off_diagonal(self.n_common, int),
            "agreement": _off_diagonal(self.agreement),
            "bias": _off_diagonal(self.bias),
        }

    def bias_index(self) -> float:
        """Overlap-weighted mean over rater pairs of the bias index (nan when no pair has a
        common item)."""
        n_ab = self.n_common.to_numpy().astype(float)
        b = self.bias.to_numpy()
        ok = (n_ab > 0) & ~np.isnan(b)
        if not ok.any():
            return float("nan")
        return float((b[ok] * n_ab[ok]).sum() / n_ab[ok].sum())


class RatingPairs(NamedTuple):
    """Every unordered pair of ratings of the same item once (arrays of equal length)."""

    rater_a: np.ndarray
    rater_b: np.ndarray
    label_a: np.ndarray
    label_b: np.ndarray


def rating_pairs(table: RatingTable) -> RatingPairs:
    """Every unordered pair of ratings of the same item, once (which rater comes first is
    arbitrary); :math:`\\sum_i n_i(n_i-1)/2` pairs from one vectorised self-join, no Python
    loop. Compute once and pass to :func:`pairwise_agreement` and
    :func:`.quality.rater_quality` (``pairs=``)."""
    item = table.item
    if len(item) > 1 and (np.diff(item) < 0).any():
        order = np.argsort(item, kind="stable")
        item, rater, label = item[order], table.rater[order], table.label[order]
    else:
        rater, label = table.rater, table.label
    # small integer types keep the pairs of millions of ratings within memory
    rater = rater.astype(np.min_scalar_type(max(table.n_raters - 1, 0)))
    label = label.astype(np.min_scalar_type(max(table.n_categories - 1, 0)))
    index = np.int32 if len(item) < 2**31 - 1 else np.int64
    sizes = np.bincount(item, minlength=table.n_items).astype(index)
    starts = np.cumsum(sizes, dtype=np.int64) - sizes
    partners = (sizes[item] - 1 - (np.arange(len(item), dtype=np.int64) - starts[item])).astype(index)
    ends = np.cumsum(partners, dtype=np.int64)
    total = int(ends[-1]) if len(ends) else 0
    index = np.int32 if total < 2**31 - 1 else np.int64
    first = np.repeat(np.arange(len(item), dtype=index), partners)
    second = first + 1
    second += (np.arange(total, dtype=index) - np.repeat((ends - partners).astype(index), partners)).astype(
        index
    )
    return RatingPairs(rater[first], rater[second], label[first], label[second])


def pairwise_fits(n_raters: int, n_categories: int) -> bool:
    """Whether the ``(R, R, K, K)`` pairwise confusion array stays within
    :data:`~._common.MAX_PAIRWISE_CELLS`."""
    return n_raters * n_raters * n_categories * n_categories <= MAX_PAIRWISE_CELLS


def _pair_confusion(table: RatingTable, pairs: RatingPairs) -> np.ndarray:
    """``(R, R, K, K)`` counts, each pair counted from both sides."""
    r, k = table.n_raters, table.n_categories
    ra, rb, la, lb = pairs
    code = ra.astype(np.int64 if r * r * k * k >= 2**31 else np.int32)  # one array, updated in place
    for factor, part in ((r, rb), (k, la), (k, lb)):
        code *= factor
        code += part
    cells = np.bincount(code, minlength=r * r * k * k)
    confusion = cells.reshape(r, r, k, k)
    return confusion + confusion.transpose(1, 0, 3, 2)


def pairwise_agreement(
    data: pd.DataFrame | RatingTable,
    *,
    categories: Sequence[str] | None = None,
    rater_type: RaterType | None = "human",
    pairs: RatingPairs | None = None,
) -> PairwiseAgreement:
    """Cohen's κ, raw agreement, overlap and bias index for every pair of raters.

    For raters *a*, *b* and the :math:`n_{ab}` items both rated, with confusion counts
    :math:`c_{kl}`: Cohen's κ by :func:`cohen_kappa` — ``sklearn.metrics.cohen_kappa_score`` on
    the same items with ``labels`` = all categories. A pair with no common item has nan
    everywhere; a pair whose common items all carry one label has κ nan (with a warning).
    ``pairs``: the :func:`rating_pairs` of the table when already computed.

    Raises :class:`InputError` when :math:`R^2K^2` exceeds
    :data:`~._common.MAX_PAIRWISE_CELLS` (see :func:`pairwise_fits`).
    """
    table = as_rating_table(data, categories=categories, rater_type=rater_type)
    r = table.n_raters
    if not pairwise_fits(r, table.n_categories):
        raise InputError(
            f"{r} raters × {table.n_categories} categories give too many rater pairs for a "
            f"pairwise table (limit {MAX_PAIRWISE_CELLS:,} confusion cells); select fewer raters"
        )
    confusion = _pair_confusion(table, pairs if pairs is not None else rating_pairs(table))
    n_ab = confusion.sum(axis=(2, 3)).astype(float)
    kappa = cohen_kappa(confusion)
    with np.errstate(invalid="ignore", divide="ignore"):
        p_o = np.trace(confusion, axis1=2, axis2=3) / n_ab
        rows = confusion.sum(axis=3) / n_ab[..., None]
        cols = confusion.sum(axis=2) / n_ab[..., None]
        bias = 0.5 * np.abs(rows - cols).sum(axis=2)
    eye = np.eye(r, dtype=bool)
    for arr in (kappa, p_o, bias):
        arr[eye] = np.nan
    bad = (n_ab > 0) & ~eye & np.isnan(kappa)
    if bad.any():
        a, b = np.argwhere(np.triu(bad))[0]
        warn_undefined(
            f"Cohen's kappa is undefined for raters {table.raters[a]!r} and {table.raters[b]!r} "
            "(their common items all carry one label); returning nan"
        )
    return PairwiseAgreement(
        kappa=_rater_frame(kappa, table.raters),
        n_common=_rater_frame(n_ab.astype(np.int64), table.raters),
        agreement=_rater_frame(p_o, table.raters),
        bias=_rater_frame(bias, table.raters),
        confusion=confusion,
    )


def cohen_kappa_matrix(
    data: pd.DataFrame | RatingTable,
    *,
    categories: Sequence[str] | None = None,
    rater_type: RaterType | None = "human",
) -> pd.DataFrame:
    """Rater × rater Cohen's κ (see :func:`pairwise_agreement`); diagonal nan."""
    return pairwise_agreement(data, categories=categories, rater_type=rater_type).kappa


@dataclass(frozen=True)
class PairwiseKappa:
    """Cohen's κ of every rater pair (weighted unless ``weights`` is ``"identity"``) with its
    analytic SE (:func:`._variance.cohen_kappa_se`), the two-sided t test of κ = 0 and the
    Wald/t interval on :math:`n_{ab} - 1` degrees of freedom (:mod:`.inference`). Rater × rater
    DataFrames, diagonal nan."""

    weights: str
    kappa: pd.DataFrame
    se: pd.DataFrame
    z: pd.DataFrame
    p_value: pd.DataFrame
    ci_low: pd.DataFrame
    ci_high: pd.DataFrame
    n_common: pd.DataFrame
    confidence: float

    def to_dict(self) -> dict[str, dict[str, dict[str, Any]]]:
        """``{rater: {other: {value, reason, se, z, p_value, df, ci_low, ci_high, method,
        confidence, n_common}}}`` (``method`` ``"t"``: the interval is the Wald/t one)."""
        out: dict[str, dict[str, dict[str, Any]]] = {}
        for a in self.kappa.index:
            row = {}
            for b in self.kappa.columns:
                if a == b:
                    continue
                n_ab = int(self.n_common.at[a, b])
                value = float(self.kappa.at[a, b])
                reason = (
                    None if value == value else ("no common item" if n_ab == 0 else "one label on both sides")
                )
                row[str(b)] = {
                    "value": value,
                    "reason": reason,
                    "se": float(self.se.at[a, b]),
                    "z": float(self.z.at[a, b]),
                    "p_value": float(self.p_value.at[a, b]),
                    "df": max(n_ab - 1, 0),
                    "ci_low": float(self.ci_low.at[a, b]),
                    "ci_high": float(self.ci_high.at[a, b]),
                    "method": "t",
                    "confidence": self.confidence,
                    "n_common": n_ab,
                }
            out[str(a)] = row
        return out


def pairwise_kappa(
    pairwise: PairwiseAgreement,
    weights: np.ndarray | None = None,
    *,
    name: str = "identity",
    confidence: float = 0.95,
) -> PairwiseKappa:
    """:class:`PairwiseKappa` from the confusion tables of :func:`pairwise_agreement`;
    ``weights`` a ``(K, K)`` agreement matrix (:func:`.weights.weight_matrix`)."""
    from scipy.special import stdtr, stdtrit  # not scipy.stats: its import takes seconds

    confusion = pairwise.confusion
    raters = pairwise.kappa.index.to_numpy()
    n_ab = confusion.sum(axis=(2, 3)).astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        kappa = cohen_kappa(confusion, weights)
        se = cohen_kappa_se(confusion, weights)
        se = np.where(se > 0, se, np.nan)
        z = kappa / se
        df = np.maximum(n_ab - 1, 1)
        p_value = np.where(n_ab >= 2, 2.0 * stdtr(df, -np.abs(z)), np.nan)
        half = stdtrit(df, (1.0 + confidence) / 2.0) * se
    eye = np.eye(len(raters), dtype=bool)
    frames = []
    for values in (kappa, se, z, p_value, kappa - half, np.minimum(1.0, kappa + half)):
        values = np.where(eye, np.nan, values)
        frames.append(_rater_frame(values, raters))
    return PairwiseKappa(name, *frames, pairwise.n_common, confidence)
