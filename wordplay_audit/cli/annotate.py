"""``wordplay-audit annotate …``: annotation campaigns in Label Studio (docs/ANNOTATE.md).

Sub-commands only parse, call :mod:`wordplay_audit.annotate` and print. The server's address
and token come from ``LABEL_STUDIO_URL`` and ``LABEL_STUDIO_API_KEY`` and are never printed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from wordplay_audit.cli.output import JSON_OPTION, emit
from wordplay_audit.errors import InputError, ParameterError

app = typer.Typer(
    rich_markup_mode=None,
    help="Annotation campaigns in Label Studio: plan, push, pull, status, adjudicate, files.",
    no_args_is_help=True,
    add_completion=False,
)

CampaignArg = Annotated[Path, typer.Argument(help="Campaign folder written by `annotate plan`.")]
OutOpt = Annotated[Path, typer.Option("--out", help="Output folder (written in one step).")]
RosterOpt = Annotated[
    Path | None, typer.Option("--roster", help="CSV rater,email: who may annotate in whose project.")
]


def _split(text: str, option: str, *, what: str = "names") -> list[str]:
    """Comma-separated names; an empty one (``a,,b``, ``a,``, ``,``) is an error, not dropped."""
    parts = [p.strip() for p in text.split(",")]
    if not all(parts):
        raise ParameterError(f"{option}: expected comma-separated {what}, got {text!r}")
    return parts


@app.command("config")
def config_command(
    kind: Annotated[str, typer.Argument(help="category_name, knowledge_type, definition or guess.")],
    adjudication: Annotated[bool, typer.Option("--adjudication", help="Also show earlier labels.")] = False,
    as_json: bool = JSON_OPTION,
) -> None:
    """Print the Label Studio labelling config (XML) of one kind."""
    from wordplay_audit.annotate.configs import label_config

    xml = label_config(kind, adjudication=adjudication)
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
    from wordplay_audit.annotate.campaign import check_campaign_name
    from wordplay_audit.annotate.design import DesignSpec
    from wordplay_audit.annotate.plan import plan_campaign
    from wordplay_audit.cli.annotate_args import keep_other_campaign, rater_names
    from wordplay_audit.corpora.io import output_folder

    name = check_campaign_name(Path(out).resolve().name if name is None else name, from_out=name is None)
    columns = _split(strata, "--strata", what="column names (none: leave --strata out)") if strata else []
    spec = DesignSpec(
        n=n,
        raters=rater_names(raters, _split),
        strata=columns,
        allocation=allocation,  # type: ignore[arg-type]  (checked against ALLOCATIONS)
        overlap=overlap,
        honeypot_rate=honeypot_rate,
        seed=seed,
    )
    with output_folder(out) as staging:
        manifest = plan_campaign(
            items_file,
            staging,
            spec,
            honeypots_file=honeypots,
            kind=kind,
            judge_labels_file=judge_labels,
            name=name,
        )
        keep_other_campaign(out, manifest)  # before the folder is replaced
    design = manifest["design"]
    lines = [
        f"campaign {manifest['campaign']} ({manifest['kind']}): {design['n']} items, "
        f"{len(design['raters'])} raters, overlap {design['overlap']}, seed {design['seed']} -> {out}",
        f"loads: {design['loads']}",
        f"pairs sharing items: {design['pairs_sharing']}",
    ]
    lines += [f"note: {note}" for note in design["notes"]]
    emit(
        {"out": str(out), **{k: v for k, v in manifest.items() if k != "assignments"}},
        as_json=as_json,
        lines=lines,
    )


@app.command("push")
def push_command(
    campaign: CampaignArg,
    review: Annotated[
        bool, typer.Option("--review", help="Show the judge's verdicts as predictions.")
    ] = False,
    as_json: bool = JSON_OPTION,
) -> None:
    """Create one project per rater (found again on later pushes) and import the missing tasks."""
    from wordplay_audit.annotate.campaign import read_campaign
    from wordplay_audit.annotate.server import Server
    from wordplay_audit.annotate.workflow import push_campaign
    from wordplay_audit.cli.annotate_args import interrupted_push, push_lines

    c = read_campaign(campaign)
    server = Server()
    with interrupted_push("push"):
        rows = push_campaign(c, server, review=review)
    emit({"campaign": c.name, "projects": rows}, as_json=as_json, lines=push_lines(rows))


def _pulled_lines(result: dict, out: Path) -> list[str]:
    from wordplay_audit.corpora.consensus import ties_note

    settled = result["final_settled_by"]
    lines = [f"wrote {out}", f"counts: {result['counts']}", f"final labels (settled by): {settled}"]
    lines += [f"note: {note}" for note in [ties_note(settled.get("tie", 0))] if note]
    lines += [f"{r}: {s}" for r, s in result["per_rater"].items()]
    lines += [f"honeypots {h['rater']}: {h['correct']}/{h['answered']}" for h in result["honeypot_accuracy"]]
    lines += [f"warning: {w}" for w in result["warnings"]]
    return lines


@app.command("pull")
def pull_command(
    campaign: CampaignArg, out: OutOpt, roster: RosterOpt = None, as_json: bool = JSON_OPTION
) -> None:
    """Snapshot-export every rater's project; write reconciled labels, status, honeypots, final labels."""
    from wordplay_audit.annotate.campaign import read_campaign
    from wordplay_audit.annotate.server import Server
    from wordplay_audit.annotate.workflow import pull_campaign, read_roster, write_pulled
    from wordplay_audit.corpora.io import output_folder

    c, people = read_campaign(campaign), read_roster(roster)  # both checked before any connection
    pulled = pull_campaign(c, Server(), roster=people)
    with output_folder(out) as staging:
        files = write_pulled(staging, pulled, c.kind)
    result = pulled.to_dict()
    emit({"out": str(out), "files": files, **result}, as_json=as_json, lines=_pulled_lines(result, out))


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
    as_json: bool = JSON_OPTION,
) -> None:
    """File mode: read exports downloaded by hand; write the same files as `pull`."""
    from wordplay_audit.annotate.campaign import read_campaign
    from wordplay_audit.annotate.exports import EXPORT_FORMATS
    from wordplay_audit.annotate.workflow import import_files, read_roster, write_pulled
    from wordplay_audit.cli.annotate_args import export_files
    from wordplay_audit.corpora.io import output_folder
    from wordplay_audit.errors import check_choice

    check_choice("--format", fmt, EXPORT_FORMATS)
    files = export_files(export)
    c = read_campaign(campaign)
    pulled = import_files(c, files, fmt=fmt, roster=read_roster(roster))
    with output_folder(out) as staging:
        written = write_pulled(staging, pulled, c.kind)
    result = pulled.to_dict()
    emit({"out": str(out), "files": written, **result}, as_json=as_json, lines=_pulled_lines(result, out))


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
    from wordplay_audit.annotate.campaign import read_campaign
    from wordplay_audit.annotate.workflow import write_task_files
    from wordplay_audit.corpora.io import output_folder

    c = read_campaign(campaign)
    if review and c.judge_labels is None:
        raise InputError(f"{campaign}: --review needs judge labels (plan with --judge-labels)")
    with output_folder(out) as staging:
        written = write_task_files(staging, c, review=review)
    emit({"out": str(out), "files": written}, as_json=as_json, lines=[f"wrote {out}: {', '.join(written)}"])


