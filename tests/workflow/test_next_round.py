"""``annotate next`` / ``wa.next_round``: a later round from Python with in-memory tables (the
population recorded in the campaign folder), and honeypots in every round at the campaign's
rate — distinct from those a rater already had, counted and said when the pool runs out.

Expected numbers are written out from the design: a rater with m new tasks at honeypot rate r
gets round(m · r / (1 − r)) honeypots (r = 0.2: m/4); π of an item is (items drawn in its
stratum over both rounds)/N_h when both rounds sample the same strata (telescoping)."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pandas as pd
import pytest

import wordplay_audit as wa

SIZES = {("m1", "true"): 30, ("m1", "false"): 30, ("m2", "true"): 30, ("m2", "false"): 30}
RATERS = ["ann", "bob", "cyd"]


def _population() -> tuple[pd.DataFrame, dict[str, bool]]:
    rng = np.random.default_rng(31)
    rows, truth = [], {}
    for (model, verdict), size in SIZES.items():
        for i in range(size):
            item = f"{model}-{verdict}-{i}"
            truth[item] = bool(rng.random() < (0.8 if verdict == "true" else 0.3))
            rows.append({"item_id": item, "game": "balderdash", "kind": "definition", "context": f"w{i}",
                         "reference": "r", "candidate": "c", "player_model": model, "judge_verdict": verdict})  # fmt: skip
    return pd.DataFrame(rows), truth


def _honeypots(k: int) -> pd.DataFrame:
    return pd.DataFrame(
        [{"item_id": f"h{i}", "game": "balderdash", "kind": "definition", "context": "hw", "reference": "r",
          "candidate": "c", "gold_reference": "true", "gold_any_sense": "false"} for i in range(k)]
    )  # fmt: skip


def _final(camp, truth) -> pd.DataFrame:
    items = pd.read_csv(camp / "items.csv", dtype=str)
    sampled = items.loc[items["honeypot"] == "false", "item_id"]
    return pd.DataFrame({"item_id": sampled, "question": "reference",
                         "label": sampled.map(truth).map({True: "true", False: "false"})})  # fmt: skip


@pytest.fixture
def planned(tmp_path, run_cli, monkeypatch):
    """A plan of 24 items, 3 raters, overlap 2, honeypots 20 % from a file of ``k`` honeypots."""
    monkeypatch.delenv("LABEL_STUDIO_URL", raising=False)

    def plan(k: int):
        population, truth = _population()
        population.to_csv(tmp_path / "items.csv", index=False)
        _honeypots(k).to_csv(tmp_path / "honeypots.csv", index=False)
        code, _out, err = run_cli(
            "annotate", "plan", str(tmp_path / "items.csv"), "--n", "24", "--raters", ",".join(RATERS),
            "--overlap", "2", "--strata", "player_model,judge_verdict", "--seed", "5", "--honeypots",
            str(tmp_path / "honeypots.csv"), "--honeypot-rate", "0.2", "--out", str(tmp_path / "camp"),
        )  # fmt: skip
        assert code == 0, err
        _final(tmp_path / "camp", truth).to_csv(tmp_path / "final.csv", index=False)
        return tmp_path / "camp"

    return plan


def _manifest(camp) -> dict:
    return json.loads((camp / "manifest.json").read_text())


def _next(run_cli, camp, budget: int = 18):
    code, out, err = run_cli("annotate", "next", str(camp), "--budget", str(budget), "--labels",
                             str(camp.parent / "final.csv"), "--seed", "2", "--json")  # fmt: skip
    assert code == 0, err
    return json.loads(out)


def test_each_rater_gets_new_honeypots_in_round_2(planned, run_cli):
    camp = planned(12)
    before = pd.DataFrame(_manifest(camp)["assignments"])
    had = {r: set(before.loc[(before["rater"] == r) & before["honeypot"], "item_id"]) for r in RATERS}
    assert {r: len(v) for r, v in had.items()} == {"ann": 4, "bob": 4, "cyd": 4}  # 16 tasks each: 16/4
    record = _next(run_cli, camp)
    after = pd.DataFrame(_manifest(camp)["assignments"])
    new = after.iloc[len(before) :]
    for rater in RATERS:
        mine = new[new["rater"] == rater]
        items = int((~mine["honeypot"]).sum())
        pots = set(mine.loc[mine["honeypot"], "item_id"])
        assert len(pots) == round(items * 0.2 / 0.8) == 3, (rater, items)  # 18 items × 2 / 3 = 12 each
        assert not pots & had[rater]  # none a rater already had (the pool of 12 allows it)
        positions = sorted(after.loc[after["rater"] == rater, "position"])
        assert positions == list(range(1, len(positions) + 1))  # the new tasks follow the old ones
    assert record["honeypots"]["added"] == {"ann": 3, "bob": 3, "cyd": 3}
    assert record["honeypots"]["short"] == {}
    items = pd.read_csv(camp / "items.csv", dtype=str, keep_default_na=False).set_index("item_id")
    used = set(after.loc[after["honeypot"], "item_id"])
    assert used <= set(items.index[items["honeypot"] == "true"])  # every honeypot's answer is there
    assert (items.loc[sorted(used), "gold_reference"] == "true").all()
    assert (items.loc[items["honeypot"] == "true", "inclusion_probability"] == "").all()  # not sampled


def test_a_pool_that_runs_out_is_counted_and_said(planned, run_cli):
    camp = planned(5)  # each rater had 4 of the 5: one left for each, 3 wanted
    record = _next(run_cli, camp)
    assert record["honeypots"]["added"] == {"ann": 1, "bob": 1, "cyd": 1}
    assert record["honeypots"]["short"] == {r: {"wanted": 3, "given": 1} for r in RATERS}
    assert any("pool of 5 ran out for 3 rater(s)" in n and "6 fewer in all" in n for n in record["notes"])
    assignments = pd.DataFrame(_manifest(camp)["assignments"])
    assert not assignments.duplicated(["rater", "item_id"]).any()  # never one honeypot twice in a queue
    code, out, err = run_cli("annotate", "next", str(camp), "--budget", "6", "--labels",
                             str(camp.parent / "final.csv"), "--seed", "3")  # fmt: skip
    assert code == 0, err
    assert "note: honeypots: the pool of 5 ran out for 3 rater(s)" in out  # said in the text too


def test_without_the_honeypots_file_the_campaigns_own_are_used(planned, run_cli):
    camp = planned(12)
    (camp.parent / "honeypots.csv").unlink()
    items = pd.read_csv(camp / "items.csv", dtype=str)
    inside = int((items["honeypot"] == "true").sum())  # the honeypots the plan used
    record = _next(run_cli, camp)
    assert record["honeypots"]["pool"] == inside
    assert any(
        "honeypots file" in n and f"the {inside} already in the campaign" in n for n in record["notes"]
    )


def test_next_round_from_python_with_tables(tmp_path, monkeypatch):
    """Planned from a table in memory (the population copied into the campaign folder), the next
    round from the final labels as a table: no file named anywhere."""
    monkeypatch.delenv("LABEL_STUDIO_URL", raising=False)
    population, truth = _population()
    plan = wa.plan_campaign(population, out=tmp_path / "camp", n=24, raters=["ann", "bob"], overlap=1,
                            strata=["player_model", "judge_verdict"], seed=1)  # fmt: skip
    assert (tmp_path / "camp" / "population.csv").is_file()
    final = _final(tmp_path / "camp", truth)
    result = wa.next_round(plan.folder, budget=20, labels=final, targets=["tdr"], seed=4)
    assert isinstance(result, wa.NextRound) and len(result.item_ids) == 20
    assert result.to_dict()["pushed"] is None and "file mode" in result.to_dict()["push_note"]
    assert result.summary()[0] == f"round 2: 20 items added -> {plan.folder}"
    strata = result.to_frame()
    assert strata["add"].sum() == 20 and set(strata["stratum"]) == {f"{m} × {v}" for m, v in SIZES}
    items = pd.read_csv(tmp_path / "camp" / "items.csv", dtype=str).set_index("item_id")
    sampled = items[items["honeypot"] == "false"]
    key = population.set_index("item_id")
    for (model, verdict), size in SIZES.items():
        inside = sampled[(key.loc[sampled.index, "player_model"] == model).to_numpy()
                         & (key.loc[sampled.index, "judge_verdict"] == verdict).to_numpy()]  # fmt: skip
        # both rounds sample model × verdict: π = (6 + the round's add)/30 for every item
        drawn = 6 + int(strata.set_index("stratum").loc[f"{model} × {verdict}", "add"])
        assert len(inside) == drawn
        assert inside["inclusion_probability"].astype(float).tolist() == pytest.approx([drawn / size] * drawn)


def test_next_round_refuses_bad_parameters_by_their_names(tmp_path, monkeypatch):
    monkeypatch.delenv("LABEL_STUDIO_URL", raising=False)
    population, truth = _population()
    plan = wa.plan_campaign(population, out=tmp_path / "camp", n=24, raters=["ann"], overlap=1,
                            strata=["player_model", "judge_verdict"], seed=1)  # fmt: skip
    final = _final(tmp_path / "camp", truth)
    shutil.copytree(tmp_path / "camp", tmp_path / "copy")
    for kwargs, start in (
        ({"budget": 0}, "budget: expected a positive number"),
        ({"budget": 4, "targets": ["tdr", "dr"]}, "targets: expected one of tdr, fnr, lkr"),
        ({"budget": 4, "objective": "mean"}, "objective: expected one of max, sum"),
        ({"budget": 4, "confidence": float("nan")}, "confidence: expected a level strictly between"),
        ({"budget": 4, "by": ["deck"]}, "by: column 'deck' is not in"),
        ({"budget": 4, "targets": ["lkr"]}, "targets: lkr:"),  # final holds no any_sense label
    ):
        with pytest.raises(wa.ParameterError) as info:
            wa.next_round(plan.folder, labels=final, **kwargs)
        assert str(info.value).startswith(start), (kwargs, str(info.value))
    assert (tmp_path / "camp" / "manifest.json").read_bytes() == (
        tmp_path / "copy" / "manifest.json"
    ).read_bytes()


def test_labels_read_by_pandas_keep_an_empty_label_unresolved(tmp_path, monkeypatch):
    """``pd.read_csv("final.csv")`` turns an unresolved (empty) label into NaN: it stays no label."""
    monkeypatch.delenv("LABEL_STUDIO_URL", raising=False)
    population, truth = _population()
    plan = wa.plan_campaign(population, out=tmp_path / "camp", n=24, raters=["ann"], overlap=1,
                            strata=["player_model", "judge_verdict"], seed=1)  # fmt: skip
    final = _final(tmp_path / "camp", truth)
    final.loc[final.index[0], "label"] = ""
    final.to_csv(tmp_path / "final.csv", index=False)
    read = pd.read_csv(tmp_path / "final.csv")
    assert read["label"].isna().sum() == 1
    status = wa.campaign_status(plan.folder, labels=read, by=["player_model"])
    assert sum(r["labelled"] for r in status.to_dict()["adaptive"]["targets"]) == 23
