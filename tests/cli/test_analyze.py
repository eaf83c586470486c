"""``wordplay-audit analyze agreement``, ``aggregate`` and ``judge-audit``: unknown statistics null
with a reason, rows left out counted, bad input one line naming its place, malformed input.
Expected values are hand counts or reference libraries."""

from __future__ import annotations

import json
import re
import warnings

import krippendorff
import pandas as pd
import pytest
from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa
from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss_kappa

from tests.support import bad_inputs
from tests.support.cli_checks import one_line_error as _one_line_error
from tests.support.tables import write_csv
from wordplay_audit.analysis.agreement import UndefinedStatisticWarning

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
    assert err.startswith("error: --kind: needs a 'kind' column")
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
    assert code == 2 and err.startswith("error: --confidence: expected a level strictly between 0 and 1")


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
    assert list(table.columns) == [
        "item_id",
        "label",
        "n_raters",
        "n_votes",
        "settled_by",
    ]  # the final labels table
    assert len(table) == 30 == summary["items"]
    # patient 1 (index 1) has 3 "pers" and 3 "other": a tie → adjudicate (empty label)
    row = table.set_index("item_id").loc["p01"]
    assert row["label"] == "" and row["settled_by"] == "tie" and (row["n_raters"], row["n_votes"]) == (6, 3)
    assert summary["ties"] == int((table["settled_by"] == "tie").sum())
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


HEADER = "item_id,rater,rater_type,label\n"


def _labels(tmp_path, rows: list[str], name: str = "labels.csv"):
    path = tmp_path / name
    path.write_text(HEADER + "".join(r + "\n" for r in rows))
    return path


def _one_line(code: int, err: str, *needles: str) -> None:
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    for needle in needles:
        assert needle in lines[0], lines[0]


# --- statistics that are undefined are null with a reason, no raw warnings ------------------------


@pytest.fixture
def same(tmp_path):
    return _labels(tmp_path, [f"i{i},{r},human,yes" for i in range(5) for r in "abc"])


def test_undefined_statistics_carry_their_reason(same, run_cli):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        code, out, err = run_cli("analyze", "agreement", str(same), "--bootstrap", "200", "--json")
    assert code == 0 and "Warning" not in err, err
    assert not [w for w in caught if issubclass(w.category, UndefinedStatisticWarning)]
    data = json.loads(out)
    kappa = data["fleiss_kappa"]
    assert kappa["value"] is None and kappa["reason"] == "every rating is in one category"
    assert kappa["ci_low"] is None and kappa["ci_reason"] == "every rating is in one category"
    assert kappa["method"] == "none"  # no interval was computed (was "percentile")
    assert data["krippendorff_alpha"]["reason"] == "every rating is in one category"
    assert data["gwet_ac1"]["value"] is None and "only one category" in data["gwet_ac1"]["reason"]
    assert data["pabak"] is None and "only one category" in data["pabak_reason"]
    assert data["per_category"]["yes"]["reason"] == "used in every rating"


def test_undefined_statistics_in_the_text(same, run_cli):
    code, out, _ = run_cli("analyze", "agreement", str(same), "--bootstrap", "0")
    assert code == 0
    assert "Fleiss' kappa: n/a (every rating is in one category)" in out  # was "– n/a (no resamples)"
    assert "PABAK: n/a (only one category" in out and not re.search(r"\bnan\b", out)  # "Brennan" holds "nan"
    assert "yes: kappa n/a (used in every rating)" in out


# --- a bootstrap over fewer than 2 items gives no interval ----------------------------------------


def test_one_item_has_no_interval(tmp_path, run_cli):
    path = _labels(tmp_path, ["i0,a,human,yes", "i0,b,human,no", "i0,c,human,yes"])
    data = json.loads(run_cli("analyze", "agreement", str(path), "--bootstrap", "200", "--json")[1])
    kappa = data["fleiss_kappa"]
    # by hand: π = (2/3, 1/3), p_e = 5/9, p_a = 1/3 → κ = (1/3 − 5/9)/(4/9) = −0.5
    assert kappa["value"] == pytest.approx(-0.5, abs=1e-12)
    assert kappa["ci_low"] is None and kappa["ci_high"] is None and kappa["boot_se"] is None
    assert kappa["ci_reason"] == "fewer than 2 items" and kappa["method"] == "none"


# --- labels equal as numbers ----------------------------------------------------------------------


