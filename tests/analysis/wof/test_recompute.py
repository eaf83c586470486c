"""Win rates under people's labels: hand-worked example, McNemar, and the simulated loop."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest
from scipy.stats import binomtest

from wordplay_audit.analysis.correction import NO_LABEL, TOO_FEW
from wordplay_audit.analysis.wof.recompute import recompute_wins
from wordplay_audit.errors import ParameterError

RIDDLES = [f"R{i}" for i in range(10)]


def _items_and_judge():
    """Model a wins r0, r1 exactly; model b wins r0, r2, r3, r4; both play r0…r9."""
    wins = {"a": {"R0", "R1"}, "b": {"R0", "R2", "R3", "R4"}}
    items, judge = [], []
    for model in ("a", "b"):
        for k, riddle in enumerate(RIDDLES):
            item = f"wof:{model}:{k}"
            items.append(
                {"item_id": item, "game": "wof", "kind": "guess", "reference": riddle, "player_model": model}
            )
            judge.append(
                {
                    "item_id": item,
                    "rater": "wof-exact-match",
                    "rater_type": "judge",
                    "label": "true" if riddle in wins[model] else "false",
                }
            )
    return pd.DataFrame(items), pd.DataFrame(judge)


def _people():
    """People label four of a's losses: r5, r6 equivalent (near misses), r7, r8 not."""
    return pd.DataFrame(
        {
            "item_id": ["wof:a:5", "wof:a:6", "wof:a:7", "wof:a:8"],
            "rater": "ann",
            "rater_type": "human",
            "label": ["true", "true", "false", "false"],
        }
    )


@pytest.fixture(scope="module")
def result():
    items, judge = _items_and_judge()
    return recompute_wins(items, judge, _people(), seed=0)


def test_rates_by_hand(result):
    a = result.rates.set_index("model").loc["a"]
    assert a["judge"] == pytest.approx(0.2)
    assert a["replaced"] == pytest.approx((2 + 2) / 10)  # two exact wins + two labelled near misses
    # Se = A/(A+B): judge-true stratum N=2, q=1 (exact matches); judge-false N=8, q=2/4
    assert a["se"] == pytest.approx(2 / (2 + 8 * 0.5)) and a["sp"] == pytest.approx(1.0)
    # corrected: labelled 2 + 2 true; the 4 unlabelled losses at their verdict's share q = 2/4
    assert a["corrected"] == pytest.approx((4 + 4 * 0.5) / 10)
    # the 4 labelled losses are fewer than MIN_LABELS (5): no interval, and the reason
    assert math.isnan(a["corrected_low"]) and math.isnan(a["corrected_high"])
    assert a["corrected_reason"] == TOO_FEW.format(k=5)
    assert result.skipped["exact_taken_true"] == 2 + 4


def test_unlabelled_model_stays_unknown(result):
    b = result.rates.set_index("model").loc["b"]
    assert b["replaced"] == pytest.approx(0.4) and b["judge"] == pytest.approx(0.4)
    assert math.isnan(b["corrected"]) and b["corrected_reason"] == NO_LABEL  # no label among b's losses


def test_audit_by_hand(result):
    a = result.audit.set_index("player_model").loc["a"]
    assert (a["tp"], a["fn"], a["fp"], a["tn"]) == (2, 2, 0, 2)
    assert a["fnr"] == pytest.approx(0.5) and a["fnr_w"] == pytest.approx(2 / 3)


def test_mcnemar_by_hand(result):
    tests = result.mcnemar.set_index("labels")
    judge = tests.loc["judge"]
    assert (judge["both"], judge["a_only"], judge["b_only"], judge["neither"]) == (1, 1, 3, 5)
    assert judge["p_value"] == pytest.approx(binomtest(1, 4, 0.5).pvalue)  # = 2 (1 + 4)/16 = 0.625
    assert judge["p_value"] == pytest.approx(0.625)
    assert judge["difference"] == pytest.approx(-0.2)  # (1 − 3)/10
    assert judge["difference_low"] <= judge["difference"] <= judge["difference_high"]
    replaced = tests.loc["replaced"]  # a also wins r5, r6
    assert (replaced["a_only"], replaced["b_only"]) == (3, 3) and replaced["p_value"] == pytest.approx(1.0)
    assert replaced["difference"] == pytest.approx(0.0)


def test_options_checked():
    items, judge = _items_and_judge()
    with pytest.raises(ParameterError, match="design: expected one of stratified, random"):
        recompute_wins(items, judge, _people(), design="quota", seed=0)


