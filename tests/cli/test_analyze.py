"""``wordplay-audit analyze agreement`` and ``analyze aggregate``."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss_kappa

CATEGORIES = ["dep", "pers", "schiz", "neur", "other"]


def fleiss_labels(table, kind_column: bool = False) -> pd.DataFrame:
    """Fleiss (1971) Table 1 as a long labels table: the six ratings of each patient are
    assigned to raters r1..r6 in category order (the κ statistics do not depend on who)."""
    rows = []
    for i, counts in enumerate(table):
        raters = iter(range(1, 7))
        for k, c in enumerate(counts):
            for _ in range(c):
                rows.append((f"p{i:02d}", f"r{next(raters)}", "human", CATEGORIES[k]))
    frame = pd.DataFrame(rows, columns=["item_id", "rater", "rater_type", "label"])
    if kind_column:
        frame["kind"] = ["knowledge_type" if int(i[1:]) < 20 else "guess" for i in frame["item_id"]]
    return frame


@pytest.fixture
def labels_csv(tmp_path, fleiss_1971):
    path = tmp_path / "labels.csv"
    fleiss_labels(fleiss_1971).to_csv(path, index=False)
    return path


def test_agreement_json(run_cli, labels_csv, fleiss_1971):
    code, out, err = run_cli("analyze", "agreement", str(labels_csv), "--bootstrap", "200", "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["items"] == 30 and data["raters"] == 6 and data["ratings"] == 180
    assert data["percent_agreement"] == pytest.approx(0.5556, abs=1e-4)
    for key in ("fleiss_kappa", "krippendorff_alpha", "gwet_ac1"):
        est = data[key]
        assert {"value", "ci_low", "ci_high"} <= set(est)
        assert est["ci_low"] < est["value"] < est["ci_high"]
    assert data["fleiss_kappa"]["value"] == pytest.approx(sm_fleiss_kappa(fleiss_1971), abs=1e-12)
    assert data["per_category"]["schiz"]["kappa"] == pytest.approx(0.52, abs=1e-12)
    assert data["per_category"]["schiz"]["prevalence"] == pytest.approx(1 / 6, abs=1e-12)
    assert set(data["pairwise_cohen"]) == {f"r{j}" for j in range(1, 7)}
    assert set(data["pairwise_cohen"]["r1"]) == {f"r{j}" for j in range(2, 7)}


def test_agreement_same_seed_same_interval(run_cli, labels_csv):
    runs = [
        json.loads(
            run_cli(
                "analyze",
                "agreement",
                str(labels_csv),
                "--bootstrap",
                "100",
                "--seed",
                "3",
                "--json",
            )[1]
        )
        for _ in range(2)
    ]
    assert runs[0]["fleiss_kappa"] == runs[1]["fleiss_kappa"]


def test_agreement_text_summary(run_cli, labels_csv):
    code, out, _ = run_cli("analyze", "agreement", str(labels_csv), "--bootstrap", "0")
    assert code == 0
    assert "Fleiss' kappa: 0.430 n/a (no resamples)" in out  # was "[–, –]"


def test_kind_from_column_and_from_items(run_cli, tmp_path, fleiss_1971):
    with_kind = tmp_path / "with_kind.csv"
    fleiss_labels(fleiss_1971, kind_column=True).to_csv(with_kind, index=False)
    code, out, err = run_cli(
        "analyze", "agreement", str(with_kind), "--kind", "guess", "--bootstrap", "0", "--json"
    )
    assert code == 0, err
    data = json.loads(out)
    assert data["items"] == 10 and data["kind"] == "guess"
    assert data["fleiss_kappa"]["value"] == pytest.approx(sm_fleiss_kappa(fleiss_1971[20:]), abs=1e-12)
    # the same selection through an items table
    plain = tmp_path / "plain.csv"
    fleiss_labels(fleiss_1971).to_csv(plain, index=False)
    items = tmp_path / "items.csv"
    pd.DataFrame(
        {
            "item_id": [f"p{i:02d}" for i in range(30)],
            "game": "demo",
            "kind": ["knowledge_type"] * 20 + ["guess"] * 10,
        }
    ).to_csv(items, index=False)
    code, out, err = run_cli(
        "analyze",
        "agreement",
        str(plain),
        "--kind",
        "guess",
        "--items",
        str(items),
        "--bootstrap",
        "0",
        "--json",
    )
    assert code == 0, err
    assert json.loads(out)["items"] == 10


def test_kind_without_source_is_a_clear_error(run_cli, labels_csv):
    code, _, err = run_cli("analyze", "agreement", str(labels_csv), "--kind", "guess")
    assert code == 2
    assert err.startswith("error: --kind needs a 'kind' column")
    assert len(err.strip().splitlines()) == 1


def test_bad_input_exit_code_2(run_cli, tmp_path, labels_csv):
    code, _, err = run_cli("analyze", "agreement", str(tmp_path / "missing.csv"))
    assert code == 2 and "no such file" in err
    code, _, err = run_cli("analyze", "agreement", str(labels_csv), "--categories", "dep,pers")
    # patient p00 is rated "neur" six times: the first such rating is line 2 of the file
    assert code == 2 and "labels.csv line 2: label 'neur' is not one of dep, pers" in err
    code, _, err = run_cli("analyze", "agreement", str(labels_csv), "--level", "fuzzy")
    assert code == 2
    assert err == "error: --level: expected one of nominal, ordinal, interval, ratio; got 'fuzzy'\n"
    code, _, err = run_cli("analyze", "agreement", str(labels_csv), "--bootstrap", "1")
    assert code == 2 and err.startswith("error: --bootstrap: expected 0 (no bootstrap)")
    code, _, err = run_cli("analyze", "agreement", str(labels_csv), "--confidence", "95")
    assert code == 2 and err.startswith("error: --confidence: expected a level between 0 and 1")


def test_duplicate_rating_names_the_file_line_after_kind_filter(run_cli, tmp_path, fleiss_1971):
    # 180 ratings on lines 2..181; a repeated rating on line 182, and the --kind filter drops
    # the first 120 rows, so a row number counted after filtering would be wrong
    frame = fleiss_labels(fleiss_1971, kind_column=True)
    frame = pd.concat([frame, frame.iloc[[175]]], ignore_index=True)
    path = tmp_path / "dup.csv"
    frame.to_csv(path, index=False)
    code, _, err = run_cli("analyze", "agreement", str(path), "--kind", "guess")
    assert code == 2
    rater, item = frame.iloc[180]["rater"], frame.iloc[180]["item_id"]
    assert f"dup.csv line 182: rater '{rater}' rated item '{item}' twice" in err
    assert len(err.strip().splitlines()) == 1


def test_aggregate_majority_writes_csv(run_cli, labels_csv, tmp_path):
    out_path = tmp_path / "out" / "consensus.csv"
    code, out, err = run_cli("analyze", "aggregate", str(labels_csv), "--out", str(out_path), "--json")
    assert code == 0, err
    summary = json.loads(out)
    table = pd.read_csv(out_path, keep_default_na=False)
    assert list(table.columns) == ["item_id", "label", "n_ratings", "n_agree", "tie"]
    assert len(table) == 30 == summary["items"]
    # patient 1 (index 1) has 3 "pers" and 3 "other": a tie → adjudicate (empty label)
    row = table.set_index("item_id").loc["p01"]
    assert row["label"] == "" and bool(row["tie"]) is True
    assert summary["ties"] == int(table["tie"].sum())
    assert not list(out_path.parent.glob("*.tmp"))


def test_aggregate_dawid_skene_writes_csv(run_cli, labels_csv, tmp_path):
    out_path = tmp_path / "ds.csv"
    code, out, err = run_cli(
        "analyze",
        "aggregate",
        str(labels_csv),
        "--method",
        "dawid-skene",
        "--out",
        str(out_path),
        "--json",
    )
    assert code == 0, err
    table = pd.read_csv(out_path)
    assert list(table.columns) == ["item_id", "label", "posterior", "n_ratings"]
    assert table["posterior"].between(0, 1).all()
    assert json.loads(out)["iterations"] >= 1


def test_aggregate_bad_method(run_cli, labels_csv, tmp_path):
    code, _, err = run_cli(
        "analyze",
        "aggregate",
        str(labels_csv),
        "--method",
        "vote",
        "--out",
        str(tmp_path / "x.csv"),
    )
    assert code == 2 and "--method" in err


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "-1", "0"])
def test_max_memory_gb_refused_under_its_own_name(run_cli, labels_csv, value):
    # nan and ±inf ended in a traceback ("cannot convert float NaN to integer"); -1 and 0
    # were blamed on --bootstrap ("the cap at -1 GB is -7456541")
    code, out, err = run_cli("analyze", "agreement", str(labels_csv), "--max-memory-gb", value)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and err.startswith(
        "error: --max-memory-gb: expected a number of GB > 0"
    )


def test_huge_max_memory_gb_is_no_cap(run_cli, labels_csv):
    # 1e308 GB overflowed the cap's arithmetic (a traceback); it is simply no cap
    code, out, err = run_cli(
        "analyze", "agreement", str(labels_csv), "--bootstrap", "50", "--max-memory-gb", "1e308", "--json"
    )
    assert code == 0, err
    assert json.loads(out)["fleiss_kappa"]["n_boot"] == 50
