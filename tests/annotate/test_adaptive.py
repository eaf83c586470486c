"""``annotate status`` per target with hand-computed half-widths, ``annotate next``
with the ``lkr`` target, and ``next``'s push decision in file mode; ``next`` keeps the
campaign folder whole, draws from the planned population wherever it runs, and checks the
labels it reads (as ``status`` does).

The campaign: 120 definitions of two models, strata (player model × judge verdict) of 40, 20,
30, 30 items; a proportional plan of 24 draws 8, 4, 6, 6. The labels file answers 6, 4, 6, 6
of them with 4, 1, 5, 0 "true" on ``reference`` (and the reverse on ``any_sense``). Every
expected width below is z·√Σ W_h² S_h² (1/n_h − 1/N_h), S² = q̃(1 − q̃)·N/(N − 1),
q̃ = (x + ½)/(n + 1) (Cochran 1977, §5.3), written out from those counts. The tests that take
``campaign_of_16`` or ``campaign_of_12`` (``conftest.py``) run on those campaigns instead.
"""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import pandas as pd
import pytest

from tests.support import campaigns
from tests.support.cli_checks import one_line_error as _one_line_error
from tests.support.tables import write_csv

Z95 = 1.959963984540054
SIZES = {("m1", "true"): 40, ("m1", "false"): 20, ("m2", "true"): 30, ("m2", "false"): 30}
LABELLED = {("m1", "true"): (6, 4), ("m1", "false"): (4, 1), ("m2", "true"): (6, 5), ("m2", "false"): (6, 0)}


def _s2(x: float, n: float, big_n: int) -> float:
    q = (x + 3) / (n + 6)  # q̃ = (x + a/2)/(n + a), allocation.PSEUDO = a = 6
    return max(q * (1 - q), 0.01) * big_n / (big_n - 1)


def _half(parts) -> float:
    """parts: (W_h, x_h, n_h, N_h) per stratum."""
    return Z95 * math.sqrt(sum(w * w * _s2(x, n, big) * (1 / n - 1 / big) for w, x, n, big in parts))


@pytest.fixture
def camp(tmp_path, run_cli, monkeypatch):
    monkeypatch.delenv("LABEL_STUDIO_URL", raising=False)
    monkeypatch.delenv("LABEL_STUDIO_API_KEY", raising=False)
    rows = []
    for (model, verdict), size in SIZES.items():
        for i in range(size):
            rows.append(
                {
                    "item_id": f"{model}{verdict[0]}{i}",
                    "game": "balderdash",
                    "kind": "definition",
                    "context": "w",
                    "reference": "r",
                    "candidate": "c",
                    "player_model": model,
                    "judge_verdict": verdict,
                }
            )
    pd.DataFrame(rows).to_csv(tmp_path / "items.csv", index=False)
    code, _out, err = run_cli(
        "annotate", "plan", str(tmp_path / "items.csv"), "--n", "24", "--raters", "ann,bob",
        "--overlap", "1", "--strata", "player_model,judge_verdict", "--seed", "4",
        "--out", str(tmp_path / "camp"),
    )  # fmt: skip
    assert code == 0, err
    sampled = pd.read_csv(tmp_path / "camp" / "items.csv", dtype=str)
    final = []
    for key, (n, x) in LABELLED.items():
        ids = sorted(
            sampled.loc[(sampled["player_model"] == key[0]) & (sampled["judge_verdict"] == key[1]), "item_id"]
        )
        assert len(ids) == {40: 8, 20: 4, 30: 6}[SIZES[key]]  # proportional: 24 × N_h/120
        for j, item in enumerate(ids[:n]):
            final.append({"item_id": item, "question": "reference", "label": str(j < x).lower()})
            final.append({"item_id": item, "question": "any_sense", "label": str(j >= x).lower()})
    pd.DataFrame(final).to_csv(tmp_path / "final.csv", index=False)
    return tmp_path


