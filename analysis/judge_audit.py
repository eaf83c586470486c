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

the double-sampling estimators of Tenenbein (1970, JASA 65:1350). Their variances come from the
delta method over independent binomial ``q_s`` (Agresti–Coull adjusted, so a stratum labelled
all-true does not claim zero variance).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.stats import norm
from wordplay_audit.corpora.contract import normalize_bool_label, validate_labels

from wordplay_audit.errors import InputError

QUESTIONS = ("reference", "any_sense")
DEFAULT_QUESTION = "reference"


def wilson_interval(successes, n, *, confidence: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """Wilson score interval for a binomial proportion (vectorised).

    With p̂ = x/n and z the (1 + c)/2 normal quantile,
    centre = (p̂ + z²/2n) / (1 + z²/n), half-width = z √(p̂(1 − p̂)/n + z²/4n²) / (1 + z²/n).
    Where n = 0 both ends are nan. Reference: Wilson (1927), JASA 22:209; Brown, Cai &
    DasGupta (2001), Statistical Science 16:101.

    >>> lo, hi = wilson_interval(0, 10)
    >>> round(float(lo), 4), round(float(hi), 4)
    (0.0, 0.2775)
    """
    x = np.asarray(successes, dtype=float)
    m = np.asarray(n, dtype=float)
    z = norm.ppf(0.5 + confidence / 2)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = x / m
        denom = 1 + z**2 / m
        centre = (p + z**2 / (2 * m)) / denom
        half = z * np.sqrt(p * (1 - p) / m + z**2 / (4 * m**2)) / denom
        low = np.where(m > 0, np.clip(centre - half, 0.0, 1.0), np.nan)
        high = np.where(m > 0, np.clip(centre + half, 0.0, 1.0), np.nan)
    return low, high


def boolean_labels(labels: pd.DataFrame, *, source: str | None = None) -> pd.DataFrame:
    """Validate a labels table and normalise ``label`` to ``"true"``/``"false"``.

    Adds ``question`` = ``reference`` where the column is absent or empty; other question
    values must be one of :data:`QUESTIONS`.
    """
    checked = validate_labels(labels, source=source)
    out = checked.copy()
    normalised = []
    for pos, value in enumerate(out["label"]):
        try:
            normalised.append(normalize_bool_label(value))
        except ValueError:
            where = f"{source}: " if source else ""
            raise InputError(f"{where}labels row {pos + 1}: label {value!r} is not true/false") from None
    out["label"] = normalised
    if "question" not in out.columns:
        out["question"] = DEFAULT_QUESTION
    out["question"] = out["question"].fillna("").astype(str).str.strip().replace("", DEFAULT_QUESTION)
    bad = ~out["question"].isin(QUESTIONS)
    if bad.any():
        pos = int(np.flatnonzero(bad.to_numpy())[0])
        where = f"{source}: " if source else ""
        raise InputError(
            f"{where}labels row {pos + 1}: question {out['question'].iloc[pos]!r} is not one of {', '.join(QUESTIONS)}"
        )
    return out


def human_consensus(labels: pd.DataFrame, *, question: str = DEFAULT_QUESTION) -> pd.DataFrame:
    """Majority label of the people who answered ``question`` about each item.

    Returns ``item_id``, ``human`` (True/False, or None where the vote is tied), ``n_ratings``
    and ``tie``; an empty frame when nobody answered that question. Uses
    :func:`analysis.agreement.aggregation.majority_vote` (ties are left for adjudication).
    """
    from wordplay_audit.analysis.agreement.aggregation import majority_vote

    checked = boolean_labels(labels)
    human = checked[(checked["rater_type"] == "human") & (checked["question"] == question)]
    columns = ["item_id", "human", "n_ratings", "tie"]
    if human.empty:
        return pd.DataFrame(columns=columns)
    votes = majority_vote(human, tie="adjudicate", rater_type="human")
    human_vote = votes["label"].map({"true": True, "false": False}).astype(object)
    human_vote[votes["tie"].to_numpy(bool)] = None
    votes["human"] = human_vote
    return votes[columns].reset_index(drop=True)


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
) -> pd.DataFrame:
    """One row per judged item: ``item_id``, ``judge`` (bool), ``human`` (bool, NA where no
    consensus), ``labelled`` (bool) and the items' strata columns.

    ``attrs["skipped"]`` counts human-labelled items without a judge decision
    (``human_without_judge``) and tied consensus (``ties``); both are left out.
    """
    judged = judge_decisions(labels, question=question, judge=judge)
    consensus = human_consensus(labels, question=question)
    frame = judged.merge(consensus[["item_id", "human", "tie"]], on="item_id", how="left")
    frame["tie"] = frame["tie"].fillna(False).astype(bool)
    frame["human"] = frame["human"].astype("boolean")
    frame["labelled"] = frame["human"].notna()
    skipped = {
        "human_without_judge": int((~consensus["item_id"].isin(judged["item_id"])).sum()),
        "ties": int(frame["tie"].sum()),
    }
    if items is not None:
        extra = [c for c in items.columns if c not in frame.columns]
        frame = frame.merge(items[["item_id", *[c for c in extra if c != "item_id"]]], on="item_id", how="left")
    frame.attrs["skipped"] = skipped
    return frame