@app.command("status")
def status_command(
    campaign: CampaignArg,
    labels: Annotated[
        Path | None,
        typer.Option("--labels", help="final.csv: recompute the targets' widths (works without a server)."),
    ] = None,
    budget: Annotated[
        int | None, typer.Option("--budget", help="Next batch size (default: the last round's).")
    ] = None,
    target: Annotated[
        str | None, typer.Option("--target", help="Metrics (default: the last round's, else tdr).")
    ] = None,
    by: Annotated[
        str | None, typer.Option("--by", help="Target groups (default: the last round's, else player_model).")
    ] = None,
    items: Annotated[Path | None, typer.Option("--items", help="The planned items table.")] = None,
    as_json: bool = JSON_OPTION,
) -> None:
    """Per rater: done / skipped / left; per target: interval half-width now and after the next batch."""
    import os

    from wordplay_audit.annotate.campaign import read_campaign
    from wordplay_audit.annotate.server import URL_ENV
    from wordplay_audit.cli.annotate_args import rater_progress, unmatched_note
    from wordplay_audit.pipelines.adaptive_status import (
        status_from_labels,
        status_from_manifest,
        status_lines,
    )

    c = read_campaign(campaign)
    if labels is not None:
        overrides = {
            "budget": budget,
            "targets": None if target is None else tuple(_split(target, "--target")),
            "by": None if by is None else tuple(_split(by, "--by")),
            "items": items,
        }
        adaptive = status_from_labels(c, labels, overrides)
    else:
        adaptive = status_from_manifest(c)
    rows, lines = None, []
    if adaptive is None or os.environ.get(URL_ENV):
        rows, lines = rater_progress(c)
    else:
        lines = [f"file mode ({URL_ENV} not set): no rater progress"]
    if adaptive is not None:
        lines += status_lines(adaptive) + unmatched_note(adaptive.get("labels_unmatched") or 0, labels)
    emit({"campaign": c.name, "raters": rows, "adaptive": adaptive}, as_json=as_json, lines=lines)


