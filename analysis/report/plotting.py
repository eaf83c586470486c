"""The report's plot style, shared by every plot: one colour palette, text colours that read on
heatmap cells, legends outside the data, grids of small multiples.

All of it works on matplotlib's object-oriented API (:func:`~wordplay_audit.analysis.report.new_figure`):
no pyplot state, no backend switch, no change to ``rcParams``. matplotlib is imported when a
function here first needs it: importing this module costs a command that draws nothing.

* :func:`palette` gives ``n`` colours that do not repeat within a plot (greys left out: they are
  kept for a reference series, :data:`REFERENCE`, and for missing cells).
* :func:`text_colour` picks black or white for text on a background by the WCAG 2 relative
  luminance; :func:`label_cells` writes the numbers of a heatmap with it.
* :func:`legend_outside` places one figure legend below (or beside) the panels; constrained
  layout reserves its room, so no legend covers data.
* A panel holds at most :data:`MAX_SERIES` series; above that a plot becomes small multiples,
  one panel per series (:func:`panel_grid`, :func:`grouped_bars`).

>>> palette(3)
['#1f77b4', '#ff7f0e', '#2ca02c']
>>> text_colour("#08306b"), text_colour("#f7fbff")
('white', 'black')
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import cache

import numpy as np

from wordplay_audit.analysis.report import new_figure, plot_text

__all__ = [
    "DIVERGING",
    "MAX_SERIES",
    "REFERENCE",
    "SEQUENTIAL",
    "contrast_ratio",
    "axis_labels",
    "grouped_bars",
    "label_cells",
    "legend_outside",
    "palette",
    "panel_grid",
    "qualitative",
    "relative_luminance",
    "text_colour",
]

MAX_SERIES = 4
"""The most series one panel holds; a plot with more is drawn as small multiples."""

REFERENCE = "#8a8a8a"
"""The colour of a reference series (e.g. English letter frequency); no palette colour is grey."""

SEQUENTIAL = "Blues"
"""Colour map of heatmaps of shares and counts (0 → white)."""

DIVERGING = "RdBu"
"""Colour map of heatmaps of a statistic centred on 0 (κ from −1 to 1)."""


@cache
def qualitative() -> tuple[str, ...]:
    """The palette's colours in order, :func:`palette` takes the first ``n`` while they suffice:
    matplotlib's tab20 (its ten dark shades, which are tab10, then the ten light ones), then
    tab20b and tab20c by shade; greys dropped, each colour once."""
    from matplotlib import colormaps
    from matplotlib.colors import rgb_to_hsv, to_hex, to_rgb

    tab20 = [to_hex(c) for c in colormaps["tab20"].colors]
    ordered = tab20[0::2] + tab20[1::2]
    for name in ("tab20b", "tab20c"):
        shades = [to_hex(c) for c in colormaps[name].colors]
        ordered += [shades[hue * 4 + shade] for shade in range(4) for hue in range(5)]
    kept: list[str] = []
    for colour in ordered:
        if rgb_to_hsv(to_rgb(colour))[1] > 0.1 and colour not in kept:
            kept.append(colour)
    return tuple(kept)


def palette(n: int) -> list[str]:
    """``n`` colours, none repeated, as hex strings: the first ``n`` of :func:`qualitative`
    (the first nine are matplotlib's default cycle without its grey); beyond its length, ``n``
    hues evenly spaced around the colour wheel (distinct up to several hundred series)."""
    from matplotlib.colors import hsv_to_rgb, to_hex

    if n < 0:
        raise ValueError(f"n: expected a count ≥ 0, got {n}")
    colours = qualitative()
    if n <= len(colours):
        return list(colours[:n])
    return [to_hex(hsv_to_rgb((i / n, 0.7, 0.85))) for i in range(n)]


def relative_luminance(colour) -> float:
    """WCAG 2 relative luminance of a matplotlib colour: 0.2126 R + 0.7152 G + 0.0722 B of the
    linearised sRGB channels (c/12.92 up to 0.04045, else ((c + 0.055)/1.055)^2.4)."""
    from matplotlib.colors import to_rgb

    channels = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in to_rgb(colour)]
    return 0.2126 * channels[0] + 0.7152 * channels[1] + 0.0722 * channels[2]


def contrast_ratio(a, b) -> float:
    """WCAG 2 contrast ratio (L_light + 0.05)/(L_dark + 0.05), from 1 to 21."""
    la, lb = relative_luminance(a), relative_luminance(b)
    return (max(la, lb) + 0.05) / (min(la, lb) + 0.05)


def text_colour(background) -> str:
    """``"black"`` or ``"white"``, whichever contrasts more with ``background``."""
    return "black" if contrast_ratio(background, "black") >= contrast_ratio(background, "white") else "white"


def label_cells(ax, image, values: np.ndarray, texts: Sequence[Sequence[str | None]], **kwargs) -> None:
    """Write ``texts[i][j]`` on cell (i, j) of the heatmap ``image`` (an ``imshow`` result) in
    the text colour that reads on the cell's colour; a None text or a nan value is left blank."""
    for i, row in enumerate(texts):
        for j, text in enumerate(row):
            value = values[i, j]
            if text is None or not math.isfinite(value):
                continue
            cell = image.cmap(image.norm(value))
            ax.text(j, i, text, ha="center", va="center", color=text_colour(cell), **kwargs)


def legend_outside(
    fig, handles=None, labels=None, *, where: str = "below", ncols: int | None = None, **kwargs
):
    """One legend for the whole figure, outside every panel: centred below them
    (``where="below"``, in rows of ``ncols`` entries, at most 4 a row by default) or at the
    upper right (``"right"``, one column by default; keep a ``suptitle`` short beside it).
    Without ``handles``, the labelled artists of all panels, each label once. Returns the
    legend (None when nothing is labelled)."""
    if handles is None:
        seen: dict[str, object] = {}
        for ax in fig.axes:
            for handle, label in zip(*ax.get_legend_handles_labels(), strict=True):
                seen.setdefault(label, handle)
        labels, handles = list(seen), list(seen.values())
    if not handles:
        return None
    loc = {"below": "outside lower center", "right": "outside right upper"}[where]
    if ncols is None:
        ncols = min(4, len(handles)) if where == "below" else 1
    kwargs.setdefault("fontsize", "small")
    return fig.legend(handles, labels, loc=loc, ncols=ncols, **kwargs)


def panel_grid(fig, n: int, *, ncols: int = 3, sharex: bool = True, sharey: bool = True) -> list:
    """``n`` panels in rows of at most ``ncols``, a gap between columns that keeps their tick
    labels apart; the unused cells of the last row hidden and the panels above them given their
    own x tick labels."""
    cols = max(1, min(ncols, n))
    rows = math.ceil(n / cols) if n else 1
    engine = fig.get_layout_engine()
    if cols > 1 and engine is not None and hasattr(engine, "set"):
        engine.set(wspace=0.06)
    axes = fig.subplots(rows, cols, squeeze=False, sharex=sharex, sharey=sharey).ravel()
    for ax in axes[n:]:
        ax.set_visible(False)
    for i in range(max(0, n - cols), n):
        axes[i].xaxis.set_tick_params(labelbottom=True)
    return list(axes[:n])


def axis_labels(axes: Sequence, ncols: int, *, xlabel: str | None = None, ylabel: str | None = None) -> None:
    """Label the x axis of the bottom panel of each column and the y axis of the first panel
    of each row of a :func:`panel_grid` of ``ncols`` columns."""
    cols = max(1, min(ncols, len(axes)))
    for i, ax in enumerate(axes):
        if xlabel is not None and i + cols >= len(axes):
            ax.set_xlabel(xlabel)
        if ylabel is not None and i % cols == 0:
            ax.set_ylabel(ylabel)


def grouped_bars(
    ticks: Sequence[str],
    series: Sequence[tuple[str, Sequence[float]]],
    *,
    reference: tuple[str, Sequence[float]] | None = None,
    panel: tuple[float, float] = (6.4, 3.6),
    ncols: int = 3,
    xlabel: str | None = None,
    ylabel: str | None = None,
    horizontal: bool = False,
):
    """Bars per tick for each ``(name, values)`` in ``series``, with an optional ``reference``
    series in :data:`REFERENCE` grey. Side by side in one panel while it holds at most
    :data:`MAX_SERIES` bars per tick (the reference counts); otherwise one panel per series,
    each beside the reference, in rows of ``ncols`` panels that share both axes (the panel's
    title names its series). Colours from :func:`palette`, one per series in every panel; the
    legend outside (none for panels of one series each without a reference: their titles name
    them); ``xlabel`` and ``ylabel`` on the outer panels, or once for the figure when there is
    no legend. ``horizontal`` draws the bars sideways, the ticks down the y axis from the top
    (for long tick labels). Returns the figure and its panels."""
    colours = palette(len(series))
    shown = len(series) + (reference is not None)
    x = np.arange(len(ticks))
    if shown <= MAX_SERIES:
        fig = new_figure(*panel)
        groups = [list(range(len(series)))]
        axes = [fig.add_subplot()]
        cols = 1
    else:
        cols = min(ncols, len(series))
        rows = math.ceil(len(series) / cols)
        fig = new_figure(panel[0] if cols == 1 else min(9.6, 3.4 * cols), panel[1] * 0.8 * rows)
        groups = [[k] for k in range(len(series))]
        axes = panel_grid(fig, len(series), ncols=cols)
    for ax, members in zip(axes, groups, strict=True):
        bars = [(reference, REFERENCE)] if reference is not None else []
        bars += [(series[k], colours[k]) for k in members]
        width = 0.8 / max(len(bars), 1)
        for pos, ((name, values), colour) in enumerate(bars):
            offset = (pos - (len(bars) - 1) / 2) * width
            draw = ax.barh if horizontal else ax.bar
            draw(x + offset, np.asarray(values, dtype=float), width, color=colour, label=plot_text(name))
        if horizontal:
            ax.set_yticks(x, [plot_text(t) for t in ticks])
            ax.set_ylim(len(ticks) - 0.5, -0.5)
        else:
            ax.set_xticks(x, [plot_text(t) for t in ticks])
        if len(groups) > 1:
            ax.set_title(plot_text(series[members[0]][0]), fontsize="medium")
    if len(groups) > 1 and reference is None:  # each panel's title names its one series
        if xlabel is not None:
            fig.supxlabel(xlabel, fontsize="medium")
        if ylabel is not None:
            fig.supylabel(ylabel, fontsize="medium")
    else:
        axis_labels(axes, cols, xlabel=xlabel, ylabel=ylabel)
        legend_outside(fig)
    return fig, axes
