"""Agreement between raters and the consensus label of each item, from the contract's long
labels table (``analyze agreement``, ``analyze aggregate``).

In a notebook::

    import wordplay_audit as wa
    result = wa.agreement(wa.read_labels("pulled/labels.csv"), question="reference")
    result.to_dict()["fleiss_kappa"]["value"]
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

import numpy as np
import pandas as pd

from wordplay_audit.errors import InputError, ParameterError, about, check_choice
from wordplay_audit.workflow.results import Result, plain
from wordplay_audit.workflow.text import frame_lines

#: A consensus method of :func:`consensus` (majority vote, or an estimator of
#: :mod:`wordplay_audit.analysis.agreement.methods`).
ConsensusMethod = Literal["majority", "dawid-skene", "one-coin", "mace", "glad", "wawa", "zero-based-skill",
                          "gold-majority", "weighted-majority"]  # fmt: skip

__all__ = ["Agreement", "Consensus", "agreement", "consensus", "select_labels"]

RaterTypeChoice = Literal["human", "judge", "all"]


def _source(labels: pd.DataFrame) -> str:
    return str(labels.attrs.get("source") or "labels")


def select_labels(
    labels: pd.DataFrame,
    *,
    question: str | None = None,
    kind: str | None = None,
    items: pd.DataFrame | None = None,
    rater_type: RaterTypeChoice = "human",
) -> tuple[pd.DataFrame, dict[str, int]]:
    """The rows of ``labels`` an agreement statistic reads: one ``question`` (required when the
    table answers several, e.g. pull's labels.csv), one ``kind`` (from a ``kind`` column or the
    ``items`` table), one ``rater_type`` (``all`` keeps every type). Returns the rows and the
    count of rows left out by each filter."""
    check_choice("rater_type", rater_type, ("human", "judge", "all"))
    source = _source(labels)
    left_out = {"question": 0, "kind": 0, "rater_type": 0}
    labels, left_out["question"] = _one_question(labels, question, source)
    if kind is not None:
        if "kind" in labels.columns:
            kinds, where = labels["kind"].astype(str).str.strip(), f"column 'kind' of {source}"
        elif items is not None:
            kinds, where = labels["item_id"].map(items.set_index("item_id")["kind"]), "the items table"
        else:
            raise ParameterError(f"kind: needs a 'kind' column in {source} or an items table (items)")
        keep = (kinds == kind).to_numpy()
        if not keep.any():
            found = ", ".join(sorted(set(kinds.dropna().astype(str)))) or "none"
            raise InputError(f"{source}: no ratings of kind {kind!r} (kinds in {where}: {found})")
        left_out["kind"] = int((~keep).sum())
        labels = labels[keep]
    if rater_type != "all":
        left_out["rater_type"] = int((labels["rater_type"] != rater_type).to_numpy().sum())
    labels.attrs["source"] = source
    return labels, left_out


def _one_question(labels: pd.DataFrame, question: str | None, source: str) -> tuple[pd.DataFrame, int]:
    """The rows about ``question`` and how many were left out; an error when the table answers
    several questions and none is chosen."""
    if "question" not in labels.columns:
        if question is not None:
            raise ParameterError(f"question: {source} has no 'question' column (one question only)")
        return labels, 0
    asked = labels["question"].astype(str).str.strip()
    found = sorted(set(asked) - {"", "nan"})
    if question is None:
        if len(found) > 1:
            raise ParameterError(
                f"question: {source} holds answers to {len(found)} questions ({', '.join(found)}); "
                "give the one to measure"
            )
        return labels, 0
    if question not in found:
        raise ParameterError(
            f"question: {question!r} is not in {source} (it holds {', '.join(found) or 'none'})"
        )
    keep = (asked == question).to_numpy()
    return labels[keep], int((~keep).sum())


@dataclass
class Agreement(Result):
    """Percent agreement, Fleiss' κ, Krippendorff's α and Gwet's AC1 with intervals, per-category
    κ, PABAK, pairwise Cohen's κ and rater quality (:class:`~wordplay_audit.analysis.agreement.AgreementResult`)."""

    title = "Agreement between raters"
    main_table = "summary"

    result: Any
    left_out: dict[str, int]
    selection: dict[str, Any] = field(default_factory=dict)

    def tables(self) -> dict[str, pd.DataFrame]:
        return {"per_category": self.result.per_category.reset_index(),
                "rater_quality": self.result.rater_quality.reset_index(), "consensus": self.result.consensus}  # fmt: skip

    def to_dict(self) -> dict[str, Any]:
        out = self.result.to_dict()
        out["rows_left_out"] = self.left_out
        out.update({k: v for k, v in self.selection.items() if v is not None})
        return plain(out)

    def summary(self) -> list[str]:
        from wordplay_audit.analysis.agreement.text import summary_lines

        out = self.to_dict()
        lo = self.left_out
        lines = summary_lines(out)
        kept = self.selection.get("rater_type") or "human"
        lines.append(f"rows left out: {lo.get('question', 0)} of another question, {lo.get('kind', 0)} of another "
                     f"kind, {lo.get('rater_type', 0)} of another rater type (kept: {kept}; adjudicators are not raters)")  # fmt: skip
        if out.get("gold_rows") is not None:
            named = f" {self.selection['gold']}" if self.selection.get("gold") else ""
            lines.append(
                f"gold{named}: {out['gold_rows']} items, {out['gold_unmatched']} naming no rated item (left out)"
            )
        return lines

    def section(self):
        from wordplay_audit.analysis.agreement.section import agreement_section

        return agreement_section(self.result)