@dataclass(frozen=True)
class JudgeAccuracy:
    """Post-stratified sensitivity and specificity of a judge with delta-method (co)variances."""

    se: float
    sp: float
    var_se: float
    var_sp: float
    cov: float
    n_labelled: int
    strata: tuple[str, ...]

    @property
    def youden(self) -> float:
        """J = Se + Sp − 1 (the Rogan–Gladen denominator)."""
        return self.se + self.sp - 1


def _ac(x: np.ndarray, n: np.ndarray, z: float) -> np.ndarray:
    """Agresti–Coull adjusted proportion (x + z²/2)/(n + z²), used for variances only."""
    return (x + z**2 / 2) / (n + z**2)


def post_strata_counts(frame: pd.DataFrame, strata: Sequence[str]) -> pd.DataFrame:
    """Per post-stratum (``strata`` + judge decision): ``N`` judged, ``n`` labelled, ``x`` human-true."""
    keys = [*strata, "judge"]
    slim = frame[keys].copy()
    slim["n"] = frame["labelled"].to_numpy(bool).astype(int)
    slim["x"] = frame["human"].fillna(False).to_numpy(bool).astype(int)
    grouped = slim.groupby(keys, dropna=False, sort=True)
    out = grouped[["n", "x"]].sum()
    out.insert(0, "N", grouped.size())
    return out.reset_index()


def poststratified_accuracy(
    frame: pd.DataFrame, *, strata: Sequence[str] = (), z: float = 1.959963984540054
) -> JudgeAccuracy:
    """Se and Sp of the judge over all rows of ``frame`` (an :func:`audit_frame` slice).

    Post-strata are ``strata`` × judge decision. A post-stratum with judged items but no
    labelled one borrows the share of the same judge decisions pooled over the leading strata
    columns (first column dropped first); nan when even the judge-decision stratum has no label. Se = A/(A + B) with A = Σ_{f=1} N_s q_s,
    B = Σ_{f=0} N_s q_s; Sp = C/(C + D) with C = Σ_{f=0} N_s(1 − q_s), D = Σ_{f=1} N_s(1 − q_s);
    Var(q_s) = q̃_s(1 − q̃_s)/n_s · (N_s − n_s)/(N_s − 1) with q̃ from :func:`_variance_proportion`
    (``z`` is not used; kept for callers): the
    finite-population correction makes Se and Sp those of the judge on these N items (the
    realised accuracy), which is what corrects a realised rate. nan when undefined.
    """
    strata = list(strata)
    counts = post_strata_counts(frame, strata)
    counts["xq"], counts["nq"] = counts["x"].astype(float), counts["n"].astype(float)
    counts["Nq"] = counts["N"].astype(float)
    for level in range(1, len(strata) + 1):
        missing = (counts["nq"] == 0) & (counts["N"] > 0)
        if not missing.any():
            break
        kept = strata[level:]
        coarse = post_strata_counts(frame, kept).rename(columns={"x": "xc", "n": "nc", "N": "Nc"})
        merged = counts[[*kept, "judge"]].merge(coarse, on=[*kept, "judge"], how="left")
        fill = missing.to_numpy() & (merged["nc"].fillna(0).to_numpy() > 0)
        counts.loc[fill, "xq"] = merged.loc[fill, "xc"].to_numpy(float)
        counts.loc[fill, "nq"] = merged.loc[fill, "nc"].to_numpy(float)
        counts.loc[fill, "Nq"] = merged.loc[fill, "Nc"].to_numpy(float)
    n_labelled = int(counts["n"].sum())
    nan = JudgeAccuracy(np.nan, np.nan, np.nan, np.nan, np.nan, n_labelled, tuple(strata))
    if ((counts["nq"] == 0) & (counts["N"] > 0)).any() or counts.empty:
        return nan
    counts = counts[counts["N"] > 0]
    counts = counts.assign(x=counts["xq"], n=counts["nq"])
    N = counts["N"].to_numpy(float)
    n = counts["n"].to_numpy(float)
    q = counts["x"].to_numpy(float) / n
    f = counts["judge"].to_numpy(bool)
    qa = _variance_proportion(counts["x"].to_numpy(float), n, f)
    big_n = counts["Nq"].to_numpy(float)
    fpc = np.where(big_n > 1, np.clip((big_n - n) / np.where(big_n > 1, big_n - 1, 1), 0, 1), 0.0)
    var_q = qa * (1 - qa) / n * fpc
    A, B = float(np.sum(N[f] * q[f])), float(np.sum(N[~f] * q[~f]))
    C, D = float(np.sum(N[~f] * (1 - q[~f]))), float(np.sum(N[f] * (1 - q[f])))
    se = A / (A + B) if A + B > 0 else np.nan
    sp = C / (C + D) if C + D > 0 else np.nan
    g_se = np.where(f, N * B, -N * A) / (A + B) ** 2 if A + B > 0 else np.full_like(N, np.nan)
    g_sp = np.where(~f, -N * D, N * C) / (C + D) ** 2 if C + D > 0 else np.full_like(N, np.nan)
    return JudgeAccuracy(
        se=se,
        sp=sp,
        var_se=float(np.sum(g_se**2 * var_q)),
        var_sp=float(np.sum(g_sp**2 * var_q)),
        cov=float(np.sum(g_se * g_sp * var_q)),
        n_labelled=n_labelled,
        strata=tuple(strata),
    )


