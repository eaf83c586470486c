"""Hostile input to ``annotate`` (file mode), second round: the campaign folder survives
``annotate next`` whole, a concurrent ``next`` cannot lose a round, the planned population is
the campaign's wherever ``next`` runs, hand-edited manifests and odd exports are one-line
errors (exit 2, nothing written), and labels files are checked before ``adjudicate`` uses them.

The campaign (``defcamp``): 40 definitions, strata (player model × judge verdict) of 10 each; a
proportional plan of 16 draws 4 per stratum (16 × 10/40), raters ann and bob, overlap 1."""

from __future__ import annotations

import json
import shutil
import unicodedata
from pathlib import Path

import pandas as pd
import pytest

from tests.support.cli_checks import one_line_error as _one_line_error

STRATA = (("m1", "true"), ("m1", "false"), ("m2", "true"), ("m2", "false"))


def _population(prefix: str = "d") -> pd.DataFrame:
    rows = [
        {"item_id": f"{prefix}{model}{verdict[0]}{i}", "game": "balderdash", "kind": "definition",
         "context": "w", "reference": "r", "candidate": "c", "player_model": model, "judge_verdict": verdict}
        for model, verdict in STRATA
        for i in range(10)
    ]  # fmt: skip
    return pd.DataFrame(rows)


def _plan(run_cli, items: str, out: str, raters: str = "ann,bob") -> None:
    code, _out, err = run_cli(
        "annotate", "plan", items, "--n", "16", "--raters", raters, "--overlap", "1",
        "--strata", "player_model,judge_verdict", "--seed", "4", "--out", out,
    )  # fmt: skip
    assert code == 0, err


def _final(camp: Path, path: Path) -> Path:
    sampled = pd.read_csv(camp / "items.csv", dtype=str)
    rows = []
    for i, item in enumerate(sorted(sampled["item_id"])):
        rows.append({"item_id": item, "question": "reference", "label": str(i % 2 == 0).lower()})
        rows.append({"item_id": item, "question": "any_sense", "label": str(i % 2 == 1).lower()})
    pd.DataFrame(rows).to_csv(path, index=False)
    return path


@pytest.fixture
def defcamp(tmp_path, run_cli, monkeypatch):
    monkeypatch.delenv("LABEL_STUDIO_URL", raising=False)
    monkeypatch.delenv("LABEL_STUDIO_API_KEY", raising=False)
    _population().to_csv(tmp_path / "items.csv", index=False)
    _plan(run_cli, str(tmp_path / "items.csv"), str(tmp_path / "camp"))
    _final(tmp_path / "camp", tmp_path / "final.csv")
    return tmp_path


def _manifest(camp: Path) -> dict:
    return json.loads((camp / "manifest.json").read_text(encoding="utf-8"))


def _uids(camp: Path, rater: str = "ann") -> list[str]:
    return [a["uid"] for a in _manifest(camp)["assignments"] if a["rater"] == rater]


# --- D1: `next` keeps every sub-folder of the campaign ----------------------------------------


def test_next_keeps_the_sub_folders_of_the_campaign(defcamp, run_cli, tree_digest):
    camp = defcamp / "camp"
    (camp / "pulled").mkdir()
    shutil.copy(defcamp / "final.csv", camp / "pulled" / "final.csv")  # the labels given to next
    (camp / "notes" / "deep").mkdir(parents=True)
    (camp / "notes" / "deep" / "n.txt").write_text("keep me\n")
    before = {name: tree_digest(camp / name) for name in ("pulled", "notes")}
    code, _out, err = run_cli(
        "annotate", "next", str(camp), "--budget", "4", "--labels", str(camp / "pulled" / "final.csv")
    )
    assert code == 0, err
    assert {name: tree_digest(camp / name) for name in ("pulled", "notes")} == before  # was: deleted
    assert len(_manifest(camp)["rounds"]) == 1


# --- D2: two `next` runs on one campaign ----------------------------------------------------------


def test_a_next_that_read_the_campaign_before_another_wrote_it_is_refused(defcamp, run_cli, monkeypatch):
    from wordplay_audit.pipelines import adaptive

    camp, final = defcamp / "camp", defcamp / "final.csv"
    real, inner = adaptive._server_for, {}

    def racing(c, push):  # the outer run has read the campaign; another run writes round 2 now
        if not inner:
            inner["busy"] = True
            inner["record"] = adaptive.run_next(
                camp, adaptive.NextSpec(budget=4, labels=final, seed=1), push=False
            )
        return real(c, push)

    monkeypatch.setattr(adaptive, "_server_for", racing)
    code, out, err = run_cli(
        "annotate", "next", str(camp), "--budget", "4", "--labels", str(final), "--seed", "2"
    )
    _one_line_error(code, out, err, f"{camp / 'manifest.json'}: the campaign changed while this run read it")
    rounds = _manifest(camp)["rounds"]  # was: exit 0, and round 2 of the other run lost
    assert [r["item_ids"] for r in rounds] == [inner["record"]["item_ids"]]


