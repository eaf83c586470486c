"""A real Label Studio server for the tests (pytest plugin, loaded from ``conftest.py``).

The server lives in its own virtual environment (``var/labelstudio-venv``, built by
``make labelstudio-venv``, which ``make test-all`` depends on). The session fixture
:func:`label_studio` starts it once on a free port of 127.0.0.1 with a throw-away data folder,
waits on ``GET /health`` (the first start runs the migrations: 60–90 s), and stops it by its
process id at the end of the session. ``label-studio --version`` is never called: it starts a
server too.

Where the venv is absent the tests that need the server skip with the reason shown;
``WORDPLAY_AUDIT_REQUIRE_LABEL_STUDIO=1`` (or ``WORDPLAY_AUDIT_REQUIRE_SHARED=1``, set by
``.ci/run``) turns that into a failure.
"""

from __future__ import annotations

import os
import secrets
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
LS_BIN = Path(
    os.environ.get("WORDPLAY_AUDIT_LABEL_STUDIO", REPO / "var" / "labelstudio-venv" / "bin" / "label-studio")
)
START_TIMEOUT = float(os.environ.get("WORDPLAY_AUDIT_LABEL_STUDIO_TIMEOUT", "240"))


@dataclass(frozen=True)
class LabelStudioServer:
    url: str
    token: str
    username: str
    password: str
    pid: int
    data_dir: Path


def free_port() -> int:
    """A port of 127.0.0.1 nobody listens on (Label Studio silently takes the next one if busy)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def port_is_free(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        return sock.connect_ex(("127.0.0.1", port)) != 0


def _healthy(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/health", timeout=2) as response:  # noqa: S310 (127.0.0.1)
            return response.status == 200
    except (urllib.error.URLError, OSError):
        return False


def _require_server() -> None:
    if LS_BIN.exists():
        return
    message = f"Label Studio not installed at {LS_BIN} (run `make labelstudio-venv`)"
    if "1" in (
        os.environ.get("WORDPLAY_AUDIT_REQUIRE_LABEL_STUDIO"),
        os.environ.get("WORDPLAY_AUDIT_REQUIRE_SHARED"),
    ):
        pytest.fail(message + "; a REQUIRE switch forbids skipping")
    pytest.skip(message)


def server_args(port: int, data_dir: Path, username: str, password: str, token: str) -> list[str]:
    """The ``label-studio start`` command line; ``--opt=value`` so a value may begin with "-"."""
    return [
        str(LS_BIN),
        "start",
        "--no-browser",
        "--internal-host=127.0.0.1",
        f"--port={port}",
        f"--data-dir={data_dir}",
        f"--username={username}",
        f"--password={password}",
        f"--user-token={token}",
    ]


def start_server(data_dir: Path) -> tuple[subprocess.Popen, LabelStudioServer]:
    port = free_port()
    if not port_is_free(port):  # pragma: no cover - a race with another process
        raise RuntimeError(f"port {port} became busy")
    token = secrets.token_hex(20)
    # A random password may begin with "-" (token_urlsafe's alphabet has it), which argparse
    # takes for an option; hex after a letter never does, and "--opt=value" binds it either way.
    username, password = "admin@example.org", "p" + secrets.token_hex(12)
    env = {
        **os.environ,
        "LABEL_STUDIO_BASE_DATA_DIR": str(data_dir),
        "LABEL_STUDIO_ENABLE_LEGACY_API_TOKEN": "true",
        "SENTRY_DSN": "",
        "LATEST_VERSION_CHECK": "false",
        "COLLECT_ANALYTICS": "false",
        "DJANGO_DB": "sqlite",
    }
    for name in (
        "LABEL_STUDIO_URL",
        "LABEL_STUDIO_API_KEY",
        "LABEL_STUDIO_USERNAME",
        "LABEL_STUDIO_PASSWORD",
    ):
        env.pop(name, None)
    args = server_args(port, data_dir, username, password, token)
    log = open(data_dir / "server.log", "wb")  # noqa: SIM115 (closed with the process)
    proc = subprocess.Popen(args, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    server = LabelStudioServer(f"http://127.0.0.1:{port}", token, username, password, proc.pid, data_dir)
    return proc, server


def stop_server(proc: subprocess.Popen) -> None:
    """Stop the server and its children (its own process group) by the process id."""
    if proc.poll() is not None:
        return
    try:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
    except ProcessLookupError:
        pass


def wait_healthy(proc: subprocess.Popen, server: LabelStudioServer, timeout: float = START_TIMEOUT) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            tail = (server.data_dir / "server.log").read_text(errors="replace")[-2000:]
            raise RuntimeError(f"Label Studio exited with {proc.returncode}:\n{tail}")
        if _healthy(server.url):
            return
        time.sleep(1)
    raise RuntimeError(f"Label Studio did not answer {server.url}/health within {timeout:.0f} s")


def _reuse() -> LabelStudioServer | None:
    """A server already running for development: ``WORDPLAY_AUDIT_LS_REUSE`` names a JSON file
    with ``url``, ``token``, ``user``, ``password`` (the tests then neither start nor stop it)."""
    path = os.environ.get("WORDPLAY_AUDIT_LS_REUSE")
    if not path:
        return None
    import json

    info = json.loads(Path(path).read_text())
    return LabelStudioServer(info["url"], info["token"], info["user"], info["password"], 0, Path(path).parent)


@pytest.fixture(scope="session")
def label_studio():
    """A running Label Studio server: ``.url``, ``.token`` (legacy token), admin user and password."""
    reused = _reuse()
    if reused is not None:
        yield reused
        return
    _require_server()
    data_dir = Path(tempfile.mkdtemp(prefix="wordplay-ls-"))
    proc, server = start_server(data_dir)
    try:
        wait_healthy(proc, server)
        yield server
    finally:
        stop_server(proc)
        shutil.rmtree(data_dir, ignore_errors=True)


@pytest.fixture
def ls_env(label_studio, monkeypatch):
    """The server's URL and token in the two environment variables the toolkit reads."""
    monkeypatch.setenv("LABEL_STUDIO_URL", label_studio.url)
    monkeypatch.setenv("LABEL_STUDIO_API_KEY", label_studio.token)
    return label_studio
