"""The ``balderdash`` command group end to end on a simulated export, and on malformed input."""

from __future__ import annotations

import json

import pytest

from tests.support import bad_inputs
from tests.support import balderdash_export as bd
from wordplay_audit.analysis.report import Report
from wordplay_audit.workflow.demo_parts import balderdash_part as run_demo_part


@pytest.fixture(scope="module")
def export_dir(tmp_path_factory):
    from wordplay_audit.corpora.balderdash.simulate import SimConfig
    from wordplay_audit.corpora.balderdash.writer import simulate_to_folder

    folder = tmp_path_factory.mktemp("bd")
    simulate_to_folder(folder, seed=2, config=SimConfig(games_per_deck=2, n_rounds=8, labels_per_stratum=8))
    return folder


def test_metrics_json(run_cli, export_dir):
    code, out, err = run_cli("balderdash", "metrics", str(export_dir), "--json")
    assert code == 0, err
    data = json.loads(out)
    assert {"settings", "games", "rounds", "skipped", "incomplete_games"} <= set(data)
    row = data["settings"][0]
    assert {
        "model",
        "deck",
        "n_games",
        "lkr_mean",
        "lkr_sd",
        "tdr_mean",
        "dr_mean",
        "cgr_mean",
        "as_mean",
    } <= set(row)
    assert row["n_games"] == 2


def test_recompute_json(run_cli, export_dir):
    code, out, err = run_cli(
        "balderdash",
        "recompute",
        "--seed",
        "0",
        str(export_dir),
        "--human",
        str(export_dir / "labels.csv"),
        "--json",
    )
    assert code == 0, err
    data = json.loads(out)
    assert set(data["judge_audit"]) == {"reference", "any_sense"}
    assert {"fnr", "fnr_low", "fnr_high", "f1"} <= set(data["judge_audit"]["reference"][0])
    corrected = data["corrected"]
    assert {r["metric"] for r in corrected} == {"lkr", "tdr"}
    assert any(r["rg_low"] is not None for r in corrected) and any(
        r["ppi_low"] is not None for r in corrected
    )
    for r in corrected:
        if r["rg_low"] is not None:
            assert r["rg_low"] <= r["rg"] <= r["rg_high"] and r["rg_reason"] is None
        if r["ppi_low"] is not None:
            assert r["ppi_low"] <= r["ppi"] <= r["ppi_high"] and r["ppi_reason"] is None


def test_convergence_json(run_cli, export_dir):
    code, out, err = run_cli(
        "balderdash",
        "convergence",
        str(export_dir),
        "--eps",
        "0.1,0.3",
        "--json",
        "--assume-se",
        "0.74",
        "--assume-sp",
        "0.97",
    )
    assert code == 0, err
    rows = json.loads(out)["convergence"]
    assert {r["eps"] for r in rows} == {0.1, 0.3}
    # with assumed Se .74, every ε with 1 − ε ≥ .74 is unreachable on judge labels
    assert all(r["judge_unreachable"] == (1 - r["eps"] >= 0.74) for r in rows)


def test_trend_json(run_cli, export_dir):
    code, out, err = run_cli("balderdash", "trend", str(export_dir), "--json")
    assert code == 0, err
    rows = json.loads(out)["trend"]
    # judge labels only: one row per outcome × model × history type (+ pooled rows per model)
    assert {r["labels"] for r in rows} == {"judge"}
    assert {r["outcome"] for r in rows} == {"knows", "true_def"}
    for r in rows:
        assert r["games"] >= 1
        if r["gee_p_t"] is not None:
            assert 0 <= r["gee_p_t"] <= 1 and r["gee_ci_low"] <= r["slope"] <= r["gee_ci_high"]


@pytest.mark.slow
def test_trend_with_people_adds_replaced_rows_and_drift(run_cli, export_dir):
    code, out, err = run_cli(
        "balderdash", "trend", str(export_dir), "--human", str(export_dir / "labels.csv"), "--json"
    )
    assert code == 0, err
    data = json.loads(out)
    assert {r["labels"] for r in data["trend"]} == {"judge", "replaced"}
    assert set(data["drift"]) == {"knows", "true_def"}


