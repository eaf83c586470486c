"""Balderdash's LKR and TDR per model × deck, and the judge's accuracy per model, under the latent
truth (:mod:`wordplay_audit.analysis.correction.latent_bootstrap`): people's ratings and the
judge's verdict are imperfect measurements of the true label, post-strata model × deck × the
judge's verdict (the sampling strata).

The tables keep the consensus tables' columns: :func:`latent_rates` the ``corrected`` rows
(``rg``… ``ppi_high``; the Rogan–Gladen estimate with the cell's own Se and Sp is algebraically
the post-stratified share, so under the latent truth both columns hold that one estimate and its
bootstrap interval) and the judge audit's ``fnr_w``… columns per ``player_model``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
import pandas as pd

from wordplay_audit.analysis.balderdash.recompute import METRIC_QUESTION, item_rows
from wordplay_audit.analysis.correction.latent import dependence_line
from wordplay_audit.analysis.correction.latent_bootstrap import AUDIT_COLUMNS, LatentTruth, latent_truth
from wordplay_audit.corpora.contract import is_final_labels
from wordplay_audit.errors import ParameterError

__all__ = ["LATENT_NOTE", "LatentRates", "latent_rates"]

LATENT_NOTE = (
    "truth='latent': the intervals cover the share of truly-true definitions, people's ratings and "
    "the judge's verdict taken as conditionally independent imperfect measurements of it (rg and ppi "
    "hold the same post-stratified posterior share and its bootstrap interval)"
)


class LatentRates(NamedTuple):
    corrected: pd.DataFrame
    audits: dict[str, pd.DataFrame]
    raters: dict[str, pd.DataFrame]  # per question: each rater's se/sp with intervals
    dependence: dict[str, pd.DataFrame]  # per question: the pairwise check (latent.dependence_check)


def _ratings(labels: pd.DataFrame, question: str) -> pd.DataFrame:
    people = labels[(labels["rater_type"] == "human") & (labels["question"] == question)]
    return pd.DataFrame(
        {"item_id": people["item_id"].to_numpy(object), "rater": people["rater"].astype(str).to_numpy(),
         "label": (people["label"] == "true").to_numpy()}
    )  # fmt: skip


def _metric_truth(obs, labels, metric, by, *, model, n_boot, seed, confidence) -> LatentTruth | None:
    question, judge_col = METRIC_QUESTION[metric]
    ratings = _ratings(labels, question)
    if ratings.empty:
        return None
    weight = [c for c in ("sampling_weight",) if c in obs.columns]  # 1/π: an adaptive campaign
    items = obs[[*by, *weight]].assign(
        item_id=obs["item_id"].to_numpy(object), judge=obs[judge_col].astype(bool).to_numpy()
    )
    labelled = item_rows(obs["item_id"], pd.unique(ratings["item_id"])) >= 0
    # the unlabelled items enter as counts per post-stratum
    stand_in = (
        items[~labelled].groupby([*by, "judge"], observed=True, dropna=False).size().reset_index(name="n")
    )
    return latent_truth(
        items[labelled],
        ratings,
        strata=[*by, "judge"],
        rest=stand_in,
        model=model,
        n_boot=n_boot,
        confidence=confidence,
        seed=seed,
    )


def latent_rates(
    obs: pd.DataFrame,
    labels: pd.DataFrame,
    *,
    metrics: Sequence[str] = ("lkr", "tdr"),
    by: Sequence[str] = ("model", "deck"),
    model: str = "full",
    n_boot: int = 1000,
    seed: int = 0,
    confidence: float = 0.95,
) -> LatentRates:
    """LKR and TDR per ``by`` cell and the judge's accuracy per model under the latent truth.

    ``obs``: :func:`corpora.balderdash.player_round_table` (a ``sampling_weight`` column, 1/π,
    weights each label's share of its post-stratum's rest); ``labels``: checked contract labels,
    one row per rater (a final labels table holds one settled label per item and cannot identify
    rater error: ParameterError). A design the model cannot identify is refused
    (:func:`~wordplay_audit.analysis.correction.latent.check_identified`)."""
    if is_final_labels(labels):
        raise ParameterError(
            "truth: 'latent' needs each rater's labels (pull's labels.csv); a final labels table holds "
            "one settled label per item"
        )
    by = list(by)
    rows, audits, raters, dependence = [], {}, {}, {}
    for metric in metrics:
        question, _ = METRIC_QUESTION[metric]
        truth = _metric_truth(
            obs, labels, metric, by, model=model, n_boot=n_boot, seed=seed, confidence=confidence
        )
        if truth is None:
            cells = obs.groupby(by, observed=True, sort=True).size().reset_index(name="n")
            rows.append(cells.assign(metric=metric, n_labelled=0, estimate=np.nan, ci_low=np.nan,
                                     ci_high=np.nan, reason=f"needs {question} labels"))  # fmt: skip
            continue
        shares = truth.shares(by)
        judge = truth.design.strata.assign(said=lambda f: f["judge"].astype(bool) * f["n_items"])
        rate = judge.groupby(by, sort=True)[["said", "n_items"]].sum()
        shares["judge"] = (rate["said"] / rate["n_items"]).to_numpy()
        rows.append(shares.assign(metric=metric))
        audit = truth.judge_accuracy(["model"]).rename(columns={"model": "player_model"})
        audits[question] = audit[["player_model", *AUDIT_COLUMNS, "reason"]]
        raters[question] = truth.rater_accuracy()
        dependence[question] = truth.dependence
    table = pd.concat(rows, ignore_index=True)
    out = pd.DataFrame({"metric": table["metric"], **{c: table[c] for c in by}, "n": table["n"],
                        "n_labelled": table["n_labelled"], "judge": table["judge"]})  # fmt: skip
    for method in ("rg", "ppi"):
        out[method] = table["estimate"]
        out[f"{method}_low"], out[f"{method}_high"] = table["ci_low"], table["ci_high"]
        out[f"{method}_reason"] = table["reason"].astype(object).where(table["reason"].notna(), None)
    return LatentRates(out, audits, raters, dependence)


def dependence_lines(dependence: dict[str, pd.DataFrame]) -> list[str]:
    """One line per question: :func:`~wordplay_audit.analysis.correction.latent.dependence_line`."""
    return [
        "  " + dependence_line(table).replace("check:", f"check ({question}):", 1)
        for question, table in dependence.items()
    ]