def _status(run_cli, tmp, *extra):
    code, out, err = run_cli(
        "annotate", "status", str(tmp / "camp"), "--labels", str(tmp / "final.csv"), *extra
    )
    assert code == 0, err
    return out


def test_status_widths_by_hand(camp, run_cli):
    out = json.loads(_status(run_cli, camp, "--json", "--budget", "4"))
    assert out["raters"] is None  # file mode: no server asked
    rows = {r["target"]: r for r in out["adaptive"]["targets"]}
    assert set(rows) == {"tdr m1", "tdr m2"}
    m1, m2 = rows["tdr m1"], rows["tdr m2"]
    assert (m1["labelled"], m1["drawn"], m2["labelled"], m2["drawn"]) == (10, 12, 12, 12)
    now_m1 = _half([(40 / 60, 4, 6, 40), (20 / 60, 1, 4, 20)])
    now_m2 = _half([(0.5, 5, 6, 30), (0.5, 0, 6, 30)])
    assert m1["half_width"] == pytest.approx(now_m1, rel=1e-9)
    assert m2["half_width"] == pytest.approx(now_m2, rel=1e-9)
    # one round, π = n_h/N_h inside each stratum: the estimate is Σ N_h (x_h/n_h) / Σ N_h
    assert m1["estimate"] == pytest.approx((40 * 4 / 6 + 20 * 1 / 4) / 60, rel=1e-12)
    assert m2["estimate"] == pytest.approx((30 * 5 / 6 + 30 * 0 / 6) / 60, rel=1e-12)
    # pending: the 2 drawn but unlabelled items of (m1, true) count at its share 4/6 → x' = 16/3 of 8
    assert m1["half_width_pending"] == pytest.approx(
        _half([(40 / 60, 16 / 3, 8, 40), (20 / 60, 1, 4, 20)]), rel=1e-9
    )
    assert m2["half_width_pending"] == pytest.approx(now_m2, rel=1e-9)
    # next 4 labels: (m1, false) must reach the pilot minimum of 5 first; the rest are placed to
    # minimise the larger width: brute force over every placement of the other 3
    s2 = [_s2(16 / 3, 8, 40), _s2(1, 4, 20), _s2(5, 6, 30), _s2(0, 6, 30)]  # fixed at the pending shares
    best = math.inf
    for a in range(4):
        for b in range(4 - a):
            for c in range(4 - a - b):
                n = (8 + a, 5 + b, 6 + c, 6 + 3 - a - b - c)
                w1 = Z95 * math.sqrt(
                    (2 / 3) ** 2 * s2[0] * (1 / n[0] - 1 / 40) + (1 / 3) ** 2 * s2[1] * (1 / n[1] - 1 / 20)
                )
                w2 = Z95 * math.sqrt(0.25 * s2[2] * (1 / n[2] - 1 / 30) + 0.25 * s2[3] * (1 / n[3] - 1 / 30))
                best = min(best, max(w1, w2))
    assert max(m1["half_width_next"], m2["half_width_next"]) == pytest.approx(best, rel=1e-9)
    text = _status(run_cli, camp, "--budget", "4")
    assert "tdr m1: 0.528 (" in text and "(10 labelled)" in text
    assert f"tdr m1: ±{now_m1:.3f} now" in text and "after the next 4" in text


def test_status_lkr_counts_any_sense(camp, run_cli):
    out = json.loads(_status(run_cli, camp, "--json", "--target", "lkr"))
    rows = {r["target"]: r for r in out["adaptive"]["targets"]}
    # any_sense true = the reference-false ones: 2, 3, 1, 6
    assert rows["lkr m2"]["half_width"] == pytest.approx(_half([(0.5, 1, 6, 30), (0.5, 6, 6, 30)]), rel=1e-9)
    assert rows["lkr m1"]["half_width_next"] is None  # no budget: no next batch
    assert rows["lkr m1"]["estimate"] == pytest.approx((40 * 2 / 6 + 20 * 3 / 4) / 60, rel=1e-12)
    fnr = json.loads(_status(run_cli, camp, "--json", "--target", "fnr"))["adaptive"]["targets"]
    # FNR of m1 = N q̂ over the judge-false stratum / N q̂ over both: 20·¼ / (40·4/6 + 20·¼)
    m1 = next(r for r in fnr if r["target"] == "fnr m1")
    assert m1["estimate"] == pytest.approx(5 / (40 * 4 / 6 + 5), rel=1e-12)


