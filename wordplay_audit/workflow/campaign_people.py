"""A campaign's people: each rater's Label Studio account (invite link, sign-up, log-in, their
own token; the roster), and the adjudicator's project for the items raters disagreed on."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from wordplay_audit.errors import ParameterError
from wordplay_audit.workflow.campaign import _names, _server, open_campaign
from wordplay_audit.workflow.results import Result, plain

__all__ = ["Adjudication", "RaterAccounts", "adjudicate", "create_raters"]


@dataclass
class RaterAccounts(Result):
    """One row per account made or found (no secret in it): rater, email, created/existing,
    token type; ``out`` holds the passwords and tokens (mode 600) and is the roster."""

    title = "Rater accounts"
    main_table = "accounts"

    campaign: str
    out: str
    accounts: list[dict]

    def tables(self) -> dict[str, pd.DataFrame]:
        return {"accounts": pd.DataFrame(self.accounts)}

    def to_dict(self) -> dict[str, Any]:
        return plain({"campaign": self.campaign, "out": self.out, "accounts": self.accounts})

    def summary(self) -> list[str]:
        lines = [f"{r['rater']}: {r['email']}: account {r['account']}, logged in with its password, "
                 f"{r['token_type']} token" for r in self.accounts]  # fmt: skip
        return [*lines, f"wrote {self.out} (mode 600; it holds the passwords and tokens): hand each rater the "
                "server's URL, their email and password; give the file as the roster to push and pull"]  # fmt: skip


def create_raters(
    campaign,
    *,
    out: str | Path,
    emails=None,
    email_domain: str | None = None,
    adjudicators: Sequence[str] = (),
    server=None,
) -> RaterAccounts:
    """Make each rater's (and adjudicator's) Label Studio account the way Community Edition
    allows — its invite link, sign-up, log-in with the password — get their own token, and write
    the credentials file ``out`` (rater, email, password, token, token type; mode 600), which is
    the roster push and pull take. ``emails``: a table or file (``rater``, ``email``, optional
    ``password``); ``email_domain``: ``<rater>@DOMAIN`` for the others. Passwords and tokens are
    never printed; a rerun makes only what is missing."""
    from wordplay_audit.annotate.accounts import rater_accounts

    c = open_campaign(campaign)
    extra = _names(adjudicators, "adjudicators") if adjudicators else []
    rows = rater_accounts([*c.raters, *extra], out, emails=emails, email_domain=email_domain,
                          server=_server(server) if server is not None else None)  # fmt: skip
    return RaterAccounts(c.name, str(out), rows)


@dataclass
class Adjudication(Result):
    """The disputed items sent to the adjudicator's project (blind to the raters' names unless
    asked), and the label rows naming no campaign item."""

    title = "Adjudication"

    campaign: str
    disputed: int
    items: int
    projects: list[dict]
    labels_unmatched: int

    def to_dict(self) -> dict[str, Any]:
        return plain({"campaign": self.campaign, "disputed": self.disputed, "items": self.items,
                      "projects": self.projects, "labels_unmatched": self.labels_unmatched})  # fmt: skip

    def summary(self) -> list[str]:
        note = ([f"note: left out {self.labels_unmatched} label row(s) naming no item of the campaign"]
                if self.labels_unmatched else [])  # fmt: skip
        if not self.items:
            return ["no disputed items", *note]
        lines = [f"{self.items} items to adjudicate -> project {self.projects[0]['project_id']}"]
        lines += [f"{r['owner']}: project {r['project_id']} ({'created' if r['created'] else 'found'}), "
                  f"{r['imported']} tasks imported, {r['already_there']} already there" for r in self.projects]  # fmt: skip
        return lines + note


def adjudicate(
    campaign, labels: pd.DataFrame, *, adjudicator: str, show_raters: bool = False, server=None
) -> Adjudication:
    """Send the items whose raters disagree (or tie) in ``labels`` (pull's per-rater labels) to
    an adjudication project of ``adjudicator``, showing the earlier labels as ``rater 1: …``
    (``show_raters``: by name); the next pull reads the adjudicator's labels, which settle those
    items in the final labels (and are not counted as a rater's in agreement)."""
    import json

    from wordplay_audit.annotate.adjudication import ADJUDICATION_FILE, adjudication_queue, push_adjudication
    from wordplay_audit.annotate.campaign import push_lock
    from wordplay_audit.annotate.labels_check import check_label_rows
    from wordplay_audit.corpora.io import INPLACE, output_file

    if not str(adjudicator).strip():
        raise ParameterError(f"adjudicator: expected a name, got {adjudicator!r}")
    c = open_campaign(campaign)
    rows, unmatched = check_label_rows(c, labels)
    adj, earlier = adjudication_queue(c, rows, str(adjudicator).strip(), show_raters=show_raters)
    if not adj["assignments"]:
        return Adjudication(c.name, 0, 0, [], unmatched)
    connected = _server(server)
    with push_lock(c.folder):  # the push and its queue file together
        pushed = push_adjudication(c, connected, adj, earlier)
        with output_file(c.folder / ADJUDICATION_FILE, option=INPLACE) as tmp:
            tmp.write_text(json.dumps(adj, indent=1) + "\n", encoding="utf-8")
    return Adjudication(c.name, len(adj["disputed"]), len(adj["assignments"]), pushed, unmatched)
