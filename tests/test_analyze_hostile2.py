"""Hostile inputs of ``analyze agreement | aggregate | judge-audit`` and ``connections score``
found by a probe (D1–D12): unknown is null with a reason, nothing left out without a count,
bad input one line naming its place. Expected values are hand counts or reference libraries."""

from __future__ import annotations

import json
import re
import warnings

import krippendorff
import numpy as np
import pandas as pd
import pytest
from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa

from wordplay_audit.analysis.agreement import BootstrapOptions, UndefinedStatisticWarning, bootstrap_intervals
from wordplay_audit.analysis.connections import analyze_connections
from wordplay_audit.corpora.connections import read_connections
from wordplay_audit.corpora.demo import write_demo_corpus

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


# --- D1: undefined statistics are null with a reason, no raw warnings ---------------------------


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


# --- D2: a bootstrap over fewer than 2 items (or identical items) gives no interval ---------------


def test_one_item_has_no_interval(tmp_path, run_cli):
    path = _labels(tmp_path, ["i0,a,human,yes", "i0,b,human,no", "i0,c,human,yes"])
    data = json.loads(run_cli("analyze", "agreement", str(path), "--bootstrap", "200", "--json")[1])
    kappa = data["fleiss_kappa"]
    # by hand: π = (2/3, 1/3), p_e = 5/9, p_a = 1/3 → κ = (1/3 − 5/9)/(4/9) = −0.5
    assert kappa["value"] == pytest.approx(-0.5, abs=1e-12)
    assert kappa["ci_low"] is None and kappa["ci_high"] is None and kappa["boot_se"] is None
    assert kappa["ci_reason"] == "fewer than 2 items" and kappa["method"] == "none"


def test_identical_items_have_no_interval():
    counts = np.array([[2, 1], [2, 1], [2, 1]])  # every resample is the data itself
    result = bootstrap_intervals(counts, bootstrap=BootstrapOptions(n_boot=50))["fleiss_kappa"]
    assert result.value == pytest.approx(-0.5, abs=1e-12)
    assert np.isnan(result.ci_low) and "same ratings" in result.ci_reason


# --- D3: labels equal as numbers --------------------------------------------------------------

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


# --- D4: gold labels checked ------------------------------------------------------------------


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


# --- D5: aggregate counts ties apart from a label named "adjudicate" --------------------------