NUMBERS = ["i0,a,human,1", "i0,b,human,1.0", "i0,c,human,01", "i1,a,human,2", "i1,b,human,2",
           "i1,c,human,2.0", "i2,a,human,1", "i2,b,human,2", "i2,c,human,1"]  # fmt: skip


@pytest.mark.parametrize("level", ["ordinal", "interval"])
def test_numeric_level_merges_labels_equal_as_numbers(tmp_path, run_cli, level):
    path = _labels(tmp_path, NUMBERS)
    args = ("analyze", "agreement", str(path), "--level", level, "--bootstrap", "0", "--json")
    data = json.loads(run_cli(*args)[1])
    frame = pd.read_csv(path, dtype=str)
    frame["v"] = frame["label"].astype(float)
    matrix = frame.pivot(index="rater", columns="item_id", values="v").to_numpy()
    assert data["categories"] == ["1", "2"]
    assert data["labels_equal_as_numbers"] == {"1": ["01", "1", "1.0"], "2": ["2", "2.0"]}
    assert data["krippendorff_alpha"]["value"] == pytest.approx(
        krippendorff.alpha(reliability_data=matrix, level_of_measurement=level), abs=1e-12
    )
    assert data["fleiss_kappa"]["value"] == pytest.approx(
        fleiss_kappa(aggregate_raters(matrix.T)[0]), abs=1e-12
    )  # 0.55 (was −0.05)


def test_nominal_keeps_them_apart_and_says_so(tmp_path, run_cli):
    path = _labels(tmp_path, NUMBERS)
    code, out, _ = run_cli("analyze", "agreement", str(path), "--bootstrap", "0")
    assert code == 0
    assert "labels equal as numbers: '01', '1', '1.0' kept apart at level nominal" in out
    data = json.loads(run_cli("analyze", "agreement", str(path), "--bootstrap", "0", "--json")[1])
    assert data["labels_equal_as_numbers_merged"] is False and len(data["categories"]) == 5


# --- gold labels ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("gold", "needle"),
    [("item_id,label\ni0,red\ni1,\n", "gold.csv line 3: gold label of item 'i1' is empty"),
     ("item_id,label\ni0,purple\n", "gold.csv line 2: gold label 'purple' of item 'i0' is not a category")],
)  # fmt: skip
def test_bad_gold_label_is_one_line_naming_the_gold_line(tmp_path, run_cli, gold, needle):
    path = _labels(tmp_path, [f"i{i},{r},human,{'red' if (i + ord(r)) % 3 else 'blue'}"
                              for i in range(4) for r in "abc"])  # fmt: skip
    (tmp_path / "gold.csv").write_text(gold)
    code, _, err = run_cli("analyze", "agreement", str(path), "--gold", str(tmp_path / "gold.csv"))
    _one_line(code, err, needle)
    assert "labels.csv" not in err


def test_agreement_counts_gold_rows_naming_no_item(tmp_path, run_cli):
    labels = write_csv(tmp_path / "labels.csv", [
        {"item_id": i, "rater": r, "rater_type": "human", "label": v}
        for i, r, v in [("i1", "a", "true"), ("i1", "b", "true"), ("i2", "a", "false"), ("i2", "b", "true")]
    ])  # fmt: skip
    gold = write_csv(
        tmp_path / "gold.csv", [{"item_id": "i1", "label": "true"}, {"item_id": "nope", "label": "false"}]
    )
    code, out, err = run_cli("analyze", "agreement", labels, "--gold", gold, "--bootstrap", "0", "--json")
    assert code == 0, err
    result = json.loads(out)
    # gold names i1 (rated: a and b both said true → 1/1 each) and "nope" (no such item: left out)
    assert (result["gold_rows"], result["gold_unmatched"]) == (2, 1)
    assert [(q["n_honeypots"], q["honeypot_accuracy"]) for q in result["rater_quality"]] == [
        (1, 1.0),
        (1, 1.0),
    ]
    code, out, err = run_cli("analyze", "agreement", labels, "--gold", gold, "--bootstrap", "0")
    assert code == 0 and f"gold {gold}: 2 items, 1 naming no rated item (left out)" in out


# --- aggregate ------------------------------------------------------------------------------------