# --- D3: the planned population, wherever `next` runs ---------------------------------------------


def _pi_by_hand(camp: Path) -> None:
    """Same strata in both rounds: π telescopes to (items of the stratum in the campaign) / 10."""
    items = pd.read_csv(camp / "items.csv", dtype=str, keep_default_na=False)
    for (_model, _verdict), group in items.groupby(["player_model", "judge_verdict"]):
        assert (group["inclusion_probability"] != "").all()
        assert group["inclusion_probability"].astype(float).tolist() == pytest.approx(
            [len(group) / 10] * len(group)
        )


def _other_folder(tmp_path: Path) -> Path:
    """Another folder holding ``pop/items.csv``: a different population of the same kind."""
    other = tmp_path / "other"
    (other / "pop").mkdir(parents=True)
    _population("x").to_csv(other / "pop" / "items.csv", index=False)
    return other


def test_plan_stores_the_items_path_absolute_and_next_uses_it_elsewhere(tmp_path, run_cli, monkeypatch):
    monkeypatch.delenv("LABEL_STUDIO_URL", raising=False)
    here = tmp_path / "here"
    (here / "pop").mkdir(parents=True)
    _population().to_csv(here / "pop" / "items.csv", index=False)
    monkeypatch.chdir(here)
    _plan(run_cli, "pop/items.csv", "camp")  # relative, as a user types it
    assert _manifest(here / "camp")["sources"]["items"] == str(here / "pop" / "items.csv")
    final = _final(here / "camp", tmp_path / "final.csv")
    monkeypatch.chdir(_other_folder(tmp_path))  # was: read other/pop/items.csv, wrote empty π
    code, out, err = run_cli(
        "annotate", "next", str(here / "camp"), "--budget", "4", "--labels", str(final), "--json"
    )
    assert code == 0, err
    assert all(i.startswith("d") for i in json.loads(out)["item_ids"])
    _pi_by_hand(here / "camp")