def agreement(
    labels: pd.DataFrame,
    *,
    question: str | None = None,
    kind: str | None = None,
    items: pd.DataFrame | None = None,
    rater_type: RaterTypeChoice = "human",
    level: Literal["nominal", "ordinal", "interval", "ratio"] = "nominal",
    categories: Sequence[str] | None = None,
    bootstrap: int = 1000,
    seed: int = 0,
    confidence: float = 0.95,
    ci: Literal["bca", "percentile"] = "bca",
    gold: pd.DataFrame | None = None,
    weights=None,
    benchmark: Literal["landis-koch", "fleiss", "altman"] | None = None,
    single_rated: Literal["gwet", "drop"] = "gwet",
    max_memory_gb: float = 4.0,
    icc: Sequence[str] | str | None = "auto",
    progress: bool | None = None,
) -> Agreement:
    """Agreement of the raters in the long ``labels`` table (``item_id``, ``rater``,
    ``rater_type``, ``label``; pull's ``labels.csv``, adjudicators left out): percent agreement,
    Fleiss', Conger's and Light's κ, Krippendorff's α, Gwet's AC1 and Brennan–Prediger, each with
    an item-bootstrap interval, SE, t test and Wald/t interval; ``question``/``kind``/``rater_type``
    choose the rows (:func:`select_labels`); ``bootstrap`` resamples (0: none); ``weights`` (a
    family — identity, linear, quadratic, ordinal, radical, ratio, circular, bipolar —, a matrix
    or a CSV file) adds Gwet's AC2 and the weighted coefficients; ``benchmark`` adds Gwet's
    probabilistic benchmarking on that scale; ``single_rated``: ``gwet`` keeps items rated once in
    the category shares (irrCAC), ``drop`` leaves them out; ``gold``: honeypot answers
    (``item_id``, ``label``) for rater quality; ``icc``: ICC forms (ICC1, ICC2, ICC3, ICC1k, ICC2k,
    ICC3k; ``auto``, the default: all six when the labels are numbers; None or ``none``: off),
    with Kendall's W beside them; ``progress``: a bar on stderr while resampling
    (None: the calling context's, off in a notebook)."""
    from typing import get_args

    from wordplay_audit.analysis.agreement import BootstrapOptions, CIMethod, Level, UndefinedStatisticWarning
    from wordplay_audit.analysis.agreement import agreement as measure
    from wordplay_audit.corpora.contract import validate_labels

    check_choice("level", level, get_args(Level))
    check_choice("single_rated", single_rated, ("gwet", "drop"))
    check_choice("ci", ci, get_args(CIMethod))
    if categories is not None and not [c for c in categories if str(c).strip()]:
        raise ParameterError("categories: empty; give the declared labels in order")
    try:
        options = BootstrapOptions(n_boot=bootstrap, seed=seed, confidence=confidence, method=ci,
                                   max_memory_gb=max_memory_gb, progress=progress)  # fmt: skip
    except ParameterError as exc:  # its fields as this function's parameters
        text = str(exc).replace("n_boot", "bootstrap", 1) if str(exc).startswith("n_boot") else str(exc)
        raise ParameterError(
            text.replace("method:", "ci:", 1) if text.startswith("method") else text
        ) from None
    rows, left_out = select_labels(labels, question=question, kind=kind, items=items, rater_type=rater_type)
    if categories is not None:
        validate_labels(rows, allowed=list(categories), source=_source(labels))
    who = None if rater_type == "all" else rater_type
    with about(_source(labels)), warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedStatisticWarning)  # null with its reason instead
        result = measure(rows, categories=categories, rater_type=who, level=level, bootstrap=options, gold=gold,
                         weights=weights, benchmark=benchmark, single_rated=single_rated,
                         icc=None if icc == "none" else icc)  # fmt: skip
    gold_source = None if gold is None else getattr(gold, "attrs", {}).get("source")
    return Agreement(result, left_out, {"question": question, "kind": kind, "gold": gold_source,
                                        "rater_type": rater_type})  # fmt: skip


