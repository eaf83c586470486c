"""End to end on the real server: simulated Balderdash export → items → plan → push → scripted
raters through the API → pull → agreement → recompute; a second push adds nothing; adjudication.

The raters answer from the simulation's truth with 4 % errors per question; some tasks are
skipped, some left as drafts, some untouched. Every expected number below is what the script
itself submitted, counted independently of the toolkit.
"""

from __future__ import annotations

import json
import uuid

import httpx
import numpy as np
import pandas as pd
import pytest

pytestmark = [pytest.mark.slow, pytest.mark.server]  # a real Label Studio server

RATERS = ("ann", "bob", "cyd")


def _result(reference: str, any_sense: str) -> list[dict]:
    """What the labelling page stores: the shown text of the choice (Yes / No)."""
    shown = {"true": "Yes", "false": "No"}
    reference, any_sense = shown[reference], shown[any_sense]
    return [
        {
            "from_name": "reference",
            "to_name": "t_candidate",
            "type": "choices",
            "value": {"choices": [reference]},
        },
        {
            "from_name": "any_sense",
            "to_name": "t_candidate",
            "type": "choices",
            "value": {"choices": [any_sense]},
        },
    ]


@pytest.fixture(scope="module")
def campaign(tmp_path_factory, label_studio):
    """Plan and push once; play the raters; return everything the tests compare against."""
    from label_studio_sdk import LabelStudio

    from wordplay_audit.cli.main import main

    tmp = tmp_path_factory.mktemp("e2e")
    tag = uuid.uuid4().hex[:6]
    env = {"LABEL_STUDIO_URL": label_studio.url, "LABEL_STUDIO_API_KEY": label_studio.token}
    mp = pytest.MonkeyPatch()
    for k, v in env.items():
        mp.setenv(k, v)
    assert main(["balderdash", "simulate", "--out", str(tmp / "sim"), "--seed", "5"]) == 0
    assert main(["balderdash", "items", str(tmp / "sim"), "--out", str(tmp / "items")]) == 0
    items = pd.read_csv(tmp / "items" / "items.csv", dtype=str, keep_default_na=False)
    truth = pd.read_csv(tmp / "sim" / "truth.csv", dtype=str).set_index("item_id")
    honey = items.sample(24, random_state=1).copy()
    honey["gold_reference"] = [truth.loc[i, "true_ref"].lower() for i in honey["item_id"]]
    honey["gold_any_sense"] = [truth.loc[i, "true_any"].lower() for i in honey["item_id"]]
    honey.to_csv(tmp / "honeypots.csv", index=False)
    items[~items["item_id"].isin(honey["item_id"])].to_csv(tmp / "pool.csv", index=False)
    raters = [f"{r}{tag}" for r in RATERS]
    code = main(
        [
            "annotate",
            "plan",
            str(tmp / "pool.csv"),
            "--n",
            "300",
            "--strata",
            "player_model,deck,judge_verdict",
            "--raters",
            ",".join(raters),
            "--overlap",
            "2",
            "--honeypots",
            str(tmp / "honeypots.csv"),
            "--honeypot-rate",
            "0.05",
            "--seed",
            "11",
            "--judge-labels",
            str(tmp / "items" / "labels.csv"),
            "--name",
            f"e2e-{tag}",
            "--out",
            str(tmp / "camp"),
        ]
    )
    assert code == 0
    assert main(["annotate", "push", str(tmp / "camp")]) == 0
    client = LabelStudio(base_url=label_studio.url, api_key=label_studio.token, timeout=300)
    script = play_raters(client, label_studio, tmp / "camp", raters, truth)
    pd.DataFrame({"rater": raters, "email": [f"{r}@example.org" for r in raters]}).to_csv(
        tmp / "roster.csv", index=False
    )
    yield {"tmp": tmp, "raters": raters, "script": script, "client": client, "truth": truth, "tag": tag}
    mp.undo()


