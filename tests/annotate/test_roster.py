"""The roster (``rater → email``, the CSV's orientation in Python too), the refusal of foreign
annotations, the no-roster warnings, blind adjudication text, and the inputs of
``annotate raters`` — all without a server (file mode and the library).

The campaign: 6 ``guess`` items, raters ann and bob, overlap 2 (each labels all 6)."""

from __future__ import annotations

import json
import os

import pandas as pd
import pytest

from tests.support.cli_checks import one_line_error
from wordplay_audit.errors import InputError, ParameterError

ROSTER = {"ann": "ann@example.org", "bob": "bob@example.org"}


@pytest.fixture
def camp(tmp_path, run_cli, monkeypatch):
    monkeypatch.delenv("LABEL_STUDIO_URL", raising=False)
    monkeypatch.delenv("LABEL_STUDIO_API_KEY", raising=False)
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
        "annotate", "plan", str(tmp_path / "items.csv"), "--n", "6", "--raters", "ann,bob",
        "--overlap", "2", "--seed", "1", "--out", str(tmp_path / "camp"),
    )  # fmt: skip
    assert code == 0, err
    return tmp_path


def _uids(tmp_path, rater: str) -> list[str]:
    manifest = json.loads((tmp_path / "camp" / "manifest.json").read_text())
    return [a["uid"] for a in manifest["assignments"] if a["rater"] == rater]


def _export(tmp_path, rater: str, emails: list[str]) -> str:
    """A full JSON export of ``rater``'s project: task i annotated ("Yes") by ``emails[i]``."""
    tasks = [
        {
            "id": i,
            "data": {"uid": uid, "text_context": "x"},
            "annotations": [
                {
                    "id": 100 + i,
                    "completed_by": {"id": 7, "email": email},
                    "was_cancelled": False,
                    "result": [
                        {
                            "from_name": "correct",
                            "to_name": "t_candidate",
                            "type": "choices",
                            "value": {"choices": ["Yes"]},
                        }
                    ],  # fmt: skip
                    "updated_at": "2026-01-01",
                }
            ],
        }
        for i, (uid, email) in enumerate(zip(_uids(tmp_path, rater), emails, strict=False))
    ]
    path = tmp_path / f"export_{rater}.json"
    path.write_text(json.dumps(tasks))
    return f"{rater}={path}"


def _import(run_cli, tmp_path, *args: str):
    return run_cli(
        "annotate", "import-file", str(tmp_path / "camp"), "--out", str(tmp_path / "pulled"), *args
    )  # fmt: skip


# --- the roster's one orientation ----------------------------------------------------------


def test_a_roster_reads_the_same_from_a_csv_a_dataframe_and_a_mapping(tmp_path):
    from wordplay_audit.annotate.roster import as_roster

    path = tmp_path / "roster.csv"
    path.write_text("rater,email,password\nann,Ann@Example.org,secret-1\nbob,bob@example.org,\n")
    frame = pd.DataFrame({"rater": ["ann", "bob"], "email": ["ann@example.org", "BOB@example.org"]})
    for given in (path, str(path), frame, ROSTER, {"ann": ["ann@example.org"], "bob": "bob@example.org"}):
        roster = as_roster(given)
        assert roster.rater_of("ann@example.org") == "ann"  # emails compared case-insensitively
        assert roster.rater_of("bob@EXAMPLE.org") == "bob"
        assert roster.rater_of("eve@example.org") is None


@pytest.mark.parametrize(
    ("given", "needle"),
    [
        ({"ann@example.org": "ann"}, "the keys are emails and the values are not"),
        ({"ann": "ann"}, "'ann' (rater 'ann') is not an email address"),
        ({"ann": 3}, "expected {rater: email}"),
        (["ann@example.org"], "expected a CSV path, a DataFrame"),
        ({"ann": "x@example.org", "bob": "X@example.org"}, "is rater 'bob' here and 'ann'"),
    ],
)
def test_a_roster_of_the_wrong_shape_is_a_parameter_error_naming_roster(given, needle):
    from wordplay_audit.annotate.roster import as_roster

    with pytest.raises(ParameterError, match=r"^roster: ") as exc:
        as_roster(given)
    assert needle in str(exc.value)


