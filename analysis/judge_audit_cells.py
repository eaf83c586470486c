"""One group of a judge audit (:mod:`wordplay_audit.analysis.judge_audit_groups`): its four
cells and every rate with its interval and n.

Over the items of the group that have both a parsed verdict and a human label, with cells TP,
FP, FN, TN and n = their sum:

* precision TP/(TP+FP), recall TP/(TP+FN), FNR FN/(TP+FN), FPR FP/(FP+TN), accuracy (TP+TN)/n —
  Wilson (1927) score intervals, each with its own denominator as ``n``;
* F1 = 2TP/(2TP+FP+FN) and Cohen's (1960) κ = (p_o − p_e)/(1 − p_e), p_o = (TP+TN)/n,
  p_e = [(TP+FP)(TP+FN) + (FN+TN)(FP+TN)]/n² — percentile bootstrap intervals (Efron & Tibshirani
  1993, ch. 13) from ``n_boot`` multinomial resamples of the four cells (= resampling items).

A rate whose denominator is 0 is nan. Each interval carries ``ci_reason``: None where it was
computed, else why it is missing (nan ends): ``"no items in the denominator"``, ``"no resamples
(bootstrap 0)"`` with ``n_boot=0`` (the point estimates stand), ``"<metric> undefined in every
resample"``. A group is flagged ``small`` when TP+FN or FP+TN is below
``min_cell`` (recall/FNR or FPR then rest on few items).

With a weight column (inverse inclusion probabilities) the cells are also sums of weights, and
the ``*_w`` point estimates follow from them.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from wordplay_audit.analysis.proportions import ratio, wilson_interval

PROPORTIONS = ("precision", "recall", "fnr", "fpr", "accuracy")
BOOTSTRAPPED = ("f1", "kappa")
#: The rates of a group, each with its interval.
METRICS = ("precision", "recall", "f1", "fnr", "fpr", "accuracy", "kappa")


def cell_metrics(tp: float, fp: float, fn: float, tn: float) -> dict[str, float]:
    """Point estimates of :data:`METRICS` from the four cells (nan where undefined)."""
    n = tp + fp + fn + tn
    pe = ratio((tp + fp) * (tp + fn) + (fn + tn) * (fp + tn), n * n)
    po = ratio(tp + tn, n)
    return {
        "precision": ratio(tp, tp + fp),
        "recall": ratio(tp, tp + fn),
        "f1": ratio(2 * tp, 2 * tp + fp + fn),
        "fnr": ratio(fn, tp + fn),
        "fpr": ratio(fp, fp + tn),
        "accuracy": po,
        "kappa": ratio(po - pe, 1 - pe) if pe == pe and pe < 1 else float("nan"),
    }


NO_RESAMPLES = "no resamples (bootstrap 0)"
NO_ITEMS = "no items in the denominator"


def estimate_text(value: float | None, low: float | None, high: float | None, reason: str | None) -> str:
    """``value [low, high]``; ``value n/a (why)`` for a missing interval; ``–`` for no value.

    >>> estimate_text(0.5, 0.25, 0.75, None)
    '0.500 [0.250, 0.750]'
    >>> estimate_text(0.5, None, None, NO_RESAMPLES)
    '0.500 n/a (no resamples)'
    """
    if value is None or value != value:
        return "–"
    if low is None or high is None or low != low or high != high:
        why = (reason or "not computed").removesuffix(" (bootstrap 0)")
        return f"{value:.3f} n/a ({why})"
    return f"{value:.3f} [{low:.3f}, {high:.3f}]"


def _bootstrap(cells: np.ndarray, n_boot: int, rng: np.random.Generator, confidence: float) -> dict:
    """Percentile intervals of F1 and κ from multinomial resamples of the cells (tp, fp, fn, tn):
    ``{metric: (low, high, reason)}``, the reason None where the interval was computed."""
    n = int(cells.sum())
    if n == 0 or n_boot <= 0:
        why = NO_ITEMS if n == 0 else NO_RESAMPLES
        return {m: (float("nan"), float("nan"), why) for m in BOOTSTRAPPED}
    tp, fp, fn, tn = rng.multinomial(n, cells / n, size=n_boot).T.astype(float)
    with np.errstate(divide="ignore", invalid="ignore"):
        f1 = 2 * tp / (2 * tp + fp + fn)
        po = (tp + tn) / n
        pe = ((tp + fp) * (tp + fn) + (fn + tn) * (fp + tn)) / n**2
        kappa = np.where(pe < 1, (po - pe) / (1 - pe), np.nan)
    alpha = (1 - confidence) / 2
    out = {}
    for name, values in (("f1", f1), ("kappa", kappa)):
        finite = values[np.isfinite(values)]
        out[name] = (
            (float(np.quantile(finite, alpha)), float(np.quantile(finite, 1 - alpha)), None)
            if len(finite) else (float("nan"), float("nan"), f"{name} undefined in every resample")
        )  # fmt: skip
    return out


def group_row(part: pd.DataFrame, *, confidence: float, n_boot: int, rng: np.random.Generator,
              min_cell: int, weight: str | None) -> dict[str, Any]:  # fmt: skip
    """Cells, rates, intervals and ``n`` of one group (rows with ``judge``, ``human``, ``unparsed``)."""
    rated = part[~part["unparsed"]]
    j, h = rated["judge"].to_numpy(bool), rated["human"].to_numpy(bool)
    tp, fp, fn, tn = (
        int(np.sum(j & h)),
        int(np.sum(j & ~h)),
        int(np.sum(~j & h)),
        int(np.sum(~j & ~h)),
    )
    row: dict[str, Any] = {"n": tp + fp + fn + tn, "tp": tp, "fp": fp, "fn": fn, "tn": tn,
                           "n_unparsed": int(part["unparsed"].sum()),
                           "small": bool(min(tp + fn, fp + tn) < min_cell)}  # fmt: skip
    point = cell_metrics(tp, fp, fn, tn)
    sizes = {"precision": (tp, tp + fp), "recall": (tp, tp + fn), "fnr": (fn, tp + fn),
             "fpr": (fp, fp + tn), "accuracy": (tp + tn, row["n"])}  # fmt: skip
    for name, (x, m) in sizes.items():
        lo, hi = wilson_interval(x, m, confidence=confidence)
        row[name] = {"value": point[name], "ci_low": float(lo), "ci_high": float(hi), "n": int(m),
                     "ci_reason": None if m > 0 else NO_ITEMS}  # fmt: skip
    boot = _bootstrap(np.array([tp, fp, fn, tn], float), n_boot, rng, confidence)
    for name in BOOTSTRAPPED:
        row[name] = {
            "value": point[name],
            "ci_low": boot[name][0],
            "ci_high": boot[name][1],
            "n": row["n"],
            "ci_reason": boot[name][2],
        }
    if weight is not None:
        w = rated[weight].to_numpy(float)
        cells = [
            float(w[j & h].sum()),
            float(w[j & ~h].sum()),
            float(w[~j & h].sum()),
            float(w[~j & ~h].sum()),
        ]
        row.update({f"{k}_w": v for k, v in cell_metrics(*cells).items()})
    return row