def test_next_records_round_and_status_reads_it(camp, run_cli):
    code, out, err = run_cli(
        "annotate", "next", str(camp / "camp"), "--budget", "10", "--labels", str(camp / "final.csv"),
        "--target", "tdr,lkr", "--seed", "2", "--json",
    )  # fmt: skip
    assert code == 0, err
    record = json.loads(out)
    assert record["pushed"] is None and "file mode" in record["push_note"]
    assert set(record["half_width_before"]) == {"tdr m1", "tdr m2", "lkr m1", "lkr m2"}
    assert len(record["item_ids"]) == 10
    code, out, err = run_cli("annotate", "status", str(camp / "camp"), "--json")
    assert code == 0, err
    status = json.loads(out)["adaptive"]
    assert status["source"] == "manifest round 2" and status["budget"] == 10
    for row in status["targets"]:
        assert row["half_width"] == record["half_width_before"][row["target"]]
        assert row["half_width_next"] == record["half_width_after"][row["target"]]
    # with the labels again, the round's settings are reused; 24 + 10 items drawn now
    again = json.loads(_status(run_cli, camp, "--json"))["adaptive"]
    assert again["by"] == ["player_model"] and again["budget"] == 10
    assert sum(r["drawn"] for r in again["targets"] if r["target"].startswith("tdr")) == 34


def test_lkr_needs_a_kind_with_any_sense(tmp_path, run_cli):
    rows = [
        {"item_id": f"c{i}", "game": "connections", "kind": "category_name", "context": "x",
         "reference": "r", "candidate": "c", "player_model": "m", "judge_verdict": str(i % 2 == 0).lower()}
        for i in range(20)
    ]  # fmt: skip
    pd.DataFrame(rows).to_csv(tmp_path / "items.csv", index=False)
    code, _out, err = run_cli(
        "annotate", "plan", str(tmp_path / "items.csv"), "--n", "10", "--raters", "a", "--overlap", "1",
        "--out", str(tmp_path / "camp"),
    )  # fmt: skip
    assert code == 0, err
    pd.DataFrame({"item_id": ["c0"], "label": ["true"]}).to_csv(tmp_path / "final.csv", index=False)
    code, out, err = run_cli(
        "annotate", "next", str(tmp_path / "camp"), "--budget", "3", "--labels", str(tmp_path / "final.csv"),
        "--target", "lkr",
    )  # fmt: skip
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "--target: lkr" in err and "any_sense" in err and "category_name" in err


@pytest.mark.slow
def test_next_with_the_server_down_writes_nothing(camp, run_cli, monkeypatch, tree_digest):
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    monkeypatch.setenv("LABEL_STUDIO_URL", f"http://127.0.0.1:{port}")
    monkeypatch.setenv("LABEL_STUDIO_API_KEY", "0" * 40)
    before = tree_digest(camp / "camp")
    args = ["annotate", "next", str(camp / "camp"), "--budget", "5", "--labels", str(camp / "final.csv")]
    code, out, err = run_cli(*args)
    assert code == 2 and out == "" and err.count("\n") == 1 and "no Label Studio server answers" in err
    assert tree_digest(camp / "camp") == before
    code, out, err = run_cli(*args, "--no-push", "--json")  # the round is written, nothing pushed
    assert code == 0, err
    assert json.loads(out)["pushed"] is None and "--no-push" in json.loads(out)["push_note"]
    assert tree_digest(camp / "camp") != before


