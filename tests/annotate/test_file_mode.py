"""File mode against the real server: export-files → import into a project by hand → label →
download JSON, JSON_MIN and CSV → import-file reads the same labels from each."""

from __future__ import annotations

import json
import uuid

import pandas as pd
import pytest

pytestmark = [pytest.mark.slow, pytest.mark.server]  # a real Label Studio server


def _result(ref: str, anys: str, comment: str | None = None) -> list[dict]:
    shown = {"true": "Yes", "false": "No"}
    ref, anys = shown[ref], shown[anys]
    out = [
        {"from_name": "reference", "to_name": "t_candidate", "type": "choices", "value": {"choices": [ref]}},
        {"from_name": "any_sense", "to_name": "t_candidate", "type": "choices", "value": {"choices": [anys]}},
    ]
    if comment:
        out.append(
            {
                "from_name": "comment",
                "to_name": "t_candidate",
                "type": "textarea",
                "value": {"text": [comment]},
            }
        )
    return out


def test_file_mode_round_trip_in_three_formats(tmp_path, run_cli, label_studio):
    from label_studio_sdk import LabelStudio

    items = pd.DataFrame(
        {
            "item_id": [f"bd:1:{i}:1" for i in range(5)],
            "game": "balderdash",
            "kind": "definition",
            "context": [f"word{i}" for i in range(5)],
            "reference": "ref, with a comma",
            "candidate": 'say "hi"',
            "senses": "s1 | s2",
            "player_model": "m",
        }
    )
    items.to_csv(tmp_path / "items.csv", index=False)
    code, _o, err = run_cli(
        "annotate",
        "plan",
        str(tmp_path / "items.csv"),
        "--n",
        "5",
        "--raters",
        "ann,bob",
        "--overlap",
        "2",
        "--name",
        f"files-{uuid.uuid4().hex[:6]}",
        "--out",
        str(tmp_path / "camp"),
    )
    assert code == 0, err
    code, out, err = run_cli(
        "annotate", "export-files", str(tmp_path / "camp"), "--out", str(tmp_path / "files"), "--json"
    )
    assert code == 0, err
    assert set(json.loads(out)["files"]) == {"config.xml", "tasks_ann.json", "tasks_bob.json"}
    client = LabelStudio(base_url=label_studio.url, api_key=label_studio.token, timeout=300)
    project = client.projects.create(
        title="by hand", label_config=(tmp_path / "files" / "config.xml").read_text()
    )
    client.projects.import_tasks(
        project.id, request=json.loads((tmp_path / "files" / "tasks_ann.json").read_text())
    )
    tasks = list(client.tasks.list(project=project.id, page_size=100))
    manifest = json.loads((tmp_path / "camp" / "manifest.json").read_text())
    uid_item = {a["uid"]: a["item_id"] for a in manifest["assignments"] if a["rater"] == "ann"}
    assert sorted(uid_item) == sorted(t.data["uid"] for t in tasks)
    client.annotations.create(id=tasks[0].id, result=_result("true", "false", 'close, but "no"'))
    client.annotations.create(id=tasks[1].id, result=_result("false", "false"))
    client.annotations.create(id=tasks[2].id, result=[], was_cancelled=True)
    expected = {
        (uid_item[tasks[0].data["uid"]], "reference", "true"),
        (uid_item[tasks[0].data["uid"]], "any_sense", "false"),
        (uid_item[tasks[1].data["uid"]], "reference", "false"),
        (uid_item[tasks[1].data["uid"]], "any_sense", "false"),
    }
    for fmt, suffix in (("JSON", "json"), ("JSON_MIN", "json"), ("CSV", "csv")):
        path = tmp_path / f"export_{fmt}.{suffix}"
        path.write_bytes(
            b"".join(
                client.projects.exports.download_sync(project.id, export_type=fmt, download_all_tasks=True)
            )
        )
        out_dir = tmp_path / f"pulled_{fmt}"
        code, out, err = run_cli(
            "annotate",
            "import-file",
            str(tmp_path / "camp"),
            "--export",
            f"ann={path}",
            "--out",
            str(out_dir),
            "--json",
        )
        assert code == 0, (fmt, err)
        counts = json.loads(out)["counts"]
        labels = pd.read_csv(out_dir / "labels.csv", dtype=str, keep_default_na=False)
        assert set(zip(labels["item_id"], labels["question"], labels["label"], strict=True)) == expected, fmt
        assert set(labels["rater"]) == {"ann"}
        assert 'close, but "no"' in set(labels["comment"])
        # JSON keeps the skipped annotation; JSON_MIN and CSV leave it out, so it reads as missing
        skipped = 1 if fmt == "JSON" else 0
        assert (counts["labelled"], counts["skipped"], counts["missing"]) == (2, skipped, 3 - skipped), fmt


def test_review_mode_predictions_are_shown_and_ignored_on_pull(tmp_path, run_cli, ls_env):
    """--review puts the judge's verdicts in as predictions; blind by default; pull counts them."""
    from label_studio_sdk import LabelStudio

    items = pd.DataFrame(
        {
            "item_id": [f"bd:2:{i}:1" for i in range(3)],
            "game": "balderdash",
            "kind": "definition",
            "context": "w",
            "reference": "r",
            "candidate": "c",
            "senses": "s",
        }
    )
    items.to_csv(tmp_path / "items.csv", index=False)
    judge = pd.DataFrame(
        {
            "item_id": list(items["item_id"]) * 2,
            "rater": "judge-llm",
            "rater_type": "judge",
            "label": ["true", "false", "true", "false", "false", "true"],
            "question": ["reference"] * 3 + ["any_sense"] * 3,
        }
    )
    judge.to_csv(tmp_path / "judge.csv", index=False)
    for review in (False, True):
        camp = tmp_path / f"camp_{review}"
        code, _o, err = run_cli(
            "annotate",
            "plan",
            str(tmp_path / "items.csv"),
            "--n",
            "3",
            "--raters",
            "ann",
            "--overlap",
            "1",
            "--judge-labels",
            str(tmp_path / "judge.csv"),
            "--name",
            f"review-{review}-{uuid.uuid4().hex[:6]}",
            "--out",
            str(camp),
        )
        assert code == 0, err
        code, out, err = run_cli("annotate", "push", str(camp), *(["--review"] if review else []), "--json")
        assert code == 0, err
        project = json.loads(out)["projects"][0]["project_id"]
        client = LabelStudio(base_url=ls_env.url, api_key=ls_env.token, timeout=300)
        tasks = list(client.tasks.list(project=project, page_size=100))
        manifest = json.loads((camp / "manifest.json").read_text())
        uid_item = {a["uid"]: a["item_id"] for a in manifest["assignments"]}
        for task in tasks:
            assert "judge" not in json.dumps(task.data) and "bd:2" not in json.dumps(task.data)
            preds = list(client.predictions.list(task=task.id))
            if not review:
                assert preds == []
                continue
            verdict = {r["from_name"]: r["value"]["choices"][0] for r in preds[0].result}
            item = uid_item[task.data["uid"]]
            mine = (
                judge[judge["item_id"] == item]
                .set_index("question")["label"]
                .map({"true": "Yes", "false": "No"})
            )
            assert verdict == mine.to_dict() and preds[0].model_version == "judge-llm"
        code, out, err = run_cli(
            "annotate", "pull", str(camp), "--out", str(tmp_path / f"pulled_{review}"), "--json"
        )
        assert code == 0, err
        counts = json.loads(out)["counts"]
        assert counts["predictions_ignored"] == (3 if review else 0) and counts["missing"] == 3
