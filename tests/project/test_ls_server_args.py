"""The test server's command line, parsed by Label Studio's own argument parser.

A CI run failed when a random password began with "-": ``--password -x…`` made argparse read
the value as an option. The arguments are now ``--opt=value``; this checks that Label Studio
reads back exactly the values given, for values that begin with "-".
"""

from __future__ import annotations

import json
import subprocess

import pytest

from tests.support import ls_server  # the conftest plugin

pytestmark = pytest.mark.server  # runs Label Studio's own parser, in its venv

PARSE = """
import json, sys
from label_studio.core.argparser import parse_input_args
a = parse_input_args(sys.argv[1:])
print(json.dumps({k: getattr(a, k) for k in ("command", "username", "password", "user_token", "port", "internal_host", "data_dir")}))
"""


def test_values_beginning_with_a_dash_reach_label_studio(tmp_path):
    python = ls_server.LS_BIN.parent / "python"
    if not python.exists():
        ls_server._require_server()
    args = ls_server.server_args(8123, tmp_path, "admin@example.org", "-Xy_z-1", "-tok")
    result = subprocess.run(
        [str(python), "-c", PARSE, *args[1:]], capture_output=True, text=True, timeout=120, check=False
    )
    assert result.returncode == 0, result.stderr[-2000:]
    parsed = json.loads(result.stdout.strip().splitlines()[-1])
    assert parsed == {
        "command": "start",
        "username": "admin@example.org",
        "password": "-Xy_z-1",
        "user_token": "-tok",
        "port": 8123,
        "internal_host": "127.0.0.1",
        "data_dir": str(tmp_path),
    }


def test_the_old_spaced_form_fails_for_such_a_password(tmp_path):
    """The failure the fix addresses, reproduced: the spaced form cannot carry "-Xy"."""
    python = ls_server.LS_BIN.parent / "python"
    if not python.exists():
        ls_server._require_server()
    result = subprocess.run(
        [str(python), "-c", PARSE, "start", "--password", "-Xy"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 2
    assert "--password: expected one argument" in result.stderr
