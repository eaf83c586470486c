"""Judge audit for any game: judge verdicts against human labels per player model and strata,
every rate with its interval and n; several judges side by side (a bake-off); a report section.

Builds on :mod:`wordplay_audit.analysis.judge_audit` (human consensus, the judge/human frame)
and :mod:`wordplay_audit.analysis.judge_audit_cells`: per group, over the items that have both
a parsed verdict and a human label, the cells TP, FP, FN, TN, precision, recall, FNR, FPR and
accuracy with Wilson (1927) intervals, F1 and Cohen's κ with percentile bootstrap intervals from
``n_boot`` resamples, each interval's ``ci_reason``, and the ``small`` flag (TP+FN or FP+TN
below ``min_cell``).

Unparsed verdicts (policy ``unparsed=``): ``exclude`` (default) sets them apart — counted per
group as ``n_unparsed``, not in the cells; ``as_false`` / ``as_true`` count them as that verdict
(an upper and a lower bound on what they cost). Human ties are left out and counted.

Scores (``scores=True``): per judge and group, over the counted items that carry a score, ROC-AUC
with its DeLong interval, the reliability curve, expected calibration error, Brier score and a
cross-validated threshold (:mod:`wordplay_audit.analysis.judge_scores`); an item whose score is
empty (unknown) is left out of them and counted as ``n_no_score``.

Re-weighting: with ``weight=`` (an items column of inverse inclusion probabilities, e.g. a
campaign manifest's weights), the cells are sums of weights and ``*_w`` point estimates follow
(Horvitz & Thompson 1952, JASA 47:663).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import pandas as pd

from wordplay_audit.analysis.judge_audit import human_consensus
from wordplay_audit.analysis.judge_audit_cells import METRICS, group_row
from wordplay_audit.analysis.judge_scores import score_row
from wordplay_audit.analysis.proportions import z_value
from wordplay_audit.corpora.consensus import people_rows
from wordplay_audit.corpora.contract import (
    bool_labels,
    is_final_labels,
    label_scores,
    place,
    require_columns,
    validate_labels,
)
from wordplay_audit.corpora.final_labels import validate_final_labels
from wordplay_audit.errors import InputError, ParameterError, check_choice

UnparsedPolicy = Literal["exclude", "as_false", "as_true"]
UNPARSED_POLICIES = ("exclude", "as_false", "as_true")
ALL = "(all)"


def judge_verdicts(labels: pd.DataFrame, *, source: str | None = None) -> pd.DataFrame:
    """The judge rows of a labels table: ``item_id``, ``rater``, ``verdict`` (true/false/unparsed),
    ``score`` (float, nan where empty: unknown) and, where the table has them, ``calibrated`` and
    ``score_source``."""
    checked = validate_labels(labels, source=source)
    rows = checked[checked["rater_type"] == "judge"].copy()
    if rows.empty:
        raise InputError(f"{source or 'judge labels'}: no rows with rater_type 'judge'")
    unparsed = rows["label"].str.lower() == "unparsed"
    verdict = pd.Series("unparsed", index=rows.index, dtype=object)
    if (~unparsed).any():
        verdict[~unparsed] = bool_labels(rows[~unparsed], source=source)
    rows["verdict"] = verdict
    rows["score"] = label_scores(rows, source=source).to_numpy(float)
    if "calibrated" in rows.columns:
        rows["calibrated"] = label_scores(rows, "calibrated", source=source).to_numpy(float)
    dup = rows.duplicated(["rater", "item_id"])
    if dup.any():
        item = rows.loc[dup, "item_id"].iloc[0]
        raise InputError(f"{source or 'judge labels'}: item {item!r} is judged twice by one judge")
    keep = ["item_id", "rater", "verdict", "score", *(c for c in ("calibrated", "score_source") if c in rows)]
    return rows[keep].reset_index(drop=True)


def _people(labels: pd.DataFrame, *, source: str | None) -> pd.DataFrame:
    """People's rows of a labels table: a final labels table as it is, else the rows of
    ``rater_type`` ``human`` and ``adjudicator`` (validated either way)."""
    if is_final_labels(labels):
        return validate_final_labels(labels, source=source)
    return people_rows(validate_labels(labels, source=source))[0]


def human_truth(
    labels: pd.DataFrame,
    item_ids: Sequence[str],
    *,
    rater: str | None = None,
    source: str | None = None,
) -> tuple[pd.Series, int]:
    """Human label per item (bool, index ``item_id``) for ``item_ids``, and ties left out.

    ``rater`` names one annotator; otherwise the consensus of all people
    (:func:`analysis.judge_audit.human_consensus`: majority, an adjudicator's label winning, ties
    left out and counted). ``labels``: per rater, or a final labels table (pull's ``final.csv``).
    """
    people = _people(labels, source=source)
    rows = people[people["item_id"].isin(set(item_ids))]
    if rater is not None:
        if "rater" not in rows.columns:
            raise InputError(
                f"{source or 'human labels'}: a final labels table names no rater; rater= needs per-rater labels"
            )
        rows = rows[(rows["rater"] == rater) & (rows["rater_type"] == "human")]
        if rows.empty:
            raise InputError(f"{source or 'human labels'}: no labels by rater {rater!r} on the judged items")
        if rows["item_id"].duplicated().any():
            raise InputError(f"{source or 'human labels'}: rater {rater!r} labels an item twice")
        values = bool_labels(rows, source=source) == "true"
        return pd.Series(values.to_numpy(), index=rows["item_id"].to_numpy(), name="human"), 0
    if rows.empty:
        raise InputError(f"{source or 'human labels'}: no human label names a judged item")
    consensus = human_consensus(rows)
    ties = int(consensus["tie"].sum())
    kept = consensus[~consensus["tie"].astype(bool)]
    return pd.Series(
        kept["human"].astype(bool).to_numpy(), index=kept["item_id"].to_numpy(), name="human"
    ), ties


@dataclass
class JudgeAuditResult:
    """One row per (judge, group); ``to_dict()`` is the ``--json`` payload."""

    rows: list[dict[str, Any]]
    by: list[str]
    judges: list[str]
    unparsed: str
    confidence: float
    n_boot: int
    skipped: dict[str, int] = field(default_factory=dict)
    scores: bool = False

    def table(self) -> pd.DataFrame:
        """Flat table: ``<metric>``, ``<metric>_low``, ``<metric>_high``, ``<metric>_n`` columns."""
        flat = []
        for row in self.rows:
            out = {k: v for k, v in row.items() if not isinstance(v, dict)}
            for m in METRICS:
                e = row[m]
                out.update(
                    {
                        m: e["value"],
                        f"{m}_low": e["ci_low"],
                        f"{m}_high": e["ci_high"],
                        f"{m}_n": e["n"],
                        f"{m}_ci_reason": e["ci_reason"],
                    }
                )
            if self.scores:
                for nested in ("reliability", "cv_threshold", "roc"):
                    out.pop(nested, None)
                auc, cut = row["auc"], row["cv_threshold"]
                out.update({"auc": auc["value"], "auc_low": auc["ci_low"], "auc_high": auc["ci_high"],
                            "auc_n": auc["n"], "auc_ci_reason": auc["ci_reason"], "cv_threshold": cut["threshold"],
                            "cv_sensitivity": cut.get("cv_sensitivity", float("nan")),
                            "cv_specificity": cut.get("cv_specificity", float("nan")),
                            "cv_reason": cut["reason"]})  # fmt: skip
            flat.append(out)
        return pd.DataFrame(flat)

    def to_dict(self) -> dict[str, Any]:
        return {
            "judges": self.judges, "by": self.by, "unparsed_policy": self.unparsed,
            "confidence": self.confidence, "bootstrap": self.n_boot,
            "skipped": dict(self.skipped), "groups": self.rows, "scores": self.scores,
        }  # fmt: skip


def _frame(verdicts: pd.DataFrame, truth: pd.Series, items: pd.DataFrame | None, by: list[str],
           unparsed: str, weight: str | None) -> pd.DataFrame:  # fmt: skip
    frame = verdicts[verdicts["item_id"].isin(truth.index)].copy()
    frame["human"] = frame["item_id"].map(truth).astype(bool)
    frame["unparsed"] = frame["verdict"] == "unparsed"
    if unparsed != "exclude":
        frame.loc[frame["unparsed"], "verdict"] = "true" if unparsed == "as_true" else "false"
        frame["unparsed"] = False
    frame["judge"] = frame["verdict"] == "true"
    needed = [*by, *([weight] if weight else [])]
    if needed:
        if items is None:
            raise InputError(f"by, weight: {', '.join(needed)} need the items table (items) that holds them")
        require_columns(items, needed, "items", items.attrs.get("source"))
        frame = frame.merge(items[["item_id", *needed]], on="item_id", how="left")
        frame[by] = frame[by].fillna("(none)").astype(str)
        if weight:
            frame[weight] = _weights(items, weight, frame["item_id"])
    return frame


def _weights(items: pd.DataFrame, weight: str, item_ids: pd.Series) -> np.ndarray:
    """The ``weight`` of each of ``item_ids`` as numbers: InputError naming the items file's line
    for a weight that is not a finite number ≥ 0, and for an audited item with no items row."""
    source = items.attrs.get("source")
    rows = items[items["item_id"].isin(set(item_ids))]
    values = pd.to_numeric(rows[weight].astype(str).str.strip(), errors="coerce").to_numpy(float)
    bad = ~(np.isfinite(values) & (values >= 0))  # text, empty, nan, inf and negative weights
    if bad.any():
        pos = int(np.flatnonzero(bad)[0])
        raise InputError(
            f"{place(rows, pos, source, what='items')}column {weight!r}: expected a sampling weight "
            f"(a finite number ≥ 0), got {rows[weight].iloc[pos]!r}"
        )
    by_id = dict(zip(rows["item_id"], values, strict=True))
    absent = sorted(set(item_ids) - set(by_id))
    if absent:
        raise InputError(
            f"{source or 'items'}: no row for item {absent[0]!r} (audited), whose weight is needed"
        )
    return item_ids.map(by_id).to_numpy(float)


@dataclass(frozen=True)
class AuditOptions:
    """How the audit counts and what intervals it gives (see the module docstring)."""

    unparsed: UnparsedPolicy = "exclude"
    confidence: float = 0.95
    n_boot: int = 1000
    seed: int = 0
    min_cell: int = 10
    scores: bool = False
    bins: int = 10
    folds: int = 5

    def __post_init__(self) -> None:
        check_choice("unparsed", self.unparsed, UNPARSED_POLICIES)
        z_value(self.confidence)  # raises ParameterError outside (0, 1)
        if self.n_boot < 0 or self.n_boot == 1:
            raise ParameterError(
                f"n_boot: expected 0 (no bootstrap) or a whole number ≥ 2; got {self.n_boot}"
            )
        for name, value, least in (("bins", self.bins, 1), ("folds", self.folds, 2)):
            if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < least:
                raise ParameterError(f"{name}: expected a whole number ≥ {least}; got {value!r}")


def judge_audit(  # noqa: PLR0913 - keyword-only options, one per setting
    judge_labels: pd.DataFrame,
    human_labels: pd.DataFrame,
    items: pd.DataFrame | None = None,
    *,
    by: Sequence[str] = ("player_model",),
    human_rater: str | None = None,
    weight: str | None = None,
    unparsed: UnparsedPolicy = "exclude",
    confidence: float = 0.95,
    n_boot: int = 1000,
    seed: int = 0,
    min_cell: int = 10,
    scores: bool = False,
    bins: int = 10,
    folds: int = 5,
) -> JudgeAuditResult:
    """Audit each judge in ``judge_labels`` against ``human_labels``, per ``by`` group and overall.

    ``unparsed``: how a verdict the judge's reply did not give is counted (``exclude``,
    ``as_false``, ``as_true``); ``n_boot`` resamples for the F1 and κ intervals (0: none);
    ``min_cell``: groups with fewer human-true or human-false items are flagged ``small``.
    ``scores``: also the score metrics of each judge and group over its counted items
    (:func:`wordplay_audit.analysis.judge_scores.score_row`: ROC-AUC with its DeLong interval,
    Brier score, ECE and the reliability curve over ``bins`` bins, the ``folds``-fold
    cross-validated Youden threshold); an item without a score is left out of them and counted
    (``n_no_score``).
    """
    opts = AuditOptions(unparsed=unparsed, confidence=confidence, n_boot=n_boot, seed=seed, min_cell=min_cell,
                        scores=scores, bins=bins, folds=folds)  # fmt: skip
    verdicts = judge_verdicts(judge_labels, source=judge_labels.attrs.get("source"))
    truth, ties = human_truth(human_labels, verdicts["item_id"].unique(), rater=human_rater,
                              source=human_labels.attrs.get("source"))  # fmt: skip
    by = list(by)
    frame = _frame(verdicts, truth, items, by, opts.unparsed, weight)
    rng = np.random.default_rng(opts.seed)
    rows = []
    for judge, of_judge in frame.groupby("rater", sort=True):
        parts = [((ALL,) * len(by), of_judge)]
        if by:
            parts += list(of_judge.groupby(by, sort=True))
        for key, part in parts:
            key = key if isinstance(key, tuple) else (key,)
            row = {"judge": judge, **dict(zip(by, key, strict=True))}
            row.update(group_row(part, confidence=opts.confidence, n_boot=opts.n_boot, rng=rng,
                                 min_cell=opts.min_cell, weight=weight))  # fmt: skip
            if opts.scores:
                row.update(score_row(part[~part["unparsed"]], confidence=opts.confidence, bins=opts.bins,
                                     folds=opts.folds, seed=opts.seed))  # fmt: skip
            rows.append(row)
    people = _people(human_labels, source=human_labels.attrs.get("source"))
    if human_rater is not None:
        people = people[people["rater"] == human_rater]
    rated, judged = set(people["item_id"]), set(verdicts["item_id"])
    skipped = {  # a tie has human labels: it is counted once, as a tie
        "human_ties": ties,
        "judged_without_human": int((~verdicts["item_id"].isin(rated)).sum()),
        "human_without_judge": len(rated - judged),
    }
    judges = sorted(frame["rater"].unique())
    return JudgeAuditResult(
        rows, by, judges, opts.unparsed, opts.confidence, opts.n_boot, skipped, opts.scores
    )
