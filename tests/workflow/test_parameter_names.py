"""Errors of the library name Python parameters (``overlap: expected …``), never command-line
flags: the CLI maps a parameter to its flag (``cli.main.cli_message``). Checked on the source
(every ``InputError``/``ParameterError``/``check_choice`` of the rooms and the workflow layer)
and at run time on the CLI's mapping."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from wordplay_audit.cli.main import cli_message

ROOT = Path(__file__).resolve().parents[2]
LIBRARY = ("annotate", "judges", "analysis", "corpora", "wordplay_audit/workflow")
RAISERS = {"InputError", "ParameterError", "FatalJudgeError", "check_choice", "check_number"}


def _first_text(node: ast.expr) -> str | None:
    """The literal start of a message argument (a string or an f-string's first part)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr) and node.values and isinstance(node.values[0], ast.Constant):
        return str(node.values[0].value)
    return None


def flag_messages(source: str) -> list[tuple[int, str]]:
    """(line, text) of every error message or checked parameter name starting with ``--``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call) or not node.args:
            continue
        name = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", "")
        if name in RAISERS:
            text = _first_text(node.args[0])
            if text is not None and text.lstrip().startswith("--"):
                found.append((node.lineno, text))
    return found


def test_no_library_message_begins_with_a_flag():
    bad = [
        f"{path.relative_to(ROOT)}:{line}: {text!r}"
        for folder in LIBRARY
        for path in sorted((ROOT / folder).rglob("*.py"))
        for line, text in flag_messages(path.read_text(encoding="utf-8"))
    ]
    assert not bad, "library messages naming CLI flags:\n" + "\n".join(bad)


@pytest.mark.parametrize(
    ("source", "bad"),
    [
        ('raise ParameterError(f"--overlap: expected 1..{k}")', True),
        ('check_choice("--method", m, ("a",))', True),
        ('raise ParameterError(f"overlap: expected 1..{k}")', False),
        ('raise InputError(f"{path} line {n}: bad")', False),
    ],
)
def test_the_check_finds_a_flag_in_a_synthetic_message(source, bad):
    assert bool(flag_messages(source)) is bad


def test_the_cli_names_the_flag_of_a_library_parameter(run_cli, tmp_path):
    items = tmp_path / "items.csv"
    items.write_text("item_id,game,kind,context,reference,candidate\na,g,guess,c,x,y\nb,g,guess,c,x,y\n")
    code, _out, err = run_cli("annotate", "plan", str(items), "--n", "2", "--raters", "ann,bob", "--overlap", "5",
                              "--out", str(tmp_path / "camp"))  # fmt: skip
    assert code == 2
    assert err.startswith("error: --overlap: expected 1..2"), err


def test_mapping_leaves_messages_alone_that_do_not_start_with_a_known_parameter():
    flags = {"labels": "LABELS", "overlap": "--overlap"}
    assert cli_message("labels.csv line 3: bad", flags) == "labels.csv line 3: bad"
    assert cli_message("budget: 3", flags) == "budget: 3"
    assert cli_message("overlap: 3", flags) == "--overlap: 3"
