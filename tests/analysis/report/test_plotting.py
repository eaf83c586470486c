"""The report's plot style (analysis.report.plotting): a palette without repeats, text colours
that read on heatmap cells (WCAG 2 luminance and contrast), legends and grids."""

from __future__ import annotations

import pytest
from matplotlib.colors import rgb_to_hsv, to_rgb

from wordplay_audit.analysis.report import new_figure
from wordplay_audit.analysis.report.plotting import (
    MAX_SERIES,
    REFERENCE,
    contrast_ratio,
    grouped_bars,
    legend_outside,
    palette,
    panel_grid,
    qualitative,
    relative_luminance,
    text_colour,
)


@pytest.mark.parametrize("n", [0, 1, 4, 9, 10, 11, 12, 20, len(qualitative()), len(qualitative()) + 1, 150])
def test_palette_has_no_repeats(n):
    colours = palette(n)
    assert len(colours) == n
    assert len({c.lower() for c in colours}) == n


def test_palette_keeps_grey_for_the_reference_and_is_stable():
    colours = palette(len(qualitative()))
    # no grey: saturation well above 0 (the reference series and empty cells are grey)
    assert min(rgb_to_hsv(to_rgb(c))[1] for c in colours) > 0.1
    assert rgb_to_hsv(to_rgb(REFERENCE))[1] < 0.01
    # series k keeps its colour when more series are added, within the named list
    assert palette(12)[:5] == palette(5)
    # the first colours are matplotlib's default cycle (tab10) without its grey #7f7f7f
    assert palette(3) == ["#1f77b4", "#ff7f0e", "#2ca02c"]
    with pytest.raises(ValueError, match="n: expected a count"):
        palette(-1)


def test_relative_luminance_matches_hand_calculation():
    # WCAG 2: L = 0.2126 R + 0.7152 G + 0.0722 B of the linearised channels
    assert relative_luminance("white") == pytest.approx(1.0)
    assert relative_luminance("black") == pytest.approx(0.0)
    # #808080: c = 128/255 = 0.50196; ((c + 0.055)/1.055)^2.4 = 0.52792^2.4 = 0.21586
    assert relative_luminance("#808080") == pytest.approx(0.21586, abs=5e-5)
    # #08306b (the darkest Blues cell): channels 8/255 = 0.03137 → 0.03137/12.92 = 0.002428,
    # 48/255 = 0.18824 → 0.23055^2.4 = 0.029556, 107/255 = 0.41961 → 0.44987^2.4 = 0.14705;
    # L = 0.2126·0.002428 + 0.7152·0.029556 + 0.0722·0.14705 = 0.000516 + 0.021138 + 0.010617
    #   = 0.03227
    assert relative_luminance("#08306b") == pytest.approx(0.03227, abs=5e-5)
    assert contrast_ratio("white", "black") == pytest.approx(21.0)


def test_text_colour_picks_the_higher_contrast():
    # black and white contrast equally at L = sqrt(0.05 · 1.05) − 0.05 = 0.17913:
    # #777777 has L = 0.18447 (black reads better), #757575 has L = 0.17789 (white)
    assert text_colour("#777777") == "black"
    assert text_colour("#757575") == "white"
    assert text_colour("#08306b") == "white"  # navy: 1.05/0.08227 = 12.8 : 1 with white, 1.65 : 1 with black
    assert text_colour("#f7fbff") == "black"
    for colour in palette(20):
        chosen = text_colour(colour)
        other = "white" if chosen == "black" else "black"
        assert contrast_ratio(colour, chosen) >= contrast_ratio(colour, other)


def test_panel_grid_hides_unused_cells_and_keeps_their_tick_labels():
    fig = new_figure()
    axes = panel_grid(fig, 5, ncols=3)
    assert len(axes) == 5 and len(fig.axes) == 6
    assert sum(ax.get_visible() for ax in fig.axes) == 5
    fig.draw_without_rendering()
    # panel 2 (top right) has no panel below it: its x tick labels are shown
    assert any(t.get_visible() and t.get_text() for t in axes[2].get_xticklabels())


def test_grouped_bars_switches_to_one_panel_per_series_above_the_limit():
    few = [(f"m{k}", [1, 2, 3]) for k in range(MAX_SERIES - 1)]
    fig, axes = grouped_bars(["a", "b", "c"], few, reference=("ref", [1, 1, 1]))
    assert len(axes) == 1  # MAX_SERIES bars per tick, the reference included
    many = [(f"m{k}", [1, 2, 3]) for k in range(MAX_SERIES)]
    fig, axes = grouped_bars(["a", "b", "c"], many, reference=("ref", [1, 1, 1]))
    assert len(axes) == MAX_SERIES
    assert [ax.get_title() for ax in axes] == [f"m{k}" for k in range(MAX_SERIES)]
    # each panel: the reference and its own series, in that series' colour in every panel
    for k, ax in enumerate(axes):
        labels = ax.get_legend_handles_labels()[1]
        assert labels == ["ref", f"m{k}"]
    assert len(fig.legends) == 1
    # without a reference each panel's title names its one series: no legend, one x label
    fig, axes = grouped_bars(["a", "b", "c"], many + [("m9", [1, 1, 1])], xlabel="score", horizontal=True)
    assert len(axes) == MAX_SERIES + 1 and not fig.legends
    assert fig.get_supxlabel() == "score" and all(ax.get_xlabel() == "" for ax in axes)
    assert [t.get_text() for t in axes[0].get_yticklabels()] == ["a", "b", "c"]


def test_legend_outside_collects_each_label_once():
    fig = new_figure()
    for ax in panel_grid(fig, 2, ncols=2):
        ax.plot([0, 1], label="a")
        ax.plot([1, 0], label="b")
    legend = legend_outside(fig)
    assert [t.get_text() for t in legend.get_texts()] == ["a", "b"]
    assert legend_outside(new_figure()) is None
