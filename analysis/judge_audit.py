"""How good is an LLM judge? Its confusion counts, precision, recall, F1 and false-negative rate
against the human consensus, per stratum, with intervals.

This is the one place the judge is audited; the Balderdash recomputation and later judge-audit
work build on it. Inputs are the contract's tables: a labels table holding the judge's rows
(``rater_type`` = ``judge``) and people's rows (``rater_type`` = ``human``), labels
``true``/``false`` (any spelling :func:`corpora.contract.normalize_bool_label` accepts), an
optional ``question`` column (``reference`` when absent), and an items table for strata.

Two kinds of estimate
---------------------
*Raw*: counts over the labelled items, with Wilson (1927) score intervals. They answer "how did
the judge do on the items people labelled".

*Re-weighted* (suffix ``_w``): when the human sample was drawn at different rates across
strata (e.g. stratified by judge verdict, as a campaign that wants enough of both verdicts is),
raw recall is biased. Post-stratify on the judge's own decision (and any sampling strata):
with ``N_s`` judged items and ``q_s`` = share of human-true among the ``n_s`` labelled items of
post-stratum ``s`` (``f_s`` the judge's decision there),

    Se = Σ_{f_s=1} N_s q_s / Σ_s N_s q_s,      Sp = Σ_{f_s=0} N_s (1 − q_s) / Σ_s N_s (1 − q_s),

the double-sampling estimators of Tenenbein (1970, JASA 65:1350), computed by
:mod:`wordplay_audit.analysis.correction.poststratify`. Their intervals are those of the
judge's *realised* FNR and specificity over all judged items: each post-stratum's unlabelled
true (false) items get the randomised Clopper–Pearson predictive and the ratio's bounds are
exact quantiles (:func:`analysis.correction.ratio.randomised_ratio_interval`; a post-stratum
without a label is unknown there). A delta-method normal interval under-covers a specificity
near 0.97 (0.916 in the project's simulator; docs/methods/judge-audit.md).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from wordplay_audit.analysis.correction import post_strata_counts, poststratified_accuracy, seeded_rng
from wordplay_audit.analysis.correction.ratio import randomised_ratio_interval
from wordplay_audit.analysis.proportions import ratio, wilson_interval
from wordplay_audit.corpora.consensus import human_labels
from wordplay_audit.corpora.contract import bool_labels, is_final_labels, place, validate_labels
from wordplay_audit.corpora.final_labels import validate_final_labels
from wordplay_audit.errors import InputError

#: The questions a labels table may answer about an item.
QUESTIONS = ("reference", "any_sense")
DEFAULT_QUESTION = "reference"


def boolean_labels(labels: pd.DataFrame, *, source: str | None = None) -> pd.DataFrame:
    """Validate a labels table and normalise ``label`` to ``"true"``/``"false"``.

    Adds ``question`` = ``reference`` where the column is absent or empty; other question
    values must be one of :data:`QUESTIONS`. A final labels table (one consensus label per item,
    as pull's ``final.csv``; :func:`corpora.contract.is_final_labels`) is validated as one and
    keeps its unresolved labels missing.
    """
    if is_final_labels(labels):
        out = (
            labels
            if labels.attrs.get("validated") == "final_labels"
            else validate_final_labels(labels, source=source)
        )
        out = out.copy()
        resolved = out["label"].notna().to_numpy()
        if resolved.any():
            out.loc[resolved, "label"] = bool_labels(out[resolved], source=source).to_numpy()
        out["label"] = out["label"].astype(object).where(out["label"].notna(), None)
    else:
        out = validate_labels(labels, source=source)
        out["label"] = bool_labels(out, source=source)
    if "question" not in out.columns:
        out["question"] = DEFAULT_QUESTION
    if not set(out["question"].unique()) <= set(QUESTIONS):  # else already normalised
        out["question"] = out["question"].fillna("").astype(str).str.strip().replace("", DEFAULT_QUESTION)
    bad = ~out["question"].isin(QUESTIONS)
    if bad.any():
        pos = int(np.flatnonzero(bad.to_numpy())[0])
        raise InputError(
            f"{place(out, pos, source)}question {out['question'].iloc[pos]!r} is not one of {', '.join(QUESTIONS)}"
        )
    return out


def human_consensus(labels: pd.DataFrame, *, question: str = DEFAULT_QUESTION) -> pd.DataFrame:
    """People's label on ``question`` about each item: the consensus of a per-rater labels table
    (majority vote, an adjudicator's label winning; ties left for adjudication) or the rows of a
    final labels table, both through :func:`corpora.consensus.human_labels`.

    Returns ``item_id``, ``human`` (True/False, or None where unresolved: a tie nobody
    adjudicated), ``n_ratings`` (the people who voted; missing where a final table does not say)
    and ``tie`` (unresolved); sorted by ``item_id``; an empty frame when nobody answered that
    question. ``attrs["counts"]``: ``counts`` of :class:`~wordplay_audit.corpora.consensus.HumanLabels`.
    """
    checked = boolean_labels(labels)
    columns = ["item_id", "human", "n_ratings", "tie"]
    people = human_labels(checked, question=question)
    final = people.final
    out = pd.DataFrame(
        {
            "item_id": final["item_id"].to_numpy(dtype=object),
            "human": final["label"].map({"true": True, "false": False}).astype(object).to_numpy(),
            "n_ratings": final["n_raters"].to_numpy(),
            "tie": final["label"].isna().to_numpy(bool),
        },
        columns=columns,
    )
    out["human"] = out["human"].where(~out["tie"], None)
    out.attrs["counts"] = people.counts
    return out


def judge_decisions(
    labels: pd.DataFrame, *, question: str = DEFAULT_QUESTION, judge: str | None = None
) -> pd.DataFrame:
    """The judge's decision on each item: ``item_id``, ``judge`` (bool), ``rater``.

    With several judges in the table, name one with ``judge``; an item judged twice by the same
    judge is an error.
    """
    checked = boolean_labels(labels)
    rows = checked[(checked["rater_type"] == "judge") & (checked["question"] == question)]
    if judge is not None:
        rows = rows[rows["rater"] == judge]
        if rows.empty:
            raise InputError(f"labels hold no judge rows by {judge!r} for question {question!r}")
    elif rows["rater"].nunique() > 1:
        names = ", ".join(sorted(rows["rater"].unique())[:3])
        raise InputError(f"labels hold several judges ({names}); choose one with judge=")
    dup = rows["item_id"].duplicated()
    if dup.any():
        raise InputError(f"judge labels: item {rows['item_id'][dup].iloc[0]!r} is judged twice")
    out = pd.DataFrame({"item_id": rows["item_id"], "judge": rows["label"] == "true", "rater": rows["rater"]})
    return out.reset_index(drop=True)


def audit_frame(
    labels: pd.DataFrame,
    items: pd.DataFrame | None = None,
    *,
    question: str = DEFAULT_QUESTION,
    judge: str | None = None,
    human: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """One row per judged item: ``item_id``, ``judge`` (bool), ``human`` (bool, NA where no
    consensus), ``labelled`` (bool) and the items' strata columns.

    ``human``: people's labels, per rater or final (pull's ``final.csv``); default: the human
    rows of ``labels``. ``attrs["skipped"]`` counts human-labelled items without a judge decision
    (``human_without_judge``) and tied consensus (``ties``); both are left out.
    """
    judged = judge_decisions(labels, question=question, judge=judge)
    consensus = human_consensus(labels if human is None else human, question=question)
    frame = judged.merge(consensus[["item_id", "human", "tie"]], on="item_id", how="left")
    frame["tie"] = frame["tie"].fillna(False).astype(bool)
    frame["human"] = frame["human"].astype("boolean")
    frame["labelled"] = frame["human"].notna()
    skipped = {
        "human_without_judge": int((pd.Index(judged["item_id"]).get_indexer(consensus["item_id"]) < 0).sum()),
        "ties": int(frame["tie"].sum()),
    }
    if items is not None:
        extra = [c for c in items.columns if c not in frame.columns]
        frame = frame.merge(
            items[["item_id", *[c for c in extra if c != "item_id"]]], on="item_id", how="left"
        )
    frame.attrs["skipped"] = skipped
    return frame


def confusion_counts(frame: pd.DataFrame) -> dict[str, int]:
    """tp, fp, fn, tn of the judge against the human consensus on the labelled rows."""
    lab = frame[frame["labelled"]]
    j = lab["judge"].to_numpy(bool)
    h = lab["human"].to_numpy(bool)
    return {
        "tp": int(np.sum(j & h)),
        "fp": int(np.sum(j & ~h)),
        "fn": int(np.sum(~j & h)),
        "tn": int(np.sum(~j & ~h)),
    }


def judge_confusion(
    labels: pd.DataFrame,
    items: pd.DataFrame | None = None,
    *,
    by: str | Sequence[str] | None = "player_model",
    question: str = DEFAULT_QUESTION,
    judge: str | None = None,
    strata: Sequence[str] = (),
    confidence: float = 0.95,
    seed: int = 0,
) -> pd.DataFrame:
    """The judge's confusion counts and rates against the human consensus, per ``by`` group.

    Parameters
    ----------
    labels
        Contract labels with the judge's rows (``rater_type`` = ``judge``) for every judged item
        and people's rows for the audited ones.
    items
        Items table supplying the ``by`` and ``strata`` columns.
    by
        Column(s) to group by, or None for one overall row.
    question
        ``reference`` (default) or ``any_sense``.
    strata
        Sampling strata inside a group (e.g. ``("deck",)``) used, with the judge's decision, to
        re-weight the ``_w`` estimates.
    seed
        Seeds the randomised intervals of ``fnr_w`` and ``specificity_w`` (with each group's
        first item id): the same input and seed give the same table.

    Returns
    -------
    DataFrame, one row per group: ``n_judged``, ``n_labelled``; first the re-weighted estimates
    over all judged items (the ones to report when the sample was drawn at different rates
    across strata): ``precision_w``, ``recall_w``, ``fnr_w`` (with ``fnr_w_low``/``_high``),
    ``specificity_w`` (with ``_low``/``_high``; the randomised exact interval of the realised
    rate over all judged items, :mod:`analysis.correction.ratio`; nan where the point is), ``f1_w``; then
    the counts ``tp``, ``fp``, ``fn``, ``tn`` and the raw rates *on the labelled items only*:
    ``precision``, ``recall``, ``f1``, ``fnr`` (= 1 − recall), ``specificity`` with Wilson
    intervals (``*_low``, ``*_high``). A rate whose denominator is 0 is nan.
    ``attrs["skipped"]`` as in :func:`audit_frame`.
    """
    frame = audit_frame(labels, items, question=question, judge=judge)
    return confusion_table(frame, by=by, strata=strata, confidence=confidence, seed=seed)


def confusion_table(
    frame: pd.DataFrame,
    *,
    by: str | Sequence[str] | None = "player_model",
    strata: Sequence[str] = (),
    confidence: float = 0.95,
    seed: int = 0,
) -> pd.DataFrame:
    """:func:`judge_confusion` on an :func:`audit_frame` (or a frame with its columns, e.g.
    built straight from a player-round table without the labels detour)."""
    by_cols = [by] if isinstance(by, str) else list(by or [])
    for column in [*by_cols, *strata]:
        if column not in frame.columns:
            raise InputError(f"judge_confusion: column {column!r} is not in the items table")
    groups = frame.groupby(by_cols, sort=True, dropna=False, observed=True) if by_cols else [((), frame)]
    rows = []
    for key, part in groups:
        key = key if isinstance(key, tuple) else (key,)
        row = dict(zip(by_cols, key, strict=True))
        row.update(n_judged=len(part), n_labelled=int(part["labelled"].sum()))
        # like the corrected rates' cells: seeded by the group's first item, so the randomised
        # intervals' v differ between audits (a fixed v per model would make every audit of that
        # model share one conditional coverage) and stay the same for the same input
        first = part["item_id"].iloc[0] if "item_id" in part.columns and len(part) else key
        rng = seeded_rng(seed, "judge_audit", first)
        row.update(_reweighted_rates(part, strata, confidence, rng))
        row.update(_raw_rates(confusion_counts(part), confidence))
        rows.append(row)
    out = pd.DataFrame(rows)
    out.attrs["skipped"] = frame.attrs.get("skipped", {})
    return out


def _raw_rates(c: dict[str, int], confidence: float) -> dict[str, float]:
    """Counts and rates on the labelled items only, with Wilson intervals."""
    tp, fp, fn, tn = c["tp"], c["fp"], c["fn"], c["tn"]
    row: dict[str, float] = dict(c)
    row["precision"] = ratio(tp, tp + fp)
    row["recall"] = ratio(tp, tp + fn)
    row["f1"] = ratio(2 * tp, 2 * tp + fp + fn)
    row["fnr"] = ratio(fn, tp + fn)
    row["specificity"] = ratio(tn, tn + fp)
    for name, x, m in (
        ("precision", tp, tp + fp),
        ("recall", tp, tp + fn),
        ("fnr", fn, tp + fn),
        ("specificity", tn, tn + fp),
    ):
        lo, hi = wilson_interval(x, m, confidence=confidence)
        row[f"{name}_low"], row[f"{name}_high"] = float(lo), float(hi)
    return row


def _reweighted_rates(
    part: pd.DataFrame, strata: Sequence[str], confidence: float, rng: np.random.Generator
) -> dict[str, float]:
    """Post-stratified (``_w``) precision, recall, FNR, specificity and F1 of the judge over all
    its judged items; FNR and specificity with the randomised exact interval of the realised
    ratio (:func:`analysis.correction.ratio.randomised_ratio_interval`), null where the point is."""
    acc = poststratified_accuracy(part, strata=strata)
    every = post_strata_counts(part, list(acc.strata))
    counts = every[every["n"] > 0]
    pos = counts[counts["judge"]]
    ppv_w = ratio(float((pos["N"] * pos["x"] / pos["n"]).sum()), float(pos["N"].sum()))
    row = {"precision_w": ppv_w, "recall_w": acc.se, "fnr_w": 1 - acc.se}
    unlabelled, n, x = every["N"] - every["n"], every["n"], every["x"]
    judge = every["judge"].to_numpy(bool)

    def interval(point: float, attr, numerator) -> tuple[float, float]:
        if not np.isfinite(point):
            return np.nan, np.nan
        return randomised_ratio_interval(unlabelled, n, attr, numerator, confidence=confidence, rng=rng)

    se_low, se_high = interval(acc.se, x, judge)  # the true definitions; Sp: the false ones
    row["fnr_w_low"], row["fnr_w_high"] = 1 - se_high, 1 - se_low
    row["specificity_w"] = acc.sp
    row["specificity_w_low"], row["specificity_w_high"] = interval(acc.sp, n - x, ~judge)
    both = np.isfinite(ppv_w) and np.isfinite(acc.se)
    row["f1_w"] = ratio(2 * ppv_w * acc.se, ppv_w + acc.se) if both else np.nan
    return row
