"""Trend tests of Balderdash rates over rounds.

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
    Where that fit is singular, the model with game intercepts only is used
    (:func:`analysis.stats_models.mixed_linear_slope_fallback`); ``mixed_structure`` says which.
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
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
from scipy import special, stats

from wordplay_audit.analysis import stats_models
from wordplay_audit.analysis.balderdash.misclassification import draw_se_sp, rubin_combine
from wordplay_audit.analysis.balderdash.trend_inputs import (
    ID_COLUMNS,
    rescale_rounds,
    validate_obs,
    validate_se_sp,
)
from wordplay_audit.analysis.gee_exchangeable import ExchangeableGee, gee_fit
from wordplay_audit.corpora.progress import progress as bar_over
from wordplay_audit.errors import ParameterError

POOLED = "all"
MIXED_NOTE = (
    "valid only for 'no trend in any game': common slope, random intercepts for game and "
    "player only (linear probability model, z test)"
)
#: A logit slope per unit rescaled round beyond this (odds ratio e^15 from first to last round)
#: means the fit ran off to infinity (outcome separated by round); reported as NaN.
DIVERGED = 15.0
_LEVEL = 0.95


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
    _, game = np.unique(games, return_inverse=True)
    levels, step = np.unique(x, return_inverse=True)
    cell = game * levels.size + step  # (game, round) cells present, in sorted order
    present, at = np.unique(cell, return_inverse=True)
    share = np.bincount(at, weights=y) / np.bincount(at)
    owner, rx = present // levels.size, levels[present % levels.size]
    rounds = np.bincount(owner).astype(float)
    dx = rx - (np.bincount(owner, weights=rx) / rounds)[owner]
    dy = share - (np.bincount(owner, weights=share) / rounds)[owner]
    sxx, sxy = np.bincount(owner, weights=dx * dx), np.bincount(owner, weights=dx * dy)
    slopes = sxy[sxx > 0] / sxx[sxx > 0]
    used = int(slopes.size)
    if used < 2:
        return math.nan, math.nan, used, "two-stage: fewer than 2 games with 2+ rounds"
    mean = float(slopes.mean())
    if np.ptp(slopes) <= 1e-12:  # equal up to rounding
        return mean, math.nan, used, "two-stage: per-game slopes all equal, t undefined"
    return mean, float(stats.ttest_1samp(slopes, 0.0).pvalue), used, ""


def _undefined(n_rounds: int, n_games: int, rate: float) -> str:
    """Why a cell cannot be tested ('' when it can)."""
    reasons = []
    if n_rounds < 2:
        reasons.append("fewer than 2 distinct rounds: no slope")
    if n_games < 2:
        reasons.append("only 1 game: t with G - 1 = 0 df undefined")
    if rate in (0.0, 1.0):
        reasons.append(f"outcome is always {int(rate)}: slope not estimable")
    return "; ".join(reasons)


def _gee(out: dict, y: np.ndarray, exog: np.ndarray, games: np.ndarray, df: int) -> str:
    """The primary GEE test into ``out``; returns a note ('' when it fitted)."""
    tq = float(stats.t.ppf(0.5 + _LEVEL / 2.0, df))
    try:
        fit = gee_fit(ExchangeableGee(y, exog, games))
        problem = _fit_failed(fit)
    except (np.linalg.LinAlgError, ValueError, FloatingPointError) as exc:
        fit, problem = None, f"failed ({type(exc).__name__})"
    if problem or fit is None:
        return f"GEE {problem}"
    slope, se = float(fit.params[1]), float(fit.bse[1])
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
    return ""


def _mixed(out: dict, cell: pd.DataFrame, y: np.ndarray, x: np.ndarray, games: np.ndarray) -> str:
    """The secondary mixed model into ``out`` (``mixed_structure`` says which random intercepts
    were fitted, "none" when neither); returns a note ('' when the full structure fitted)."""
    players = (cell["game_id"] + "\x1f" + cell["player_id"]).to_numpy()
    mfit, note = stats_models.mixed_linear_slope_fallback(y, x, games, players)
    out["mixed_structure"] = mfit.structure if mfit is not None else "none"
    if mfit is not None:
        out.update(mixed_slope=mfit.slope, mixed_p=mfit.pvalue, mixed_optimizer=mfit.optimizer)
    return note


def _analyse_cell(
    cell: pd.DataFrame,
    x: np.ndarray,
    *,
    adjust: tuple[tuple[int, int, int, int] | None, int, np.random.Generator | None] | None,
    mixed: bool,
) -> dict[str, object]:
    """All tests of one cell; ``adjust`` = (Se/Sp counts, draws, rng) for the adjusted slope."""
    y = cell["y"].to_numpy(dtype=float)
    games = cell["game_id"].to_numpy()
    n_games = int(pd.unique(games).size)
    n_rounds = int(cell["round_id"].nunique())
    rate = float(y.mean())
    summary: dict[str, object] = {
        "games": n_games, "rounds": n_rounds, "n_obs": int(y.size), "rate": rate,
    }  # fmt: skip
    out = {**summary, **_nan_result(adjust is not None)}
    out["mixed_note"] = MIXED_NOTE
    out["mixed_structure"] = "not fitted"
    out["mixed_optimizer"] = ""
    out["note"] = _undefined(n_rounds, n_games, rate)
    if out["note"]:
        return out
    exog = np.column_stack([np.ones_like(x), x])
    df = n_games - 1
    notes = [_gee(out, y, exog, games, df)]
    ts_slope, ts_p, ts_games, ts_note = _two_stage(y, x, games)
    out.update(twostage_slope=ts_slope, twostage_p=ts_p, twostage_games=ts_games)
    notes.append(ts_note)
    if mixed:
        notes.append(_mixed(out, cell, y, x, games))
    else:
        out["mixed_note"] = "not fitted"
    if adjust is not None:
        counts, draws, rng = adjust
        if counts is None or rng is None:
            notes.append("adjusted: no Se/Sp counts for this model")
        else:
            start_slope = out["slope"] if np.isfinite(out["slope"]) else 0.0
            notes.extend(_adjusted(out, y, exog, games, (counts, draws, rng), float(start_slope), df))
    out["note"] = "; ".join(n for n in notes if n)
    return out


def _adjusted(
    out: dict[str, object],
    y: np.ndarray,
    exog: np.ndarray,
    games: np.ndarray,
    adjust: tuple[tuple[int, int, int, int], int, np.random.Generator],
    naive_slope: float,
    df: int,
) -> list[str]:
    counts, draws, rng = adjust
    se_draws, sp_draws = draw_se_sp(counts, draws, rng)
    estimates, variances = [], []
    rate = float(y.mean())
    accuracies = list(zip(se_draws.tolist(), sp_draws.tolist(), strict=True))
    starts = [
        np.array([special.logit(np.clip((rate - (1.0 - sp)) / (se + sp - 1.0), 0.02, 0.98)), naive_slope])
        for se, sp in accuracies
    ]
    model = ExchangeableGee(y, exog, games)
    for (se, sp), start in zip(accuracies, starts, strict=True):
        try:
            fit = gee_fit(model, sensitivity=se, specificity=sp, start_params=start)
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


def _check_trend_args(se_sp, by: tuple[str, ...], draws: int, seed: int) -> dict | None:
    counts_by_model = None
    if se_sp is not None:
        if "model" not in by:
            raise ParameterError("se_sp is keyed by model, so by must include 'model'")
        counts_by_model = validate_se_sp(se_sp)
    if isinstance(draws, bool) or not isinstance(draws, int | np.integer) or draws < 2:
        raise ParameterError(f"draws must be a whole number >= 2 (Rubin's rules), got {draws!r}")
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        raise ParameterError(f"seed must be a whole number >= 0, got {seed!r}")
    return counts_by_model


def _cells(
    clean: pd.DataFrame, by: tuple[str, ...], pooled: bool
) -> list[tuple[dict[str, str], pd.DataFrame]]:
    """(labels, rows) of every cell of ``by``, and per model the pooled cell when asked."""
    cells = []
    for first, block in clean.groupby(by[0], sort=True):
        for key, cell in block.groupby(list(by), sort=True):
            cells.append((dict(zip(by, key, strict=True)), cell))
        if pooled and len(by) > 1:
            cells.append(({by[0]: str(first), **{c: POOLED for c in by[1:]}}, block))
    return cells


def _model_rng(seed: int, model: str) -> np.random.Generator:
    """A generator that depends only on ``seed`` and the model, not on the other cells."""
    key = int.from_bytes(hashlib.sha256(model.encode("utf-8")).digest()[:8], "little")
    return np.random.default_rng([seed, key])


# --------------------------------------------------------------------------- public entry


def trend_tests(  # noqa: PLR0913 - one keyword-only parameter per option of the tests
    obs: pd.DataFrame,
    *,
    outcome: str = "knows",
    by: Sequence[str] = ("model", "history_type"),
    pooled: bool = True,
    se_sp: Mapping[str, tuple[int, int, int, int]] | None = None,
    draws: int = 20,
    seed: int = 0,
    mixed: bool = True,
    progress: bool | None = None,
) -> pd.DataFrame:
    r"""Test for a trend over rounds in ``outcome``, one row per cell of ``by``.

    ``obs``: one row per (game, round, player); see the module docstring for columns.
    ``pooled``: add one row per value of ``by[0]`` (the model) with the other ``by`` columns set
    to ``"all"`` (nothing is added when ``by`` has one column). ``se_sp``: the judge's
    confusion counts (TP, FN, TN, FP) against humans, keyed by model (needs ``"model"`` in
    ``by``); adds the misclassification-adjusted columns from ``draws`` posterior draws of
    (Se, Sp), random numbers seeded by ``seed`` and the model only. ``mixed=False`` skips the
    (slow) mixed model. ``progress``: a bar over the cells on stderr
    (:mod:`wordplay_audit.corpora.progress`; None: as the calling context decides, off in a
    library call).

    Returns a DataFrame with the ``by`` columns and ``outcome``, ``games`` (G), ``rounds``,
    ``n_obs``, ``rate``; GEE: ``slope`` (logit scale, per unit x = first to last round),
    ``gee_se`` (bias-reduced), ``gee_df`` (G − 1), ``gee_p_t``, ``gee_ci_low``/``gee_ci_high``
    (95 %, t), ``gee_p_z`` (same SE, normal: what statsmodels reports), ``gee_p_z_robust``
    (ordinary sandwich, normal); two-stage: ``twostage_slope`` (mean per-game slope,
    proportion scale), ``twostage_games``, ``twostage_p``; mixed: ``mixed_slope``
    (proportion scale), ``mixed_p``, ``mixed_structure`` (``game+player``, or ``game`` after a
    singular fit, ``none`` when neither fitted: see ``note``), ``mixed_optimizer``
    (``powell``, or ``lbfgs`` where Powell did not converge and the fit fell back to it;
    :data:`analysis.stats_models.FIRST_OPTIMIZER`), ``mixed_note``; with ``se_sp``: ``adj_slope`` (logit
    scale), ``adj_se``, ``adj_df`` (Barnard–Rubin, at most G − 1), ``adj_p``,
    ``adj_ci_low``/``adj_ci_high``, ``adj_draws`` (draws that fitted); and ``note``, empty
    unless something is undefined. References are in the module docstring.
    """
    by = tuple(by) if not isinstance(by, str) else (by,)
    clean = validate_obs(obs, outcome, by)
    counts_by_model = _check_trend_args(se_sp, by, draws, seed)
    last_round = int(clean["round_id"].max())
    clean["x"] = rescale_rounds(clean["round_id"], last_round=last_round) if last_round >= 2 else 0.0
    clean = clean.sort_values([*by, "game_id", "round_id", "player_id"], kind="stable")
    rows = []
    cells = _cells(clean, by, pooled)
    for labels, cell in bar_over(cells, desc=f"trend ({outcome})", unit="cell", enabled=progress):
        model = labels.get("model")
        adjust = None
        if counts_by_model is not None:
            counts = counts_by_model.get(model) if model else None
            rng = _model_rng(int(seed), model) if counts is not None and model else None
            adjust = (counts, int(draws), rng)
        if cell.duplicated(list(ID_COLUMNS)).any():
            result = {
                "games": int(cell["game_id"].nunique()), "rounds": int(cell["round_id"].nunique()),
                "n_obs": len(cell), "rate": float(cell["y"].mean()),
                **_nan_result(adjust is not None), "mixed_note": MIXED_NOTE, "mixed_structure": "not fitted",
                "mixed_optimizer": "", "note": "pooling counts a (game, round, player) twice: not tested",
            }  # fmt: skip
        else:
            result = _analyse_cell(cell, cell["x"].to_numpy(dtype=float), adjust=adjust, mixed=mixed)
        rows.append({**labels, "outcome": outcome, **result})
    columns = [
        *by, "outcome", "games", "rounds", "n_obs", "rate",
        "slope", "gee_se", "gee_df", "gee_p_t", "gee_ci_low", "gee_ci_high", "gee_p_z",
        "gee_p_z_robust", "twostage_slope", "twostage_games", "twostage_p",
        "mixed_slope", "mixed_p", "mixed_structure", "mixed_optimizer", "mixed_note",
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
