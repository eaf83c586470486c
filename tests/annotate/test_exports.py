"""Bad exports and unreachable servers: one-line errors (exit 2) or counted warnings, nothing lost."""

from __future__ import annotations

import json

import pandas as pd
import pytest

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


def _import(run_cli, tmp_path, *exports: str, roster: bool = True):
    pd.DataFrame({"rater": ["ann", "bob"], "email": ["ann@example.org", "bob@example.org"]}).to_csv(
        tmp_path / "roster.csv", index=False
    )
    args = ["annotate", "import-file", str(tmp_path / "camp"), "--out", str(tmp_path / "pulled"), "--json"]
    for e in exports:
        args += ["--export", e]
    if roster:
        args += ["--roster", str(tmp_path / "roster.csv")]
    return run_cli(*args)


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

    code, out, err = _import(run_cli, tmp_path, "ann=" + _export(tmp_path, manifest, "ann", build))
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


@pytest.mark.slow
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