@pytest.mark.slow
def test_the_loop_on_simulated_near_misses(run_cli, tmp_path, wof_dir):
    sim = tmp_path / "sim"
    code, _, err = run_cli(
        "wof",
        "simulate",
        "--out",
        str(sim),
        "--riddles",
        str(wof_dir / "WoF.jsonl"),
        "--policy",
        "frequent-consonant,overconfident",
        "--games",
        "240",
        "--seed",
        "5",
    )
    assert code == 0, err
    code, _, err = run_cli("wof", "metrics", str(sim), "--out", str(tmp_path / "m"))
    assert code == 0, err
    items = pd.read_csv(tmp_path / "m" / "items.csv", keep_default_na=False)
    truth = pd.read_csv(sim / "truth.csv", keep_default_na=False).set_index("item_id")
    # scripted raters: two people label a random half of the lost games, by the simulation's truth
    lost = items[items["outcome"] != "win"].sample(frac=0.5, random_state=0)
    verdict = np.where(truth.loc[lost["item_id"], "truly_solved"], "yes", "no")
    labels = pd.concat(
        [
            pd.DataFrame({"item_id": lost["item_id"], "rater": r, "rater_type": "human", "label": verdict})
            for r in ("ann", "bob")
        ]
    )
    labels.to_csv(tmp_path / "labels.csv", index=False)
    code, out, err = run_cli(
        "wof", "recompute", "--seed", "0", str(sim), "--human", str(tmp_path / "labels.csv"), "--json"
    )
    assert code == 0, err
    payload = json.loads(out)
    audit = {a["player_model"]: a for a in payload["judge_audit"]}
    assert audit["overconfident"]["fnr_w"] > 0 and audit["overconfident"]["fn"] > 0
    assert audit["frequent-consonant"]["fn"] == 0
    rates = {r["model"]: r for r in payload["win_rates"]}
    true_rate = truth.groupby("player_model")["truly_solved"].mean()["overconfident"]
    r = rates["overconfident"]
    assert abs(r["corrected"] - true_rate) < abs(r["judge"] - true_rate)
    assert r["corrected_low"] <= r["corrected"] <= r["corrected_high"]
    assert abs(r["replaced"] - true_rate) < abs(r["judge"] - true_rate)
    tests = {t["labels"]: t for t in payload["mcnemar"]}
    assert abs(tests["replaced"]["difference"]) > abs(tests["judge"]["difference"])


def test_cli_recompute_bad_labels(run_cli, tmp_path):
    from tests.support.wof_logs import write_logs

    logs = write_logs(tmp_path / "logs")
    bad = tmp_path / "labels.csv"
    bad.write_text(
        "item_id,rater,rater_type,label\nwof:alpha:4,ann,human,true\nwof:gamma:0,ann,human,true\n",
        encoding="utf-8",
    )
    code, out, err = run_cli("wof", "recompute", "--seed", "0", str(logs), "--human", str(bad))
    assert code == 2 and err.count("\n") == 1 and f"{bad} line 3:" in err and "wof:gamma:0" in err
    judge_only = tmp_path / "judge.csv"
    judge_only.write_text("item_id,rater,rater_type,label\nwof:alpha:4,x,judge,true\n", encoding="utf-8")
    code, out, err = run_cli("wof", "recompute", "--seed", "0", str(logs), "--human", str(judge_only))
    assert code == 2 and "holds no people's labels" in err
    code, out, err = run_cli(
        "wof", "recompute", "--seed", "0", str(logs), "--human", str(bad), "--design", "quota"
    )
    assert code == 2 and "--design: expected one of stratified, random" in err
    maybe = tmp_path / "maybe.csv"
    maybe.write_text("item_id,rater,rater_type,label\nwof:alpha:4,ann,human,maybe\n", encoding="utf-8")
    code, out, err = run_cli("wof", "recompute", "--seed", "0", str(logs), "--human", str(maybe))
    assert code == 2 and f"{maybe} line 2:" in err


def test_completion_at_win_under_both_labelings():
    items, judge = _items_and_judge()
    shown = {"wof:a:0": 50.0, "wof:a:1": 100.0, "wof:a:5": 30.0, "wof:a:6": 70.0}
    completion = pd.Series({i: shown.get(i, 10.0) for i in items["item_id"]})
    rates = recompute_wins(items, judge, _people(), completion=completion, seed=0).rates.set_index("model")
    assert rates.loc["a", "completion_judge"] == pytest.approx((50 + 100) / 2)  # exact wins r0, r1
    assert rates.loc["a", "completion_replaced"] == pytest.approx((50 + 100 + 30 + 70) / 4)  # + r5, r6
    assert rates.loc["b", "completion_replaced"] == pytest.approx(10.0)


def test_paired_bootstrap_against_wald_and_resampled_pairs():
    from wordplay_audit.analysis.wof.recompute import paired_bootstrap

    table = [[10, 30], [10, 50]]  # n = 100, difference (30 − 10)/100 = 0.2
    low, high = paired_bootstrap(table, confidence=0.95, n_resamples=20000, seed=1)
    # Wald interval of a paired difference: d ± z √(((b + c)/n − d²)/n) = 0.2 ± 1.96·0.06
    se = math.sqrt(((30 + 10) / 100 - 0.2**2) / 100)
    assert low == pytest.approx(0.2 - 1.959964 * se, abs=0.012)
    assert high == pytest.approx(0.2 + 1.959964 * se, abs=0.012)
    # the same as resampling the 100 pairs themselves
    rng = np.random.default_rng(2)
    a = np.array([1] * 10 + [1] * 30 + [0] * 10 + [0] * 50)
    b = np.array([1] * 10 + [0] * 30 + [1] * 10 + [0] * 50)
    idx = rng.integers(0, 100, size=(20000, 100))
    diffs = a[idx].mean(axis=1) - b[idx].mean(axis=1)
    assert low == pytest.approx(np.quantile(diffs, 0.025), abs=0.012)
    assert high == pytest.approx(np.quantile(diffs, 0.975), abs=0.012)