def test_an_old_relative_source_is_found_beside_the_campaign(defcamp, run_cli, monkeypatch):
    camp = defcamp / "camp"
    manifest = _manifest(camp)
    manifest["sources"]["items"] = "items.csv"  # as plan wrote it when run in the campaign's parent
    (camp / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    other = _other_folder(defcamp)
    shutil.copy(other / "pop" / "items.csv", other / "items.csv")
    monkeypatch.chdir(other)  # was: other/items.csv, the wrong population
    code, _out, err = run_cli(
        "annotate", "next", str(camp), "--budget", "4", "--labels", str(defcamp / "final.csv")
    )
    assert code == 0, err
    _pi_by_hand(camp)


@pytest.mark.parametrize("command", ["next", "status"])
def test_items_lacking_a_campaign_item_are_refused(defcamp, run_cli, tree_digest, command):
    camp = defcamp / "camp"
    sampled = sorted(pd.read_csv(camp / "items.csv", dtype=str)["item_id"])
    population = _population()
    population[population["item_id"] != sampled[0]].to_csv(defcamp / "part.csv", index=False)
    before = tree_digest(camp)
    extra = ["--budget", "4"] if command == "next" else []
    code, out, err = run_cli(
        "annotate", command, str(camp), "--labels", str(defcamp / "final.csv"), "--items", str(defcamp / "part.csv"),
        *extra,
    )  # fmt: skip
    _one_line_error(code, out, err, f"{defcamp / 'part.csv'}: campaign item {sampled[0]!r} is not in this table",
                    "1 of the campaign's 16 items missing")  # fmt: skip
    assert tree_digest(camp) == before


# --- D4: CSV and JSON_MIN exports -----------------------------------------------------------------


def _csv_export(
    path: Path, uids, header=("uid", "annotation_id", "annotator", "reference", "any_sense")
) -> str:
    values = {
        "uid": None,
        "annotation_id": "7",
        "annotator": "ann@x.org",
        "reference": "Yes",
        "any_sense": "No",
    }
    lines = [",".join(header)]
    for u in uids:
        lines.append(",".join(u if h == "uid" else values.get(h, "Yes") for h in header))
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def _import(run_cli, tmp: Path, export: str, *extra: str):
    return run_cli(
        "annotate",
        "import-file",
        str(tmp / "camp"),
        "--export",
        f"ann={export}",
        "--out",
        str(tmp / "pulled"),
        *extra,
    )


def test_csv_without_annotation_id_column_is_refused(defcamp, run_cli):
    uids = _uids(defcamp / "camp")
    path = _csv_export(defcamp / "a.csv", uids, header=("uid", "annotator", "reference", "any_sense"))
    code, out, err = _import(run_cli, defcamp, path)  # was: 0 labels, 0 warnings
    _one_line_error(code, out, err, f"{path} line 2: answers (reference, any_sense) but no annotation_id")
    assert not (defcamp / "pulled").exists()


def test_csv_with_a_renamed_question_column_is_refused(defcamp, run_cli):
    uids = _uids(defcamp / "camp")
    path = _csv_export(
        defcamp / "a.csv", uids, header=("uid", "annotation_id", "annotator", "Reference", "any_sense")
    )
    code, out, err = _import(run_cli, defcamp, path)  # was: every annotation 'empty'
    _one_line_error(code, out, err, f"{path} line 1: no column 'reference'")
    assert not (defcamp / "pulled").exists()


def test_csv_truncated_mid_row_is_refused(defcamp, run_cli):
    uids = _uids(defcamp / "camp")  # 8 rows: lines 2–9
    path = Path(_csv_export(defcamp / "a.csv", uids))
    text = path.read_text()
    path.write_text(text[: text.rindex("\n", 0, -1) + 1 + len(uids[-1]) + 2])  # "<uid>,7": 2 fields
    code, out, err = _import(run_cli, defcamp, str(path))  # was: accepted
    _one_line_error(code, out, err, f"{path} line 9: expected 5 fields (the header's), got 2")


def test_csv_naming_a_column_twice_is_refused(defcamp, run_cli):
    uids = _uids(defcamp / "camp")
    path = _csv_export(
        defcamp / "a.csv", uids, header=("uid", "annotation_id", "annotator", "reference", "reference")
    )
    code, out, err = _import(run_cli, defcamp, path)  # was: the last column won
    _one_line_error(code, out, err, f"{path} line 1: column 'reference' appears twice in the header")


def test_json_min_row_with_answers_but_no_annotation_id_is_refused(defcamp, run_cli):
    uids = _uids(defcamp / "camp")
    rows = [
        {"uid": u, "annotation_id": 7 + i, "reference": "Yes", "any_sense": "No"} for i, u in enumerate(uids)
    ]
    del rows[3]["annotation_id"]
    path = defcamp / "min.json"
    path.write_text(json.dumps(rows))
    code, out, err = _import(run_cli, defcamp, str(path))  # was: counted missing, answers dropped
    _one_line_error(code, out, err, f"{path}: [3]: answers (reference, any_sense) but no annotation_id")


# --- D5, D6, D10: hand-edited campaign folders -----------------------------------------------------


def _edit(camp: Path, change) -> None:
    manifest = _manifest(camp)
    change(manifest)
    (camp / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")


def _set(path: str, value):
    def change(m):
        keys = [int(k) if k.isdigit() else k for k in path.split(".")]
        target = m
        for key in keys[:-1]:
            target = target[key]
        target[keys[-1]] = value

    return change


def _delete(m):
    del m["design"]["raters"]


MANIFEST_CASES = [
    (_set("assignments.0.honeypot", "false"), 'assignments[0].honeypot: expected true/false, got "false"'),
    (_set("design.raters", "ann"), 'design.raters: expected a list of names, got "ann"'),
    (_set("design", []), "design: expected an object, got []"),
    (_delete, "design.raters: missing"),
    (_set("assignments.0.item_id", "nosuch"), "assignments[0].item_id: item 'nosuch' is not in"),
    (_set("assignments.0.position", "x"), 'assignments[0].position: expected a whole number ≥ 1, got "x"'),
    (
        _set("design.overlap", "two"),
        'design.overlap: expected a whole number of raters per item, 1 to 2, got "two"',
    ),
    (_set("design.strata_columns", 5), "design.strata_columns: expected a list of names, got 5"),
    (_set("design.raters", []), "design.raters: expected a list of names, got []"),
    (_set("sources", []), "sources: expected an object, got []"),
    (_set("rounds", [{}]), "rounds[0].round: missing"),
    (_set("rounds", [{"round": 2, "budget": "x"}]), 'rounds[0].budget: expected a whole number ≥ 1, got "x"'),
]


@pytest.mark.parametrize(("change", "needle"), MANIFEST_CASES)
def test_a_hand_edited_manifest_is_one_line_naming_the_field(defcamp, run_cli, tree_digest, change, needle):
    camp = defcamp / "camp"
    _edit(camp, change)
    before = tree_digest(camp)
    for args in (
        ["status", str(camp), "--labels", str(defcamp / "final.csv")],
        ["export-files", str(camp), "--out", str(defcamp / "f")],
    ):
        code, out, err = run_cli("annotate", *args)
        _one_line_error(code, out, err, f"{camp / 'manifest.json'}: {needle}")
    assert tree_digest(camp) == before and not (defcamp / "f").exists()


def test_a_manifest_that_is_not_utf8_is_one_line(defcamp, run_cli):
    camp = defcamp / "camp"
    text = (camp / "manifest.json").read_bytes()
    (camp / "manifest.json").write_bytes(text.replace(b'"campaign"', b'"camp\xffaign"', 1))  # line 3
    code, out, err = run_cli("annotate", "status", str(camp), "--labels", str(defcamp / "final.csv"))
    _one_line_error(code, out, err, f"{camp / 'manifest.json'} line 3: not UTF-8 text (byte 0xff)")


def test_a_truncated_campaign_items_csv_is_one_line(defcamp, run_cli):
    camp = defcamp / "camp"
    lines = (camp / "items.csv").read_text().splitlines(keepends=True)
    (camp / "items.csv").write_text("".join(lines[:-1]))  # the last item gone
    lost = pd.read_csv(defcamp / "camp" / "items.csv", dtype=str)  # 15 rows now
    missing = next(a for a in _manifest(camp)["assignments"] if a["item_id"] not in set(lost["item_id"]))
    index = _manifest(camp)["assignments"].index(missing)
    code, out, err = run_cli(
        "annotate", "export-files", str(camp), "--out", str(defcamp / "f")
    )  # was KeyError
    _one_line_error(
        code,
        out,
        err,
        f"assignments[{index}].item_id: item {missing['item_id']!r} is not in {camp / 'items.csv'}",
    )


def test_a_manifest_with_a_bom_is_read(defcamp, run_cli):
    camp = defcamp / "camp"
    (camp / "manifest.json").write_bytes(b"\xef\xbb\xbf" + (camp / "manifest.json").read_bytes())
    code, _out, err = run_cli("annotate", "status", str(camp), "--labels", str(defcamp / "final.csv"))
    assert code == 0, err  # was: "Unexpected UTF-8 BOM"


def _full_export(path: Path, uids, result, **task) -> str:
    tasks = [
        {"id": i, "data": {"uid": u}, **task,
         "annotations": [{"id": i, "completed_by": {"id": 1, "email": "ann@x.org"}, "result": result}]}
        for i, u in enumerate(uids)
    ]  # fmt: skip
    path.write_text(json.dumps(tasks))
    return str(path)


def _answers(flags=None) -> list[dict]:
    out = [
        {"from_name": q, "to_name": "t_candidate", "type": "choices", "value": {"choices": [v]}}
        for q, v in (("reference", "Yes"), ("any_sense", "No"))
    ]
    if flags is not None:
        out.append(
            {"from_name": "flags", "to_name": "t_candidate", "type": "choices", "value": {"choices": flags}}
        )
    return out


def test_drafts_that_are_not_a_list_are_one_line(defcamp, run_cli):
    path = _full_export(defcamp / "e.json", _uids(defcamp / "camp"), _answers(), drafts=5)
    code, out, err = _import(run_cli, defcamp, path)  # was TypeError
    _one_line_error(code, out, err, f"{path}: [0].drafts: expected a list, got int")


# --- D7: adjudicate checks the labels it is given ------------------------------------------------


def _labels(tmp: Path, rows: list[tuple[str, str, str, str]]) -> str:
    frame = pd.DataFrame(rows, columns=["item_id", "rater", "label", "question"]).assign(rater_type="human")
    frame.to_csv(tmp / "labels.csv", index=False)
    return str(tmp / "labels.csv")


@pytest.mark.parametrize(
    ("third", "needle"),
    [
        (("bob", "true", "bogus"), "line 4: question 'bogus' is not a question the campaign's kind 'definition' asks"),
        (("bob", "maybe", "reference"), "line 4: label 'maybe' is not one of false, true"),
        (("ann", "false", "reference"), "line 4: rater 'ann', item ITEM, question 'reference': label 'false' "
                                        "contradicts an earlier row"),
    ],
)  # fmt: skip
def test_adjudicate_checks_questions_labels_and_conflicts(defcamp, run_cli, third, needle):
    item = sorted(pd.read_csv(defcamp / "camp" / "items.csv", dtype=str)["item_id"])[0]
    rows = [
        (item, "ann", "true", "reference"),
        (item, "ann", "true", "any_sense"),
        (item, *third),
    ]  # lines 2–4
    path = _labels(defcamp, rows)
    code, out, err = run_cli(
        "annotate", "adjudicate", str(defcamp / "camp"), "--labels", path, "--adjudicator", "dana"
    )
    # was: "no disputed items" (bogus), or a dispute sent to the server (maybe, a conflict)
    _one_line_error(code, out, err, f"{path} {needle.replace('ITEM', repr(item))}")


# --- D9: rater names ---------------------------------------------------------------------------------


def test_plan_refuses_a_rater_name_holding_equals(tmp_path, run_cli):
    _population().to_csv(tmp_path / "items.csv", index=False)
    code, out, err = run_cli(
        "annotate",
        "plan",
        str(tmp_path / "items.csv"),
        "--n",
        "4",
        "--raters",
        "ann,b=c",
        "--out",
        str(tmp_path / "c"),
    )
    _one_line_error(code, out, err, "--raters: rater name 'b=c' holds '='")
    assert not (tmp_path / "c").exists()


def test_rater_names_are_nfc_in_plan_and_import_file(tmp_path, run_cli):
    decomposed, composed = "Zoe\u0301", "Zo\u00e9"
    assert unicodedata.normalize("NFC", decomposed) == composed
    _population().to_csv(tmp_path / "items.csv", index=False)
    _plan(run_cli, str(tmp_path / "items.csv"), str(tmp_path / "camp"), raters=f"{decomposed},bob")
    assert _manifest(tmp_path / "camp")["design"]["raters"] == [composed, "bob"]  # was: as typed
    uids = _uids(tmp_path / "camp", composed)
    path = _full_export(tmp_path / "e.json", uids, _answers())
    code, _out, err = run_cli(
        "annotate",
        "import-file",
        str(tmp_path / "camp"),
        "--export",
        f"{decomposed}={path}",
        "--out",
        str(tmp_path / "p"),
    )
    assert code == 0, err  # was: "'Zoé' is not a rater of the campaign"
    labels = pd.read_csv(tmp_path / "p" / "labels.csv", dtype=str)
    assert set(labels["rater"]) == {composed} and len(labels) == 2 * len(uids)


# --- D11 ------------------------------------------------------------------------------------------


def test_an_unknown_flags_choice_is_one_line(defcamp, run_cli):
    path = _full_export(defcamp / "e.json", _uids(defcamp / "camp"), _answers(flags=["maybe"]))
    code, out, err = _import(run_cli, defcamp, path)  # was: ignored
    _one_line_error(code, out, err, f"{path}: [0].annotations[0]: flags: choice 'maybe' is not one of unsure")


def test_a_roster_giving_one_email_to_two_raters_is_refused(defcamp, run_cli):
    path = _full_export(defcamp / "e.json", _uids(defcamp / "camp"), _answers())
    roster = defcamp / "roster.csv"
    roster.write_text("rater,email\nann,x@y.org\nbob,x@y.org\n")
    code, out, err = _import(run_cli, defcamp, path, "--roster", str(roster))  # was: bob won
    _one_line_error(
        code, out, err, f"{roster} line 3: email 'x@y.org' is rater 'bob' here and 'ann' on line 2"
    )


@pytest.mark.parametrize("command", ["next", "status"])
def test_final_labels_with_an_extra_field_name_the_line(defcamp, run_cli, command):
    path = defcamp / "extra.csv"
    lines = (defcamp / "final.csv").read_text().splitlines()
    path.write_text("\n".join([lines[0], *(line + ",x" for line in lines[1:])]) + "\n")
    extra = ["--budget", "4"] if command == "next" else []
    code, out, err = run_cli("annotate", command, str(defcamp / "camp"), "--labels", str(path), *extra)
    # was: pandas took the first column as the index and the error named the wrong columns
    _one_line_error(code, out, err, f"{path} line 2: expected 3 fields, got 4")
