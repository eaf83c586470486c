"""``annotate push / pull / status`` against a real Label Studio server and against servers that
misbehave: a second push while one runs is refused (no duplicate projects or tasks), two
projects carrying one rater's marker or a task there twice are named, tasks deleted on the
server are counted, bad URLs, tokens and answers of the wrong shape are one-line errors, an
interrupted push says the server may hold part of it, a pull's export is deleted also when the
pull fails, and a password in the URL is never shown.

The campaign (``camp``): 16 definitions for raters ann and bob (overlap 1, 8 each)."""

from __future__ import annotations

import json
import threading
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pandas as pd
import pytest

from tests.support.cli_checks import one_line_error as _one_line_error

STRATA = (("m1", "true"), ("m1", "false"), ("m2", "true"), ("m2", "false"))


def _plan(tmp: Path, run_cli, raters: str) -> Path:
    rows = [
        {"item_id": f"d{model}{verdict[0]}{i}", "game": "balderdash", "kind": "definition",
         "context": "w", "reference": "r", "candidate": "c", "player_model": model, "judge_verdict": verdict}
        for model, verdict in STRATA
        for i in range(10)
    ]  # fmt: skip
    pd.DataFrame(rows).to_csv(tmp / "items.csv", index=False)
    code, _out, err = run_cli(
        "annotate", "plan", str(tmp / "items.csv"), "--n", "16", "--raters", raters, "--overlap", "1",
        "--strata", "player_model,judge_verdict", "--seed", "4", "--out", str(tmp / "camp"),
    )  # fmt: skip
    assert code == 0, err
    return tmp / "camp"


def _manifest(camp: Path) -> dict:
    return json.loads((camp / "manifest.json").read_text(encoding="utf-8"))


@pytest.fixture
def offline_camp(tmp_path, run_cli, monkeypatch):
    monkeypatch.delenv("LABEL_STUDIO_URL", raising=False)
    monkeypatch.delenv("LABEL_STUDIO_API_KEY", raising=False)
    return _plan(tmp_path, run_cli, "ann,bob")


@pytest.fixture
def live(tmp_path, run_cli, ls_env):
    """A campaign with fresh rater names, and an SDK client of the test server."""
    from label_studio_sdk import LabelStudio

    tag = uuid.uuid4().hex[:6]
    raters = (f"ann{tag}", f"bob{tag}")
    camp = _plan(tmp_path, run_cli, ",".join(raters))
    return camp, raters, LabelStudio(base_url=ls_env.url, api_key=ls_env.token)


def _projects(client, marker: str) -> list[int]:
    return [
        int(p.id)
        for p in client.projects.list(page_size=100)
        if (p.description or "").strip().splitlines()[-1:] == [marker]
    ]


def _uids(client, project: int) -> list[str]:
    tasks = client.tasks.list(project=project, page_size=1000, fields="task_only", include="id,data")
    return [str(t.data["uid"]) for t in tasks]


def _marker(camp: Path, rater: str) -> str:
    return f"wordplay-audit campaign {_manifest(camp)['campaign_id']} rater {rater}"


# --- a second push while one runs is refused ------------------------------------------------------


@pytest.mark.server
def test_a_push_while_another_runs_is_refused_and_adds_nothing(live, run_cli, monkeypatch):
    from wordplay_audit.annotate.server import Server

    camp, raters, client = live
    inner = []
    original = Server.import_tasks

    def racing(self, project_id, tasks):
        if not inner:
            inner.append(run_cli("annotate", "push", str(camp)))  # a second push, meanwhile
        return original(self, project_id, tasks)

    monkeypatch.setattr(Server, "import_tasks", racing)
    code, out, err = run_cli("annotate", "push", str(camp))
    assert code == 0, err
    _one_line_error(*inner[0], "another run is pushing this campaign")
    for rater in raters:
        (project,) = _projects(client, _marker(camp, rater))
        uids = _uids(client, project)
        assert len(uids) == len(set(uids)) == 8


# --- duplicates on the server are named -----------------------------------------------------------


@pytest.mark.server
def test_two_projects_with_one_marker_are_named_by_pull_push_and_status(live, run_cli, tmp_path):
    camp, raters, client = live
    assert run_cli("annotate", "push", str(camp))[0] == 0
    marker = _marker(camp, raters[0])
    (first,) = _projects(client, marker)
    extra = client.projects.create(title="copy", description=f"made by hand\n{marker}")
    for command in (
        ("pull", str(camp), "--out", str(tmp_path / "pulled")),
        ("push", str(camp)),
        ("status", str(camp)),
    ):
        _one_line_error(*run_cli("annotate", *command), f"ids {min(first, extra.id)}, {max(first, extra.id)}")
    assert not (tmp_path / "pulled").exists()


@pytest.mark.server
def test_a_task_twice_in_a_project_is_counted_by_push_and_status(live, run_cli):
    camp, raters, client = live
    assert run_cli("annotate", "push", str(camp))[0] == 0
    (project,) = _projects(client, _marker(camp, raters[0]))
    task = next(iter(client.tasks.list(project=project, page_size=1, fields="task_only", include="id,data")))
    client.projects.import_tasks(project, request=[{"data": dict(task.data)}])
    code, out, err = run_cli("annotate", "push", str(camp))
    assert code == 0 and f"warning: project {project} ({raters[0]}) holds 1 extra copy" in out, out
    code, out, err = run_cli("annotate", "status", str(camp))
    assert code == 0 and "1 extra copy(ies)" in out and "left 8" in out, out


# --- deleted tasks and projects are counted -------------------------------------------------------