@app.command("adjudicate")
def adjudicate_command(
    campaign: CampaignArg,
    labels: Annotated[Path, typer.Option("--labels", help="Pulled labels.csv.")],
    adjudicator: Annotated[str, typer.Option("--adjudicator", help="Who adjudicates (a name).")],
    as_json: bool = JSON_OPTION,
) -> None:
    """Send disagreeing or tied items to an adjudication project that shows the earlier labels."""
    import json

    from wordplay_audit.annotate.campaign import push_lock, read_campaign
    from wordplay_audit.annotate.labels_check import check_labels
    from wordplay_audit.annotate.server import Server
    from wordplay_audit.annotate.workflow import (
        ADJUDICATION_FILE,
        adjudication_queue,
        push_adjudication,
    )
    from wordplay_audit.cli.annotate_args import interrupted_push, push_lines, unmatched_note
    from wordplay_audit.corpora.io import output_file

    if not adjudicator.strip():
        raise ParameterError(f"--adjudicator: expected a name, got {adjudicator!r}")
    c = read_campaign(campaign)
    rows, unmatched = check_labels(c, labels)
    adj, earlier = adjudication_queue(c, rows, adjudicator.strip())
    note = unmatched_note(unmatched, labels)
    if not adj["assignments"]:
        out = {"campaign": c.name, "disputed": 0, "projects": [], "labels_unmatched": unmatched}
        emit(out, as_json=as_json, lines=["no disputed items", *note])
        return
    server = Server()
    with interrupted_push("adjudicate"), push_lock(c.folder):  # the push and its queue file together
        pushed = push_adjudication(c, server, adj, earlier)
        with output_file(c.folder / ADJUDICATION_FILE, option="campaign") as tmp:
            tmp.write_text(json.dumps(adj, indent=1) + "\n", encoding="utf-8")
    emit(
        {
            "campaign": c.name,
            "disputed": len(adj["disputed"]),
            "items": len(adj["assignments"]),
            "projects": pushed,
            "labels_unmatched": unmatched,
        },
        as_json=as_json,
        lines=[
            f"{len(adj['assignments'])} items to adjudicate -> project {pushed[0]['project_id']}",
            *push_lines(pushed)[1:],
            *note,
        ],
    )


def _width(value: float | None) -> str:
    return "?" if value is None else f"{value:.3f}"


@app.command("next")
def next_command(
    campaign: CampaignArg,
    budget: Annotated[int, typer.Option("--budget", help="Items to add in this round.")],
    labels: Annotated[Path, typer.Option("--labels", help="final.csv from `annotate pull` / `import-file`.")],
    target: Annotated[str, typer.Option("--target", help="Metrics, comma-separated: tdr, fnr, lkr.")] = "tdr",
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
    as_json: bool = JSON_OPTION,
) -> None:
    """Adaptive round: put the next --budget items where they shrink the widest interval most, then push."""
    from wordplay_audit.analysis.allocation import OBJECTIVES
    from wordplay_audit.cli.annotate_args import interrupted_round, unmatched_note
    from wordplay_audit.errors import check_choice
    from wordplay_audit.pipelines.adaptive import NextSpec, run_next

    check_choice("--objective", objective, OBJECTIVES)  # the library's messages say "objective"
    if not 0 < confidence < 1:  # also nan
        raise ParameterError(f"--confidence: expected a level strictly between 0 and 1, got {confidence!r}")
    spec = NextSpec(
        budget=budget,
        labels=labels,
        targets=tuple(_split(target, "--target")),
        by=tuple(_split(by, "--by")),
        seed=seed,
        objective=objective,
        confidence=confidence,
        items=items,
    )
    with interrupted_round(campaign):
        record = run_next(campaign, spec, push=push, review=review)
    lines = [f"round {record['round']}: {len(record['item_ids'])} items added -> {campaign}"]
    lines += [
        f"{name}: ±{_width(record['half_width_before'][name])} -> ±{_width(record['half_width_after'][name])}"
        for name in record["half_width_before"]
    ]
    lines += [
        f"pushed {r['owner']}: project {r['project_id']}, {r['imported']} tasks imported, "
        f"{r['already_there']} already there"
        for r in record["pushed"] or []
    ]
    lines += [f"note: {note}" for note in [*record["notes"], record["push_note"]] if note]
    lines += unmatched_note(record["labels_unmatched"], labels)
    emit(record, as_json=as_json, lines=lines)