def test_next_adds_the_judge_verdicts_of_new_items(tmp_path, run_cli, monkeypatch):
    monkeypatch.delenv("LABEL_STUDIO_URL", raising=False)
    items = pd.DataFrame(
        {
            "item_id": [f"d{i}" for i in range(40)],
            "game": "balderdash", "kind": "definition", "context": "w", "reference": "r", "candidate": "c",
            "player_model": "m", "judge_verdict": ["true", "false"] * 20,
        }
    )  # fmt: skip
    items.to_csv(tmp_path / "items.csv", index=False)
    judge = pd.DataFrame(
        {"item_id": items["item_id"], "rater": "gpt", "rater_type": "judge", "label": items["judge_verdict"],
         "question": "reference"}
    )  # fmt: skip
    judge.to_csv(tmp_path / "judge.csv", index=False)
    code, _out, err = run_cli(
        "annotate", "plan", str(tmp_path / "items.csv"), "--n", "10", "--raters", "a", "--overlap", "1",
        "--strata", "judge_verdict", "--judge-labels", str(tmp_path / "judge.csv"), "--out", str(tmp_path / "camp"),
    )  # fmt: skip
    assert code == 0, err
    planned = pd.read_csv(tmp_path / "camp" / "judge_labels.csv", dtype=str)
    assert len(planned) == 10
    pd.DataFrame({"item_id": planned["item_id"], "question": "reference", "label": "true"}).to_csv(
        tmp_path / "final.csv", index=False
    )
    code, out, err = run_cli(
        "annotate", "next", str(tmp_path / "camp"), "--budget", "6", "--labels", str(tmp_path / "final.csv"),
        "--json",
    )  # fmt: skip
    assert code == 0, err
    new = json.loads(out)["item_ids"]
    after = pd.read_csv(tmp_path / "camp" / "judge_labels.csv", dtype=str)
    assert sorted(after["item_id"]) == sorted([*planned["item_id"], *new])
    verdict = dict(zip(judge["item_id"], judge["label"], strict=True))
    assert all(verdict[i] == lab for i, lab in zip(after["item_id"], after["label"], strict=True))


def test_status_bad_options_are_one_line_errors(camp, run_cli, tree_digest):
    before = tree_digest(camp / "camp")
    for extra, expected in ((["--budget", "-1"], "--budget"), (["--target", "tdr,xyz"], "tdr, fnr, lkr")):
        code, out, err = run_cli(
            "annotate", "status", str(camp / "camp"), "--labels", str(camp / "final.csv"), *extra
        )
        assert code == 2 and out == "" and err.count("\n") == 1 and expected in err
    code, out, err = run_cli("annotate", "status", str(camp / "camp"), "--labels", str(camp / "nope.csv"))
    assert code == 2 and err.count("\n") == 1 and "nope.csv" in err
    assert tree_digest(camp / "camp") == before


@pytest.mark.parametrize(
    ("command", "extra", "needle"),
    [
        ("status", ["--labels", "EMPTY"], "not a readable table"),  # was pandas' EmptyDataError traceback
        ("next", ["--labels", "EMPTY", "--budget", "4"], "not a readable table"),
        # a missing --labels said the system's "No such file or directory", capitalised unlike the rest
        ("status", ["--labels", "MISSING"], "nope.csv: no such file"),
        ("next", ["--labels", "MISSING", "--budget", "4", "--no-push"], "nope.csv: no such file"),
        ("status", ["--labels", "FOLDER"], "a-folder: is a folder, expected pull's final.csv"),
        ("next", ["--labels", "FOLDER", "--budget", "4", "--no-push"], "a-folder: is a folder, expected"),
        ("next", ["--confidence", "nan"], "--confidence: expected a level strictly between 0 and 1"),
        ("next", ["--confidence", "inf"], "--confidence:"),  # the message said "confidence:" only
        ("next", ["--confidence", "0"], "--confidence:"),
        ("next", ["--seed", "-1"], "--seed"),  # was a numpy traceback
        ("next", ["--objective", "mean"], "--objective: expected one of max, sum"),  # said "objective:"
    ],
)
def test_adaptive_options_refused_under_their_own_name(camp, run_cli, tree_digest, command, extra, needle):
    (camp / "empty.csv").write_text("")
    (camp / "a-folder").mkdir()
    paths = {"EMPTY": camp / "empty.csv", "MISSING": camp / "nope.csv", "FOLDER": camp / "a-folder"}
    extra = [str(paths.get(a, a)) for a in extra]
    if "--labels" not in extra:
        extra += ["--labels", str(camp / "final.csv"), "--budget", "4", "--no-push"]
    before = tree_digest(camp / "camp")
    code, out, err = run_cli("annotate", command, str(camp / "camp"), *extra)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and needle in err, err
    assert tree_digest(camp / "camp") == before


