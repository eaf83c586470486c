"""Hostile input to the Wheel of Fortune reader and commands and to the judge commands: one-line
errors naming the file and place (exit 2), counted skips, nothing half-written."""

from __future__ import annotations

import json
import socket
import sqlite3

import pandas as pd
import pytest

from tests.support.wof_logs import ALPHA, report_text, write_logs
from wordplay_audit.corpora.wof._fast import fast_columns
from wordplay_audit.corpora.wof.reader import read_report


def _one_line(err: str) -> bool:
    return len(err.strip().splitlines()) == 1 and "Traceback" not in err


def _with_line_2(tmp_path, text: str):
    """ALPHA's report with line 2 (game 0's move "T", budget 600) replaced by ``text``."""
    lines = report_text(ALPHA).splitlines()
    lines[1] = text
    path = tmp_path / "m.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


# {"letter": "T", …, "budget": 600, "wheel_reward": 300, "letter_occurences": 2}
_T_MOVE = json.dumps(ALPHA[0][1])

HOSTILE_MOVES = {
    "budget 10^26": (_T_MOVE.replace('"budget": 600', '"budget": 99999999999999999999999999'), "budget"),
    "budget -1e300": (_T_MOVE.replace('"budget": 600', '"budget": -1e300'), "budget"),
    "letter BANANA": (_T_MOVE.replace('"letter": "T"', '"letter": "BANANA"'), "letter"),
    "letter empty": (_T_MOVE.replace('"letter": "T"', '"letter": ""'), "letter"),
    "letter lower-case": (_T_MOVE.replace('"letter": "T"', '"letter": "t"'), "letter"),
    "letter accented": (_T_MOVE.replace('"letter": "T"', '"letter": "\\u00e9"'), "letter"),
    "negative occurrences": (_T_MOVE.replace('"letter_occurences": 2', '"letter_occurences": -2'), "letter_occurences"),
    "negative reward": (_T_MOVE.replace('"wheel_reward": 300', '"wheel_reward": -300'), "wheel_reward"),
    "repeated key": (_T_MOVE.replace('"budget": 600', '"budget": 9, "budget": 600'), "budget"),
}  # fmt: skip


@pytest.mark.parametrize("case", list(HOSTILE_MOVES))
def test_wof_hostile_move_is_one_line_error_or_a_counted_skip(run_cli, tmp_path, case):
    text, key = HOSTILE_MOVES[case]
    path = _with_line_2(tmp_path, text)
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


def test_wof_well_formed_report_still_takes_the_fast_path(tmp_path):
    path = _with_line_2(tmp_path, _T_MOVE)  # unchanged: every letter, key and integer is valid
    assert fast_columns(path) is not None
    assert read_report(path).moves["letter"].astype(str).tolist()[:2] == ["_", "T"]


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
    assert code == 0 and "'items_without_category': 9" in out


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
    code, out, err = run_cli("wof", "recompute", str(logs), "--human", str(human))
    assert code == 2 and out == "" and _one_line(err)
    assert f"{human} line 6: rater 'p' rated item 'wof:alpha:4' twice" in err


def _items(path, n=12):
    rows = [{"item_id": f"g{i}", "game": "wof", "kind": "guess", "context": "PHRASE",
             "reference": f"WHEEL NUMBER {i}", "candidate": f"wheel number {i}" if i % 2 else f"whale {i}"}
            for i in range(n)]  # fmt: skip
    pd.DataFrame(rows).to_csv(path, index=False)
    return path


@pytest.mark.parametrize("threshold", ["NaN", "Infinity", "5", "-3", '"0.3"', "true", "null"])
def test_judge_run_refuses_a_fit_threshold_outside_the_score_range(run_cli, tmp_path, threshold):
    fit = tmp_path / "fit.json"
    fields = '"n": 12, "positives": 6, "in_sample": {}, "cv": {}'  # a whole fit file but for the threshold
    fit.write_text(f'{{"judge": "tfidf", "threshold": {threshold}, {fields}}}', encoding="utf-8")
    out = tmp_path / "l.csv"
    code, stdout, err = run_cli(
        "judge",
        "run",
        str(_items(tmp_path / "i.csv")),
        "--judge",
        "tfidf",
        "--fit",
        str(fit),
        "--out",
        str(out),
    )
    assert code == 2 and stdout == "" and _one_line(err) and not out.exists()
    assert f"{fit}: threshold: expected a finite number in [0, 1]" in err


def test_judge_run_accepts_the_fit_cut_below_the_lowest_score(run_cli, tmp_path):
    # best_threshold's lowest cut: (lowest score + lowest − 1e-6) / 2 = −5e-7 for a score of 0,
    # so every pair (tfidf scores ≥ 0) is true: 12 of 12. The file holds only judge and
    # threshold (the CV figures only describe a fit; their absence was a TypeError traceback)
    fit = tmp_path / "fit.json"
    fit.write_text('{"judge": "tfidf", "threshold": -5e-7}', encoding="utf-8")
    code, out, err = run_cli("judge", "run", str(_items(tmp_path / "i.csv")), "--judge", "tfidf",
                             "--fit", str(fit), "--out", str(tmp_path / "l.csv"), "--json")  # fmt: skip
    assert code == 0, err
    assert json.loads(out)["labels"] == {"true": 12, "false": 0, "unparsed": 0}


