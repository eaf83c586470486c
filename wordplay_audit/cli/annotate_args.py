"""Helpers of ``wordplay-audit annotate`` (:mod:`wordplay_audit.cli.annotate`): the shared
option types, option parsing, and the lines and counted notes the commands print."""

from __future__ import annotations

import contextlib
import unicodedata
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated

import typer

from wordplay_audit.errors import ParameterError, check_choice

CampaignArg = Annotated[Path, typer.Argument(help="Campaign folder written by `annotate plan`.")]
OutOpt = Annotated[Path, typer.Option("--out", help="Output folder (written in one step).")]
RosterOpt = Annotated[
    Path | None,
    typer.Option(
        "--roster", help="CSV rater,email (the file `annotate raters` wrote): whose account is which rater."
    ),
]
ForeignOpt = Annotated[
    str,
    typer.Option(
        "--foreign",
        help="An annotation by an account that is not the project's rater: refuse (exit 2) or leave-out (counted).",
    ),
]


def split_names(text: str, option: str, *, what: str = "names") -> list[str]:
    """Comma-separated names; an empty one (``a,,b``, ``a,``, ``,``) is an error, not dropped."""
    parts = [p.strip() for p in text.split(",")]
    if not all(parts):
        raise ParameterError(f"{option}: expected comma-separated {what}, got {text!r}")
    return parts


PULL_FLAGS = {"^roster": "--roster", "foreign='leave_out'": "--foreign leave-out"}


def overlap_shares(text: str) -> dict[int, float] | None:
    """``--overlap-share 3:0.3[,4:0.1]`` as ``{3: 0.3, 4: 0.1}`` (None when empty)."""
    out: dict[int, float] = {}
    for part in [p.strip() for p in (text or "").split(",") if p.strip()]:
        k, _, share = part.partition(":")
        try:
            out[int(k)] = float(share)
        except ValueError:
            raise ParameterError(
                f"overlap_share: expected raters:share pairs such as 3:0.3, got {part!r}"
            ) from None
    return out or None


def foreign_policy(value: str) -> str:
    """``--foreign``'s value as the library's ``foreign`` (``leave-out`` → ``leave_out``)."""
    return check_choice("--foreign", value, ("refuse", "leave-out")).replace("-", "_")


def export_files(entries: list[str]) -> dict[str, Path]:
    """``--export RATER=FILE`` options as ``{rater: file}``; a rater named twice is an error
    (the second file would silently replace the first).

    >>> export_files(["ann=a.json", "bob = b.csv"])
    {'ann': PosixPath('a.json'), 'bob': PosixPath('b.csv')}
    >>> export_files(["ann=a.json", "ann=b.json"])
    Traceback (most recent call last):
    ...
    wordplay_audit.errors.ParameterError: --export: rater 'ann' is given twice (a.json, b.json); give one export per rater
    """
    files: dict[str, Path] = {}
    for entry in entries:
        rater, sep, path = entry.partition("=")
        if not sep or not rater.strip() or not path.strip():
            raise ParameterError(f"--export: expected RATER=FILE, got {entry!r}")
        name = unicodedata.normalize("NFC", rater.strip())  # as `plan --raters` stores names
        if name in files:
            raise ParameterError(
                f"--export: rater {name!r} is given twice ({files[name]}, {path.strip()}); "
                "give one export per rater"
            )
        files[name] = Path(path.strip())
    return files


def rater_names(text: str, split) -> list[str]:
    """``--raters``: comma-separated names, NFC-normalised (as every text the toolkit reads); a
    name holding ``=`` is refused (``import-file --export RATER=FILE`` could not name it).

    >>> rater_names("ann,bob", lambda t, o: t.split(","))
    ['ann', 'bob']
    """
    names = [unicodedata.normalize("NFC", name) for name in split(text, "--raters")]
    odd = [name for name in names if "=" in name]
    if odd:
        raise ParameterError(
            f"--raters: rater name {odd[0]!r} holds '=' (import-file's --export RATER=FILE could not "
            "name it); choose names without '='"
        )
    return names


@contextlib.contextmanager
def interrupted_push(command: str) -> Iterator[None]:
    """Ctrl-C during a push: say that the server may hold part of the import (the usual "no
    output was changed" would be wrong) and end with exit code 130."""
    import sys

    try:
        yield
    except KeyboardInterrupt:
        print(
            f"error: interrupted; the server may hold part of the import (projects or tasks); run "
            f"`annotate {command}` again: it adds only what is missing",
            file=sys.stderr,
        )
        raise SystemExit(130) from None


@contextlib.contextmanager
def interrupted_round(folder: Path) -> Iterator[None]:
    """Ctrl-C during ``annotate next``: once the round is written (the campaign's manifest
    changed) the push that follows may be partial – say so and how to finish it; before, the
    usual message (nothing was changed) stands."""
    import sys

    def manifest() -> bytes:  # the campaign's manifest as it stands (b"" when there is none)
        path = Path(folder) / "manifest.json"
        return path.read_bytes() if path.is_file() else b""

    before = manifest()
    try:
        yield
    except KeyboardInterrupt:
        if manifest() == before:
            raise
        print(
            "error: interrupted after the round was written; the server may hold part of it; run "
            "`annotate push` to send the rest (it adds only what is missing)",
            file=sys.stderr,
        )
        raise SystemExit(130) from None


@contextlib.contextmanager
def flag_names(names: dict[str, str]) -> Iterator[None]:
    """Name the command-line flags in the one-line errors the library raised about its
    parameters: each key of ``names`` (``foreign='leave_out'``) as its flag where it stands as a
    word, not inside a path (``roster.csv`` stays); a key starting with ``^`` (``^roster``) only
    at the start of the message.

    >>> try:
    ...     with flag_names({"^roster": "--roster", "email_domain": "--email-domain"}):
    ...         raise ValueError("x")
    ... except ValueError as exc:
    ...     print(exc)
    x
    """
    import re

    from wordplay_audit.errors import InputError, ParameterError

    def pattern(key: str) -> str:
        start = "^" if key.startswith("^") else r"(?<![\w./-])"
        return start + re.escape(key.removeprefix("^")) + r"(?![\w./-])"

    try:
        yield
    except (InputError, ParameterError) as exc:
        text = str(exc)
        for key, flag in names.items():
            text = re.sub(pattern(key), flag, text)
        if text == str(exc):
            raise
        raise type(exc)(text) from None


@contextlib.contextmanager
def interrupted_accounts(out: Path) -> Iterator[None]:
    """Ctrl-C during ``annotate raters``: the accounts made so far are on the server and in
    ``out`` (the usual "no output was changed" would be wrong); exit code 130."""
    import sys

    try:
        yield
    except KeyboardInterrupt:
        print(
            f"error: interrupted; the accounts made so far (if any) are on the server and written to {out}; "
            "run `annotate raters` again: it makes only the missing ones",
            file=sys.stderr,
        )
        raise SystemExit(130) from None