# --- next keeps the campaign's sub-folders and refuses a campaign changed while it read it --------


def test_next_keeps_the_sub_folders_of_the_campaign(campaign_of_16, run_cli, tree_digest):
    camp = campaign_of_16 / "camp"
    (camp / "pulled").mkdir()
    shutil.copy(campaign_of_16 / "final.csv", camp / "pulled" / "final.csv")  # the labels given to next
    (camp / "notes" / "deep").mkdir(parents=True)
    (camp / "notes" / "deep" / "n.txt").write_text("keep me\n")
    before = {name: tree_digest(camp / name) for name in ("pulled", "notes")}
    code, _out, err = run_cli(
        "annotate", "next", str(camp), "--budget", "4", "--labels", str(camp / "pulled" / "final.csv")
    )
    assert code == 0, err
    assert {name: tree_digest(camp / name) for name in ("pulled", "notes")} == before  # was: deleted
    assert len(campaigns.read_manifest(camp)["rounds"]) == 1


def test_a_next_that_read_the_campaign_before_another_wrote_it_is_refused(
    campaign_of_16, run_cli, monkeypatch
):
    from wordplay_audit.workflow import campaign_next as adaptive

    camp, final = campaign_of_16 / "camp", campaign_of_16 / "final.csv"
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
    rounds = campaigns.read_manifest(camp)["rounds"]  # was: exit 0, and round 2 of the other run lost
    assert [r["item_ids"] for r in rounds] == [inner["record"]["item_ids"]]


# --- the planned population, wherever next runs ---------------------------------------------------


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
    campaigns.population("x").to_csv(other / "pop" / "items.csv", index=False)
    return other


def test_plan_stores_the_items_path_absolute_and_next_uses_it_elsewhere(tmp_path, run_cli, monkeypatch):
    monkeypatch.delenv("LABEL_STUDIO_URL", raising=False)
    here = tmp_path / "here"
    (here / "pop").mkdir(parents=True)
    campaigns.population().to_csv(here / "pop" / "items.csv", index=False)
    monkeypatch.chdir(here)
    campaigns.plan_definitions(run_cli, "pop/items.csv", "camp")  # relative, as a user types it
    assert campaigns.read_manifest(here / "camp")["sources"]["items"] == str(here / "pop" / "items.csv")
    final = campaigns.final_labels(here / "camp", tmp_path / "final.csv")
    monkeypatch.chdir(_other_folder(tmp_path))  # was: read other/pop/items.csv, wrote empty π
    code, out, err = run_cli(
        "annotate", "next", str(here / "camp"), "--budget", "4", "--labels", str(final), "--json"
    )
    assert code == 0, err
    assert all(i.startswith("d") for i in json.loads(out)["item_ids"])
    _pi_by_hand(here / "camp")