def test_aggregate_label_counts_sum_to_items(tmp_path, run_cli):
    path = _labels(tmp_path, ["i0,a,human,adjudicate", "i0,b,human,adjudicate", "i0,c,human,adjudicate",
                              "i1,a,human,yes", "i1,b,human,no", "i2,a,human,yes", "i2,b,human,yes"])  # fmt: skip
    code, out, err = run_cli("analyze", "aggregate", str(path), "--out", str(tmp_path / "agg.csv"), "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["label_counts"] == {"adjudicate": 1, "yes": 1}  # the tie once had the same key
    assert data["ties"] == 1 and data["unlabelled"] == 1
    assert sum(data["label_counts"].values()) + data["unlabelled"] == data["items"] == 3


# --- D6: judge-audit skip counts ---------------------------------------------------------------


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


# --- D11: rows left out by --rater-type and --kind are counted --------------------------------


def test_rows_left_out_by_the_filters_are_counted(tmp_path, run_cli):
    rows = [f"i{i},{r},human,{'no' if (2 * i + len(r)) % 3 == 0 else 'yes'}" for i in range(6) for r in "abc"]
    rows += [f"i{i},gpt,judge,yes" for i in range(6)]
    path = _labels(tmp_path, rows)
    data = json.loads(run_cli("analyze", "agreement", str(path), "--bootstrap", "0", "--json")[1])
    assert data["rows_left_out"] == {"kind": 0, "rater_type": 6}
    code, out, _ = run_cli("analyze", "agreement", str(path), "--bootstrap", "0")
    assert "6 of another rater type (--rater-type human)" in out
    kinds = tmp_path / "kinds.csv"
    frame = pd.read_csv(path, dtype=str)
    frame["kind"] = ["guess" if i in ("i0", "i1") else "definition" for i in frame["item_id"]]
    frame.to_csv(kinds, index=False)
    args = ("analyze", "aggregate", str(kinds), "--kind", "guess", "--out", str(tmp_path / "a.csv"), "--json")
    data = json.loads(run_cli(*args)[1])
    assert data["rows_left_out"] == {"kind": 16, "rater_type": 2}  # 4 items × 4 rows; 2 judge rows kept


# --- D12: a stray quote ------------------------------------------------------------------------


def test_stray_quote_is_refused_at_the_line_it_opens(tmp_path, run_cli):
    path = tmp_path / "q.csv"
    path.write_text(HEADER + 'i0,a,human,red\ni0,b,human,"red\ni1,a,human,blue\ni1,b,human,blue\n'
                    'i2,a,human,red\ni2,b,human,blue"\ni3,a,human,red\ni3,b,human,red\n')  # fmt: skip
    code, _, err = run_cli("analyze", "agreement", str(path), "--bootstrap", "0")
    _one_line(code, err, "q.csv line 3: column 'label' holds a line break")


# --- Connections: D7, D8, D10, malformed flag ---------------------------------------------------


@pytest.fixture
def folder(tmp_path):
    return write_demo_corpus(tmp_path / "cx")


def test_absent_taxonomy_is_unknown_not_zero(folder, run_cli, tmp_path):
    (folder / "game_with_knowledge_taxonomy.json").unlink()
    code, out, err = run_cli(
        "connections", "score", "--data", str(folder), "--out", str(tmp_path / "o"), "--json"
    )
    assert code == 0, err
    data = json.loads(out)
    assert set(data["taxonomy_counts"].values()) == {None}  # was 0 for every type
    assert data["taxonomy_reason"] == "game_with_knowledge_taxonomy.json absent"
    table = pd.read_csv(tmp_path / "o" / "table1_knowledge_types.csv")
    assert table["categories"].isna().all()
    assert (table["reason"] == "n/a (game_with_knowledge_taxonomy.json absent)").all()


def test_empty_model_file_is_listed_with_a_reason(folder, run_cli, tmp_path):
    (folder / "model-b.json").write_text("[]")
    code, out, err = run_cli(
        "connections", "score", "--data", str(folder), "--out", str(tmp_path / "o"), "--json"
    )
    assert code == 0, err
    data = json.loads(out)
    entry = data["models"]["model-b"]  # was absent
    assert entry["unweighted_hist"] is None and "model-b.json" in entry["reason"]
    assert data["humans"]["novice"]["vs"]["model-b"]["games"] is None
    code, out, _ = run_cli("connections", "score", "--data", str(folder), "--out", str(tmp_path / "p"))
    assert "model-b" in out and "n/a (no answer" in out


def test_cut_off_raw_answers_are_an_error(folder, run_cli, tmp_path):
    raw = folder / "novice_raw.csv"
    text = raw.read_text()
    raw.write_text(text[: text.index("SATURN")])  # cut inside the quoted field of line 3
    code, _, err = run_cli("connections", "score", "--data", str(folder), "--out", str(tmp_path / "o"))
    _one_line(code, err, "novice_raw.csv line 3: a quoted field opened on this line is not closed")


def test_games_without_a_raw_answer_are_counted(folder):
    raw = folder / "novice_raw.csv"
    raw.write_text("".join(raw.read_text().splitlines(keepends=True)[:3]))  # header + 2 answers
    result = analyze_connections(read_connections(folder), plots=False)
    # novice.json holds 4 games; lines 2 and 3 answer two of them
    assert result.humans["novice"]["games_without_raw_answer"] == 2


def test_malformed_flag_that_is_no_literal_is_its_own_quirk(folder):
    records = json.loads((folder / "model-b.json").read_text())
    records[0]["malformed"] = "maybe"
    (folder / "model-b.json").write_text(json.dumps(records))
    quirks = read_connections(folder).quirks
    assert quirks[("model-b.json", "fields stored as strings holding Python literals")] == 0
    assert quirks[("model-b.json", "malformed flag is not true/false (read as false)")] == 1
