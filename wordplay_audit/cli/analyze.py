"""``wordplay-audit analyze agreement`` and ``wordplay-audit analyze aggregate``.

``--kind K`` keeps the items of one kind: from a ``kind`` column of LABELS when it has one,
else from ``--items ITEMS.csv`` (the contract items table, joined on ``item_id``).
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from wordplay_audit.cli.output import JSON_OPTION, SeedOpt, emit
from wordplay_audit.errors import InputError, ParameterError, about, check_choice

if TYPE_CHECKING:
    import pandas as pd

app = typer.Typer(
    rich_markup_mode=None, help="Agreement statistics and consensus labels.", no_args_is_help=True
)

_METHODS = ("majority", "dawid-skene")


def _rater_type(value: str) -> str | None:
    check_choice("--rater-type", value, ("human", "judge", "all"))
    return None if value == "all" else value


def _load(
    labels_path: Path,
    kind: str | None,
    items_path: Path | None,
    categories: list[str] | None = None,
    rater_type: str | None = None,
) -> tuple[pd.DataFrame, dict[str, int]]:
    """Read LABELS (checking labels against ``categories``, with file line numbers); with
    ``kind`` keep the items of that kind (see the module docstring). Also returns the rows left
    out, by why: ``kind`` (another kind) and ``rater_type`` (another rater type)."""
    labels = _of_kind(labels_path, kind, items_path, categories)
    left_out = {"kind": labels.attrs.pop("left_out_kind", 0), "rater_type": 0}
    if rater_type is not None:
        left_out["rater_type"] = int((labels["rater_type"] != rater_type).to_numpy().sum())
    return labels, left_out


def _left_out_line(left_out: dict[str, int], kind: str | None, rater_type: str | None) -> str:
    """The text line saying which rows the filters left out (none: said too)."""
    return (
        f"rows left out: {left_out['kind']} of another kind (--kind {kind or 'not given'}), "
        f"{left_out['rater_type']} of another rater type (--rater-type {rater_type or 'all'})"
    )


def _of_kind(labels_path: Path, kind: str | None, items_path: Path | None, categories: list[str] | None):
    from wordplay_audit.corpora.contract import read_items, read_labels, validate_labels

    items = read_items(items_path) if items_path is not None else None
    labels = read_labels(labels_path, items=items, categorical=True)
    if categories is not None:
        validate_labels(labels, allowed=categories, source=str(labels_path))
    if kind is None:
        return labels
    if "kind" in labels.columns:
        kinds = labels["kind"].astype(str).str.strip()
        source = f"column 'kind' of {labels_path}"
    elif items is not None:
        kinds = labels["item_id"].map(items.set_index("item_id")["kind"])
        source = str(items_path)
    else:
        raise InputError(
            f"--kind needs a 'kind' column in {labels_path} or an items table (--items ITEMS.csv)"
        )
    keep = (kinds == kind).to_numpy()
    if not keep.any():
        found = ", ".join(sorted(set(kinds.dropna().astype(str)))) or "none"
        raise InputError(f"no ratings of kind {kind!r} (kinds in {source}: {found})")
    kept = labels[keep]  # the index keeps the file's line numbers for later messages
    kept.attrs["left_out_kind"] = int((~keep).sum())
    return kept


def _categories(text: str | None) -> list[str] | None:
    if text is None:
        return None
    names = [c.strip() for c in text.split(",") if c.strip()]
    if not names:
        raise ParameterError("--categories: empty; give names separated by commas")
    return names


LabelsArg = Annotated[Path, typer.Argument(help="Labels CSV (item_id, rater, rater_type, label).")]
KindOpt = Annotated[str | None, typer.Option("--kind", help="Only items of this kind.")]
ItemsOpt = Annotated[Path | None, typer.Option("--items", help="Items CSV giving each item's kind.")]
RaterTypeOpt = Annotated[str, typer.Option("--rater-type", help="human, judge or all.")]


@app.command("agreement")
def agreement_command(
    labels: LabelsArg,
    kind: KindOpt = None,
    items: ItemsOpt = None,
    bootstrap: Annotated[int, typer.Option("--bootstrap", help="Bootstrap resamples (0: none).")] = 1000,
    seed: SeedOpt = 0,
    level: Annotated[
        str, typer.Option("--level", help="Krippendorff's α level: nominal, ordinal, interval, ratio.")
    ] = "nominal",
    rater_type: RaterTypeOpt = "human",
    categories: Annotated[
        str | None, typer.Option("--categories", help="Declared labels in order, comma separated.")
    ] = None,
    confidence: Annotated[float, typer.Option("--confidence", help="Interval level.")] = 0.95,
    ci: Annotated[str, typer.Option("--ci", help="Interval shown: bca or percentile.")] = "bca",
    gold: Annotated[
        Path | None, typer.Option("--gold", help="CSV of honeypot answers (item_id, label).")
    ] = None,
    max_memory_gb: Annotated[
        float, typer.Option("--max-memory-gb", help="Cap on the bootstrap's memory.")
    ] = 4.0,
    weights: Annotated[
        str | None,
        typer.Option(
            "--weights",
            help="Weighted coefficients: identity, linear, quadratic, ordinal, radical, ratio, circular, "
            "bipolar, or a CSV weight matrix.",
        ),
    ] = None,
    benchmark: Annotated[
        str | None, typer.Option("--benchmark", help="Benchmark scale: landis-koch, fleiss or altman.")
    ] = None,
    as_json: bool = JSON_OPTION,
) -> None:
    """Percent agreement, Fleiss', Conger's and Light's κ, Krippendorff's α, Gwet's AC1 and
    Brennan–Prediger with intervals, SEs and tests, per-category κ, pairwise Cohen's κ and
    rater quality; with --weights the weighted coefficients and Gwet's AC2."""
    from typing import get_args

    from wordplay_audit.analysis.agreement import CIMethod, Level, UndefinedStatisticWarning, agreement
    from wordplay_audit.analysis.agreement.text import summary_lines
    from wordplay_audit.corpora.contract import read_table

    check_choice("--level", level, get_args(Level))
    check_choice("--ci", ci, get_args(CIMethod))
    who = _rater_type(rater_type)
    options = _bootstrap_options(bootstrap, seed, confidence, ci, max_memory_gb)
    declared = _categories(categories)
    frame, left_out = _load(labels, kind, items, declared, who)
    gold_table = read_table(gold) if gold is not None else None
    with _about(labels, gold, weights), _flags(), warnings.catch_warnings():
        # every undefined statistic is null with its reason in the output: no warning lines
        warnings.simplefilter("ignore", UndefinedStatisticWarning)
        result = agreement(
            frame,
            categories=declared,
            rater_type=who,
            level=level,
            bootstrap=options,
            gold=gold_table,
            weights=weights,
            benchmark=benchmark,
        )
    out = result.to_dict()
    out["rows_left_out"] = left_out
    if kind is not None:
        out["kind"] = kind
    lines = summary_lines(out) + [_left_out_line(left_out, kind, who)]
    if gold is not None:
        lines.append(
            f"gold {gold}: {out['gold_rows']} items, {out['gold_unmatched']} naming no rated item (left out)"
        )
    emit(out, as_json=as_json, lines=lines)


