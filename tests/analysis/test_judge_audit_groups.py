"""Judge audit per group: equal to scikit-learn / statsmodels on the same labels; policies; CLI."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import accuracy_score, cohen_kappa_score, f1_score, precision_score, recall_score
from statsmodels.stats.proportion import proportion_confint

from wordplay_audit.analysis.judge_audit_cells import cell_metrics
from wordplay_audit.analysis.judge_audit_groups import ALL, judge_audit
from wordplay_audit.errors import ParameterError


def _tables(seed: int = 0, n: int = 300):
    rng = np.random.default_rng(seed)
    human = rng.random(n) < 0.6
    judge = np.where(human, rng.random(n) < 0.8, rng.random(n) < 0.3)
    model = rng.choice(["m1", "m2", "m3"], n)
    ids = [f"i{k}" for k in range(n)]
    items = pd.DataFrame({"item_id": ids, "game": "demo", "kind": "guess", "player_model": model,
                          "deck": rng.choice(["a", "b"], n), "w": rng.uniform(0.5, 3, n)})  # fmt: skip
    judge_labels = pd.DataFrame({"item_id": ids, "rater": "j1", "rater_type": "judge",
                                 "label": np.where(judge, "true", "false")})  # fmt: skip
    human_labels = pd.DataFrame({"item_id": ids, "rater": "p1", "rater_type": "human",
                                 "label": np.where(human, "yes", "no")})  # fmt: skip
    return items, judge_labels, human_labels, judge, human, model


def test_metrics_equal_sklearn_per_model():
    items, jl, hl, judge, human, model = _tables()
    result = judge_audit(jl, hl, items, by=["player_model"], n_boot=200)
    rows = {r["player_model"]: r for r in result.rows}
    assert set(rows) == {ALL, "m1", "m2", "m3"}
    for name, mask in [(ALL, np.ones(len(model), bool)), *[(m, model == m) for m in ("m1", "m2", "m3")]]:
        j, h = judge[mask], human[mask]
        row = rows[name]
        assert row["tp"] + row["fp"] + row["fn"] + row["tn"] == row["n"] == mask.sum()
        assert row["precision"]["value"] == pytest.approx(precision_score(h, j))
        assert row["recall"]["value"] == pytest.approx(recall_score(h, j))
        assert row["f1"]["value"] == pytest.approx(f1_score(h, j))
        assert row["accuracy"]["value"] == pytest.approx(accuracy_score(h, j))
        assert row["kappa"]["value"] == pytest.approx(cohen_kappa_score(h, j))
        assert row["fnr"]["value"] == pytest.approx(1 - recall_score(h, j))
        assert row["fpr"]["value"] == pytest.approx(np.sum(j & ~h) / np.sum(~h))
        lo, hi = proportion_confint(row["fn"], row["tp"] + row["fn"], method="wilson")
        assert (row["fnr"]["ci_low"], row["fnr"]["ci_high"]) == pytest.approx((lo, hi))
        assert row["fnr"]["n"] == row["tp"] + row["fn"]
        for m in ("precision", "recall", "f1", "fnr", "fpr", "accuracy", "kappa"):
            e = row[m]
            assert e["ci_low"] <= e["value"] <= e["ci_high"], (name, m)
    assert sum(rows[m]["n"] for m in ("m1", "m2", "m3")) == rows[ALL]["n"]


def test_cohen_kappa_by_hand():
    # tp 20 fp 5 fn 10 tn 15 (n 50): p_o = 35/50 = .7; p_e = (25·30 + 25·20)/2500 = .5; κ = .4
    assert cell_metrics(20, 5, 10, 15)["kappa"] == pytest.approx(0.4)
    assert np.isnan(cell_metrics(0, 0, 0, 0)["recall"])


def test_unparsed_policies_and_counts():
    items, jl, hl, *_ = _tables(n=40)
    jl.loc[:4, "label"] = "unparsed"
    out = {
        p: judge_audit(jl, hl, items, by=[], unparsed=p, n_boot=0).rows[0]
        for p in ("exclude", "as_false", "as_true")
    }
    assert out["exclude"]["n_unparsed"] == 5 and out["exclude"]["n"] == 35
    assert out["as_false"]["n"] == out["as_true"]["n"] == 40 and out["as_true"]["n_unparsed"] == 0
    assert out["as_true"]["tp"] + out["as_true"]["fp"] == out["exclude"]["tp"] + out["exclude"]["fp"] + 5
    with pytest.raises(ParameterError, match="^unparsed: expected one of exclude, as_false, as_true"):
        judge_audit(jl, hl, items, by=[], unparsed="drop")


def test_bake_off_and_consensus_ties():
    items, jl, hl, *_ = _tables(n=60)
    second = jl.assign(rater="j2", label="true")
    extra = hl.assign(rater="p2")  # p2 agrees with p1 everywhere ...
    extra.loc[:2, "label"] = np.where(hl.loc[:2, "label"] == "yes", "no", "yes")  # ... but 3 ties
    result = judge_audit(
        pd.concat([jl, second]), pd.concat([hl, extra]), items, by=["player_model"], n_boot=0
    )
    assert result.judges == ["j1", "j2"]
    assert result.skipped["human_ties"] == 3
    overall = {r["judge"]: r for r in result.rows if r["player_model"] == ALL}
    assert overall["j1"]["n"] == overall["j2"]["n"] == 57
    assert overall["j2"]["fn"] == 0 and overall["j2"]["recall"]["value"] == 1.0


def test_single_annotator_and_weights_by_hand():
    items = pd.DataFrame(
        {"item_id": ["a", "b", "c", "d"], "game": "demo", "kind": "guess", "w": [1.0, 2.0, 3.0, 4.0]}
    )
    jl = pd.DataFrame(
        {
            "item_id": list("abcd"),
            "rater": "j",
            "rater_type": "judge",
            "label": ["true", "true", "false", "false"],
        }
    )
    hl = pd.DataFrame(
        {
            "item_id": list("abcd"),
            "rater": "ann",
            "rater_type": "human",
            "label": ["true", "false", "true", "false"],
        }
    )
    row = judge_audit(jl, hl, items, by=[], human_rater="ann", weight="w", n_boot=0, min_cell=2).rows[0]
    # weighted cells: tp 1 (a), fp 2 (b), fn 3 (c), tn 4 (d) → recall_w 1/4, precision_w 1/3
    assert row["recall_w"] == pytest.approx(0.25) and row["precision_w"] == pytest.approx(1 / 3)
    assert row["fnr_w"] == pytest.approx(0.75) and row["small"] is False


def test_small_groups_flagged():
    items, jl, hl, *_ = _tables(n=30)
    result = judge_audit(jl, hl, items, by=["player_model"], n_boot=0, min_cell=10)
    assert all(r["small"] for r in result.rows if r["player_model"] != ALL)


def test_cli_judge_audit(run_cli, tmp_path):
    items, jl, hl, *_ = _tables(n=120)
    items.to_csv(tmp_path / "items.csv", index=False)
    jl.to_csv(tmp_path / "judge.csv", index=False)
    hl.to_csv(tmp_path / "human.csv", index=False)
    code, out, err = run_cli(
        "analyze", "judge-audit", "--judge-labels", str(tmp_path / "judge.csv"), "--human", str(tmp_path / "human.csv"),
        "--items", str(tmp_path / "items.csv"), "--by", "player_model,deck", "--bootstrap", "100",
        "--out", str(tmp_path / "audit"), "--json",
    )  # fmt: skip
    assert code == 0, err
    payload = json.loads(out)
    assert payload["by"] == ["player_model", "deck"]
    group = payload["groups"][1]
    assert {"n", "tp", "fp", "fn", "tn"} <= group.keys()
    for m in ("precision", "recall", "f1", "fnr", "fpr", "kappa"):
        assert set(group[m]) == {"value", "ci_low", "ci_high", "n", "ci_reason"}
        assert group[m]["ci_low"] is not None and group[m]["ci_reason"] is None
    assert (tmp_path / "audit" / "report.html").is_file() and (tmp_path / "audit" / "judge_fnr.png").is_file()
    code, _, err = run_cli("analyze", "judge-audit", "--judge-labels", str(tmp_path / "judge.csv"),
                           "--human", str(tmp_path / "human.csv"), "--by", "player_model")  # fmt: skip
    assert code == 2 and "--items" in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--seed", "-1"], "--seed: expected a whole number ≥ 0"),  # was a numpy traceback
        (["--bootstrap", str(10**12)], "--bootstrap: expected a whole number in [0, "),  # was MemoryError
        (["--bootstrap", "-1"], "--bootstrap:"),
        (
            ["--bootstrap", "1"],
            "--bootstrap: expected 0 (no bootstrap) or a whole number ≥ 2",
        ),  # as agreement
        (["--min-cell", "-1"], "--min-cell: expected a whole number ≥ 0"),  # was accepted silently
        (["--confidence", "nan"], "--confidence: expected a level strictly between 0 and 1"),
        (["--confidence", "inf"], "--confidence:"),
        (["--confidence", "0"], "--confidence:"),
        (["--weight", ""], "--weight: expected the name of an items column"),  # was KeyError: ''
    ],
)
def test_cli_judge_audit_options_refused_under_their_own_name(run_cli, tmp_path, args, needle):
    items, jl, hl, *_ = _tables(n=40)
    items.to_csv(tmp_path / "items.csv", index=False)
    jl.to_csv(tmp_path / "judge.csv", index=False)
    hl.to_csv(tmp_path / "human.csv", index=False)
    code, out, err = run_cli(
        "analyze", "judge-audit", "--judge-labels", str(tmp_path / "judge.csv"), "--human",
        str(tmp_path / "human.csv"), "--items", str(tmp_path / "items.csv"), "--out", str(tmp_path / "audit"), *args,
    )  # fmt: skip
    assert code == 2 and out == "" and not (tmp_path / "audit").exists()
    assert len(err.strip().splitlines()) == 1 and needle in err


def test_cli_judge_audit_without_resamples_says_so(run_cli, tmp_path):
    """--bootstrap 0 (as `analyze agreement --bootstrap 0`): F1 and κ keep their values, their
    intervals are null with the reason in JSON and "n/a (no resamples)" in text (was "[nan, nan]");
    the Wilson intervals do not need resamples and stay."""
    items, jl, hl, judge, human, _ = _tables(n=60)
    items.to_csv(tmp_path / "items.csv", index=False)
    jl.to_csv(tmp_path / "judge.csv", index=False)
    hl.to_csv(tmp_path / "human.csv", index=False)
    args = [
        "analyze", "judge-audit", "--judge-labels", str(tmp_path / "judge.csv"), "--human",
        str(tmp_path / "human.csv"), "--items", str(tmp_path / "items.csv"), "--by", "", "--bootstrap", "0",
    ]  # fmt: skip
    code, out, err = run_cli(*args, "--json")
    assert code == 0, err
    row = json.loads(out)["groups"][0]
    for m in ("f1", "kappa"):
        assert row[m]["ci_low"] is None and row[m]["ci_high"] is None
        assert row[m]["ci_reason"] == "no resamples (bootstrap 0)"
    assert row["f1"]["value"] == pytest.approx(f1_score(human, judge))
    lo, hi = proportion_confint(row["fn"], row["tp"] + row["fn"], method="wilson")
    assert (row["fnr"]["ci_low"], row["fnr"]["ci_high"]) == pytest.approx((lo, hi))
    assert row["fnr"]["ci_reason"] is None
    code, out, err = run_cli(*args, "--out", str(tmp_path / "audit"))
    assert code == 0, err
    assert "nan" not in out and f"F1 {f1_score(human, judge):.3f} n/a (no resamples)" in out, out
    report = (tmp_path / "audit" / "report.html").read_text()
    assert "nan, nan" not in report and "n/a (no resamples)" in report