@dataclass
class Consensus(Result):
    """One label per item (majority vote with a tie policy, or Dawid–Skene) with how it was
    settled: the final labels table."""

    title = "Consensus labels"
    main_table = "consensus"

    method: str
    table: pd.DataFrame
    details: dict[str, Any]
    left_out: dict[str, int]
    raters: pd.DataFrame | None = None  # binary labels: each rater's Se/Sp with intervals
    raters_note: str | None = None  # what the rater table is, or why there is none

    def tables(self) -> dict[str, pd.DataFrame]:
        out = {"consensus": self.table}
        if self.raters is not None:
            out["raters"] = self.raters
        return out

    def to_dict(self) -> dict[str, Any]:
        counts = self.table["label"].value_counts().to_dict()
        return plain({"method": self.method, "items": len(self.table), **self.details,
                      "label_counts": {str(k): int(v) for k, v in counts.items()},
                      "unlabelled": int(self.table["label"].isna().sum()), "rows_left_out": self.left_out,
                      "raters": self.raters, "raters_note": self.raters_note})  # fmt: skip

    def summary(self) -> list[str]:
        out = self.to_dict()
        lines = [
            f"{self.method}: {out['items']} items, labels "
            + ", ".join(f"{k} {v}" for k, v in out["label_counts"].items())
        ]
        if "ties" in out:
            advice = (
                " – adjudicate them (`annotate adjudicate`) or choose another tie policy"
                if out["ties"] and out["tie_policy"] == "adjudicate"
                else ""
            )
            lines.append(
                f"ties: {out['ties']} (tie policy {out['tie_policy']}; {out['unlabelled']} items without a label){advice}"
            )
        if "settled_by" in out:
            lines.append("settled by: " + ", ".join(f"{k} {v}" for k, v in out["settled_by"].items()))
        for learned in ("skills", "competence", "abilities"):  # the method's own per-rater parameters
            if learned in out:
                shown = list(out[learned].items())
                more = f" … ({len(shown) - 20} more: --json)" if len(shown) > 20 else ""
                lines.append(f"{learned}: " + ", ".join(f"{k} {v:.3g}" for k, v in shown[:20]) + more)
        head, *tail = (self.raters_note or "").split("\n")
        lines += [head] if head else []
        if self.raters is not None:
            lines += frame_lines(self.raters)
        lines += tail  # the conditional-dependence check
        lo = self.left_out
        lines.append(f"rows left out: {lo.get('question', 0)} of another question, {lo.get('kind', 0)} of another "
                     f"kind, {lo.get('rater_type', 0)} of another rater type")  # fmt: skip
        return lines

    def write(self, out, *, title: str | None = None) -> list[str]:
        """The consensus table as one CSV file ``out`` (written in one step)."""
        from wordplay_audit.corpora.io import output_file

        del title
        with output_file(out, option="out") as tmp:
            self.table.to_csv(tmp, index=False)
        return [str(out)]


