"""One self-contained HTML report: sections of escaped text, tables and embedded PNG plots.

Each analysis contributes a :class:`Section` (built by a pure function of its results); the
report only lays sections out. Every piece of text that reaches the page goes through
:func:`html.escape`, so model output cannot inject markup.

>>> r = Report("t")
>>> r.add(Section("A <b>", [Paragraph("x & y")]))
>>> "A &lt;b&gt;" in r.render() and "x &amp; y" in r.render()
True
"""

from __future__ import annotations

import base64
import html
import io
from dataclasses import dataclass, field
from functools import cached_property

import pandas as pd

__all__ = [
    "Block",
    "Bullets",
    "Figure",
    "LANDSCAPE_CHARS",
    "PORTRAIT_CHARS",
    "Paragraph",
    "Report",
    "Section",
    "Table",
    "figure_png",
    "format_cell",
    "new_figure",
    "plot_text",
    "print_chars",
]


class Block:
    """A piece of a section that renders itself to safe HTML."""

    def render(self) -> str:  # pragma: no cover - interface
        raise NotImplementedError


@dataclass(frozen=True)
class Paragraph(Block):
    text: str

    def render(self) -> str:
        return f"<p>{html.escape(self.text)}</p>"


@dataclass(frozen=True)
class Bullets(Block):
    items: tuple[str, ...]

    def __init__(self, items):
        object.__setattr__(self, "items", tuple(str(i) for i in items))

    def render(self) -> str:
        inner = "".join(f"<li>{html.escape(i)}</li>" for i in self.items)
        return f"<ul>{inner}</ul>"


PORTRAIT_CHARS = 120
"""A table whose :func:`print_chars` exceed this is :attr:`Table.wide`: about the characters
of 7 pt text across an A4 portrait page."""

LANDSCAPE_CHARS = 200
"""About the characters of 7 pt text across an A4 landscape page: a wide table's print font is
7 pt × LANDSCAPE_CHARS / :func:`print_chars`, between 5 and 7 pt."""


def print_chars(frame: pd.DataFrame, digits: int = 3) -> int:
    """The characters a printed row of ``frame`` needs across, estimated per column as the
    largest of its longest word (a cell wraps only between words), its cells' length up to 20
    characters, and its name's length up to 10 (a header wraps anywhere), plus 2 for padding.

    >>> print_chars(pd.DataFrame({"a": [0.5], "reason": ["no labels in this stratum"]}))  # (5 + 2) + (20 + 2)
    29
    """
    total = 0
    for name in frame.columns:
        cells = [format_cell(v, digits) for v in frame[name]]
        longest_word = max((len(w) for c in cells for w in c.split()), default=0)
        longest_cell = max((len(c) for c in cells), default=0)
        total += max(longest_word, min(longest_cell, 20), min(len(str(name)), 10)) + 2
    return total


@dataclass(frozen=True)
class Table(Block):
    """A DataFrame shown as a table; cells are escaped, floats printed with ``digits``.

    The table sits in a ``scroll`` container: on screen a table wider than the page scrolls
    sideways within it; in print it is shown whole (print CSS of :class:`Report`). A table
    wider than :data:`PORTRAIT_CHARS` (:func:`print_chars`) is :attr:`wide`: its section is
    printed on landscape pages, the table in a font of 5–7 pt that fits it (:attr:`print_font`).
    """

    frame: pd.DataFrame
    caption: str = ""
    digits: int = 3
    index: bool = False

    @property
    def shown(self) -> pd.DataFrame:
        return self.frame.reset_index() if self.index else self.frame

    @cached_property
    def chars(self) -> int:
        return print_chars(self.shown, self.digits)

    @property
    def wide(self) -> bool:
        """Whether the table is too wide for a portrait page (its section prints landscape)."""
        return self.chars > PORTRAIT_CHARS

    @property
    def print_font(self) -> float:
        """The print font size in pt of a wide table (see :data:`LANDSCAPE_CHARS`)."""
        return round(min(7.0, max(5.0, 7.0 * LANDSCAPE_CHARS / self.chars)), 1)

    def render(self) -> str:
        frame = self.shown
        head = "".join(f"<th>{html.escape(str(c))}</th>" for c in frame.columns)
        rows = []
        for record in frame.itertuples(index=False):
            cells = "".join(f"<td>{html.escape(format_cell(v, self.digits))}</td>" for v in record)
            rows.append(f"<tr>{cells}</tr>")
        caption = f"<caption>{html.escape(self.caption)}</caption>" if self.caption else ""
        table = f"<table>{caption}<thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"
        if self.wide:
            return f'<div class="scroll wide" style="--print-font:{self.print_font}pt">{table}</div>'
        return f'<div class="scroll">{table}</div>'


@dataclass(frozen=True)
class Figure(Block):
    """A PNG image embedded as base64; build it with :func:`figure_png`."""

    png: bytes
    caption: str = ""

    def render(self) -> str:
        data = base64.b64encode(self.png).decode("ascii")
        cap = f"<figcaption>{html.escape(self.caption)}</figcaption>" if self.caption else ""
        alt = html.escape(self.caption or "plot", quote=True)
        return f'<figure><img alt="{alt}" src="data:image/png;base64,{data}"/>{cap}</figure>'


