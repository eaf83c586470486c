"""Hostile input to ``annotate`` and ``analyze``: one-line errors naming the file and the place
(exit 2, nothing written), and rows that match nothing counted, never silently dropped."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from tests.support.cli_checks import one_line_error as _one_line_error


def _csv(path, rows: list[dict]):
    pd.DataFrame(rows).to_csv(path, index=False)
    return str(path)


# --- analyze judge-audit: --weight and --by ---------------------------------------------------


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
        "args": ["analyze", "judge-audit", "--judge-labels", _csv(tmp_path / "judge.csv", judge),
                 "--human", _csv(tmp_path / "human.csv", human), "--by", "", "--bootstrap", "0",
                 "--min-cell", "0", "--json"],
    }  # fmt: skip


def test_judge_audit_valid_weights_by_hand(audit, tmp_path, run_cli):
    items = _csv(tmp_path / "items.csv", audit["items"])
    code, out, err = run_cli(*audit["args"], "--items", items, "--weight", "w")
    assert code == 0, err
    row = json.loads(out)["groups"][0]
    # weighted cells: tp = w(a) = 1, fp = w(b) = 2, fn = w(c) = 3, tn = w(d) = 4 → recall_w 1/4
    assert row["recall_w"] == pytest.approx(0.25) and row["precision_w"] == pytest.approx(1 / 3)


@pytest.mark.parametrize("bad", ["yellow", "", "-1", "nan", "inf"])
def test_judge_audit_bad_weight_names_file_line_and_column(audit, tmp_path, run_cli, bad):
    rows = [dict(r) for r in audit["items"]]
    rows[2]["w"] = bad  # item c: the third data row = line 4 of the file (header = line 1)
    items = _csv(tmp_path / "items.csv", rows)
    code, out, err = run_cli(*audit["args"], "--items", items, "--weight", "w")
    # was: ValueError traceback ("yellow", ""), or numbers / null *_w statistics (-1, nan, inf)
    _one_line_error(code, out, err, f"{items} line 4: column 'w': expected a sampling weight", repr(bad))


def test_judge_audit_missing_by_column_names_the_items_file(audit, tmp_path, run_cli):
    items = _csv(tmp_path / "items.csv", audit["items"])
    args = [a if a != "" else "nocol" for a in audit["args"]]  # --by nocol
    code, out, err = run_cli(*args, "--items", items)
    _one_line_error(code, out, err, f"{items}: items table lacks column 'nocol'")


# --- annotate import-file ------------------------------------------------------------------------


@pytest.fixture
def guess_camp(tmp_path, run_cli):
    """An offline guess campaign: 4 items, raters ann and bob, overlap 2."""
    items = [{"item_id": f"g{i}", "game": "wof", "kind": "guess", "context": "P", "reference": "A",
              "candidate": f"c{i}"} for i in range(4)]  # fmt: skip
    code, _out, err = run_cli(
        "annotate", "plan", _csv(tmp_path / "items.csv", items), "--n", "4", "--raters", "ann,bob",
        "--overlap", "2", "--seed", "1", "--out", str(tmp_path / "camp"),
    )  # fmt: skip
    assert code == 0, err
    manifest = json.loads((tmp_path / "camp" / "manifest.json").read_text())
    return tmp_path, [a["uid"] for a in manifest["assignments"] if a["rater"] == "ann"]


def _export(path, uids, result) -> str:
    tasks = [
        {"id": i, "data": {"uid": u}, "annotations": [{"id": i, "result": result, "updated_at": "2026"}]}
        for i, u in enumerate(uids)
    ]
    path.write_text(json.dumps(tasks))
    return str(path)


def _choice(value) -> list[dict]:
    return [
        {"from_name": "correct", "to_name": "t_candidate", "type": "choices", "value": {"choices": value}}
    ]


def _import(run_cli, tmp, *exports):
    args = ["annotate", "import-file", str(tmp / "camp"), "--out", str(tmp / "pulled"), "--json"]
    for e in exports:
        args += ["--export", e]
    return run_cli(*args)


@pytest.mark.parametrize("result", ["oops", 5])
def test_import_result_not_a_list(guess_camp, run_cli, result):
    tmp, uids = guess_camp
    path = _export(tmp / "ann.json", uids[:1], result)
    code, out, err = _import(run_cli, tmp, f"ann={path}")
    # was AttributeError: 'str' object has no attribute 'get' / TypeError on an int
    _one_line_error(code, out, err, f"{path}: [0].annotations[0].result", repr(uids[0]), "expected a list")
    assert not (tmp / "pulled").exists()


def test_import_bare_string_choice_is_one_choice(guess_camp, run_cli):
    tmp, uids = guess_camp
    path = _export(tmp / "ann.json", uids[:1], _choice("Yes"))  # not ["Yes"]: was read as 'Y', 'e', 's'
    code, out, err = _import(run_cli, tmp, f"ann={path}")
    assert code == 0, err
    labels = pd.read_csv(tmp / "pulled" / "labels.csv", dtype=str)
    assert labels["label"].tolist() == ["true"]  # "Yes" is the shown text of the stored label true


def test_import_two_choices_says_what_was_expected(guess_camp, run_cli):
    tmp, uids = guess_camp
    path = _export(tmp / "ann.json", uids[:1], _choice(["Yes", "No"]))
    code, out, err = _import(run_cli, tmp, f"ann={path}")
    # was "choice 'Yes' is not one of true, false" (Yes is allowed: there were two)
    _one_line_error(
        code, out, err, f"{path}: [0].annotations[0]: correct: expected one choice of Yes (true), No (false)",
        "got 2: 'Yes', 'No'",
    )  # fmt: skip


def test_import_same_rater_twice_is_refused(guess_camp, run_cli):
    tmp, uids = guess_camp
    a = _export(tmp / "a.json", uids, _choice(["Yes"]))
    b = _export(tmp / "b.json", uids[:1], _choice(["No"]))
    code, out, err = _import(run_cli, tmp, f"ann={a}", f"ann={b}")  # was rc 0, a.json discarded
    _one_line_error(code, out, err, "--export: rater 'ann' is given twice", "a.json", "b.json")
    assert not (tmp / "pulled").exists()


# --- annotate next / status / adjudicate: labels that name no campaign item ------------------


@pytest.fixture
def def_camp(tmp_path, run_cli, monkeypatch):
    """A definition campaign of 12 from 40 items (2 models × 2 judge verdicts × 10), and a
    final.csv labelling 2 of the sampled items on both questions."""
    monkeypatch.delenv("LABEL_STUDIO_URL", raising=False)
    items = [{"item_id": f"{m}{v[0]}{i}", "game": "balderdash", "kind": "definition", "context": "w",
              "reference": "r", "candidate": "c", "player_model": m, "judge_verdict": v}
             for m in ("m1", "m2") for v in ("true", "false") for i in range(10)]  # fmt: skip
    code, _out, err = run_cli(
        "annotate", "plan", _csv(tmp_path / "items.csv", items), "--n", "12", "--raters", "ann,bob",
        "--overlap", "1", "--strata", "player_model,judge_verdict", "--seed", "4", "--out", str(tmp_path / "camp"),
    )  # fmt: skip
    assert code == 0, err
    sampled = sorted(pd.read_csv(tmp_path / "camp" / "items.csv", dtype=str)["item_id"])[:2]
    final = [{"item_id": i, "question": q, "label": "true", "source": "unanimous", "n_labels": 1}
             for i in sampled for q in ("reference", "any_sense")]  # fmt: skip
    return tmp_path, final


@pytest.mark.parametrize("command", ["next", "status"])
def test_labels_of_another_campaign_are_refused(def_camp, run_cli, tree_digest, command):
    tmp, final = def_camp
    foreign = [dict(r, item_id=f"other:{i}") for i, r in enumerate(final)]
    labels = _csv(tmp / "foreign.csv", foreign)
    before = tree_digest(tmp / "camp")
    extra = ["--budget", "4", "--no-push"] if command == "next" else []
    code, out, err = run_cli("annotate", command, str(tmp / "camp"), "--labels", labels, *extra)
    # was rc 0 (next drew round 2 on no labels at all)
    _one_line_error(
        code, out, err, f"{labels} line 2: item 'other:0': none of the 4 label rows names an item"
    )
    assert tree_digest(tmp / "camp") == before


@pytest.mark.parametrize("command", ["next", "status"])
def test_unmatched_label_rows_are_counted(def_camp, run_cli, command):
    tmp, final = def_camp
    labels = _csv(tmp / "final.csv", [*final, dict(final[0], item_id="ghost")])
    extra = ["--budget", "4", "--no-push"] if command == "next" else []
    code, out, err = run_cli("annotate", command, str(tmp / "camp"), "--labels", labels, *extra, "--json")
    assert code == 0, err
    record = json.loads(out)
    assert (record if command == "next" else record["adaptive"])["labels_unmatched"] == 1  # the ghost row
    code, out, err = run_cli("annotate", command, str(tmp / "camp"), "--labels", labels, *extra)
    assert code == 0 and f"left out 1 label row(s) of {labels} naming no item of the campaign" in out


@pytest.mark.parametrize(
    ("change", "needle"),
    [
        ({"label": "maybe"}, "line 3: label 'maybe' is not one of false, true"),  # row 2 of the data
        ({"question": "nope"}, "line 3: question 'nope' is not a question the campaign's kind"),
        (None, "line 6: item"),  # a 5th row giving row 1's (item, question) the label false
    ],
)
def test_bad_final_labels_name_the_line(def_camp, run_cli, tree_digest, change, needle):
    tmp, final = def_camp
    rows = [dict(r) for r in final]
    if change is None:
        rows.append(dict(rows[0], label="false"))
        needle += f" {rows[0]['item_id']!r}, question 'reference': label 'false' contradicts an earlier row"
    else:
        rows[1].update(change)
    labels = _csv(tmp / "final.csv", rows)
    before = tree_digest(tmp / "camp")
    code, out, err = run_cli(
        "annotate", "next", str(tmp / "camp"), "--labels", labels, "--budget", "4", "--no-push"
    )
    _one_line_error(code, out, err, f"{labels} {needle}")
    assert tree_digest(tmp / "camp") == before


def test_adjudicate_counts_and_refuses_foreign_labels(def_camp, run_cli, tree_digest):
    tmp, final = def_camp
    rows = [{"item_id": r["item_id"], "rater": who, "rater_type": "human", "label": "true",
             "question": r["question"]} for r in final for who in ("ann", "bob")]  # fmt: skip
    args = ["annotate", "adjudicate", str(tmp / "camp"), "--adjudicator", "dana", "--json", "--labels"]
    before = tree_digest(tmp / "camp")
    foreign = _csv(tmp / "foreign.csv", [dict(r, item_id="wof:x") for r in rows])
    code, out, err = run_cli(*args, foreign)  # was "no disputed items", rc 0
    _one_line_error(code, out, err, f"{foreign} line 2: item 'wof:x': none of the 8 label rows")
    mixed = _csv(tmp / "mixed.csv", [*rows, dict(rows[0], item_id="wof:x", label="false")])
    code, out, err = run_cli(*args, mixed)
    assert code == 0, err
    assert json.loads(out) | {"projects": []} == {
        "campaign": "camp", "disputed": 0, "projects": [], "labels_unmatched": 1,
    }  # fmt: skip
    assert tree_digest(tmp / "camp") == before


# --- analyze agreement --gold, analyze aggregate --out --------------------------------------


def test_agreement_counts_gold_rows_naming_no_item(tmp_path, run_cli):
    labels = _csv(tmp_path / "labels.csv", [
        {"item_id": i, "rater": r, "rater_type": "human", "label": v}
        for i, r, v in [("i1", "a", "true"), ("i1", "b", "true"), ("i2", "a", "false"), ("i2", "b", "true")]
    ])  # fmt: skip
    gold = _csv(
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


def test_aggregate_refuses_to_overwrite_its_input(tmp_path, run_cli):
    labels = _csv(tmp_path / "in.csv", [
        {"item_id": "i1", "rater": r, "rater_type": "human", "label": "true"} for r in ("a", "b")
    ])  # fmt: skip
    before = (tmp_path / "in.csv").read_bytes()
    code, out, err = run_cli("analyze", "aggregate", labels, "--out", labels)  # was rc 0, input replaced
    _one_line_error(code, out, err, "--out", "in.csv")
    assert (tmp_path / "in.csv").read_bytes() == before


def test_plan_does_not_replace_another_campaign(tmp_path, run_cli, tree_digest):
    """`annotate plan --out camp` over a campaign with another sample (here another seed) used to
    replace it, draws and all, exit 0; the same plan again is still allowed (idempotent)."""
    items = [{"item_id": f"d{i}", "game": "balderdash", "kind": "definition", "context": "w",
              "reference": "r", "candidate": f"c{i}"} for i in range(30)]  # fmt: skip
    path = _csv(tmp_path / "items.csv", items)
    args = ["annotate", "plan", path, "--n", "10", "--raters", "ann,bob", "--out", str(tmp_path / "camp")]
    assert run_cli(*args)[0] == 0
    before = tree_digest(tmp_path / "camp")
    code, out, err = run_cli(*args)  # the same campaign: replaced by an identical one
    assert code == 0, err
    code, out, err = run_cli(*args, "--seed", "5")  # 10 of 30 items: another draw
    _one_line_error(code, out, err, "holds campaign 'camp' with another sample")
    assert tree_digest(tmp_path / "camp") == before


def test_import_into_the_folder_that_holds_its_export_is_refused(guess_camp, run_cli, tree_digest):
    """`--export ann=pulled/ann.json --out pulled` would replace the folder holding the export it
    reads (a RATER=FILE value is an input too)."""
    tmp, uids = guess_camp
    assert _import(run_cli, tmp, f"ann={_export(tmp / 'a.json', uids, _choice(['Yes']))}")[0] == 0
    inside = _export(tmp / "pulled" / "ann.json", uids, _choice(["Yes"]))
    before = tree_digest(tmp / "pulled")
    code, out, err = _import(run_cli, tmp, f"ann={inside}")
    _one_line_error(code, out, err, f"--out {tmp / 'pulled'}: is or holds the input", "ann.json")
    assert tree_digest(tmp / "pulled") == before