def test_an_old_relative_source_is_found_beside_the_campaign(campaign_of_16, run_cli, monkeypatch):
    camp = campaign_of_16 / "camp"
    manifest = campaigns.read_manifest(camp)
    manifest["sources"]["items"] = "items.csv"  # as plan wrote it when run in the campaign's parent
    (camp / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    other = _other_folder(campaign_of_16)
    shutil.copy(other / "pop" / "items.csv", other / "items.csv")
    monkeypatch.chdir(other)  # was: other/items.csv, the wrong population
    code, _out, err = run_cli(
        "annotate", "next", str(camp), "--budget", "4", "--labels", str(campaign_of_16 / "final.csv")
    )
    assert code == 0, err
    _pi_by_hand(camp)


@pytest.mark.parametrize("command", ["next", "status"])
def test_items_lacking_a_campaign_item_are_refused(campaign_of_16, run_cli, tree_digest, command):
    camp = campaign_of_16 / "camp"
    sampled = sorted(pd.read_csv(camp / "items.csv", dtype=str)["item_id"])
    population = campaigns.population()
    population[population["item_id"] != sampled[0]].to_csv(campaign_of_16 / "part.csv", index=False)
    before = tree_digest(camp)
    extra = ["--budget", "4"] if command == "next" else []
    code, out, err = run_cli(
        "annotate", command, str(camp), "--labels", str(campaign_of_16 / "final.csv"), "--items", str(campaign_of_16 / "part.csv"),
        *extra,
    )  # fmt: skip
    _one_line_error(code, out, err, f"{campaign_of_16 / 'part.csv'}: campaign item {sampled[0]!r} is not in this table",
                    "1 of the campaign's 16 items missing")  # fmt: skip
    assert tree_digest(camp) == before


# --- the labels next and status read --------------------------------------------------------------


@pytest.mark.parametrize("command", ["next", "status"])
def test_final_labels_with_an_extra_field_name_the_line(campaign_of_16, run_cli, command):
    path = campaign_of_16 / "extra.csv"
    lines = (campaign_of_16 / "final.csv").read_text().splitlines()
    path.write_text("\n".join([lines[0], *(line + ",x" for line in lines[1:])]) + "\n")
    extra = ["--budget", "4"] if command == "next" else []
    code, out, err = run_cli("annotate", command, str(campaign_of_16 / "camp"), "--labels", str(path), *extra)
    # was: pandas took the first column as the index and the error named the wrong columns
    _one_line_error(code, out, err, f"{path} line 2: expected 3 fields, got 4")


@pytest.mark.parametrize("command", ["next", "status"])
def test_labels_of_another_campaign_are_refused(campaign_of_12, run_cli, tree_digest, command):
    tmp, final = campaign_of_12
    foreign = [dict(r, item_id=f"other:{i}") for i, r in enumerate(final)]
    labels = write_csv(tmp / "foreign.csv", foreign)
    before = tree_digest(tmp / "camp")
    extra = ["--budget", "4", "--no-push"] if command == "next" else []
    code, out, err = run_cli("annotate", command, str(tmp / "camp"), "--labels", labels, *extra)
    # was rc 0 (next drew round 2 on no labels at all)
    _one_line_error(
        code, out, err, f"{labels} line 2: item 'other:0': none of the 4 label rows names an item"
    )
    assert tree_digest(tmp / "camp") == before


@pytest.mark.parametrize("command", ["next", "status"])
def test_unmatched_label_rows_are_counted(campaign_of_12, run_cli, command):
    tmp, final = campaign_of_12
    labels = write_csv(tmp / "final.csv", [*final, dict(final[0], item_id="ghost")])
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
def test_bad_final_labels_name_the_line(campaign_of_12, run_cli, tree_digest, change, needle):
    tmp, final = campaign_of_12
    rows = [dict(r) for r in final]
    if change is None:
        rows.append(dict(rows[0], label="false"))
        needle += f" {rows[0]['item_id']!r}, question 'reference' has a final label already; expected one row per item"
    else:
        rows[1].update(change)
    labels = write_csv(tmp / "final.csv", rows)
    before = tree_digest(tmp / "camp")
    code, out, err = run_cli(
        "annotate", "next", str(tmp / "camp"), "--labels", labels, "--budget", "4", "--no-push"
    )
    _one_line_error(code, out, err, f"{labels} {needle}")
    assert tree_digest(tmp / "camp") == before
