"""Trend tests of Balderdash rates over rounds (issue 4, item 5).

The study reads "no trend over rounds" in LKR (share of a model's players who know one of the
definitions, column ``knows``) and TDR (share whose definition the judge accepts, column
``true_def``) off plots. This module tests it, per model × history type and pooled per model.

Input: one row per (game, round, player), columns ``game_id``, ``round_id`` (1-based),
``player_id``, the ``by`` columns (default ``model``, ``history_type``) and the outcome
(``knows`` or ``true_def``, bool or 0/1).

Round is rescaled to :math:`x = (r - \\bar r)/(R - 1)` with :math:`\\bar r = (R + 1)/2`, the
mean of rounds 1..R, and R the largest ``round_id`` in the table (shared by every cell, so
slopes are comparable). For R = 20 this is :math:`(r - 10.5)/19`: x runs from −0.5 to 0.5 and a
slope is the change from the first to the last round.

Methods (each cell; G = number of games in it):

primary
    *GEE*: marginal logistic model :math:`\\operatorname{logit} P(Y=1) = \\beta_0 + \\beta_1 x`,
    exchangeable working correlation within game, Mancl–DeRouen bias-reduced sandwich; the
    test of :math:`\\beta_1 = 0` and its interval use a t distribution with G − 1 df (the z
    p-value statsmodels reports is kept as ``gee_p_z`` for comparison; with 5 games it is
    anti-conservative). Mancl & DeRouen (2001), *Biometrics* 57:126–134; Li & Redden (2015),
    *Stat Med* 34:281–296.

    *Two-stage*: per game, the OLS slope of the per-round proportion on x (proportion scale);
    then a one-sample t-test of the G slopes against 0 (the "summary measures" approach,
    Matthews et al. 1990, *BMJ* 300:230–235). Valid whatever the correlation within a game.
secondary
    *Mixed model*: linear mixed model on the 0/1 outcome with random intercepts for game and
    player (:func:`analysis.stats_models.mixed_linear_slope`). It assumes one slope shared by
    all games, so its p-value is a valid test only of "no trend in any game"; it is labelled so.
under the judge (``se_sp`` given)
    *Misclassification-adjusted GEE*: the same GEE with the link
    :math:`P(Y=1) = (1 - Sp) + (Se + Sp - 1)\\operatorname{expit}(\\eta)`
    (:class:`analysis.stats_models.MisclassifiedLogit`, a custom statsmodels ``Link``), fitted
    for M draws of :math:`Se \\sim \\text{Beta}(1 + TP, 1 + FN)`,
    :math:`Sp \\sim \\text{Beta}(1 + TN, 1 + FP)` restricted to :math:`Se + Sp > 1`, combined
    by Rubin's rules (:func:`rubin_combine`).

Undefined results are NaN with the reason in ``note`` (fewer than 2 rounds, one game, an outcome
that never varies, a fit that did not converge or diverged).
"""

from __future__ import annotations

import hashlib
import math
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import special, stats
from wordplay_audit.analysis import stats_models
from wordplay_audit.analysis.report import Paragraph, Section, Table
from wordplay_audit.corpora.contract import normalize_bool_label, require_columns

from wordplay_audit.errors import InputError

OUTCOMES = ("knows", "true_def")
POOLED = "all"
ID_COLUMNS = ("game_id", "round_id", "player_id")
MIXED_NOTE = (
    "valid only for 'no trend in any game': common slope, random intercepts for game and "
    "player only (linear probability model, z test)"
)
#: A logit slope per unit rescaled round beyond this (odds ratio e^15 from first to last round)
#: means the fit ran off to infinity (outcome separated by round); reported as NaN.
DIVERGED = 15.0
_LEVEL = 0.95


class DriftWarning(UserWarning):
    """The judge's sensitivity or specificity changes with round in the human sample.

    A drift like that produces a trend in judged outcomes on its own, so trend tests of those
    outcomes (even misclassification-adjusted ones, which assume constant Se and Sp) are not
    to be trusted.
    """


# --------------------------------------------------------------------------- round scale