def test_a_roster_csv_with_a_bad_email_names_its_line(tmp_path):
    from wordplay_audit.annotate.roster import as_roster

    path = tmp_path / "roster.csv"
    path.write_text("rater,email\nann,ann@example.org\nbob,bob\n")
    with pytest.raises(InputError, match=rf"^{path} line 3: email 'bob' \(rater 'bob'\) is not an email"):
        as_roster(path)


def test_pull_in_python_takes_the_roster_as_rater_to_email(camp):
    """The trap: ``roster=`` took ``{email: rater}``, the reverse of the CSV; given the CSV's
    orientation every annotation was foreign and the labels table came back empty, no error."""
    from wordplay_audit.annotate.campaign import read_campaign
    from wordplay_audit.annotate.workflow import import_files

    c = read_campaign(camp / "camp")
    ann = _export(camp, "ann", ["ann@example.org"] * 6).split("=", 1)[1]
    bob = _export(camp, "bob", ["bob@example.org"] * 3).split("=", 1)[1]
    pulled = import_files(c, {"ann": ann, "bob": bob}, roster=ROSTER)
    assert pulled.main.counts["foreign_annotator"] == 0
    assert sorted(pulled.main.labels.groupby("rater").size().items()) == [("ann", 6), ("bob", 3)]
    # and a DataFrame or a CSV path in the same orientation give the same
    frame = pd.DataFrame({"rater": list(ROSTER), "email": list(ROSTER.values())})
    assert len(import_files(c, {"ann": ann, "bob": bob}, roster=frame).main.labels) == 9


def test_a_roster_matching_no_annotator_is_a_parameter_error(camp):
    from wordplay_audit.annotate.campaign import read_campaign
    from wordplay_audit.annotate.workflow import import_files

    c = read_campaign(camp / "camp")
    ann = _export(camp, "ann", ["ann@example.org"] * 6).split("=", 1)[1]
    wrong = {"ann": "ann@other.org", "bob": "bob@other.org"}  # another server's accounts
    with pytest.raises(ParameterError, match=r"^roster: none of its 2 email\(s\)") as exc:
        import_files(c, {"ann": ann}, roster=wrong)
    assert "'ann@example.org'" in str(exc.value)  # the annotators it did see


def test_a_roster_without_one_of_the_raters_is_a_parameter_error(camp):
    from wordplay_audit.annotate.campaign import read_campaign
    from wordplay_audit.annotate.workflow import import_files

    c = read_campaign(camp / "camp")
    bob = _export(camp, "bob", ["bob@example.org"] * 6).split("=", 1)[1]
    with pytest.raises(ParameterError, match=r"^roster: no email for rater 'bob'"):
        import_files(c, {"bob": bob}, roster={"ann": "ann@example.org"})


# --- foreign annotations: refused unless told ----------------------------------------------


def test_a_foreign_annotation_is_refused_by_default_and_left_out_when_told(camp):
    from wordplay_audit.annotate.campaign import read_campaign
    from wordplay_audit.annotate.workflow import import_files

    c = read_campaign(camp / "camp")
    # bob's project: his own 4 annotations, one by ann, one by someone not in the roster
    bob = _export(camp, "bob", ["bob@example.org"] * 4 + ["ann@example.org", "eve@example.org"])
    files = {"bob": bob.split("=", 1)[1]}
    with pytest.raises(InputError) as exc:
        import_files(c, files, roster=ROSTER)
    message = str(exc.value)
    assert "annotator 'ann@example.org' is rater 'ann', in the project of 'bob'" in message
    assert "refused, 2 annotation(s) in all" in message and "foreign='leave_out'" in message
    pulled = import_files(c, files, roster=ROSTER, foreign="leave_out")
    assert pulled.main.counts["foreign_annotator"] == 2
    assert len(pulled.main.labels) == 4 and set(pulled.main.labels["rater"]) == {"bob"}
    with pytest.raises(ParameterError, match="foreign: expected one of refuse, leave_out"):
        import_files(c, files, roster=ROSTER, foreign="keep")