def consensus(
    labels: pd.DataFrame,
    *,
    method: ConsensusMethod = "majority",
    tie: Literal["adjudicate", "first", "random"] = "adjudicate",
    seed: int = 0,
    n_iter: int = 100,
    question: str | None = None,
    kind: str | None = None,
    items: pd.DataFrame | None = None,
    rater_type: RaterTypeChoice = "human",
    n_boot: int = 1000,
    gold: pd.DataFrame | None = None,
    skills: pd.DataFrame | None = None,
) -> Consensus:
    """The consensus label of every item: majority vote (``tie``: ``adjudicate`` leaves a tie
    without a label, ``first`` takes the first tied category, ``random`` draws one with
    ``seed``), Dawid–Skene (EM, at most ``n_iter`` iterations), its one-coin form (one accuracy
    per rater) or MACE (Hovy et al. 2013; ``n_iter`` rounds, 10 restarts from ``seed``); GLAD
    (item difficulty), Wawa, zero-based skill, gold majority vote (skills on ``gold``, honeypot
    answers ``item_id``, ``label``, which also anchor ``dawid-skene``) or a weighted majority vote
    (``skills``: ``rater``, ``skill``) — :mod:`wordplay_audit.analysis.agreement.methods`. With two
    categories the result also holds each rater's sensitivity and specificity under the
    latent-class model (one-coin for ``"one-coin"``, else the full Dawid–Skene model) with 95 %
    item-bootstrap intervals that refit the model in every resample (``n_boot`` resamples;
    :func:`~wordplay_audit.analysis.correction.latent_bootstrap.latent_truth`), or, where the design
    cannot identify rater error, the reason.

    Majority vote gives the final labels table (``item_id``, ``label``, ``n_raters``,
    ``n_votes``, ``settled_by``; :mod:`wordplay_audit.corpora.consensus`, the rule every
    estimator and ``annotate pull`` use): an adjudicator's row settles its item, and the table
    goes to any estimator as people's labels. Dawid–Skene gives its posterior table."""
    from typing import get_args

    from wordplay_audit.analysis.agreement import MajorityVote, TiePolicy
    from wordplay_audit.analysis.agreement.methods import fit_consensus

    check_choice("method", method, CONSENSUS_METHODS)
    check_choice("tie", tie, get_args(TiePolicy))
    who = None if rater_type == "all" else rater_type
    if method == "majority":  # adjudications settle the items they name, whoever votes
        rows, left_out = select_labels(labels, question=question, kind=kind, items=items, rater_type="all")
        if who is not None:
            kept = rows["rater_type"].isin([who, "adjudicator"]).to_numpy()
            left_out["rater_type"] = int((~kept).sum())
            rows = rows[kept]
            rows.attrs["source"] = _source(labels)
    else:
        rows, left_out = select_labels(
            labels, question=question, kind=kind, items=items, rater_type=rater_type
        )
    with about(_source(labels)):
        if method == "majority":
            table = MajorityVote(tie, rater_type=who, seed=seed).fit(rows).final_labels()
            details = {"ties": int((table["settled_by"] == "tie").sum()), "tie_policy": tie,
                       "adjudicated": int((table["settled_by"] == "adjudicated").sum()),
                       "settled_by": {str(k): int(v) for k, v in table["settled_by"].value_counts().items()}}  # fmt: skip
        else:
            table, details = fit_consensus(method, rows, rater_type=who, n_iter=n_iter, seed=seed,
                                           gold=gold, skills=skills)  # fmt: skip
    raters, note = rater_accuracy(
        rows, model="one-coin" if method == "one-coin" else "full", seed=seed, n_boot=n_boot
    )
    return Consensus(method, table, details, left_out, raters, note)


CONSENSUS_METHODS: tuple[str, ...] = get_args(ConsensusMethod)


def rater_accuracy(
    rows: pd.DataFrame, *, model: str, seed: int, n_boot: int
) -> tuple[pd.DataFrame | None, str | None]:
    """Each rater's sensitivity and specificity (``model``: ``full`` or ``one-coin``) with 95 %
    item-bootstrap intervals, for two categories (positive: ``true``, else the later of the two
    in the labels' category order); (None, reason) where there are not two or the design cannot
    identify rater error."""
    from wordplay_audit.analysis.agreement.tables import rating_table
    from wordplay_audit.analysis.correction.latent_bootstrap import latent_truth

    people = rows[rows["rater_type"] != "adjudicator"] if "rater_type" in rows.columns else rows
    table = rating_table(people, rater_type=None)
    categories = [str(c) for c in table.categories]
    if len(categories) != 2:
        return None, None
    positive = "true" if "true" in categories else categories[1]
    ratings = pd.DataFrame({"item_id": np.asarray(table.item_ids, dtype=object)[table.item],
                            "rater": np.asarray(table.raters, dtype=object)[table.rater].astype(str),
                            "label": np.asarray(categories, dtype=object)[table.label] == positive})  # fmt: skip
    items = pd.DataFrame({"item_id": np.asarray(table.item_ids, dtype=object)})
    try:
        truth = latent_truth(items, ratings, strata=[], model=model, n_boot=n_boot, seed=seed)
    except ParameterError as exc:
        return None, f"rater sensitivity/specificity not shown: {exc}"
    note = (f"raters: sensitivity and specificity of {positive!r} under the {model} latent-class model "
            f"(95 % item bootstrap, {n_boot} resamples, refitted in each)")  # fmt: skip
    from wordplay_audit.analysis.correction.latent import dependence_line

    return truth.rater_accuracy(), f"{note}\n{dependence_line(truth.dependence)}"
