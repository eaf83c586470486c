"""Campaigns with real people, on the real server: ``annotate raters`` makes each rater's
account through the invite link; each rater logs in with their own password and gets their own
token; they label through the API as themselves; ``pull --roster`` brings exactly their labels
back; one rater labelling in another's project (which Community Edition allows) is refused;
adjudication tasks show no rater names. Also with legacy tokens off (personal access tokens).

Every expected number is what the script below submitted, counted by the script. The premise
(``POST /api/users/`` ignores the password) is shown too.

The campaign: 16 definitions for two raters, overlap 2 (each labels all 16)."""

from __future__ import annotations

import json
import os
import stat
import uuid

import httpx
import pandas as pd
import pytest

from tests.support.cli_checks import one_line_error

pytestmark = [pytest.mark.server, pytest.mark.slow]

STRATA = (("m1", "true"), ("m1", "false"), ("m2", "true"), ("m2", "false"))


def _result(reference: str, any_sense: str) -> list[dict]:
    return [
        {"from_name": "reference", "to_name": "t_candidate", "type": "choices", "value": {"choices": [reference]}},
        {"from_name": "any_sense", "to_name": "t_candidate", "type": "choices", "value": {"choices": [any_sense]}},
    ]  # fmt: skip


def _plan(tmp, run_cli, raters: tuple[str, ...], overlap: int) -> object:
    rows = [
        {"item_id": f"d{model}{verdict[0]}{i}", "game": "balderdash", "kind": "definition",
         "context": "w", "reference": "r", "candidate": "c", "player_model": model, "judge_verdict": verdict}
        for model, verdict in STRATA
        for i in range(10)
    ]  # fmt: skip
    pd.DataFrame(rows).to_csv(tmp / "items.csv", index=False)
    code, _out, err = run_cli(
        "annotate", "plan", str(tmp / "items.csv"), "--n", "16", "--raters", ",".join(raters),
        "--overlap", str(overlap), "--strata", "player_model,judge_verdict", "--seed", "4", "--out", str(tmp / "camp"),
    )  # fmt: skip
    assert code == 0, err
    return tmp / "camp"


def _browser_login(url: str, email: str, password: str) -> httpx.Client:
    """Log in as a person does (the form, with Django's CSRF token), independently of the toolkit."""
    client = httpx.Client(base_url=url, follow_redirects=False)
    client.get("/user/login/")
    answer = client.post(
        "/user/login/",
        data={"email": email, "password": password, "csrfmiddlewaretoken": client.cookies["csrftoken"]},
    )
    client.logged_in = answer.status_code == 302  # 200: the form again, with its error
    return client


def _projects(client, camp) -> dict[str, int]:
    """rater → project id, from the markers, as seen with ``client``'s token."""
    cid = json.loads((camp / "manifest.json").read_text())["campaign_id"]
    marker = f"wordplay-audit campaign {cid} rater "
    found = {}
    for p in client.projects.list(page_size=100):
        last = (p.description or "").strip().splitlines()[-1:]
        if last and last[0].startswith(marker):
            found[last[0][len(marker) :]] = int(p.id)
    return found


def _secrets(roster) -> list[str]:
    return [*roster["password"], *roster["token"]]


def _no_secrets(roster, *texts: str) -> None:
    for secret in _secrets(roster):
        for text in texts:
            assert secret not in text


@pytest.fixture(scope="module")
def real(tmp_path_factory, label_studio):
    """Fresh rater names, and the server's URL and admin token in the environment."""
    tmp = tmp_path_factory.mktemp("raters")
    tag = uuid.uuid4().hex[:6]
    mp = pytest.MonkeyPatch()
    mp.setenv("LABEL_STUDIO_URL", label_studio.url)
    mp.setenv("LABEL_STUDIO_API_KEY", label_studio.token)
    yield {
        "tmp": tmp,
        "tag": tag,
        "raters": (f"ann{tag}", f"bob{tag}"),
        "url": label_studio.url,
        "admin": label_studio,
    }
    mp.undo()


@pytest.fixture(scope="module")
def accounts(real, run_cli_module):
    tmp, raters = real["tmp"], real["raters"]
    camp = _plan(tmp, run_cli_module, raters, overlap=2)
    adjudicator = f"judy{real['tag']}"
    code, out, err = run_cli_module(
        "annotate", "raters", str(camp), "--email-domain", f"{real['tag']}.example.org",
        "--adjudicator", adjudicator, "--out", str(tmp / "roster.csv"),
    )  # fmt: skip
    assert code == 0, err
    roster = pd.read_csv(tmp / "roster.csv", dtype=str, keep_default_na=False)
    return {"camp": camp, "roster": roster, "out": out, "err": err, "adjudicator": adjudicator}