def play_raters(client, server, camp, raters, truth) -> dict:
    """Create the raters as users and answer through the API; return what was submitted."""
    manifest = json.loads((camp / "manifest.json").read_text())
    by_uid = {(a["rater"], a["uid"]): a for a in manifest["assignments"]}
    rng = np.random.default_rng(2024)
    submitted, status, drafts = [], {}, 0
    marker = f"wordplay-audit campaign {manifest['campaign_id']} rater "
    projects = {
        p.description.splitlines()[-1][len(marker) :]: p.id
        for p in client.projects.list()
        if (p.description or "").splitlines()[-1:] and p.description.splitlines()[-1].startswith(marker)
    }
    for rater in raters:
        user = client.users.create(username=rater, email=f"{rater}@example.org", password=uuid.uuid4().hex)
        for task in client.tasks.list(project=projects[rater], page_size=1000):
            a = by_uid[(rater, task.data["uid"])]
            item = a["item_id"]
            draw = rng.random()
            if draw < 0.05:
                client.annotations.create(id=task.id, result=[], was_cancelled=True, completed_by=user.id)
                status[(rater, item)] = "skipped"
                continue
            ref, anys = truth.loc[item, "true_ref"].lower(), truth.loc[item, "true_any"].lower()
            flip = {"true": "false", "false": "true"}
            ref = flip[ref] if rng.random() < 0.04 else ref
            anys = flip[anys] if rng.random() < 0.04 else anys
            if draw < 0.09:
                response = httpx.post(
                    f"{server.url}/api/tasks/{task.id}/drafts",
                    json={"result": _result(ref, anys)},
                    headers={"Authorization": f"Token {server.token}"},
                )
                assert response.status_code == 201, response.text
                drafts += 1
                status[(rater, item)] = "missing"
                continue
            if draw < 0.13:
                status[(rater, item)] = "missing"
                continue
            client.annotations.create(id=task.id, result=_result(ref, anys), completed_by=user.id)
            status[(rater, item)] = "labelled"
            submitted += [
                (item, rater, ref, "reference", a["honeypot"]),
                (item, rater, anys, "any_sense", a["honeypot"]),
            ]
    return {"submitted": submitted, "status": status, "drafts": drafts}


def test_second_push_adds_nothing(campaign, run_cli):
    code, out, err = run_cli("annotate", "push", str(campaign["tmp"] / "camp"), "--json")
    assert code == 0, err
    rows = json.loads(out)["projects"]
    assert [r["imported"] for r in rows] == [0, 0, 0]
    assert all(not r["created"] and r["already_there"] > 0 for r in rows)


def test_pull_returns_exactly_what_was_submitted(campaign, run_cli):
    tmp = campaign["tmp"]
    code, out, err = run_cli(
        "annotate",
        "pull",
        str(tmp / "camp"),
        "--roster",
        str(tmp / "roster.csv"),
        "--out",
        str(tmp / "pulled"),
        "--json",
    )
    assert code == 0, err
    result = json.loads(out)
    script = campaign["script"]
    labels = pd.read_csv(tmp / "pulled" / "labels.csv", dtype=str, keep_default_na=False)
    got = set(zip(labels["item_id"], labels["rater"], labels["label"], labels["question"], strict=True))
    expected = {s[:4] for s in script["submitted"] if not s[4]}
    assert got == expected
    statuses = list(script["status"].values())
    for name in ("labelled", "skipped", "missing"):
        assert result["counts"][name] == statuses.count(name)
    assert result["counts"]["drafts_ignored"] == script["drafts"]
    assert result["counts"]["empty"] == 0 and result["counts"]["foreign_annotator"] == 0
    # honeypot accuracy per rater = the script's own count
    for row in result["honeypot_accuracy"]:
        mine = [s for s in script["submitted"] if s[1] == row["rater"] and s[4]]
        gold = campaign["truth"]
        correct = sum(
            gold.loc[s[0], "true_ref" if s[3] == "reference" else "true_any"].lower() == s[2] for s in mine
        )
        assert (row["answered"], row["correct"]) == (len(mine), correct)


def test_agreement_and_recompute_on_pulled_labels(campaign, run_cli):
    tmp = campaign["tmp"]
    if not (tmp / "pulled" / "labels.csv").exists():
        pytest.skip("pull test did not run")
    code, out, err = run_cli("analyze", "agreement", str(tmp / "pulled" / "labels_reference.csv"), "--json")
    assert code == 0, err
    assert json.loads(out)
    code, out, err = run_cli(
        "balderdash",
        "recompute",
        "--seed",
        "0",
        str(tmp / "sim"),
        "--human",
        str(tmp / "pulled" / "labels.csv"),
        "--json",
    )
    assert code == 0, err
    truth = json.loads((tmp / "sim" / "truth.json").read_text())["true_rates"]
    true_lkr = {(t["model"], t["deck"]): t["lkr"] for t in truth}
    cells = [r for r in json.loads(out)["corrected"] if r["metric"] == "lkr" and r["rg_low"] is not None]
    inside = sum(r["rg_low"] <= true_lkr[(r["model"], r["deck"])] <= r["rg_high"] for r in cells)
    assert len(cells) == 6 and inside >= 4, [
        (r["model"], r["deck"], r["rg_low"], r["rg_high"]) for r in cells
    ]


