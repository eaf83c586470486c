"""``balderdash known-items`` and ``balderdash known`` end to end, and their refusals."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from tests.support.known_words import random_rows, write_framework_file


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("known")
    rng = np.random.default_rng(8)
    paths = [
        write_framework_file(
            folder, "org/llama", random_rows(rng, 120, prefix="a", p=(0.5, 0.4, 0.05, 0.05))
        ),
        write_framework_file(folder, "mistral", random_rows(rng, 90, prefix="b", p=(0.4, 0.5, 0.05, 0.05))),
    ]
    return folder, paths


def _human(items: pd.DataFrame, path, per_stratum: int = 12) -> None:
    """People's labels: the judge's verdict, flipped for one in four judge-false definitions."""
    pick = (
        items[items["judge_verdict"] != "none"].groupby(["player_model", "judge_verdict"]).head(per_stratum)
    )
    flip = (np.arange(len(pick)) % 4 == 0) & (pick["judge_verdict"] == "false").to_numpy()
    label = np.where((pick["judge_verdict"] == "true").to_numpy() | flip, "true", "false")
    pd.DataFrame({"item_id": pick["item_id"], "rater": "ann", "rater_type": "human", "label": label,
                  "question": "reference"}).to_csv(path, index=False)  # fmt: skip


def test_known_items_then_plan_then_known(run_cli, files, tmp_path):
    import wordplay_audit as wa

    folder, paths = files
    code, out, err = run_cli(
        "balderdash", "known-items", *map(str, paths), "--out", str(tmp_path / "items"), "--json"
    )
    assert code == 0, err
    data = json.loads(out)
    assert data["kinds"] == {"definition": data["n_items"]} and data["strata"] == [
        "player_model",
        "deck",
        "judge_verdict",
    ]
    items = wa.read_items(tmp_path / "items" / "items.csv")
    labels = wa.read_labels(tmp_path / "items" / "labels.csv")
    assert set(labels["rater_type"]) == {"judge"} and labels["item_id"].isin(items["item_id"]).all()
    # the campaign plans on the output unchanged
    plan = wa.plan_campaign(items, out=tmp_path / "camp", n=40, raters=["ann", "bob"], overlap=2,
                            strata=["player_model", "judge_verdict"], seed=1, judge_labels=labels)  # fmt: skip
    assert plan.manifest["design"]["n"] == 40
    _human(items, tmp_path / "human.csv")
    code, out, err = run_cli(
        "balderdash", "known", *map(str, paths), "--human", str(tmp_path / "human.csv"), "--json"
    )
    assert code == 0, err
    result = json.loads(out)
    by_model = {r["model"]: r for r in result["models"]}
    for path in paths:
        written = pd.read_csv(path, keep_default_na=False, dtype=str)
        row = by_model[path.stem.removesuffix("_balderdash_words1")]
        assert row["judge_known"] == int((written["llm_knows_word"] == "True").sum())  # the framework's count
        assert row["judge_na"] == int((written["llm_knows_word"] == "N/A").sum())
        assert row["ci_low"] <= row["known"] <= row["ci_high"] and row["reason"] is None
        assert row["labelled"] == 24
    assert len(result["next"]) == 10 and all(n["unlabelled_items"] for n in result["next"])
    code, text, err = run_cli("balderdash", "known", *map(str, paths), "--human", str(tmp_path / "human.csv"))
    assert (
        code == 0 and "judgements missing (-2, not read as false)" in text and "most uncertain words" in text
    )


def test_bad_known_file_exits_2_with_one_line(run_cli, tmp_path):
    bad = tmp_path / "m_balderdash_words1.csv"
    bad.write_text("words,def\ncat,['x']\n")
    code, out, err = run_cli("balderdash", "known-items", str(bad), "--out", str(tmp_path / "o"))
    assert (
        code == 2 and "lacks column 'POS'" in err and str(bad) in err and len(err.strip().splitlines()) == 1
    )
    assert not (tmp_path / "o").exists()
    code, _, err = run_cli(
        "balderdash", "known-items", str(tmp_path / "words.csv"), "--out", str(tmp_path / "o")
    )
    assert code == 2 and "expected a file named <model>_balderdash_words1.csv" in err


def test_labels_naming_no_definition_exit_2(run_cli, files, tmp_path):
    _, paths = files
    human = tmp_path / "h.csv"
    human.write_text("item_id,rater,rater_type,label,question\nknown:nope:w:1,ann,human,true,reference\n")
    code, _, err = run_cli("balderdash", "known", *map(str, paths), "--human", str(human))
    assert code == 2 and "names no definition of the known-word files" in err and "line 2" in err
    code, _, err = run_cli("balderdash", "known", *map(str, paths), "--human", str(human), "--question", "x")
    assert code == 2 and "question" in err
