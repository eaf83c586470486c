"""The sampling design (``corpora.sampling``): allocations by hand and their invariants, the draw
against its definition (simple random sampling without replacement from the not-yet-drawn items
of each stratum: every item of a stratum equally likely, frequencies over seeds), inclusion
probabilities across rounds by hand and by simulation of the draw itself."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wordplay_audit.corpora.sampling import (
    draw_round,
    fixed_allocation,
    fixed_shares,
    inclusion_probabilities,
    sampling_weights,
    strata_counts,
    stratum_keys,
    top_up,
)
from wordplay_audit.errors import ParameterError


def test_allocations_by_hand():
    # proportional, N = 100 (50, 30, 20), n = 10: 5, 3, 2 exactly
    assert fixed_allocation([50, 30, 20], 10, "proportional").tolist() == [5, 3, 2]
    # N = 9 (4, 4, 1), n = 5: shares 2.22, 2.22, 0.56 -> floors 2, 2, 0; the one left to 0.56
    assert fixed_allocation([4, 4, 1], 5, "proportional").tolist() == [2, 2, 1]
    # equal, n = 12 over 3 strata: 4 each, the third holds 2, its excess to the others in turn
    assert fixed_allocation([10, 10, 2], 12, "equal").tolist() == [5, 5, 2]
    # more asked than there are: every item
    assert fixed_allocation([3, 2], 9, "equal").tolist() == [3, 2]
    with pytest.raises(ParameterError, match="allocation: expected one of proportional, equal"):
        fixed_allocation([3, 2], 2, "neyman")


@settings(max_examples=200, deadline=None)
@given(
    sizes=st.lists(st.integers(1, 60), min_size=1, max_size=8),
    n=st.integers(0, 200),
    allocation=st.sampled_from(["proportional", "equal"]),
)
def test_allocation_invariants(sizes, n, allocation):
    counts = fixed_allocation(sizes, n, allocation)
    assert counts.sum() == min(n, sum(sizes))
    assert ((counts >= 0) & (counts <= np.array(sizes))).all()
    share = fixed_shares(sizes, allocation) * n
    if (share <= np.array(sizes)).all():  # no cap binds: within one of the exact share
        assert (np.abs(counts - share) < 1).all()


def test_top_up_by_hand():
    # 2 strata of 10 at equal shares, 4 labelled in the first: a batch of 4 brings both to 4
    assert top_up([10, 10], [4, 0], 4, [0.5, 0.5]).tolist() == [0, 4]
    # a batch of 6: the goal is 5 each (10 × ½); 1 and 5, the first still below its share
    assert top_up([10, 10], [4, 0], 6, [0.5, 0.5]).tolist() == [1, 5]
    # capped: the second holds 2; the rest goes to the first
    assert top_up([10, 2], [0, 0], 6, [0.5, 0.5]).tolist() == [4, 2]


def test_strata_keys_and_counts():
    frame = pd.DataFrame({"model": ["m2", "m1", "m1"], "verdict": ["true", "false", "true"]})
    keys = stratum_keys(frame, ["model", "verdict"])
    assert keys.tolist() == ["m2 × true", "m1 × false", "m1 × true"]
    counts = strata_counts(keys, [True, False, True])
    assert counts.index.tolist() == ["m1 × false", "m1 × true", "m2 × true"]  # sorted
    assert counts["N"].tolist() == [1, 1, 1] and counts["drawn"].tolist() == [0, 1, 1]


def test_draw_takes_exact_counts_from_undrawn_items_only():
    strata = np.repeat(["a", "b"], [10, 6])
    taken = np.zeros(16, bool)
    taken[[0, 1, 2, 10]] = True
    flags = draw_round(strata, {"a": 7, "b": 5}, taken, np.random.default_rng(1))
    assert not (flags & taken).any()
    assert flags[strata == "a"].sum() == 7 and flags[strata == "b"].sum() == 5
    assert flags[:3].sum() == 0 and flags[3:10].all()  # a had exactly 7 undrawn items
    again = draw_round(strata, {"a": 7, "b": 5}, taken, np.random.default_rng(1))
    assert (again == flags).all()  # seeded
    with pytest.raises(ParameterError, match="round draws 6 from stratum 'b' with 5 items left"):
        draw_round(strata, {"b": 6}, taken, np.random.default_rng(1))


def test_every_undrawn_item_is_equally_likely():
    """2,000 seeded draws of 3 of the 8 undrawn items of a stratum of 10: each undrawn item is
    in the round with probability 3/8 (binomial SE √(p(1−p)/2000) ≈ 0.011; allowed 4 SE)."""
    strata = np.array(["s"] * 10 + ["t"] * 5)
    taken = np.zeros(15, bool)
    taken[[4, 7]] = True
    hits = np.zeros(15)
    rng = np.random.default_rng(20261203)
    for _ in range(2000):
        hits += draw_round(strata, {"s": 3}, taken, rng)
    share = hits / 2000
    se = math.sqrt(3 / 8 * 5 / 8 / 2000)
    undrawn = (strata == "s") & ~taken
    assert np.abs(share[undrawn] - 3 / 8).max() < 4 * se
    assert (share[taken] == 0).all() and (share[strata == "t"] == 0).all()


def test_inclusion_probabilities_by_hand_and_by_simulation():
    """Round 1 by stratum (A: 2 of 10, B: 5 of 10), round 2 from their union (4 of the 13 left):
    the union's remaining count is fixed, so π is exact: A items 1 − (1 − 2/10)(1 − 4/13) =
    5.8/13, B items 1 − (1 − 5/10)(1 − 4/13) = 8.5/13; the frequency over simulated campaigns of
    the draw itself agrees (SE ≈ 0.0035 per item at 20,000 campaigns; allowed 4 SE)."""
    fine = np.repeat(["A", "B"], 10)
    union = np.array(["all"] * 20)
    rng = np.random.default_rng(7)
    hits = np.zeros(20)
    runs = 20000
    for _ in range(runs):
        first = draw_round(fine, {"A": 2, "B": 5}, np.zeros(20, bool), rng)
        second = draw_round(union, {"all": 4}, first, rng)
        hits += first | second
    pi = inclusion_probabilities([(fine, first), (union, second)])
    assert pi[:10] == pytest.approx([5.8 / 13] * 10, rel=1e-12)
    assert pi[10:] == pytest.approx([8.5 / 13] * 10, rel=1e-12)
    se = math.sqrt(0.5 * 0.5 / runs)
    assert np.abs(hits / runs - pi).max() < 4 * se


def test_inclusion_probabilities_telescope_when_rounds_share_strata():
    strata = np.repeat(["a", "b"], [40, 60])
    rng = np.random.default_rng(3)
    taken = np.zeros(100, bool)
    rounds = []
    for counts in ({"a": 4, "b": 6}, {"a": 10, "b": 2}):
        flags = draw_round(strata, counts, taken, rng)
        rounds.append((strata, flags))
        taken |= flags
    pi = inclusion_probabilities(rounds)
    assert np.allclose(pi[strata == "a"], 14 / 40) and np.allclose(pi[strata == "b"], 8 / 60)
    with pytest.raises(ParameterError, match="drawn in two rounds"):
        inclusion_probabilities([(strata, taken), (strata, taken)])


def test_sampling_weights():
    assert sampling_weights([0.5, 0.2, 1.0]).tolist() == pytest.approx([2.0, 5.0, 1.0])
    assert np.isnan(sampling_weights([0.0])[0])
    with pytest.raises(ParameterError, match="pi: inclusion probabilities must lie in"):
        sampling_weights([1.5])
