"""Does the judge drift? Round effects on its sensitivity and specificity in the human sample."""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd

from wordplay_audit.analysis import stats_models
from wordplay_audit.analysis.balderdash.trend_inputs import (
    as_binary,
    as_rounds,
    check_frame,
    rescale_rounds,
)
from wordplay_audit.errors import InputError


class DriftWarning(UserWarning):
    """The judge's sensitivity or specificity changes with round in the human sample.

    A drift like that produces a trend in judged outcomes on its own, so trend tests of those
    outcomes (even misclassification-adjusted ones, which assume constant Se and Sp) are not
    to be trusted.
    """


# --------------------------------------------------------------------------- judge drift


@dataclass(frozen=True)
class DriftResult:
    """Round effects on the judge's sensitivity and specificity in the human sample.

    ``se_slope``/``sp_slope``: logit-scale change in P(judge true | human true) and
    P(judge false | human false) from the first to the last round; ``se_p``/``sp_p`` their
    likelihood-ratio p-values (NaN when the agreement never varies or there is no data);
    ``drift`` is True when a p that could be computed is below ``alpha``, False when every test
    ran and none is, None (unknown, never False) when neither test could run; ``note`` says
    which test could not run and, when only one did, that ``drift`` rests on it alone.
    """

    drift: bool | None
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
    frame = check_frame(sample, (human, judge, round_col), "human sample")
    if not 0 < alpha < 1:
        raise InputError(f"alpha must lie in (0, 1), got {alpha!r}")
    truth = as_binary(frame[human], human, "human sample")
    verdict = as_binary(frame[judge], judge, "human sample")
    rounds = as_rounds(frame[round_col], round_col, "human sample")
    x = rescale_rounds(rounds) if rounds.max() >= 2 else np.zeros(rounds.size)
    positive, negative = truth == 1.0, truth == 0.0
    se_fit = stats_models.logit_slope_lr(verdict[positive], x[positive])
    sp_fit = stats_models.logit_slope_lr(1.0 - verdict[negative], x[negative])
    notes, ran = [], []
    for name, fit in (("Se", se_fit), ("Sp", sp_fit)):
        if np.isfinite(fit.pvalue):
            ran.append(name)
        else:
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
    if not ran:
        notes.append("drift unknown: neither test could run")
    elif len(ran) == 1:
        notes.append(f"drift rests on the {ran[0]} test only")
    return DriftResult(
        drift=bool(flagged) if ran else None,
        se_p=se_fit.pvalue,
        sp_p=sp_fit.pvalue,
        se_slope=se_fit.slope,
        sp_slope=sp_fit.slope,
        n_positive=int(positive.sum()),
        n_negative=int(negative.sum()),
        note="; ".join(notes),
    )


def drift_text(result: dict) -> str:
    """One line of a drift result (:class:`DriftResult` as a dict): each p or "no test", and the
    verdict — "unknown" with the reason when neither test ran, never "no drift"."""
    parts = []
    for name in ("se", "sp"):
        p = result.get(f"{name}_p")
        shown = f"p = {p:.3g}" if p is not None and np.isfinite(p) else "no test"
        parts.append(f"{name.capitalize()} {shown}")
    if result.get("drift") is None:
        verdict = "drift unknown (neither test could run: no items, one round, or agreement never varies)"
    else:
        verdict = "DRIFT" if result["drift"] else "no drift detected"
        one = [n for n in ("Se", "Sp") if f"rests on the {n} test only" in (result.get("note") or "")]
        if one:
            verdict += f" (from the {one[0]} test only)"
    return f"{', '.join(parts)}: {verdict}"
