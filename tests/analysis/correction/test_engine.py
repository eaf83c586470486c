"""The corrected-metric engine (analysis/correction/engine.py) against hand calculations, and
Balderdash's whole-strata cells through it and through corrected_rates."""

from __future__ import annotations

import math
import zlib

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from wordplay_audit.analysis.correction import MIN_LABELS, NO_LABEL, TOO_FEW, corrected_shares
from wordplay_audit.errors import ParameterError


def _cell(model: str, groups: list[tuple[bool, int, int, int]], **extra) -> pd.DataFrame:
    """Rows of one cell from (judge, unlabelled, labelled, labelled true) groups."""
    rows = []
    for judge, unl, lab, true in groups:
        rows += [(judge, True, k < true) for k in range(lab)] + [(judge, False, None)] * unl
    frame = pd.DataFrame(rows, columns=["judge", "labelled", "human"]).assign(model=model, **extra)
    frame["human"] = frame["human"].astype("boolean")
    return frame


def _ids(frame: pd.DataFrame, prefix: str = "g") -> pd.DataFrame:
    return frame.assign(item_id=[f"{prefix}{k:02d}" for k in range(len(frame))])


def _v(seed: int, *keys: str) -> np.ndarray:
    """The engine's documented seeding: numpy's default generator seeded by (seed, CRC-32 of
    each key), one uniform per post-stratum with unlabelled items, written out independently."""
    return np.random.default_rng([seed, *(zlib.crc32(k.encode()) for k in keys)])


def _bb(u: int, a: int, b: int) -> np.ndarray:
    """BetaBinomial(u, a, b) pmf over 0..u from scipy; a point mass at 0 (a = 0) or u (b = 0)."""
    if a == 0 or b == 0:
        return np.eye(1, u + 1, 0 if a == 0 else u)[0]
    return stats.betabinom.pmf(np.arange(u + 1), u, a, b)


def _pmf(u: int, n: int, x: int, v: float) -> np.ndarray:
    """The predictive of the true items among ``u`` unlabelled ones from ``x`` of ``n`` labels:
    (1 − v)·BetaBinomial(u, x, n − x + 1) + v·BetaBinomial(u, x + 1, n − x) (Stevens'
    randomised Clopper–Pearson confidence distribution of the share)."""
    return (1 - v) * _bb(u, x, n - x + 1) + v * _bb(u, x + 1, n - x)


def _quantile(pmf: np.ndarray, level: float) -> int:
    """The least count whose cdf reaches ``level``."""
    return int(np.argmax(np.cumsum(pmf) >= level - 1e-12))


def _bounds(u: int, n: int, x: int, v: float) -> tuple[int, int]:
    """Equal-tailed 95 % quantiles of :func:`_pmf`."""
    pmf = _pmf(u, n, x, v)
    return _quantile(pmf, 0.025), _quantile(pmf, 0.975)


def test_a_fully_labelled_cell_has_the_zero_width_interval_at_its_share():
    # 7 items, all labelled: 3 of 4 judge-true and 1 of 3 judge-false called true by people
    frame = _ids(_cell("m", [(True, 0, 4, 3), (False, 0, 3, 1)], deck=["a", "b"] * 3 + ["a"]))
    for post in ([], ["deck"]):
        row = corrected_shares(frame, cells=["model"], post_strata=post).iloc[0]
        assert row["estimate"] == row["ci_low"] == row["ci_high"] == pytest.approx(4 / 7)
        assert row["judge"] == pytest.approx(4 / 7) and row["n"] == row["n_labelled"] == 7
        assert row["reason"] is None and row["unknown"] == 0


def test_one_post_stratum_by_hand():
    # judge-true: 3 items, all labelled true; judge-false: 5 labels (1 true), 10 unlabelled
    frame = _ids(_cell("m", [(True, 0, 3, 3), (False, 10, 5, 1)]))
    row = corrected_shares(frame, cells=["model"], seed=4).iloc[0]
    # θ̂ = (K + U·x/n)/N = (3 + 1 + 10·1/5)/18 = 6/18
    assert row["estimate"] == pytest.approx(6 / 18)
    v = _v(4, "g00").random(1)[0]  # the cell's first item id seeds it
    low, high = _bounds(10, 5, 1, v)
    assert low < high  # the interval is not degenerate at this v
    assert row["ci_low"] == pytest.approx(min(4 + low, 6) / 18)
    assert row["ci_high"] == pytest.approx(max(4 + high, 6) / 18)
    assert row["reason"] is None and row["unknown"] == 0 and row["judge"] == pytest.approx(3 / 18)
    # a stream (Balderdash's "rg") is one more key of the seed
    streamed = corrected_shares(frame, cells=["model"], seed=4, stream="rg").iloc[0]
    low, high = _bounds(10, 5, 1, _v(4, "rg", "g00").random(1)[0])
    assert (streamed["ci_low"], streamed["ci_high"]) == pytest.approx(
        (min(4 + low, 6) / 18, max(4 + high, 6) / 18)
    )


