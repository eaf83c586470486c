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

import pandas as pd

__all__ = [
    "Block",
    "Bullets",
    "Figure",
    "Paragraph",
    "Report",
    "Section",
    "Table",
    "figure_png",
    "format_cell",
    "new_figure",
    "plot_text",
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


@dataclass(frozen=True)
class Table(Block):
    """A DataFrame shown as a table; cells are escaped, floats printed with ``digits``."""

    frame: pd.DataFrame
    caption: str = ""
    digits: int = 3
    index: bool = False

    def render(self) -> str:
        frame = self.frame.reset_index() if self.index else self.frame
        head = "".join(f"<th>{html.escape(str(c))}</th>" for c in frame.columns)
        rows = []
        for record in frame.itertuples(index=False):
            cells = "".join(f"<td>{html.escape(format_cell(v, self.digits))}</td>" for v in record)
            rows.append(f"<tr>{cells}</tr>")
        caption = f"<caption>{html.escape(self.caption)}</caption>" if self.caption else ""
        table = f"<table>{caption}<thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"
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
        body = "\n".join(b.render() for b in self.blocks)
        return f'<section id="{anchor}"><h2>{html.escape(self.title)}</h2>\n{body}\n</section>'


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
"""


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