@contextmanager
def _about(labels: Path, *others: object) -> Iterator[None]:
    """:func:`about` LABELS, except for an error that names another file already (--gold,
    --weights)."""
    try:
        yield
    except InputError as exc:
        if any(other is not None and str(exc).startswith(str(other)) for other in others):
            raise
        with about(labels):
            raise


_FLAGS = {
    "n_boot": "--bootstrap",
    "confidence": "--confidence",
    "method": "--ci",
    "max_memory_gb": "--max-memory-gb",
    "weights": "--weights",
    "benchmark": "--benchmark",
}


@contextmanager
def _flags() -> Iterator[None]:
    """Name the command-line flag in a ParameterError the library raised about its parameter."""
    try:
        yield
    except ParameterError as exc:
        name = str(exc).partition(":")[0]
        if name not in _FLAGS:
            raise
        pattern = r"\b(" + "|".join(_FLAGS) + r")\b"
        raise ParameterError(re.sub(pattern, lambda m: _FLAGS[m.group(1)], str(exc))) from None


def _bootstrap_options(n_boot: int, seed: int, confidence: float, ci: str, max_memory_gb: float):
    """The library's BootstrapOptions, its ParameterErrors renamed to the options' flags."""
    from wordplay_audit.analysis.agreement import BootstrapOptions

    with _flags():
        return BootstrapOptions(
            n_boot=n_boot, seed=seed, confidence=confidence, method=ci, max_memory_gb=max_memory_gb
        )


