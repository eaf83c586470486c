"""Convergence of the LLM-knows ratio (LKR) to the dominant strategy, and what the judge does to it.

The study's rule (its Eq. 6): a model has converged at round T if LKR_n > 1 − ε for every round
n > T, LKR_n being the round-n LKR averaged over the setting's games. ε was never stated.

With a judge of sensitivity Se and specificity Sp the observed rate is
p = Se θ + (1 − Sp)(1 − θ) ≤ Se for any true θ (when Se ≥ 1 − Sp), so the observed LKR of a model
that knows every word hovers at Se: judged on judge labels, the rule can never be met for
1 − ε ≥ Se (e.g. every ε < 0.26 when Se = 0.74). On the observed scale the rule "θ > 1 − ε"
reads p > τ with τ = Se(1 − ε) + (1 − Sp)ε.

:func:`convergence_table` reports, for a grid of ε and each (setting, model): T under the judge's
labels and under human-replaced labels (a sensitivity view); T on the unclipped per-round
Rogan–Gladen estimates (descriptive only: Eq. 6 on noisy per-round rates is decided by the last
rounds' noise, so it is not offered as a verdict); τ; a flag for every ε the judge makes
unreachable; and the recommended rule: pool the last ``window`` rounds, correct them
(Rogan–Gladen, with the human labels where present) and call the model converged when the
one-sided lower confidence bound exceeds 1 − ε. Every verdict is True, False or None with the
reason in ``<verdict>_reason`` (:func:`add_verdicts`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from wordplay_audit.analysis.balderdash.corrected import (
    CorrectionOptions,
    ModelAccuracy,
    corrected_rates,
    model_accuracy_draws,
)
from wordplay_audit.analysis.balderdash.metrics import DEFAULT_SETTING, round_curves, round_metrics
from wordplay_audit.analysis.balderdash.recompute import replace_labels
from wordplay_audit.analysis.correction import JudgeAccuracy
from wordplay_audit.errors import ParameterError

DEFAULT_EPS = (0.01, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3)


def convergence_round(values: Sequence[float], threshold: float) -> float:
    """Smallest T ≥ 0 with values[n] > threshold for every round n > T (rounds 1-based, in order).

    Returns nan when the last round does not exceed the threshold (never converged); a nan
    value counts as not exceeding it.

    >>> convergence_round([0.5, 0.95, 0.97], 0.9)
    1
    >>> convergence_round([0.95, 0.97, 0.8], 0.9)
    nan
    """
    arr = np.asarray(values, dtype=float)
    above = np.nan_to_num(arr, nan=-np.inf) > threshold
    k = len(arr)
    while k > 0 and above[k - 1]:
        k -= 1
    return float("nan") if k == len(arr) else k


def observed_threshold(eps: float, se: float, sp: float) -> float:
    """τ = Se(1 − ε) + (1 − Sp)ε: observed LKR above τ ⇔ true LKR above 1 − ε."""
    return se * (1 - eps) + (1 - sp) * eps


def _curve_T(curves: pd.DataFrame, keys: list[str], value: str, eps: float) -> pd.DataFrame:
    rows = []
    for key, part in curves.groupby(keys, sort=True, dropna=False):
        key = key if isinstance(key, tuple) else (key,)
        part = part.sort_values("round_id")
        t = convergence_round(part[value].to_numpy(), 1 - eps)
        rows.append({**dict(zip(keys, key, strict=True)), "T": t})
    return pd.DataFrame(rows, columns=[*keys, "T"])


def convergence_table(  # noqa: PLR0913 (keyword-only settings of one table)
    obs: pd.DataFrame,
    labels: pd.DataFrame | None = None,
    *,
    eps: Sequence[float] = DEFAULT_EPS,
    setting: Sequence[str] = DEFAULT_SETTING,
    window: int = 5,
    confidence: float = 0.95,
    accuracy: Mapping[str, JudgeAccuracy | ModelAccuracy] | None = None,
    design: str = "stratified",
    constant_accuracy: bool = False,
) -> pd.DataFrame:
    """Eq. 6 convergence of LKR for each ε, setting and model, under every available labelling.

    Parameters
    ----------
    obs
        :func:`corpora.balderdash.player_round_table`.
    labels
        People's labels (question ``any_sense`` corrects LKR); None for judge labels only.
    accuracy
        ``{model: JudgeAccuracy}`` for the LKR question, used instead of (or without) labels,
        e.g. assumed Se/Sp with zero variance.
    window
        Number of last rounds pooled for the confidence-bound rule; a setting with fewer rounds
        gets no window estimate, bound or verdict (None, with the reason).
    confidence
        Level of the window's one-sided lower confidence bound.
    constant_accuracy
        Let a round or window without 5 own labels per post-stratum borrow its model × deck's Se
        and Sp (``CorrectionOptions.constant_accuracy``): assumes the judge as accurate in every
        round. Without it such a round has no corrected LKR (``T_corrected`` is then unknown, see
        ``converged_corrected_reason``) and such a window no bound.

    Returns
    -------
    DataFrame, one row per (setting, model, ε): ``eps``, ``threshold`` (1 − ε), ``T_judge``,
    ``converged_judge``, ``T_replaced``, ``converged_replaced``, ``T_corrected`` (descriptive),
    ``converged_corrected`` (always None: not a verdict), ``se``, ``sp``, ``tau``,
    ``judge_unreachable`` (1 − ε ≥ Se: judge labels cannot show convergence even at true LKR 1),
    ``window_rounds``, ``window_estimate``, ``window_lower``, ``window_basis`` (where the window's
    Se and Sp come from: ``"own"`` its own labels; ``"stratum"`` its model × deck's – which
    assumes the judge as accurate in the window as over the deck's rounds –; ``"model"`` the
    model's, where the window spans decks; ``"assumed"`` the ``accuracy`` passed in; None without
    an estimate) and ``converged_window`` (lower
    bound > 1 − ε); T nan = never; each verdict with ``<verdict>_reason`` (None when decided).
    """
    _check_args(eps, window)
    estimated = labels is not None and accuracy is None  # else the accuracy passed in is used
    keys = [c for c in setting if c in obs.columns] + ["model"]
    curves = {"judge": round_curves(round_metrics(obs, keep=setting), setting=setting, metrics=("lkr",))}
    if labels is not None:
        replaced = replace_labels(obs, labels)
        curves["replaced"] = round_curves(
            round_metrics(replaced, keep=setting), setting=setting, metrics=("lkr",)
        )
        if accuracy is None:
            # a model with no labelled definition of its own has no Se/Sp here (unknown, not the
            # other models' pooled values, as in the trend test); one that lacks only the human-true
            # or human-false side borrows that side from all models, flagged accuracy_pooled
            drawn = model_accuracy_draws(obs, labels, metric="lkr")
            accuracy = {m: a for m, a in drawn.items() if a.acc.n_labelled > 0}
    pooled = None
    if accuracy is not None:
        # each round as the report shows it: inside its model × deck, with the deck's Se and Sp
        # (the model's pooled over decks would be biased where the judge's accuracy differs by deck)
        given = None if estimated else {"lkr": accuracy}
        per_round = corrected_rates(
            obs, labels, metrics=("lkr",), by=[*keys, "round_id"], accuracy=given, design=design,
            options=CorrectionOptions(constant_accuracy=constant_accuracy),
        )  # fmt: skip
        curves["corrected"] = per_round.rename(columns={"rg_unclipped": "lkr_mean"})
        pooled = _window_estimates(
            obs,
            labels if estimated else None,
            keys,
            accuracy,
            window=window,
            confidence=confidence,
            design=design,
            constant_accuracy=constant_accuracy,
        )
        pooled["rg_basis"] = pooled["rg_basis"].replace({"given": "assumed"})
    out = pd.concat([_eps_rows(curves, keys, float(e), accuracy, pooled) for e in eps], ignore_index=True)
    out["window_rounds"] = window
    out = add_verdicts(
        out, has_labels=labels is not None, has_any_sense=_has_any_sense(labels), accuracy=accuracy
    )
    out = _window_too_long(out, _rounds_per_setting(obs, out, keys[:-1]), window)
    return out[[*keys, *_COLUMNS]].sort_values([*keys, "eps"]).reset_index(drop=True)


def _rounds_per_setting(obs: pd.DataFrame, out: pd.DataFrame, setting_keys: list[str]) -> pd.Series:
    """For each row of ``out``, the number of rounds its setting has in ``obs``."""
    if not setting_keys:
        return pd.Series(obs["round_id"].nunique(), index=out.index)
    rounds = obs.groupby(setting_keys, dropna=False)["round_id"].nunique().rename("_rounds").reset_index()
    return out[setting_keys].merge(rounds, on=setting_keys, how="left")["_rounds"].set_axis(out.index)


def _window_too_long(out: pd.DataFrame, rounds: pd.Series, window: int) -> pd.DataFrame:
    """A window longer than the setting's rounds is not the rule asked for ("the last ``window``
    rounds"): where the judge's accuracy is known, the window's estimate, bound and verdict are
    None with that reason (without the accuracy, its own reason stands)."""
    short = (rounds < window) & out["se"].notna()
    if not short.any():
        return out
    out = out.copy()
    out.loc[short, ["window_estimate", "window_lower"]] = np.nan
    out["window_basis"] = out["window_basis"].astype(object)
    out.loc[short, "window_basis"] = None
    out["converged_window"] = out["converged_window"].astype(object)
    out.loc[short, "converged_window"] = None
    out.loc[short, "converged_window_reason"] = [
        f"window of {window} rounds is longer than the {int(r)} rounds of this setting" for r in rounds[short]
    ]
    return out


def _has_any_sense(labels: pd.DataFrame | None) -> bool:
    if labels is None or "question" not in labels.columns:
        return False
    return bool((labels["question"].fillna("").astype(str).str.strip() == "any_sense").any())


NOT_A_VERDICT = (
    "not a verdict: Eq. 6 on per-round corrected rates is decided by the noise of the last rounds "
    "(see docs/methods/convergence-trend.md); use converged_window"
)


def _verdict(values: pd.Series, known: pd.Series, reason: pd.Series) -> tuple[pd.Series, pd.Series]:
    """Three-valued verdict: True/False where ``known``, else None with ``reason``."""
    verdict = pd.Series([bool(v) if k else None for v, k in zip(values, known, strict=True)], dtype=object)
    why = pd.Series([None if k else r for k, r in zip(known, reason, strict=True)], dtype=object)
    return verdict, why


def _missing_accuracy_reason(
    out: pd.DataFrame, *, has_labels: bool, has_any_sense: bool, accuracy
) -> pd.Series:
    if accuracy is None:
        text = "no human labels and no assumed Se/Sp (--human or --assume-se/--assume-sp)"
    elif has_labels and not has_any_sense:
        text = "needs any_sense labels (the judge's LKR accuracy is unknown)"
    else:
        text = "the judge's LKR sensitivity could not be estimated for this model (no labelled definition)"
    return pd.Series(text, index=out.index, dtype=object)


def add_verdicts(out: pd.DataFrame, *, has_labels: bool, has_any_sense: bool, accuracy) -> pd.DataFrame:
    """Every verdict column as True / False / None, with ``<verdict>_reason`` where None.

    ``converged_judge`` is always decided. ``converged_replaced`` needs human labels.
    ``judge_unreachable`` and ``converged_window`` need the judge's LKR accuracy (any_sense
    labels or assumed values); the window verdict also needs a lower bound. ``converged_corrected``
    is never a verdict (:data:`NOT_A_VERDICT`); ``T_corrected`` is descriptive (Eq. 6 on the
    unclipped per-round Rogan–Gladen estimates).
    """
    out = out.copy()
    no_acc = _missing_accuracy_reason(
        out, has_labels=has_labels, has_any_sense=has_any_sense, accuracy=accuracy
    )
    se_known = out["se"].notna()
    out["tau"] = observed_threshold(out["eps"], out["se"], out["sp"])
    out["converged_judge"] = out["T_judge"].notna()
    out["converged_judge_reason"] = None
    rep_known = pd.Series(has_labels, index=out.index)
    out["converged_replaced"], out["converged_replaced_reason"] = _verdict(
        out["T_replaced"].notna(), rep_known, pd.Series("no human labels", index=out.index)
    )
    corr_reason = no_acc.where(~se_known, NOT_A_VERDICT)
    if "T_corrected_gap" in out.columns:  # T_corrected unknown: a round had no corrected value
        gap = out["T_corrected_gap"]
        corr_reason = corr_reason.where(
            gap.isna() | ~se_known,
            NOT_A_VERDICT + "; T_corrected unknown: a round has no corrected LKR (" + gap.astype(str) + ")",
        )
    out["converged_corrected"], out["converged_corrected_reason"] = _verdict(
        out["T_corrected"].notna(), pd.Series(False, index=out.index), corr_reason
    )
    out["judge_unreachable"], out["judge_unreachable_reason"] = _verdict(
        (1 - out["eps"]) >= out["se"], se_known, no_acc
    )
    bound_known = out["window_lower"].notna()
    no_bound = pd.Series("no lower bound for the pooled window (Se + Sp ≤ 1 or no rounds)", index=out.index)
    if "window_reason" in out.columns:  # why the window's interval is missing, as corrected_rates says
        why = out["window_reason"]
        no_bound = no_bound.where(why.isna(), "no lower bound for the pooled window: " + why.astype(str))
    win_reason = no_acc.where(~se_known, no_bound)
    out["converged_window"], out["converged_window_reason"] = _verdict(
        out["window_lower"] > out["threshold"], bound_known, win_reason
    )
    return out


_COLUMNS = [
    "eps", "threshold", "T_judge", "converged_judge", "converged_judge_reason", "T_replaced",
    "converged_replaced", "converged_replaced_reason", "T_corrected", "converged_corrected",
    "converged_corrected_reason", "se", "sp", "accuracy_pooled", "tau", "judge_unreachable", "judge_unreachable_reason",
    "window_rounds", "window_estimate", "window_lower", "window_basis", "converged_window",
    "converged_window_reason",
]  # fmt: skip


def _check_args(eps: Sequence[float], window: int) -> None:
    if window < 1:
        raise ParameterError(f"window must be at least 1 round, got {window}")
    for e in eps:
        if not 0 < float(e) < 1:
            raise ParameterError(f"every ε must lie strictly between 0 and 1, got {e}")


def _window_estimates(
    obs, labels, keys, accuracy, *, window: int, confidence: float, design: str, constant_accuracy: bool
) -> pd.DataFrame:
    """Rogan–Gladen estimate of LKR pooled over each setting's last ``window`` rounds, with the
    one-sided lower bound at ``confidence`` (the two-sided interval at 2·confidence − 1).

    With ``labels`` the window is a cell of :func:`corrected_rates` inside its model × deck (the
    call of the rounds benchmark, docs/methods/rogan-gladen-ppi.md): its own labels where each post-stratum
    holds 5, else (``constant_accuracy``) the deck's Se and Sp (from ≥ 10 labels per judge-verdict
    stratum). Without labels,
    the ``accuracy`` given (assumed values)."""
    setting_keys = keys[:-1]
    if setting_keys:
        last = obs.groupby(setting_keys, dropna=False)["round_id"].transform("max")
    else:
        last = pd.Series(obs["round_id"].max(), index=obs.index)
    in_window = (obs["round_id"] > (last - window)).to_numpy()
    if labels is not None:
        table = corrected_rates(
            obs.assign(_in_window=in_window),
            labels,
            metrics=("lkr",),
            by=[*keys, "_in_window"],
            confidence=2 * confidence - 1,
            design=design,
            options=CorrectionOptions(only="_in_window", constant_accuracy=constant_accuracy),
        )
        return table.drop(columns="_in_window").reset_index(drop=True)
    return corrected_rates(
        obs.loc[in_window],
        None,
        metrics=("lkr",),
        by=keys,
        accuracy={"lkr": accuracy},
        confidence=2 * confidence - 1,
        design=design,
    )


def _point(accuracy: Mapping, model: str) -> JudgeAccuracy:
    value = accuracy.get(model)
    if value is None:
        return JudgeAccuracy.unknown()
    return value.acc if isinstance(value, ModelAccuracy) else value


def _pooled(accuracy: Mapping, model: str) -> bool | None:
    """Whether the model's Se or Sp was taken from all models pooled; None without an accuracy."""
    if accuracy.get(model) is None:
        return None
    return any(str(t).startswith("pooled") for t in _point(accuracy, model).strata)