def _variance_proportion(x: np.ndarray, n: np.ndarray, judge: np.ndarray) -> np.ndarray:
    """The share used in a post-stratum's variance q(1 − q)/n: (x + q̄)/(n + 1), one
    pseudo-observation at q̄, the share over all post-strata with the same judge decision
    (0.5 where q̄ is 0 or 1).

    A post-stratum in which people agree with every label (x = n) would otherwise get variance
    0; the usual (x + 0.5)/(n + 1) instead assumes 50 % disagreement there, which overstates
    the variance several-fold when the judge is accurate (e.g. few false positives among the
    judge's "true" verdicts) and made the Rogan–Gladen intervals over-cover.
    """
    prior = np.empty_like(x, dtype=float)
    for decision in (True, False):
        mask = judge == decision
        total = n[mask].sum()
        pooled = x[mask].sum() / total if total > 0 else 0.5
        prior[mask] = pooled if 0 < pooled < 1 else 0.5
    return (x + prior) / (n + 1)


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


def _ratio(a: float, b: float) -> float:
    return a / b if b > 0 else np.nan


def judge_confusion(
    labels: pd.DataFrame,
    items: pd.DataFrame | None = None,
    *,
    by: str | Sequence[str] | None = "player_model",
    question: str = DEFAULT_QUESTION,
    judge: str | None = None,
    strata: Sequence[str] = (),
    confidence: float = 0.95,
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

    Returns
    -------
    DataFrame, one row per group: ``n_judged``, ``n_labelled``, ``tp``, ``fp``, ``fn``, ``tn``;
    raw ``precision``, ``recall``, ``f1``, ``fnr`` (= 1 − recall), ``specificity`` with Wilson
    intervals (``*_low``, ``*_high``); re-weighted ``precision_w``, ``recall_w``, ``fnr_w``,
    ``specificity_w``, ``f1_w`` with normal (delta-method) intervals for ``fnr_w``. A rate
    whose denominator is 0 is nan. ``attrs["skipped"]`` as in :func:`audit_frame`.
    """
    frame = audit_frame(labels, items, question=question, judge=judge)
    by_cols = [by] if isinstance(by, str) else list(by or [])
    for column in [*by_cols, *strata]:
        if column not in frame.columns:
            raise InputError(f"judge_confusion: column {column!r} is not in the items table")
    z = float(norm.ppf(0.5 + confidence / 2))
    groups = frame.groupby(by_cols, sort=True, dropna=False) if by_cols else [((), frame)]
    rows = []
    for key, part in groups:
        key = key if isinstance(key, tuple) else (key,)
        c = confusion_counts(part)
        tp, fp, fn, tn = c["tp"], c["fp"], c["fn"], c["tn"]
        precision, recall = _ratio(tp, tp + fp), _ratio(tp, tp + fn)
        row = dict(zip(by_cols, key, strict=True))
        row.update(n_judged=len(part), n_labelled=int(part["labelled"].sum()), **c)
        row["precision"] = precision
        row["recall"] = recall
        row["f1"] = _ratio(2 * tp, 2 * tp + fp + fn)
        row["fnr"] = _ratio(fn, tp + fn)
        row["specificity"] = _ratio(tn, tn + fp)
        for name, x, m in (
            ("precision", tp, tp + fp),
            ("recall", tp, tp + fn),
            ("fnr", fn, tp + fn),
            ("specificity", tn, tn + fp),
        ):
            lo, hi = wilson_interval(x, m, confidence=confidence)
            row[f"{name}_low"], row[f"{name}_high"] = float(lo), float(hi)
        acc = poststratified_accuracy(part, strata=strata, z=z)
        counts = post_strata_counts(part, list(acc.strata))
        counts = counts[counts["n"] > 0]
        pos = counts[counts["judge"]]
        ppv_w = _ratio(float((pos["N"] * pos["x"] / pos["n"]).sum()), float(pos["N"].sum()))
        row["precision_w"] = ppv_w
        row["recall_w"] = acc.se
        row["fnr_w"] = 1 - acc.se
        half = z * np.sqrt(acc.var_se) if np.isfinite(acc.var_se) else np.nan
        row["fnr_w_low"] = float(np.clip(1 - acc.se - half, 0, 1)) if np.isfinite(half) else np.nan
        row["fnr_w_high"] = float(np.clip(1 - acc.se + half, 0, 1)) if np.isfinite(half) else np.nan
        row["specificity_w"] = acc.sp
        row["f1_w"] = _ratio(2 * ppv_w * acc.se, ppv_w + acc.se) if np.isfinite(ppv_w) and np.isfinite(acc.se) else np.nan
        rows.append(row)
    out = pd.DataFrame(rows)
    out.attrs["skipped"] = frame.attrs.get("skipped", {})
    return out