def test_plan_json(run_cli):
    code, out, err = run_cli("balderdash", "plan", "--fnr", "0.26", "--fnr-halfwidth", "0.05", "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["fnr"]["true_definitions"] > 0
    assert 0.3 < data["trend_power"]["power"] < 0.6 and data["trend_power"]["games"] == 5


def test_simulate_writes_an_export(run_cli, tmp_path):
    code, out, err = run_cli(
        "balderdash",
        "simulate",
        "--out",
        str(tmp_path),
        "--seed",
        "1",
        "--games-per-deck",
        "1",
        "--rounds",
        "3",
        "--json",
    )
    assert code == 0, err
    assert {p.name for p in tmp_path.iterdir()} >= {
        "games.jsonl",
        "players.jsonl",
        "rounds.jsonl",
        "labels.csv",
        "truth.csv",
    }


@pytest.mark.parametrize(
    "args",
    [("metrics", "/nonexistent/folder"), ("convergence", "EXPORT", "--eps", "abc"), ("plan", "--fnr", "1.5")],
)
def test_bad_input_exits_2_with_one_line(run_cli, export_dir, args):
    args = [str(export_dir) if a == "EXPORT" else a for a in args]
    code, out, err = run_cli("balderdash", *args)
    assert code == 2 and err.startswith("error: ") and err.strip().count("\n") == 0


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--eps", ""], "--eps: no value"),  # was a traceback ("No objects to concatenate")
        (["--eps", " , "], "--eps: no value"),
        (["--window", "0"], "--window: expected a whole number of rounds ≥ 1"),  # said "window"
        (["--window", "-1"], "--window:"),
        (["--design", "stratifed"], "--design: expected one of stratified, random"),  # said "design"
    ],
)
def test_convergence_options_refused_under_their_own_name(run_cli, export_dir, args, needle):
    code, out, err = run_cli("balderdash", "convergence", str(export_dir), *args)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and needle in err


def test_convergence_refuses_assumed_accuracy_with_human_labels(run_cli, export_dir):
    """--assume-se/--assume-sp were ignored without a word when --human was given (the labels'
    Se/Sp were used); now it is an error naming both options, as `wof metrics --riddles` without
    --out is."""
    for extra in (["--assume-se", "0.9", "--assume-sp", "0.9"], ["--assume-sp", "0.5"]):
        code, out, err = run_cli(
            "balderdash", "convergence", str(export_dir), "--human", str(export_dir / "labels.csv"), *extra
        )
        assert code == 2 and out == "" and err.count("\n") == 1
        assert err.startswith("error: --assume-se, --assume-sp: used only without human labels"), err


@pytest.mark.parametrize(
    ("extra", "needle"),
    [
        (["--assume-se", "0.9"], "--assume-se, --assume-sp: give both or neither"),
        (
            ["--assume-se", "1.5", "--assume-sp", "0.9"],
            "--assume-se: expected a number in [0.0, 1.0], got 1.5",
        ),
        (["--assume-se", "0.9", "--assume-sp", "nan"], "--assume-sp: expected a finite number, got nan"),
    ],
)
def test_convergence_assumed_accuracy_checked_first(run_cli, extra, needle, tmp_path):
    """Checked before the export is read (a missing export is not what is reported)."""
    code, out, err = run_cli("balderdash", "convergence", str(tmp_path / "absent"), *extra)
    assert code == 2 and out == "" and err == f"error: {needle}\n"


@pytest.mark.slow
def test_convergence_window_longer_than_the_rounds_says_so(run_cli, export_dir):
    """The export has 8 rounds per setting: --window 500 used to be reported as a 500-round
    window; now the window's verdict is null with the reason, in JSON and in the text."""
    args = [
        "balderdash",
        "convergence",
        str(export_dir),
        "--eps",
        "0.1",
        "--assume-se",
        "0.8",
        "--assume-sp",
        "0.9",
    ]
    code, out, err = run_cli(*args, "--window", "500", "--json")
    assert code == 0, err
    rows = json.loads(out)["convergence"]
    for r in rows:
        assert r["converged_window"] is None and r["window_lower"] is None and r["window_estimate"] is None
        assert (
            r["converged_window_reason"] == "window of 500 rounds is longer than the 8 rounds of this setting"
        )
    code, out, err = run_cli(*args, "--window", "500")
    assert code == 0, err
    assert (
        f"converged_window undetermined in {len(rows)} rows: window of 500 rounds is longer than the 8" in out
    )
    code, out, err = run_cli(*args, "--window", "8", "--json")
    assert code == 0, err
    assert all(r["converged_window"] is not None for r in json.loads(out)["convergence"])


def test_simulate_design_refused_under_its_own_name(run_cli, tmp_path):
    code, out, err = run_cli("balderdash", "simulate", "--out", str(tmp_path / "s"), "--design", "")
    assert code == 2 and out == "" and not (tmp_path / "s").exists()
    assert err == "error: --design: expected one of stratified, random; got ''\n"  # said "design must be"


