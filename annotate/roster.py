"""The roster: which Label Studio account (email) is which rater.

One orientation everywhere, the roster CSV's: ``rater → email``. :func:`as_roster` takes

* a path to a CSV with columns ``rater``, ``email`` (further columns, such as the ``password``
  and ``token`` that ``annotate raters`` writes, are read past);
* a DataFrame with those columns;
* a mapping ``{rater: email}`` (or ``{rater: [email, …]}`` for a rater with several accounts).

Emails are compared case-insensitively (Label Studio stores the address it was signed up with
in lower case). An email under two raters is refused; so is a value that is not an email
address, with a hint when the mapping looks reversed (``{email: rater}``).

Without a roster, every annotation in a rater's project counts as that rater's, whoever made
it: on Community Edition every account can open and label every project
(docs/CAMPAIGN.md).
"""

from __future__ import annotations

import os
import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from wordplay_audit.corpora.tables import read_table
from wordplay_audit.errors import InputError, ParameterError, at_line

# local@domain with a dotted domain (or localhost): what Label Studio's sign-up form accepts
EMAIL = re.compile(r"^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@(localhost|[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+)$")
NO_ROSTER = (
    "no roster: every annotation in a rater's project counts as that rater's, whoever made it "
    "(on Community Edition every account can open and label every project); give the roster "
    "that `annotate raters` wrote"
)


def is_email(text: str) -> bool:
    """Whether ``text`` is an address Label Studio's sign-up form takes.

    >>> is_email("ann@lab.example.org"), is_email("ann"), is_email("Ann Lee@x.org")
    (True, False, False)
    """
    return bool(EMAIL.match(text))


@dataclass(frozen=True)
class Roster:
    """``emails``: rater → their account emails (lower case); ``source``: the file, if any."""

    emails: Mapping[str, tuple[str, ...]]
    source: str | None = None

    @property
    def name(self) -> str:
        """How messages name it: ``roster`` or ``roster (people.csv)``."""
        return f"roster ({self.source})" if self.source else "roster"

    def rater_of(self, email: str | None) -> str | None:
        """The rater whose account ``email`` is (None: nobody in the roster)."""
        if email is None:
            return None
        return self._by_email().get(str(email).strip().lower())

    def _by_email(self) -> dict[str, str]:
        return {e: r for r, emails in self.emails.items() for e in emails}

    def email_of(self, rater: str) -> str | None:
        """The rater's first email (None: not in the roster)."""
        found = self.emails.get(rater)
        return found[0] if found else None

    def require(self, raters: Iterable[str], what: str = "rater") -> None:
        """ParameterError naming the first of ``raters`` the roster gives no email."""
        missing = [r for r in raters if r not in self.emails]
        if missing:
            listed = ", ".join(repr(r) for r in list(self.emails)[:5]) or "none"
            raise ParameterError(
                f"{self.name}: no email for {what} {missing[0]!r}"
                + (f" (and {len(missing) - 1} more)" if len(missing) > 1 else "")
                + f"; every annotation in their project would be foreign. The roster's raters: {listed}"
                " (expected {rater: email}, as the roster CSV's rater,email columns)"
            )


def _nfc(text: str) -> str:
    return unicodedata.normalize("NFC", text.strip())


def _add(
    people: dict[str, list[str]], owner: dict[str, tuple[str, str]], pair, where: str, here: str
) -> None:
    """One (rater, email) pair; ``where`` is the place prefix of messages, ``here`` how a later
    message names this place (``on line 2``)."""
    rater, email = _nfc(str(pair[0])), str(pair[1]).strip()
    if not rater:
        raise InputError(f"{where}empty rater name")
    if not is_email(email):
        raise InputError(f"{where}email {email!r} (rater {rater!r}) is not an email address")
    key = email.lower()
    if key in owner and owner[key][0] != rater:
        earlier, there = owner[key]
        raise InputError(
            f"{where}email {email!r} is rater {rater!r} here and {earlier!r}{' ' if there else ''}{there}; "
            "expected one rater per email"
        )
    owner[key] = (rater, here)
    if key not in people.setdefault(rater, []):
        people[rater].append(key)


