"""Library modules stay small enough to read: no module over 400 lines, no function over 60
(code lines: the docstring does not count). ruff's complexity rules (C901, PLR09) run in
``make test`` beside this."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ROOMS = ("annotate", "judges", "analysis", "corpora", "wordplay_audit")
MAX_MODULE_LINES = 400
MAX_FUNCTION_LINES = 60


def library_files() -> list[Path]:
    return sorted(p for room in ROOMS for p in (ROOT / room).rglob("*.py"))


def function_lengths(source: str) -> list[tuple[str, int, int]]:
    """(name, first line, body lines) of every function: the signature (a command's options)
    and the docstring do not count."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        body = node.body
        first = body[0]
        if len(body) > 1 and isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
            body = body[1:]
        out.append((node.name, node.lineno, node.end_lineno - body[0].lineno + 1))
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
    assert not long, "functions over 60 body lines:\n" + "\n".join(long)


def test_the_length_check_counts_code_not_docstrings():
    body = "\n".join(f"    x{i} = {i}" for i in range(61))
    assert function_lengths(f'def f(\n    a,\n    b,\n):\n    """doc\n    more"""\n{body}\n')[0][2] == 61
