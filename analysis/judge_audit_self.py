"""Self-preference: is a judge kinder to its own model's outputs than to the others'? (any game)

When the judge's model is also a player, compare the judge's sensitivity (its verdicts on the
outputs people call true) and specificity (on the ones people call false) on its own model's
items with the same rates on every other model's items, pooled.

*Each group's rates* are the judge audit's (:func:`~wordplay_audit.analysis.judge_audit.confusion_table`):
post-stratified on the judge's verdict × ``strata`` × the player model (the sampling strata, so
a pooled group is re-weighted to all of its judged items), with the randomised exact interval
of the judge's realised rate.

*The difference* own − others, for each of the two rates: the rate is R = P/(P + Q) over a
group's post-strata (:mod:`~wordplay_audit.analysis.correction.ratio`: P the items with the
attribute in the post-strata of the matching verdict, Q the rest); every post-stratum's
unlabelled items with the attribute are drawn from the engine's predictive
(:func:`~wordplay_audit.analysis.correction.predictive_draws.count_draws`), anchored as the
judge audit anchors (the low side of R holds its numerator's post-strata low and the others
high), and each realised (P, Q) is carried to the judge's propensity by the Jeffreys
Beta(P + ½, Q + ½) (:func:`~wordplay_audit.analysis.correction.predictive_draws.rate_draws`):
the question is whether the judge treats its own model differently, not whether two finite
sets of items came out differently by chance. The two groups' labels are disjoint. Bounds are
the α/2 and 1 − α/2 quantiles of own(low) − others(high) and own(high) − others(low); the
p-value inverts them; Holm across the two rates (``p_holm``).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from wordplay_audit.analysis.correction import post_strata_counts, poststratified_accuracy, seeded_rng
from wordplay_audit.analysis.correction.predictive_draws import (
    contrast_interval,
    count_draws,
    holm,
    rate_draws,
)
from wordplay_audit.analysis.judge_audit import confusion_table
from wordplay_audit.errors import ParameterError, check_level

__all__ = ["SELF_COLUMNS", "group_counts", "rate_draws_of_group", "self_preference"]

OWN, OTHERS = "own", "others"
SELF_COLUMNS = ["rate", "judge_model", "own", "own_low", "own_high", "others", "others_low", "others_high",
                "difference", "ci_low", "ci_high", "p", "p_holm", "n_labelled_own", "n_labelled_others", "verdict"]  # fmt: skip
"""The columns of :func:`self_preference`."""
_RATES = {"sensitivity": True, "specificity": False}  # the attribute: human-true / human-false


def group_counts(part: pd.DataFrame, strata: Sequence[str]) -> pd.DataFrame:
    """A group's post-strata (the judge audit's: verdict × ``strata``, coarsened where one has no
    label): ``judge``, ``N`` judged, ``n`` labelled, ``x`` human-true."""
    acc = poststratified_accuracy(part, strata=list(strata))
    return post_strata_counts(part, list(acc.strata))


def rate_draws_of_group(
    counts: pd.DataFrame, rate: str, side: str, *, draws: int, rng: np.random.Generator
) -> np.ndarray:
    """Draws of the judge's propensity ``rate`` (sensitivity or specificity) behind a group's
    items (module doc) from its :func:`group_counts`, on ``side`` ``low`` or ``high``."""
    human_true = _RATES[rate]
    judge = counts["judge"].to_numpy(bool)
    num = judge if human_true else ~judge  # the post-strata whose verdict matches the attribute
    n = counts["n"].to_numpy(float)
    attr = counts["x"].to_numpy(float) if human_true else n - counts["x"].to_numpy(float)
    sides = np.where(num, side, "high" if side == "low" else "low")
    drawn = count_draws(counts["N"].to_numpy(float) - n, n, attr, side=list(sides), draws=draws, rng=rng)
    with_attr = drawn + attr[None, :]
    p, q = with_attr[:, num].sum(axis=1), with_attr[:, ~num].sum(axis=1)
    return rate_draws(p, p + q, rng=rng)


def _check(frame: pd.DataFrame, judge_model: str, by: str, strata: Sequence[str], confidence: float) -> None:
    check_level(confidence)
    for column in [by, *strata, "judge", "human", "labelled"]:
        if column not in frame.columns:
            raise ParameterError(f"frame: lacks column {column!r} (has {', '.join(map(str, frame.columns))})")
    players = sorted(map(str, frame[by].dropna().unique()))
    if judge_model not in players:
        raise ParameterError(
            f"judge_model: {judge_model!r} is not a player model here (players: {', '.join(players)})"
        )
    if len(players) < 2:
        raise ParameterError("judge_model: the judge's model is the only player; there are no others")


def self_preference(
    frame: pd.DataFrame, *, judge_model: str, by: str = "player_model", strata: Sequence[str] = ("deck",),
    confidence: float = 0.95, draws: int = 20000, seed: int = 0,
) -> pd.DataFrame:  # fmt: skip
    """Per rate (sensitivity, specificity): the judge's rate on ``judge_model``'s items and on the
    other players' items (with the judge audit's intervals of the realised rates), the
    difference own − others of the propensities with its interval, the p-value, Holm's adjusted
    p-value across the two rates and a one-line verdict (:data:`SELF_COLUMNS`; module doc).

    ``frame``: one row per judged item (:func:`~wordplay_audit.analysis.judge_audit.audit_frame`
    or its columns): ``judge``, ``human``, ``labelled``, ``by`` and ``strata``."""
    _check(frame, judge_model, by, strata, confidence)
    own = frame[by].astype(str).to_numpy() == judge_model
    grouped = frame.assign(_group=np.where(own, OWN, OTHERS))
    post = [by, *strata]
    audit = confusion_table(grouped, by="_group", strata=post, confidence=confidence, seed=seed).set_index(
        "_group"
    )
    rows = []
    mine, rest = grouped[own], grouped[~own]
    counts = {OWN: group_counts(mine, post), OTHERS: group_counts(rest, post)}
    for rate in _RATES:
        rng = seeded_rng(seed, "self_preference", judge_model, rate)
        point_own = _point(audit, OWN, rate)
        point_rest = _point(audit, OTHERS, rate)
        row = {"rate": rate, "judge_model": judge_model, "own": point_own, "others": point_rest,
               "difference": point_own - point_rest, "n_labelled_own": int(mine["labelled"].sum()),
               "n_labelled_others": int(rest["labelled"].sum())}  # fmt: skip
        for name, group in ((OWN, "own"), (OTHERS, "others")):
            row[f"{group}_low"], row[f"{group}_high"] = _bounds(audit, name, rate)
        if not (np.isfinite(point_own) and np.isfinite(point_rest)):
            rows.append({**row, "ci_low": np.nan, "ci_high": np.nan, "p": np.nan})
            continue
        low_d = rate_draws_of_group(counts[OWN], rate, "low", draws=draws, rng=rng) - rate_draws_of_group(
            counts[OTHERS], rate, "high", draws=draws, rng=rng)  # fmt: skip
        high_d = rate_draws_of_group(counts[OWN], rate, "high", draws=draws, rng=rng) - rate_draws_of_group(
            counts[OTHERS], rate, "low", draws=draws, rng=rng)  # fmt: skip
        low, high, p = contrast_interval(low_d, high_d, confidence=confidence)
        rows.append(
            {**row, "ci_low": min(low, row["difference"]), "ci_high": max(high, row["difference"]), "p": p}
        )
    out = pd.DataFrame(rows)
    out["p_holm"] = holm(out["p"].to_numpy(float))
    alpha = 1 - confidence
    out["verdict"] = [_verdict(r, alpha) for r in out.itertuples()]
    return out[SELF_COLUMNS]


def _point(audit: pd.DataFrame, group: str, rate: str) -> float:
    if group not in audit.index:
        return np.nan
    return float(audit.loc[group, "recall_w" if rate == "sensitivity" else "specificity_w"])


def _bounds(audit: pd.DataFrame, group: str, rate: str) -> tuple[float, float]:
    if group not in audit.index:
        return np.nan, np.nan
    if rate == "sensitivity":  # the audit's FNR interval, turned round
        return 1 - float(audit.loc[group, "fnr_w_high"]), 1 - float(audit.loc[group, "fnr_w_low"])
    return float(audit.loc[group, "specificity_w_low"]), float(audit.loc[group, "specificity_w_high"])


def _verdict(row, alpha: float) -> str:
    if not np.isfinite(row.p_holm):
        return "cannot tell (a group's rate could not be estimated: no label of that kind)"
    if row.p_holm < alpha:
        kinder = row.difference > 0 if row.rate == "sensitivity" else row.difference < 0
        return f"differs: the judge is {'kinder' if kinder else 'harsher'} to its own model"
    largest = max(abs(row.ci_low), abs(row.ci_high))
    return f"no difference detected (the interval excludes differences larger than {largest:.3f})"