def test_labels_naming_unknown_items(run_cli, export_dir, tmp_path):
    bad = tmp_path / "labels.csv"
    bad.write_text("item_id,rater,rater_type,label\nbd:99:1:1,r1,human,true\n", encoding="utf-8")
    code, _, err = run_cli("balderdash", "recompute", "--seed", "0", str(export_dir), "--human", str(bad))
    assert code == 2 and "line 2" in err and "names no definition" in err


@pytest.mark.slow
def test_demo_part(tmp_path):
    summary, section = run_demo_part(tmp_path, seed=1)
    assert summary["omniscient_true_lkr"] == 1.0
    assert summary["omniscient_judge_lkr"] < 0.9
    report = Report("demo")
    report.add(section)
    assert "Convergence" in report.render()


def _reference_only(export_dir, tmp_path):
    import pandas as pd

    labels = pd.read_csv(export_dir / "labels.csv")
    path = tmp_path / "reference.csv"
    labels[labels["question"] == "reference"].to_csv(path, index=False)
    return path


def test_convergence_json_reference_only_says_cannot_tell(run_cli, export_dir, tmp_path):
    path = _reference_only(export_dir, tmp_path)
    code, out, err = run_cli("balderdash", "convergence", str(export_dir), "--human", str(path), "--json")
    assert code == 0, err
    rows = json.loads(out)["convergence"]
    for r in rows:
        # every verdict and number that needs the judge's LKR accuracy is null, with a reason
        for column in ("converged_corrected", "judge_unreachable", "converged_window"):
            assert r[column] is None and "needs any_sense labels" in r[f"{column}_reason"]
        for column in ("T_corrected", "tau", "se", "sp", "window_lower", "window_estimate"):
            assert r[column] is None
        assert isinstance(r["converged_judge"], bool) and r["converged_judge_reason"] is None


def test_recompute_json_reference_only_has_no_pooled_flags_for_lkr(run_cli, export_dir, tmp_path):
    path = _reference_only(export_dir, tmp_path)
    code, out, err = run_cli(
        "balderdash", "recompute", "--seed", "0", str(export_dir), "--human", str(path), "--json"
    )
    assert code == 0, err
    data = json.loads(out)
    assert set(data["judge_audit"]) == {"reference"}
    for r in data["corrected"]:
        if r["metric"] == "lkr":
            assert r["ppi_pooled"] is None and r["accuracy_pooled"] is None
            assert r["rg_reason"] == r["ppi_reason"] == "needs any_sense labels"
        else:
            assert isinstance(r["accuracy_pooled"], bool) and r["rg"] is not None
    assert (
        "replaced" not in data["corrected"][0]
        and data["replaced_rates"]
        and "biased" in data["replaced_note"]
    )


def test_recompute_text_leads_with_the_reweighted_fnr_interval(run_cli, export_dir):
    code, out, err = run_cli(
        "balderdash", "recompute", "--seed", "0", str(export_dir), "--human", str(export_dir / "labels.csv")
    )
    assert code == 0, err
    code, js, err = run_cli(
        "balderdash",
        "recompute",
        "--seed",
        "0",
        str(export_dir),
        "--human",
        str(export_dir / "labels.csv"),
        "--json",
    )
    audit = json.loads(js)["judge_audit"]["reference"]
    lines = out.splitlines()
    head = next(
        i for i, line in enumerate(lines) if line.startswith("judge accuracy (reference), re-weighted")
    )
    raw = next(i for i, line in enumerate(lines) if "raw, on the labelled items only (reference" in line)
    assert head < raw  # the re-weighted table comes first
    header = lines[head + 1].split()
    assert header[:6] == ["player_model", "n_labelled", "recall_w", "fnr_w", "fnr_w_low", "fnr_w_high"]
    for r in audit:
        row = next(line.split() for line in lines[head + 2 : raw] if line.split()[0] == r["player_model"])
        assert [float(v) for v in row[3:6]] == pytest.approx(
            [r["fnr_w"], r["fnr_w_low"], r["fnr_w_high"]], abs=5e-4
        )
        assert r["fnr_w_low"] < r["fnr_w"] < r["fnr_w_high"]


