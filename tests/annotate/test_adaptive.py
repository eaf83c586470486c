"""``annotate status`` per target (issue 14) with hand-computed half-widths, ``annotate next``
with the ``lkr`` target, and ``next``'s push decision in file mode.

The campaign: 120 definitions of two models, strata (player model × judge verdict) of 40, 20,
30, 30 items; a proportional plan of 24 draws 8, 4, 6, 6. The labels file answers 6, 4, 6, 6
of them with 4, 1, 5, 0 "true" on ``reference`` (and the reverse on ``any_sense``). Every
expected width below is z·√Σ W_h² S_h² (1/n_h − 1/N_h), S² = q̃(1 − q̃)·N/(N − 1),
q̃ = (x + ½)/(n + 1) (Cochran 1977, §5.3), written out from those counts.
"""

from __future__ import annotations

import json
import math

import pandas as pd
import pytest

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
    assert f"tdr m1: 0.528 ±{now_m1:.3f} now (10 labelled)" in text and "after the next 4" in text


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
    assert "--target lkr" in err and "any_sense" in err and "category_name" in err


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
