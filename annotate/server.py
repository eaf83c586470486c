"""A campaign on a Label Studio server (label-studio-sdk 2.x): push, snapshot pull, status.

Credentials come from ``LABEL_STUDIO_URL`` and ``LABEL_STUDIO_API_KEY`` only and are never
printed or written. Community Edition does not enforce per-task overlap, so each rater gets a
project holding exactly their assignment. A project belongs to a campaign by a marker line in
its description (``wordplay-audit campaign <id> rater <name>``, or ``adjudication <name>``), so
``push`` finds the campaign's projects again and imports only the tasks whose ``uid`` (the
opaque key of an ``item_id``) is not there yet: pushing twice adds nothing.

``pull`` uses snapshot exports (create, poll, download, delete) — the synchronous export times
out on big projects — with drafts and predictions serialised so they can be counted.

Every server failure becomes one-line :class:`InputError` (server down, token refused, HTTP
error), which the CLI turns into exit code 2.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import time
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, NamedTuple

import pandas as pd

from wordplay_audit.annotate.configs import judge_prediction, label_config, task_data
from wordplay_audit.errors import InputError

URL_ENV = "LABEL_STUDIO_URL"
KEY_ENV = "LABEL_STUDIO_API_KEY"
IMPORT_CHUNK = 1000
MARKER = "wordplay-audit campaign"


def shown_url(url: str) -> str:
    """The URL as messages show it: a password in it replaced by ``***``.

    >>> shown_url("http://ann:secret@ls.example.org:8080/x")
    'http://ann:***@ls.example.org:8080/x'
    """
    return re.sub(r"(//[^/@:]*:)[^/@]*@", r"\1***@", url)


class BadAnswer(Exception):
    """The server answered a call with something Label Studio does not send."""


def _http_message(url: str, what: str, exc) -> str:
    code = exc.status_code
    if code in (401, 403):
        return f"{url}: {what}: the server refused the token in {KEY_ENV} (HTTP {code})"
    if code is not None and 200 <= code < 300:
        return f"{url}: {what}: the server's answer is not what Label Studio sends (HTTP {code})"
    body = exc.body if isinstance(exc.body, str | dict) else ""
    detail = " ".join(json.dumps(body)[:200].split()) if body else ""
    return f"{url}: {what}: HTTP {code} {detail}".rstrip()


@contextlib.contextmanager
def api_errors(url: str, what: str) -> Iterator[None]:
    """Turn SDK and transport errors into one-line InputError naming the server and the step;
    an answer of the wrong shape (``[]``, ``{}``, HTML) says so instead of a traceback."""
    import httpx
    from label_studio_sdk.core.api_error import ApiError

    url = shown_url(url)
    odd = f"{url}: {what}: the server's answer is not what Label Studio sends"
    try:
        yield
    except InputError:
        raise
    except ApiError as exc:
        raise InputError(_http_message(url, what, exc)) from None
    except httpx.InvalidURL:
        raise InputError(f"{URL_ENV}: {url!r} is not a valid URL (e.g. http://127.0.0.1:8080)") from None
    except httpx.LocalProtocolError:
        raise InputError(
            f"{url}: {what}: the request could not be sent; does {KEY_ENV} hold whitespace or "
            "characters that are not printable ASCII?"
        ) from None
    except httpx.TransportError as exc:
        raise InputError(f"{url}: {what}: no Label Studio server answers ({type(exc).__name__})") from None
    # pydantic's ValidationError (the SDK's models) is a ValueError
    except (BadAnswer, TypeError, KeyError, AttributeError, ValueError) as exc:
        raise InputError(f"{odd} ({type(exc).__name__})") from None
    except Exception as exc:  # the SDK's ParsingError and kin: a response it could not read
        if type(exc).__module__.startswith("label_studio_sdk"):
            raise InputError(f"{odd} ({type(exc).__name__})") from None
        raise


def _listed(pager, what: str):
    """A pager's items; a page without its list (``{}`` instead of ``{"results": […]}``) is a
    :class:`BadAnswer`, not an empty list."""
    if pager.items is None:
        raise BadAnswer(what)
    return pager


def _check_credentials(url: str, key: str) -> None:
    import httpx

    try:
        parsed = httpx.URL(url)
    except (httpx.InvalidURL, TypeError, ValueError):
        parsed = None
    if parsed is None or parsed.scheme not in ("http", "https") or not parsed.host:
        raise InputError(
            f"{URL_ENV}: {shown_url(url)!r} is not a valid http(s) URL (e.g. http://127.0.0.1:8080)"
        )
    if not all(33 <= ord(ch) <= 126 for ch in key):
        raise InputError(
            f"{KEY_ENV}: the token holds whitespace or characters that are not printable ASCII "
            "(copy it again from the server's Account & Settings page)"
        )


class Server:
    """A connected Label Studio client (``client``) and its URL."""

    def __init__(self, url: str | None = None, api_key: str | None = None, timeout: float = 120) -> None:
        from label_studio_sdk import LabelStudio

        base = (url or os.environ.get(URL_ENV, "")).rstrip("/")
        key = api_key or os.environ.get(KEY_ENV, "")
        if not base:
            raise InputError(f"{URL_ENV} is not set (the server's address, e.g. http://127.0.0.1:8080)")
        if not key:
            raise InputError(f"{KEY_ENV} is not set (the token from the server's Account & Settings page)")
        _check_credentials(base, key)
        self.url = shown_url(base)  # what messages show: never a password
        self.base_url = base  # what requests use
        self.client = LabelStudio(base_url=base, api_key=key, timeout=timeout)
        with api_errors(self.url, "connect"):
            me = self.client.users.whoami()
            if getattr(me, "id", None) is None:
                raise BadAnswer("whoami")
        self.email = str(getattr(me, "email", "") or "").lower()  # the account the token is

    def calling(self, what: str):
        return api_errors(self.url, what)

    # ------------------------------------------------------------------ accounts
    def users(self) -> dict[str, str]:
        """The organisation's accounts: user id (as text) → email (lower case)."""
        with self.calling("list users"):
            users = self.client.users.list()
            if not isinstance(users, list):
                raise BadAnswer("list users")
            return {str(u.id): str(u.email).lower() for u in users if getattr(u, "email", None)}

    def user_emails(self) -> set[str]:
        """The emails (lower case) of the organisation's accounts."""
        return set(self.users().values())

    def invite_path(self) -> str:
        """The organisation's invite link (``/user/signup/?token=…``; the token is a secret: it
        lets anyone sign up into the organisation)."""
        with self.calling("get the invite link"):
            link = self.client.organizations.invites.get_invite_link().invite_url
            if not isinstance(link, str) or not link.startswith("/"):
                raise BadAnswer("invite link")
            return link

    # ------------------------------------------------------------------ projects
    def find_projects(self, marker: str) -> list[int]:
        """Every project whose description ends with ``marker`` (one, unless runs raced)."""
        found = []
        with self.calling("list projects"):
            for project in _listed(self.client.projects.list(page_size=100), "list projects"):
                if (project.description or "").strip().splitlines()[-1:] == [marker]:
                    found.append(int(project.id))
        return found

    def find_project(self, marker: str) -> int | None:
        """The one project carrying ``marker``; two or more is an error naming them all (labels
        made in an extra one would be silently left out)."""
        found = self.find_projects(marker)
        if len(found) > 1:
            ids = ", ".join(str(i) for i in sorted(found))
            raise InputError(
                f"{self.url}: {len(found)} projects carry the marker {marker!r} (ids {ids}); keep the one "
                "with the labels (move any made in the others there), delete the others, and run again"
            )
        return found[0] if found else None

    def ensure_project(self, marker: str, title: str, config: str, *, review: bool) -> tuple[int, bool]:
        found = self.find_project(marker)
        if found is not None:
            return found, False
        with self.calling(f"create project {title!r}"):
            project = self.client.projects.create(
                title=title[:50],
                description=f"Created by wordplay-audit; do not edit the last line.\n{marker}",
                label_config=config,
                maximum_annotations=1,
                show_skip_button=True,
                show_collab_predictions=review,
                sampling="Sequential sampling",
            )
            return int(project.id), True

    def task_rows(self, project_id: int) -> list[dict]:
        """Per task on the server: its ``uid`` and annotation counters (a uid may repeat)."""
        with self.calling(f"list tasks of project {project_id}"):
            tasks = self.client.tasks.list(
                project=project_id,
                page_size=1000,
                fields="task_only",
                include="id,data,total_annotations,cancelled_annotations",
            )
            return [
                {
                    "uid": str((t.data or {}).get("uid")),
                    "done": (t.total_annotations or 0) > 0,
                    "skipped": (t.cancelled_annotations or 0) > 0,
                }
                for t in _listed(tasks, "list tasks")
            ]

    def existing_uids(self, project_id: int) -> Counter:
        """How many tasks of the project carry each ``uid``."""
        return Counter(row["uid"] for row in self.task_rows(project_id))

    def import_tasks(self, project_id: int, tasks: Sequence[dict]) -> int:
        done = 0
        for start in range(0, len(tasks), IMPORT_CHUNK):
            chunk = list(tasks[start : start + IMPORT_CHUNK])
            with self.calling(f"import tasks into project {project_id}"):
                self.client.projects.import_tasks(project_id, request=chunk)
            done += len(chunk)
        return done

    def snapshot(self, project_id: int, timeout: float = 600) -> list[dict]:
        """A full JSON snapshot export of one project (drafts and predictions included); the
        export is deleted from the server afterwards, also when the pull fails or is interrupted."""
        exports = self.client.projects.exports
        export = None
        try:
            with self.calling(f"export project {project_id}"):
                export = exports.create(
                    project_id,
                    title="wordplay-audit pull",
                    serialization_options={
                        "drafts": {"only_id": False},
                        "predictions": {"only_id": False},
                        "annotations__completed_by": {"only_id": False},
                    },
                )
                deadline = time.monotonic() + timeout
                while export.status not in ("completed", "failed"):
                    if time.monotonic() > deadline:
                        raise InputError(
                            f"{self.url}: export of project {project_id} not ready after {timeout:.0f} s"
                        )
                    time.sleep(0.5)
                    export = exports.get(project_id, export.id)
                if export.status == "failed":
                    raise InputError(f"{self.url}: export of project {project_id} failed on the server")
                data = b"".join(exports.download(project_id, export.id, export_type="JSON"))
        finally:
            if getattr(export, "id", None) is not None:
                with contextlib.suppress(Exception):  # best effort: the delete's own failure is no news
                    exports.delete(project_id, export.id)
        try:
            return json.loads(data)
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            why = exc.msg if isinstance(exc, json.JSONDecodeError) else "not UTF-8"
            raise InputError(f"{self.url}: export of project {project_id}: not JSON ({why})") from None