@pytest.fixture(scope="module")
def run_cli_module():
    """``run_cli`` for module fixtures: (exit code, stdout, stderr) of the console entry point."""
    import contextlib
    import io

    from wordplay_audit.cli.main import main

    def run(*args: str) -> tuple[int, str, str]:
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(list(args))
        return code, out.getvalue(), err.getvalue()

    return run


@pytest.fixture(scope="module")
def labelled(real, accounts, run_cli_module):
    """Push (with the roster), then each rater labels through the API with their own token."""
    from label_studio_sdk import LabelStudio

    camp, roster = accounts["camp"], accounts["roster"].set_index("rater")
    code, out, err = run_cli_module(
        "annotate", "push", str(camp), "--roster", str(real["tmp"] / "roster.csv")
    )
    assert code == 0, err
    manifest = json.loads((camp / "manifest.json").read_text())
    item_of = {a["uid"]: a["item_id"] for a in manifest["assignments"]}
    submitted = []
    for n, rater in enumerate(real["raters"]):
        client = LabelStudio(base_url=real["url"], api_key=roster.loc[rater, "token"])
        project = _projects(client, camp)[rater]
        for i, task in enumerate(client.tasks.list(project=project, page_size=100)):
            if i >= 10 + 2 * n:  # ann labels 10, bob 12; the rest stay missing
                break
            answer = ("Yes", "No") if (i + n) % 3 else ("No", "No")
            client.annotations.create(id=task.id, result=_result(*answer))  # completed_by: the token's owner
            shown = {"Yes": "true", "No": "false"}
            item = item_of[task.data["uid"]]
            submitted += [
                (item, rater, shown[answer[0]], "reference"),
                (item, rater, shown[answer[1]], "any_sense"),
            ]
    return {"push_out": out, "submitted": submitted}


# --- accounts ----------------------------------------------------------------------------


def test_the_premise_an_account_made_by_post_api_users_cannot_log_in(real):
    email = f"premise{real['tag']}@example.org"
    made = httpx.post(
        f"{real['url']}/api/users/",
        json={"email": email, "username": f"premise{real['tag']}", "password": "a-long-password-1"},
        headers={"Authorization": f"Token {real['admin'].token}"},
    )
    assert made.status_code == 201
    assert not _browser_login(real["url"], email, "a-long-password-1").logged_in


def test_raters_writes_a_private_roster_and_prints_no_secret(real, accounts):
    roster, path = accounts["roster"], real["tmp"] / "roster.csv"
    assert list(roster.columns) == ["rater", "email", "password", "token", "token_type"]
    assert list(roster["rater"]) == [*real["raters"], accounts["adjudicator"]]
    assert list(roster["email"]) == [f"{r}@{real['tag']}.example.org" for r in roster["rater"]]
    assert set(roster["token_type"]) == {"legacy"}  # the test server has legacy tokens on
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert roster["password"].str.len().min() >= 8 and roster["password"].nunique() == 3
    assert roster["token"].nunique() == 3
    _no_secrets(roster, accounts["out"], accounts["err"])
    assert accounts["out"].count("account created, logged in with its password") == 3


def test_each_rater_logs_in_with_their_own_password_and_gets_their_own_token(real, accounts):
    for row in accounts["roster"].itertuples():
        session = _browser_login(real["url"], row.email, row.password)
        assert session.logged_in, row.rater
        assert session.get("/api/current-user/token").json()["token"] == row.token
        me = httpx.get(
            f"{real['url']}/api/current-user/whoami", headers={"Authorization": f"Token {row.token}"}
        )
        assert me.status_code == 200 and me.json()["email"] == row.email
        assert not _browser_login(real["url"], row.email, row.password + "x").logged_in


def test_raters_again_makes_nothing_and_keeps_every_credential(real, accounts, run_cli_module):
    path = real["tmp"] / "roster.csv"
    before = path.read_text()
    code, out, err = run_cli_module(
        "annotate", "raters", str(accounts["camp"]), "--email-domain", f"{real['tag']}.example.org",
        "--adjudicator", accounts["adjudicator"], "--out", str(path), "--json",
    )  # fmt: skip
    assert code == 0, err
    assert [a["account"] for a in json.loads(out)["accounts"]] == ["existing"] * 3
    assert path.read_text() == before
    _no_secrets(accounts["roster"], out, err)


