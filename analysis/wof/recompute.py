"""Win rates under people's guess-equivalence labels: the exact-match judge audited and wins
recomputed — replaced where labelled, corrected with intervals where only a sample is.

Inputs are the contract's tables: ``items`` (one ``guess`` item per game, with ``player_model``
and ``reference``), the game master's verdicts (rater ``wof-exact-match``) and people's labels
(``true`` = the final guess names the solution), per rater or as a final labels table (pull's
``final.csv``): one label per game by :mod:`wordplay_audit.corpora.consensus`, ties left out
and counted (``skipped["ties"]``). Per model, over its N games:

* ``judge`` — the exact-match win rate (the study's number); with ``completion``, also the
  mean completion at a win under the judge's and the replaced labels;
* ``replaced`` — people's consensus where labelled, the verdict elsewhere;
* ``rg`` — Rogan–Gladen θ = (p + Sp − 1)/(Se + Sp − 1), Se and Sp post-stratified on the
  verdict (:mod:`wordplay_audit.analysis.correction`), with a normal interval;
* ``ppi`` — labelled games counted as labelled; the unlabelled rest estimated by the
  stratified double-sampling mean within verdicts (``design="stratified"``, a sample drawn
  within verdicts, e.g. only lost games) or PPI++ (``design="random"``); interval
  θ ± z (N_u/N) √Var.

``exact_is_true`` (default): a final guess equal to the solution is a win for people too —
true by construction, so judge-true games count as labelled true. Without it a sample that
holds no judge-true game leaves Se unknown. With ``design="random"`` it is not applied (it
would make the labelled games a non-random sample).

Win-rate differences between models: games are paired by riddle (its solution, and its k-th
occurrence for a riddle played more than once); exact McNemar test on the discordant pairs
under the judge's and under the replaced labels (``statsmodels``) and a paired-bootstrap
interval of the difference (it treats the replaced labels as known: the uncertainty of the
human sample is not in it).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import combinations
from typing import Literal

import numpy as np
import pandas as pd

from wordplay_audit.analysis.correction import (
    poststratified_accuracy,
    ppi_mean,
    rogan_gladen,
    stratified_mean,
)
from wordplay_audit.analysis.judge_audit import DEFAULT_QUESTION, audit_frame, boolean_labels, confusion_table
from wordplay_audit.analysis.proportions import z_value
from wordplay_audit.analysis.stats_models import mcnemar_exact_p
from wordplay_audit.corpora.consensus import consensus
from wordplay_audit.corpora.contract import is_final_labels, require_columns
from wordplay_audit.errors import check_choice

BOOTSTRAP_RESAMPLES = 4000
Design = Literal["stratified", "random"]
DESIGNS = ("stratified", "random")


@dataclass
class WinRecompute:
    """Result of :func:`recompute_wins`; ``to_dict()`` is the ``--json`` payload."""

    audit: pd.DataFrame  # the exact-match judge vs people, per player_model (judge_confusion)
    rates: pd.DataFrame  # per model: n, n_labelled, judge, replaced, se, sp, rg*, ppi*
    mcnemar: pd.DataFrame  # per pair of models and labeling
    design: str
    confidence: float
    skipped: dict[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict:
        return {
            "design": self.design,
            "confidence": self.confidence,
            "skipped": self.skipped,
            "judge_audit": self.audit.to_dict(orient="records"),
            "win_rates": self.rates.to_dict(orient="records"),
            "mcnemar": self.mcnemar.to_dict(orient="records"),
        }


def _frame(items: pd.DataFrame, judge_labels: pd.DataFrame, people: pd.DataFrame) -> pd.DataFrame:
    frame = audit_frame(judge_labels, items[["item_id", "player_model", "reference"]], human=people)
    frame["human"] = frame["human"].astype("boolean")
    return frame


EXACT_RATER = "exact-match-is-true"


def _exact_as_true(judge_labels: pd.DataFrame, human_labels: pd.DataFrame) -> pd.DataFrame:
    """People's rows for the exact matches nobody labelled: ``true`` (by construction)."""
    exact = judge_labels.loc[judge_labels["label"] == "true", "item_id"]
    missing = exact[~exact.isin(set(human_labels["item_id"]))].to_numpy()
    return pd.DataFrame({"item_id": missing, "rater": EXACT_RATER, "rater_type": "human", "label": "true"})


