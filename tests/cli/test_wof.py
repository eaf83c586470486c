"""``wordplay-audit wof metrics`` and ``wof simulate``: output, JSON, and bad input."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from tests.support import bad_inputs
from tests.support.wof_logs import ALPHA, T_MOVE, report_text, with_line_2, write_logs
from wordplay_audit.corpora.wof._fast import fast_columns


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
            ["wof", "recompute", "--seed", "0", "{tmp}", "--human", "{tmp}/h.csv", "--confidence", "nan"],
            "--confidence: expected a level",
        ),
        (
            ["wof", "recompute", "--seed", "0", "{tmp}", "--human", "{tmp}/h.csv", "--confidence", "1"],
            "--confidence:",
        ),
        (
            ["wof", "simulate", "--out", "{tmp}/o", "--policy", "smart"],
            "--policy: expected one of frequent-consonant, random, overconfident",
        ),
        (["wof", "simulate", "--out", "{tmp}/o", "--games", "0"], "--games"),
        (
            ["wof", "simulate", "--out", "{tmp}/o", "--policy", ""],
            "--policy: give at least one of frequent-consonant, random, overconfident",
        ),  # was a traceback
        (
            ["wof", "simulate", "--out", "{tmp}/o", "--policy", " , "],
            "--policy: give at least one of frequent-consonant, random, overconfident",
        ),
        (["wof", "simulate", "--out", "{tmp}/o", "--games", str(10**12)], "--games"),  # ran without end
        (["wof", "simulate", "--out", "{tmp}/o", "--seed", "-1"], "--seed"),  # was a numpy traceback
        (["wof", "simulate", "--out", "", "--games", "2"], "--out: . is the current directory"),
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


# --- a hostile move, riddles naming no game, a rating given twice ---------------------------------


def _one_line(err: str) -> bool:
    return len(err.strip().splitlines()) == 1 and "Traceback" not in err


HOSTILE_MOVES = {
    "budget 10^26": (T_MOVE.replace('"budget": 600', '"budget": 99999999999999999999999999'), "budget"),
    "budget -1e300": (T_MOVE.replace('"budget": 600', '"budget": -1e300'), "budget"),
    "letter BANANA": (T_MOVE.replace('"letter": "T"', '"letter": "BANANA"'), "letter"),
    "letter empty": (T_MOVE.replace('"letter": "T"', '"letter": ""'), "letter"),
    "letter lower-case": (T_MOVE.replace('"letter": "T"', '"letter": "t"'), "letter"),
    "letter accented": (T_MOVE.replace('"letter": "T"', '"letter": "\\u00e9"'), "letter"),
    "negative occurrences": (T_MOVE.replace('"letter_occurences": 2', '"letter_occurences": -2'), "letter_occurences"),
    "negative reward": (T_MOVE.replace('"wheel_reward": 300', '"wheel_reward": -300'), "wheel_reward"),
    "repeated key": (T_MOVE.replace('"budget": 600', '"budget": 9, "budget": 600'), "budget"),
}  # fmt: skip


@pytest.mark.parametrize("case", list(HOSTILE_MOVES))
def test_wof_hostile_move_is_one_line_error_or_a_counted_skip(run_cli, tmp_path, case):
    text, key = HOSTILE_MOVES[case]
    path = with_line_2(tmp_path, text)
    assert fast_columns(path) is None  # the fast path hands it to the careful one
    code, out, err = run_cli("wof", "metrics", str(path))
    assert code == 2 and out == "" and _one_line(err)
    assert f"{path} line 2: key '{key}'" in err
    # --on-error skip: game 0 (lines 1-4) is left out and counted; 4 games remain
    code, out, err = run_cli("wof", "metrics", str(path), "--on-error", "skip", "--json")
    assert code == 0, err
    payload = json.loads(out)
    skipped = payload["skipped"]
    assert (skipped["broken_lines"], skipped["games_dropped"], skipped["lines_dropped"]) == (1, 1, 4)
    assert payload["models"][0]["games"] == len(ALPHA) - 1 == 4
    # letter moves left: game 2's T and Z, game 4's C (game 0's T, E, H went with it) = 3
    assert payload["models"][0]["letters_chosen"] == 3
    assert f"{path} line 2: key '{key}'" in payload["problems"][0]


def test_wof_metrics_counts_items_without_riddle_category(run_cli, tmp_path):
    logs = write_logs(tmp_path / "logs")  # alpha: 5 games, beta: 6 games = 11 items
    riddles = tmp_path / "riddles.jsonl"
    rows = [{"category": "Animal", "sentence": "THE CAT"}, {"category": "Animal", "sentence": "DOG"}]
    riddles.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    code, out, err = run_cli(
        "wof", "metrics", str(logs), "--riddles", str(riddles), "--out", str(tmp_path / "o"), "--json"
    )
    assert code == 0, err
    # the riddles name alpha's games 0 (THE CAT) and 1 (DOG) only: 11 − 2 = 9 items without one
    assert json.loads(out)["skipped"]["items_without_category"] == 9
    items = pd.read_csv(tmp_path / "o" / "items.csv", dtype=str, keep_default_na=False)
    assert (items["category"] == "").sum() == 9
    code, out, _ = run_cli(
        "wof", "metrics", str(logs), "--riddles", str(riddles), "--out", str(tmp_path / "o")
    )
    assert code == 0 and "counted: unterminated last game 1, items without category 9" in out


def test_wof_recompute_duplicate_rating_names_file_and_line(run_cli, tmp_path):
    logs = write_logs(tmp_path / "logs")
    human = tmp_path / "labels.csv"
    human.write_text(
        "item_id,rater,rater_type,label\n"  # line 1
        "wof:alpha:2,p,human,false\n"  # line 2
        "wof:alpha:4,p,human,true\n"  # line 3
        "wof:alpha:2,other-judge,judge,true\n"  # line 4 (a judge row: not a person's)
        "wof:beta:4,p,human,true\n"  # line 5
        "wof:alpha:4,p,human,false\n",  # line 6: p rates wof:alpha:4 a second time
        encoding="utf-8",
    )
    code, out, err = run_cli("wof", "recompute", "--seed", "0", str(logs), "--human", str(human))
    assert code == 2 and out == "" and _one_line(err)
    assert f"{human} line 6: rater 'p' rated item 'wof:alpha:4' twice" in err


# --- malformed input: one line, exit 2, the output folder as it was (tests/support/bad_inputs.py) ---


@pytest.mark.parametrize(
    ("command", "build", "kind", "slot"), bad_inputs.other_cases("wof"), ids=bad_inputs.other_case_ids("wof")
)
def test_every_other_command_on_malformed_input(
    more_good, tmp_path, in_tmp, monkeypatch, tree_digest, command, build, kind, slot
):
    bad_inputs.check_other_command(more_good, tmp_path, in_tmp, monkeypatch, tree_digest, build, kind, slot)


@pytest.mark.parametrize("command", bad_inputs.good_runs("wof"))
def test_the_table_breaks_only_the_input(more_good, good, tmp_path, in_tmp, monkeypatch, command):
    bad_inputs.check_good_run(more_good, good, tmp_path, in_tmp, monkeypatch, command)


@pytest.mark.parametrize("command", bad_inputs.folder_for_file("wof"), ids=lambda c: c.replace(" ", "-"))
def test_a_folder_where_a_file_is_expected_is_named_as_a_folder(
    more_good, good, tmp_path, in_tmp, monkeypatch, tree_digest, command
):
    bad_inputs.check_folder_for_file(more_good, good, tmp_path, in_tmp, monkeypatch, tree_digest, command)
