"""``annotate plan`` from the command line: the campaign folder, kinds, honeypot files, rater
names, another campaign in ``--out``, errors."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from tests.support import campaigns
from tests.support.cli_checks import one_line_error as _one_line_error
from tests.support.tables import write_csv


@pytest.fixture
def items(tmp_path):
    rows = [
        {
            "item_id": f"d{i}",
            "game": "balderdash",
            "kind": "definition",
            "context": "w",
            "reference": "r",
            "candidate": "c",
            "player_model": "m1" if i % 3 else "m2",
        }
        for i in range(30)
    ]
    rows += [
        {
            "item_id": f"g{i}",
            "game": "wof",
            "kind": "guess",
            "context": "P",
            "reference": "A",
            "candidate": "B",
        }
        for i in range(5)
    ]
    pd.DataFrame(rows).to_csv(tmp_path / "items.csv", index=False)
    return tmp_path / "items.csv"


def _plan(run_cli, items, out, *extra):
    return run_cli(
        "annotate", "plan", str(items), "--n", "12", "--raters", "a,b,c", "--out", str(out), "--json", *extra
    )


def test_plan_writes_the_campaign_folder(run_cli, items, tmp_path):
    hp = pd.DataFrame(
        {
            "item_id": ["h1", "h2"],
            "game": "balderdash",
            "kind": "definition",
            "context": "w",
            "reference": "r",
            "candidate": "c",
            "gold_reference": ["yes", "no"],
            "gold_any_sense": ["true", ""],
        }
    )
    hp.to_csv(tmp_path / "hp.csv", index=False)
    code, out, err = _plan(
        run_cli,
        items,
        tmp_path / "camp",
        "--kind",
        "definition",
        "--strata",
        "player_model",
        "--honeypots",
        str(tmp_path / "hp.csv"),
        "--honeypot-rate",
        "0.1",
    )
    assert code == 0, err
    payload = json.loads(out)
    assert payload["kind"] == "definition" and payload["design"]["n"] == 12
    # 30 items: m1 20, m2 10 -> proportional 8 and 4; π = 0.4 each, weight 2.5
    strata = {s["stratum"]: s for s in payload["design"]["strata"]}
    assert (strata["m1"]["sampled"], strata["m2"]["sampled"]) == (8, 4)
    assert strata["m1"]["weight"] == pytest.approx(2.5) and strata["m2"][
        "inclusion_probability"
    ] == pytest.approx(0.4)
    files = sorted(p.name for p in (tmp_path / "camp").iterdir())
    assert {"manifest.json", "items.csv", "config.xml"} <= set(files)
    camp_items = pd.read_csv(tmp_path / "camp" / "items.csv", dtype=str, keep_default_na=False)
    assert set(camp_items.loc[camp_items["honeypot"] == "true", "item_id"]) <= {"h1", "h2"}
    from wordplay_audit.annotate.campaign import read_campaign

    gold = read_campaign(tmp_path / "camp").gold()
    used = set(camp_items.loc[camp_items["honeypot"] == "true", "item_id"])
    assert {k: v for k, v in gold.items() if k[0] in used} == {
        k: v
        for k, v in {
            ("h1", "reference"): "true",
            ("h1", "any_sense"): "true",
            ("h2", "reference"): "false",
        }.items()
        if k[0] in used
    }


@pytest.mark.parametrize(
    ("extra", "fragment"),
    [
        ((), "--kind: "),  # two kinds in the table
        (("--kind", "poem"), "--kind: expected one of"),
        (("--kind", "knowledge_type"), "no item of kind 'knowledge_type'"),
        (("--kind", "guess", "--allocation", "neyman"), "--allocation: expected one of proportional, equal"),
        (("--kind", "definition", "--overlap", "5"), "--overlap"),
        (("--kind", "definition", "--honeypots", "missing.csv", "--honeypot-rate", "0.1"), "missing.csv"),
        (("--kind", "definition", "--seed", "-1"), "--seed"),  # was a numpy traceback
        (("--kind", "definition", "--honeypot-rate", "nan"), "--honeypot-rate"),
        # accepted before: an empty name (the --out folder's name was used), names that are no
        # safe file or project name, and empty strata names (silently no strata)
        (("--kind", "definition", "--name", ""), "--name: expected a campaign name"),
        (("--kind", "definition", "--name", " "), "--name: expected a campaign name"),
        (("--kind", "definition", "--name", "a/b"), "got 'a/b'"),
        (("--kind", "definition", "--name", "a\\b"), "--name: expected a campaign name"),
        (("--kind", "definition", "--name", ".."), "--name: expected a campaign name"),
        (("--kind", "definition", "--name", "a:b"), "--name: expected a campaign name"),
        (("--kind", "definition", "--name", "a\nb"), "--name: expected a campaign name"),
        (("--kind", "definition", "--name", "x" * 101), "--name: expected a campaign name"),
        (("--kind", "definition", "--strata", ","), "--strata: expected comma-separated names, got"),
        (("--kind", "definition", "--strata", " "), "--strata: expected comma-separated names, got"),
        (("--kind", "definition", "--strata", "player_model,"), "got 'player_model,'"),
        (("--kind", "definition", "--strata", "player_model,,kind"), "--strata: expected comma-separated"),
        (("--kind", "definition", "--strata", "player_model,player_model"), "player_model' twice"),
        (("--kind", "definition", "--raters", "a,,b"), "--raters: expected comma-separated names"),
    ],
)
def test_plan_errors_are_one_line(run_cli, items, tmp_path, extra, fragment):
    code, out, err = _plan(run_cli, items, tmp_path / "camp", *extra)
    assert code == 2 and out == "" and err.count("\n") == 1 and fragment in err, err
    assert not (tmp_path / "camp").exists()


@pytest.mark.parametrize("name", ["deck-7 pilot", "été_2026", "v1.2"])
def test_plan_takes_names_safe_as_files_and_projects(run_cli, items, tmp_path, name):
    code, out, err = _plan(run_cli, items, tmp_path / "camp", "--kind", "definition", "--name", name)
    assert code == 0, err
    assert json.loads(out)["campaign"] == name


def test_plan_refuses_an_unsafe_default_name(run_cli, items, tmp_path):
    """Without --name the --out folder's name is the campaign's; one unsafe as a name says so."""
    code, out, err = _plan(run_cli, items, tmp_path / "camp:1", "--kind", "definition")
    assert (
        code == 2 and out == "" and "--name: " in err and "camp:1" in err and "give one with `--name`" in err
    )
    assert not (tmp_path / "camp:1").exists()


def test_honeypot_without_answer_names_its_line(run_cli, items, tmp_path):
    hp = pd.DataFrame(
        {"item_id": ["h1", "h2"], "game": "balderdash", "kind": "definition", "gold": ["true", ""]}
    )
    hp.to_csv(tmp_path / "hp.csv", index=False)
    code, _out, err = _plan(
        run_cli,
        items,
        tmp_path / "camp",
        "--kind",
        "definition",
        "--honeypots",
        str(tmp_path / "hp.csv"),
        "--honeypot-rate",
        "0.1",
    )
    assert code == 2 and f"{tmp_path / 'hp.csv'} line 3: honeypot has no answer" in err


def test_same_seed_same_manifest(run_cli, items, tmp_path):
    for name in ("one", "two"):
        code, _o, err = _plan(
            run_cli, items, tmp_path / name, "--kind", "definition", "--seed", "5", "--name", "x"
        )
        assert code == 0, err
    one = json.loads((tmp_path / "one" / "manifest.json").read_text())
    two = json.loads((tmp_path / "two" / "manifest.json").read_text())
    assert one == two


def test_task_files_of_raters_whose_names_clash_stay_apart(run_cli, items, tmp_path):
    # 'a/b' and 'a?b' both sanitise to 'a_b'; 'Ann' and 'ann' clash on case-insensitive disks
    extra = ("--kind", "definition", "--raters", "a/b,a?b,Ann,ann", "--overlap", "1")  # last --raters wins
    code, _o, err = _plan(run_cli, items, tmp_path / "camp", *extra)
    assert code == 0, err
    code, out, err = run_cli(
        "annotate", "export-files", str(tmp_path / "camp"), "--out", str(tmp_path / "files"), "--json"
    )
    assert code == 0, err
    files = [f for f in json.loads(out)["files"] if f != "config.xml"]
    assert len(files) == 4 and len({f.lower() for f in files}) == 4
    # every item planned (--n 12) reaches exactly one rater (overlap 1): no file overwrote another
    shown = [t["data"]["uid"] for f in files for t in json.loads((tmp_path / "files" / f).read_text())]
    assert len(shown) == len(set(shown)) == 12


# --- rater names; another campaign in --out -------------------------------------------------------


def test_plan_refuses_a_rater_name_holding_equals(tmp_path, run_cli):
    campaigns.population().to_csv(tmp_path / "items.csv", index=False)
    code, out, err = run_cli(
        "annotate",
        "plan",
        str(tmp_path / "items.csv"),
        "--n",
        "4",
        "--raters",
        "ann,b=c",
        "--out",
        str(tmp_path / "c"),
    )
    _one_line_error(code, out, err, "--raters: 'b=c' holds '=' (an export is named RATER=FILE)")
    assert not (tmp_path / "c").exists()


def test_plan_does_not_replace_another_campaign(tmp_path, run_cli, tree_digest):
    """`annotate plan --out camp` over a campaign with another sample (here another seed) used to
    replace it, draws and all, exit 0; the same plan again is still allowed (idempotent)."""
    items = [{"item_id": f"d{i}", "game": "balderdash", "kind": "definition", "context": "w",
              "reference": "r", "candidate": f"c{i}"} for i in range(30)]  # fmt: skip
    path = write_csv(tmp_path / "items.csv", items)
    args = ["annotate", "plan", path, "--n", "10", "--raters", "ann,bob", "--out", str(tmp_path / "camp")]
    assert run_cli(*args)[0] == 0
    before = tree_digest(tmp_path / "camp")
    code, out, err = run_cli(*args)  # the same campaign: replaced by an identical one
    assert code == 0, err
    code, out, err = run_cli(*args, "--seed", "5")  # 10 of 30 items: another draw
    _one_line_error(code, out, err, "holds campaign 'camp' with another sample")
    assert tree_digest(tmp_path / "camp") == before
