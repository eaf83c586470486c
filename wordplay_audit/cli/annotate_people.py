"""``annotate raters`` and ``annotate adjudicate``: the commands about a campaign's people
(their accounts; the adjudicator's project), registered by :mod:`wordplay_audit.cli.annotate`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from wordplay_audit.cli.annotate_args import CampaignArg, split_names
from wordplay_audit.cli.output import JSON_OPTION, emit
from wordplay_audit.errors import ParameterError


def raters_command(
    campaign: CampaignArg,
    out: Annotated[
        Path,
        typer.Option(
            "--out",
            help="Credentials CSV to write (rater,email,password,token,token_type; mode 600); "
            "also the --roster of push and pull.",
        ),
    ],
    emails: Annotated[
        Path | None, typer.Option("--emails", help="CSV rater,email (optional password): each rater's email.")
    ] = None,
    email_domain: Annotated[
        str | None, typer.Option("--email-domain", help="Email <rater>@DOMAIN for raters not in --emails.")
    ] = None,
    adjudicator: Annotated[
        str | None,
        typer.Option("--adjudicator", help="Adjudicators to make accounts for too, comma-separated."),
    ] = None,
    as_json: bool = JSON_OPTION,
) -> None:
    """Make each rater's Label Studio account (invite link, sign-up, log-in), get their token, write the roster."""
    from wordplay_audit.annotate.accounts import rater_accounts
    from wordplay_audit.annotate.campaign import read_campaign
    from wordplay_audit.cli.annotate_args import flag_names, interrupted_accounts, rater_names

    c = read_campaign(campaign)
    extra = rater_names(adjudicator, split_names) if adjudicator else []
    names = {"^roster": "--emails", "emails": "--emails", "email_domain": "--email-domain", "^out": "--out"}
    with flag_names(names), interrupted_accounts(out):
        rows = rater_accounts(
            [*c.raters, *extra], out, emails=emails, email_domain=email_domain, option="--out"
        )
    lines = [
        f"{r['rater']}: {r['email']}: account {r['account']}, logged in with its password, "
        f"{r['token_type']} token"
        for r in rows
    ]
    lines.append(
        f"wrote {out} (mode 600; it holds the passwords and tokens): hand each rater the server's URL, "
        "their email and password; give the file as --roster to push and pull"
    )
    emit({"campaign": c.name, "out": str(out), "accounts": rows}, as_json=as_json, lines=lines)


def adjudicate_command(
    campaign: CampaignArg,
    labels: Annotated[Path, typer.Option("--labels", help="Pulled labels.csv.")],
    adjudicator: Annotated[str, typer.Option("--adjudicator", help="Who adjudicates (a name).")],
    show_raters: Annotated[
        bool,
        typer.Option(
            "--show-raters", help="Name the raters beside their labels (default: rater 1, rater 2, …)."
        ),
    ] = False,
    as_json: bool = JSON_OPTION,
) -> None:
    """Send disagreeing or tied items to an adjudication project that shows the earlier labels (blind)."""
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
    adj, earlier = adjudication_queue(c, rows, adjudicator.strip(), show_raters=show_raters)
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