def _from_frame(frame: pd.DataFrame, source: str | None) -> Roster:
    missing = [c for c in ("rater", "email") if c not in frame.columns]
    if missing:
        place = at_line(source, 1) if source else "roster: "
        raise InputError(f"{place}expected columns rater, email; got {', '.join(map(str, frame.columns))}")
    people: dict[str, list[str]] = {}
    owner: dict[str, tuple[str, str]] = {}
    rows = zip(frame.index, frame["rater"], frame["email"], strict=True)
    for position, (line, rater, email) in enumerate(rows):
        where, here = (
            (at_line(source, int(line)), f"on line {int(line)}")
            if source
            else (f"roster: row {position}: ", f"in row {position}")
        )
        if pd.isna(rater) or pd.isna(email):
            raise InputError(f"{where}empty rater or email")
        _add(people, owner, (rater, email), where, here)
    return Roster({r: tuple(e) for r, e in people.items()}, source)


def _from_mapping(mapping: Mapping) -> Roster:
    people: dict[str, list[str]] = {}
    owner: dict[str, tuple[str, str]] = {}
    pairs = []
    for rater, value in mapping.items():
        values = [value] if isinstance(value, str) else value
        if (
            not isinstance(rater, str)
            or not isinstance(values, Iterable)
            or not all(isinstance(v, str) for v in values)
        ):
            raise ParameterError(
                f"roster: expected {{rater: email}} (or {{rater: [email, …]}}) of strings; got "
                f"{rater!r}: {value!r}"
            )
        pairs += [(rater, v) for v in values]
    if pairs and all(is_email(r) for r, _ in pairs) and not any(is_email(e) for _, e in pairs):
        raise ParameterError(
            f"roster: the keys are emails and the values are not ({pairs[0][0]!r}: {pairs[0][1]!r}); "
            "expected {rater: email}, as the roster CSV's rater,email columns"
        )
    for rater, email in pairs:
        try:
            _add(people, owner, (rater, email), f"roster: {rater!r}: ", "")
        except InputError as exc:
            raise ParameterError(str(exc)) from None
    return Roster({r: tuple(e) for r, e in people.items()})


def as_roster(roster: str | os.PathLike | pd.DataFrame | Mapping | Roster | None) -> Roster | None:
    """The roster from a CSV path, a DataFrame or a ``{rater: email}`` mapping (None stays None).

    >>> as_roster({"ann": "Ann@Lab.org"}).rater_of("ann@lab.org")
    'ann'
    >>> as_roster({"ann@lab.org": "ann"})
    Traceback (most recent call last):
    ...
    wordplay_audit.errors.ParameterError: roster: the keys are emails and the values are not ('ann@lab.org': 'ann'); expected {rater: email}, as the roster CSV's rater,email columns
    """
    if roster is None or isinstance(roster, Roster):
        return roster
    if isinstance(roster, str | os.PathLike):
        frame = read_table(Path(roster))
        return _from_frame(frame, str(roster))
    if isinstance(roster, pd.DataFrame):
        return _from_frame(roster, roster.attrs.get("source"))
    if isinstance(roster, Mapping):
        return _from_mapping(roster)
    raise ParameterError(
        f"roster: expected a CSV path, a DataFrame with columns rater, email, or a {{rater: email}} "
        f"mapping; got {type(roster).__name__}"
    )


def roster_notes(raters: Sequence[str], server, roster) -> list[str]:
    """Before a push: the roster (anything :func:`as_roster` takes) must name every one of
    ``raters`` (ParameterError); a rater whose email has no account on the server
    (:class:`~.server.Server`) is a warning (run ``annotate raters``). No roster: the warning
    saying what that means."""
    people = as_roster(roster)
    if people is None:
        return [NO_ROSTER]
    people.require(raters)
    accounts = server.user_emails()
    return [
        f"rater {rater!r}: {people.email_of(rater)} has no account on {server.url}; run `annotate raters`"
        for rater in raters
        if not any(email in accounts for email in people.emails[rater])
    ]
