"""The real judge server for the tests marked ``realjudge`` (run by ``make test-all``).

:func:`real_judge` starts llama-cpp-python's server with SmolLM2-135M-Instruct
(:mod:`wordplay_audit.judges.real_server`) once per session on a free port of 127.0.0.1, waits
for ``GET /v1/models`` and stops it by its process id at the end. Its venv is
``var/judge-venv`` (``make judge-venv``, a dependency of ``make test-all``; another one with
``WORDPLAY_AUDIT_JUDGE_VENV``). Where it is absent the tests skip with the reason shown;
``WORDPLAY_AUDIT_REQUIRE_REAL_JUDGE=1`` or ``WORDPLAY_AUDIT_REQUIRE_SHARED=1`` (set by
``.ci/run``) turns that into a failure.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
JUDGE_VENV = Path(os.environ.get("WORDPLAY_AUDIT_JUDGE_VENV", REPO / "var" / "judge-venv"))


@pytest.fixture(scope="session")
def real_judge(tmp_path_factory):
    """A running real judge server: ``.base_url``, model name ``smollm2``, ``.log``."""
    from wordplay_audit.judges.real_server import RealServer, gguf_path

    try:
        gguf_path(JUDGE_VENV)
    except (FileNotFoundError, OSError) as exc:
        message = f"real judge server not installed ({exc})"
        if "1" in (
            os.environ.get("WORDPLAY_AUDIT_REQUIRE_REAL_JUDGE"),
            os.environ.get("WORDPLAY_AUDIT_REQUIRE_SHARED"),
        ):
            pytest.fail(message + "; a REQUIRE switch forbids skipping")
        pytest.skip(message)
    log = tmp_path_factory.mktemp("real-judge") / "server.log"
    with RealServer(JUDGE_VENV, log=log) as server:
        yield server
