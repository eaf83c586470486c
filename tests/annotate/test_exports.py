"""Exports read by ``annotate import-file`` (JSON, JSON_MIN, CSV), and unreachable servers: one-line
errors (exit 2, nothing written) or counted warnings, nothing lost."""

from __future__ import annotations

import json
import unicodedata
from pathlib import Path

import pandas as pd
import pytest

from tests.support import campaigns
from tests.support.cli_checks import one_line_error as _one_line_error
from tests.support.tables import write_csv

RATERS = "ann,bob"


@pytest.fixture
def camp(tmp_path, run_cli):
    """A small offline guess campaign: 6 items, 2 raters, overlap 2 (each rater gets all 6)."""
    items = pd.DataFrame(
        {
            "item_id": [f"g{i}" for i in range(6)],
            "game": "wof",
            "kind": "guess",
            "context": "PHRASE",
            "reference": "ANSWER",
            "candidate": [f"guess {i}" for i in range(6)],
        }
    )
    items.to_csv(tmp_path / "items.csv", index=False)
    code, _out, err = run_cli(
        "annotate",
        "plan",
        str(tmp_path / "items.csv"),
        "--n",
        "6",
        "--raters",
        RATERS,
        "--overlap",
        "2",
        "--seed",
        "1",
        "--out",
        str(tmp_path / "camp"),
    )
    assert code == 0, err
    manifest = json.loads((tmp_path / "camp" / "manifest.json").read_text())
    return tmp_path, manifest


def _task(uid: str, annotations: list[dict], drafts: int = 0, predictions: int = 0) -> dict:
    return {
        "id": 1,
        "data": {"uid": uid, "text_context": "x", "text_reference": "y", "text_candidate": "z"},
        "annotations": annotations,
        "drafts": [{"id": i, "result": []} for i in range(drafts)],
        "predictions": [{"id": i, "result": []} for i in range(predictions)],
    }


def _ann(
    value: str | None, email: str = "ann@example.org", cancelled: bool = False, updated: str = "2026-01-01"
) -> dict:
    result = (
        []
        if value is None
        else [
            {
                "from_name": "correct",
                "to_name": "t_candidate",
                "type": "choices",
                "value": {"choices": [value]},
            }
        ]
    )
    return {
        "id": 9,
        "completed_by": {"id": 2, "email": email},
        "was_cancelled": cancelled,
        "result": result,
        "updated_at": updated,
    }


def _export(tmp_path, manifest, rater: str, build) -> str:
    uids = [a["uid"] for a in manifest["assignments"] if a["rater"] == rater]
    path = tmp_path / f"export_{rater}.json"
    path.write_text(json.dumps(build(uids)))
    return str(path)


def _import(run_cli, tmp_path, *exports: str, roster: bool = True, extra: tuple[str, ...] = ()):
    pd.DataFrame({"rater": ["ann", "bob"], "email": ["ann@example.org", "bob@example.org"]}).to_csv(
        tmp_path / "roster.csv", index=False
    )
    args = ["annotate", "import-file", str(tmp_path / "camp"), "--out", str(tmp_path / "pulled"), "--json"]
    for e in exports:
        args += ["--export", e]
    if roster:
        args += ["--roster", str(tmp_path / "roster.csv")]
    return run_cli(*args, *extra)


def test_clean_export_with_skips_drafts_predictions(camp, run_cli):
    tmp_path, manifest = camp

    def build(uids):
        return [
            _task(uids[0], [_ann("true")], drafts=1, predictions=1),
            _task(uids[1], [_ann(None, cancelled=True)]),
            _task(uids[2], [_ann("false")]),
            _task(uids[3], [], drafts=2),
        ] + [_task(u, []) for u in uids[4:]]

    code, out, err = _import(run_cli, tmp_path, "ann=" + _export(tmp_path, manifest, "ann", build))
    assert code == 0, err
    counts = json.loads(out)["counts"]
    assert (counts["labelled"], counts["skipped"], counts["missing"]) == (2, 1, 3)
    assert (counts["drafts_ignored"], counts["predictions_ignored"]) == (3, 1)
    labels = pd.read_csv(tmp_path / "pulled" / "labels.csv", dtype=str, keep_default_na=False)
    assert sorted(labels["label"]) == ["false", "true"] and set(labels["rater"]) == {"ann"}