def test_commands_read_with_arrow_on_malloc_unless_the_environment_says_otherwise(monkeypatch):
    """Arrow's pool is switched to the system allocator (what numpy uses) for the reading
    commands, and left alone when ``ARROW_DEFAULT_MEMORY_POOL`` names one."""
    import pyarrow as pa

    from wordplay_audit.cli.memory import arrow_on_malloc

    chosen = []
    monkeypatch.setattr(pa, "set_memory_pool", chosen.append)
    monkeypatch.delenv("ARROW_DEFAULT_MEMORY_POOL", raising=False)
    arrow_on_malloc()
    assert [pool.backend_name for pool in chosen] == ["system"]
    monkeypatch.setenv("ARROW_DEFAULT_MEMORY_POOL", "jemalloc")
    arrow_on_malloc()
    assert len(chosen) == 1


def test_heap_trim_after_reading_is_skipped_without_glibc(monkeypatch):
    import ctypes

    from wordplay_audit.cli.memory import trim_heap

    trim_heap()  # glibc here: hands freed memory back, returns nothing

    def no_library(*args, **kwargs):
        raise OSError("no C library of that name")

    monkeypatch.setattr(ctypes, "CDLL", no_library)
    assert trim_heap() is None


@pytest.mark.slow
def test_convergence_borrows_the_decks_accuracy_only_when_assumed(run_cli, export_dir):
    """8 labels per model × deck × verdict over 8 rounds: a window of 3 rounds holds fewer than 5
    own labels per post-stratum. Without --assume-constant-accuracy it has no bound (null, with
    the reason) and T_corrected is unknown; with it the window borrows its deck's Se and Sp."""
    base = ["balderdash", "convergence", str(export_dir), "--human", str(export_dir / "labels.csv")]
    base += ["--eps", "0.2", "--window", "3", "--json"]
    code, out, err = run_cli(*base)
    assert code == 0, err
    data = json.loads(out)
    assert data["assume_constant_accuracy"] is False
    for r in data["convergence"]:
        assert r["window_estimate"] is None and r["window_basis"] is None and r["converged_window"] is None
        assert "assuming the judge as accurate here" in r["converged_window_reason"]
        assert r["T_corrected"] is None and "T_corrected unknown" in r["converged_corrected_reason"]
    code, out, err = run_cli(*base, "--assume-constant-accuracy")
    assert code == 0, err
    data = json.loads(out)
    assert data["assume_constant_accuracy"] is True
    rows = data["convergence"]
    assert all(r["window_basis"] == "stratum" and r["window_estimate"] is not None for r in rows)
    assert not any("T_corrected unknown" in r["converged_corrected_reason"] for r in rows)
    code, out, err = run_cli(*base[:-1])  # the text output names the reason too
    assert code == 0 and "assuming the judge as accurate here" in out, err


def test_recompute_names_the_file_line_of_a_repeated_rating(run_cli, export_dir, tmp_path):
    """A rater's second rating of an item (here without a question column) is named at its own
    file line: line 5 (header line 1, then a, b, a judge row, a again). It used to say line 1
    (the index was reset after the judge rows were dropped) and, with several repeated pairs,
    the line of another pair's first rating."""
    ids = [r.split(",")[0] for r in (export_dir / "labels.csv").read_text().splitlines()[1:3]]
    a, b = ids if ids[0] != ids[1] else (ids[0], "bd:1:1:3")
    rows = [f"{a},r1,human,true", f"{b},r1,human,true", f"{b},j,judge,true", f"{a},r1,human,false",
            f"{b},r1,human,false"]  # fmt: skip
    path = tmp_path / "twice.csv"
    path.write_text("item_id,rater,rater_type,label\n" + "\n".join(rows) + "\n")
    code, out, err = run_cli("balderdash", "recompute", "--seed", "0", str(export_dir), "--human", str(path))
    assert code == 2 and out == ""
    assert err == (
        f"error: {path} line 5: rater 'r1' rated item {a!r} twice (keep one rating per rater and item; "
        "filter by 'question' first if an item was asked several questions)\n"
    )


def test_recompute_counts_the_judge_rows_it_leaves_out(run_cli, export_dir, tmp_path):
    """Rows with rater_type judge in the --human file are not people's labels: left out, and
    counted (3 added here by hand), in JSON and in the text."""
    text = (export_dir / "labels.csv").read_text()
    header, first = text.splitlines()[:2]
    judge = first.replace(",human,", ",judge,").replace(first.split(",")[1], "the-judge", 1)
    assert ",judge," in judge
    path = tmp_path / "with_judge.csv"
    path.write_text(text + "\n".join(judge.replace(first.split(",")[0], i, 1) for i in _ids(text, 3)) + "\n")
    base = ["balderdash", "recompute", "--seed", "0", str(export_dir), "--human", str(path)]
    code, out, err = run_cli(*base, "--json")
    assert code == 0, err
    assert json.loads(out)["skipped"]["judge_rows_in_human_file"] == 3
    code, out, err = run_cli(*base)
    assert code == 0 and "left out 3 judge row(s) of the human labels (people's labels only)" in out, err
    code, out, err = run_cli(
        "balderdash",
        "recompute",
        "--seed",
        "0",
        str(export_dir),
        "--human",
        str(export_dir / "labels.csv"),
        "--json",
    )
    assert json.loads(out)["skipped"]["judge_rows_in_human_file"] == 0


