"""The toolkit's error model: the bottom layer, imported by every room.

Two kinds of user error, both ``ValueError`` so library callers can catch them as such, and
both ending the command line with one line on stderr and exit code 2:

* :class:`InputError` — a file or its content is bad. The message names the file and the place.
  **Place convention**: ``<file> line <N>: <what was expected, what came>`` where ``N`` is the
  file's own line number counted from 1 (a CSV's header is line 1, its first data row line 2; a
  JSON-lines record is named by the line it starts on). A place inside one JSON document that
  has no useful line is named by its path: ``<file>: games[3].categories: …``. Use
  :func:`at_line` / :func:`at_field` to build the prefix so every reader says it the same way.
* :class:`ParameterError` — a command-line option or function argument is out of range or not
  one of the allowed values; the message names the option and lists what is allowed.

:class:`UsageWarning` is the warning class for counted, non-fatal findings.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from os import PathLike
from pathlib import Path


class InputError(ValueError):
    """Bad input file or content; the message is one line naming the file and the place."""


class ParameterError(ValueError):
    """A bad parameter value; the message names the parameter and what is allowed."""


class UsageWarning(UserWarning):
    """A non-fatal finding about the input (something skipped, repaired or counted)."""


def at_line(source: str | PathLike | None, line: int | None = None) -> str:
    """The place prefix ``"<file> line <N>: "`` (``"<file>: "`` without a line; ``""`` without both).

    >>> at_line("labels.csv", 5)
    'labels.csv line 5: '
    >>> at_line(None, 5)
    'line 5: '
    """
    name = str(source) if source is not None else ""
    if line is None:
        return f"{name}: " if name else ""
    return f"{name} line {int(line)}: " if name else f"line {int(line)}: "


def at_field(source: str | PathLike | None, field: str) -> str:
    """The place prefix for a field inside one JSON document: ``"<file>: <field>: "``.

    >>> at_field("gold.json", "games[3].categories")
    'gold.json: games[3].categories: '
    """
    return f"{source}: {field}: " if source is not None else f"{field}: "


def check_level(value: object, name: str = "confidence") -> float:
    """``value`` as a float if it is a level strictly between 0 and 1 (an interval's confidence);
    else :class:`ParameterError` naming ``name``.

    >>> check_level(0.9)
    0.9
    >>> check_level(float("nan"))
    Traceback (most recent call last):
    ...
    wordplay_audit.errors.ParameterError: confidence: expected a level strictly between 0 and 1; got nan
    """
    try:
        level = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        level = math.nan
    if isinstance(value, bool) or not 0.0 < level < 1.0:
        raise ParameterError(f"{name}: expected a level strictly between 0 and 1; got {value!r}")
    return level


def check_choice(name: str, value: object, allowed: Iterable[str]) -> str:
    """Return ``value`` if it is one of ``allowed``; else raise :class:`ParameterError` listing them.

    >>> check_choice("--method", "majority", ("majority", "dawid-skene"))
    'majority'
    >>> check_choice("--method", "mean", ("majority", "dawid-skene"))
    Traceback (most recent call last):
    ...
    wordplay_audit.errors.ParameterError: --method: expected one of majority, dawid-skene; got 'mean'
    """
    options = tuple(allowed)
    if value not in options:
        raise ParameterError(f"{name}: expected one of {', '.join(options)}; got {value!r}")
    return value  # type: ignore[return-value]


def expect_file(path: str | PathLike, expected: str = "a file") -> Path:
    """``path`` as a :class:`~pathlib.Path` if it names a file; else :class:`InputError`.

    The one wording every reader uses for an input path that is not a file: ``<path>: no such
    file`` when nothing is there, ``<path>: is a folder, expected <expected>`` when a folder is.

    >>> expect_file("/", "a CSV file")
    Traceback (most recent call last):
    ...
    wordplay_audit.errors.InputError: /: is a folder, expected a CSV file
    >>> expect_file("/no/such/labels.csv")
    Traceback (most recent call last):
    ...
    wordplay_audit.errors.InputError: /no/such/labels.csv: no such file
    """
    path = Path(path)
    if path.is_dir():
        raise InputError(f"{path}: is a folder, expected {expected}")
    if not path.exists():
        raise InputError(f"{path}: no such file")
    return path


@contextmanager
def about(source: str | PathLike | None) -> Iterator[None]:
    """Name ``source`` in every :class:`InputError` raised inside that does not name a file yet.

    A check deep in a statistic ("the labels table is empty", "only one rater") knows the table,
    not the file it came from; the command wraps its work on a file's table in ``about(path)``
    so the one line the user sees still names the file.

    >>> try:
    ...     with about("labels.csv"):
    ...         raise InputError("only one rater")
    ... except InputError as exc:
    ...     print(exc)
    labels.csv: only one rater

    A message that names a file already (another input's, ``gold.csv line 3: …``) is left as
    it is:

    >>> try:
    ...     with about("labels.csv"):
    ...         raise InputError("runs/gold.csv line 3: gold label of item 'i1' is empty")
    ... except InputError as exc:
    ...     print(exc)
    runs/gold.csv line 3: gold label of item 'i1' is empty
    """
    try:
        yield
    except InputError as exc:
        name = str(source) if source is not None else ""
        if not name or name in str(exc) or _NAMES_A_FILE.match(str(exc)):
            raise
        raise InputError(f"{name}: {exc}") from None


# a message that starts with a file's place: a path (with a separator) or a file name with an
# extension, then ":" or " line N:"
_NAMES_A_FILE = re.compile(r"^(?:[^\s:]*[/\\][^\s:]*|[^\s:/\\]+\.[A-Za-z0-9]{1,8})(?: line \d+)?:")
