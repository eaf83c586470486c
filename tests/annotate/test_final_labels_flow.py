"""The labels' path in file mode: plan → scripted exports → ``annotate import-file`` writes
``final.csv`` as the contract's final labels table (raters, votes, how each item was settled), and
``balderdash recompute``, ``wof recompute``, ``annotate status`` and ``next`` take it — or the
per-rater ``labels.csv`` — with the same results, ties counted and said."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

FLIP_EVERY = 4  # bob contradicts ann's reference answer on every 4th of his items: each a tie


def _choices(name: str, value: str) -> dict:
    shown = {"true": "Yes", "false": "No"}[value]
    return {"from_name": name, "to_name": "t_candidate", "type": "choices", "value": {"choices": [shown]}}


def _export(path: Path, tasks: list[tuple[str, list[dict]]]) -> str:
    """A Label Studio JSON export: one submitted annotation per task uid."""
    rows = [
        {
            "id": k,
            "data": {"uid": uid},
            "annotations": [{"id": k, "result": result, "updated_at": "2026-01-01"}],
        }
        for k, (uid, result) in enumerate(tasks)
    ]
    path.write_text(json.dumps(rows), encoding="utf-8")
    return str(path)


def _plan(run_cli, items: Path, camp: Path, n: int) -> list[dict]:
    code, _out, err = run_cli(
        "annotate", "plan", str(items), "--n", str(n), "--raters", "ann,bob", "--overlap", "2",
        "--seed", "1", "--out", str(camp),
    )  # fmt: skip
    assert code == 0, err
    return json.loads((camp / "manifest.json").read_text())["assignments"]


def _import(run_cli, camp: Path, exports: dict[str, str], out: Path) -> dict:
    args = ["annotate", "import-file", str(camp), "--out", str(out), "--json"]
    for rater, path in exports.items():
        args += ["--export", f"{rater}={path}"]
    code, text, err = run_cli(*args)
    assert code == 0, err
    return json.loads(text)


@pytest.fixture(scope="module")
def balderdash_pulled(tmp_path_factory):
    """A simulated Balderdash export, 40 of its definitions labelled by ann (the truth) and bob
    (the truth, but every 4th reference answer turned), pulled from files."""
    from wordplay_audit.cli.main import main
    from wordplay_audit.corpora.balderdash.simulate import SimConfig
    from wordplay_audit.corpora.balderdash.writer import simulate_to_folder

    tmp = tmp_path_factory.mktemp("bdflow")
    sim = tmp / "sim"
    simulate_to_folder(sim, seed=2, config=SimConfig(games_per_deck=2, n_rounds=8, labels_per_stratum=8))
    assert main(["balderdash", "items", str(sim), "--out", str(tmp / "items")]) == 0
    truth = pd.read_csv(sim / "truth.csv", dtype=str).set_index("item_id")

    def run_cli(*args):
        import contextlib
        import io

        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(list(args))
        return code, out.getvalue(), err.getvalue()

    assignments = _plan(run_cli, tmp / "items" / "items.csv", tmp / "camp", 40)
    exports, flipped = {}, set()
    for rater in ("ann", "bob"):
        tasks = []
        mine = [a for a in assignments if a["rater"] == rater]
        for k, a in enumerate(mine):
            ref, anys = (truth.loc[a["item_id"], c].lower() for c in ("true_ref", "true_any"))
            if rater == "bob" and k % FLIP_EVERY == 0:
                ref = {"true": "false", "false": "true"}[ref]
                flipped.add(a["item_id"])
            tasks.append((a["uid"], [_choices("reference", ref), _choices("any_sense", anys)]))
        exports[rater] = _export(tmp / f"{rater}.json", tasks)
    summary = _import(run_cli, tmp / "camp", exports, tmp / "pulled")
    return {"tmp": tmp, "sim": sim, "flipped": flipped, "summary": summary, "run": run_cli}


def test_pull_writes_the_final_labels_table(balderdash_pulled):
    tmp, flipped = balderdash_pulled["tmp"], balderdash_pulled["flipped"]
    final = pd.read_csv(tmp / "pulled" / "final.csv", dtype=str, keep_default_na=False)
    assert list(final.columns) == ["item_id", "question", "label", "n_raters", "n_votes", "settled_by"]
    assert len(final) == 2 * 40 and set(final["n_raters"]) == {"2"}  # overlap 2, both questions
    reference = final[final["question"] == "reference"].set_index("item_id")
    # every turned answer is a 1–1 tie: no label, one vote each; the rest unanimous
    assert set(reference.index[reference["settled_by"] == "tie"]) == flipped
    assert (reference.loc[sorted(flipped), ["label", "n_votes"]] == ["", "1"]).all().all()
    assert set(reference.loc[~reference.index.isin(flipped), "settled_by"]) == {"unanimous"}
    assert set(final.loc[final["question"] == "any_sense", "settled_by"]) == {"unanimous"}
    assert balderdash_pulled["summary"]["final_settled_by"] == {
        "unanimous": 80 - len(flipped),
        "tie": len(flipped),
    }


def test_balderdash_recompute_takes_pulled_final_csv(balderdash_pulled):
    tmp, run = balderdash_pulled["tmp"], balderdash_pulled["run"]
    base = ["balderdash", "recompute", "--seed", "0", str(balderdash_pulled["sim"]), "--human"]
    code, out, err = run(*base, str(tmp / "pulled" / "final.csv"), "--json")
    assert code == 0, err  # was: "final.csv: labels table lacks column 'rater'"
    from_final = json.loads(out)
    code, out, err = run(*base, str(tmp / "pulled" / "labels.csv"), "--json")
    assert code == 0, err
    from_raters = json.loads(out)
    for key in ("corrected", "judge_audit", "replaced_rates", "round_status"):
        assert from_final[key] == from_raters[key], key
    n_ties = len(balderdash_pulled["flipped"])
    assert from_final["skipped"]["ties_reference"] == from_raters["skipped"]["ties_reference"] == n_ties
    assert from_final["consensus"]["reference"] == {
        "items": 40, "labelled": 40 - n_ties, "ties": n_ties, "adjudicated": 0, "ties_broken": 0,
    }  # fmt: skip
    code, text, err = run(*base, str(tmp / "pulled" / "final.csv"))
    assert code == 0, err
    assert (
        f"people's labels (reference): 40 items, {40 - n_ties} labelled (0 adjudicated), {n_ties} tied"
        in text
    )
    assert (
        f"{n_ties} tied item(s) left out (no majority, not adjudicated): adjudicate them (`wa.adjudicate`, `annotate adjudicate`)"
        in text
    )


def test_status_takes_per_rater_labels_like_final_labels(balderdash_pulled):
    """``annotate status --labels``: pull's labels.csv (per rater) settles to the same estimate as
    final.csv; the ties are counted and said."""
    tmp, run = balderdash_pulled["tmp"], balderdash_pulled["run"]
    results = {}
    for name in ("final.csv", "labels.csv"):
        code, out, err = run(
            "annotate", "status", str(tmp / "camp"), "--labels", str(tmp / "pulled" / name), "--json"
        )
        assert code == 0, (name, err)  # labels.csv was: "label 'true' contradicts an earlier row"
        results[name] = json.loads(out)["adaptive"]
    assert results["final.csv"]["targets"] == results["labels.csv"]["targets"]
    n_ties = len(balderdash_pulled["flipped"])
    assert results["labels.csv"]["human_labels"]["reference"]["ties"] == n_ties
    code, text, err = run(
        "annotate", "status", str(tmp / "camp"), "--labels", str(tmp / "pulled" / "labels.csv")
    )
    assert code == 0, err
    assert f"note: reference: {n_ties} tied item(s) left out" in text


def test_wof_recompute_takes_pulled_final_csv(tmp_path, run_cli):
    code, _out, err = run_cli(
        "wof", "simulate", "--out", str(tmp_path / "sim"), "--games", "30", "--seed", "3"
    )
    assert code == 0, err
    reports = sorted(str(p) for p in (tmp_path / "sim").glob("*.jsonl"))
    code, _out, err = run_cli("wof", "metrics", *reports, "--out", str(tmp_path / "metrics"))
    assert code == 0, err
    items = pd.read_csv(tmp_path / "metrics" / "items.csv", dtype=str, keep_default_na=False)
    lost = items[items["outcome"] != "win"]
    lost.to_csv(tmp_path / "lost.csv", index=False)
    truth = pd.read_csv(tmp_path / "sim" / "truth.csv", dtype=str).set_index("item_id")["truly_solved"]
    assignments = _plan(run_cli, tmp_path / "lost.csv", tmp_path / "camp", 24)
    exports, flipped = {}, set()
    for rater in ("ann", "bob"):
        tasks = []
        for k, a in enumerate(x for x in assignments if x["rater"] == rater):
            said = truth[a["item_id"]].lower()
            if rater == "bob" and k % FLIP_EVERY == 1:
                said = {"true": "false", "false": "true"}[said]
                flipped.add(a["item_id"])
            tasks.append((a["uid"], [{**_choices("correct", said)}]))
        exports[rater] = _export(tmp_path / f"{rater}.json", tasks)
    _import(run_cli, tmp_path / "camp", exports, tmp_path / "pulled")
    base = ["wof", "recompute", "--seed", "0", *reports, "--human"]
    code, out, err = run_cli(*base, str(tmp_path / "pulled" / "final.csv"), "--json")
    assert code == 0, err  # was: "final.csv: labels table lacks column 'rater'"
    from_final = json.loads(out)
    code, out, err = run_cli(*base, str(tmp_path / "pulled" / "labels.csv"), "--json")
    assert code == 0, err
    from_raters = json.loads(out)
    for key in ("judge_audit", "win_rates", "mcnemar"):
        assert from_final[key] == from_raters[key], key
    assert from_final["skipped"]["ties"] == from_raters["skipped"]["ties"] == len(flipped) > 0
    code, text, err = run_cli(*base, str(tmp_path / "pulled" / "final.csv"))
    assert code == 0, err
    assert f"{len(flipped)} tied item(s) left out" in text