def test_aggregate_label_counts_sum_to_items(tmp_path, run_cli):
    path = _labels(tmp_path, ["i0,a,human,adjudicate", "i0,b,human,adjudicate", "i0,c,human,adjudicate",
                              "i1,a,human,yes", "i1,b,human,no", "i2,a,human,yes", "i2,b,human,yes"])  # fmt: skip
    code, out, err = run_cli("analyze", "aggregate", str(path), "--out", str(tmp_path / "agg.csv"), "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["label_counts"] == {"adjudicate": 1, "yes": 1}  # the tie once had the same key
    assert data["ties"] == 1 and data["unlabelled"] == 1
    assert sum(data["label_counts"].values()) + data["unlabelled"] == data["items"] == 3


def test_aggregate_refuses_to_overwrite_its_input(tmp_path, run_cli):
    labels = write_csv(tmp_path / "in.csv", [
        {"item_id": "i1", "rater": r, "rater_type": "human", "label": "true"} for r in ("a", "b")
    ])  # fmt: skip
    before = (tmp_path / "in.csv").read_bytes()
    code, out, err = run_cli("analyze", "aggregate", labels, "--out", labels)  # was rc 0, input replaced
    _one_line_error(code, out, err, "--out", "in.csv")
    assert (tmp_path / "in.csv").read_bytes() == before


# --- rows left out are counted; a stray quote -----------------------------------------------------


def test_rows_left_out_by_the_filters_are_counted(tmp_path, run_cli):
    rows = [f"i{i},{r},human,{'no' if (2 * i + len(r)) % 3 == 0 else 'yes'}" for i in range(6) for r in "abc"]
    rows += [f"i{i},gpt,judge,yes" for i in range(6)]
    path = _labels(tmp_path, rows)
    data = json.loads(run_cli("analyze", "agreement", str(path), "--bootstrap", "0", "--json")[1])
    assert data["rows_left_out"] == {"question": 0, "kind": 0, "rater_type": 6}
    code, out, _ = run_cli("analyze", "agreement", str(path), "--bootstrap", "0")
    assert "6 of another rater type (kept: human;" in out
    kinds = tmp_path / "kinds.csv"
    frame = pd.read_csv(path, dtype=str)
    frame["kind"] = ["guess" if i in ("i0", "i1") else "definition" for i in frame["item_id"]]
    frame.to_csv(kinds, index=False)
    args = ("analyze", "aggregate", str(kinds), "--kind", "guess", "--out", str(tmp_path / "a.csv"), "--json")
    data = json.loads(run_cli(*args)[1])
    assert data["rows_left_out"] == {
        "question": 0,
        "kind": 16,
        "rater_type": 2,
    }  # 4 items × 4 rows; 2 judge rows kept


def test_stray_quote_is_refused_at_the_line_it_opens(tmp_path, run_cli):
    path = tmp_path / "q.csv"
    path.write_text(HEADER + 'i0,a,human,red\ni0,b,human,"red\ni1,a,human,blue\ni1,b,human,blue\n'
                    'i2,a,human,red\ni2,b,human,blue"\ni3,a,human,red\ni3,b,human,red\n')  # fmt: skip
    code, _, err = run_cli("analyze", "agreement", str(path), "--bootstrap", "0")
    _one_line(code, err, "q.csv line 3: column 'label' holds a line break")


# --- judge-audit: skipped items, --weight and --by ------------------------------------------------


def test_judge_audit_counts_human_items_without_judge(tmp_path, run_cli):
    items = ["item_id,game,kind,context,reference,candidate,player_model"]
    human, judge = [], []
    for i in range(8):
        items.append(f"e{i},demo,guess,c,r,x,m")
        t = "true" if i % 2 else "false"
        human += [f"e{i},h1,human,{t}", f"e{i},h2,human,{t}"]
        judge.append(f"e{i},J,judge,true")
    items += ["tie,demo,guess,c,r,x,m", "humonly,demo,guess,c,r,x,m"]
    human += ["tie,h1,human,true", "tie,h2,human,false", "humonly,h1,human,true", "humonly,h2,human,true"]
    judge.append("tie,J,judge,true")
    (tmp_path / "it.csv").write_text("\n".join(items) + "\n")
    hum, jud = _labels(tmp_path, human, "hum.csv"), _labels(tmp_path, judge, "jud.csv")
    code, out, err = run_cli("analyze", "judge-audit", "--judge-labels", str(jud), "--human", str(hum),
                             "--items", str(tmp_path / "it.csv"), "--bootstrap", "0", "--json")  # fmt: skip
    assert code == 0, err
    skipped = json.loads(out)["skipped"]
    assert skipped == {"human_ties": 1, "judged_without_human": 0, "human_without_judge": 1}


@pytest.fixture
def audit(tmp_path):
    """Four items a–d, one judge (true, true, false, false), one person (true, false, true, false)."""
    items = [
        {"item_id": i, "game": "wof", "kind": "guess", "w": w} for i, w in zip("abcd", "1234", strict=True)
    ]
    judge = [{"item_id": i, "rater": "j", "rater_type": "judge", "label": v} for i, v in zip("abcd", ["true", "true", "false", "false"], strict=True)]  # fmt: skip
    human = [{"item_id": i, "rater": "ann", "rater_type": "human", "label": v} for i, v in zip("abcd", ["true", "false", "true", "false"], strict=True)]  # fmt: skip
    return {
        "items": items,
        "args": ["analyze", "judge-audit", "--judge-labels", write_csv(tmp_path / "judge.csv", judge),
                 "--human", write_csv(tmp_path / "human.csv", human), "--by", "", "--bootstrap", "0",
                 "--min-cell", "0", "--json"],
    }  # fmt: skip


def test_judge_audit_valid_weights_by_hand(audit, tmp_path, run_cli):
    items = write_csv(tmp_path / "items.csv", audit["items"])
    code, out, err = run_cli(*audit["args"], "--items", items, "--weight", "w")
    assert code == 0, err
    row = json.loads(out)["groups"][0]
    # weighted cells: tp = w(a) = 1, fp = w(b) = 2, fn = w(c) = 3, tn = w(d) = 4 → recall_w 1/4
    assert row["recall_w"] == pytest.approx(0.25) and row["precision_w"] == pytest.approx(1 / 3)


@pytest.mark.parametrize("bad", ["yellow", "", "-1", "nan", "inf"])
def test_judge_audit_bad_weight_names_file_line_and_column(audit, tmp_path, run_cli, bad):
    rows = [dict(r) for r in audit["items"]]
    rows[2]["w"] = bad  # item c: the third data row = line 4 of the file (header = line 1)
    items = write_csv(tmp_path / "items.csv", rows)
    code, out, err = run_cli(*audit["args"], "--items", items, "--weight", "w")
    # was: ValueError traceback ("yellow", ""), or numbers / null *_w statistics (-1, nan, inf)
    _one_line_error(code, out, err, f"{items} line 4: column 'w': expected a sampling weight", repr(bad))


def test_judge_audit_missing_by_column_names_the_items_file(audit, tmp_path, run_cli):
    items = write_csv(tmp_path / "items.csv", audit["items"])
    args = [a if a != "" else "nocol" for a in audit["args"]]  # --by nocol
    code, out, err = run_cli(*args, "--items", items)
    _one_line_error(code, out, err, f"{items}: items table lacks column 'nocol'")


# --- malformed input: one line, exit 2, the output folder as it was (tests/support/bad_inputs.py) ---


@pytest.mark.parametrize(
    ("command", "slot", "kind"), bad_inputs.malformed_cases("analyze"), ids=bad_inputs.case_id
)
def test_malformed_input_gives_one_line_and_exit_2(good, tmp_path, in_tmp, command, slot, kind, tree_digest):
    bad_inputs.check_malformed_input(good, tmp_path, in_tmp, command, slot, kind, tree_digest)


@pytest.mark.parametrize("args", bad_inputs.bad_parameters("analyze"), ids=bad_inputs.parameters_id)
def test_bad_parameters_give_one_line_and_exit_2(good, tmp_path, in_tmp, args, tree_digest):
    bad_inputs.check_bad_parameters(good, tmp_path, in_tmp, args, tree_digest)


@pytest.mark.parametrize(
    ("command", "build", "kind", "slot"),
    bad_inputs.other_cases("analyze"),
    ids=bad_inputs.other_case_ids("analyze"),
)
def test_every_other_command_on_malformed_input(
    more_good, tmp_path, in_tmp, monkeypatch, tree_digest, command, build, kind, slot
):
    bad_inputs.check_other_command(more_good, tmp_path, in_tmp, monkeypatch, tree_digest, build, kind, slot)


@pytest.mark.parametrize("command", bad_inputs.good_runs("analyze"))
def test_the_table_breaks_only_the_input(more_good, good, tmp_path, in_tmp, monkeypatch, command):
    bad_inputs.check_good_run(more_good, good, tmp_path, in_tmp, monkeypatch, command)


@pytest.mark.parametrize("command", bad_inputs.folder_for_file("analyze"), ids=lambda c: c.replace(" ", "-"))
def test_a_folder_where_a_file_is_expected_is_named_as_a_folder(
    more_good, good, tmp_path, in_tmp, monkeypatch, tree_digest, command
):
    bad_inputs.check_folder_for_file(more_good, good, tmp_path, in_tmp, monkeypatch, tree_digest, command)
