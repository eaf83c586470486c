"""How every sub-command prints its result: ``--json`` (one JSON object) or readable lines."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from wordplay_audit.corpora.io import replaced_outputs
from wordplay_audit.workflow.jsonable import _Records, records, to_jsonable  # noqa: F401 (re-exported)

BIG = 10_000
"""A ``--json`` result holding a table longer than this is printed without indentation (the
C encoder; a million rows of ``balderdash metrics`` in seconds instead of a minute)."""


def _largest_table(value: Any) -> int:
    if isinstance(value, _Records):
        return len(value)
    if isinstance(value, dict):
        return max((_largest_table(v) for v in value.values()), default=0)
    return 0


def emit(result: dict[str, Any], *, as_json: bool, lines: list[str] | None = None) -> None:
    """Print ``result`` as one JSON object, or ``lines`` (a human summary) when not ``--json``;
    either names the outputs of an earlier run that this one replaced (``replaced_outputs``)."""
    replaced = replaced_outputs()
    if replaced:
        result = {**result, "replaced_outputs": replaced}
        said = [  # a folder carries the marker of an earlier run; a file is whatever was there
            f"replaced the earlier output in {p}" if Path(p).is_dir() else f"replaced the existing file {p}"
            for p in replaced
        ]
        lines = None if lines is None else [*lines, *said]
    if as_json:
        plain = to_jsonable(result)
        typer.echo(json.dumps(plain, indent=None if _largest_table(plain) > BIG else 2, sort_keys=False))
        return
    if lines is None:
        lines = [f"{k}: {v}" for k, v in to_jsonable(result).items()]
    for line in lines:
        typer.echo(line)


JSON_OPTION = typer.Option(False, "--json", help="Print one JSON object instead of a summary.")
ProgressOpt = Annotated[
    bool | None,
    typer.Option(
        "--progress/--no-progress", help="Progress bar on stderr (default: on a terminal, off with --json)."
    ),
]

SeedOpt = Annotated[int, typer.Option("--seed", min=0, max=2**32 - 1, help="Random seed (0 ≤ seed < 2³²).")]
IntervalSeedOpt = Annotated[
    int | None,
    typer.Option("--seed", min=0, max=2**32 - 1,
                 help="Seed of the randomised intervals (0 ≤ seed < 2³²; default: a fresh one, printed and in --json)."),
]  # fmt: skip


def show(result: Any, *, as_json: bool, write: Path | None = None, **extra: Any) -> None:
    """Print a workflow result: ``--json`` its ``to_dict()`` (with ``extra`` and what was
    written), else its ``summary()``; with ``write`` (a folder), :meth:`write` it there first."""
    files = result.write(write) if write is not None else None
    payload = {**result.to_dict(), **extra} if as_json else {}
    lines = list(result.summary())
    if files is not None:
        payload.update(out=str(write), files=files)
        lines.append(f"wrote {write}: {', '.join(files)}")
    emit(payload, as_json=as_json, lines=lines)


def numbers(
    values: list[str] | str | None, name: str, *, default: tuple[float, ...] | None = None
) -> tuple[float, ...] | None:
    """Numbers of a repeatable, comma-separated option (``--eps 0.1,0.2 --eps 0.3``); the
    default (None: not given) when none is given; a ParameterError naming the parameter for a
    value that is not a number.

    >>> numbers(["0.1,0.2", "0.3"], "eps"), numbers(None, "eps", default=(0.5,))
    ((0.1, 0.2, 0.3), (0.5,))
    """
    from wordplay_audit.errors import ParameterError

    if values is None:
        return default
    out = []
    for value in [values] if isinstance(values, str) else values:
        for part in str(value).split(","):
            if not part.strip():
                continue
            try:
                out.append(float(part))
            except ValueError:
                raise ParameterError(
                    f"{name}: {part.strip()!r} is not a number (expected e.g. 0.1 or 0.05,0.1)"
                ) from None
    if not out:
        raise ParameterError(f"{name}: no value in {values!r} (expected e.g. 0.1 or 0.05,0.1)")
    return tuple(out)


def names(text: str | None, name: str) -> tuple[str, ...] | None:
    """Comma-separated names of one option (``--raters ann,bob``); an empty name (``a,,b``) is an
    error, not dropped; None stays None.

    >>> names("ann, bob", "raters")
    ('ann', 'bob')
    """
    from wordplay_audit.errors import ParameterError

    if text is None:
        return None
    parts = tuple(p.strip() for p in text.split(","))
    if not all(parts):
        raise ParameterError(f"{name}: expected comma-separated names, got {text!r}")
    return parts