def _eps_rows(curves: dict, keys: list[str], e: float, accuracy, pooled: pd.DataFrame | None) -> pd.DataFrame:
    """T under each labelling for one ε, with the model's Se/Sp and the window estimate."""
    table = _curve_T(curves["judge"], keys, "lkr_mean", e).rename(columns={"T": "T_judge"})
    for name in ("replaced", "corrected"):
        if name in curves:
            found = _curve_T(curves[name], keys, "lkr_mean", e).rename(columns={"T": f"T_{name}"})
            table = table.merge(found, on=keys)
        else:
            table[f"T_{name}"] = np.nan
    if "corrected" in curves:  # a round without a corrected value: T is unknown, not "never"
        gaps = curves["corrected"][curves["corrected"]["lkr_mean"].isna()].fillna(
            {"rg_reason": "no estimate"}
        )
        first = gaps.groupby(keys, dropna=False, sort=False)["rg_reason"].first().rename("T_corrected_gap")
        table = table.merge(first.reset_index(), on=keys, how="left")
        table.loc[table["T_corrected_gap"].notna(), "T_corrected"] = np.nan
    if accuracy is not None:
        table["se"] = table["model"].map(lambda m: _point(accuracy, m).se)
        table["sp"] = table["model"].map(lambda m: _point(accuracy, m).sp)
        table["accuracy_pooled"] = table["model"].map(lambda m: _pooled(accuracy, m)).astype(object)
        win = pooled[[*keys, "rg", "rg_low", "rg_basis", "rg_reason"]].rename(
            columns={
                "rg": "window_estimate",
                "rg_low": "window_lower",
                "rg_basis": "window_basis",
                "rg_reason": "window_reason",
            }  # fmt: skip
        )
        table = table.merge(win, on=keys, how="left")
    for column in ("se", "sp", "window_estimate", "window_lower"):
        if column not in table.columns:
            table[column] = np.nan
    if "accuracy_pooled" not in table.columns:
        table["accuracy_pooled"] = None
    if "window_basis" not in table.columns:
        table["window_basis"] = None
    table["eps"] = e
    table["threshold"] = 1 - e
    return table
