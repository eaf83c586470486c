"""``wa.consensus(method=...)`` and ``analyze aggregate --method``: every consensus method, and
each rater's sensitivity and specificity with intervals for two categories."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import wordplay_audit as wa


def _labels(n=200, seed=0, raters=((0.9, 0.85), (0.8, 0.95), (0.95, 0.9))):
    rng = np.random.default_rng(seed)
    truth = rng.random(n) < 0.3
    rows = []
    for r, (se, sp) in enumerate(raters):
        said = np.where(truth, rng.random(n) < se, rng.random(n) > sp)
        rows += [(f"i{i:03d}", f"r{r}", "human", "true" if v else "false") for i, v in enumerate(said)]
    return pd.DataFrame(rows, columns=["item_id", "rater", "rater_type", "label"])


GOLD = pd.DataFrame({"item_id": [f"i{i:03d}" for i in range(40)], "label": "false"})
SKILLS = pd.DataFrame({"rater": ["r0", "r1", "r2"], "skill": [1.0, 2.0, 0.5]})
EXTRA = {"gold-majority": {"gold": GOLD}, "weighted-majority": {"skills": SKILLS}}


@pytest.mark.parametrize(
    "method",
    ["majority", "dawid-skene", "one-coin", "mace", "glad", "wawa", "zero-based-skill", "gold-majority",
     "weighted-majority"],
)  # fmt: skip
def test_every_method_gives_a_label_per_item_and_the_rater_table(method):
    result = wa.consensus(_labels(), method=method, n_boot=200, **EXTRA.get(method, {}))
    assert len(result.table) == 200 and result.table["label"].isin(["true", "false"]).all()
    raters = result.raters
    assert list(raters["rater"]) == ["r0", "r1", "r2"]
    for name in ("se", "sp"):
        assert (raters[f"{name}_low"] <= raters[name]).all() and (
            raters[name] <= raters[f"{name}_high"]
        ).all()
    if method == "one-coin":
        np.testing.assert_allclose(raters["se"], raters["sp"])
    out = result.to_dict()
    assert out["method"] == method and len(out["raters"]) == 3 and "bootstrap" in out["raters_note"]
    assert any("sensitivity and specificity" in line for line in result.summary())


def test_dawid_skene_and_mace_agree_with_the_reference_estimators():
    from wordplay_audit.analysis.agreement import MACE, DawidSkene

    labels = _labels(seed=2)
    ds = wa.consensus(labels, method="dawid-skene").table.set_index("item_id")["label"]
    assert ds.equals(DawidSkene().fit(labels).consensus().set_index("item_id")["label"])
    mace = wa.consensus(labels, method="mace", n_iter=50).table.set_index("item_id")["label"]
    assert mace.equals(MACE(n_iter=50).fit(labels).consensus().set_index("item_id")["label"])


def test_two_raters_get_no_rater_table_and_say_why():
    result = wa.consensus(_labels(raters=((0.9, 0.9), (0.85, 0.9))), method="dawid-skene", n_boot=100)
    assert result.raters is None
    assert "two ratings and one population do not identify rater error" in result.raters_note
    assert any(result.raters_note in line for line in result.summary())


def test_cli_aggregate_one_coin_json(run_cli, tmp_path):
    path = tmp_path / "labels.csv"
    _labels().to_csv(path, index=False)
    code, out, err = run_cli("analyze", "aggregate", str(path), "--out", str(tmp_path / "c.csv"),
                             "--method", "one-coin", "--json")  # fmt: skip
    assert code == 0, err
    data = json.loads(out)
    assert data["method"] == "one-coin"
    assert {"rater", "se", "se_low", "se_high", "sp", "sp_low", "sp_high"} <= set(data["raters"][0])
    code, out, err = run_cli(
        "analyze", "aggregate", str(path), "--out", str(tmp_path / "d.csv"), "--method", "bayes"
    )
    assert code == 2 and "--method" in err and "mace" in err


def test_the_skill_methods_equal_their_estimators_and_report_what_they_learned():
    from wordplay_audit.analysis.agreement import (
        GLAD,
        DawidSkene,
        GoldMajorityVote,
        Wawa,
        WeightedMajorityVote,
    )

    labels = _labels(seed=4)
    for method, estimator, extra in [
        ("glad", GLAD(), {}),
        ("wawa", Wawa(), {}),
        ("gold-majority", GoldMajorityVote(GOLD), {"gold": GOLD}),
        ("weighted-majority", WeightedMajorityVote({"r0": 1.0, "r1": 2.0, "r2": 0.5}), {"skills": SKILLS}),
        ("dawid-skene", DawidSkene(gold=GOLD), {"gold": GOLD}),
    ]:
        result = wa.consensus(labels, method=method, n_boot=100, **extra)
        expected = estimator.fit(labels).consensus()
        pd.testing.assert_frame_equal(result.table, expected)
        out = result.to_dict()
        learned = {"glad": "abilities", "dawid-skene": "priors"}.get(method, "skills")
        assert set(out[learned]) == ({"false", "true"} if method == "dawid-skene" else {"r0", "r1", "r2"})
    assert wa.consensus(labels, method="dawid-skene", gold=GOLD, n_boot=100).to_dict()["gold_items"] == 40


def test_inputs_a_method_does_not_read_or_needs_are_named():
    from wordplay_audit.errors import ParameterError

    labels = _labels()
    with pytest.raises(ParameterError, match="^gold: method 'wawa' reads no gold labels"):
        wa.consensus(labels, method="wawa", gold=GOLD)
    with pytest.raises(ParameterError, match="^skills: method 'glad' learns its own"):
        wa.consensus(labels, method="glad", skills=SKILLS)
    with pytest.raises(ParameterError, match="^gold: method 'gold-majority' needs the gold labels"):
        wa.consensus(labels, method="gold-majority")
    with pytest.raises(ParameterError, match="^skills: method 'weighted-majority' needs"):
        wa.consensus(labels, method="weighted-majority")


def test_cli_aggregate_gold_and_skills_files(run_cli, tmp_path):
    path, gold, skills = tmp_path / "labels.csv", tmp_path / "gold.csv", tmp_path / "skills.csv"
    _labels().to_csv(path, index=False)
    GOLD.to_csv(gold, index=False)
    SKILLS.to_csv(skills, index=False)
    code, out, err = run_cli("analyze", "aggregate", str(path), "--out", str(tmp_path / "g.csv"),
                             "--method", "gold-majority", "--gold", str(gold), "--json")  # fmt: skip
    assert code == 0, err
    assert json.loads(out)["method"] == "gold-majority" and (tmp_path / "g.csv").exists()
    code, out, err = run_cli("analyze", "aggregate", str(path), "--out", str(tmp_path / "w.csv"),
                             "--method", "weighted-majority", "--skills", str(skills))  # fmt: skip
    assert code == 0, err
    assert "weighted-majority: 200 items" in out and "skills: r0 1, r1 2, r2 0.5" in out
    code, out, err = run_cli("analyze", "aggregate", str(path), "--out", str(tmp_path / "x.csv"),
                             "--method", "gold-majority")  # fmt: skip
    assert code == 2 and err.startswith("error: --gold: method 'gold-majority' needs the gold labels"), err
    assert not (tmp_path / "x.csv").exists()


def test_the_text_prints_the_conditional_dependence_check():
    lines = wa.consensus(_labels(), method="dawid-skene", n_boot=100).summary()
    at = next(i for i, line in enumerate(lines) if line.startswith("conditional-dependence check:"))
    assert "largest excess agreement" in lines[at] and "rater" in lines[at - 4]  # after the rater table
