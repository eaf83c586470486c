"""Every command is parse → one call of the public API → print: a command function's body is
at most 25 lines, and the CLI imports only the public API (:mod:`wordplay_audit`), its errors,
its own output helpers, the standard library, typer and (for its memory pool) pyarrow — never
a room or a workflow module."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

CLI = Path(__file__).resolve().parents[2] / "wordplay_audit" / "cli"
MAX_BODY = 25
ALLOWED = (
    "wordplay_audit",
    "wordplay_audit.errors",
    "wordplay_audit.cli",
    # the CLI's infrastructure: the output transaction's guards (no --out onto an input, what
    # was replaced) and the one JSON conversion of --json
    "wordplay_audit.corpora.io",
    "wordplay_audit.workflow.jsonable",
)


def command_functions(tree: ast.Module) -> list[ast.FunctionDef]:
    """Functions registered as commands: decorated ``@app.command(...)``, passed to
    ``app.command(...)(f)``/``root.command(...)(f)``, or named ``*_command``/``command``."""
    registered = {
        node.args[0].id
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Call) and node.args
        and isinstance(node.args[0], ast.Name) and getattr(node.func.func, "attr", "") == "command"
    }  # fmt: skip
    out = []
    for node in tree.body:
        if not isinstance(node, ast.FunctionDef):
            continue
        decorated = any(getattr(getattr(d, "func", d), "attr", "") == "command" for d in node.decorator_list)
        if decorated or node.name in registered or node.name.endswith("_command") or node.name == "command":
            out.append(node)
    return out


def body_lines(node: ast.FunctionDef) -> int:
    body = node.body
    if len(body) > 1 and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]
    return node.end_lineno - body[0].lineno + 1


def imported(tree: ast.Module) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            found.append((node.lineno, node.module or ""))
    return found


def _allowed(name: str) -> bool:
    top = name.split(".")[0]
    # pyarrow: the command's own process-wide memory pool (cli/memory.py), never a library call's
    if top in sys.stdlib_module_names or top in ("typer", "click", "__future__", "pyarrow"):
        return True
    return name in ALLOWED or name.startswith("wordplay_audit.cli.")


MODULES = sorted(CLI.glob("*.py"))


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.name)
def test_command_bodies_are_small(path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    long = [f"{f.name}: {body_lines(f)} lines" for f in command_functions(tree) if body_lines(f) > MAX_BODY]
    assert not long, f"{path.name}: command bodies over {MAX_BODY} lines: {long}"


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.name)
def test_the_cli_imports_only_the_public_api(path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    bad = [f"line {line}: {name}" for line, name in imported(tree) if not _allowed(name)]
    assert not bad, f"{path.name} imports beyond the public API: {bad}"


def test_every_command_group_is_checked():
    names = {p.stem for p in MODULES}
    assert {"analyze", "annotate", "balderdash", "connections", "judge", "wof", "demo", "main"} <= names
    commands = [f for p in MODULES for f in command_functions(ast.parse(p.read_text(encoding="utf-8")))]
    assert len(commands) >= 28
