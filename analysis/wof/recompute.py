"""Win rates under people's guess-equivalence labels: the exact-match judge audited and wins
recomputed — replaced where labelled, corrected with intervals where only a sample is.

Inputs are the contract's tables: ``items`` (one ``guess`` item per game, with ``player_model``
and ``reference``), the game master's verdicts (rater ``wof-exact-match``) and people's labels
(``true`` = the final guess names the solution). Per model, over its N games:

* ``judge`` — the exact-match win rate (the study's number); with ``completion``, also the
  mean completion at a win under the judge's and the replaced labels;
* ``replaced`` — people's consensus where labelled, the verdict elsewhere (a sensitivity view:
  with few labels it stays close to the judge's rate and biased the same way);
* ``se``, ``sp`` — the exact-match judge's sensitivity and specificity, post-stratified on its
  verdict (:mod:`wordplay_audit.analysis.correction`);
* ``corrected`` — the realised win rate under people's labels, from the corrected-metric
  engine (:func:`wordplay_audit.analysis.correction.corrected_shares`): labelled games as
  labelled, the unlabelled rest of each verdict at its labelled share (post-stratified on the
  verdict; Tenenbein 1970), with the randomised exact interval ``corrected_low`` /
  ``corrected_high`` (Stevens 1950). Both designs are post-stratified: a sample drawn within
  verdicts (``design="stratified"``, e.g. only lost games) is one per verdict by construction,
  and a simple random sample of the games (``design="random"``) is, given how many labels fall
  in each verdict, a simple random sample of each. A verdict with unlabelled games and fewer
  than ``MIN_LABELS`` (5) labels gets no interval, one with none no estimate either:
  ``corrected_reason`` says which (coverage: docs/methods/corrected-shares.md).

``exact_is_true`` (default): a final guess equal to the solution is a win for people too —
true by construction, so judge-true games count as labelled true and a sample of lost games
alone is enough. With ``design="random"`` it is not applied: the judge audit's counts on the
labelled games then stay those of a random sample, and the judge-true verdict needs its own
``MIN_LABELS`` labels for an interval.

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

from wordplay_audit.analysis.correction import corrected_shares, poststratified_accuracy, randomisation_seed
from wordplay_audit.analysis.judge_audit import DEFAULT_QUESTION, audit_frame, boolean_labels, confusion_table
from wordplay_audit.analysis.proportions import mcnemar_exact_p, z_value
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
    rates: pd.DataFrame  # per model: n, n_labelled, judge, replaced, se, sp, corrected*
    mcnemar: pd.DataFrame  # per pair of models and labeling
    design: str
    confidence: float
    skipped: dict[str, int] = field(default_factory=dict)
    seed: int = 0  # of the randomised intervals and the paired bootstrap

    def to_dict(self) -> dict:
        return {
            "design": self.design,
            "confidence": self.confidence,
            "seed": self.seed,
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


RATE_COLUMNS = ["model", "n", "n_labelled", "judge", "replaced", "se", "sp", "corrected", "corrected_low",
                "corrected_high", "corrected_reason"]  # fmt: skip
"""The columns of :attr:`WinRecompute.rates` (before the completion columns)."""


def _win_rates(frame: pd.DataFrame, confidence: float, seed: int) -> pd.DataFrame:
    """Per model: the judge's, the replaced and the corrected win rate (module doc)."""
    shares = corrected_shares(frame, cells=["player_model"], confidence=confidence, seed=seed)
    rows = []
    for share, (model, cell) in zip(
        shares.itertuples(index=False), frame.groupby("player_model", sort=True), strict=True
    ):
        labelled = cell["labelled"].to_numpy(bool)
        human_true = float(cell.loc[labelled, "human"].astype(bool).sum())
        acc = poststratified_accuracy(cell)
        rows.append({
            "model": model, "n": share.n, "n_labelled": share.n_labelled, "judge": share.judge,
            "replaced": (human_true + float(cell.loc[~labelled, "judge"].sum())) / share.n,
            "se": acc.se, "sp": acc.sp, "corrected": share.estimate, "corrected_low": share.ci_low,
            "corrected_high": share.ci_high, "corrected_reason": share.reason,
        })  # fmt: skip
    return pd.DataFrame(rows, columns=RATE_COLUMNS)


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
    seed: int | None = None,
) -> WinRecompute:
    """Audit the exact-match judge and recompute win rates per model (module docstring).

    ``seed`` seeds the randomised intervals (each model's v from (seed, its first game)) and the
    paired bootstrap; None (default) draws a fresh one
    (:func:`~wordplay_audit.analysis.correction.randomisation_seed`), recorded in the result.

    ``completion`` (item_id → percent of the riddle shown at the final guess, e.g.
    :func:`wordplay_audit.analysis.wof.metrics.per_game`'s ``completion``) adds the completion at
    a win under the judge's and under the replaced labels."""
    check_choice("design", design, DESIGNS)
    z_value(confidence)  # checks the level
    seed = randomisation_seed(seed)
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
    rates = _win_rates(frame, confidence, seed)
    if completion is not None:
        rates = rates.merge(_completion_at_win(frame, completion), on="model", how="left")
    tests = mcnemar_tests(frame, confidence=confidence, seed=seed)
    return WinRecompute(audit, rates, tests, design, confidence, skipped, seed)


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
