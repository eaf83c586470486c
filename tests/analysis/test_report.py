"""The HTML report escapes model text and embeds plots."""

import pandas as pd
import pytest

from wordplay_audit.analysis.report import (
    Bullets,
    Figure,
    Paragraph,
    Report,
    Section,
    Table,
    figure_png,
    new_figure,
    plot_text,
)
from wordplay_audit.analysis.report.outputs import markdown_table
from wordplay_audit.workflow.files import write_outputs

EVIL = '<script>alert("x")</script>'


def test_all_text_is_escaped(tmp_path):
    fig = new_figure()
    ax = fig.add_subplot()
    ax.plot([0, 1])
    report = Report(EVIL, intro=EVIL)
    report.add(
        Section(
            EVIL,
            [
                Paragraph(EVIL),
                Bullets([EVIL]),
                Table(pd.DataFrame({EVIL: [EVIL]}), caption=EVIL),
                Figure(figure_png(fig), caption=EVIL),
            ],
        )
    )
    html = report.render()
    assert "<script>" not in html
    assert html.count("&lt;script&gt;") >= 7
    assert "data:image/png;base64," in html


def test_report_module_leaves_the_plotting_backend_alone():
    import subprocess
    import sys

    code = (
        "import matplotlib; matplotlib.use('svg'); "
        "import wordplay_audit.analysis.report, wordplay_audit.analysis.agreement.section; "
        "fig = wordplay_audit.analysis.report.new_figure(); fig.add_subplot().plot([0, 1]); "
        "wordplay_audit.analysis.report.figure_png(fig); print(matplotlib.get_backend())"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "svg"


def test_dollar_signs_in_plot_text_are_not_mathtext():
    name = "model $\\foo$ costs 5"  # mathtext cannot parse an unknown command
    raw = new_figure()
    raw.add_subplot().set_title(name)
    with pytest.raises(ValueError):
        figure_png(raw)
    safe = new_figure()
    safe.add_subplot().set_title(plot_text(name))
    assert figure_png(safe).startswith(b"\x89PNG")


def test_markdown_table_and_outputs(tmp_path):
    frame = pd.DataFrame({"a": [1, 2], "b": ["x|y", "z"], "p": [0.5, float("nan")]})
    md = markdown_table(frame)
    assert md.splitlines()[0] == "| a | b | p |"
    assert "x\\|y" in md and "–" in md
    (tmp_path / "out").mkdir()
    paths = write_outputs(tmp_path / "out", tables={"t": frame}, markdown=("t",))
    assert set(paths) == {"t.csv", "t.md"}
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["t.csv", "t.md"]
