"""Campaign design: stratified sample, allocation, overlap, honeypots, reproducibility.

Expected values are hand calculations from the design's definition (module docstring of
``annotate.design``): proportional n_h = n·N_h/N with largest remainders, π_h = n_h/N_h,
w_h = N_h/n_h.
"""

from __future__ import annotations

import itertools
import json

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wordplay_audit.annotate.design import DesignSpec, assign_overlap, design_campaign, uid_of
from wordplay_audit.corpora.sampling import fixed_allocation as allocate
from wordplay_audit.errors import ParameterError


def draw(items: pd.DataFrame, honeypots: pd.DataFrame | None = None, **kwargs):
    return design_campaign(items, DesignSpec(**kwargs), honeypots=honeypots)


def _items(sizes: dict[str, int]) -> pd.DataFrame:
    rows = []
    for stratum, size in sizes.items():
        rows += [
            {"item_id": f"{stratum}-{i}", "game": "demo", "kind": "guess", "model": stratum}
            for i in range(size)
        ]
    return pd.DataFrame(rows)


def _honeypots(n: int) -> pd.DataFrame:
    return pd.DataFrame(
        {"item_id": [f"hp-{i}" for i in range(n)], "game": "demo", "kind": "guess", "gold": "true"}
    )


def test_proportional_allocation_by_hand():
    # N = 100 (50, 30, 20), n = 10 -> 5, 3, 2 exactly
    assert allocate([50, 30, 20], 10, "proportional").tolist() == [5, 3, 2]
    # N = 9 (4, 4, 1), n = 5 -> shares 2.22, 2.22, 0.56 -> floors 2, 2, 0; the one left goes to 0.56
    assert allocate([4, 4, 1], 5, "proportional").tolist() == [2, 2, 1]


def test_equal_allocation_caps_small_strata():
    # n = 12 over 3 strata -> 4 each, but the third holds 2: its excess goes to the others (5, 5, 2)
    assert allocate([10, 10, 2], 12, "equal").tolist() == [5, 5, 2]


def test_strata_counts_and_weights_match_the_design():
    design = draw(
        _items({"a": 60, "b": 30, "c": 10}), n=20, strata=["model"], raters=["r1", "r2"], overlap=2, seed=1
    )
    table = design.strata.set_index("stratum")
    assert table["population"].to_dict() == {"a": 60, "b": 30, "c": 10}
    assert table["sampled"].to_dict() == {"a": 12, "b": 6, "c": 2}
    assert table.loc["a", "inclusion_probability"] == pytest.approx(12 / 60)
    assert table.loc["c", "weight"] == pytest.approx(10 / 2)
    # every sampled item carries its stratum's weight, and the weights add up to N
    assert design.sample["sampling_weight"].sum() == pytest.approx(100)
    assert design.sample.groupby("stratum").size().to_dict() == {"a": 12, "b": 6, "c": 2}


def test_same_seed_same_campaign_and_another_seed_differs():
    items = _items({"a": 40, "b": 40})
    kwargs = dict(
        n=30, strata=["model"], raters=["x", "y", "z"], overlap=2, honeypots=_honeypots(10), honeypot_rate=0.1
    )
    one = draw(items, seed=7, **kwargs)
    two = draw(items, seed=7, **kwargs)
    three = draw(items, seed=8, **kwargs)
    assert one.assignments.equals(two.assignments)
    assert json.dumps(one.to_dict(), default=str) == json.dumps(two.to_dict(), default=str)
    assert not one.assignments.equals(three.assignments)


def test_every_rater_pair_overlaps_and_loads_balance():
    design = draw(_items({"a": 100}), n=60, raters=["a", "b", "c", "d", "e"], overlap=2, seed=3)
    pairs = design.to_dict()["pairs_sharing"]
    assert len(pairs) == 10 and min(pairs.values()) > 0
    loads = design.assignments.groupby("rater").size()
    assert loads.sum() == 120 and loads.max() - loads.min() <= 1


def test_honeypot_rate_is_honoured():
    design = draw(
        _items({"a": 200}),
        n=100,
        raters=["a", "b", "c"],
        overlap=2,
        honeypots=_honeypots(30),
        honeypot_rate=0.2,
        seed=0,
    )
    for _rater, queue in design.assignments.groupby("rater"):
        m = int((~queue["honeypot"]).sum())
        h = int(queue["honeypot"].sum())
        assert h == round(m * 0.2 / 0.8)
        assert abs(h / (m + h) - 0.2) <= 1 / (m + h)
        assert queue.loc[queue["honeypot"], "item_id"].is_unique


def test_queues_are_shuffled_per_rater():
    design = draw(_items({"a": 200}), n=100, raters=["a", "b"], overlap=2, seed=0)
    a = design.assignments[design.assignments["rater"] == "a"]["item_id"].tolist()
    b = design.assignments[design.assignments["rater"] == "b"]["item_id"].tolist()
    assert sorted(a) == sorted(b) and a != b
    assert (
        design.assignments.groupby("rater")["position"]
        .apply(lambda s: s.tolist() == list(range(1, len(s) + 1)))
        .all()
    )


@pytest.mark.parametrize(
    ("kwargs", "fragment"),
    [
        (dict(n=0), "^n: "),
        (dict(n=999), "^n: "),
        (dict(overlap=4), "^overlap: "),
        (dict(raters=["a", "a"]), "^raters: "),
        (dict(allocation="neyman"), "^allocation: "),
        (dict(honeypot_rate=0.1), "^honeypot_rate: .*no honeypots"),
        (dict(strata=["nope"]), "^strata: "),
        (dict(n=1, raters=["a", "b", "c"], overlap=2), "without shared items"),
    ],
)
def test_bad_parameters_are_one_line_errors(kwargs, fragment):
    base = dict(n=10, raters=["a", "b", "c"], overlap=2, seed=0)
    base.update(kwargs)
    with pytest.raises(ParameterError, match=fragment) as info:
        draw(_items({"a": 20}), **base)
    assert "\n" not in str(info.value)


def test_uid_is_opaque_and_stable():
    assert uid_of("c:1", "cx:abc:gpt4o:0") == uid_of("c:1", "cx:abc:gpt4o:0")
    assert "gpt4o" not in uid_of("c:1", "cx:abc:gpt4o:0") and len(uid_of("c", "x")) == 16


@settings(max_examples=60, deadline=None)
@given(
    n_items=st.integers(1, 80),
    n_raters=st.integers(1, 7),
    k=st.integers(1, 7),
    seed=st.integers(0, 2**16),
)
def test_property_no_item_twice_to_one_rater(n_items, n_raters, k, seed):
    k = min(k, n_raters)
    raters = [f"r{i}" for i in range(n_raters)]
    sets = assign_overlap(n_items, raters, k, np.random.default_rng(seed))
    assert all(len(set(s)) == k for s in sets)
    loads = np.bincount([j for s in sets for j in s], minlength=n_raters)
    assert loads.max() - loads.min() <= 1
    # enough items for every pair twice over: every pair shares an item
    if k >= 2 and n_items * (k * (k - 1) // 2) >= 2 * (n_raters * (n_raters - 1) // 2):
        shared = {p: 0 for p in itertools.combinations(range(n_raters), 2)}
        for s in sets:
            for p in itertools.combinations(sorted(s), 2):
                shared[p] += 1
        assert min(shared.values(), default=1) > 0