@pytest.mark.server
def test_a_task_deleted_on_the_server_is_counted_by_pull_and_status(live, run_cli, tmp_path):
    camp, raters, client = live
    assert run_cli("annotate", "push", str(camp))[0] == 0
    (project,) = _projects(client, _marker(camp, raters[0]))
    task = next(iter(client.tasks.list(project=project, page_size=1, fields="task_only", include="id")))
    client.tasks.delete(task.id)
    code, out, err = run_cli("annotate", "pull", str(camp), "--out", str(tmp_path / "pulled"), "--json")
    assert code == 0, err
    result = json.loads(out)
    assert result["counts"]["tasks_not_on_server"] == 1
    assert (
        f"project {project} ({raters[0]}): 1 assigned task(s) not on the server; run push"
        in result["warnings"]
    )
    code, out, err = run_cli("annotate", "status", str(camp))
    assert code == 0 and "left 7, not on the server 1" in out and "not on the server; run push" in out, out


@pytest.mark.server
def test_status_of_a_rater_without_a_project_says_so(live, run_cli):
    camp, raters, _client = live
    code, out, err = run_cli("annotate", "status", str(camp))
    assert code == 0, err
    assert all(f"no project for rater {r!r} (push first)" in out for r in raters), out
    assert out.count("warning: ") == 2, out


# --- an interrupted push says what the server may hold --------------------------------------------


@pytest.mark.server
def test_an_interrupted_push_says_the_server_may_hold_part_of_it(live, run_cli, monkeypatch, capsys):
    from wordplay_audit.annotate.server import Server

    camp, _raters, _client = live

    def interrupt(self, project_id, tasks):
        raise KeyboardInterrupt

    monkeypatch.setattr(Server, "import_tasks", interrupt)
    with pytest.raises(SystemExit) as ended:
        run_cli("annotate", "push", str(camp))
    err = capsys.readouterr().err
    assert ended.value.code == 130 and err.count("\n") == 1, err
    assert "server may hold part of the import" in err and "run `annotate push` again" in err, err
    assert "no output was changed" not in err


# --- a failed pull deletes its export -------------------------------------------------------------


@pytest.mark.server
def test_a_failed_pull_deletes_its_export_on_the_server(live, run_cli, monkeypatch, tmp_path):
    import httpx
    from label_studio_sdk.projects.exports.client import ExportsClient

    camp, raters, client = live
    assert run_cli("annotate", "push", str(camp))[0] == 0

    def broken(self, *args, **kwargs):
        raise httpx.ReadError("connection reset")

    monkeypatch.setattr(ExportsClient, "download", broken)
    _one_line_error(
        *run_cli("annotate", "pull", str(camp), "--out", str(tmp_path / "p")), "no Label Studio server"
    )
    (project,) = _projects(client, _marker(camp, raters[0]))
    assert client.projects.exports.list(project) == []


# --- bad URLs, tokens and answers -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "token", "needle"),
    [
        ("http://[::1", "abc", "LABEL_STUDIO_URL: 'http://[::1' is not a valid"),
        ("http://127.0.0.1:9", "tökén", "LABEL_STUDIO_API_KEY: the token holds whitespace or characters"),
        ("http://127.0.0.1:9", "abc ", "LABEL_STUDIO_API_KEY: the token holds whitespace or characters"),
        pytest.param(  # the connection to a closed port is retried: slow
            "http://user:pw-secret@127.0.0.1:9",
            "abc",
            "http://user:***@127.0.0.1:9: connect: no Label Studio",
            marks=pytest.mark.slow,
        ),
    ],
)
def test_bad_urls_and_tokens_are_one_line_errors(
    offline_camp, run_cli, monkeypatch, tree_digest, url, token, needle
):
    monkeypatch.setenv("LABEL_STUDIO_URL", url)
    monkeypatch.setenv("LABEL_STUDIO_API_KEY", token)
    before = tree_digest(offline_camp)
    for command in ("push", "status"):
        code, out, err = run_cli("annotate", command, str(offline_camp))
        _one_line_error(code, out, err, needle)
        assert "pw-secret" not in err and "tökén" not in err
    assert tree_digest(offline_camp) == before


@pytest.fixture
def odd_server():
    """A server that answers who-am-I as Label Studio does and every other call with ``body``."""
    state = {"body": b"{}"}

    class Handler(BaseHTTPRequestHandler):
        def _answer(self):
            length = int(self.headers.get("Content-Length") or 0)
            self.rfile.read(length)
            body = (
                b'{"id": 1, "email": "a@b.c"}' if self.path.startswith("/api/current-user") else state["body"]
            )
            self.send_response(200 if self.command == "GET" else 201)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        do_GET = do_POST = do_PATCH = _answer

        def log_message(self, *args):
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}", state
    httpd.shutdown()
    httpd.server_close()


@pytest.mark.parametrize("body", [b"{}", b"[]"])
def test_answers_of_the_wrong_shape_are_one_line_errors(
    offline_camp, run_cli, monkeypatch, tree_digest, odd_server, body, tmp_path
):
    url, state = odd_server
    state["body"] = body
    monkeypatch.setenv("LABEL_STUDIO_URL", url)
    monkeypatch.setenv("LABEL_STUDIO_API_KEY", "abc")
    before = tree_digest(offline_camp)
    for command in (
        ("push", str(offline_camp)),
        ("status", str(offline_camp)),
        ("pull", str(offline_camp), "--out", str(tmp_path / "p")),
    ):
        _one_line_error(*run_cli("annotate", *command), "the server's answer is not what Label Studio sends")
    assert tree_digest(offline_camp) == before and not (tmp_path / "p").exists()
