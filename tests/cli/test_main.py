"""The console entry point (``wordplay_audit/cli/main.py``) across commands: a BOM is accepted
wherever text is read, stderr of a real process is one line, and an OSError left to the last
resort reads like every other message."""

from __future__ import annotations

import pytest

from tests.support import bad_inputs


def test_a_bom_is_accepted_everywhere_text_is_read(good, tmp_path):
    labels = tmp_path / "labels.csv"
    labels.write_bytes(b"\xef\xbb\xbf" + bad_inputs.LABELS.encode())
    assert (
        bad_inputs.run(
            "analyze", "aggregate", str(labels), "--out", str(tmp_path / "c.csv"), cwd=tmp_path
        ).returncode
        == 0
    )
    export = bad_inputs.copy_input(good["export"], tmp_path / "export")
    rounds = export / "rounds.jsonl"
    rounds.write_bytes(b"\xef\xbb\xbf" + rounds.read_bytes())
    result = bad_inputs.run("balderdash", "metrics", str(export), "--json", cwd=tmp_path)
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize(
    "args",
    [
        ["balderdash", "metrics", "/nonexistent"],
        ["analyze", "agreement", "/nonexistent.csv"],
        ["demo", "--seed", "-1"],
    ],
)
def test_stderr_is_one_line_from_a_real_process(tmp_path, args):
    result = bad_inputs.run(*args, cwd=tmp_path)
    assert result.returncode == 2
    assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr


@pytest.mark.parametrize(
    ("exc", "expected"),
    [
        (PermissionError(13, "Permission denied", "x.csv"), "error: x.csv: permission denied\n"),
        (
            FileNotFoundError(2, "No such file or directory", "y.csv"),
            "error: y.csv: no such file or directory\n",
        ),
        (IsADirectoryError(21, "Is a directory", "d"), "error: d: is a folder, expected a file\n"),
    ],
)
def test_a_system_error_left_to_the_cli_reads_like_the_others(capsys, exc, expected):
    """The last resort for an OSError no reader turned into an InputError: the system's message
    starts lower-case after the file (as every other message does), a folder is called a folder."""
    from wordplay_audit.cli.main import _handle

    assert _handle(exc) == 2
    assert capsys.readouterr().err == expected


def test_ctrl_c_while_the_command_line_imports_is_one_line_and_exit_130(tmp_path):
    """A Ctrl-C that lands while ``wordplay-audit`` is still importing (here: raised by an import
    hook the moment typer is imported) ends like every interrupt: one line, exit code 130, no
    traceback — through the console script's function and ``python -m wordplay_audit``."""
    import subprocess
    import sys

    hook = (
        "import sys\n"
        "class Interrupt:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name == 'typer':\n"
        "            raise KeyboardInterrupt\n"
        "sys.meta_path.insert(0, Interrupt())\n"
    )
    for launch in (
        [
            sys.executable,
            "-c",
            hook + "from wordplay_audit.cli import run\nraise SystemExit(run())",
            "--help",
        ],
        [
            sys.executable,
            "-c",
            hook + "import runpy\nrunpy.run_module('wordplay_audit', run_name='__main__')",
        ],
    ):
        done = subprocess.run(launch, capture_output=True, text=True, cwd=tmp_path, timeout=60)
        assert done.returncode == 130, done.stderr
        assert done.stderr == "error: interrupted; no output was changed\n"


def test_ctrl_c_while_the_commands_are_registered_is_one_line(monkeypatch, capsys):
    from wordplay_audit.cli import main as cli_main

    def interrupted():
        raise KeyboardInterrupt

    monkeypatch.setattr(cli_main, "build_app", interrupted)
    assert cli_main.main(["--help"]) == 130
    assert capsys.readouterr().err == "error: interrupted; no output was changed\n"


def test_the_console_script_is_the_interrupt_safe_entry():
    import tomllib
    from pathlib import Path

    scripts = tomllib.loads((Path(__file__).parents[2] / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts == {"wordplay-audit": "wordplay_audit.cli:run"}


def test_every_function_a_message_may_name_has_its_command():
    """``cli_message`` turns `wa.<function>` in a library message into the command doing it: every
    entry names a public function and a command the CLI has."""
    import typer.main

    import wordplay_audit as wa
    from wordplay_audit.cli.main import API_COMMANDS, build_app

    group = typer.main.get_command(build_app())
    for function, command in API_COMMANDS.items():
        assert function in wa.API, function
        where = group
        for word in command.split():
            where = where.commands[word] if hasattr(where, "commands") else None
            assert where is not None, command