def test_an_account_whose_password_is_known_nowhere_is_refused_before_any_is_made(
    real, accounts, run_cli_module
):
    other = real["tmp"] / "other.csv"
    code, out, err = run_cli_module(
        "annotate", "raters", str(accounts["camp"]), "--email-domain", f"{real['tag']}.example.org",
        "--out", str(other),
    )  # fmt: skip
    one_line_error(
        code, out, err, f"{real['raters'][0]}@{real['tag']}.example.org", "its password is not known"
    )
    assert not other.exists()


# --- labelling as oneself, pull with the roster ---------------------------------------------


def test_push_with_the_roster_warns_of_nothing_and_without_it_says_so(
    real, accounts, labelled, run_cli_module
):
    assert "warning" not in labelled["push_out"]
    code, out, err = run_cli_module("annotate", "push", str(accounts["camp"]))
    assert code == 0, err
    assert out.splitlines()[0].startswith("warning: no roster: every annotation in a rater's project counts")
    # a roster naming an email that has no account on the server
    ghost = accounts["roster"][["rater", "email"]].copy()
    ghost.loc[1, "email"] = f"ghost{real['tag']}@example.org"
    ghost.to_csv(real["tmp"] / "ghost.csv", index=False)
    code, out, err = run_cli_module(
        "annotate", "push", str(accounts["camp"]), "--roster", str(real["tmp"] / "ghost.csv")
    )
    assert code == 0, err
    assert out.splitlines()[0] == (
        f"warning: rater '{real['raters'][1]}': ghost{real['tag']}@example.org has no account on "
        f"{real['url']}; run `annotate raters`"
    )
    # a roster without one of the raters: refused before anything is pushed
    ghost.iloc[[0]].to_csv(real["tmp"] / "short.csv", index=False)
    code, out, err = run_cli_module(
        "annotate", "push", str(accounts["camp"]), "--roster", str(real["tmp"] / "short.csv")
    )
    one_line_error(
        code, out, err, f"--roster ({real['tmp'] / 'short.csv'}): no email for rater '{real['raters'][1]}'"
    )


def test_pull_with_the_roster_returns_what_each_rater_submitted(real, accounts, labelled, run_cli_module):
    tmp = real["tmp"]
    code, out, err = run_cli_module(
        "annotate", "pull", str(accounts["camp"]), "--roster", str(tmp / "roster.csv"), "--out", str(tmp / "p1"), "--json"
    )  # fmt: skip
    assert code == 0, err
    result = json.loads(out)
    labels = pd.read_csv(tmp / "p1" / "labels.csv", dtype=str, keep_default_na=False)
    got = set(zip(labels["item_id"], labels["rater"], labels["label"], labels["question"], strict=True))
    assert got == set(labelled["submitted"]) and len(got) == 2 * (10 + 12)
    assert result["counts"]["foreign_annotator"] == 0 and result["counts"]["labelled"] == 22
    assert not any("roster" in w for w in result["warnings"])


def test_community_edition_lets_one_rater_label_in_anothers_project_and_pull_refuses_it(
    real, accounts, labelled, run_cli_module
):
    """With ann's own token bob's project is listed, its tasks and bob's labels are readable and
    exportable, and an annotation can be added to it: nothing on the server stops it. The roster
    does."""
    from label_studio_sdk import LabelStudio

    from wordplay_audit.annotate.server import Server

    tmp, camp = real["tmp"], accounts["camp"]
    ann, bob = real["raters"]
    roster = accounts["roster"].set_index("rater")
    as_ann = LabelStudio(base_url=real["url"], api_key=roster.loc[ann, "token"])
    projects = _projects(as_ann, camp)
    assert set(projects) == {ann, bob}  # every project is listed
    tasks = list(as_ann.tasks.list(project=projects[bob], page_size=100))
    read = [t for t in tasks if t.total_annotations]
    assert len(read) == 12  # bob's labelled tasks, readable with ann's token
    exported = Server(real["url"], roster.loc[ann, "token"]).snapshot(projects[bob])  # a full export
    by = {a["completed_by"]["email"] for t in exported for a in t["annotations"]}
    assert by == {roster.loc[bob, "email"]} and sum(len(t["annotations"]) for t in exported) == 12
    untouched = next(t for t in tasks if not t.total_annotations)
    as_ann.annotations.create(id=untouched.id, result=_result("Yes", "Yes"))  # accepted: HTTP 201

    email = roster.loc[ann, "email"]
    code, out, err = run_cli_module(
        "annotate", "pull", str(camp), "--roster", str(tmp / "roster.csv"), "--out", str(tmp / "p2")
    )  # fmt: skip
    one_line_error(code, out, err, f"annotator '{email}' is rater '{ann}', in the project of '{bob}'",
                   "refused, 1 annotation(s) in all", "--foreign leave-out")  # fmt: skip
    assert not (tmp / "p2").exists()

    code, out, err = run_cli_module(
        "annotate", "pull", str(camp), "--roster", str(tmp / "roster.csv"), "--foreign", "leave-out",
        "--out", str(tmp / "p2"), "--json",
    )  # fmt: skip
    assert code == 0, err
    assert json.loads(out)["counts"]["foreign_annotator"] == 1
    labels = pd.read_csv(tmp / "p2" / "labels.csv", dtype=str, keep_default_na=False)
    got = set(zip(labels["item_id"], labels["rater"], labels["label"], labels["question"], strict=True))
    assert got == set(labelled["submitted"])  # ann's label in bob's project left out

    # without the roster it counts as bob's: the loud warning, and the project named
    code, out, err = run_cli_module("annotate", "pull", str(camp), "--out", str(tmp / "p3"))
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].startswith("warning: no roster")
    assert any(f"rater '{bob}': annotations by 2 accounts" in line for line in lines)
    labels = pd.read_csv(tmp / "p3" / "labels.csv", dtype=str, keep_default_na=False)
    assert (labels["rater"] == bob).sum() == 2 * 13


