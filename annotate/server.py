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
import time
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, NamedTuple

import pandas as pd

from wordplay_audit.annotate.configs import judge_prediction, label_config, task_data
from wordplay_audit.errors import InputError

URL_ENV = "LABEL_STUDIO_URL"
KEY_ENV = "LABEL_STUDIO_API_KEY"
IMPORT_CHUNK = 1000
MARKER = "wordplay-audit campaign"


@contextlib.contextmanager
def api_errors(url: str, what: str) -> Iterator[None]:
    """Turn SDK and transport errors into one-line InputError naming the server and the step."""
    import httpx
    from label_studio_sdk.core.api_error import ApiError

    try:
        yield
    except ApiError as exc:
        code = exc.status_code
        if code in (401, 403):
            raise InputError(
                f"{url}: {what}: the server refused the token in {KEY_ENV} (HTTP {code})"
            ) from None
        body = exc.body if isinstance(exc.body, str | dict) else ""
        detail = " ".join(json.dumps(body)[:200].split()) if body else ""
        raise InputError(f"{url}: {what}: HTTP {code} {detail}".rstrip()) from None
    except httpx.TransportError as exc:
        raise InputError(f"{url}: {what}: no Label Studio server answers ({type(exc).__name__})") from None


class Server:
    """A connected Label Studio client (``client``) and its URL."""

    def __init__(self, url: str | None = None, api_key: str | None = None, timeout: float = 120) -> None:
        from label_studio_sdk import LabelStudio

        self.url = (url or os.environ.get(URL_ENV, "")).rstrip("/")
        key = api_key or os.environ.get(KEY_ENV, "")
        if not self.url:
            raise InputError(f"{URL_ENV} is not set (the server's address, e.g. http://127.0.0.1:8080)")
        if not key:
            raise InputError(f"{KEY_ENV} is not set (the token from the server's Account & Settings page)")
        self.client = LabelStudio(base_url=self.url, api_key=key, timeout=timeout)
        with api_errors(self.url, "connect"):
            self.client.users.whoami()

    def calling(self, what: str):
        return api_errors(self.url, what)

    # ------------------------------------------------------------------ projects
    def find_project(self, marker: str) -> int | None:
        with self.calling("list projects"):
            for project in self.client.projects.list(page_size=100):
                if (project.description or "").strip().splitlines()[-1:] == [marker]:
                    return int(project.id)
        return None

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

    def existing_uids(self, project_id: int) -> set[str]:
        with self.calling(f"list tasks of project {project_id}"):
            tasks = self.client.tasks.list(
                project=project_id, page_size=1000, fields="task_only", include="id,data"
            )
            return {str((t.data or {}).get("uid")) for t in tasks}

    def import_tasks(self, project_id: int, tasks: Sequence[dict]) -> int:
        done = 0
        for start in range(0, len(tasks), IMPORT_CHUNK):
            chunk = list(tasks[start : start + IMPORT_CHUNK])
            with self.calling(f"import tasks into project {project_id}"):
                self.client.projects.import_tasks(project_id, request=chunk)
            done += len(chunk)
        return done

    def task_counts(self, project_id: int) -> dict[str, int]:
        """Tasks done (a submitted annotation), skipped (only skipped ones) and left."""
        done = skipped = total = 0
        with self.calling(f"list tasks of project {project_id}"):
            tasks = self.client.tasks.list(
                project=project_id,
                page_size=1000,
                fields="task_only",
                include="id,total_annotations,cancelled_annotations",
            )
            for task in tasks:
                total += 1
                if (task.total_annotations or 0) > 0:
                    done += 1
                elif (task.cancelled_annotations or 0) > 0:
                    skipped += 1
        return {"tasks": total, "done": done, "skipped": skipped, "left": total - done - skipped}

    def snapshot(self, project_id: int, timeout: float = 600) -> list[dict]:
        """A full JSON snapshot export of one project (drafts and predictions included)."""
        exports = self.client.projects.exports
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
            exports.delete(project_id, export.id)
        try:
            return json.loads(data)
        except json.JSONDecodeError as exc:
            raise InputError(f"{self.url}: export of project {project_id}: not JSON ({exc.msg})") from None


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
        existing = set() if created else server.existing_uids(project_id)
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
            }
        )
    return out
