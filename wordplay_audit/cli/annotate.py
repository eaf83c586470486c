"""``wordplay-audit annotate …``: annotation campaigns in Label Studio (docs/ANNOTATE.md).

Sub-commands only parse, call :mod:`wordplay_audit.annotate` and print. The server's address
and token come from ``LABEL_STUDIO_URL`` and ``LABEL_STUDIO_API_KEY`` and are never printed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from wordplay_audit.cli.annotate_args import (
    PULL_FLAGS,
    CampaignArg,
    ForeignOpt,
    OutOpt,
    RosterOpt,
    foreign_policy,
    overlap_shares,
    split_names,
)
from wordplay_audit.cli.annotate_people import adjudicate_command, raters_command
from wordplay_audit.cli.output import JSON_OPTION, emit, show

app = typer.Typer(
    rich_markup_mode=None,
    help="Annotation campaigns in Label Studio: plan, raters, push, pull, status, adjudicate, files.",
    no_args_is_help=True,
    add_completion=False,
)


@app.command("config")
def config_command(
    kind: Annotated[str, typer.Argument(help="category_name, knowledge_type, definition or guess.")],
    adjudication: Annotated[bool, typer.Option("--adjudication", help="Also show earlier labels.")] = False,
    as_json: bool = JSON_OPTION,
) -> None:
    """Print the Label Studio labelling config (XML) of one kind."""
    import wordplay_audit as wa

    xml = wa.label_config(kind, adjudication=adjudication)
    emit({"kind": kind, "config": xml}, as_json=as_json, lines=[xml.rstrip()])


@app.command("plan")
def plan_command(
    items_file: Annotated[Path, typer.Argument(help="Items CSV (the data contract).")],
    n: Annotated[int, typer.Option("--n", help="Items to sample.")],
    raters: Annotated[str, typer.Option("--raters", help="Rater names, comma-separated.")],
    out: OutOpt,
    strata: Annotated[str, typer.Option("--strata", help="Columns to stratify by, comma-separated.")] = "",
    allocation: Annotated[str, typer.Option("--allocation", help="proportional or equal.")] = "proportional",
    overlap: Annotated[int, typer.Option("--overlap", help="Raters per item (k).")] = 2,
    overlap_share: Annotated[
        str,
        typer.Option(
            "--overlap-share",
            help="More raters on a share of the items, raters:share (3:0.3: a third rater on 30 percent).",
        ),
    ] = "",
    honeypots: Annotated[
        Path | None, typer.Option("--honeypots", help="Items CSV with answers (gold, gold_<question>).")
    ] = None,
    honeypot_rate: Annotated[
        float, typer.Option("--honeypot-rate", help="Share of each queue that is honeypots.")
    ] = 0.0,
    seed: Annotated[int, typer.Option("--seed", min=0, help="Random seed (≥ 0).")] = 0,
    kind: Annotated[
        str | None, typer.Option("--kind", help="Kind to sample when the table holds several.")
    ] = None,
    judge_labels: Annotated[
        Path | None, typer.Option("--judge-labels", help="Labels CSV; judge rows kept for --review.")
    ] = None,
    name: Annotated[
        str | None, typer.Option("--name", help="Campaign name (default: the --out folder's name).")
    ] = None,
    as_json: bool = JSON_OPTION,
) -> None:
    """Draw a seeded stratified sample, assign it to raters with overlap, mix in honeypots."""
    import wordplay_audit as wa
    from wordplay_audit.cli.output import names, show

    result = wa.plan_campaign(
        wa.read_items(items_file), out=out, n=n, raters=names(raters, "raters"),
        strata=names(strata, "strata") if strata else (), allocation=allocation, overlap=overlap,
        honeypots=wa.read_table(honeypots) if honeypots else None, honeypot_rate=honeypot_rate, seed=seed,
        kind=kind, judge_labels=wa.read_labels(judge_labels) if judge_labels else None, name=name,
        overlap_share=overlap_shares(overlap_share),
    )  # fmt: skip
    show(result, as_json=as_json)


app.command("raters")(raters_command)


@app.command("push")
def push_command(
    campaign: CampaignArg,
    review: Annotated[
        bool, typer.Option("--review", help="Show the judge's verdicts as predictions.")
    ] = False,
    roster: RosterOpt = None,
    as_json: bool = JSON_OPTION,
) -> None:
    """Create one project per rater (found again on later pushes) and import the missing tasks."""
    import wordplay_audit as wa
    from wordplay_audit.cli.annotate_args import flag_names, interrupted_push

    with flag_names({"^roster": "--roster"}), interrupted_push("push"):
        result = wa.push_campaign(campaign, review=review, roster=roster)
    show(result, as_json=as_json)


@app.command("pull")
def pull_command(
    campaign: CampaignArg,
    out: OutOpt,
    roster: RosterOpt = None,
    foreign: ForeignOpt = "refuse",
    as_json: bool = JSON_OPTION,
) -> None:
    """Snapshot-export every rater's project; write reconciled labels, status, honeypots, final labels."""
    import wordplay_audit as wa
    from wordplay_audit.cli.annotate_args import flag_names

    with flag_names(PULL_FLAGS):
        result = wa.pull_campaign(campaign, out=out, roster=roster, foreign=foreign_policy(foreign))
    show(result, as_json=as_json)


