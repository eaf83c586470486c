"""What every workflow function returns: a :class:`Result`.

One convention for every step, so a notebook and the command line read results the same way:

* ``to_dict()`` — plain JSON values (what ``--json`` prints): numbers, text, lists, dicts;
  nan and ±inf become ``None``; a value that could not be computed is ``None`` with a reason
  beside it.
* ``tables()`` — every table of the result by name (what :meth:`Result.write` writes as CSV);
  ``to_frame()`` — the main one (or one by name).
* ``summary()`` — the readable text lines a command prints without ``--json``.
* ``section()`` — the result's report section (HTML text, tables and plots); shown inline by
  Jupyter (``_repr_html_``).
* ``write(out)`` — tables, plots and ``report.html`` into the folder ``out``, as one transaction
  (:func:`wordplay_audit.corpora.io.output_folder`: it appears whole or stays as it was).
"""

from __future__ import annotations

import html
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

if TYPE_CHECKING:
    import pandas as pd

    from wordplay_audit.analysis.report import Section

__all__ = ["Result", "plain"]


def plain(value: Any) -> Any:
    """``value`` as plain JSON values: numpy and pandas scalars to Python's, tables to lists of
    records, nan and ±inf to None (:func:`~wordplay_audit.workflow.jsonable.to_jsonable`).

    >>> import numpy as np
    >>> plain({"a": np.float64("nan"), "b": [np.int64(2), (1.5, np.bool_(True))]})
    {'a': None, 'b': [2, [1.5, True]]}
    """
    from wordplay_audit.workflow.jsonable import to_jsonable

    return to_jsonable(value)


class Result:
    """Base of every workflow result (see the module docstring). Subclasses hold their data as
    attributes and implement :meth:`to_dict`; the rest has working defaults."""

    title: ClassVar[str] = "result"
    main_table: ClassVar[str | None] = None

    def to_dict(self) -> dict[str, Any]:  # pragma: no cover - every subclass defines it
        """The result as plain JSON values (what ``--json`` prints)."""
        raise NotImplementedError

    def tables(self) -> dict[str, pd.DataFrame]:
        """Every table of the result by name (none by default)."""
        return {}

    def figures(self) -> dict[str, bytes]:
        """PNG plots by name, written beside the tables (none by default)."""
        return {}

    def to_frame(self, name: str | None = None) -> pd.DataFrame:
        """The main table, or the table ``name`` (:meth:`tables` lists them)."""
        from wordplay_audit.errors import ParameterError

        tables = self.tables()
        if not tables:
            raise ParameterError(f"name: a {self.title} result holds no table")
        key = name if name is not None else (self.main_table or next(iter(tables)))
        if key not in tables:
            raise ParameterError(f"name: expected one of {', '.join(tables)}; got {key!r}")
        return tables[key]

    def summary(self) -> list[str]:
        """The readable lines a command prints (default: one ``key: value`` line per entry)."""
        return [f"{k}: {v}" for k, v in plain(self.to_dict()).items()]

    def section(self) -> Section:
        """The result's report section (default: its summary and its tables)."""
        from wordplay_audit.analysis.report import Paragraph, Section, Table

        blocks = [Paragraph(line) for line in self.summary()]
        blocks += [Table(frame, caption=name) for name, frame in self.tables().items()]
        return Section(self.title, blocks)

    def write(self, out: str | Path, *, title: str | None = None) -> list[str]:
        """Write :meth:`tables` (CSV), :meth:`figures` (PNG) and ``report.html`` (the section)
        into the folder ``out`` in one step; return the names written, relative to ``out``."""
        from wordplay_audit.analysis.report import Report
        from wordplay_audit.corpora.io import output_folder
        from wordplay_audit.workflow.files import write_outputs

        report = Report(title or f"wordplay-audit: {self.title}")
        report.add(self.section())
        with output_folder(out, option="out") as staging:
            written = write_outputs(staging, tables=self.tables(), figures=self.figures(), report=report)
        return sorted(str(p) for p in written.values())

    def __str__(self) -> str:
        return "\n".join(self.summary())

    def _repr_html_(self) -> str:  # Jupyter shows the report section
        try:
            return self.section().render("result")
        except Exception as exc:  # noqa: BLE001 - a display must not raise
            return f"<pre>{html.escape(str(self))}</pre><p>(no section: {html.escape(str(exc))})</p>"


def loaded(value):
    """``value``, or what it returns when it is a function: a step takes its data or a function
    that reads it, and calls that after checking its parameters (a bad option is then reported
    before a long read, not after)."""
    return value() if callable(value) else value