def test_adjudication_round_trip(campaign, run_cli):
    tmp = campaign["tmp"]
    if not (tmp / "pulled" / "labels.csv").exists():
        pytest.skip("pull test did not run")
    adjudicator = f"judy{campaign['tag']}"
    code, out, err = run_cli(
        "annotate",
        "adjudicate",
        str(tmp / "camp"),
        "--labels",
        str(tmp / "pulled" / "labels.csv"),
        "--adjudicator",
        adjudicator,
        "--json",
    )
    assert code == 0, err
    labels = pd.read_csv(tmp / "pulled" / "labels.csv", dtype=str, keep_default_na=False)
    spread = labels.groupby(["item_id", "question"])["label"].nunique()
    disputed_items = sorted({i for (i, _q), n in spread.items() if n > 1})
    assert json.loads(out)["items"] == len(disputed_items) > 0
    client, truth = campaign["client"], campaign["truth"]
    adj = json.loads((tmp / "camp" / "adjudication.json").read_text())
    uid_item = {a["uid"]: a["item_id"] for a in adj["assignments"]}
    project = next(
        p.id for p in client.projects.list() if (p.description or "").endswith(f"adjudication {adjudicator}")
    )
    user = client.users.create(
        username=adjudicator, email=f"{adjudicator}@example.org", password=uuid.uuid4().hex
    )
    for task in client.tasks.list(project=project, page_size=1000):
        shown = task.data["text_earlier_labels"]  # blind: numbered, no rater names
        assert shown.startswith("rater 1: ") and not any(r in shown for r in campaign["raters"])
        item = uid_item[task.data["uid"]]
        client.annotations.create(
            id=task.id,
            completed_by=user.id,
            result=_result(truth.loc[item, "true_ref"].lower(), truth.loc[item, "true_any"].lower()),
        )
    code, out, err = run_cli("annotate", "pull", str(tmp / "camp"), "--out", str(tmp / "pulled2"), "--json")
    assert code == 0, err
    final = pd.read_csv(tmp / "pulled2" / "final.csv", dtype=str, keep_default_na=False)
    adjudicated = final[final["settled_by"] == "adjudicated"]
    assert sorted(set(adjudicated["item_id"])) == disputed_items
    for row in adjudicated.itertuples():
        assert (
            row.label
            == truth.loc[row.item_id, "true_ref" if row.question == "reference" else "true_any"].lower()
        )
    assert "tie" not in set(final["settled_by"])
    # the adjudicator's rows come back marked, and agreement leaves them out: κ as before
    pulled2 = pd.read_csv(tmp / "pulled2" / "labels.csv", dtype=str, keep_default_na=False)
    assert set(pulled2.loc[pulled2["rater"] == adjudicator, "rater_type"]) == {"adjudicator"}
    kappas = []
    for folder in ("pulled", "pulled2"):
        code, out, err = run_cli(
            "analyze", "agreement", str(tmp / folder / "labels_reference.csv"), "--bootstrap", "0", "--json"
        )
        assert code == 0, err
        kappas.append(json.loads(out)["fleiss_kappa"]["value"])
    assert kappas[0] == kappas[1]
    # a second adjudicate pushes nothing new
    code, out, err = run_cli(
        "annotate",
        "adjudicate",
        str(tmp / "camp"),
        "--labels",
        str(tmp / "pulled" / "labels.csv"),
        "--adjudicator",
        adjudicator,
        "--json",
    )
    assert code == 0, err
    assert json.loads(out)["projects"][0]["imported"] == 0


def test_status_counts_and_bar(campaign, run_cli):
    code, out, err = run_cli("annotate", "status", str(campaign["tmp"] / "camp"), "--json")
    assert code == 0, err
    rows = {r["rater"]: r for r in json.loads(out)["raters"]}
    for rater in campaign["raters"]:
        mine = {k: v for k, v in campaign["script"]["status"].items() if k[0] == rater}
        assert rows[rater]["done"] == sum(v == "labelled" for v in mine.values())
        assert rows[rater]["skipped"] == sum(v == "skipped" for v in mine.values())
        assert rows[rater]["left"] == sum(v == "missing" for v in mine.values())
    code, out, err = run_cli("annotate", "status", str(campaign["tmp"] / "camp"))
    assert code == 0 and "[" in out and "%" in out
