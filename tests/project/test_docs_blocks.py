"""Every fenced ``python`` block of the docs (docs/*.md, docs/methods/*.md) runs, and every link
between the docs resolves.

A block of ``>>>`` lines runs as a doctest (its printed output must match); any other block runs
as an example script. Each runs in its own empty folder. A block that cannot run here (a server,
the network) says so in an HTML comment on the line before its fence,
``<!-- not run: needs a Label Studio server -->``; it is reported as skipped with that reason,
and there may be only a few. A block that reads ``WORDPLAY_AUDIT_SHARED`` needs the outside
data (skipped without it, a failure under ``WORDPLAY_AUDIT_REQUIRE_SHARED=1``). A block that
takes more than a few seconds says ``<!-- slow -->`` the same way and runs in ``make test-all``
only.

README.md's examples are doctests run by tests/project/test_doctests.py (it has no fenced
``python`` block); its links are checked here with the docs'.
"""

from __future__ import annotations

import doctest
import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = sorted([*ROOT.glob("docs/*.md"), *ROOT.glob("docs/methods/*.md")])
FENCE = re.compile(r"^```python[ \t]*\n(.*?)^```[ \t]*$", re.M | re.S)
NOTE = re.compile(r"<!--\s*(not run:\s*(?P<why>[^>]*?)|slow)\s*-->\s*$")
MOST_NOT_RUN = 3
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