def server_notes(where: str, assigned: set[str], on_server: Counter) -> tuple[int, int, list[str]]:
    """Assigned tasks not on the server, extra copies of one task, and the warnings saying so.

    >>> server_notes("project 3 (ann)", {"a", "b"}, Counter({"a": 2}))[:2]
    (1, 1)
    """
    missing = len(assigned - set(on_server))
    extra = sum(n - 1 for n in on_server.values())
    notes = []
    if missing:
        notes.append(f"{where}: {missing} assigned task(s) not on the server; run push")
    if extra:
        notes.append(
            f"{where}: {extra} extra copy(ies) of tasks already there (a uid more than once); "
            "delete the extra copies on the server"
        )
    return missing, extra, notes


def rater_marker(campaign_id: str, rater: str) -> str:
    return f"{MARKER} {campaign_id} rater {rater}"


def adjudication_marker(campaign_id: str, adjudicator: str) -> str:
    return f"{MARKER} {campaign_id} adjudication {adjudicator}"


def build_tasks(
    queue: pd.DataFrame,
    items: pd.DataFrame,
    kind: str,
    *,
    judge: pd.DataFrame | None = None,
    earlier: Mapping[str, str] | None = None,
) -> list[dict]:
    """Importable tasks for a queue (``item_id``, ``uid`` in order); review mode adds predictions."""
    by_id = items.set_index("item_id", drop=False)
    verdicts: dict[str, dict[str, Any]] = {}
    if judge is not None and not judge.empty:
        question = judge["question"] if "question" in judge.columns else pd.Series("", index=judge.index)
        for item_id, rater, q, label in zip(
            judge["item_id"], judge["rater"], question.fillna(""), judge["label"], strict=True
        ):
            verdicts.setdefault(str(item_id), {"_judge": str(rater)})[str(q)] = str(label)
    tasks = []
    for item_id, uid in zip(queue["item_id"], queue["uid"], strict=True):
        item = by_id.loc[item_id].to_dict()
        task: dict[str, Any] = {
            "data": task_data(item, uid, earlier=None if earlier is None else earlier.get(item_id, ""))
        }
        if item_id in verdicts:
            found = verdicts[item_id]
            prediction = judge_prediction(kind, found, found["_judge"])
            if prediction:
                task["predictions"] = [prediction]
        tasks.append(task)
    return tasks


