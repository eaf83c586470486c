"""The HTML report escapes model text and embeds plots."""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402
from wordplay_audit.analysis.report import (  # noqa: E402
    Bullets,
    Figure,
    Paragraph,
    Report,
    Section,
    Table,
    figure_png,
)
from wordplay_audit.analysis.report.outputs import markdown_table, write_outputs  # noqa: E402

EVIL = '<script>alert("x")</script>'


def test_all_text_is_escaped(tmp_path):
    fig, ax = plt.subplots()
    ax.plot([0, 1])
    report = Report(EVIL, intro=EVIL)
    report.add(Section(EVIL, [Paragraph(EVIL), Bullets([EVIL]), Table(pd.DataFrame({EVIL: [EVIL]}), caption=EVIL),
                              Figure(figure_png(fig), caption=EVIL)]))
    html = report.render()
    assert "<script>" not in html
    assert html.count("&lt;script&gt;") >= 7
    assert "data:image/png;base64," in html
    path = report.write(tmp_path / "r.html")
    assert path.read_text() == html


def test_markdown_table_and_outputs(tmp_path):
    frame = pd.DataFrame({"a": [1, 2], "b": ["x|y", "z"], "p": [0.5, float("nan")]})
    md = markdown_table(frame)
    assert md.splitlines()[0] == "| a | b | p |"
    assert "x\\|y" in md and "–" in md
    paths = write_outputs(tmp_path / "out", tables={"t": frame}, markdown=("t",))
    assert set(paths) == {"t.csv", "t.md"}
    assert not [p for p in (tmp_path / "out").iterdir() if p.name.startswith(".staging")]
