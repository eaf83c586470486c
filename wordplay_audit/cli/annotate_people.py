"""``annotate raters`` and ``annotate adjudicate``: the commands about a campaign's people
(their accounts; the adjudicator's project), registered by :mod:`wordplay_audit.cli.annotate`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from wordplay_audit.cli.annotate_args import CampaignArg, split_names
from wordplay_audit.cli.output import JSON_OPTION, show


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
    import wordplay_audit as wa
    from wordplay_audit.cli.annotate_args import flag_names, interrupted_accounts

    names = {
        "^roster": "--emails",
        "emails": "--emails",
        "email_domain": "--email-domain",
        "^out": "--out",
        "^adjudicators": "--adjudicator",
    }
    with flag_names(names), interrupted_accounts(out):
        result = wa.create_raters(campaign, out=out, emails=emails, email_domain=email_domain,
                                  adjudicators=split_names(adjudicator, "adjudicators") if adjudicator else ())  # fmt: skip
    show(result, as_json=as_json)


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
    import wordplay_audit as wa
    from wordplay_audit.cli.annotate_args import interrupted_push

    with interrupted_push("adjudicate"):
        result = wa.adjudicate(
            campaign, wa.read_labels(labels), adjudicator=adjudicator, show_raters=show_raters
        )
    show(result, as_json=as_json)
