"""Library modules stay small enough to read: no module over 400 lines, no function over 60
(code lines: the docstring does not count). ruff's complexity rules (C901, PLR09) run in
``make test`` beside this."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ROOMS = ("annotate", "judges", "analysis", "corpora", "wordplay_audit")
MAX_MODULE_LINES = 400
MAX_FUNCTION_LINES = 60


def library_files() -> list[Path]:
    return sorted(p for room in ROOMS for p in (ROOT / room).rglob("*.py"))


def function_lengths(source: str) -> list[tuple[str, int, int]]:
    """(name, first line, code lines) of every function, docstring lines left out."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        length = node.end_lineno - node.lineno + 1
        body = node.body
        if (
            body
            and isinstance(body[0], ast.Expr)
            and isinstance(getattr(body[0], "value", None), ast.Constant)
        ):
            doc = body[0]
            length -= doc.end_lineno - doc.lineno + 1
        out.append((node.name, node.lineno, length))
    return out


def test_no_library_module_is_too_long():
    long = [
        f"{p.relative_to(ROOT)}: {n}"
        for p in library_files()
        if (n := len(p.read_text().splitlines())) > MAX_MODULE_LINES
    ]
    assert not long, "modules over 400 lines:\n" + "\n".join(long)


def test_no_library_function_is_too_long():
    long = [
        f"{p.relative_to(ROOT)}:{line} {name}: {n} lines"
        for p in library_files()
        for name, line, n in function_lengths(p.read_text())
        if n > MAX_FUNCTION_LINES
    ]
    assert not long, "functions over 60 code lines:\n" + "\n".join(long)


def test_the_length_check_counts_code_not_docstrings():
    body = "\n".join(f"    x{i} = {i}" for i in range(61))
    assert function_lengths(f'def f():\n    """doc\n    more"""\n{body}\n')[0][2] == 62
