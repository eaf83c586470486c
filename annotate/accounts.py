"""Rater accounts on a Label Studio server, and the roster with their credentials.

On Community Edition ``POST /api/users/`` makes an account whose password is ignored: nobody
can log in to it. The accounts are made the way a person makes one, through the organisation's
invite link (checked against Label Studio 1.23's ``users/views.py`` and on the real server):

1. ``GET /api/invite`` (the admin's token) → ``{"invite_url": "/user/signup/?token=…"}``;
2. ``GET`` that page in a fresh session: Django's ``csrftoken`` cookie;
3. ``POST`` it with ``email``, ``password``, ``csrfmiddlewaretoken`` → 302 (account made);
   200 with the form's error otherwise (an email already signed up, a password outside 8–128
   characters); 403 for a missing CSRF token or a wrong invite token;
4. a second fresh session logs in: ``GET /user/login/``, ``POST /user/login/`` with ``email``,
   ``password``, ``csrfmiddlewaretoken`` → 302; 200 with "The email and password you entered
   don't match." otherwise — so every password written is one that logs in;
5. in that session ``GET /api/current-user/token`` → the account's legacy token, checked with
   ``GET /api/current-user/whoami`` (``Authorization: Token …``). Where the organisation has
   legacy tokens off (Label Studio 1.23's default without ``LABEL_STUDIO_ENABLE_LEGACY_API_TOKEN
   =true``) that answers 401, and a personal access token is made instead: ``POST /api/token/``
   (``X-CSRFToken``) → ``{"token": <JWT refresh token>}``, checked through ``POST
   /api/token/refresh/`` and ``whoami`` (``Authorization: Bearer …``). An account holds one such
   token; a second ``POST`` answers 409.

Running again makes only the missing accounts: an account the server has already is logged in
with the password known for it (the earlier credentials file, or the emails file's
``password`` column), and its token is fetched again (a personal access token already written
is kept). An account on the server whose password is known nowhere is refused before any
account is made.

Passwords and tokens are secrets: they are written only to the credentials file (mode 0600),
never printed, logged or put in a message; httpx's request log (which would show the invite
link) is held at WARNING meanwhile. Should the server fail half-way, the accounts made so far
are written all the same (their generated passwords would be lost otherwise) and the error says
so.
"""

from __future__ import annotations

import contextlib
import html
import logging
import os
import re
import secrets
import unicodedata
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from wordplay_audit.annotate.roster import as_roster, is_email
from wordplay_audit.annotate.server import BadAnswer, Server, api_errors
from wordplay_audit.corpora.io import output_file
from wordplay_audit.corpora.tables import read_table
from wordplay_audit.errors import InputError, ParameterError

CREDENTIAL_COLUMNS = ("rater", "email", "password", "token", "token_type")
PASSWORD_LENGTH = (8, 128)  # Label Studio's AUTH_PASSWORD_MIN_LENGTH / MAX_LENGTH


@dataclass(frozen=True)
class Wanted:
    """One account to make or check: the rater, their email, a password given for it."""

    rater: str
    email: str
    password: str | None = None


# --------------------------------------------------------------------------- inputs (no server)


def _given_passwords(emails) -> dict[str, str]:
    """The ``password`` column of an emails file or DataFrame, by rater (NFC)."""
    if isinstance(emails, str | os.PathLike):
        emails = read_table(Path(emails))
    if not isinstance(emails, pd.DataFrame) or "password" not in emails.columns:
        return {}
    return {
        unicodedata.normalize("NFC", str(r).strip()): str(p)
        for r, p in zip(emails["rater"], emails["password"], strict=True)
        if isinstance(p, str) and p != ""
    }


def wanted_accounts(raters: Sequence[str], *, emails=None, email_domain: str | None = None) -> list[Wanted]:
    """Each rater's email: from ``emails`` (anything :func:`~.roster.as_roster` takes, ``rater →
    email``; a CSV or DataFrame may add a ``password`` column), else ``<rater>@<email_domain>``.

    >>> [w.email for w in wanted_accounts(["ann", "bob"], emails={"ann": "a@x.org"}, email_domain="lab.org")]
    ['a@x.org', 'bob@lab.org']
    """
    people = as_roster(emails)
    given = _given_passwords(emails)
    if email_domain is not None and not is_email(f"x@{email_domain}"):
        raise ParameterError(f"email_domain: expected a domain such as lab.example.org, got {email_domain!r}")
    out, seen = [], {}
    for rater in dict.fromkeys(unicodedata.normalize("NFC", r) for r in raters):  # once each, in order
        email = people.email_of(rater) if people is not None else None
        if email is None and email_domain is not None:
            email = f"{rater}@{email_domain}".lower()
            if not is_email(email):
                raise ParameterError(
                    f"email_domain: {email!r} (rater {rater!r}) is not an email address; give this "
                    "rater's email in a row of emails"
                )
        if email is None:
            raise ParameterError(
                f"emails: no email for rater {rater!r} (give a row rater,email for them, or email_domain)"
            )
        if email in seen:
            raise ParameterError(f"emails: {email!r} is the email of both {seen[email]!r} and {rater!r}")
        seen[email] = rater
        password = given.get(rater)
        if password is not None and not PASSWORD_LENGTH[0] <= len(password) <= PASSWORD_LENGTH[1]:
            raise ParameterError(
                f"emails: the password given for rater {rater!r} has {len(password)} characters; Label "
                f"Studio takes {PASSWORD_LENGTH[0]}–{PASSWORD_LENGTH[1]}"
            )
        out.append(Wanted(rater, email, password))
    return out