@app.command("aggregate")
def aggregate_command(
    labels: LabelsArg,
    out: Annotated[Path, typer.Option("--out", help="Where to write the consensus CSV.")],
    method: Annotated[str, typer.Option("--method", help="majority or dawid-skene.")] = "majority",
    tie: Annotated[
        str, typer.Option("--tie", help="Majority ties: adjudicate, first or random.")
    ] = "adjudicate",
    seed: SeedOpt = 0,
    n_iter: Annotated[int, typer.Option("--n-iter", min=0, help="Dawid–Skene: most EM iterations.")] = 100,
    kind: KindOpt = None,
    items: ItemsOpt = None,
    rater_type: RaterTypeOpt = "human",
    as_json: bool = JSON_OPTION,
) -> None:
    """Consensus label of every item (majority vote or Dawid–Skene), written as CSV."""
    from typing import get_args

    from wordplay_audit.analysis.agreement import DawidSkene, MajorityVote, TiePolicy
    from wordplay_audit.corpora.io import output_file

    check_choice("--method", method, _METHODS)
    check_choice("--tie", tie, get_args(TiePolicy))
    who = _rater_type(rater_type)
    frame, left_out = _load(labels, kind, items, rater_type=who)
    summary: dict = {"method": method}
    with about(labels):
        if method == "majority":
            consensus = MajorityVote(tie, rater_type=who, seed=seed).fit(frame).consensus()
            summary["ties"] = int(consensus["tie"].sum())
            summary["tie_policy"] = tie
        else:
            model = DawidSkene(n_iter=n_iter, rater_type=who).fit(frame)
            consensus = model.consensus()
            summary["iterations"] = model.n_iter_
            summary["priors"] = model.priors_.to_dict()
    with output_file(out) as tmp:
        consensus.to_csv(tmp, index=False)
    summary["items"] = int(len(consensus))
    # real labels only: items left without a label (ties under --tie adjudicate) are `ties`
    summary["label_counts"] = {str(k): int(v) for k, v in consensus["label"].value_counts().items()}
    summary["unlabelled"] = int(consensus["label"].isna().sum())
    summary["rows_left_out"] = left_out
    summary["out"] = str(out)
    lines = [f"{method}: {summary['items']} items written to {out}"]
    if "ties" in summary:
        lines.append(f"ties: {summary['ties']} ({tie})")
    lines.append(_left_out_line(left_out, kind, who))
    emit(summary, as_json=as_json, lines=lines)


_MAX_AUDIT_BOOTSTRAP = 10**7  # 4 cells × 8 bytes × a few copies per resample: ~1.5 GB at the cap


def _check_audit_options(
    bootstrap: int, seed: int, confidence: float, min_cell: int, weight: str | None
) -> None:
    """``analyze judge-audit``'s numbers checked under their own option names before any work."""
    if not 0 <= bootstrap <= _MAX_AUDIT_BOOTSTRAP:
        raise ParameterError(
            f"--bootstrap: expected a whole number in [0, {_MAX_AUDIT_BOOTSTRAP}]; got {bootstrap}"
        )
    if bootstrap == 1:  # one resample's percentiles are one point, not an interval (as `agreement`)
        raise ParameterError("--bootstrap: expected 0 (no bootstrap) or a whole number ≥ 2, got 1")
    for option, value in (("--seed", seed), ("--min-cell", min_cell)):
        if value < 0:
            raise ParameterError(f"{option}: expected a whole number ≥ 0; got {value}")
    if not 0 < confidence < 1:  # also nan
        raise ParameterError(f"--confidence: expected a level strictly between 0 and 1; got {confidence!r}")
    if weight is not None and not weight.strip():
        raise ParameterError(f"--weight: expected the name of an items column; got {weight!r}")