def test_import_file_refuses_a_foreign_annotation_naming_the_flag(camp, run_cli):
    roster = camp / "roster.csv"
    pd.DataFrame({"rater": list(ROSTER), "email": list(ROSTER.values())}).to_csv(roster, index=False)
    bob = _export(camp, "bob", ["bob@example.org", "ann@example.org"])
    code, out, err = _import(run_cli, camp, "--export", bob, "--roster", str(roster))
    one_line_error(code, out, err, "is rater 'ann', in the project of 'bob'", "--foreign leave-out")
    assert "foreign='leave_out'" not in err and not (camp / "pulled").exists()
    code, out, err = _import(
        run_cli, camp, "--export", bob, "--roster", str(roster), "--foreign", "leave-out"
    )
    assert code == 0, err
    assert "left out: foreign annotator 1" in out and "no roster" not in out
    code, out, err = _import(run_cli, camp, "--export", bob, "--roster", str(roster), "--foreign", "keep")
    one_line_error(code, out, err, "--foreign: expected one of refuse, leave-out; got 'keep'")


def test_a_roster_that_names_nobody_is_one_line_naming_the_flag(camp, run_cli):
    roster = camp / "roster.csv"
    roster.write_text("rater,email\nann,ann@other.org\nbob,bob@other.org\n")
    code, out, err = _import(
        run_cli, camp, "--export", _export(camp, "ann", ["ann@example.org"]), "--roster", str(roster)
    )
    one_line_error(code, out, err, f"--roster ({roster}): none of its 2 email(s)")


# --- without a roster: said loudly ----------------------------------------------------------


def test_without_a_roster_the_first_line_says_so_and_mixed_projects_are_named(camp, run_cli):
    from wordplay_audit.annotate.roster import NO_ROSTER

    bob = _export(camp, "bob", ["bob@example.org"] * 3 + ["ann@example.org"])
    code, out, err = _import(run_cli, camp, "--export", bob)
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0] == f"warning: {NO_ROSTER}"
    assert sum(NO_ROSTER in line for line in lines) == 1
    assert any("rater 'bob': annotations by 2 accounts" in line for line in lines)
    # the other account's label counts as bob's: what the warning is about
    labels = pd.read_csv(camp / "pulled" / "labels.csv")
    assert len(labels) == 4 and set(labels["rater"]) == {"bob"}
    summary = json.loads((camp / "pulled" / "summary.json").read_text())
    assert summary["warnings"][0] == NO_ROSTER


def test_push_without_a_roster_warns_and_with_one_needs_every_rater(camp):
    from wordplay_audit.annotate.campaign import read_campaign
    from wordplay_audit.annotate.roster import NO_ROSTER, roster_notes

    c = read_campaign(camp / "camp")
    assert roster_notes(c.raters, None, None) == [NO_ROSTER]  # no server needed to say so
    with pytest.raises(ParameterError, match=r"^roster: no email for rater 'bob'"):
        roster_notes(c.raters, None, {"ann": "ann@example.org"})


# --- adjudication: blind by default ---------------------------------------------------------


def test_adjudication_tasks_show_no_rater_names_unless_asked(camp):
    from wordplay_audit.annotate.adjudication import adjudication_queue
    from wordplay_audit.annotate.campaign import read_campaign

    c = read_campaign(camp / "camp")
    labels = pd.DataFrame(
        {
            "item_id": ["g0", "g0", "g1", "g1", "g2", "g2"],
            "rater": ["zed", "amy", "zed", "amy", "zed", "amy"],
            "rater_type": "human",
            "label": ["true", "false", "false", "true", "true", "true"],
        }
    )
    adj, earlier = adjudication_queue(c, labels, "judy")
    assert sorted(earlier) == ["g0", "g1"]  # g2 agrees
    for text in earlier.values():
        assert "zed" not in text and "amy" not in text
        # numbered by the answers' text, so who answered what is not told by the number
        assert text == "rater 1: label=false; rater 2: label=true"
    _adj, named = adjudication_queue(c, labels, "judy", show_raters=True)
    assert named == {"g0": "amy: label=false; zed: label=true", "g1": "amy: label=true; zed: label=false"}
    assert "zed" not in json.dumps(adj)  # nor in the queue file


# --- annotate raters: its inputs, checked before any account is made -----------------------


