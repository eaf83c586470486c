"""``wordplay-audit wof metrics`` and ``wof simulate``: output, JSON, and bad input."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from tests.support.wof_logs import ALPHA, report_text, write_logs


def test_metrics_json_on_hand_made_logs(run_cli, tmp_path):
    code, out, err = run_cli("wof", "metrics", str(write_logs(tmp_path / "logs")), "--json")
    assert code == 0, err
    payload = json.loads(out)
    models = {m["model"]: m for m in payload["models"]}
    assert models["alpha"]["wins"] == 2 and models["beta"]["wins"] == 1
    assert models["alpha"]["final_budget_total"] == 850
    assert payload["skipped"]["unterminated_last_game"] == 1
    beta_errors = {e["outcome"]: e["count"] for e in payload["errors"] if e["model"] == "beta"}
    assert beta_errors["round_limit"] == 1 and beta_errors["insufficient_budget"] == 0


def test_metrics_summary_and_out_folder(run_cli, tmp_path):
    logs = write_logs(tmp_path / "logs")
    code, out, err = run_cli("wof", "metrics", str(logs / "alpha.jsonl"), "--out", str(tmp_path / "m"))
    assert code == 0, err
    assert "alpha" in out and "wrote" in out
    written = {p.name for p in (tmp_path / "m").iterdir()}
    assert {
        "models.csv",
        "errors.csv",
        "items.csv",
        "judge_labels.csv",
        "outcomes.png",
        "first_consonants.png",
    } <= written
    items = pd.read_csv(tmp_path / "m" / "items.csv", keep_default_na=False)
    assert items["item_id"].tolist() == [f"wof:alpha:{i}" for i in range(5)]


def test_simulate_then_metrics(run_cli, tmp_path):
    sim = tmp_path / "sim"
    code, out, err = run_cli(
        "wof",
        "simulate",
        "--out",
        str(sim),
        "--policy",
        "frequent-consonant,overconfident",
        "--games",
        "30",
        "--seed",
        "2",
        "--json",
    )
    assert code == 0, err
    payload = json.loads(out)
    assert set(payload["written"]) == {"frequent-consonant", "overconfident", "truth"}
    assert payload["riddles"] == "demo"
    truth = pd.read_csv(sim / "truth.csv", keep_default_na=False)
    assert len(truth) == 60
    code, out, err = run_cli("wof", "metrics", str(sim), "--json")
    assert code == 0, err
    wins = {m["model"]: m["wins"] for m in json.loads(out)["models"]}
    assert wins == truth.groupby("player_model")["exact_match"].sum().to_dict()


def test_simulate_is_seeded(run_cli, tmp_path):
    for name in ("a", "b"):
        assert (
            run_cli("wof", "simulate", "--out", str(tmp_path / name), "--policy", "random", "--games", "10")[
                0
            ]
            == 0
        )
    assert (tmp_path / "a" / "random.jsonl").read_bytes() == (tmp_path / "b" / "random.jsonl").read_bytes()


def _one_error_line(run_cli, *args) -> str:
    code, out, err = run_cli(*args)
    assert code == 2, (out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    return lines[0]


def test_broken_line_stops_with_file_and_line(run_cli, tmp_path):
    lines = report_text(ALPHA).splitlines()
    lines[5] = '{"letter": "T", "masked": '
    path = tmp_path / "broken.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    message = _one_error_line(run_cli, "wof", "metrics", str(path))
    assert f"{path} line 6: expected a JSON object" in message
    code, out, err = run_cli("wof", "metrics", str(path), "--on-error", "skip", "--json")
    assert code == 0, err
    payload = json.loads(out)
    assert payload["skipped"]["broken_lines"] == 1 and payload["skipped"]["games_dropped"] == 1
    assert payload["problems"][0].startswith(f"{path} line 6: ")
    assert payload["models"][0]["games"] == len(ALPHA) - 1


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["wof", "metrics", "{tmp}/absent"], "no such file or folder"),
        (["wof", "metrics", "{tmp}", "--on-error", "ignore"], "--on-error: expected one of raise, skip"),
        (
            ["wof", "recompute", "{tmp}", "--human", "{tmp}/h.csv", "--confidence", "nan"],
            "--confidence: expected a level",
        ),
        (["wof", "recompute", "{tmp}", "--human", "{tmp}/h.csv", "--confidence", "1"], "--confidence:"),
        (
            ["wof", "metrics", "{tmp}", "--riddles", "{tmp}/absent.jsonl"],
            "--riddles: used only with --out",
        ),  # ignored
        (
            ["wof", "simulate", "--out", "{tmp}/o", "--policy", "smart"],
            "--policy: expected one of frequent-consonant, random, overconfident",
        ),
        (["wof", "simulate", "--out", "{tmp}/o", "--games", "0"], "--games"),
        (
            ["wof", "simulate", "--out", "{tmp}/o", "--policy", ""],
            "--policy: no policy in",
        ),  # was a traceback
        (["wof", "simulate", "--out", "{tmp}/o", "--policy", " , "], "--policy: no policy in"),
        (["wof", "simulate", "--out", "{tmp}/o", "--games", str(10**12)], "--games"),  # ran without end
        (["wof", "simulate", "--out", "{tmp}/o", "--seed", "-1"], "--seed"),  # was a numpy traceback
        (["wof", "simulate", "--out", "", "--games", "2"], "--out .: is the current directory"),
        (
            ["wof", "simulate", "--out", "{tmp}/o", "--riddles", "{tmp}/riddles.jsonl"],
            "riddles.jsonl line 1:",
        ),
    ],
)
def test_bad_input_one_line(run_cli, tmp_path, args, words):
    (tmp_path / "riddles.jsonl").write_text('{"category": "Place", "sentence": "ROME 2"}\n', encoding="utf-8")
    message = _one_error_line(run_cli, *[a.replace("{tmp}", str(tmp_path)) for a in args])
    assert words in message
    assert not (tmp_path / "o").exists()


def test_out_refuses_a_foreign_folder(run_cli, tmp_path):
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("keep", encoding="utf-8")
    message = _one_error_line(run_cli, "wof", "simulate", "--out", str(tmp_path / "mine"), "--games", "2")
    assert "not written by wordplay-audit" in message
    assert (tmp_path / "mine" / "notes.txt").read_text(encoding="utf-8") == "keep"