@pytest.mark.parametrize(
    ("case", "expect"),
    [
        ("truncated", "line 1: not valid JSON"),
        ("unknown_choice", "correct: expected one choice of Yes (true), No (false); got 1: 'maybe'"),
        ("not_a_list", "expected a JSON list of tasks"),
        ("no_uid", "no 'uid'"),
    ],
)
def test_bad_exports_are_one_line_errors(camp, run_cli, case, expect):
    tmp_path, manifest = camp
    path = tmp_path / "bad.json"
    uids = [a["uid"] for a in manifest["assignments"] if a["rater"] == "ann"]
    good = json.dumps([_task(uids[0], [_ann("true")])])
    path.write_text(
        {
            "truncated": good[: len(good) // 2],
            "unknown_choice": json.dumps([_task(uids[0], [_ann("maybe")])]),
            "not_a_list": json.dumps({"tasks": []}),
            "no_uid": json.dumps([{"id": 1, "data": {"text": "x"}, "annotations": []}]),
        }[case]
    )
    code, out, err = _import(run_cli, tmp_path, f"ann={path}")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and expect in err and str(path) in err
    assert not (tmp_path / "pulled").exists()


def test_counted_warnings_nothing_silently_lost(camp, run_cli):
    tmp_path, manifest = camp

    def build(uids):
        return [
            _task(
                uids[0], [_ann("true", updated="2026-01-01"), _ann("false", updated="2026-01-02")]
            ),  # duplicate
            _task(uids[1], [_ann("true", email="mallory@example.org")]),  # not in the roster
            _task(uids[2], [_ann("true", email="bob@example.org")]),  # another rater of the roster
            _task("f" * 16, [_ann("true")]),  # a task not in the campaign
        ]

    export = "ann=" + _export(tmp_path, manifest, "ann", build)
    code, out, err = _import(run_cli, tmp_path, export, extra=("--foreign", "leave-out"))  # refused without
    assert code == 0, err
    result = json.loads(out)
    counts = result["counts"]
    assert counts["duplicate_annotations"] == 1
    assert counts["foreign_annotator"] == 2
    assert counts["unknown_task"] == 1
    assert counts["labelled"] == 1 and counts["missing"] == 5
    assert result["n_warnings"] == 4
    assert any("mallory@example.org" in w and "not in the roster" in w for w in result["warnings"])
    labels = pd.read_csv(tmp_path / "pulled" / "labels.csv", dtype=str)
    assert labels["label"].tolist() == ["false"]  # the later of the duplicate pair


def test_unknown_rater_and_bad_format_option(camp, run_cli):
    tmp_path, _manifest = camp
    code, _out, err = _import(run_cli, tmp_path, f"eve={tmp_path / 'x.json'}")
    assert code == 2 and "'eve' is not a rater" in err
    code, _out, err = run_cli(
        "annotate",
        "import-file",
        str(tmp_path / "camp"),
        "--export",
        "ann=x.json",
        "--format",
        "xml",
        "--out",
        str(tmp_path / "o"),
    )
    assert code == 2 and "--format" in err and "json-min" in err


@pytest.mark.slow
def test_server_down_is_one_line_exit_2(camp, run_cli, monkeypatch):
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    monkeypatch.setenv("LABEL_STUDIO_URL", f"http://127.0.0.1:{port}")
    monkeypatch.setenv("LABEL_STUDIO_API_KEY", "0" * 40)
    tmp_path, _ = camp
    for command in (["push"], ["status"], ["pull", "--out", str(tmp_path / "p")]):
        code, out, err = run_cli("annotate", command[0], str(tmp_path / "camp"), *command[1:])
        assert code == 2 and out == ""
        assert err.count("\n") == 1 and "no Label Studio server answers" in err
        assert "0" * 40 not in err


def test_missing_credentials(camp, run_cli, monkeypatch):
    monkeypatch.delenv("LABEL_STUDIO_URL", raising=False)
    monkeypatch.delenv("LABEL_STUDIO_API_KEY", raising=False)
    tmp_path, _ = camp
    code, _out, err = run_cli("annotate", "push", str(tmp_path / "camp"))
    assert code == 2 and "LABEL_STUDIO_URL is not set" in err


@pytest.mark.server
def test_wrong_token_is_one_line_exit_2(camp, run_cli, monkeypatch, label_studio):
    monkeypatch.setenv("LABEL_STUDIO_URL", label_studio.url)
    monkeypatch.setenv("LABEL_STUDIO_API_KEY", "f" * 40)
    tmp_path, _ = camp
    code, out, err = run_cli("annotate", "push", str(tmp_path / "camp"))
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "refused the token" in err and "f" * 40 not in err


def test_roster_and_adjudicator_checked_before_any_connection(camp, run_cli, monkeypatch):
    monkeypatch.delenv("LABEL_STUDIO_URL", raising=False)
    monkeypatch.delenv("LABEL_STUDIO_API_KEY", raising=False)
    tmp_path, _ = camp
    # pull named the missing server, not the missing --roster file
    code, out, err = run_cli(
        "annotate",
        "pull",
        str(tmp_path / "camp"),
        "--out",
        str(tmp_path / "p"),
        "--roster",
        str(tmp_path / "no.csv"),
    )
    assert code == 2 and out == "" and err.count("\n") == 1 and "no.csv: no such file" in err
    assert not (tmp_path / "p").exists()
    # an empty --adjudicator was taken as a name (and, with no disputes, said "no disputed items")
    labels = tmp_path / "labels.csv"
    labels.write_text("item_id,rater,rater_type,label\ng0,ann,human,true\n")
    for name in ("", " "):
        code, out, err = run_cli(
            "annotate", "adjudicate", str(tmp_path / "camp"), "--labels", str(labels), "--adjudicator", name
        )
        assert code == 2 and out == "" and err == f"error: --adjudicator: expected a name, got {name!r}\n"


# --- CSV and JSON_MIN exports ---------------------------------------------------------------------


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


def _import_ann(run_cli, tmp: Path, export: str, *extra: str):
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


@pytest.mark.parametrize(
    ("header", "needle"),
    [
        (("uid", "annotator", "reference", "any_sense"), "line 2: answers (reference, any_sense) but no annotation_id"),
        (("uid", "annotation_id", "annotator", "Reference", "any_sense"), "line 1: no column 'reference'"),
    ],
    ids=["no-annotation_id-column", "a-question-column-renamed"],
)  # fmt: skip
def test_csv_without_a_column_it_needs_is_refused(campaign_of_16, run_cli, header, needle):
    # no annotation_id: was 0 labels, 0 warnings; "Reference": was every annotation 'empty'
    uids = campaigns.rater_uids(campaign_of_16 / "camp")
    path = _csv_export(campaign_of_16 / "a.csv", uids, header=header)
    code, out, err = _import_ann(run_cli, campaign_of_16, path)
    _one_line_error(code, out, err, f"{path} {needle}")
    assert not (campaign_of_16 / "pulled").exists()


def test_csv_truncated_mid_row_is_refused(campaign_of_16, run_cli):
    uids = campaigns.rater_uids(campaign_of_16 / "camp")  # 8 rows: lines 2–9
    path = Path(_csv_export(campaign_of_16 / "a.csv", uids))
    text = path.read_text()
    path.write_text(text[: text.rindex("\n", 0, -1) + 1 + len(uids[-1]) + 2])  # "<uid>,7": 2 fields
    code, out, err = _import_ann(run_cli, campaign_of_16, str(path))  # was: accepted
    _one_line_error(code, out, err, f"{path} line 9: expected 5 fields (the header's), got 2")


def test_csv_naming_a_column_twice_is_refused(campaign_of_16, run_cli):
    uids = campaigns.rater_uids(campaign_of_16 / "camp")
    path = _csv_export(
        campaign_of_16 / "a.csv", uids, header=("uid", "annotation_id", "annotator", "reference", "reference")
    )
    code, out, err = _import_ann(run_cli, campaign_of_16, path)  # was: the last column won
    _one_line_error(code, out, err, f"{path} line 1: column 'reference' appears twice in the header")


def test_json_min_row_with_answers_but_no_annotation_id_is_refused(campaign_of_16, run_cli):
    uids = campaigns.rater_uids(campaign_of_16 / "camp")
    rows = [
        {"uid": u, "annotation_id": 7 + i, "reference": "Yes", "any_sense": "No"} for i, u in enumerate(uids)
    ]
    del rows[3]["annotation_id"]
    path = campaign_of_16 / "min.json"
    path.write_text(json.dumps(rows))
    code, out, err = _import_ann(run_cli, campaign_of_16, str(path))  # was: counted missing, answers dropped
    _one_line_error(code, out, err, f"{path}: [3]: answers (reference, any_sense) but no annotation_id")


# --- JSON exports: drafts, flags, rosters, rater names --------------------------------------------


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


@pytest.mark.parametrize(
    ("answers", "task", "needle"),
    [
        ({}, {"drafts": 5}, "[0].drafts: expected a list, got int"),  # was TypeError
        (
            {"flags": ["maybe"]},
            {},
            "[0].annotations[0]: flags: choice 'maybe' is not one of unsure",
        ),  # was: ignored
    ],
    ids=["drafts-not-a-list", "an-unknown-flags-choice"],
)
def test_a_json_export_of_the_wrong_shape_is_one_line(campaign_of_16, run_cli, answers, task, needle):
    path = _full_export(
        campaign_of_16 / "e.json", campaigns.rater_uids(campaign_of_16 / "camp"), _answers(**answers), **task
    )
    code, out, err = _import_ann(run_cli, campaign_of_16, path)
    _one_line_error(code, out, err, f"{path}: {needle}")


def test_a_roster_giving_one_email_to_two_raters_is_refused(campaign_of_16, run_cli):
    path = _full_export(campaign_of_16 / "e.json", campaigns.rater_uids(campaign_of_16 / "camp"), _answers())
    roster = campaign_of_16 / "roster.csv"
    roster.write_text("rater,email\nann,x@y.org\nbob,x@y.org\n")
    code, out, err = _import_ann(run_cli, campaign_of_16, path, "--roster", str(roster))  # was: bob won
    _one_line_error(
        code, out, err, f"{roster} line 3: email 'x@y.org' is rater 'bob' here and 'ann' on line 2"
    )


def test_rater_names_are_nfc_in_plan_and_import_file(tmp_path, run_cli):
    decomposed, composed = "Zoe\u0301", "Zo\u00e9"
    assert unicodedata.normalize("NFC", decomposed) == composed
    campaigns.population().to_csv(tmp_path / "items.csv", index=False)
    campaigns.plan_definitions(
        run_cli, str(tmp_path / "items.csv"), str(tmp_path / "camp"), raters=f"{decomposed},bob"
    )
    assert campaigns.read_manifest(tmp_path / "camp")["design"]["raters"] == [
        composed,
        "bob",
    ]  # was: as typed
    uids = campaigns.rater_uids(tmp_path / "camp", composed)
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


# --- answers of the wrong shape, a rater given twice, an export inside --out ----------------------


@pytest.fixture
def guess_camp(tmp_path, run_cli):
    """An offline guess campaign: 4 items, raters ann and bob, overlap 2."""
    items = [{"item_id": f"g{i}", "game": "wof", "kind": "guess", "context": "P", "reference": "A",
              "candidate": f"c{i}"} for i in range(4)]  # fmt: skip
    code, _out, err = run_cli(
        "annotate", "plan", write_csv(tmp_path / "items.csv", items), "--n", "4", "--raters", "ann,bob",
        "--overlap", "2", "--seed", "1", "--out", str(tmp_path / "camp"),
    )  # fmt: skip
    assert code == 0, err
    manifest = json.loads((tmp_path / "camp" / "manifest.json").read_text())
    return tmp_path, [a["uid"] for a in manifest["assignments"] if a["rater"] == "ann"]


def _tasks_file(path, uids, result) -> str:
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


def _import_exports(run_cli, tmp, *exports):
    args = ["annotate", "import-file", str(tmp / "camp"), "--out", str(tmp / "pulled"), "--json"]
    for e in exports:
        args += ["--export", e]
    return run_cli(*args)


@pytest.mark.parametrize("result", ["oops", 5])
def test_import_result_not_a_list(guess_camp, run_cli, result):
    tmp, uids = guess_camp
    path = _tasks_file(tmp / "ann.json", uids[:1], result)
    code, out, err = _import_exports(run_cli, tmp, f"ann={path}")
    # was AttributeError: 'str' object has no attribute 'get' / TypeError on an int
    _one_line_error(code, out, err, f"{path}: [0].annotations[0].result", repr(uids[0]), "expected a list")
    assert not (tmp / "pulled").exists()


def test_import_bare_string_choice_is_one_choice(guess_camp, run_cli):
    tmp, uids = guess_camp
    path = _tasks_file(tmp / "ann.json", uids[:1], _choice("Yes"))  # not ["Yes"]: was read as 'Y', 'e', 's'
    code, out, err = _import_exports(run_cli, tmp, f"ann={path}")
    assert code == 0, err
    labels = pd.read_csv(tmp / "pulled" / "labels.csv", dtype=str)
    assert labels["label"].tolist() == ["true"]  # "Yes" is the shown text of the stored label true


def test_import_two_choices_says_what_was_expected(guess_camp, run_cli):
    tmp, uids = guess_camp
    path = _tasks_file(tmp / "ann.json", uids[:1], _choice(["Yes", "No"]))
    code, out, err = _import_exports(run_cli, tmp, f"ann={path}")
    # was "choice 'Yes' is not one of true, false" (Yes is allowed: there were two)
    _one_line_error(
        code, out, err, f"{path}: [0].annotations[0]: correct: expected one choice of Yes (true), No (false)",
        "got 2: 'Yes', 'No'",
    )  # fmt: skip


def test_import_same_rater_twice_is_refused(guess_camp, run_cli):
    tmp, uids = guess_camp
    a = _tasks_file(tmp / "a.json", uids, _choice(["Yes"]))
    b = _tasks_file(tmp / "b.json", uids[:1], _choice(["No"]))
    code, out, err = _import_exports(run_cli, tmp, f"ann={a}", f"ann={b}")  # was rc 0, a.json discarded
    _one_line_error(code, out, err, "--export: rater 'ann' is given twice", "a.json", "b.json")
    assert not (tmp / "pulled").exists()


def test_import_into_the_folder_that_holds_its_export_is_refused(guess_camp, run_cli, tree_digest):
    """`--export ann=pulled/ann.json --out pulled` would replace the folder holding the export it
    reads (a RATER=FILE value is an input too)."""
    tmp, uids = guess_camp
    assert _import_exports(run_cli, tmp, f"ann={_tasks_file(tmp / 'a.json', uids, _choice(['Yes']))}")[0] == 0
    inside = _tasks_file(tmp / "pulled" / "ann.json", uids, _choice(["Yes"]))
    before = tree_digest(tmp / "pulled")
    code, out, err = _import_exports(run_cli, tmp, f"ann={inside}")
    _one_line_error(code, out, err, f"--out: {tmp / 'pulled'} is or holds the input", "ann.json")
    assert tree_digest(tmp / "pulled") == before
