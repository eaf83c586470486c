"""Helpers of ``wordplay-audit annotate`` (:mod:`wordplay_audit.cli.annotate`): option parsing
and the counted notes the commands print."""

from __future__ import annotations

import contextlib
import unicodedata
from collections.abc import Iterator
from pathlib import Path

from wordplay_audit.errors import ParameterError


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


def unmatched_note(count: int, labels: Path) -> list[str]:
    """The printed note on label rows that name no campaign item (none: no note).

    >>> unmatched_note(3, Path("final.csv"))
    ['note: left out 3 label row(s) of final.csv naming no item of the campaign']
    """
    return (
        [f"note: left out {count} label row(s) of {labels} naming no item of the campaign"] if count else []
    )


def rater_progress(c) -> tuple[list[dict], list[str]]:
    """``annotate status``'s per-rater rows (from the server) and their lines with a progress bar;
    a rater without a project, tasks not on the server or there twice are warning lines."""
    from wordplay_audit.annotate.server import Server
    from wordplay_audit.annotate.workflow import progress_bar, status_campaign

    rows = status_campaign(c, Server())
    width = max((len(r["rater"]) for r in rows), default=5)
    lines = [
        f"{r['rater']:<{width}} {progress_bar(r['done'] + r['skipped'], r['tasks'])}"
        f"  done {r['done']}, skipped {r['skipped']}, left {r['left']}"
        + (f", not on the server {r['not_on_server']}" if r["not_on_server"] else "")
        for r in rows
    ]
    lines += [f"warning: {w}" for r in rows for w in r["warnings"]]
    return rows, lines


def push_lines(rows: list[dict]) -> list[str]:
    """The lines of ``push``'s result: one per project, and a warning per project holding a task
    more than once."""
    lines = [
        f"{r['owner']}: project {r['project_id']} ({'created' if r['created'] else 'found'}), "
        f"{r['imported']} tasks imported, {r['already_there']} already there"
        for r in rows
    ]
    return lines + [
        f"warning: project {r['project_id']} ({r['owner']}) holds {r['duplicate_tasks']} extra copy(ies) "
        "of tasks (a uid more than once); delete them on the server"
        for r in rows
        if r.get("duplicate_tasks")
    ]


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
    """Ctrl-C during ``annotate next``: once the round is written (the manifest changed) the
    push that follows may be partial – say so and how to finish it; before, the usual message
    (nothing was changed) stands."""
    import sys

    from wordplay_audit.annotate.campaign import manifest_digest

    before = manifest_digest(folder)
    try:
        yield
    except KeyboardInterrupt:
        if manifest_digest(folder) == before:
            raise
        print(
            "error: interrupted after the round was written; the server may hold part of it; run "
            "`annotate push` to send the rest (it adds only what is missing)",
            file=sys.stderr,
        )
        raise SystemExit(130) from None
