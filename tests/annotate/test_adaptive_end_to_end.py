"""End to end on the real server: a stratified pilot → push → scripted raters → pull →
``annotate next`` (draws, appends, pushes) → scripted raters → pull → weighted estimates.

The population: 200 definitions, strata (player model × judge verdict) of 60, 60, 40, 40 items
with 57, 30, 24 and 4 truly true. The pilot draws 40 proportionally (12, 12, 8, 8: rate 0.2
everywhere); ``next --budget 40`` puts most labels where people disagree with the judge, so the
rates change in round 2. The raters answer from the truth. Every expected number is computed
here from what the script submitted and the stratum sizes: π from the raw counts
n_{r,s}, R_{r,s}, the estimate as Σ_h N_h × mean of the labels in h (the telescoping case: both
rounds sample the same strata) and as the Horvitz–Thompson sum Σ y_i/π_i.
"""

from __future__ import annotations

import json
import uuid

import numpy as np
import pandas as pd
import pytest

pytestmark = [pytest.mark.slow, pytest.mark.server]  # a real Label Studio server

SIZES = {("m1", "true"): 60, ("m1", "false"): 60, ("m2", "true"): 40, ("m2", "false"): 40}
TRUE = {("m1", "true"): 57, ("m1", "false"): 30, ("m2", "true"): 24, ("m2", "false"): 4}
PILOT, BUDGET = 40, 40


def _result(label: str) -> list[dict]:
    shown = {"true": "Yes", "false": "No"}[label]
    return [
        {"from_name": q, "to_name": "t_candidate", "type": "choices", "value": {"choices": [shown]}}
        for q in ("reference", "any_sense")
    ]


def _population(folder):
    rng = np.random.default_rng(14)
    rows, truth = [], {}
    for (model, verdict), size in SIZES.items():
        flags = rng.permutation([True] * TRUE[(model, verdict)] + [False] * (size - TRUE[(model, verdict)]))
        for i, flag in enumerate(flags):
            item = f"{model}-{verdict}-{i}"
            truth[item] = "true" if flag else "false"
            rows.append(
                {
                    "item_id": item,
                    "game": "balderdash",
                    "kind": "definition",
                    "context": f"word{i}",
                    "reference": "the reference",
                    "candidate": "a candidate",
                    "player_model": model,
                    "judge_verdict": verdict,
                }
            )
    pd.DataFrame(rows).to_csv(folder / "items.csv", index=False)
    return pd.DataFrame(rows), truth


def _projects(client, camp) -> dict[str, int]:
    manifest = json.loads((camp / "manifest.json").read_text())
    marker = f"wordplay-audit campaign {manifest['campaign_id']} rater "
    out = {}
    for p in client.projects.list(page_size=100):
        last = (p.description or "").splitlines()[-1:]
        if last and last[0].startswith(marker):
            out[last[0][len(marker) :]] = int(p.id)
    return out


def _answer(client, camp, users, truth) -> dict[str, str]:
    """Answer every task not answered yet, from the truth; return {item_id: label} submitted."""
    manifest = json.loads((camp / "manifest.json").read_text())
    item_of = {(a["rater"], a["uid"]): a["item_id"] for a in manifest["assignments"]}
    submitted = {}
    for rater, project in _projects(client, camp).items():
        for task in client.tasks.list(project=project, page_size=1000):
            if task.total_annotations:
                continue
            item = item_of[(rater, task.data["uid"])]
            client.annotations.create(id=task.id, result=_result(truth[item]), completed_by=users[rater])
            submitted[item] = truth[item]
    return submitted


def _cli(*args):
    from wordplay_audit.cli.main import main

    return main([str(a) for a in args])


@pytest.fixture(scope="module")
def adaptive(tmp_path_factory, label_studio):
    """Pilot, one adaptive round, both answered and pulled; what the tests compare against."""
    from label_studio_sdk import LabelStudio

    tmp = tmp_path_factory.mktemp("adaptive")
    tag = uuid.uuid4().hex[:6]
    mp = pytest.MonkeyPatch()
    mp.setenv("LABEL_STUDIO_URL", label_studio.url)
    mp.setenv("LABEL_STUDIO_API_KEY", label_studio.token)
    population, truth = _population(tmp)
    raters = [f"ann{tag}", f"bob{tag}"]
    camp = tmp / "camp"
    assert _cli("annotate", "plan", tmp / "items.csv", "--n", PILOT, "--strata", "player_model,judge_verdict",
                "--raters", ",".join(raters), "--overlap", "1", "--seed", "3", "--name", f"adapt-{tag}",
                "--out", camp) == 0  # fmt: skip
    assert _cli("annotate", "push", camp) == 0
    client = LabelStudio(base_url=label_studio.url, api_key=label_studio.token, timeout=300)
    users = {
        r: client.users.create(username=r, email=f"{r}@example.org", password=uuid.uuid4().hex).id
        for r in raters
    }
    first = _answer(client, camp, users, truth)
    assert _cli("annotate", "pull", camp, "--out", tmp / "pulled1") == 0
    yield {
        "tmp": tmp, "camp": camp, "client": client, "users": users, "truth": truth,
        "population": population, "first": first, "raters": raters,
    }  # fmt: skip
    mp.undo()