def _with_taken(human_labels: pd.DataFrame, taken: pd.DataFrame) -> pd.DataFrame:
    """People's labels and the exact matches taken as true, in the form of ``human_labels``: per
    rater, or a final labels table (the taken ones then as one-rater final labels)."""
    if not is_final_labels(human_labels):
        return pd.concat([human_labels, taken], ignore_index=True)
    final = boolean_labels(human_labels)
    if taken.empty:
        return final
    extra = consensus(taken)
    if "question" in final.columns:
        extra.insert(1, "question", DEFAULT_QUESTION)
    return pd.concat([final, extra], ignore_index=True)


def _interval(theta: float, half: float) -> tuple[float, float]:
    if not (np.isfinite(theta) and np.isfinite(half)):
        return np.nan, np.nan
    return float(np.clip(theta - half, 0, 1)), float(np.clip(theta + half, 0, 1))


def _unlabelled_mean(cell: pd.DataFrame, design: str, z: float) -> tuple[float, float]:
    """Estimate and variance of the win rate over the cell's unlabelled games."""
    lab, unl = cell[cell["labelled"]], cell[~cell["labelled"]]
    if unl.empty:
        return 0.0, 0.0
    if design == "random":
        y = lab["human"].astype(bool).to_numpy(float)
        theta, var, _ = ppi_mean(y, lab["judge"].to_numpy(float), unl["judge"].to_numpy(float))
        return theta, var
    parts = []
    for verdict, rest in unl.groupby("judge"):
        sample = lab[lab["judge"] == verdict]
        if sample.empty:
            return np.nan, np.nan
        parts.append((len(rest), len(sample), int(sample["human"].astype(bool).sum())))
    return stratified_mean(*zip(*parts, strict=True), z=z)


def _model_rates(cell: pd.DataFrame, design: str, z: float) -> dict:
    n = len(cell)
    labelled = cell["labelled"].to_numpy(bool)
    human_true = float(cell.loc[labelled, "human"].astype(bool).sum())
    judge = float(cell["judge"].mean())
    acc = poststratified_accuracy(cell)
    rg, var_rg = rogan_gladen(judge, acc, n, share_pos=1.0, share_neg=1.0)
    theta_u, var_u = _unlabelled_mean(cell, design, z)
    n_u = int((~labelled).sum())
    ppi = (human_true + n_u * theta_u) / n
    row = {
        "n": n,
        "n_labelled": int(labelled.sum()),
        "judge": judge,
        "replaced": (human_true + float(cell.loc[~labelled, "judge"].sum())) / n,
        "se": acc.se,
        "sp": acc.sp,
        "rg": rg,
    }
    row["rg_low"], row["rg_high"] = _interval(rg, z * np.sqrt(var_rg))
    row["ppi"] = float(np.clip(ppi, 0, 1)) if np.isfinite(ppi) else np.nan
    row["ppi_low"], row["ppi_high"] = _interval(ppi, z * (n_u / n) * np.sqrt(var_u))
    return row


def _paired(frame: pd.DataFrame) -> pd.DataFrame:
    """Games keyed by (riddle, occurrence) per model, with judge and replaced wins."""
    out = frame[["player_model", "reference", "judge"]].copy()
    out["occurrence"] = out.groupby(["player_model", "reference"]).cumcount()
    out["replaced"] = frame["human"].astype(object).where(frame["labelled"], frame["judge"]).astype(bool)
    return out


def paired_bootstrap(
    table: list[list[int]], *, confidence: float, n_resamples: int, seed: int
) -> tuple[float, float]:
    """Percentile interval of the paired win-rate difference (a_only − b_only)/n, resampling
    pairs: the four cell counts are redrawn as multinomial(n, cell shares), which is the same
    as resampling the n pairs with replacement (Efron & Tibshirani 1993, ch. 13)."""
    cells = np.array([table[0][0], table[0][1], table[1][0], table[1][1]], dtype=float)
    n = int(cells.sum())
    if n == 0:
        return np.nan, np.nan
    draws = np.random.default_rng(seed).multinomial(n, cells / n, size=n_resamples)
    diffs = (draws[:, 1] - draws[:, 2]) / n
    tail = (1 - confidence) / 2
    return float(np.quantile(diffs, tail)), float(np.quantile(diffs, 1 - tail))