def read_credentials(path: str | os.PathLike) -> dict[str, dict[str, str]]:
    """An earlier credentials file (``rater, email, password, token, token_type``) by email;
    none there: empty. A file of another kind is refused (it would be replaced)."""
    path = Path(path)
    if not path.exists():
        return {}
    frame = read_table(path)
    if list(frame.columns) != list(CREDENTIAL_COLUMNS):
        raise ParameterError(
            f"out: {path} exists and is not a credentials file of `annotate raters` (columns "
            f"{', '.join(CREDENTIAL_COLUMNS)}); choose another file name"
        )
    return {str(row["email"]).lower(): dict(row) for row in frame.to_dict(orient="records")}


# --------------------------------------------------------------------------- the server's pages


@contextlib.contextmanager
def _quiet_http() -> Iterator[None]:
    """httpx logs every request's URL at INFO (the invite link's token among them): hold it."""
    loggers = [logging.getLogger(name) for name in ("httpx", "httpcore")]
    levels = [log.level for log in loggers]
    for log in loggers:
        log.setLevel(max(log.getEffectiveLevel(), logging.WARNING))
    try:
        yield
    finally:
        for log, level in zip(loggers, levels, strict=True):
            log.setLevel(level)


def _form_errors(page: str) -> str:
    """The errors a Label Studio form page shows (sign-up: a list per field; log-in: one line)."""
    found = re.findall(r'<ul class="field_errors">(.*?)</ul>', page, re.S)
    texts = [li for block in found for li in re.findall(r"<li>(.*?)</li>", block, re.S)]
    texts += re.findall(r'<p class="error">(.*?)</p>', page, re.S)
    return "; ".join(" ".join(html.unescape(t).split()) for t in texts) or "no reason shown"


class BrowserSession:
    """A browser-like session on the server: cookies, Django's CSRF token, no redirects followed."""

    def __init__(self, base: str, shown: str) -> None:
        import httpx

        self.base, self.shown = base, shown
        self.http = httpx.Client(base_url=base, follow_redirects=False, timeout=60)

    def close(self) -> None:
        self.http.close()

    def form(self, path: str, fields: Mapping[str, str], what: str):
        """GET the form page (its CSRF cookie), POST the fields; the answer."""
        with api_errors(self.shown, what):
            self.http.get(path)
            csrf = self.http.cookies.get("csrftoken")
            if not csrf:
                raise BadAnswer(f"{what}: no CSRF cookie")
            referer = self.base + path.split("?", 1)[0]
            return self.http.post(
                path, data={**fields, "csrfmiddlewaretoken": csrf}, headers={"Referer": referer}
            )

    def api(self, method: str, path: str, what: str, **kwargs):
        with api_errors(self.shown, what):
            headers = {"X-CSRFToken": self.http.cookies.get("csrftoken") or ""}
            return self.http.request(method, path, headers=headers, **kwargs)


def _json(response, key: str, what: str, shown: str) -> str:
    with api_errors(shown, what):
        value = response.json().get(key)
        if not isinstance(value, str) or not value:
            raise BadAnswer(what)
        return value


def sign_up(base: str, shown: str, invite: str, email: str, password: str) -> bool:
    """Make the account through the invite link; False when the email has one already."""
    session = BrowserSession(base, shown)
    try:
        answer = session.form(invite, {"email": email, "password": password}, f"sign up {email}")
    finally:
        session.close()
    if answer.status_code == 302:
        return True
    errors = _form_errors(answer.text) if answer.status_code == 200 else ""
    if "already exists" in errors:
        return False
    if answer.status_code == 403:
        raise InputError(
            f"{shown}: sign up {email}: refused (HTTP 403: the invite link or the CSRF token was not accepted)"
        )
    raise InputError(f"{shown}: sign up {email}: HTTP {answer.status_code}: {errors or 'refused'}")


def log_in(base: str, shown: str, email: str, password: str) -> BrowserSession:
    """A session logged in as ``email`` with ``password`` (InputError when the server refuses)."""
    session = BrowserSession(base, shown)
    answer = session.form("/user/login/", {"email": email, "password": password}, f"log in {email}")
    if answer.status_code != 302:
        session.close()
        why = _form_errors(answer.text) if answer.status_code == 200 else f"HTTP {answer.status_code}"
        raise InputError(
            f"{shown}: log in {email}: refused ({why}); the password known for it is not its password"
        )
    return session


