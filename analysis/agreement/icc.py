"""Intraclass correlation in the six Shrout & Fleiss (1979) forms, with F tests and exact intervals.

On the complete rows of the item × rater matrix (*n* items, each rated by all *k* raters;
:mod:`._matrix`), the ANOVA mean squares are :math:`MS_R` (items, *n* − 1 df), :math:`MS_W`
(within items, *n*(*k* − 1) df), :math:`MS_C` (raters, *k* − 1 df) and :math:`MS_E` (residual,
(*n* − 1)(*k* − 1) df); every form is a ratio of them:

=======  ====================================================================  ==================
form     value                                                                 F, df
=======  ====================================================================  ==================
ICC1     :math:`(MS_R-MS_W)/(MS_R+(k-1)MS_W)`                                  :math:`MS_R/MS_W`, n−1, n(k−1)
ICC2     :math:`(MS_R-MS_E)/(MS_R+(k-1)MS_E+k(MS_C-MS_E)/n)`                   :math:`MS_R/MS_E`, n−1, (n−1)(k−1)
ICC3     :math:`(MS_R-MS_E)/(MS_R+(k-1)MS_E)`                                  :math:`MS_R/MS_E`
ICC1k    :math:`(MS_R-MS_W)/MS_R`                                              as ICC1
ICC2k    :math:`(MS_R-MS_E)/(MS_R+(MS_C-MS_E)/n)`                              as ICC2
ICC3k    :math:`(MS_R-MS_E)/MS_R`                                              as ICC3
=======  ====================================================================  ==================

The F tests are of ICC = 0 (one-sided). Intervals: the exact F intervals of Shrout & Fleiss
(1979) for ICC1, ICC3 and their *k* forms; for ICC2 and ICC2k the generalized confidence interval
(``_icc2_generalized``), because McGraw & Wong's (1996) Satterthwaite interval — kept beside
it as ``mcgraw_wong`` (its average-measure bounds the Spearman–Brown transforms of the single
ones, equal to their Table 7), the one R psych, irr and pingouin print — covers 87–93 % with
two to five raters whose offsets vary (``benchmarks/results/sim_icc_coverage.csv``). Names as R psych and pingouin: ICC1 = ICC(1,1), ICC2 = ICC(2,1) =
McGraw–Wong ICC(A,1), ICC3 = ICC(3,1) = ICC(C,1), and ``k`` for the mean of the *k* raters.

**Incomplete items are left out** (listwise, as R irr, psych and pingouin): the two-way forms
need every rater on every item; the count is ``n_left_out``. Undefined cases — one rater, fewer
than two complete items, every rating equal — give null numbers with a reason, never an error.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal, get_args

import numpy as np
import pandas as pd
from scipy import special

from wordplay_audit.errors import ParameterError, check_choice

from ._common import RaterType, check_confidence
from ._matrix import ScoreMatrix, score_matrix
from .tables import RatingTable

__all__ = [
    "ICCEstimate",
    "ICCForm",
    "ICCResult",
    "ICC_FORMS",
    "check_forms",
    "icc",
    "icc_of_matrix",
    "mean_squares",
]

#: An ICC form by its name (Shrout & Fleiss 1979; McGraw & Wong 1996).
ICCForm = Literal["ICC1", "ICC2", "ICC3", "ICC1k", "ICC2k", "ICC3k"]
#: The six forms, in the order R psych and pingouin print them.
ICC_FORMS: tuple[str, ...] = get_args(ICCForm)

DESCRIPTIONS = {
    "ICC1": "one-way random effects, absolute agreement, single rater: ICC(1,1)",
    "ICC2": "two-way random effects, absolute agreement, single rater: ICC(2,1) = McGraw-Wong ICC(A,1)",
    "ICC3": "two-way mixed effects, consistency, single rater: ICC(3,1) = McGraw-Wong ICC(C,1)",
    "ICC1k": "one-way random effects, absolute agreement, mean of k raters: ICC(1,k)",
    "ICC2k": "two-way random effects, absolute agreement, mean of k raters: ICC(2,k) = ICC(A,k)",
    "ICC3k": "two-way mixed effects, consistency, mean of k raters: ICC(3,k) = ICC(C,k)",
}


@dataclass(frozen=True)
class ICCEstimate:
    """One form: ``value``, its ``confidence`` interval ``ci_low``–``ci_high`` (``ci_method``), the
    F test of ICC = 0 (``F``, ``df1``, ``df2``, ``p_value``); for ICC2 and ICC2k also McGraw &
    Wong's interval ``mcgraw_wong`` (what R psych, irr and pingouin print). ``reason`` says why
    ``value`` is None, ``ci_reason`` why the interval or test is None."""

    form: str
    value: float | None
    ci_low: float | None
    ci_high: float | None
    F: float | None
    df1: float | None
    df2: float | None
    p_value: float | None
    confidence: float
    reason: str | None = None
    ci_reason: str | None = None
    ci_method: str | None = None
    mcgraw_wong: tuple[float, float] | None = None

    @property
    def description(self) -> str:
        return DESCRIPTIONS[self.form]

    def to_dict(self) -> dict[str, Any]:
        """``{value, ci_low, ci_high, F, df1, df2, p_value, description, confidence, reason,
        ci_reason, ci_method, mcgraw_wong_low, mcgraw_wong_high}``."""
        return {
            "value": self.value,
            "ci_low": self.ci_low,
            "ci_high": self.ci_high,
            "F": self.F,
            "df1": self.df1,
            "df2": self.df2,
            "p_value": self.p_value,
            "description": self.description,
            "confidence": self.confidence,
            "reason": self.reason,
            "ci_reason": self.ci_reason,
            "ci_method": self.ci_method,
            "mcgraw_wong_low": self.mcgraw_wong[0] if self.mcgraw_wong else None,
            "mcgraw_wong_high": self.mcgraw_wong[1] if self.mcgraw_wong else None,
        }


@dataclass(frozen=True)
class ICCResult:
    """The requested forms (``estimates`` by name), the items and raters they read (``n_items``
    complete items, ``n_left_out`` incomplete ones left out) and the mean squares."""

    estimates: dict[str, ICCEstimate]
    n_items: int
    n_raters: int
    n_left_out: int
    mean_squares: dict[str, float | None]

    def __getitem__(self, form: str) -> ICCEstimate:
        return self.estimates[form]

    def to_dict(self) -> dict[str, dict[str, Any]]:
        """``{form: estimate.to_dict()}`` (the ``icc`` entry of ``analyze agreement --json``)."""
        return {form: est.to_dict() for form, est in self.estimates.items()}

    def frame(self) -> pd.DataFrame:
        """One row per form: value, interval, F, df1, df2, p_value, description."""
        rows = [{"form": f, **e.to_dict()} for f, e in self.estimates.items()]
        return pd.DataFrame(rows).set_index("form")


def mean_squares(values: np.ndarray) -> dict[str, float]:
    """:math:`MS_R, MS_W, MS_C, MS_E` of a complete ``(n, k)`` matrix (n ≥ 2, k ≥ 2); the
    residual and within sums are summed directly, not as differences, so a perfect fit gives 0."""
    n, k = values.shape
    grand = values.mean()
    row = values.mean(axis=1)
    col = values.mean(axis=0)
    ss_rows = k * float(np.square(row - grand).sum())
    ss_cols = n * float(np.square(col - grand).sum())
    within = values - row[:, None]
    ss_within = float(np.square(within).sum())
    ss_error = float(np.square(within - (col - grand)[None, :]).sum())
    return {
        "MSR": ss_rows / (n - 1),
        "MSW": ss_within / (n * (k - 1)),
        "MSC": ss_cols / (k - 1),
        "MSE": ss_error / ((n - 1) * (k - 1)),
    }


def _null(form: str, confidence: float, reason: str) -> ICCEstimate:
    return ICCEstimate(form, None, None, None, None, None, None, None, confidence, reason, reason)


def _spearman_brown(r: float, k: int) -> float:
    return k * r / (1.0 + (k - 1) * r)


def _f_bounds(f_value: float, df1: float, df2: float, q: float) -> tuple[float, float]:
    """Shrout & Fleiss's :math:`F_L = F/F_q(df_1, df_2)` and :math:`F_U = F\\,F_q(df_2, df_1)`
    (quantiles by :func:`scipy.special.fdtri`, the function behind ``scipy.stats.f.ppf``)."""
    return f_value / special.fdtri(df1, df2, q), f_value * special.fdtri(df2, df1, q)


def _icc2_bounds(ms: dict[str, float], r2: float, n: int, k: int, q: float) -> tuple[float, float]:
    """McGraw & Wong (1996) Table 7, ICC(A,1): Satterthwaite's *v* for the denominator
    :math:`a\\,MS_C + b\\,MS_E`."""
    msr, msc, mse = ms["MSR"], ms["MSC"], ms["MSE"]
    a = k * r2 / (n * (1.0 - r2))
    b = 1.0 + k * r2 * (n - 1) / (n * (1.0 - r2))
    denom = (a * msc) ** 2 / (k - 1) + (b * mse) ** 2 / ((n - 1) * (k - 1))
    v = (a * msc + b * mse) ** 2 / denom
    fl, fu = special.fdtri(n - 1, v, q), special.fdtri(v, n - 1, q)
    spread = k * msc + (k * n - k - n) * mse
    low = n * (msr - fl * mse) / (fl * spread + n * msr)
    high = n * (fu * msr - mse) / (spread + n * fu * msr)
    return float(low), float(high)


def _estimate(form: str, ms: dict[str, float], n: int, k: int, confidence: float) -> ICCEstimate:
    """One form from the mean squares (n ≥ 2, k ≥ 2)."""
    msr, msw, msc, mse = ms["MSR"], ms["MSW"], ms["MSC"], ms["MSE"]
    scale = max(msr, msw, msc, mse)
    tiny = 1e-12 * scale
    oneway = form.startswith("ICC1")
    err = msw if oneway else mse
    single = not form.endswith("k")
    if form in ("ICC1", "ICC3"):
        den = msr + (k - 1) * err
    elif form == "ICC2":
        den = msr + (k - 1) * mse + k * (msc - mse) / n
    elif form == "ICC2k":
        den = msr + (msc - mse) / n
    else:  # ICC1k, ICC3k
        den = msr
    if scale <= 0 or den <= tiny:
        why = "every rating is equal" if scale <= 0 else "no variance between items (MS_R = 0)"
        return _null(form, confidence, f"{why}: the ICC's denominator is 0")
    value = float((msr - err) / den)
    df1, df2 = float(n - 1), float(n * (k - 1) if oneway else (n - 1) * (k - 1))
    if err <= tiny:
        why = "no within-item variance" if oneway else "no residual variance"
        return ICCEstimate(form, value, None, None, None, df1, df2, None, confidence, None,
                           f"{why}: F is infinite")  # fmt: skip
    f_value = msr / err
    p_value = float(special.fdtrc(df1, df2, f_value))  # scipy.stats.f.sf without its overhead
    q = 1.0 - (1.0 - confidence) / 2.0
    if form.startswith("ICC2"):
        mw = _icc2_bounds(ms, _icc2_single(ms, n, k), n, k, q)
        if not single:
            mw = (_spearman_brown(mw[0], k), _spearman_brown(mw[1], k))
        low, high = _icc2_generalized(ms, n, k, confidence, average=not single)
        return ICCEstimate(form, value, low, high, float(f_value), df1, df2, p_value, confidence,
                           ci_method=GENERALIZED, mcgraw_wong=(float(mw[0]), float(mw[1])))  # fmt: skip
    fl, fu = _f_bounds(f_value, df1, df2, q)
    if single:
        low, high = (fl - 1) / (fl + k - 1), (fu - 1) / (fu + k - 1)
    else:
        low, high = 1 - 1 / fl, 1 - 1 / fu
    return ICCEstimate(form, value, float(low), float(high), float(f_value), df1, df2, p_value, confidence,
                       ci_method="exact F (Shrout & Fleiss 1979)")  # fmt: skip


#: Draws of the generalized pivotal quantity behind the ICC2 / ICC2k interval, and their seed.
GPQ_DRAWS, GPQ_SEED = 20_000, 0
GENERALIZED = f"generalized pivotal quantity ({GPQ_DRAWS:,} draws, seed {GPQ_SEED})"


def _icc2_generalized(
    ms: dict[str, float], n: int, k: int, confidence: float, *, average: bool
) -> tuple[float, float]:
    """The generalized confidence interval (Weerahandi 1993) of ICC2 (``average``: ICC2k).

    :math:`SS_R/(k\\sigma_a^2+\\sigma_e^2)`, :math:`SS_C/(n\\sigma_b^2+\\sigma_e^2)` and
    :math:`SS_E/\\sigma_e^2` are independent :math:`\\chi^2` with n−1, k−1, (n−1)(k−1) df; with
    :math:`U_R, U_C, U_E` draws of those, :math:`G_X = SS_X/U_X` are the pivotal quantities of the
    three expected mean squares and the ICC's is its formula in them,
    :math:`(G_R-G_E)/(G_R+(k-1)G_E+k(G_C-G_E)/n)` (ICC2k: :math:`(G_R-G_E)/(G_R+(G_C-G_E)/n)`);
    the bounds are its α/2 and 1−α/2 quantiles. Seeded, so the same data give the same interval.
    Unlike McGraw & Wong's Satterthwaite interval it keeps the k−1 degrees of freedom of the
    rater variance exact, which is what holds its coverage with few raters
    (``benchmarks/sim_icc_coverage.py``).
    """
    rng = np.random.default_rng(GPQ_SEED)
    g_r = ms["MSR"] * (n - 1) / rng.chisquare(n - 1, GPQ_DRAWS)
    g_c = ms["MSC"] * (k - 1) / rng.chisquare(k - 1, GPQ_DRAWS)
    g_e = ms["MSE"] * (n - 1) * (k - 1) / rng.chisquare((n - 1) * (k - 1), GPQ_DRAWS)
    if average:
        pivot = (g_r - g_e) / (g_r + (g_c - g_e) / n)
    else:
        pivot = (g_r - g_e) / (g_r + (k - 1) * g_e + k * (g_c - g_e) / n)
    alpha = 1.0 - confidence
    low, high = np.quantile(pivot, [alpha / 2, 1 - alpha / 2])
    return float(low), float(high)


def _icc2_single(ms: dict[str, float], n: int, k: int) -> float:
    msr, msc, mse = ms["MSR"], ms["MSC"], ms["MSE"]
    return (msr - mse) / (msr + (k - 1) * mse + k * (msc - mse) / n)


def check_forms(forms: Sequence[str], name: str = "forms") -> tuple[str, ...]:
    """``forms`` as a tuple of :data:`ICC_FORMS` names; ParameterError naming ``name`` otherwise."""
    if isinstance(forms, str):
        forms = [forms]
    chosen = tuple(check_choice(name, f, ICC_FORMS) for f in forms)
    if not chosen:
        raise ParameterError(f"{name}: empty; choose from {', '.join(ICC_FORMS)}")
    return chosen


def icc_of_matrix(
    matrix: ScoreMatrix, *, forms: Sequence[str] = ICC_FORMS, confidence: float = 0.95
) -> ICCResult:
    """The ``forms`` of a :class:`~._matrix.ScoreMatrix` (complete rows)."""
    chosen = check_forms(forms)
    confidence = check_confidence(confidence)
    n, k = matrix.n_items, matrix.n_raters
    if k < 2 or n < 2:
        why = (
            f"{k} rater{'s' if k != 1 else ''}: ICC needs two or more raters on each item"
            if k < 2
            else f"{n} item{'s' if n != 1 else ''} rated by all {k} raters (of "
            f"{n + matrix.n_left_out}): ICC needs two or more complete items (raters that rotate over "
            "items: Krippendorff's alpha at the interval level reads them)"
        )
        estimates = {f: _null(f, confidence, why) for f in chosen}
        return ICCResult(estimates, n, k, matrix.n_left_out, dict.fromkeys(("MSR", "MSW", "MSC", "MSE")))
    ms = mean_squares(matrix.values)
    estimates = {f: _estimate(f, ms, n, k, confidence) for f in chosen}
    return ICCResult(estimates, n, k, matrix.n_left_out, ms)


def icc(
    data: pd.DataFrame | RatingTable | np.ndarray,
    *,
    forms: Sequence[str] = ICC_FORMS,
    confidence: float = 0.95,
    rater_type: RaterType | None = "human",
) -> ICCResult:
    """Intraclass correlations of numeric ratings: a labels table (numeric ``label``), a
    :class:`~.tables.RatingTable`, or an ``(n items, k raters)`` array with nan for a missing
    rating. Items not rated by every rater are left out and counted (``n_left_out``).

    >>> r = icc([[9, 2, 5, 8], [6, 1, 3, 2], [8, 4, 6, 8], [7, 1, 2, 6], [10, 5, 6, 9], [6, 2, 4, 7]])
    >>> round(r["ICC1"].value, 2), round(r["ICC2"].value, 2), round(r["ICC3k"].value, 2)
    (0.17, 0.29, 0.91)
    """
    return icc_of_matrix(score_matrix(data, rater_type=rater_type), forms=forms, confidence=confidence)