def _pair_row(
    a: str, b: str, labeling: str, wa: np.ndarray, wb: np.ndarray, confidence: float, seed: int
) -> dict:
    table = [[int(np.sum(wa & wb)), int(np.sum(wa & ~wb))], [int(np.sum(~wa & wb)), int(np.sum(~wa & ~wb))]]
    low, high = paired_bootstrap(table, confidence=confidence, n_resamples=BOOTSTRAP_RESAMPLES, seed=seed)
    return {
        "model_a": a, "model_b": b, "labels": labeling, "pairs": len(wa),
        "both": table[0][0], "a_only": table[0][1], "b_only": table[1][0], "neither": table[1][1],
        "difference": float(wa.mean() - wb.mean()) if len(wa) else np.nan,
        "difference_low": low, "difference_high": high,
        "p_value": mcnemar_exact_p(table) if len(wa) else np.nan,
    }  # fmt: skip


def mcnemar_tests(frame: pd.DataFrame, *, confidence: float = 0.95, seed: int = 0) -> pd.DataFrame:
    """Per pair of models on paired riddles, under both labelings: the exact McNemar p-value and
    a paired-bootstrap interval of the win-rate difference (``BOOTSTRAP_RESAMPLES``, ``seed``)."""
    games = _paired(frame)
    rows = []
    for a, b in combinations(sorted(games["player_model"].unique()), 2):
        pairs = games[games["player_model"] == a].merge(
            games[games["player_model"] == b], on=["reference", "occurrence"], suffixes=("_a", "_b")
        )
        for labeling in ("judge", "replaced"):
            wa, wb = pairs[f"{labeling}_a"].to_numpy(bool), pairs[f"{labeling}_b"].to_numpy(bool)
            rows.append(_pair_row(a, b, labeling, wa, wb, confidence, seed))
    columns = ["model_a", "model_b", "labels", "pairs", "both", "a_only", "b_only", "neither", "difference",
               "difference_low", "difference_high", "p_value"]  # fmt: skip
    return pd.DataFrame(rows, columns=columns)


def recompute_wins(
    items: pd.DataFrame,
    judge_labels: pd.DataFrame,
    human_labels: pd.DataFrame,
    *,
    design: Design = "stratified",
    exact_is_true: bool = True,
    confidence: float = 0.95,
    completion: pd.Series | None = None,
    seed: int = 0,
) -> WinRecompute:
    """Audit the exact-match judge and recompute win rates per model (module docstring).

    ``completion`` (item_id → percent of the riddle shown at the final guess, e.g.
    :func:`wordplay_audit.analysis.wof.metrics.per_game`'s ``completion``) adds the completion at
    a win under the judge's and under the replaced labels."""
    check_choice("design", design, DESIGNS)
    z = z_value(confidence)
    require_columns(items, ("item_id", "player_model", "reference"), "items")
    taken = pd.DataFrame(columns=["item_id", "rater", "rater_type", "label"])
    if exact_is_true and design == "stratified":
        taken = _exact_as_true(judge_labels, human_labels)
    people = _with_taken(human_labels, taken)
    audit = confusion_table(
        audit_frame(judge_labels, items, human=people), by="player_model", confidence=confidence
    )
    frame = _frame(items, judge_labels, people)
    skipped = {**frame.attrs.get("skipped", {}), "exact_taken_true": len(taken)}
    rows = [
        {"model": m, **_model_rates(cell, design, z)} for m, cell in frame.groupby("player_model", sort=True)
    ]
    rates = pd.DataFrame(rows)
    if completion is not None:
        rates = rates.merge(_completion_at_win(frame, completion), on="model", how="left")
    tests = mcnemar_tests(frame, confidence=confidence, seed=seed)
    return WinRecompute(audit, rates, tests, design, confidence, skipped)


def _completion_at_win(frame: pd.DataFrame, completion: pd.Series) -> pd.DataFrame:
    """Mean completion (percent of letters shown at the final guess) over the games won by exact
    match (``completion_judge``) and over those won under the replaced labels."""
    shown = frame["item_id"].map(completion).astype(float)
    won_replaced = frame["human"].astype(object).where(frame["labelled"], frame["judge"]).astype(bool)
    table = pd.DataFrame({
        "model": frame["player_model"],
        "completion_judge": shown.where(frame["judge"].astype(bool)),
        "completion_replaced": shown.where(won_replaced),
    })  # fmt: skip
    return table.groupby("model", sort=True).mean().reset_index()
