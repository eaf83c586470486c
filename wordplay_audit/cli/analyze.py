"""``wordplay-audit analyze agreement | aggregate | judge-audit``: agreement between raters,
consensus labels, a judge's verdicts against people's — each one call of the public API
(``agreement``, ``consensus``, ``judge_audit``)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from wordplay_audit.cli.output import JSON_OPTION, ProgressOpt, SeedOpt, names, show

app = typer.Typer(
    rich_markup_mode=None, help="Agreement statistics and consensus labels.", no_args_is_help=True
)

LabelsArg = Annotated[
    Path, typer.Argument(help="Labels CSV (item_id, rater, rater_type, label); pull's labels.csv.")
]
KindOpt = Annotated[str | None, typer.Option("--kind", help="Only items of this kind.")]
ItemsOpt = Annotated[
    Path | None, typer.Option("--items", help="Items CSV giving each item's kind (or the --by columns).")
]
RaterTypeOpt = Annotated[str, typer.Option("--rater-type", help="human, judge or all.")]
QuestionOpt = Annotated[
    str | None, typer.Option("--question", help="The question to measure, when the labels answer several.")
]


def _items(path: Path | None):
    import wordplay_audit as wa

    return wa.read_items(path) if path is not None else None


@app.command("agreement")
def agreement_command(
    labels: LabelsArg,
    question: QuestionOpt = None,
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
            help="Weighted coefficients: identity, linear, quadratic, ordinal, radical, ratio, "
            "circular, bipolar, or a CSV weight matrix.",
        ),
    ] = None,  # fmt: skip
    benchmark: Annotated[
        str | None, typer.Option("--benchmark", help="Benchmark scale: landis-koch, fleiss or altman.")
    ] = None,
    single_rated: Annotated[
        str,
        typer.Option(
            "--single-rated", help="Items rated once: gwet (kept in the category shares, as irrCAC) or drop."
        ),
    ] = "gwet",
    icc: Annotated[
        str,
        typer.Option(
            "--icc",
            help="ICC forms, comma separated (ICC1,ICC2,ICC3,ICC1k,ICC2k,ICC3k), auto (all six "
            "for numeric labels) or none; Kendall's W comes with them.",
        ),
    ] = "auto",  # fmt: skip
    out: Annotated[
        Path | None, typer.Option("--out", help="Folder for the tables, plots and report.html.")
    ] = None,
    progress: ProgressOpt = None,
    as_json: bool = JSON_OPTION,
) -> None:
    """Percent agreement, Fleiss', Conger's and Light's κ, Krippendorff's α, Gwet's AC1 and
    Brennan–Prediger with intervals, SEs and tests, per-category κ, pairwise Cohen's κ and
    rater quality; with --weights the weighted coefficients and Gwet's AC2; for numeric labels the
    ICC forms (--icc) and Kendall's W."""
    import wordplay_audit as wa

    result = wa.agreement(
        wa.read_labels(labels, items=_items(items), categorical=True), question=question, kind=kind, items=_items(items),
        rater_type=rater_type, level=level, categories=names(categories, "categories"), bootstrap=bootstrap, seed=seed,
        confidence=confidence, ci=ci, gold=wa.read_table(gold) if gold else None, weights=weights, benchmark=benchmark,
        single_rated=single_rated, max_memory_gb=max_memory_gb, icc=icc if icc in ("auto", "none") else names(icc, "icc"),
        progress=progress,
    )  # fmt: skip
    show(result, as_json=as_json, write=out)


@app.command("aggregate")
def aggregate_command(
    labels: LabelsArg,
    out: Annotated[Path, typer.Option("--out", help="Where to write the consensus CSV.")],
    method: Annotated[
        str,
        typer.Option(
            "--method",
            help="majority, dawid-skene, one-coin, mace, glad, wawa, "
            "zero-based-skill, gold-majority or weighted-majority.",
        ),
    ] = "majority",
    tie: Annotated[
        str, typer.Option("--tie", help="Majority ties: adjudicate, first or random.")
    ] = "adjudicate",
    seed: SeedOpt = 0,
    n_iter: Annotated[int, typer.Option("--n-iter", min=0, help="Dawid–Skene: most EM iterations.")] = 100,
    question: QuestionOpt = None,
    kind: KindOpt = None,
    items: ItemsOpt = None,
    rater_type: RaterTypeOpt = "human",
    gold: Annotated[
        Path | None, typer.Option("--gold", help="CSV of honeypot answers (item_id, label).")
    ] = None,
    skills: Annotated[
        Path | None, typer.Option("--skills", help="CSV of rater weights (rater, skill).")
    ] = None,
    as_json: bool = JSON_OPTION,
) -> None:
    """Consensus label of every item (majority vote, Dawid–Skene, one-coin, MACE, GLAD, Wawa,
    zero-based skill, gold or weighted majority vote), written as CSV; with two categories, each
    rater's sensitivity and specificity with bootstrap intervals."""
    import wordplay_audit as wa

    result = wa.consensus(wa.read_labels(labels, items=_items(items), categorical=True), method=method, tie=tie,
                          seed=seed, n_iter=n_iter, question=question, kind=kind, items=_items(items), rater_type=rater_type,
                          gold=wa.read_table(gold) if gold else None, skills=wa.read_table(skills) if skills else None)  # fmt: skip
    show(result, as_json=as_json, write=out)


@app.command("judge-audit")
def judge_audit_command(
    judge_labels: Annotated[Path, typer.Option("--judge-labels", help="Labels CSV with the judge rows.")],
    human: Annotated[
        Path, typer.Option("--human", help="Labels CSV with people's labels (or pull's final.csv).")
    ],
    items: ItemsOpt = None,
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
    scores: Annotated[
        bool, typer.Option("--scores", help="Also ROC-AUC, Brier, ECE, reliability and a CV threshold.")
    ] = False,
    out: Annotated[
        Path | None, typer.Option("--out", help="Folder for judge_audit.csv, plots and report.")
    ] = None,
    as_json: bool = JSON_OPTION,
) -> None:
    """Judge verdicts against human labels per group: cells, precision, recall, F1, FNR, FPR, kappa."""
    import wordplay_audit as wa

    result = wa.judge_audit(
        wa.read_labels(judge_labels), wa.read_labels(human, accept_final=True), items=_items(items),
        by=[c.strip() for c in by.split(",") if c.strip()], question=question, human_rater=human_rater,
        unparsed=unparsed, weight=weight, bootstrap=bootstrap, seed=seed, confidence=confidence, min_cell=min_cell,
        scores=scores,
    )  # fmt: skip
    show(result, as_json=as_json, write=out)