@dataclass(frozen=True)
class Block:
    page: Path
    line: int  # of the first code line
    code: str
    not_run: str | None  # the reason, when the block is not run
    slow: bool

    @property
    def name(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"

    @property
    def is_doctest(self) -> bool:
        return self.code.lstrip().startswith(">>>")


def blocks() -> list[Block]:
    found = []
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        for match in FENCE.finditer(text):
            before = text[: match.start()].rstrip("\n").rsplit("\n", 1)[-1]
            note = NOTE.search(before)
            found.append(
                Block(
                    page=page,
                    line=text.count("\n", 0, match.start(1)) + 1,
                    code=match.group(1),
                    not_run=(note.group("why") or "no reason given")
                    if note and note.group(1) != "slow"
                    else None,
                    slow=bool(note) and note.group(1) == "slow",
                )
            )
    return found


BLOCKS = blocks()


def _param(block: Block):
    marks = [pytest.mark.slow] if block.slow else []
    if "WORDPLAY_AUDIT_SHARED" in block.code:
        marks.append(pytest.mark.shared)
    return pytest.param(block, id=block.name, marks=marks)


@pytest.mark.parametrize("block", [_param(b) for b in BLOCKS])
def test_block_runs(block, request, tmp_path, monkeypatch):
    if block.not_run is not None:
        pytest.skip(f"not run: {block.not_run}")
    if "WORDPLAY_AUDIT_SHARED" in block.code:
        monkeypatch.setenv("WORDPLAY_AUDIT_SHARED", str(request.getfixturevalue("connections_dir").parent))
    monkeypatch.chdir(tmp_path)
    if block.is_doctest:
        test = doctest.DocTestParser().get_doctest(
            block.code, {}, block.name, str(block.page), block.line - 1
        )
        runner = doctest.DocTestRunner(optionflags=FLAGS)
        report: list[str] = []
        runner.run(test, out=report.append)
        assert runner.failures == 0, "".join(report)
        assert runner.tries > 0
    else:
        exec(compile(block.code, block.name, "exec"), {"__name__": "__main__"})


def test_the_docs_have_blocks_and_few_are_not_run():
    not_run = [f"{b.name} ({b.not_run})" for b in BLOCKS if b.not_run is not None]
    assert len(BLOCKS) >= 9 and len(not_run) <= MOST_NOT_RUN, not_run


def test_a_block_is_all_doctest_or_none():
    """A script with a stray ``>>>`` line (or a doctest with code outside it) would half run."""
    mixed = []
    for block in BLOCKS:
        lines = [line for line in block.code.splitlines() if line.strip()]
        prompts = sum(line.lstrip().startswith(">>>") for line in lines)
        if prompts and not block.is_doctest or block.is_doctest and not lines[0].lstrip().startswith(">>>"):
            mixed.append(block.name)
    assert not mixed, mixed


# ---- links between the pages ----

LINK = re.compile(r"\]\((?P<target>[^)\s]+)\)")
MENTION = re.compile(r"(?<![\w/.-])(?:docs/|\.\./)?(?:methods/)?[A-Za-z][\w-]*\.md(?:#[\w-]+)?(?![\w/])")
SECTION = re.compile(r"(?P<page>[\w/.-]+\.md), \"(?P<title>[^\"]+)\"")
# a path into the repository: a room, the app, the tests, the benchmarks or the examples
FILE = re.compile(
    r"(?<![\w/.-])(?:analysis|annotate|corpora|judges|wordplay_audit|tests|benchmarks|docs/examples)/[\w/.-]*\w\.(?:py|csv|json|jsonl|md)\b"
)
FENCED = re.compile(r"^```.*?^```", re.M | re.S)
CODE = re.compile(r"`[^`\n]*`")


def slug(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, markup and punctuation dropped, spaces → ``-``."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading.strip().lower())
    kept = "".join(c for c in text if c in " -_" or unicodedata.category(c)[0] in "LN")
    return kept.replace(" ", "-")


def headings(page: Path) -> list[str]:
    text = FENCED.sub("", page.read_text(encoding="utf-8"))
    return re.findall(r"^#{1,6}\s+(.+?)\s*#*\s*$", text, re.M)


def anchors(page: Path) -> set[str]:
    seen: dict[str, int] = {}
    out = set()
    for heading in headings(page):
        base = slug(heading)
        n = seen.get(base, 0)
        seen[base] = n + 1
        out.add(base if n == 0 else f"{base}-{n}")
    return out


def resolve(page: Path, target: str) -> Path | None:
    """The file a link or a mention names: beside the page, in docs/, or from the repository."""
    for base in (page.parent, ROOT / "docs", ROOT):
        path = (base / target).resolve()
        if path.exists():
            return path
    return None


def _broken(page: Path) -> list[str]:
    text = FENCED.sub("", page.read_text(encoding="utf-8"))
    where = page.relative_to(ROOT)
    refs = [m.group("target") for m in LINK.finditer(CODE.sub("", text))] + MENTION.findall(text)
    broken = []
    for ref in refs:
        if re.match(r"[a-z]+:", ref):
            continue  # an outside address
        path_part, _, anchor = ref.partition("#")
        target = resolve(page, path_part) if path_part else page
        if target is None:
            broken.append(f"{where}: {ref} (no such file)")
        elif anchor and target.suffix == ".md" and anchor not in anchors(target):
            broken.append(f"{where}: {ref} (no such section)")
    for match in SECTION.finditer(text):
        target = resolve(page, match.group("page"))
        title = " ".join(match.group("title").lower().split())
        if target is not None and not any(title in h.lower() for h in headings(target)):
            broken.append(f"{where}: {match.group(0)} (no such section)")
    broken += [f"{where}: {path} (no such file)" for path in FILE.findall(text) if not (ROOT / path).exists()]
    return broken


def test_every_link_and_mention_between_pages_resolves():
    """Links (``[…](FILE.md#anchor)``), mentions (``docs/X.md``, ``X.md, "Section"``) and the
    repository files the pages name (``tests/…/test_x.py``, ``benchmarks/…``) all exist."""
    broken = [line for page in [*PAGES, ROOT / "README.md"] for line in _broken(page)]
    assert not broken, "\n".join(dict.fromkeys(broken))


CODE_MENTION = re.compile(r"docs/[\w/-]+\.md(?:, \"(?P<title>[^\"]+)\")?")


def test_the_docs_pages_the_code_names_exist():
    """A docstring or message that sends the reader to ``docs/X.md`` (or ``docs/X.md, "Section"``)."""
    broken = []
    for room in ("analysis", "annotate", "corpora", "judges", "wordplay_audit", "benchmarks"):
        for path in sorted((ROOT / room).rglob("*.py")):
            for match in CODE_MENTION.finditer(path.read_text(encoding="utf-8")):
                page = ROOT / match.group(0).split(",")[0]
                title = " ".join((match.group("title") or "").lower().split())
                if not page.is_file() or title and not any(title in h.lower() for h in headings(page)):
                    broken.append(f"{path.relative_to(ROOT)}: {match.group(0)}")
    assert not broken, "\n".join(broken)


def test_every_page_is_at_most_400_lines():
    long = [
        f"{p.relative_to(ROOT)}: {n}"
        for p in PAGES
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > 400
    ]
    assert not long, long