@dataclass
class Section:
    title: str
    blocks: list[Block] = field(default_factory=list)

    def render(self, anchor: str) -> str:
        """The section's HTML; ``class="landscape"`` (printed on landscape pages) when it holds a
        :attr:`Table.wide` table."""
        body = "\n".join(b.render() for b in self.blocks)
        wide = any(isinstance(b, Table) and b.wide for b in self.blocks)
        cls = ' class="landscape"' if wide else ""
        return f'<section id="{anchor}"{cls}><h2>{html.escape(self.title)}</h2>\n{body}\n</section>'


def format_cell(value: object, digits: int) -> str:
    """Floats with ``digits`` decimals; tiny non-zero values (p-values) in scientific notation."""
    if value is None or value is pd.NA:
        return "–"
    if isinstance(value, float):
        if value != value:  # nan
            return "–"
        if value != 0 and abs(value) < 10 ** (-digits):
            return f"{value:.1e}"
        return f"{value:.{digits}f}"
    return str(value)


def new_figure(width: float = 6.4, height: float = 4.0):
    """A matplotlib :class:`~matplotlib.figure.Figure` of the object-oriented API: no pyplot
    state, no backend switch, nothing to close (importing this module changes no setting).
    Constrained layout, so panels, colour bars and a legend outside them
    (:func:`.plotting.legend_outside`) each get their room."""
    from matplotlib.figure import Figure

    return Figure(figsize=(width, height), layout="constrained")


def figure_png(fig) -> bytes:
    """Render a matplotlib figure to PNG bytes."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=110, bbox_inches="tight")
    return buffer.getvalue()


def plot_text(text: object) -> str:
    r"""Text from data made safe for a matplotlib label: ``$`` escaped so mathtext never parses
    it (a model called ``a$b$`` stays literal), as :func:`html.escape` does for the page.

    >>> plot_text("cost $5 and $x$")
    'cost \\$5 and \\$x\\$'
    """
    return str(text).replace("$", r"\$")


_STYLE = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;max-width:1100px;margin:2em auto;
padding:0 1em;color:#222;line-height:1.45}
h1{border-bottom:2px solid #444}h2{border-bottom:1px solid #bbb;margin-top:2em}
table{border-collapse:collapse;margin:1em 0;font-size:.9em}
th,td{border:1px solid #ccc;padding:.25em .6em;text-align:left;vertical-align:top}
th{background:#f0f0f0}caption{caption-side:top;text-align:left;font-weight:600;padding:.3em 0}
figure{margin:1em 0}img{max-width:100%}figcaption{font-size:.85em;color:#555}
nav ul{columns:2}.scroll{overflow-x:auto;max-width:100%}
.scroll table{margin:.3em 0}.scroll{margin:.7em 0}
.scroll td:first-child,.scroll th:first-child{position:sticky;left:0;background:#fff;
box-shadow:1px 0 0 #ccc}.scroll th:first-child{background:#f0f0f0}
@page{size:A4 portrait;margin:12mm}
@page wide{size:A4 landscape;margin:8mm}
@media print{
body{max-width:none;margin:0;padding:0;font-size:10pt;line-height:1.3}
.scroll{overflow:visible;max-width:none}
table{font-size:7pt;width:100%}
th,td{padding:.1em .25em}.scroll td:first-child,.scroll th:first-child{position:static;box-shadow:none}
th{overflow-wrap:anywhere;hyphens:manual}
td{overflow-wrap:break-word}
section.landscape{page:wide}.wide table{font-size:var(--print-font,6pt)}
.wide td{overflow-wrap:anywhere}
section.landscape img{max-height:175mm}
thead{display:table-header-group}
tr,figure,img{break-inside:avoid}
h2,caption{break-after:avoid}
}
"""
"""The page's CSS. On screen a table wider than the page scrolls within its ``.scroll``
container, its first column held in view. In print (``@media print``) tables are shown whole: a smaller font, headers that
wrap, rows that do not split across pages; a section holding a wide table (``.landscape``) on
A4 landscape pages (the named page ``wide``), its wide tables (``.wide``) in the font of
:attr:`Table.print_font` (cells wrap anywhere if that does not suffice);
figures are not split across pages."""


class Report:
    """An ordered collection of sections written as one HTML file."""

    def __init__(self, title: str, *, intro: str = "") -> None:
        self.title = title
        self.intro = intro
        self.sections: list[Section] = []

    def add(self, section: Section) -> None:
        self.sections.append(section)

    def render(self) -> str:
        anchors = [f"s{i}" for i in range(len(self.sections))]
        toc = "".join(
            f'<li><a href="#{a}">{html.escape(s.title)}</a></li>'
            for a, s in zip(anchors, self.sections, strict=True)
        )
        body = "\n".join(s.render(a) for a, s in zip(anchors, self.sections, strict=True))
        intro = f"<p>{html.escape(self.intro)}</p>" if self.intro else ""
        return (
            '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            f"<title>{html.escape(self.title)}</title><style>{_STYLE}</style></head><body>"
            f"<h1>{html.escape(self.title)}</h1>{intro}<nav><ul>{toc}</ul></nav>\n{body}\n</body></html>\n"
        )
