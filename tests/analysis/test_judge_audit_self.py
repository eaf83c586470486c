"""The judge's self-preference: its sensitivity and specificity on its own model's items against
the other players', checked against hand counts, scipy's Beta distributions and a simulated
campaign whose judge is kinder to its own model."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from wordplay_audit.analysis.balderdash.corrected_frame import question_frame
from wordplay_audit.analysis.balderdash.recompute import labels_for
from wordplay_audit.analysis.judge_audit_self import SELF_COLUMNS, self_preference
from wordplay_audit.corpora.balderdash.simulate import SimConfig, simulate_campaign
from wordplay_audit.errors import ParameterError


def _fully_labelled() -> pd.DataFrame:
    # own model: 40 true (34 judged true), 60 false (3 judged true); others: 80 true (52 judged
    # true), 120 false (6 judged true)
    rows = []
    for model, (tp, fn, fp, tn) in (("judge-m", (34, 6, 3, 57)), ("other", (52, 28, 6, 114))):
        for judge, human, count in (
            (True, True, tp),
            (False, True, fn),
            (True, False, fp),
            (False, False, tn),
        ):
            rows += [{"model": model, "deck": "d", "judge": judge, "human": human}] * count
    frame = pd.DataFrame(rows)
    frame["human"] = frame["human"].astype("boolean")
    return frame.assign(labelled=True, item_id=[f"i{k}" for k in range(len(frame))])


def _beta_difference(a1, b1, a2, b2) -> tuple[float, float]:
    """2.5 / 97.5 % quantiles of Beta(a1, b1) − Beta(a2, b2), by convolving scipy's densities."""
    grid, t = np.linspace(-1, 1, 2001), np.linspace(0, 1, 2001)
    density = (stats.beta.pdf(t, a1, b1)[None, :] * stats.beta.pdf(t[None, :] - grid[:, None], a2, b2)).sum(
        axis=1
    )
    cdf = np.cumsum(density) / density.sum()
    return grid[np.searchsorted(cdf, 0.025)], grid[np.searchsorted(cdf, 0.975)]


def test_fully_labelled_rates_are_the_counts_and_the_difference_the_jeffreys_one():
    table = self_preference(_fully_labelled(), judge_model="judge-m", by="model", draws=100000).set_index(
        "rate"
    )
    assert list(table.reset_index().columns) == SELF_COLUMNS
    se, sp = table.loc["sensitivity"], table.loc["specificity"]
    assert se["own"] == pytest.approx(34 / 40) and se["others"] == pytest.approx(52 / 80)
    assert sp["own"] == pytest.approx(57 / 60) and sp["others"] == pytest.approx(114 / 120)
    assert se["own_low"] == se["own_high"] == pytest.approx(34 / 40)  # realised and known
    low, high = _beta_difference(34.5, 6.5, 52.5, 28.5)
    assert se["ci_low"] == pytest.approx(low, abs=0.004) and se["ci_high"] == pytest.approx(high, abs=0.004)
    low, high = _beta_difference(57.5, 3.5, 114.5, 6.5)
    assert sp["ci_low"] == pytest.approx(low, abs=0.004) and sp["ci_high"] == pytest.approx(high, abs=0.004)
    assert se["verdict"] == "differs: the judge is kinder to its own model"
    assert sp["verdict"].startswith("no difference detected")
    from statsmodels.stats.multitest import multipletests

    assert np.allclose(table["p_holm"], multipletests(table["p"], method="holm")[1])


@pytest.mark.parametrize(("own_se", "kinder"), [(0.95, True), (0.74, False)])
def test_simulated_judge_kind_to_its_own_model(own_se, kinder):
    config = SimConfig(judge_model="llama-3-8b", judge_se={"llama-3-8b": own_se}, games_per_deck=4,
                       labels_per_stratum=30)  # fmt: skip
    c = simulate_campaign(config, seed=11)
    frame = question_frame(c.obs, labels_for(c.obs, c.labels), "tdr")
    table = self_preference(frame.data.assign(item_id=frame.item_ids), judge_model="llama-3-8b", by="model")
    se = table.set_index("rate").loc["sensitivity"]
    assert se["ci_low"] <= own_se - 0.74 <= se["ci_high"]
    assert (se["verdict"] == "differs: the judge is kinder to its own model") == kinder


def test_judge_model_must_be_a_player():
    with pytest.raises(ParameterError, match="^judge_model: 'llama' is not a player model"):
        self_preference(_fully_labelled(), judge_model="llama", by="model")
    with pytest.raises(ParameterError, match="^frame: lacks column 'player_model'"):
        self_preference(_fully_labelled(), judge_model="judge-m")
