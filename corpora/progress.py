"""The one progress bar of the toolkit: tqdm on stderr, off unless asked.

A step that can take more than a few seconds (a trend test over many cells, a report, a
bootstrap, a coverage simulation) wraps its loop in :func:`progress` or opens a :func:`bar`.
Whether the bar shows is decided in this order:

1. the step's own ``progress=`` argument (``True`` / ``False``), passed on as ``enabled``;
2. else the default of the calling context, :func:`progress_default` — the CLI sets it with
   :func:`show_progress` (on for a readable summary, off under ``--json`` unless asked);
3. else off: a library call in a notebook prints nothing to its output cell unless asked.

``None`` as the context default means *auto*: shown only when stderr is a terminal.
"""

from __future__ import annotations

import contextlib
import contextvars
import sys
from collections.abc import Iterable, Iterator
from typing import Any, TypeVar

__all__ = ["bar", "progress", "progress_default", "show_progress"]

T = TypeVar("T")

_DEFAULT: contextvars.ContextVar[bool | None] = contextvars.ContextVar(
    "wordplay_audit_progress", default=False
)


def progress_default() -> bool | None:
    """The calling context's default: ``True``, ``False`` or ``None`` (shown on a terminal)."""
    return _DEFAULT.get()


@contextlib.contextmanager
def show_progress(on: bool | None) -> Iterator[None]:
    """Within the block, steps called without ``progress=`` show their bar when ``on`` is True
    (``None``: when stderr is a terminal; ``False``: never)."""
    token = _DEFAULT.set(on)
    try:
        yield
    finally:
        _DEFAULT.reset(token)


def _disable(enabled: bool | None) -> bool | None:
    """tqdm's ``disable``: ``True`` hides, ``None`` hides off a terminal, ``False`` shows."""
    on = _DEFAULT.get() if enabled is None else bool(enabled)
    if on is None:
        return None
    return not on


def bar(*, total: int | None, desc: str, unit: str = "it", enabled: bool | None = None) -> Any:
    """An open progress bar (call ``update(n)`` and ``close()``, or use it as a context)."""
    from tqdm.std import tqdm  # the text bar on stderr, never the notebook widget

    return tqdm(
        total=total, desc=desc, unit=unit, file=sys.stderr, disable=_disable(enabled),
        mininterval=0.5, leave=False, dynamic_ncols=True,
    )  # fmt: skip


def progress(
    iterable: Iterable[T], *, desc: str, total: int | None = None, unit: str = "it",
    enabled: bool | None = None,
) -> Iterator[T]:  # fmt: skip
    """``iterable`` with a bar that advances per element (see the module for when it shows)."""
    if total is None and hasattr(iterable, "__len__"):
        total = len(iterable)  # type: ignore[arg-type]
    with bar(total=total, desc=desc, unit=unit, enabled=enabled) as b:
        for element in iterable:
            yield element
            b.update(1)