@app.command("judge-audit")
def judge_audit_command(  # noqa: PLR0913 (one parameter per command-line option)
    judge_labels: Annotated[Path, typer.Option("--judge-labels", help="Labels CSV with the judge rows.")],
    human: Annotated[Path, typer.Option("--human", help="Labels CSV with the human rows (true/false).")],
    items: Annotated[Path | None, typer.Option("--items", help="Items CSV holding the --by columns.")] = None,
    by: Annotated[
        str, typer.Option("--by", help="Group columns, comma separated ('' for overall only).")
    ] = "player_model",
    human_rater: Annotated[
        str | None, typer.Option("--human-rater", help="One annotator instead of the human majority.")
    ] = None,
    unparsed: Annotated[str, typer.Option("--unparsed", help="exclude, as_false or as_true.")] = "exclude",
    question: Annotated[
        str, typer.Option("--question", help="With a question column: reference or any_sense.")
    ] = "reference",
    weight: Annotated[str | None, typer.Option("--weight", help="Items column of sampling weights.")] = None,
    bootstrap: Annotated[
        int, typer.Option("--bootstrap", help="Resamples for F1 and kappa intervals.")
    ] = 1000,
    seed: Annotated[int, typer.Option("--seed", help="Bootstrap seed.")] = 0,
    confidence: Annotated[float, typer.Option("--confidence", help="Interval level.")] = 0.95,
    min_cell: Annotated[
        int, typer.Option("--min-cell", help="Flag groups with fewer human-true or -false items.")
    ] = 10,
    out: Annotated[
        Path | None, typer.Option("--out", help="Folder for judge_audit.csv, plot and report.")
    ] = None,
    scores: Annotated[
        bool, typer.Option("--scores", help="Also ROC-AUC, Brier, ECE, reliability and a CV threshold.")
    ] = False,
    as_json: bool = JSON_OPTION,
) -> None:
    """Judge verdicts against human labels per group: cells, precision, recall, F1, FNR, FPR, kappa."""
    from wordplay_audit.analysis.judge_audit_groups import estimate_text
    from wordplay_audit.pipelines.judge_audit import judge_audit_run

    check_choice("--unparsed", unparsed, ("exclude", "as_false", "as_true"))
    check_choice("--question", question, ("reference", "any_sense"))
    _check_audit_options(bootstrap, seed, confidence, min_cell, weight)
    columns = [c.strip() for c in by.split(",") if c.strip()]
    result, written = judge_audit_run(
        judge_labels, human, items=items, by=columns, out=out, question=question, human_rater=human_rater, unparsed=unparsed,
        weight=weight, n_boot=bootstrap, seed=seed, confidence=confidence, min_cell=min_cell, scores=scores,
    )  # fmt: skip
    payload = result.to_dict()
    if out is not None:
        payload["out"] = str(out)
        payload["written"] = sorted(str(p) for p in written.values())

    def est(e: dict) -> str:
        return estimate_text(e["value"], e["ci_low"], e["ci_high"], e["ci_reason"])

    lines = []
    for row in payload["groups"]:
        group = " / ".join(str(row[c]) for c in columns) or "all"
        flag = " (small)" if row["small"] else ""
        lines.append(f"{row['judge']} | {group}{flag}: n {row['n']} (tp {row['tp']} fp {row['fp']} fn {row['fn']} "
                     f"tn {row['tn']}, unparsed {row['n_unparsed']})  F1 {est(row['f1'])}  FNR {est(row['fnr'])}")  # fmt: skip
        if scores and row.get("n_scored"):
            lines.append(f"    scores: {row['n_scored']} scored ({row['n_no_score']} without a score, left out)  "
                         f"AUC {est(row['auc'])}  Brier {row['brier']:.3f}  ECE {row['ece']:.3f}  "
                         f"CV Youden cut {row['cv_threshold']['threshold']:.3f}")  # fmt: skip
    lines.append(f"left out: {payload['skipped']}")
    emit(payload, as_json=as_json, lines=lines)
