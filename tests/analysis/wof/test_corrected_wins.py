"""Wheel of Fortune's corrected win rates through the corrected-metric engine: intervals by
hand (scipy's beta-binomial), both designs, the text output, and the coverage simulation's shape."""

from __future__ import annotations

import math
import zlib

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from wordplay_audit.analysis.correction import NO_LABEL, TOO_FEW
from wordplay_audit.analysis.wof.recompute import recompute_wins


def _bb(u: int, a: int, b: int) -> np.ndarray:
    """BetaBinomial(u, a, b) pmf over 0..u from scipy; a point mass at 0 (a = 0) or u (b = 0)."""
    if a == 0 or b == 0:
        return np.eye(1, u + 1, 0 if a == 0 else u)[0]
    return stats.betabinom.pmf(np.arange(u + 1), u, a, b)


def _pmf(u: int, n: int, x: int, v: float) -> np.ndarray:
    """Predictive of the true games among ``u`` unlabelled from ``x`` of ``n`` labels (Stevens'
    randomised Clopper–Pearson confidence distribution: (1 − v)·Beta(x, n − x + 1) + v·Beta(x + 1, n − x))."""
    return (1 - v) * _bb(u, x, n - x + 1) + v * _bb(u, x + 1, n - x)


def _quantile(pmf: np.ndarray, level: float) -> int:
    return int(np.argmax(np.cumsum(pmf) >= level - 1e-12))


def _v(seed: int, item: str, size: int) -> np.ndarray:
    """The engine's v: numpy's generator seeded by (seed, CRC-32 of the cell's first item id)."""
    return np.random.default_rng([seed, zlib.crc32(item.encode())]).random(size)


def _tables(model: str, exact: list[bool], labels: dict[int, bool]):
    """items, the exact-match verdicts and one person's labels (game index → verdict)."""
    ids = [f"wof:{model}:{g}" for g in range(len(exact))]
    items = pd.DataFrame({"item_id": ids, "game": "wof", "kind": "guess", "player_model": model,
                          "reference": [f"R{g}" for g in range(len(exact))]})  # fmt: skip
    judge = pd.DataFrame({"item_id": ids, "rater": "wof-exact-match", "rater_type": "judge",
                          "label": ["true" if e else "false" for e in exact]})  # fmt: skip
    human = pd.DataFrame({"item_id": [ids[g] for g in labels], "rater": "ann", "rater_type": "human",
                          "label": ["true" if y else "false" for y in labels.values()]})  # fmt: skip
    return items, judge, human


def test_stratified_sample_of_lost_games_by_hand():
    # 12 games: 2 exact wins; 10 losses, people labelled 6 of them (2 near misses), 4 unlabelled
    exact = [True, True] + [False] * 10
    items, judge, human = _tables("a", exact, {2: True, 3: True, 4: False, 5: False, 6: False, 7: False})
    row = recompute_wins(items, judge, human, seed=3).rates.set_index("model").loc["a"]
    # exact matches count as labelled wins: K = 2 + 2; the 4 unlabelled losses at 2/6
    assert row["corrected"] == pytest.approx((4 + 4 * 2 / 6) / 12)
    lo = _quantile(_pmf(4, 6, 2, _v(3, "wof:a:0", 1)[0]), 0.025)
    hi = _quantile(_pmf(4, 6, 2, _v(3, "wof:a:0", 1)[0]), 0.975)
    assert row["corrected_low"] == pytest.approx(min((4 + lo) / 12, row["corrected"]))
    assert row["corrected_high"] == pytest.approx(max((4 + hi) / 12, row["corrected"]))
    assert row["corrected_reason"] is None and row["n_labelled"] == 8
    assert row["judge"] == pytest.approx(2 / 12) and row["replaced"] == pytest.approx(4 / 12)