def test_rater_emails_come_from_the_emails_table_or_the_domain(tmp_path):
    from wordplay_audit.annotate.accounts import wanted_accounts

    emails = tmp_path / "emails.csv"
    emails.write_text("rater,email,password\nann,Ann@Lab.org,correct-horse\n")
    got = wanted_accounts(["ann", "bob", "ann"], emails=emails, email_domain="lab.example.org")
    assert [(w.rater, w.email, w.password) for w in got] == [
        ("ann", "ann@lab.org", "correct-horse"),
        ("bob", "bob@lab.example.org", None),
    ]


@pytest.mark.parametrize(
    ("kwargs", "needle"),
    [
        ({}, "emails: no email for rater 'ann'"),
        ({"email_domain": "not a domain"}, "email_domain: expected a domain"),
        ({"emails": {"ann@lab.org": "ann"}}, "roster: the keys are emails"),
        ({"emails": {"ann": "a@lab.org", "bob": "a@lab.org"}}, "is rater 'bob' here and 'ann'"),
    ],
)
def test_rater_emails_that_cannot_be_used_are_parameter_errors(kwargs, needle):
    from wordplay_audit.annotate.accounts import wanted_accounts

    with pytest.raises(ParameterError) as exc:
        wanted_accounts(["ann", "bob"], **kwargs)
    assert needle in str(exc.value)


def test_a_given_password_outside_label_studios_lengths_is_refused(tmp_path):
    from wordplay_audit.annotate.accounts import wanted_accounts

    emails = tmp_path / "emails.csv"
    emails.write_text("rater,email,password\nann,ann@lab.org,short\n")
    with pytest.raises(ParameterError, match="has 5 characters; Label Studio takes 8–128"):
        wanted_accounts(["ann"], emails=emails)


def test_raters_will_not_replace_a_file_it_did_not_write(tmp_path):
    from wordplay_audit.annotate.accounts import read_credentials

    other = tmp_path / "labels.csv"
    other.write_text("item_id,rater,rater_type,label\ng0,ann,human,true\n")
    with pytest.raises(ParameterError, match="is not a credentials file of `annotate raters`"):
        read_credentials(other)
    assert read_credentials(tmp_path / "absent.csv") == {}


@pytest.mark.slow  # one command per case, about 4 s
def test_raters_errors_name_the_flags_before_any_connection(camp, run_cli, monkeypatch):
    import socket

    with socket.socket() as sock:  # a port nobody listens on: reaching it would be the error
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    monkeypatch.setenv("LABEL_STUDIO_URL", f"http://127.0.0.1:{port}")
    monkeypatch.setenv("LABEL_STUDIO_API_KEY", "0" * 40)
    out = camp / "roster.csv"
    for args, needle in (
        ((), "--emails: no email for rater 'ann' (give a row rater,email for them, or --email-domain)"),
        (("--email-domain", "x y"), "--email-domain: expected a domain"),
        (
            ("--emails", str(camp / "items.csv")),
            f"{camp / 'items.csv'} line 1: expected columns rater, email",
        ),
    ):
        code, stdout, err = run_cli("annotate", "raters", str(camp / "camp"), "--out", str(out), *args)
        one_line_error(code, stdout, err, needle)
    code, stdout, err = run_cli(
        "annotate", "raters", str(camp / "camp"), "--out", str(out), "--email-domain", "lab.org"
    )
    one_line_error(code, stdout, err, "no Label Studio server answers")  # the inputs were fine
    assert not out.exists()


def test_a_file_of_secrets_is_written_mode_600_whatever_the_umask(tmp_path):
    from wordplay_audit.corpora.io import output_file

    old = os.umask(0o022)
    try:
        with output_file(tmp_path / "secret.csv", mode=0o600) as tmp:
            assert os.stat(tmp).st_mode & 0o777 == 0o600  # from its creation
            tmp.write_text("rater,password\n")
        with output_file(tmp_path / "plain.csv") as tmp:
            tmp.write_text("x\n")
    finally:
        os.umask(old)
    assert os.stat(tmp_path / "secret.csv").st_mode & 0o777 == 0o600
    assert os.stat(tmp_path / "plain.csv").st_mode & 0o777 == 0o644
