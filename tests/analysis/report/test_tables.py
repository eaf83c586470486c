"""Tables of the HTML report on screen and in print: every table in a scroll container, the
print CSS (tables shown whole, landscape pages for the sections of wide tables), and, in
headless Chromium, that a wide table scrolls on screen and fits the printed page."""

from __future__ import annotations

import os
import re
import shutil
from html.parser import HTMLParser

import numpy as np
import pandas as pd
import pytest

from wordplay_audit.analysis.report import PORTRAIT_CHARS, Paragraph, Report, Section, Table, print_chars

EVIL = '<img src=x onerror="alert(1)">'


def _wide_frame(rows: int = 30, cols: int = 42) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    return pd.DataFrame(rng.random((rows, cols)), columns=[f"a_long_column_name_{i}" for i in range(cols)])


def _audit_like(rows: int = 30) -> pd.DataFrame:
    """The shape of the judge-audit table: ids, counts and 'value [low, high]' cells."""
    cell = "0.788 [0.725, 0.841]"
    frame = {"judge": ["openai:local-demo@prompts-v1,t=0,k=1"] * rows, "player_model": [EVIL] * rows}
    frame.update({c: [40] * rows for c in ("n", "tp", "fp", "fn", "tn", "n_unparsed", "small")})
    frame.update({m: [cell] * rows for m in ("precision", "recall", "f1", "fnr", "fpr", "kappa")})
    return pd.DataFrame(frame)


def _report() -> Report:
    report = Report("tables")
    report.add(
        Section("Narrow", [Paragraph("two columns"), Table(pd.DataFrame({"a": [1, 2], "b": ["x", "y"]}))])
    )
    report.add(Section("Audit", [Table(_audit_like(), caption="audit")]))
    report.add(Section("Wide", [Table(_wide_frame(), caption="30 × 42")]))
    return report


class _Tables(HTMLParser):
    """Each <table> with the classes of its parent element and of its section."""

    def __init__(self):
        super().__init__()
        self.stack: list[tuple[str, str]] = []
        self.found: list[tuple[str, str]] = []  # (parent classes, section classes)

    def handle_starttag(self, tag, attrs):
        classes = dict(attrs).get("class") or ""
        if tag == "table":
            section = next((c for t, c in reversed(self.stack) if t == "section"), None)
            self.found.append((self.stack[-1][1] if self.stack[-1][0] == "div" else "<no div>", section))
        self.stack.append((tag, classes))

    def handle_endtag(self, tag):
        while self.stack and self.stack.pop()[0] != tag:
            pass


def test_print_chars_matches_hand_counts():
    # per column max(longest word, cell length up to 20, name length up to 10) + 2:
    # "n": 3 + 2; "fnr": "0.788 [0.725, 0.841]" is 20 → 22; "judge_id": a word of 25 → 27
    frame = pd.DataFrame(
        {"n": [360], "fnr": ["0.788 [0.725, 0.841]"], "judge_id": ["tfidf:char_wb2-4@t=0.0021"]}
    )
    assert print_chars(frame) == 5 + 22 + 27
    assert print_chars(_audit_like()) > PORTRAIT_CHARS
    assert print_chars(pd.DataFrame({"a": [1], "b": ["x"]})) < PORTRAIT_CHARS
    # the print font of a wide table: 7 pt × 200 / chars, kept within [5, 7] pt
    ints = pd.DataFrame({f"c{i}": [100] for i in range(25)})  # 25 × (3 + 2) = 125 chars
    assert Table(ints).wide and Table(ints).print_font == 7.0  # 7 × 200 / 125 = 11.2 → 7
    ints = pd.DataFrame({f"c{i}": [100] for i in range(50)})  # 50 × 5 = 250 chars
    assert Table(ints).print_font == 5.6  # 7 × 200 / 250
    assert Table(_wide_frame()).print_font == 5.0  # 42 × (10 + 2) = 504 chars: 2.8 → 5