def test_random_sample_post_stratified_on_the_verdict_by_hand():
    # 20 games, 8 exact wins; a random sample labelled 5 exact wins (all true) and 6 losses (3 true)
    exact = [True] * 8 + [False] * 12
    labels = {
        0: True,
        1: True,
        2: True,
        3: True,
        4: True,
        8: True,
        9: True,
        10: True,
        11: False,
        12: False,
        13: False,
    }
    items, judge, human = _tables("r", exact, labels)
    row = recompute_wins(items, judge, human, design="random", seed=0).rates.set_index("model").loc["r"]
    # K = 8 labelled true; unlabelled: 3 exact wins at 5/5, 6 losses at 3/6
    assert row["corrected"] == pytest.approx((8 + 3 * 5 / 5 + 6 * 3 / 6) / 20)
    v_lost, v_won = _v(0, "wof:r:0", 2)  # one v per verdict with unlabelled games, False first
    # the exact wins' labels are unanimous (all true): their 3 games count all true in the upper
    # bound's convolution and are convolved in the lower one's
    lo = _quantile(np.convolve(_pmf(6, 6, 3, v_lost), _pmf(3, 5, 5, v_won)), 0.025)
    hi = 3 + _quantile(_pmf(6, 6, 3, v_lost), 0.975)
    assert row["corrected_low"] == pytest.approx(min((8 + lo) / 20, row["corrected"]))
    assert row["corrected_high"] == pytest.approx(max((8 + hi) / 20, row["corrected"]))
    # stratified, the 3 unlabelled exact wins are taken as true: only the losses are predicted
    strat = recompute_wins(items, judge, human, seed=0).rates.set_index("model").loc["r"]
    lo, hi = (_quantile(_pmf(6, 6, 3, _v(0, "wof:r:0", 1)[0]), q) for q in (0.025, 0.975))
    assert strat["corrected"] == pytest.approx(0.7)
    assert (strat["corrected_low"], strat["corrected_high"]) == pytest.approx(
        (min((11 + lo) / 20, 0.7), max((11 + hi) / 20, 0.7))
    )


def test_random_design_without_enough_labels_of_a_verdict():
    exact = [True] * 8 + [False] * 12
    items, judge, human = _tables("r", exact, {0: True, 8: True, 9: False, 10: False, 11: True, 12: False})
    row = recompute_wins(items, judge, human, design="random", seed=0).rates.set_index("model").loc["r"]
    # one label among the 7 unlabelled exact wins (fewer than 5): the point, no interval
    assert row["corrected"] == pytest.approx((3 + 7 * 1 + 7 * 2 / 5) / 20)
    assert math.isnan(row["corrected_low"]) and row["corrected_reason"] == TOO_FEW.format(k=5)


def test_text_output_says_why_there_is_no_interval(run_cli, tmp_path):
    from tests.support.wof_logs import write_logs

    logs = write_logs(tmp_path / "logs")  # alpha: games 0, 1 won, 2, 3, 4 lost; beta: 1 of 6 won
    labels = tmp_path / "labels.csv"
    labels.write_text(
        "item_id,rater,rater_type,label\nwof:alpha:2,ann,human,false\nwof:alpha:4,ann,human,true\n",
        encoding="utf-8",
    )
    code, out, err = run_cli("wof", "recompute", "--seed", "0", str(logs), "--human", str(labels))
    assert code == 0, err
    assert "win rates (95 % intervals, stratified design):" in out
    rows = {
        line.split()[0]: line.split()
        for line in out.splitlines()
        if line.startswith(("  alpha  5", "  beta   6"))
    }
    # columns model n n_labelled judge replaced se sp corrected corrected_low corrected_high …
    # alpha: K = 2 + 1, game 3 at 1/2: (3 + 0.5)/5 = 0.700, no interval
    assert rows["alpha"][3:5] == ["0.400", "0.600"] and rows["alpha"][7:10] == ["0.700", "–", "–"]
    assert rows["beta"][3:5] == ["0.167", "0.167"] and rows["beta"][7:10] == ["–", "–", "–"]
    assert f"  corrected interval not shown for alpha: {TOO_FEW.format(k=5)}" in out
    assert f"  corrected not shown for beta: {NO_LABEL}" in out  # no label among its 5 losses


@pytest.mark.slow
def test_coverage_simulation_shape_and_the_recompute_path(load_benchmark):
    sim = load_benchmark("sim_wof_coverage")
    rows = sim.run(["A", "R"], 6)
    assert len(rows) == 6 * 3 * 2 and rows["truth"].between(0, 1).all()
    table = sim.summarise(rows)
    assert table[["design", "model"]].values.tolist() == [
        [d, m] for d in ("A", "R") for m in ("m1", "m2", "m3")
    ]
    assert table["campaigns"].eq(6).all() and table["coverage"].between(0, 1).all()
    assert {"coverage_se", "below", "above", "mean_width", "exact_coverage", "verdict"} <= set(table.columns)
    # the simulation's frame is what wof recompute builds: the same intervals through recompute_wins
    for name in ("A", "R"):
        design = sim.DESIGNS[name]
        games = sim.draw(design, np.random.default_rng(11))
        fast = sim.corrected_shares(sim.engine_frame(games, design.kind), cells=["player_model"], seed=5)
        items, judge, human = sim.contract_tables(games)
        rates = recompute_wins(items, judge, human, design=design.kind, seed=5).rates
        pd.testing.assert_series_equal(fast["ci_low"], rates["corrected_low"], check_names=False)
        pd.testing.assert_series_equal(fast["ci_high"], rates["corrected_high"], check_names=False)
        pd.testing.assert_series_equal(fast["estimate"], rates["corrected"], check_names=False)