@pytest.mark.parametrize("missing", ["candidate", "reference"])
def test_judge_run_items_without_a_text_column_is_refused(run_cli, tmp_path, missing):
    items = tmp_path / "items.csv"
    pd.read_csv(_items(items)).drop(columns=[missing]).to_csv(items, index=False)
    out = tmp_path / "l.csv"
    code, stdout, err = run_cli("judge", "run", str(items), "--judge", "exact", "--out", str(out))
    assert code == 2 and stdout == "" and _one_line(err) and not out.exists()
    assert f"{items}: items table lacks column '{missing}'" in err


K1, K2 = "1" * 64, "2" * 64  # query keys as batch-write writes them (sha256 hex)


def _result(custom_id: str, content) -> dict:
    body = {
        "choices": [{"message": {"content": content}}],
        "usage": {"prompt_tokens": 9, "completion_tokens": 1},
    }
    return {"id": "r", "custom_id": custom_id, "response": {"status_code": 200, "body": body}, "error": None}


@pytest.mark.parametrize(
    ("lines", "needle"),
    [
        ([_result(K1, "yes"), _result(K2, "no"), _result(K1, "no")],
         f"line 3: custom_id '{K1[:40]}' was answered already on line 1"),
        ([_result(K1, "yes"), {**_result(K2, "no"), "response": {"status_code": 200, "body": {"choices": ["no"]}}}],
         "line 2: response body: expected a chat completion"),
    ],
)  # fmt: skip
def test_batch_read_refuses_conflicts_and_stores_nothing(run_cli, tmp_path, monkeypatch, lines, needle):
    monkeypatch.setenv("OPENAI_API_KEY", "x")
    results = tmp_path / "results.jsonl"
    results.write_text("".join(json.dumps(r) + "\n" for r in lines), encoding="utf-8")
    cache = tmp_path / "cache"
    code, out, err = run_cli(
        "judge", "batch-read", str(results), "--judge", "openai:m", "--cache", str(cache)
    )
    assert code == 2 and out == "" and _one_line(err)
    assert f"{results} {needle}" in err
    with sqlite3.connect(cache / "judges.sqlite") as db:  # the whole file is checked first
        assert db.execute("SELECT COUNT(*) FROM verdicts").fetchone()[0] == 0


def test_judge_run_unreachable_endpoint_leaves_out_as_it_was(run_cli, tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "x")
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]  # closed again: nothing listens there
    out = tmp_path / "l.csv"
    out.write_text("an earlier run's labels\n", encoding="utf-8")
    args = ["judge", "run", str(_items(tmp_path / "i.csv", n=3)), "--judge", "openai:m", "--base-url",
            f"http://127.0.0.1:{port}/v1", "--attempts", "1", "--timeout", "5", "--no-progress",
            "--cache", str(tmp_path / "cache"), "--out", str(out)]  # fmt: skip
    code, stdout, err = run_cli(*args, "--json")
    # exit 1, not 2: a failed call is retryable (docs/JUDGES.md, "The runner")
    assert code == 1 and _one_line(err) and "3 items not judged" in err and f"{out} not written" in err
    assert json.loads(stdout)["out"] is None and json.loads(stdout)["failed_items"] == 3
    assert out.read_text(encoding="utf-8") == "an earlier run's labels\n"
    out.unlink()
    code, _, err = run_cli(*args)
    assert code == 1 and not out.exists() and not list(tmp_path.glob("l.csv*"))


def test_judge_fit_refuses_labels_of_two_questions(run_cli, tmp_path):
    """Balderdash labels answer two questions (reference, any_sense); a fit pooled them (an item
    with true and false answers was a tie, left out). One question's rows fit; two are refused."""
    items = _items(tmp_path / "i.csv")
    rows = [f"g{i},p,human,{'true' if i % 2 else 'false'},reference" for i in range(12)]
    rows += [f"g{i},p,human,true,any_sense" for i in range(12)]
    both = tmp_path / "both.csv"
    both.write_text("item_id,rater,rater_type,label,question\n" + "\n".join(rows) + "\n", encoding="utf-8")
    args = ["judge", "fit", str(items), "--judge", "tfidf", "--out", str(tmp_path / "fit.json")]
    code, out, err = run_cli(*args, "--human", str(both))
    assert code == 2 and out == "" and _one_line(err) and not (tmp_path / "fit.json").exists()
    assert f"{both}: question: holds answers to 2 questions (any_sense, reference)" in err
    one = tmp_path / "one.csv"
    one.write_text(
        "item_id,rater,rater_type,label,question\n" + "\n".join(rows[:12]) + "\n", encoding="utf-8"
    )
    code, out, err = run_cli(*args, "--human", str(one), "--json")
    assert code == 0, err
    assert json.loads(out)["n"] == 12  # every item, no tie
