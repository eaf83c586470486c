"""Post-stratum counts (and a cell's boolean key counts) by bincount over the keys' codes against
pandas' groupby."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from wordplay_audit.analysis.balderdash.corrected_frame import key_counts
from wordplay_audit.analysis.correction.poststratify import post_strata_counts


def _by_groupby(frame: pd.DataFrame, strata: list[str]) -> pd.DataFrame:
    keys = [*strata, "judge"]
    work = frame.assign(_x=frame["human"].fillna(False).astype(bool), _n=frame["labelled"].astype(bool))
    grouped = work.groupby(keys, sort=True, dropna=False, observed=True)
    out = grouped.agg(N=("_n", "size"), n=("_n", "sum"), x=("_x", "sum")).reset_index()
    return out.astype({"N": np.int64, "n": np.int64, "x": np.int64})


def _column(rng: np.random.Generator, kind: str, size: int) -> pd.Series:
    values = rng.choice(["b", "a", "c"], size)
    missing = rng.random(size) < 0.15
    if kind == "bool":
        return pd.Series(rng.random(size) < 0.4)
    if kind == "str":
        return pd.Series(pd.array(np.where(missing, None, values), dtype="str"))
    if kind == "category":
        return pd.Series(pd.Categorical(np.where(missing, None, values), categories=["a", "b", "c", "d"]))
    if kind == "category, no missing value":
        return pd.Series(pd.Categorical(values, categories=["a", "b", "c", "d"]))
    return pd.Series(np.where(missing, None, values).astype(object))  # object


KINDS = ["bool", "str", "category", "category, no missing value", "object"]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("judge_kind", ["bool", "object"])
@pytest.mark.parametrize("seed", range(12))
def test_counts_equal_the_groupby_for_every_key_kind(kind, judge_kind, seed):
    rng = np.random.default_rng(seed)
    size = int(rng.integers(1, 60))
    labelled = rng.random(size) < 0.5
    frame = pd.DataFrame(
        {
            "deck": _column(rng, kind, size),
            "other": _column(rng, "bool", size),
            "judge": _column(rng, judge_kind, size).astype(bool)
            if judge_kind == "bool"
            else _column(rng, "bool", size).astype(object),
            "labelled": labelled,
            "human": pd.array(np.where(labelled, rng.random(size) < 0.5, None), dtype="boolean"),
        }
    )
    for strata in (["deck"], ["deck", "other"], []):
        got = post_strata_counts(frame, strata)
        pd.testing.assert_frame_equal(
            got, _by_groupby(frame, strata), check_dtype=False, check_categorical=False
        )
        assert [str(c) for c in got.columns] == [*strata, "judge", "N", "n", "x"]


@pytest.mark.parametrize("n_keys", [1, 2, 3])
def test_cell_key_counts_by_bits_match_a_groupby(n_keys):
    rng = np.random.default_rng(n_keys)
    for size in (1, 7, 500):
        keys = [f"k{i}" for i in range(n_keys)]
        frame = pd.DataFrame({k: rng.random(size) < 0.3 for k in keys})
        frame["labelled"] = rng.random(size) < 0.4
        frame["human"] = pd.array(np.where(frame["labelled"], rng.random(size) < 0.5, None), dtype="boolean")
        expected = {}
        for key, part in frame.groupby(keys, sort=True):
            key = key if isinstance(key, tuple) else (key,)
            lab = part["labelled"]
            expected[tuple(map(bool, key))] = (
                int((~lab).sum()),
                int(lab.sum()),
                int(part["human"].fillna(False).sum()),
            )
        got = key_counts(frame, keys)
        assert list(got) == list(expected) and got == expected
