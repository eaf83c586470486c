"""Push and pull 10,000 tasks against a real Label Studio server; print tasks/s for each.

Uses the server named by ``LABEL_STUDIO_URL`` / ``LABEL_STUDIO_API_KEY`` when both are set,
else starts a throw-away one from ``var/labelstudio-venv`` (``make labelstudio-venv``).

Steps (one rater, overlap 1, so one project holds all tasks):
1. ``push`` of a fresh campaign (project created, N tasks imported) — tasks/s;
2. a second ``push`` (finds the project, lists N uids, imports nothing) — tasks/s;
3. ``pull`` of a campaign whose N tasks each carry one submitted annotation (imported with the
   tasks, so the benchmark does not wait for N annotation calls): snapshot export, parse and
   reconcile — tasks/s.

    .venv/bin/python -m benchmarks bench_labelstudio -- --tasks 10000
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
import uuid
from pathlib import Path

import pandas as pd

REPO = Path(__file__).resolve().parents[1]


def _server():
    if os.environ.get("LABEL_STUDIO_URL") and os.environ.get("LABEL_STUDIO_API_KEY"):
        return None
    sys.path.insert(0, str(REPO))
    from tests.support import ls_server

    data = Path(tempfile.mkdtemp(prefix="wordplay-ls-bench-"))
    proc, server = ls_server.start_server(data)
    ls_server.wait_healthy(proc, server)
    os.environ["LABEL_STUDIO_URL"], os.environ["LABEL_STUDIO_API_KEY"] = server.url, server.token
    return proc, ls_server


def _campaign(folder: Path, n: int, name: str):
    from wordplay_audit.annotate.campaign import read_campaign
    from wordplay_audit.annotate.design import DesignSpec
    from wordplay_audit.annotate.plan import plan_campaign
    from wordplay_audit.corpora.io import output_folder

    items = pd.DataFrame(
        {
            "item_id": [f"g{i}" for i in range(n)],
            "game": "wof",
            "kind": "guess",
            "context": "PHRASE",
            "reference": "ANSWER",
            "candidate": [f"guess {i}" for i in range(n)],
        }
    )
    items.to_csv(folder / f"{name}.csv", index=False)
    with output_folder(folder / name) as staging:
        plan_campaign(
            folder / f"{name}.csv", staging, DesignSpec(n=n, raters=["solo"], overlap=1, seed=1), name=name
        )
    return read_campaign(folder / name)


def _wait_annotations(server, project: int, n: int, timeout: float = 120) -> int:
    """Annotations the server counts in ``project`` once it stops growing (or reaches ``n``)."""
    deadline, last = time.monotonic() + timeout, -1
    while time.monotonic() < deadline:
        count = int(server.client.projects.get(project).total_annotations_number or 0)
        if count >= n or count == last:
            return count
        last = count
        time.sleep(5)
    return last


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tasks", type=int, default=10_000)
    args = parser.parse_args(argv)
    started = _server()
    try:
        from wordplay_audit.annotate.server import Server, build_tasks, rater_marker
        from wordplay_audit.annotate.workflow import pull_campaign, push_campaign, queues

        server = Server()
        tag = uuid.uuid4().hex[:6]
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp)
            camp = _campaign(folder, args.tasks, f"bench-push-{tag}")
            t0 = time.perf_counter()
            push_campaign(camp, server)
            t1 = time.perf_counter()
            again = push_campaign(camp, server)
            t2 = time.perf_counter()
            assert again[0]["imported"] == 0
            print(f"push   {args.tasks} tasks: {t1 - t0:7.1f} s  {args.tasks / (t1 - t0):8.0f} tasks/s")
            print(
                f"repush {args.tasks} tasks: {t2 - t1:7.1f} s  {args.tasks / (t2 - t1):8.0f} tasks/s (nothing imported)"
            )

            labelled = _campaign(folder, args.tasks, f"bench-pull-{tag}")
            queue = queues(labelled)["solo"]
            tasks = build_tasks(queue, labelled.items, "guess")
            answer = [
                {
                    "from_name": "correct",
                    "to_name": "t_candidate",
                    "type": "choices",
                    "value": {"choices": ["Yes"]},
                }
            ]
            for task in tasks:
                task["annotations"] = [{"result": answer}]
            project, _ = server.ensure_project(
                rater_marker(labelled.manifest["campaign_id"], "solo"),
                "bench pull",
                labelled.manifest and (labelled.folder / "config.xml").read_text(),
                review=False,
            )
            server.import_tasks(project, tasks)
            annotated = _wait_annotations(server, project, args.tasks)
            if annotated < args.tasks:
                print(f"note: the server holds {annotated} of {args.tasks} imported annotations")
            t3 = time.perf_counter()
            pulled = pull_campaign(labelled, server)
            t4 = time.perf_counter()
            assert pulled.main.counts["labelled"] == annotated, pulled.main.counts
            print(
                f"pull   {args.tasks} tasks: {t4 - t3:7.1f} s  {args.tasks / (t4 - t3):8.0f} tasks/s "
                f"({len(pulled.main.labels)} labels)"
            )
    finally:
        if started is not None:
            proc, ls_server = started
            ls_server.stop_server(proc)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