def rescale_rounds(
    rounds: Sequence[int] | np.ndarray | pd.Series, *, last_round: int | None = None
) -> np.ndarray:
    r"""Rescale 1-based rounds to :math:`x = (r - (R + 1)/2)/(R - 1)`.

    :math:`(R + 1)/2` is the mean of rounds 1..R, and R is ``last_round`` or else the largest
    round given, so x runs from −0.5 (round 1) to 0.5 (round R); for R = 20,
    x = (r − 10.5)/19. A slope per unit x is the change from the first to the last round.
    Shape: (n,) in, (n,) out. R must be at least 2.

    >>> rescale_rounds([1, 20]).tolist()
    [-0.5, 0.5]
    """
    values = np.asarray(rounds, dtype=float)
    if values.size == 0:
        raise InputError("rounds: no values to rescale")
    last = float(values.max()) if last_round is None else float(last_round)
    if last < 2:
        raise InputError(f"rounds: need a last round of at least 2 to rescale, got {last:g}")
    return (values - (last + 1.0) / 2.0) / (last - 1.0)


# --------------------------------------------------------------------------- Rubin's rules


@dataclass(frozen=True)
class RubinResult:
    """Estimates from M analyses combined by Rubin's rules (see :func:`rubin_combine`)."""

    estimate: float
    within: float
    between: float
    total: float
    se: float
    df: float
    pvalue: float
    ci_low: float
    ci_high: float
    draws: int


def rubin_combine(
    estimates: Sequence[float] | np.ndarray,
    variances: Sequence[float] | np.ndarray,
    *,
    df_complete: float,
    level: float = _LEVEL,
) -> RubinResult:
    r"""Combine M estimates :math:`\hat q_m` with variances :math:`U_m` by Rubin's rules.

    .. math::

        \bar q = \tfrac1M\sum_m \hat q_m,\quad
        W = \tfrac1M\sum_m U_m,\quad
        B = \tfrac1{M-1}\sum_m(\hat q_m - \bar q)^2,\quad
        T = W + (1 + 1/M)\,B.

    Degrees of freedom after Barnard & Rubin (1999), *Biometrika* 86:948–955, with
    :math:`\lambda = (1 + 1/M)B/T`, :math:`\nu_{old} = (M - 1)/\lambda^2`,
    :math:`\nu_{obs} = \frac{\nu_{com} + 1}{\nu_{com} + 3}\nu_{com}(1 - \lambda)`,
    :math:`\nu = (1/\nu_{old} + 1/\nu_{obs})^{-1}`, and finally
    :math:`\min(\nu, \nu_{com})` with :math:`\nu_{com}` = ``df_complete`` (G − 1 here).
    The test of :math:`q = 0` and the interval use :math:`t_\nu`. Rubin (1987), *Multiple
    Imputation for Nonresponse in Surveys*, §3.1. Shapes: (M,), M ≥ 2.
    """
    q = np.asarray(estimates, dtype=float).ravel()
    u = np.asarray(variances, dtype=float).ravel()
    if q.size != u.size:
        raise InputError(f"rubin_combine: {q.size} estimates but {u.size} variances")
    if q.size < 2:
        raise InputError(f"rubin_combine: need at least 2 estimates, got {q.size}")
    if not (np.all(np.isfinite(q)) and np.all(np.isfinite(u)) and np.all(u >= 0)):
        raise InputError("rubin_combine: estimates must be finite and variances finite and >= 0")
    if not df_complete > 0:
        raise InputError(f"rubin_combine: df_complete must be > 0, got {df_complete}")
    m = q.size
    qbar = float(q.mean())
    within = float(u.mean())
    between = float(q.var(ddof=1))
    total = within + (1.0 + 1.0 / m) * between
    lam = (1.0 + 1.0 / m) * between / total if total > 0 else 0.0
    nu_old = (m - 1) / lam**2 if lam > 0 else math.inf
    if math.isinf(df_complete):
        nu_obs = math.inf
    else:
        nu_obs = (df_complete + 1.0) / (df_complete + 3.0) * df_complete * (1.0 - lam)
    inv = (0.0 if math.isinf(nu_old) else 1.0 / nu_old) + (
        0.0 if math.isinf(nu_obs) else (1.0 / nu_obs if nu_obs > 0 else math.inf)
    )
    nu = math.inf if inv == 0 else 1.0 / inv
    df = min(nu, df_complete)
    se = math.sqrt(total)
    if se > 0 and df > 0:
        tstat = qbar / se
        pvalue = float(2.0 * stats.t.sf(abs(tstat), df))
        half = float(stats.t.ppf(0.5 + level / 2.0, df)) * se
    else:
        pvalue, half = math.nan, math.nan
    return RubinResult(
        estimate=qbar,
        within=within,
        between=between,
        total=total,
        se=se,
        df=df,
        pvalue=pvalue,
        ci_low=qbar - half,
        ci_high=qbar + half,
        draws=m,
    )


