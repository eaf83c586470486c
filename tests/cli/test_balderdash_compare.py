"""``balderdash compare``, ``self-preference`` and ``rankings`` end to end on a simulated export of
two settings (``correct_definition_points`` 0 and 50), and their errors."""

from __future__ import annotations

import json

import pytest

import wordplay_audit as wa
from wordplay_audit.corpora.balderdash.settings_sim import simulate_settings
from wordplay_audit.corpora.balderdash.simulate import SimConfig
from wordplay_audit.corpora.balderdash.writer import write_campaign

SHIFTED = {"gpt-4o-mini": {"basic_english_words": 0.95, "balderdash_words": 0.55}}


@pytest.fixture(scope="module")
def export_dir(tmp_path_factory):
    folder = tmp_path_factory.mktemp("bd_settings")
    configs = [SimConfig(correct_definition_points=0, judge_model="llama-3-8b"),
               SimConfig(correct_definition_points=50, judge_model="llama-3-8b", know=SHIFTED)]  # fmt: skip
    write_campaign(simulate_settings(configs, seed=3), folder)
    return folder


def test_compare_json_and_text(run_cli, export_dir):
    human = str(export_dir / "labels.csv")
    code, out, err = run_cli("balderdash", "compare", str(export_dir), "--human", human,
                             "--by", "correct_definition_points", "--json")  # fmt: skip
    assert code == 0, err
    data = json.loads(out)
    assert data["by"] == "correct_definition_points" and data["metric"] == "tdr"
    assert "Holm" in data["multiplicity"] and len(data["differences"]) == 3
    row = next(r for r in data["differences"] if r["model"] == "gpt-4o-mini")
    assert row["verdict"] == "differs" and row["ci_low"] > 0
    code, out, err = run_cli("balderdash", "compare", str(export_dir), "--human", human, "--by", "deck",
                             "--metric", "lkr")  # fmt: skip
    assert code == 0, err
    assert "LKR by deck" in out and "Holm's step-down adjustment over the 3 differences" in out


def test_self_preference_reads_the_judge_from_the_export(run_cli, export_dir):
    code, out, err = run_cli("balderdash", "self-preference", str(export_dir), "--human",
                             str(export_dir / "labels.csv"), "--json")  # fmt: skip
    assert code == 0, err
    data = json.loads(out)
    assert data["judge_model"] == "llama-3-8b"
    assert [r["rate"] for r in data["self_preference"]] == ["sensitivity", "specificity"]


def test_rankings_text(run_cli, export_dir):
    code, out, err = run_cli("balderdash", "rankings", str(export_dir), "--human", str(export_dir / "labels.csv"),
                             "--by", "correct_definition_points")  # fmt: skip
    assert code == 0, err
    assert "could be first (50): gpt-4o-mini" in out and "p_rank_3" in out


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["compare", "--by", "players"], "--by"),
        (["compare", "--by", "deck", "--metric", "dr"], "--metric"),
        (["self-preference", "--judge-model", "nobody"], "--judge-model"),
        (["compare", "--by", "history_type"], "holds 1 level of history_type (full)"),
    ],  # fmt: skip
)
def test_bad_options_exit_2_with_one_line(run_cli, export_dir, args, needle):
    code, out, err = run_cli(
        "balderdash", args[0], str(export_dir), "--human", str(export_dir / "labels.csv"), *args[1:]
    )
    assert code == 2 and out == "" and err.startswith("error: ") and err.count("\n") == 1
    assert needle in err


def test_self_preference_needs_a_judge_that_plays(export_dir, tmp_path):
    data = wa.read_balderdash(export_dir, texts=False)
    data.obs["judge_model"] = "judge-llm"
    with pytest.raises(wa.ParameterError, match="^judge_model: the export names the judge judge-llm"):
        wa.balderdash_self_preference(data, wa.read_labels(export_dir / "labels.csv"))


def test_claims_from_results_passed_in(export_dir):
    data = wa.read_balderdash(export_dir, texts=False)
    human = wa.read_labels(export_dir / "labels.csv")
    rule = wa.balderdash_compare(data, human, by="correct_definition_points")
    result = wa.balderdash_claims(compare=[rule], rankings=wa.balderdash_rankings(data, human))
    table = result.to_frame()
    assert result.sources == ["compare by correct_definition_points", "rankings"]
    row = table[table["claim"].str.startswith("rule change")].set_index("subject").loc["gpt-4o-mini"]
    assert row["status"] == "contradicted" and row["verdict"] == "differs"
    assert table["claim"].str.startswith("leaderboard order").sum() == 1
    with pytest.raises(wa.ParameterError, match="^compare: item 0"):
        wa.balderdash_claims(compare=[result])


@pytest.mark.slow
def test_claims_command_runs_every_step_the_export_supports(run_cli, export_dir):
    code, out, err = run_cli(
        "balderdash", "claims", str(export_dir), "--human", str(export_dir / "labels.csv"), "--json"
    )
    assert code == 0, err
    data = json.loads(out)
    claims = {r["claim"].split(" (")[0].split(":")[0] for r in data["claims"]}
    assert {
        "rare vs frequent words",
        "rule change",
        "convergence of LKR",
        "leaderboard order by TDR",
    } <= claims
    assert any(r["claim"].startswith("the judge (llama-3-8b)") for r in data["claims"])
    assert set(data["left_out"]) == {"compare by history_type", "compare by filter_words"}