@pytest.fixture(scope="module")
def after_next(adaptive):
    """``annotate next`` (auto-push: the campaign is on the server), push again, answer, pull."""
    import contextlib
    import io

    tmp, camp = adaptive["tmp"], adaptive["camp"]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = _cli("annotate", "next", camp, "--budget", BUDGET, "--labels", tmp / "pulled1" / "final.csv",
                    "--by", "player_model", "--target", "tdr,lkr", "--seed", "9", "--json")  # fmt: skip
        assert code == 0
        record_end = out.tell()
        assert _cli("annotate", "push", camp, "--json") == 0
    text = out.getvalue()
    record, again = json.loads(text[:record_end]), json.loads(text[record_end:])
    second = _answer(adaptive["client"], camp, adaptive["users"], adaptive["truth"])
    assert _cli("annotate", "pull", camp, "--out", tmp / "pulled2") == 0
    return {"record": record, "again": again, "second": second}


def test_next_pushes_the_new_tasks_exactly_once(adaptive, after_next):
    record, again = after_next["record"], after_next["again"]
    assert len(record["item_ids"]) == BUDGET and record["push_note"] is None
    assert sum(r["imported"] for r in record["pushed"]) == BUDGET  # overlap 1: one task per item
    assert sum(r["already_there"] for r in record["pushed"]) == PILOT
    assert [r["imported"] for r in again["projects"]] == [0, 0]  # a second push adds nothing
    manifest = json.loads((adaptive["camp"] / "manifest.json").read_text())
    client = adaptive["client"]
    for rater, project in _projects(client, adaptive["camp"]).items():
        uids = [t.data["uid"] for t in client.tasks.list(project=project, page_size=1000)]
        mine = [a["uid"] for a in manifest["assignments"] if a["rater"] == rater]
        assert len(uids) == len(set(uids)) and sorted(uids) == sorted(mine)
    assert set(after_next["second"]) == set(record["item_ids"])  # round 2 tasks were the new ones


def _counts(population, ids):
    key = population.set_index("item_id")
    sub = key.loc[sorted(ids)]
    return sub.groupby(["player_model", "judge_verdict"]).size().to_dict()


def test_inclusion_probabilities_from_the_raw_counts(adaptive, after_next):
    population, record = adaptive["population"], after_next["record"]
    n1 = _counts(population, adaptive["first"])
    n2 = _counts(population, record["item_ids"])
    assert n1 == {("m1", "false"): 12, ("m1", "true"): 12, ("m2", "false"): 8, ("m2", "true"): 8}
    rate2 = {h: n2.get(h, 0) / (SIZES[h] - n1[h]) for h in SIZES}
    assert max(rate2.values()) > 2 * min(rate2.values())  # the rates did change in round 2
    items = pd.read_csv(adaptive["camp"] / "items.csv", dtype=str).set_index("item_id")
    for item in [*adaptive["first"], *record["item_ids"]]:
        h = tuple(population.set_index("item_id").loc[item, ["player_model", "judge_verdict"]])
        expected = 1 - (1 - n1[h] / SIZES[h]) * (1 - n2.get(h, 0) / (SIZES[h] - n1[h]))
        assert float(items.loc[item, "inclusion_probability"]) == pytest.approx(expected, rel=1e-12)
        assert expected == pytest.approx((n1[h] + n2.get(h, 0)) / SIZES[h], rel=1e-12)


def test_weighted_estimates_equal_the_hand_computation(adaptive, after_next, run_cli):
    tmp, population = adaptive["tmp"], adaptive["population"].set_index("item_id")
    labels = {**adaptive["first"], **after_next["second"]}  # what the raters submitted
    final = pd.read_csv(tmp / "pulled2" / "final.csv", dtype=str)
    reference = final[final["question"] == "reference"]
    assert dict(zip(reference["item_id"], reference["label"], strict=True)) == labels
    code, out, err = run_cli("annotate", "status", str(adaptive["camp"]), "--labels",
                             str(tmp / "pulled2" / "final.csv"), "--json")  # fmt: skip
    assert code == 0, err
    status = json.loads(out)
    assert [r["done"] for r in status["raters"]] == [
        sum(a == r for a in _owners(adaptive)) for r in adaptive["raters"]
    ]
    estimates = {r["target"]: r["estimate"] for r in status["adaptive"]["targets"]}
    items = pd.read_csv(adaptive["camp"] / "items.csv", dtype=str).set_index("item_id")
    off = {}
    for model in ("m1", "m2"):
        strata = [h for h in SIZES if h[0] == model]
        big_n = sum(SIZES[h] for h in strata)
        by_stratum = {h: [labels[i] == "true" for i in labels if tuple(population.loc[i, ["player_model", "judge_verdict"]]) == h] for h in strata}  # fmt: skip
        telescoped = sum(SIZES[h] * np.mean(by_stratum[h]) for h in strata) / big_n
        mine = [i for i in labels if population.loc[i, "player_model"] == model]
        horvitz = (
            sum((labels[i] == "true") / float(items.loc[i, "inclusion_probability"]) for i in mine) / big_n
        )
        unweighted = np.mean([labels[i] == "true" for i in mine])
        assert estimates[f"tdr {model}"] == pytest.approx(telescoped, rel=1e-9)
        assert estimates[f"tdr {model}"] == pytest.approx(horvitz, rel=1e-9)
        assert estimates[f"lkr {model}"] == pytest.approx(telescoped, rel=1e-9)  # any_sense = reference
        off[model] = (float(unweighted), float(telescoped))
    # round 2 sampled the strata at other rates: the plain mean of the labels is off (0.791 vs
    # 0.801 for m1, 0.243 vs 0.225 for m2 with these seeds and allocation.PSEUDO = 6)
    assert max(abs(a - b) for a, b in off.values()) > 0.01, off


def _owners(adaptive):
    manifest = json.loads((adaptive["camp"] / "manifest.json").read_text())
    return [a["rater"] for a in manifest["assignments"]]