def draw_se_sp(
    counts: tuple[int, int, int, int], draws: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    r"""Draw ``draws`` pairs from :math:`Se \sim \text{Beta}(1 + TP, 1 + FN)`,
    :math:`Sp \sim \text{Beta}(1 + TN, 1 + FP)` (uniform priors, human labels as truth),
    keeping only pairs with :math:`Se + Sp > 1`: a judge worse than chance makes the
    adjusted model unidentified, so that region is excluded (a truncated prior).

    ``counts`` is (TP, FN, TN, FP) of judge against human in the human sample. Raises
    :class:`InputError` when fewer than 1 in 1000 draws is better than chance.
    """
    tp, fn, tn, fp = counts
    se_out: list[float] = []
    sp_out: list[float] = []
    tried = 0
    while len(se_out) < draws:
        batch = max(2 * draws, 64)
        se = rng.beta(1 + tp, 1 + fn, size=batch)
        sp = rng.beta(1 + tn, 1 + fp, size=batch)
        keep = se + sp > 1.0
        se_out.extend(se[keep].tolist())
        sp_out.extend(sp[keep].tolist())
        tried += batch
        if tried >= 1000 * draws and len(se_out) < draws:
            raise InputError(
                f"se_sp counts {counts}: the judge is no better than chance (Se + Sp <= 1 in "
                "almost every posterior draw), so the adjusted model is not identified"
            )
    return np.asarray(se_out[:draws]), np.asarray(sp_out[:draws])


# --------------------------------------------------------------------------- validation


def _where_row(mask: pd.Series) -> int:
    """1-based position of the first True in ``mask`` (the row number shown in messages)."""
    return int(np.flatnonzero(mask.to_numpy())[0]) + 1


def _as_binary(values: pd.Series, column: str, what: str) -> np.ndarray:
    """0/1 floats from a bool, 0/1 or true/false column; InputError naming the first bad row."""
    if values.isna().any():
        raise InputError(
            f"{what} row {_where_row(values.isna())}: column {column!r} is "
            "missing; drop or resolve such rows before the trend tests"
        )
    if pd.api.types.is_bool_dtype(values):
        return values.to_numpy(dtype=float)
    if pd.api.types.is_numeric_dtype(values):
        numeric = values.to_numpy(dtype=float)
        bad = ~np.isin(numeric, (0.0, 1.0))
        if bad.any():
            pos = int(np.flatnonzero(bad)[0])
            raise InputError(
                f"{what} row {pos + 1}: column {column!r} is {values.iloc[pos]!r}, expected "
                "True/False or 1/0"
            )
        return numeric
    out = np.empty(len(values))
    for pos, value in enumerate(values.tolist()):
        if isinstance(value, bool | np.bool_):
            out[pos] = float(value)
            continue
        try:
            out[pos] = 1.0 if normalize_bool_label(value) == "true" else 0.0
        except ValueError:
            raise InputError(
                f"{what} row {pos + 1}: column {column!r} is {value!r}, expected True/False or 1/0"
            ) from None
    return out


def _as_rounds(values: pd.Series, column: str, what: str) -> np.ndarray:
    numeric = pd.to_numeric(values, errors="coerce")
    bad = numeric.isna() | (numeric < 1) | (numeric != np.floor(numeric))
    if bad.any():
        pos = int(np.flatnonzero(bad.to_numpy())[0])
        raise InputError(
            f"{what} row {pos + 1}: column {column!r} is {values.iloc[pos]!r}, expected a "
            "whole number >= 1"
        )
    return numeric.to_numpy(dtype=int)


def _check_frame(frame: object, required: Sequence[str], what: str) -> pd.DataFrame:
    require_columns(frame, required, what)
    if frame.empty:
        raise InputError(f"{what} table has no rows")
    return frame


def _validate_obs(obs: object, outcome: str, by: tuple[str, ...]) -> pd.DataFrame:
    if outcome not in OUTCOMES:
        raise InputError(f"outcome must be one of {', '.join(OUTCOMES)}, got {outcome!r}")
    if not by or any(not isinstance(c, str) for c in by):
        raise InputError(f"by must be a non-empty sequence of column names, got {by!r}")
    if len(set(by)) != len(by) or set(by) & {*ID_COLUMNS, outcome}:
        raise InputError(
            f"by must name distinct grouping columns other than ids and outcome, got {by!r}"
        )
    frame = _check_frame(obs, (*ID_COLUMNS, *by, outcome), "obs")
    for column in ("game_id", "player_id", *by):
        empty = frame[column].isna() | (frame[column].astype(str).str.strip() == "")
        if empty.any():
            raise InputError(f"obs row {_where_row(empty)}: column {column!r} is empty")
    clean = pd.DataFrame({column: frame[column].astype(str).to_numpy() for column in by})
    clean["game_id"] = frame["game_id"].astype(str).to_numpy()
    clean["player_id"] = frame["player_id"].astype(str).to_numpy()
    clean["round_id"] = _as_rounds(frame["round_id"], "round_id", "obs")
    clean["y"] = _as_binary(frame[outcome], outcome, "obs")
    dup = clean.duplicated([*by, *ID_COLUMNS])
    if dup.any():
        pos = int(np.flatnonzero(dup.to_numpy())[0])
        row = clean.iloc[pos]
        raise InputError(
            f"obs row {pos + 1}: game {row['game_id']!r}, round {row['round_id']}, player "
            f"{row['player_id']!r} appears twice in one cell; filter (e.g. one judge_model) or "
            "add the distinguishing column to by"
        )
    return clean


def _validate_se_sp(se_sp: object) -> dict[str, tuple[int, int, int, int]]:
    if not isinstance(se_sp, Mapping):
        raise InputError(f"se_sp must map model -> (TP, FN, TN, FP), got {type(se_sp).__name__}")
    out: dict[str, tuple[int, int, int, int]] = {}
    for model, counts in se_sp.items():
        ok = isinstance(counts, Sequence) and len(counts) == 4
        if ok:
            try:
                ints = tuple(int(c) for c in counts)
                ok = all(i == c and i >= 0 for i, c in zip(ints, counts, strict=True))
            except (TypeError, ValueError):
                ok = False
        if not ok:
            raise InputError(
                f"se_sp[{model!r}] must be four counts (TP, FN, TN, FP) >= 0, got {counts!r}"
            )
        out[str(model)] = ints  # type: ignore[assignment]
    return out


# --------------------------------------------------------------------------- one cell


def _nan_result(with_adj: bool) -> dict[str, object]:
    keys = [
        "slope", "gee_se", "gee_df", "gee_p_t", "gee_ci_low", "gee_ci_high", "gee_p_z",
        "gee_p_z_robust", "twostage_slope", "twostage_p", "mixed_slope", "mixed_p",
    ]  # fmt: skip
    if with_adj:
        keys += ["adj_slope", "adj_se", "adj_df", "adj_p", "adj_ci_low", "adj_ci_high"]
    out: dict[str, object] = {k: math.nan for k in keys}
    out["twostage_games"] = 0
    if with_adj:
        out["adj_draws"] = 0
    return out


def _fit_failed(fit: stats_models.GeeFit) -> str | None:
    slope = fit.params[1]
    if not fit.converged:
        return "did not converge"
    if not (np.isfinite(slope) and np.isfinite(fit.bse[1]) and fit.bse[1] > 0):
        return "gave a non-finite slope or SE"
    if abs(slope) > DIVERGED:
        return "diverged (outcome separated by round)"
    return None


def _two_stage(y: np.ndarray, x: np.ndarray, games: np.ndarray) -> tuple[float, float, int, str]:
    """Mean per-game OLS slope of the per-round proportion on x and its one-sample t-test."""
    per_round = (
        pd.DataFrame({"game": games, "x": x, "y": y})
        .groupby(["game", "x"], as_index=False)["y"]
        .mean()
    )
    grouped = per_round.groupby("game")
    dx = per_round["x"] - grouped["x"].transform("mean")
    dy = per_round["y"] - grouped["y"].transform("mean")
    sums = (
        pd.DataFrame({"game": per_round["game"], "sxy": dx * dy, "sxx": dx * dx})
        .groupby("game")
        .sum()
    )
    sums = sums[sums["sxx"] > 0]
    slopes = (sums["sxy"] / sums["sxx"]).to_numpy()
    used = int(slopes.size)
    if used < 2:
        return math.nan, math.nan, used, "two-stage: fewer than 2 games with 2+ rounds"
    mean = float(slopes.mean())
    if np.ptp(slopes) == 0:
        return mean, math.nan, used, "two-stage: per-game slopes all equal, t undefined"
    return mean, float(stats.ttest_1samp(slopes, 0.0).pvalue), used, ""


def _analyse_cell(
    cell: pd.DataFrame,
    x: np.ndarray,
    *,
    counts: tuple[int, int, int, int] | None,
    with_adj: bool,
    draws: int,
    rng: np.random.Generator | None,
    mixed: bool,
) -> dict[str, object]:
    y = cell["y"].to_numpy(dtype=float)
    games = cell["game_id"].to_numpy()
    n_games = int(pd.unique(games).size)
    n_rounds = int(cell["round_id"].nunique())
    rate = float(y.mean())
    summary: dict[str, object] = {
        "games": n_games, "rounds": n_rounds, "n_obs": int(y.size), "rate": rate,
    }  # fmt: skip
    out = {**summary, **_nan_result(with_adj)}
    out["mixed_note"] = MIXED_NOTE
    reasons = []
    if n_rounds < 2:
        reasons.append("fewer than 2 distinct rounds: no slope")
    if n_games < 2:
        reasons.append("only 1 game: t with G - 1 = 0 df undefined")
    if rate in (0.0, 1.0):
        reasons.append(f"outcome is always {int(rate)}: slope not estimable")
    if reasons:
        out["note"] = "; ".join(reasons)
        return out

    notes: list[str] = []
    exog = np.column_stack([np.ones_like(x), x])
    df = n_games - 1
    tq = float(stats.t.ppf(0.5 + _LEVEL / 2.0, df))

    naive_slope = 0.0
    try:
        fit = stats_models.gee_binomial(y, exog, games)
        problem = _fit_failed(fit)
    except (np.linalg.LinAlgError, ValueError, FloatingPointError) as exc:
        fit, problem = None, f"failed ({type(exc).__name__})"
    if problem or fit is None:
        notes.append(f"GEE {problem}")
    else:
        slope, se = float(fit.params[1]), float(fit.bse[1])
        naive_slope = slope
        out.update(
            slope=slope,
            gee_se=se,
            gee_df=float(df),
            gee_p_t=float(2.0 * stats.t.sf(abs(slope / se), df)),
            gee_ci_low=slope - tq * se,
            gee_ci_high=slope + tq * se,
            gee_p_z=float(fit.pvalues_z[1]),
            gee_p_z_robust=float(2.0 * stats.norm.sf(abs(slope / fit.bse_robust[1]))),
        )

    ts_slope, ts_p, ts_games, ts_note = _two_stage(y, x, games)
    out.update(twostage_slope=ts_slope, twostage_p=ts_p, twostage_games=ts_games)
    if ts_note:
        notes.append(ts_note)

    if mixed:
        players = (cell["game_id"] + "\x1f" + cell["player_id"]).to_numpy()
        try:
            mfit = stats_models.mixed_linear_slope(y, x, games, players)
            if mfit.converged and np.isfinite(mfit.slope) and np.isfinite(mfit.pvalue):
                out.update(mixed_slope=mfit.slope, mixed_p=mfit.pvalue)
            else:
                notes.append("mixed model did not converge")
        except (np.linalg.LinAlgError, ValueError, FloatingPointError) as exc:
            notes.append(f"mixed model failed ({type(exc).__name__})")
    else:
        out["mixed_note"] = "not fitted"

    if with_adj:
        if counts is None or rng is None:
            notes.append("adjusted: no Se/Sp counts for this model")
        else:
            notes.extend(_adjusted(out, y, exog, games, counts, draws, rng, naive_slope, df))
    out["note"] = "; ".join(notes)
    return out


def _adjusted(
    out: dict[str, object],
    y: np.ndarray,
    exog: np.ndarray,
    games: np.ndarray,
    counts: tuple[int, int, int, int],
    draws: int,
    rng: np.random.Generator,
    naive_slope: float,
    df: int,
) -> list[str]:
    se_draws, sp_draws = draw_se_sp(counts, draws, rng)
    estimates, variances = [], []
    rate = float(y.mean())
    for se, sp in zip(se_draws, sp_draws, strict=True):
        floor, span = 1.0 - sp, se + sp - 1.0
        start = np.array([special.logit(np.clip((rate - floor) / span, 0.02, 0.98)), naive_slope])
        try:
            fit = stats_models.gee_binomial(
                y, exog, games, sensitivity=se, specificity=sp, start_params=start
            )
        except (np.linalg.LinAlgError, ValueError, FloatingPointError):
            continue
        if _fit_failed(fit) is None:
            estimates.append(float(fit.params[1]))
            variances.append(float(fit.bse[1]) ** 2)
    notes = []
    if len(estimates) < draws:
        notes.append(f"adjusted: {draws - len(estimates)} of {draws} Se/Sp draws did not fit")
    out["adj_draws"] = len(estimates)
    if len(estimates) < 2:
        notes.append("adjusted: fewer than 2 draws fitted, no estimate")
        return notes
    pooled = rubin_combine(estimates, variances, df_complete=float(df))
    out.update(
        adj_slope=pooled.estimate,
        adj_se=pooled.se,
        adj_df=pooled.df,
        adj_p=pooled.pvalue,
        adj_ci_low=pooled.ci_low,
        adj_ci_high=pooled.ci_high,
    )
    return notes


def _model_rng(seed: int, model: str) -> np.random.Generator:
    """A generator that depends only on ``seed`` and the model, not on the other cells."""
    key = int.from_bytes(hashlib.sha256(model.encode("utf-8")).digest()[:8], "little")
    return np.random.default_rng([seed, key])


# --------------------------------------------------------------------------- public entry


def trend_tests(
    obs: pd.DataFrame,
    *,
    outcome: str = "knows",
    by: Sequence[str] = ("model", "history_type"),
    pooled: bool = True,
    se_sp: Mapping[str, tuple[int, int, int, int]] | None = None,
    draws: int = 20,
    seed: int = 0,
    mixed: bool = True,
) -> pd.DataFrame:
    r"""Test for a trend over rounds in ``outcome``, one row per cell of ``by``.

    ``obs``: one row per (game, round, player); see the module docstring for columns.
    ``pooled``: add one row per value of ``by[0]`` (the model) with the other ``by`` columns set
    to ``"all"`` (nothing is added when ``by`` has one column). ``se_sp``: the judge's
    confusion counts (TP, FN, TN, FP) against humans, keyed by model (needs ``"model"`` in
    ``by``); adds the misclassification-adjusted columns from ``draws`` posterior draws of
    (Se, Sp), random numbers seeded by ``seed`` and the model only. ``mixed=False`` skips the
    (slow) mixed model.

    Returns a DataFrame with the ``by`` columns and ``outcome``, ``games`` (G), ``rounds``,
    ``n_obs``, ``rate``; GEE: ``slope`` (logit scale, per unit x = first to last round),
    ``gee_se`` (bias-reduced), ``gee_df`` (G − 1), ``gee_p_t``, ``gee_ci_low``/``gee_ci_high``
    (95 %, t), ``gee_p_z`` (same SE, normal: what statsmodels reports), ``gee_p_z_robust``
    (ordinary sandwich, normal); two-stage: ``twostage_slope`` (mean per-game slope,
    proportion scale), ``twostage_games``, ``twostage_p``; mixed: ``mixed_slope``
    (proportion scale), ``mixed_p``, ``mixed_note``; with ``se_sp``: ``adj_slope`` (logit
    scale), ``adj_se``, ``adj_df`` (Barnard–Rubin, at most G − 1), ``adj_p``,
    ``adj_ci_low``/``adj_ci_high``, ``adj_draws`` (draws that fitted); and ``note``, empty
    unless something is undefined. References are in the module docstring.
    """
    by = tuple(by) if not isinstance(by, str) else (by,)
    clean = _validate_obs(obs, outcome, by)
    counts_by_model = None
    if se_sp is not None:
        if "model" not in by:
            raise InputError("se_sp is keyed by model, so by must include 'model'")
        counts_by_model = _validate_se_sp(se_sp)
    if isinstance(draws, bool) or not isinstance(draws, int | np.integer) or draws < 2:
        raise InputError(f"draws must be a whole number >= 2 (Rubin's rules), got {draws!r}")
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        raise InputError(f"seed must be a whole number >= 0, got {seed!r}")
    last_round = int(clean["round_id"].max())
    if last_round >= 2:
        clean["x"] = rescale_rounds(clean["round_id"], last_round=last_round)
    else:
        clean["x"] = 0.0
    clean = clean.sort_values([*by, "game_id", "round_id", "player_id"], kind="stable")

    cells: list[tuple[dict[str, str], pd.DataFrame]] = []
    for first, block in clean.groupby(by[0], sort=True):
        for key, cell in block.groupby(list(by), sort=True):
            cells.append((dict(zip(by, key, strict=True)), cell))
        if pooled and len(by) > 1:
            labels = {by[0]: str(first), **{c: POOLED for c in by[1:]}}
            cells.append((labels, block))

    rows = []
    for labels, cell in cells:
        model = labels.get("model")
        counts = counts_by_model.get(model) if counts_by_model is not None and model else None
        rng = _model_rng(int(seed), model) if counts is not None and model else None
        if cell.duplicated(list(ID_COLUMNS)).any():
            result = {
                "games": int(cell["game_id"].nunique()), "rounds": int(cell["round_id"].nunique()),
                "n_obs": len(cell), "rate": float(cell["y"].mean()),
                **_nan_result(counts_by_model is not None), "mixed_note": MIXED_NOTE,
                "note": "pooling counts a (game, round, player) twice: not tested",
            }  # fmt: skip
        else:
            result = _analyse_cell(
                cell,
                cell["x"].to_numpy(dtype=float),
                counts=counts,
                with_adj=counts_by_model is not None,
                draws=int(draws),
                rng=rng,
                mixed=mixed,
            )
        rows.append({**labels, "outcome": outcome, **result})
    columns = [
        *by, "outcome", "games", "rounds", "n_obs", "rate",
        "slope", "gee_se", "gee_df", "gee_p_t", "gee_ci_low", "gee_ci_high", "gee_p_z",
        "gee_p_z_robust", "twostage_slope", "twostage_games", "twostage_p",
        "mixed_slope", "mixed_p", "mixed_note",
    ]  # fmt: skip
    if counts_by_model is not None:
        columns += [
            "adj_slope",
            "adj_se",
            "adj_df",
            "adj_p",
            "adj_ci_low",
            "adj_ci_high",
            "adj_draws",
        ]
    columns.append("note")
    return pd.DataFrame(rows, columns=columns)


# --------------------------------------------------------------------------- report


_SHOWN = (
    "labels", "model", "history_type", "outcome", "games", "n_obs", "rate", "slope", "gee_ci_low",
    "gee_ci_high", "gee_p_t", "gee_p_z", "twostage_slope", "twostage_p", "mixed_slope",
    "mixed_p", "adj_slope", "adj_ci_low", "adj_ci_high", "adj_p", "note",
)  # fmt: skip


def trend_section(table: pd.DataFrame) -> Section:
    """Report section for a :func:`trend_tests` table: how to read it, the table, the caveats."""
    frame = _check_frame(table, ("outcome", "games", "slope", "gee_p_t", "note"), "trend")
    shown = frame[[c for c in _SHOWN if c in frame.columns]]
    outcomes = ", ".join(sorted(set(frame["outcome"].astype(str))))
    blocks = [
        Paragraph(
            "Trend over rounds, per model and history type ('all' pools history types). "
            "Round is rescaled so a slope is the change from the first to the last round. "
            "Primary: GEE logistic slope (logit scale), exchangeable correlation within game, "
            "Mancl-DeRouen bias-reduced SE, p-value and 95% interval from t with G - 1 df "
            "(G = games); gee_p_z is the normal-reference p-value statsmodels prints, shown "
            "for comparison only (too small with few games). Two-stage: a least-squares slope "
            "of the per-round proportion per game (proportion scale), then a one-sample t-test "
            "across games."
        ),
        Table(shown, caption=f"Trend tests ({outcomes})"),
        Paragraph(f"Mixed model (secondary): {MIXED_NOTE}."),
        Paragraph(
            "A p-value above 0.05 is not evidence of no trend: with a handful of games the "
            "intervals are wide. Read 'no trend' only where the whole interval lies inside "
            "the smallest change that would matter."
        ),
    ]
    if "adj_slope" in frame.columns:
        blocks.append(
            Paragraph(
                "adj_*: slope corrected for the judge's errors, P(judged true) = (1 - Sp) + "
                "(Se + Sp - 1) expit(eta), over posterior draws of Se and Sp from the human "
                "sample, combined by Rubin's rules. It assumes Se and Sp do not change with "
                "round; check with se_sp_drift."
            )
        )
    return Section("Trend over rounds", blocks)


# --------------------------------------------------------------------------- judge drift


@dataclass(frozen=True)
class DriftResult:
    """Round effects on the judge's sensitivity and specificity in the human sample.

    ``se_slope``/``sp_slope``: logit-scale change in P(judge true | human true) and
    P(judge false | human false) from the first to the last round; ``se_p``/``sp_p`` their
    likelihood-ratio p-values (NaN when the agreement never varies or there is no data);
    ``drift`` is True when either p is below ``alpha``.
    """

    drift: bool
    se_p: float
    sp_p: float
    se_slope: float
    sp_slope: float
    n_positive: int
    n_negative: int
    note: str


def se_sp_drift(
    sample: pd.DataFrame,
    *,
    human: str = "human",
    judge: str = "judge",
    round_col: str = "round_id",
    alpha: float = 0.05,
) -> DriftResult:
    r"""Test whether the judge's Se or Sp drifts with round; warn with :class:`DriftWarning`.

    ``sample``: one row per human-labelled item, with the human label (``human``, taken as
    truth), the judge's label (``judge``) — bool, 0/1 or true/false — and the item's round.
    Among human-positive items, :math:`\operatorname{logit} P(\text{judge} = 1) = a + b\,x`
    (Se drift); among human-negative items, :math:`\operatorname{logit} P(\text{judge} = 0) =
    a + b\,x` (Sp drift); x is the rescaled round (:func:`rescale_rounds`). Each :math:`b = 0`
    is tested by a likelihood-ratio test (:func:`analysis.stats_models.logit_slope_lr`).
    A drift of either kind makes a trend in judged outcomes without any trend in the truth,
    and breaks the constant-(Se, Sp) assumption of the adjusted trend test.

    Two tests at ``alpha`` each: with no drift, the flag is raised up to about 2·alpha of the
    time (a warning errs on the side of noise). Items are treated as independent; items from
    the same game are not, which makes the p-values somewhat too small.
    """
    frame = _check_frame(sample, (human, judge, round_col), "human sample")
    if not 0 < alpha < 1:
        raise InputError(f"alpha must lie in (0, 1), got {alpha!r}")
    truth = _as_binary(frame[human], human, "human sample")
    verdict = _as_binary(frame[judge], judge, "human sample")
    rounds = _as_rounds(frame[round_col], round_col, "human sample")
    x = rescale_rounds(rounds) if rounds.max() >= 2 else np.zeros(rounds.size)
    positive, negative = truth == 1.0, truth == 0.0
    se_fit = stats_models.logit_slope_lr(verdict[positive], x[positive])
    sp_fit = stats_models.logit_slope_lr(1.0 - verdict[negative], x[negative])
    notes = []
    for name, fit in (("Se", se_fit), ("Sp", sp_fit)):
        if not np.isfinite(fit.pvalue):
            notes.append(f"{name}: no test (no items, one round, or agreement never varies)")
    flagged = [
        f"{name} (p = {fit.pvalue:.3g})"
        for name, fit in (("Se", se_fit), ("Sp", sp_fit))
        if np.isfinite(fit.pvalue) and fit.pvalue < alpha
    ]
    if flagged:
        warnings.warn(
            f"judge {' and '.join(flagged)} changes with round in the human sample; a trend in "
            "judged outcomes may come from the judge alone",
            DriftWarning,
            stacklevel=2,
        )
    return DriftResult(
        drift=bool(flagged),
        se_p=se_fit.pvalue,
        sp_p=sp_fit.pvalue,
        se_slope=se_fit.slope,
        sp_slope=sp_fit.slope,
        n_positive=int(positive.sum()),
        n_negative=int(negative.sum()),
        note="; ".join(notes),
    )
