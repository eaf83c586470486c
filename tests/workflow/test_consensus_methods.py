"""``wa.consensus(method=...)`` and ``analyze aggregate --method``: the four consensus methods,
and each rater's sensitivity and specificity with intervals for two categories."""

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


@pytest.mark.parametrize("method", ["majority", "dawid-skene", "one-coin", "mace"])
def test_every_method_gives_a_label_per_item_and_the_rater_table(method):
    result = wa.consensus(_labels(), method=method, n_boot=200)
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


def test_the_text_prints_the_conditional_dependence_check():
    lines = wa.consensus(_labels(), method="dawid-skene", n_boot=100).summary()
    at = next(i for i, line in enumerate(lines) if line.startswith("conditional-dependence check:"))
    assert "largest excess agreement" in lines[at] and "rater" in lines[at - 4]  # after the rater table