def whoami(base: str, shown: str, token: str, token_type: str) -> str | None:
    """The email the token authenticates as (None: refused)."""
    import httpx

    with api_errors(shown, "check a token"):
        if token_type == "personal":
            refreshed = httpx.post(f"{base}/api/token/refresh/", json={"refresh": token}, timeout=60)
            if refreshed.status_code != 200:
                return None
            header = f"Bearer {_json(refreshed, 'access', 'refresh a token', shown)}"
        else:
            header = f"Token {token}"
        answer = httpx.get(f"{base}/api/current-user/whoami", headers={"Authorization": header}, timeout=60)
        if answer.status_code in (401, 403):
            return None
        if answer.status_code != 200:
            raise BadAnswer("whoami")
        return str(answer.json().get("email") or "").lower() or None


def account_token(session: BrowserSession, email: str, known: Mapping[str, str] | None) -> tuple[str, str]:
    """The logged-in account's token and its type (``legacy`` or ``personal``), checked."""
    base, shown = session.base, session.shown
    answer = session.api("GET", "/api/current-user/token", f"get the token of {email}")
    if answer.status_code == 200:
        legacy = _json(answer, "token", f"get the token of {email}", shown)
        if whoami(base, shown, legacy, "legacy") == email:
            return legacy, "legacy"
    if (
        known
        and known.get("token_type") == "personal"
        and whoami(base, shown, known["token"], "personal") == email
    ):
        return known["token"], "personal"
    made = session.api("POST", "/api/token/", f"make a personal access token for {email}")
    if made.status_code == 409:
        raise InputError(
            f"{shown}: {email} has a personal access token already, not the one in the credentials "
            "file; revoke it (on the rater's Account & Settings page, logged in as them) and run again"
        )
    if made.status_code != 201:
        raise InputError(f"{shown}: make a personal access token for {email}: HTTP {made.status_code}")
    token = _json(made, "token", f"make a personal access token for {email}", shown)
    if whoami(base, shown, token, "personal") != email:
        raise InputError(f"{shown}: the personal access token made for {email} does not authenticate as it")
    return token, "personal"


# --------------------------------------------------------------------------- the whole run


def _one(server: Server, invite: str | None, want: Wanted, known: dict | None, exists: bool):
    password = want.password or (known or {}).get("password") or secrets.token_urlsafe(18)
    created = False
    if not exists:
        created = sign_up(server.base_url, server.url, invite or server.invite_path(), want.email, password)
    session = log_in(server.base_url, server.url, want.email, password)
    try:
        same_password = known is not None and known.get("password") == password
        token, token_type = account_token(session, want.email, known if same_password else None)
    finally:
        session.close()
    row = {
        "rater": want.rater,
        "email": want.email,
        "password": password,
        "token": token,
        "token_type": token_type,
    }
    account = "created" if created else "existing"
    shown = {"rater": want.rater, "email": want.email, "account": account, "token_type": token_type}
    return row, shown


def _write(out: Path, rows: list[dict], option: str) -> None:
    with output_file(out, option=option, mode=0o600) as tmp:
        pd.DataFrame(rows, columns=list(CREDENTIAL_COLUMNS)).to_csv(tmp, index=False)


def rater_accounts(
    raters: Sequence[str],
    out: str | os.PathLike,
    *,
    emails=None,
    email_domain: str | None = None,
    server: Server | None = None,
    option: str = "out",
) -> list[dict]:
    """Make (or check) each rater's account, log in as them with their password, get their
    token, and write the credentials file ``out`` (``rater, email, password, token,
    token_type``; mode 0600), which is also the roster ``pull`` and ``push`` take.

    ``emails`` and ``email_domain`` as in :func:`wanted_accounts`; a password is generated
    (24 URL-safe characters) unless given there or known from an earlier ``out``. Returns one
    row per account without secrets: ``rater, email, account`` (``created``/``existing``),
    ``token_type`` (``legacy``/``personal``). ``server``: the admin's connection (default:
    :class:`~.server.Server` from the environment, made once the inputs are checked);
    ``option`` names ``out`` in messages.
    """
    out = Path(out)
    wanted = wanted_accounts(raters, emails=emails, email_domain=email_domain)
    known = read_credentials(out)
    server = Server() if server is None else server
    on_server = server.user_emails()
    unknown = [w for w in wanted if w.email in on_server and not (w.password or known.get(w.email))]
    if unknown:
        raise InputError(
            f"{server.url}: {unknown[0].email} (rater {unknown[0].rater!r}) has an account already and its "
            f"password is not known (not in {out}); give it in the password column of emails"
        )
    invite = server.invite_path() if any(w.email not in on_server for w in wanted) else None
    rows: list[dict] = []
    shown: list[dict] = []

    def keep_known() -> list[dict]:
        done = {r["email"] for r in rows}
        return rows + [row for email, row in known.items() if email not in done]

    with _quiet_http():
        try:
            for want in wanted:
                row, public = _one(server, invite, want, known.get(want.email), want.email in on_server)
                rows.append(row)
                shown.append(public)
        except InputError as exc:
            if not rows:
                raise
            _write(out, keep_known(), option)
            raise InputError(
                f"{exc}; the {len(rows)} account(s) made or checked before that are written to {out}; "
                "run again for the rest"
            ) from None
        except KeyboardInterrupt:
            if rows:
                _write(out, keep_known(), option)
            raise
    _write(out, keep_known(), option)
    return shown
