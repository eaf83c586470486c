"""``balderdash plan --adaptive``'s uncertainty sampling: the simulated judge score (calibrated,
with the verdicts' sensitivity and specificity), its strata, and the coverage of the interval
a campaign sampled by it ends with.

Expected values are properties of the score model — P(verdict true | true) = Se, P(verdict
false | false) = Sp, P(true | p̂) = p̂ (calibration, checked in bins against the simulation's
truth with binomial tolerances) — and the nominal level of the randomised exact interval."""

from __future__ import annotations

import numpy as np
import pytest

from wordplay_audit.analysis.balderdash.plan_adaptive import (
    AdaptiveDesign,
    _items,
    judge_probabilities,
    population,
    simulate,
    uncertainty_population,
)
from wordplay_audit.errors import ParameterError

DESIGN = AdaptiveDesign.even(models=2, decks=2, items=60_000, rate=[0.3, 0.7], se=[0.8, 0.6], sp=[0.95, 0.7])


def test_the_simulated_score_keeps_se_sp_and_is_calibrated():
    rng = np.random.default_rng(1)
    items = _items(DESIGN, rng)
    model, _cell, truth, verdict = items
    prob = judge_probabilities(DESIGN, items, np.random.default_rng(2))
    for m, (se, sp) in enumerate(((0.8, 0.95), (0.6, 0.7))):
        at = model == m
        n_true, n_false = (at & truth).sum(), (at & ~truth).sum()
        assert verdict[at & truth].mean() == pytest.approx(se, abs=4 * np.sqrt(se * (1 - se) / n_true))
        assert (~verdict[at & ~truth]).mean() == pytest.approx(sp, abs=4 * np.sqrt(sp * (1 - sp) / n_false))
    # calibration: inside each decile bin of p̂ the share true is the bin's mean p̂
    edges = np.quantile(prob, np.linspace(0, 1, 11))
    bins = np.clip(np.searchsorted(edges, prob, side="right") - 1, 0, 9)
    for b in range(10):
        at = bins == b
        p = prob[at].mean()
        assert truth[at].mean() == pytest.approx(p, abs=4 * np.sqrt(p * (1 - p) / at.sum()) + 1e-3)
    # and the score does not change the population the other methods see
    again = population(DESIGN, np.random.default_rng(1))
    assert (again[0] == population(DESIGN, None, items)[0]).all()


def test_uncertainty_strata_split_every_verdict_stratum_in_two_bands():
    small = AdaptiveDesign.even(models=2, decks=1, items=200, rate=[0.3, 0.6], se=[0.9, 0.7], sp=[0.9, 0.7])
    items = _items(small, np.random.default_rng(4))
    big_n, true, model = population(small, None, items)
    fine_n, fine_true, fine_model, mean = uncertainty_population(small, items, np.random.default_rng(5))
    assert len(fine_n) == 2 * len(big_n) and fine_n.sum() == big_n.sum() == 400
    for m in (0, 1):  # the model's items and true items are kept
        assert fine_n[fine_model == m].sum() == big_n[model == m].sum()
        assert fine_true[fine_model == m].sum() == true[model == m].sum()
    assert ((mean >= 0) & (mean <= 1)).all()


def test_uncertainty_sampling_interval_covers():
    # 2 models × 150 items, half-width 0.1, 300 campaigns × 2 models: the final interval of each
    # model (labels stop when every model is within ± 0.1) must hold its realised TDR at the
    # nominal 95 % at least (the exact interval may be conservative; 3 binomial SEs, ≈ 0.027)
    design = AdaptiveDesign.even(models=2, decks=1, items=150, rate=[0.3, 0.6], se=[0.9, 0.7], sp=[0.9, 0.7])
    labels, covered, known = simulate(
        design, campaigns=300, seed=11, methods=("uncertainty",), half_width=0.1
    )
    inside, full = covered["uncertainty"], known["uncertainty"]
    total = int((~full).sum())
    share = float((inside & ~full).sum() / total)
    assert share >= 0.95 - 3 * np.sqrt(0.95 * 0.05 / total), (share, total)
    assert labels["uncertainty"].mean() < 300  # it stops before labelling everything


def test_an_unknown_method_is_refused():
    with pytest.raises(
        ParameterError, match="method: 'active' is not one of proportional, equal, adaptive, uncertainty"
    ):
        simulate(DESIGN, campaigns=2, seed=0, methods=("active",))