def test_two_cells_each_seeded_by_their_first_item():
    a = _cell("a", [(True, 0, 2, 2), (False, 30, 8, 3)])
    b = _cell("b", [(True, 4, 6, 5), (False, 20, 7, 0)])
    frame = _ids(pd.concat([b, a], ignore_index=True))  # b's rows first: g00…, a's from g37
    table = corrected_shares(frame, cells=["model"]).set_index("model")
    assert table.index.tolist() == ["a", "b"]
    first_a = f"g{len(b):02d}"
    low, high = _bounds(30, 8, 3, _v(0, first_a).random(1)[0])
    est = (2 + 3 + 30 * 3 / 8) / 40
    assert table.loc["a", "estimate"] == pytest.approx(est)
    assert table.loc["a", "ci_low"] == pytest.approx(min((5 + low) / 40, est))
    assert table.loc["a", "ci_high"] == pytest.approx(max((5 + high) / 40, est))
    # b: two post-strata with unlabelled items, (4 | 6, 5 true) and (20 | 7, 0 true: unanimous,
    # so anchored: it counts 0 in the lower bound's convolution); v drawn in sorted verdict order
    v_false, v_true = _v(0, "g00").random(2)
    lo = _quantile(_pmf(4, 6, 5, v_true), 0.025)  # the unanimous-false part left out
    hi = _quantile(np.convolve(_pmf(4, 6, 5, v_true), _pmf(20, 7, 0, v_false)), 0.975)
    est_b = (5 + 4 * 5 / 6 + 20 * 0 / 7) / 37
    assert table.loc["b", "estimate"] == pytest.approx(est_b)
    assert table.loc["b", "ci_low"] == pytest.approx(min((5 + lo) / 37, est_b))
    assert table.loc["b", "ci_high"] == pytest.approx(max((5 + hi) / 37, est_b))


def test_a_finer_post_stratum_without_a_label_counts_as_unknown():
    # judge-true: 5 items all labelled true (deck a); judge-false deck a: 6 labels (2 true) and
    # 14 unlabelled; judge-false deck b: 4 unlabelled, no label -> coarsened to the verdict
    frame = _ids(
        pd.concat(
            [
                _cell("m", [(True, 0, 5, 5), (False, 14, 6, 2)], deck="a"),
                _cell("m", [(False, 4, 0, 0)], deck="b"),
            ],
            ignore_index=True,
        )
    )
    row = corrected_shares(frame, cells=["model"], post_strata=["deck"]).iloc[0]
    # the point: the verdict's share 2/6 for all 18 unlabelled judge-false items
    assert row["estimate"] == pytest.approx((5 + 2 + 18 * 2 / 6) / 29)
    assert row["unknown"] == 4 and row["reason"] is None
    # the interval: deck a's 14 from the verdict's labels; deck b's 4 items 0 (low) or all (high)
    low, high = _bounds(14, 6, 2, _v(0, "g00").random(1)[0])
    assert row["ci_low"] == pytest.approx(min((7 + low) / 29, row["estimate"]))
    assert row["ci_high"] == pytest.approx(max((7 + high + 4) / 29, row["estimate"]))


def test_too_few_labels_give_the_estimate_without_an_interval():
    frame = _ids(_cell("m", [(True, 0, 3, 3), (False, 12, MIN_LABELS - 1, 1)]))
    row = corrected_shares(frame, cells=["model"]).iloc[0]
    assert row["estimate"] == pytest.approx((3 + 1 + 12 * 1 / 4) / 19)
    assert math.isnan(row["ci_low"]) and math.isnan(row["ci_high"])
    assert row["reason"] == TOO_FEW.format(k=MIN_LABELS) and pd.isna(row["unknown"])
    # a lower minimum gives it one
    assert np.isfinite(corrected_shares(frame, cells=["model"], min_labels=4).iloc[0]["ci_low"])


