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
