"""``balderdash items``: the export's definitions as contract items with strata, judge verdicts as labels."""

from __future__ import annotations

import json

import pandas as pd


def test_items_and_judge_labels(tmp_path, run_cli):
    code, _o, err = run_cli(
        "balderdash",
        "simulate",
        "--out",
        str(tmp_path / "sim"),
        "--seed",
        "3",
        "--games-per-deck",
        "1",
        "--rounds",
        "4",
        "--players-per-model",
        "1",
    )
    assert code == 0, err
    code, out, err = run_cli(
        "balderdash", "items", str(tmp_path / "sim"), "--out", str(tmp_path / "items"), "--json"
    )
    assert code == 0, err
    payload = json.loads(out)
    # 2 decks × 1 game × 4 rounds × 3 models × 1 player = 24 definitions, two judge verdicts each
    assert payload["n_items"] == 24 and payload["n_labels"] == 48
    items = pd.read_csv(tmp_path / "items" / "items.csv", dtype=str, keep_default_na=False)
    labels = pd.read_csv(tmp_path / "items" / "labels.csv", dtype=str, keep_default_na=False)
    assert set(items["kind"]) == {"definition"} and items["item_id"].is_unique
    assert {"player_model", "deck", "round_id", "judge_verdict", "frequency_band", "senses"} <= set(
        items.columns
    )
    assert set(items["frequency_band"]) <= {"rare", "common", ""} and (items["senses"] != "").all()
    assert set(labels["rater_type"]) == {"judge"}
    questions = labels.groupby("item_id")["question"].apply(lambda q: tuple(sorted(q)))
    assert set(questions) == {("any_sense", "reference")}
    truth = pd.read_csv(tmp_path / "sim" / "truth.csv", dtype=str)
    assert set(truth["item_id"]) == set(items["item_id"])
    verdict = labels[labels["question"] == "reference"].set_index("item_id")["label"]
    assert (items.set_index("item_id")["judge_verdict"] == verdict.reindex(items["item_id"]).to_numpy()).all()


def test_items_bad_export_is_one_line(tmp_path, run_cli):
    (tmp_path / "empty").mkdir()
    code, out, err = run_cli("balderdash", "items", str(tmp_path / "empty"), "--out", str(tmp_path / "o"))
    assert code == 2 and out == "" and err.count("\n") == 1
    assert not (tmp_path / "o").exists()