@app.command("import-file")
def import_file_command(
    campaign: CampaignArg,
    export: Annotated[
        list[str],
        typer.Option(
            "--export", help="RATER=FILE: a Label Studio JSON, JSON_MIN or CSV export (repeatable)."
        ),
    ],
    out: OutOpt,
    fmt: Annotated[str, typer.Option("--format", help="auto, json, json-min or csv.")] = "auto",
    roster: RosterOpt = None,
    foreign: ForeignOpt = "refuse",
    as_json: bool = JSON_OPTION,
) -> None:
    """File mode: read exports downloaded by hand; write the same files as `pull`."""
    import wordplay_audit as wa
    from wordplay_audit.cli.annotate_args import export_files, flag_names

    policy = foreign_policy(foreign)
    with flag_names({**PULL_FLAGS, "^format": "--format", "^exports": "--export"}):
        result = wa.import_answers(
            campaign, export_files(export), out=out, format=fmt, roster=roster, foreign=policy
        )
    show(result, as_json=as_json)


@app.command("export-files")
def export_files_command(
    campaign: CampaignArg,
    out: OutOpt,
    review: Annotated[
        bool, typer.Option("--review", help="Put the judge's verdicts in as predictions.")
    ] = False,
    as_json: bool = JSON_OPTION,
) -> None:
    """File mode: the config XML and one importable tasks JSON per rater."""
    import wordplay_audit as wa

    show(wa.export_task_files(campaign, out=out, review=review), as_json=as_json)


@app.command("status")
def status_command(
    campaign: CampaignArg,
    labels: Annotated[
        Path | None,
        typer.Option(
            "--labels", help="final.csv: the estimates and the targets' widths (works without a server)."
        ),
    ] = None,
    budget: Annotated[
        int | None, typer.Option("--budget", help="Next batch size (default: the last round's).")
    ] = None,
    targets: Annotated[
        str | None, typer.Option("--target", help="Metrics (default: the last round's, else tdr).")
    ] = None,
    by: Annotated[
        str | None, typer.Option("--by", help="Target groups (default: the last round's, else player_model).")
    ] = None,
    items: Annotated[Path | None, typer.Option("--items", help="The planned items table.")] = None,
    as_json: bool = JSON_OPTION,
) -> None:
    """Per rater: done / skipped / left; per target: the estimate now with its interval, and planned widths."""
    import wordplay_audit as wa

    result = wa.campaign_status(
        campaign, labels=labels, budget=budget, items=wa.read_items(items) if items else None,
        targets=split_names(targets, "--target") if targets is not None else None,
        by=split_names(by, "--by") if by is not None else None,
    )  # fmt: skip
    show(result, as_json=as_json)


app.command("adjudicate")(adjudicate_command)


@app.command("next")
def next_command(
    campaign: CampaignArg,
    budget: Annotated[int, typer.Option("--budget", help="Items to add in this round.")],
    labels: Annotated[Path, typer.Option("--labels", help="final.csv from `annotate pull` / `import-file`.")],
    targets: Annotated[
        str, typer.Option("--target", help="Metrics, comma-separated: tdr, fnr, lkr.")
    ] = "tdr",
    by: Annotated[
        str, typer.Option("--by", help="Columns of the targets' groups (strata: these × judge_verdict).")
    ] = "player_model",
    seed: Annotated[int, typer.Option("--seed", min=0, help="Random seed (≥ 0).")] = 0,
    objective: Annotated[str, typer.Option("--objective", help="max or sum of the half-widths.")] = "max",
    confidence: Annotated[float, typer.Option("--confidence")] = 0.95,
    items: Annotated[
        Path | None, typer.Option("--items", help="The planned items table (default: the manifest's).")
    ] = None,
    push: Annotated[
        bool | None,
        typer.Option(
            "--push/--no-push",
            help="Push the new tasks (default: when LABEL_STUDIO_URL is set and the campaign is there).",
        ),
    ] = None,
    review: Annotated[bool, typer.Option("--review", help="Push with the judge's verdicts shown.")] = False,
    roster: RosterOpt = None,
    sampling: Annotated[
        str,
        typer.Option(
            "--sampling",
            help="adaptive (strata --by × verdict) or uncertainty (the judge's score bands; needs scores).",
        ),
    ] = "adaptive",
    bands: Annotated[
        int | None,
        typer.Option(
            "--bands", help="With --sampling uncertainty: score bands per cell × verdict (2; fixed once)."
        ),
    ] = None,
    overlap_share: Annotated[
        str,
        typer.Option("--overlap-share", help="This round's raters:share (3:0.3; default: the campaign's)."),
    ] = "",
    as_json: bool = JSON_OPTION,
) -> None:
    """Adaptive round: put the next --budget items where they shrink the widest interval most, then push."""
    import wordplay_audit as wa
    from wordplay_audit.cli.annotate_args import interrupted_round

    with interrupted_round(campaign):
        result = wa.next_round(
            campaign, budget=budget, labels=labels, targets=split_names(targets, "--target"),
            by=split_names(by, "--by"), seed=seed, objective=objective, confidence=confidence,
            items=wa.read_items(items) if items else None, push=push, review=review, roster=roster,
            sampling=sampling, bands=bands, overlap_share=overlap_shares(overlap_share),
        )  # fmt: skip
    show(result, as_json=as_json)