class Target(NamedTuple):
    """Which campaign a push belongs to: its id (in the project marker), name (in the title), kind."""

    campaign_id: str
    name: str
    kind: str


def push_queues(
    server: Server,
    target: Target,
    *,
    items: pd.DataFrame,
    queues: Mapping[str, pd.DataFrame],
    judge: pd.DataFrame | None = None,
    earlier: Mapping[str, str] | None = None,
    adjudicator: bool = False,
) -> list[dict]:
    """Ensure one project per queue owner and import the tasks not there yet; one row per project."""
    campaign_id, name, kind = target
    config = label_config(kind, adjudication=earlier is not None)
    out = []
    for owner, queue in queues.items():
        marker = adjudication_marker(campaign_id, owner) if adjudicator else rater_marker(campaign_id, owner)
        title = f"{name[:28]} · {'adjudication' if adjudicator else owner}"
        project_id, created = server.ensure_project(marker, title, config, review=judge is not None)
        counted = Counter() if created else server.existing_uids(project_id)
        existing = set(counted)
        todo = queue[~queue["uid"].isin(existing)].sort_values("position")
        tasks = build_tasks(todo, items, kind, judge=judge, earlier=earlier)
        imported = server.import_tasks(project_id, tasks) if tasks else 0
        out.append(
            {
                "owner": owner,
                "project_id": project_id,
                "created": created,
                "already_there": int(queue["uid"].isin(existing).sum()),
                "imported": imported,
                "duplicate_tasks": sum(n - 1 for n in counted.values()),  # extra copies of one uid
            }
        )
    return out