def _ids(text: str, k: int) -> list[str]:
    return list(dict.fromkeys(r.split(",")[0] for r in text.splitlines()[1:]))[:k]


def test_text_output_says_which_intervals_count_definitions_as_unknown():
    import pandas as pd

    from wordplay_audit.workflow.balderdash_recompute import reason_lines

    corrected = pd.DataFrame({"metric": ["tdr", "tdr", "lkr"], "model": ["m1", "m2", "m1"], "deck": ["a", "a", "b"],
                              "rg_reason": [None, None, "needs any_sense labels"], "ppi_reason": [None] * 3,
                              "rg_unknown": [4.0, 0.0, float("nan")], "ppi_unknown": [2.0, 0.0, float("nan")]})  # fmt: skip
    lines = reason_lines(corrected)
    assert lines[0] == "  rg not shown for lkr/m1/b: needs any_sense labels"
    assert len(lines) == 3
    assert lines[1].startswith("  rg interval of tdr/m1/a counts 4 definition(s) as unknown")
    assert lines[2].startswith("  ppi interval of tdr/m1/a counts 2 definition(s) as unknown")


# --- labels without human rows --------------------------------------------------------------------


@pytest.mark.parametrize("command", ["convergence", "trend"])  # recompute refused already
def test_a_labels_file_without_human_rows_is_refused(run_cli, tmp_path, command):
    folder = bd.write(tmp_path / "e", bd.documents())
    labels = tmp_path / "judge_only.csv"
    labels.write_text(
        "item_id,rater,rater_type,label,question\nbd:7:1:11,judge-x,judge,true,any_sense\n",
        encoding="utf-8",
    )
    code, out, err = run_cli("balderdash", command, str(folder), "--human", str(labels), "--json")
    assert code == 2 and out == ""
    assert err.strip() == f"error: {labels}: holds no human labels (rater_type 'human')"


# --- malformed input: one line, exit 2, the output folder as it was (tests/support/bad_inputs.py) ---


@pytest.mark.parametrize(
    ("command", "slot", "kind"), bad_inputs.malformed_cases("balderdash"), ids=bad_inputs.case_id
)
def test_malformed_input_gives_one_line_and_exit_2(good, tmp_path, in_tmp, command, slot, kind, tree_digest):
    bad_inputs.check_malformed_input(good, tmp_path, in_tmp, command, slot, kind, tree_digest)


@pytest.mark.parametrize("args", bad_inputs.bad_parameters("balderdash"), ids=bad_inputs.parameters_id)
def test_bad_parameters_give_one_line_and_exit_2(good, tmp_path, in_tmp, args, tree_digest):
    bad_inputs.check_bad_parameters(good, tmp_path, in_tmp, args, tree_digest)


@pytest.mark.parametrize(
    ("command", "build", "kind", "slot"),
    bad_inputs.other_cases("balderdash"),
    ids=bad_inputs.other_case_ids("balderdash"),
)
def test_every_other_command_on_malformed_input(
    more_good, tmp_path, in_tmp, monkeypatch, tree_digest, command, build, kind, slot
):
    bad_inputs.check_other_command(more_good, tmp_path, in_tmp, monkeypatch, tree_digest, build, kind, slot)


@pytest.mark.parametrize("command", bad_inputs.good_runs("balderdash"))
def test_the_table_breaks_only_the_input(more_good, good, tmp_path, in_tmp, monkeypatch, command):
    bad_inputs.check_good_run(more_good, good, tmp_path, in_tmp, monkeypatch, command)


@pytest.mark.parametrize(
    "command", bad_inputs.folder_for_file("balderdash"), ids=lambda c: c.replace(" ", "-")
)
def test_a_folder_where_a_file_is_expected_is_named_as_a_folder(
    more_good, good, tmp_path, in_tmp, monkeypatch, tree_digest, command
):
    bad_inputs.check_folder_for_file(more_good, good, tmp_path, in_tmp, monkeypatch, tree_digest, command)