def test_every_table_is_in_a_scroll_container_and_wide_ones_get_landscape():
    parser = _Tables()
    parser.feed(_report().render())
    assert len(parser.found) == 3
    (narrow, narrow_section), (audit, audit_section), (wide, wide_section) = parser.found
    assert narrow.split() == ["scroll"] and narrow_section == ""
    assert audit.split() == ["scroll", "wide"] and audit_section == "landscape"
    assert wide.split() == ["scroll", "wide"] and wide_section == "landscape"


def test_print_css_shows_tables_whole():
    html = _report().render()
    style = re.search(r"<style>(.*)</style>", html, re.S).group(1)
    screen, _, rest = style.partition("@media print{")
    assert ".scroll{overflow-x:auto" in screen  # wide tables scroll on screen
    assert "@page wide{size:A4 landscape" in style
    for rule in (
        ".scroll{overflow:visible",  # not clipped on paper
        "table{font-size:7pt",
        "th{overflow-wrap:anywhere",  # headers wrap
        "section.landscape{page:wide}",
        ".wide table{font-size:var(--print-font",
        "thead{display:table-header-group}",  # header repeated on each page
        "tr,figure,img{break-inside:avoid}",
    ):
        assert rule in rest, rule


def test_model_text_in_tables_stays_escaped():
    html = _report().render()
    assert EVIL not in html and "&lt;img src=x onerror=&quot;alert(1)&quot;&gt;" in html


CHROMIUM = (
    os.environ.get("WORDPLAY_AUDIT_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
)
MM = 96 / 25.4  # CSS pixels per millimetre


def _require_browser():
    required = os.environ.get("WORDPLAY_AUDIT_REQUIRE_SHARED") == "1"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        if required:
            pytest.fail("playwright is not installed (pip install playwright)")
        pytest.skip("playwright is not installed")
    if CHROMIUM is None:
        if required:
            pytest.fail("no chromium executable (apt-get install -y chromium)")
        pytest.skip("no chromium executable")


OVERFLOW = """() => [...document.querySelectorAll('table')].map(t => ({
    wide: t.parentElement.classList.contains('wide'),
    table: t.getBoundingClientRect().width, page: document.documentElement.clientWidth,
    box: t.parentElement.clientWidth, scroll: t.parentElement.scrollWidth,
    overflow: getComputedStyle(t.parentElement).overflowX}))"""


@pytest.mark.browser
@pytest.mark.slow
def test_wide_tables_scroll_on_screen_and_fit_the_printed_page(tmp_path):
    _require_browser()
    from playwright.sync_api import sync_playwright

    page_file = tmp_path / "report.html"
    page_file.write_text(_report().render(), encoding="utf-8")
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox"])
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 900})
            page.goto(page_file.as_uri())
            screen = page.evaluate(OVERFLOW)
            # on screen the 42 columns are wider than the page: they scroll inside their box
            assert screen[2]["scroll"] > screen[2]["box"] and screen[2]["overflow"] == "auto"
            page.emulate_media(media="print")
            # the printable width of A4 portrait (210 − 2 × 12 mm) and landscape (297 − 2 × 8 mm)
            for width, wide in ((210 - 24) * MM, False), ((297 - 16) * MM, True):
                page.set_viewport_size({"width": int(width), "height": 900})
                for table in page.evaluate(OVERFLOW):
                    if table["wide"] == wide:
                        assert table["overflow"] == "visible"
                        assert table["table"] <= table["page"] + 0.5, (width, table)
            pdf = page.pdf(prefer_css_page_size=True)
        finally:
            browser.close()
    # the wide sections are printed on landscape pages: A4 landscape is 842 × 595 pt
    sizes = re.findall(rb"/MediaBox\s*\[\s*0 0 ([\d.]+) ([\d.]+)\s*\]", pdf)
    assert sizes and any(float(w) > float(h) for w, h in sizes) and any(float(w) < float(h) for w, h in sizes)