def test_an_annotation_made_in_another_raters_name_is_refused_too(real, accounts, labelled, run_cli_module):
    """Label Studio takes ``completed_by`` from the request: ann's token can submit an annotation
    that names bob as its annotator. The snapshot's ``updated_by`` is the account that really
    sent it, and pull checks that too."""
    from label_studio_sdk import LabelStudio

    tmp, camp = real["tmp"], accounts["camp"]
    ann, bob = real["raters"]
    roster = accounts["roster"].set_index("rater")
    as_ann = LabelStudio(base_url=real["url"], api_key=roster.loc[ann, "token"])
    bob_id = LabelStudio(base_url=real["url"], api_key=roster.loc[bob, "token"]).users.whoami().id
    project = _projects(as_ann, camp)[bob]
    untouched = next(t for t in as_ann.tasks.list(project=project, page_size=100) if not t.total_annotations)
    forged = as_ann.annotations.create(id=untouched.id, result=_result("No", "Yes"), completed_by=bob_id)
    assert forged.completed_by == bob_id  # the server took it
    code, out, err = run_cli_module(
        "annotate", "pull", str(camp), "--roster", str(tmp / "roster.csv"), "--out", str(tmp / "p5")
    )  # fmt: skip
    one_line_error(code, out, err, "refused, 2 annotation(s) in all")  # ann's own one (earlier test) and this
    code, out, err = run_cli_module(
        "annotate", "pull", str(camp), "--roster", str(tmp / "roster.csv"), "--foreign", "leave-out",
        "--out", str(tmp / "p5"), "--json",
    )  # fmt: skip
    assert code == 0, err
    result = json.loads(out)
    assert result["counts"]["foreign_annotator"] == 2
    email = roster.loc[bob, "email"]
    sent = f"annotator '{email}' (rater '{bob}') but submitted by '{roster.loc[ann, 'email']}', rater '{ann}'"
    assert sum(sent in w for w in result["warnings"]) == 1
    labels = pd.read_csv(tmp / "p5" / "labels.csv", dtype=str, keep_default_na=False)
    got = set(zip(labels["item_id"], labels["rater"], labels["label"], labels["question"], strict=True))
    assert got == set(labelled["submitted"])


