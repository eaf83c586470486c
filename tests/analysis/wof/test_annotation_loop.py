"""The whole loop on simulated near misses, through annotate's file mode with scripted raters:
wof simulate → wof metrics --out (items) → annotate plan / export-files → scripted Label Studio
JSON exports → annotate import-file → wof recompute --human."""

from __future__ import annotations

import json

import pandas as pd
import pytest

pytestmark = pytest.mark.slow


def _scripted_export(tasks_file, manifest, rater, truth, path):
    """A Label Studio JSON export in which ``rater`` answered every task by the simulation's truth."""
    item_of = {a["uid"]: a["item_id"] for a in manifest["assignments"] if a["rater"] == rater}
    tasks = json.loads(tasks_file.read_text(encoding="utf-8"))
    for k, task in enumerate(tasks):
        verdict = "true" if truth[item_of[task["data"]["uid"]]] else "false"
        task["annotations"] = [
            {
                "id": k + 1,
                "completed_by": {"email": f"{rater}@example.org"},
                "result": [
                    {
                        "from_name": "correct",
                        "to_name": "t_candidate",
                        "type": "choices",
                        "value": {"choices": [verdict]},
                    }
                ],
            }
        ]
    path.write_text(json.dumps(tasks), encoding="utf-8")


def test_loop_through_annotate_file_mode(run_cli, tmp_path, wof_dir):
    sim, out = tmp_path / "sim", tmp_path / "m"
    ok = run_cli(
        "wof",
        "simulate",
        "--out",
        str(sim),
        "--riddles",
        str(wof_dir / "WoF.jsonl"),
        "--policy",
        "frequent-consonant,overconfident",
        "--games",
        "240",
        "--seed",
        "5",
    )
    assert ok[0] == 0, ok[2]
    assert run_cli("wof", "metrics", str(sim), "--out", str(out))[0] == 0
    items = pd.read_csv(out / "items.csv", keep_default_na=False)
    items[items["outcome"] != "win"].to_csv(tmp_path / "lost.csv", index=False)  # people see lost games only
    code, _, err = run_cli(
        "annotate",
        "plan",
        str(tmp_path / "lost.csv"),
        "--n",
        "120",
        "--raters",
        "ann,bob",
        "--overlap",
        "2",
        "--strata",
        "player_model",
        "--seed",
        "1",
        "--out",
        str(tmp_path / "camp"),
    )
    assert code == 0, err
    code, _, err = run_cli(
        "annotate", "export-files", str(tmp_path / "camp"), "--out", str(tmp_path / "files")
    )
    assert code == 0, err
    truth = pd.read_csv(sim / "truth.csv", keep_default_na=False).set_index("item_id")["truly_solved"]
    manifest = json.loads((tmp_path / "camp" / "manifest.json").read_text(encoding="utf-8"))
    exports = []
    for rater in ("ann", "bob"):
        path = tmp_path / f"export_{rater}.json"
        _scripted_export(tmp_path / "files" / f"tasks_{rater}.json", manifest, rater, truth, path)
        exports += ["--export", f"{rater}={path}"]
    code, _, err = run_cli(
        "annotate", "import-file", str(tmp_path / "camp"), *exports, "--out", str(tmp_path / "pulled")
    )
    assert code == 0, err
    code, text, err = run_cli(
        "wof",
        "recompute",
        "--seed",
        "0",
        str(sim),
        "--human",
        str(tmp_path / "pulled" / "labels.csv"),
        "--json",
    )
    assert code == 0, err
    payload = json.loads(text)
    audit = {a["player_model"]: a for a in payload["judge_audit"]}
    assert audit["overconfident"]["fn"] > 0 and audit["overconfident"]["fnr_w"] > 0
    true_rate = truth[truth.index.str.startswith("wof:overconfident:")].mean()
    rate = {r["model"]: r for r in payload["win_rates"]}["overconfident"]
    assert abs(rate["corrected"] - true_rate) < abs(rate["judge"] - true_rate)
    assert rate["corrected_low"] <= true_rate <= rate["corrected_high"]
