"""``annotate status`` and ``balderdash recompute`` print the same corrected estimate and interval
for the same cell: a simulated Balderdash campaign planned with strata player_model × deck ×
judge verdict, a second round drawn at other rates (so the labels carry unequal 1/π weights),
people's labels from the simulation's truth; ``wa.campaign_status(by=player_model, deck)``
against ``wa.balderdash_recompute(weights=<campaign>/items.csv)``'s ``rg`` (the engine on a cell
of whole sampling strata). Where they cannot agree (groups that span decks) status says so.

The expected values are recompute's, a separate path (the Balderdash reader, the player-round
table, the human consensus, ``corrected_rates``' cell logic and its own weights reader); the
test fails when status estimates another way (e.g. its former Σ W_h × Hájek share, which moves
the estimate as soon as π varies inside a judge-verdict × other-decision post-stratum, and has
no interval)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import wordplay_audit as wa

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def campaign(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("status_recompute")
    mp = pytest.MonkeyPatch()
    mp.delenv("LABEL_STUDIO_URL", raising=False)
    wa.simulate_balderdash(tmp / "sim", seed=11, games_per_deck=3, rounds=12, players_per_model=2,
                           labels_per_stratum=0)  # fmt: skip
    data = wa.read_balderdash(tmp / "sim")
    items = wa.balderdash_items(data).items
    truth = pd.read_csv(tmp / "sim" / "truth.csv", dtype={"item_id": str}).set_index("item_id")
    wa.plan_campaign(items, out=tmp / "camp", n=150, raters=["ann"], overlap=1,
                     strata=["player_model", "deck", "judge_verdict"], seed=7)  # fmt: skip

    def final() -> pd.DataFrame:
        camp = pd.read_csv(tmp / "camp" / "items.csv", dtype=str)
        ids = camp.loc[camp["honeypot"] == "false", "item_id"]
        rows = [{"item_id": i, "question": q, "label": str(bool(truth.loc[i, col])).lower()}
                for i in ids for q, col in (("reference", "true_ref"), ("any_sense", "true_any"))]  # fmt: skip
        return pd.DataFrame(rows)

    # round 2 by model only (strata model × verdict): the decks' rates differ from round 1's
    wa.next_round(
        tmp / "camp", budget=60, labels=final(), targets=["tdr", "lkr"], by=["player_model"], seed=3
    )
    labels = final()
    people = labels.assign(rater="ann", rater_type="human")
    weights = wa.read_table(tmp / "camp" / "items.csv")
    recompute = wa.balderdash_recompute(data, people, weights=weights, seed=0).corrected
    yield {"camp": tmp / "camp", "labels": labels, "recompute": recompute, "items": items}
    mp.undo()


def test_the_weights_vary_inside_post_strata(campaign):
    items = pd.read_csv(campaign["camp"] / "items.csv", dtype=str)
    sampled = items[items["honeypot"] == "false"]
    pi = sampled.groupby(["player_model", "judge_verdict"])["inclusion_probability"].nunique()
    assert (pi > 1).any()  # a model × verdict holds several π (the decks were sampled at other rates)


def test_status_prints_recomputes_estimate_and_interval(campaign):
    status = wa.campaign_status(campaign["camp"], labels=campaign["labels"], targets=["tdr", "lkr"],
                                by=["player_model", "deck"])  # fmt: skip
    rows = {r["target"]: r for r in status.to_dict()["adaptive"]["targets"]}
    corrected = campaign["recompute"]
    compared = with_interval = 0
    for r in corrected.itertuples():
        row = rows[f"{r.metric} {r.model} × {r.deck}"]
        if r.rg_basis != "own":  # only where recompute uses the cell's own labels (the engine)
            continue
        compared += 1
        assert row["estimate"] == pytest.approx(r.rg, abs=1e-12)
        if np.isfinite(r.rg_low):
            with_interval += 1
            assert (row["ci_low"], row["ci_high"]) == pytest.approx((r.rg_low, r.rg_high), abs=1e-12)
        else:
            assert row["ci_low"] is None and row["reason"] == r.rg_reason
    assert compared == len(corrected) == 12  # 3 models × 2 decks × (tdr, lkr): every cell
    assert with_interval >= 6
    note = status.to_dict()["adaptive"]["recompute"]
    assert "prints these estimates and intervals as rg" in note
    assert any(line == f"note: {note}" for line in status.summary())


def test_status_says_when_its_groups_are_not_recomputes_cells(campaign):
    status = wa.campaign_status(
        campaign["camp"], labels=campaign["labels"], targets=["tdr"], by=["player_model"]
    )
    note = status.to_dict()["adaptive"]["recompute"]
    assert note.startswith("`balderdash recompute` prints other numbers: its cells are player_model × deck")
    assert sum(line.startswith("note: `balderdash recompute`") for line in status.summary()) == 1
    # a model's estimate is still the engine's over all its decks
    rows = {r["target"]: r for r in status.to_dict()["adaptive"]["targets"]}
    assert set(rows) == {f"tdr {m}" for m in campaign["items"]["player_model"].unique()}
    assert all(r["estimate"] is not None for r in rows.values())