def test_adjudication_is_blind_and_the_adjudicators_labels_come_back_with_the_roster(
    real, accounts, labelled, run_cli_module
):
    from label_studio_sdk import LabelStudio

    tmp, camp = real["tmp"], accounts["camp"]
    p1 = tmp / "p1" / "labels.csv"
    if not p1.exists():
        pytest.skip("the pull test did not run")
    judy = accounts["adjudicator"]
    code, out, err = run_cli_module(
        "annotate", "adjudicate", str(camp), "--labels", str(p1), "--adjudicator", judy, "--json"
    )
    assert code == 0, err
    labels = pd.read_csv(p1, dtype=str, keep_default_na=False)
    spread = labels.groupby(["item_id", "question"])["label"].nunique()
    disputed = sorted({i for (i, _q), n in spread.items() if n > 1})
    assert json.loads(out)["items"] == len(disputed) > 0
    as_judy = LabelStudio(
        base_url=real["url"], api_key=accounts["roster"].set_index("rater").loc[judy, "token"]
    )
    project = next(
        p.id for p in as_judy.projects.list() if (p.description or "").endswith(f"adjudication {judy}")
    )
    tasks = list(as_judy.tasks.list(project=project, page_size=100))
    assert len(tasks) == len(disputed)
    for task in tasks:
        shown = task.data["text_earlier_labels"]
        assert shown.startswith("rater 1: ") and "rater 2: " in shown
        assert not any(name in shown for name in real["raters"])
        as_judy.annotations.create(id=task.id, result=_result("Yes", "Yes"))
    code, out, err = run_cli_module(
        "annotate", "pull", str(camp), "--roster", str(tmp / "roster.csv"), "--foreign", "leave-out",
        "--out", str(tmp / "p4"), "--json",
    )  # fmt: skip
    assert code == 0, err
    final = pd.read_csv(tmp / "p4" / "final.csv", dtype=str, keep_default_na=False)
    adjudicated = final[final["settled_by"] == "adjudicated"]
    assert sorted(set(adjudicated["item_id"])) == disputed and set(adjudicated["label"]) == {"true"}


# --- legacy tokens off: personal access tokens ----------------------------------------------


def _admin_pat(url: str, email: str, password: str) -> str:
    """A personal access token of the admin (an earlier one revoked first)."""
    session = _browser_login(url, email, password)
    assert session.logged_in
    csrf = {"X-CSRFToken": session.cookies["csrftoken"]}
    for old in session.get("/api/token/").json():
        session.post("/api/token/blacklist/", json={"refresh": old["token"]}, headers=csrf)
    made = session.post("/api/token/", headers=csrf)
    assert made.status_code == 201, made.text
    return made.json()["token"]


def _bearer(url: str, pat: str) -> dict[str, str]:
    access = httpx.post(f"{url}/api/token/refresh/", json={"refresh": pat}).json()["access"]
    return {"Authorization": f"Bearer {access}"}


def test_with_legacy_tokens_off_each_rater_gets_a_personal_access_token(
    real, tmp_path, run_cli_module, monkeypatch
):
    """Label Studio 1.23 turns legacy tokens off unless LABEL_STUDIO_ENABLE_LEGACY_API_TOKEN is
    set: the rater's legacy token is then refused, and ``annotate raters`` makes a personal
    access token (a JWT refresh token the SDK takes as ``api_key``)."""
    from label_studio_sdk import LabelStudio

    url, admin = real["url"], real["admin"]
    pat = _admin_pat(url, admin.username, admin.password)
    settings = f"{url}/api/jwt/settings"
    off = httpx.post(
        settings,
        headers=_bearer(url, pat),
        json={"api_tokens_enabled": True, "legacy_api_tokens_enabled": False},
    )
    assert off.status_code == 200 and off.json()["legacy_api_tokens_enabled"] is False
    try:
        monkeypatch.setenv("LABEL_STUDIO_API_KEY", pat)  # the admin's legacy token is refused now
        tag = uuid.uuid4().hex[:6]
        camp = _plan(tmp_path, run_cli_module, (f"cy{tag}",), overlap=1)
        out = tmp_path / "roster.csv"
        args = ("annotate", "raters", str(camp), "--email-domain", f"{tag}.example.org", "--out", str(out))
        code, stdout, err = run_cli_module(*args)
        assert code == 0, err
        roster = pd.read_csv(out, dtype=str, keep_default_na=False)
        assert list(roster["token_type"]) == ["personal"]
        _no_secrets(roster, stdout, err)
        row = roster.iloc[0]
        assert LabelStudio(base_url=url, api_key=row["token"]).users.whoami().email == row["email"]
        legacy = (
            _browser_login(url, row["email"], row["password"]).get("/api/current-user/token").json()["token"]
        )
        refused = httpx.get(f"{url}/api/current-user/whoami", headers={"Authorization": f"Token {legacy}"})
        assert refused.status_code == 401  # why the legacy token is not the one written
        # again: the personal access token written is kept (an account holds one)
        code, stdout, err = run_cli_module(*args)
        assert code == 0, err
        assert pd.read_csv(out, dtype=str)["token"].tolist() == [row["token"]]
    finally:
        back = httpx.post(
            settings,
            headers=_bearer(url, pat),
            json={"api_tokens_enabled": True, "legacy_api_tokens_enabled": True},
        )
        assert back.status_code == 200 and back.json()["legacy_api_tokens_enabled"] is True