def test_a_post_stratum_without_a_label_gives_no_estimate():
    frame = _ids(_cell("m", [(True, 5, 0, 0), (False, 12, 6, 1)]))
    row = corrected_shares(frame, cells=["model"]).iloc[0]
    assert math.isnan(row["estimate"]) and math.isnan(row["ci_low"]) and row["reason"] == NO_LABEL
    assert row["judge"] == pytest.approx(5 / 23) and row["n_labelled"] == 6


def test_sampling_weights_give_kish_counts():
    # judge-false: 3 labels with 1/π = 2, 2, 5 (v = 1, 1, 4: n_eff = 36/18 = 2, share
    # (1·1 + 1·0 + 4·0)/6 = 1/6), 10 unlabelled; judge-true labelled in full
    frame = _ids(_cell("m", [(True, 0, 2, 2), (False, 10, 3, 1)]))
    frame["sampling_weight"] = [1.0, 1.0, 2.0, 2.0, 5.0] + [np.nan] * 10
    row = corrected_shares(frame, cells=["model"], min_labels=2).iloc[0]
    assert row["estimate"] == pytest.approx((2 + 1 + 10 / 6) / 15)


def test_parameters_are_named():
    frame = _ids(_cell("m", [(True, 0, 5, 5), (False, 10, 5, 1)]))
    cases = [
        (dict(cells=["nope"]), "cells: column 'nope' is not in frame"),
        (dict(cells=["model"], post_strata=["deck"]), "post_strata: column 'deck'"),
        (dict(cells=["model"], min_labels=0), "min_labels: expected a whole number"),
        (dict(cells=["model"], confidence=1.0), "confidence: expected a level"),
        (dict(cells=["model"], seed_column="uid"), "seed_column: frame lacks column 'uid'"),
        (dict(cells=["judge"]), "cells: 'judge' is a column the engine reads"),
    ]
    for kwargs, message in cases:
        with pytest.raises(ParameterError, match=message):
            corrected_shares(frame, **kwargs)
    with pytest.raises(ParameterError, match="frame: lacks column|frame lacks column 'human'"):
        corrected_shares(frame.drop(columns="human"), cells=["model"])
    bad = frame.assign(judge=frame["judge"].astype(object))
    bad.loc[3, "judge"] = "yes"
    with pytest.raises(ParameterError, match="frame: 'judge' in row 3 is 'yes'"):
        corrected_shares(bad, cells=["model"])
    broken = frame.copy()
    broken.loc[0, "human"] = pd.NA
    with pytest.raises(ParameterError, match="row 0 is labelled but its 'human' verdict is missing"):
        corrected_shares(broken, cells=["model"])


@pytest.mark.parametrize("labels", [8, 2])
def test_balderdash_whole_strata_cells_through_the_engine(labels):
    from wordplay_audit.analysis.balderdash.corrected import corrected_rates
    from wordplay_audit.analysis.balderdash.corrected_frame import question_frame
    from wordplay_audit.analysis.balderdash.recompute import labels_for
    from wordplay_audit.corpora.balderdash.simulate import SimConfig, simulate_campaign

    campaign = simulate_campaign(SimConfig(games_per_deck=2, n_rounds=8, labels_per_stratum=labels), seed=3)
    rates = corrected_rates(campaign.obs, campaign.labels).set_index(["metric", "model", "deck"])
    checked = labels_for(campaign.obs, campaign.labels)
    seen = {"own": 0, "too_few": 0, "unknown": 0}
    for metric, other in (("lkr", "true_def"), ("tdr", "knows")):
        frame = question_frame(campaign.obs, checked, metric).data
        table = corrected_shares(frame, cells=["model", "deck"], post_strata=[other], stream="rg")
        for row in table.itertuples():
            rate = rates.loc[(metric, row.model, row.deck)]
            assert (row.n, row.n_labelled) == (rate["n"], rate["n_labelled"])
            if rate["rg_basis"] == "own":
                seen["own"] += 1
                seen["unknown"] += int(row.unknown > 0)
                assert (row.estimate, row.ci_low, row.ci_high) == (
                    rate["rg"],
                    rate["rg_low"],
                    rate["rg_high"],
                )
                assert row.unknown == rate["rg_unknown"] and row.reason is None
            else:  # no interval from the cell's own labels in either
                seen["too_few"] += 1
                assert row.reason == TOO_FEW.format(k=MIN_LABELS) and math.isnan(row.ci_low)
    assert seen["own"] > 0 if labels == 8 else seen["too_few"] > 0
    if labels == 8:
        assert seen["unknown"] > 0  # coarsened cells with an unlabelled finer post-stratum were compared
