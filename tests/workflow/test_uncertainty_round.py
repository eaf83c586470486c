"""``wa.next_round(..., sampling="uncertainty")`` and the status of such a campaign, on small
populations whose numbers are written out by hand.

The population of the hand tests: one model, 60 definitions the judge called false, 30 with
scores 0.040 … 0.060 (mean p̂ 0.05, a judge sure they are false) and 30 with scores 0.440 … 0.460
(mean 0.45, unsure); two bands per cell × verdict cut them into exactly these halves. Expected
values come from the design's formulas written out here: the allocation of one linear target
(W_h = N_h/N) minimises V = Σ_h W_h² S_h² (1/n_h − 1/N_h), S² = max(q̃(1 − q̃), 0.01)·N/(N − 1),
q̃ = (x + a·p̄)/(n + a), a = 6, after a pilot of 5 per stratum (Cochran 1977, §5.3) — found here
by enumerating every split; each undrawn item's draw probability is add_h/(N_h − d_h); π over the
rounds is the share of its stratum drawn; the estimate is the post-stratified
(K + Σ_h U_h x_h/n_h)/N (Tenenbein 1970)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import wordplay_audit as wa

N_BAND = 30
A = 6.0  # allocation.PSEUDO


def _population(score_flip: bool = False) -> tuple[pd.DataFrame, dict[str, bool]]:
    rng = np.random.default_rng(8)
    rows, truth = [], {}
    for band, centre in ((0, 0.05), (1, 0.45)):
        for i in range(N_BAND):
            item = f"b{band}-{i:02d}"
            score = round(centre - 0.01 + 0.02 * i / (N_BAND - 1), 6)
            truth[item] = bool(rng.random() < centre)
            rows.append({"item_id": item, "game": "balderdash", "kind": "definition", "context": f"w{band}{i}",
                         "reference": "r", "candidate": "c", "player_model": "m1", "judge_verdict": "false",
                         "score": 1 - score if score_flip else score})  # fmt: skip
    return pd.DataFrame(rows), truth


def _final(folder, truth) -> pd.DataFrame:
    items = pd.read_csv(folder / "items.csv", dtype=str)
    ids = items.loc[items["honeypot"] == "false", "item_id"]
    return pd.DataFrame({"item_id": ids, "question": "reference",
                         "label": ids.map(truth).map({True: "true", False: "false"})})  # fmt: skip


@pytest.fixture
def planned(tmp_path, monkeypatch):
    monkeypatch.delenv("LABEL_STUDIO_URL", raising=False)
    pop, truth = _population()
    pop.to_csv(tmp_path / "items.csv", index=False)
    items = wa.read_items(tmp_path / "items.csv")
    wa.plan_campaign(items, out=tmp_path / "camp", n=6, raters=["ann"], overlap=1,
                     strata=["player_model", "judge_verdict"], seed=2)  # fmt: skip
    return tmp_path / "camp", truth


def _counts(folder, truth) -> dict[int, tuple[int, int]]:
    """Per band: (drawn, true among them) from items.csv and the truth."""
    items = pd.read_csv(folder / "items.csv", dtype=str)
    sampled = items[items["honeypot"] == "false"]
    out = {}
    for band in (0, 1):
        ids = [i for i in sampled["item_id"] if i.startswith(f"b{band}-")]
        out[band] = (len(ids), sum(truth[i] for i in ids))
    return out


def _best_split(drawn: dict[int, tuple[int, int]], budget: int) -> dict[int, int]:
    """The hand allocation: pilot to 5 per stratum, then the split of the rest with the least V."""
    mean = {0: 0.05, 1: 0.45}
    s2 = {}
    for h, (d, x) in drawn.items():
        q = (x + A * mean[h]) / (d + A)
        s2[h] = max(q * (1 - q), 0.01) * N_BAND / (N_BAND - 1)
    least = {h: max(0, 5 - d) for h, (d, _) in drawn.items()}
    best, value = None, np.inf
    for add0 in range(least[0], budget - least[1] + 1):
        add = {0: add0, 1: budget - add0}
        v = sum(0.25 * s2[h] * (1 / (drawn[h][0] + add[h]) - 1 / N_BAND) for h in (0, 1))
        assert not np.isclose(v, value), "a tie: choose another budget"
        if v < value:
            best, value = add, v
    return best


def test_round_probabilities_weights_and_manifest_by_hand(planned):
    camp, truth = planned
    before = _counts(camp, truth)
    want = _best_split(before, 16)
    assert want[1] > want[0]  # the unsure band gets more of the labels
    result = wa.next_round(
        camp, budget=16, labels=_final(camp, truth), sampling="uncertainty", seed=3, push=False
    )
    manifest = json.loads((camp / "manifest.json").read_text())
    strata = {row["stratum"]: row for row in manifest["rounds"][0]["strata"]}
    assert set(strata) == {"m1|False|0", "m1|False|1"}
    for h in (0, 1):
        row = strata[f"m1|False|{h}"]
        assert (row["population"], row["drawn_before"], row["add"]) == (N_BAND, before[h][0], want[h])
        assert row["draw_probability"] == pytest.approx(want[h] / (N_BAND - before[h][0]))
        assert row["mean_prob"] == pytest.approx((0.05, 0.45)[h])
    assert manifest["rounds"][0]["sampling"] == "uncertainty"
    design = manifest["uncertainty"]
    assert design["first_round"] == 2 and design["bands"] == 2 and design["cells"] == ["player_model"]
    assert {i: s for i, s in design["assignment"].items()} == {
        f"b{h}-{i:02d}": f"m1|False|{h}" for h in (0, 1) for i in range(N_BAND)
    }
    low = next(s for s in design["strata"] if s["band"] == 0)
    assert (low["score_low"], low["score_high"], low["items"]) == (0.04, 0.06, N_BAND)
    items = pd.read_csv(camp / "items.csv", dtype=str).set_index("item_id")
    for h in (0, 1):
        mine = items[items.index.str.startswith(f"b{h}-")]
        pi = (before[h][0] + want[h]) / N_BAND  # the share of the stratum drawn
        assert len(mine) == before[h][0] + want[h]
        assert mine["inclusion_probability"].astype(float).tolist() == pytest.approx([pi] * len(mine))
        assert mine["sampling_weight"].astype(float).tolist() == pytest.approx([1 / pi] * len(mine))
        assert set(mine["score_band"]) == {str(h)}
    assert "uncertainty sampling: 2 strata" in "\n".join(result.summary())


def test_a_second_round_keeps_the_strata_and_pi_telescopes(planned, tmp_path):
    camp, truth = planned
    wa.next_round(camp, budget=16, labels=_final(camp, truth), sampling="uncertainty", seed=3, push=False)
    first = json.loads((camp / "manifest.json").read_text())["uncertainty"]
    # the scores turned round: fixed strata do not follow them
    flipped, _ = _population(score_flip=True)
    wa.next_round(camp, budget=10, labels=_final(camp, truth), sampling="uncertainty", seed=4, push=False,
                  items=flipped)  # fmt: skip
    manifest = json.loads((camp / "manifest.json").read_text())
    assert manifest["uncertainty"] == first
    assert [r["stratum"] for r in manifest["rounds"][1]["strata"]] == ["m1|False|0", "m1|False|1"]
    third = _counts(camp, truth)
    items = pd.read_csv(camp / "items.csv", dtype=str).set_index("item_id")
    for h in (0, 1):
        mine = items[items.index.str.startswith(f"b{h}-")]
        assert mine["inclusion_probability"].astype(float).tolist() == pytest.approx(
            [third[h][0] / N_BAND] * len(mine)
        )
    assert sum(third[h][0] for h in (0, 1)) == 6 + 16 + 10
    with pytest.raises(wa.ParameterError, match=r"^bands: the uncertainty strata were fixed with 2 bands"):
        wa.next_round(camp, budget=4, labels=_final(camp, truth), sampling="uncertainty", bands=3, push=False)


def test_status_estimate_is_the_post_stratified_estimate_by_hand(planned):
    camp, truth = planned
    wa.next_round(camp, budget=16, labels=_final(camp, truth), sampling="uncertainty", seed=3, push=False)
    final = _final(camp, truth)
    status = wa.campaign_status(camp, labels=final, budget=10)
    row = status.to_dict()["adaptive"]["targets"][0]
    counts = _counts(camp, truth)  # every drawn item is labelled
    known = sum(x for _, x in counts.values())
    rest = sum((N_BAND - n) * x / n for n, x in counts.values())
    assert row["target"] == "tdr m1"
    assert row["estimate"] == pytest.approx((known + rest) / (2 * N_BAND), abs=1e-12)
    assert row["ci_low"] <= row["estimate"] <= row["ci_high"]
    assert row["half_width_next"] < row["half_width_pending"]
    # the same without the bands (one judge-false post-stratum) differs: status used the strata
    plain = known + (2 * N_BAND - sum(n for n, _ in counts.values())) * known / sum(
        n for n, _ in counts.values()
    )
    assert row["estimate"] != pytest.approx(plain / (2 * N_BAND), abs=1e-6)
    assert status.to_dict()["adaptive"]["sampling"] == "uncertainty"
    assert "post-stratified on the uncertainty strata" in "\n".join(status.summary())


def test_the_status_predicts_the_next_round_as_next_would_place_it(planned):
    camp, truth = planned
    wa.next_round(camp, budget=16, labels=_final(camp, truth), sampling="uncertainty", seed=3, push=False)
    final = _final(camp, truth)
    predicted = wa.campaign_status(camp, labels=final, budget=10).to_dict()["adaptive"]["targets"][0]
    drawn = wa.next_round(camp, budget=10, labels=final, sampling="uncertainty", seed=5, push=False)
    assert predicted["half_width_next"] == pytest.approx(drawn.record["half_width_after"]["tdr m1"])


def _two_models(tmp_path, with_scores: bool = True, n: int = 16):
    rng = np.random.default_rng(3)
    rows, truth = [], {}
    for model in ("m1", "m2"):
        for i in range(80):
            p = float(rng.beta(0.7, 0.7))
            item = f"{model}-{i}"
            truth[item] = bool(rng.random() < p)
            row = {"item_id": item, "game": "balderdash", "kind": "definition", "context": f"w{i}",
                   "reference": "r", "candidate": "c", "player_model": model, "judge_verdict": str(p >= 0.5).lower()}  # fmt: skip
            if with_scores:
                row["score"] = round(p, 5)
            rows.append(row)
    pd.DataFrame(rows).to_csv(tmp_path / "items.csv", index=False)
    wa.plan_campaign(wa.read_items(tmp_path / "items.csv"), out=tmp_path / "camp", n=n, raters=["ann"],
                     overlap=1, strata=["player_model", "judge_verdict"], seed=1)  # fmt: skip
    return tmp_path / "camp", truth


def test_every_item_keeps_a_positive_probability(tmp_path, monkeypatch):
    monkeypatch.delenv("LABEL_STUDIO_URL", raising=False)
    camp, truth = _two_models(tmp_path)
    wa.next_round(camp, budget=40, labels=_final(camp, truth), sampling="uncertainty", seed=2, push=False)
    manifest = json.loads((camp / "manifest.json").read_text())
    strata = manifest["rounds"][0]["strata"]
    assert len(strata) == 8  # 2 models × 2 verdicts × 2 bands
    drawn = {s["stratum"]: s["drawn_before"] + s["add"] for s in strata}
    pi = {i: drawn[s] / next(r["population"] for r in strata if r["stratum"] == s)
          for i, s in manifest["uncertainty"]["assignment"].items()}  # fmt: skip
    assert len(pi) == 160 and min(pi.values()) > 0  # every item of the population can be drawn
    (tmp_path / "again").mkdir()
    camp2, _ = _two_models(tmp_path / "again", n=4)  # one item per model × verdict: 4 of 8 strata hold none
    with pytest.raises(
        wa.ParameterError, match=r"^budget: 3 labels leave [1-4] of 8 uncertainty strata without a"
    ):
        wa.next_round(camp2, budget=3, labels=_final(camp2, truth), sampling="uncertainty", push=False)
    # a budget reaching every stratum short of its pilot (all 8) is enough
    wa.next_round(camp2, budget=8, labels=_final(camp2, truth), sampling="uncertainty", push=False)


def test_scores_from_the_judge_labels_the_campaign_was_planned_with(tmp_path, monkeypatch):
    monkeypatch.delenv("LABEL_STUDIO_URL", raising=False)
    camp, truth = _two_models(tmp_path)
    pop = pd.read_csv(tmp_path / "items.csv")
    pd.DataFrame({"item_id": pop["item_id"], "rater": "judge-a", "rater_type": "judge",
                  "label": np.where(pop["judge_verdict"], "true", "false"), "question": "reference",
                  "score": 1 - pop["score"], "score_source": "similarity"}).to_csv(tmp_path / "judge.csv", index=False)  # fmt: skip
    pop.drop(columns="score").to_csv(tmp_path / "items.csv", index=False)
    items = wa.read_items(tmp_path / "items.csv")
    wa.plan_campaign(items, out=camp, n=16, raters=["ann"], overlap=1, strata=["player_model", "judge_verdict"],
                     seed=1, judge_labels=wa.read_labels(tmp_path / "judge.csv"))  # fmt: skip
    wa.next_round(camp, budget=40, labels=_final(camp, truth), sampling="uncertainty", seed=2, push=False)
    design = json.loads((camp / "manifest.json").read_text())["uncertainty"]
    assert design["scores"].endswith("judge.csv: score")
    assert design["prior"].startswith("½")  # a similarity is not a probability: the labels lead
    # bands by the labels' score (1 − p here): the lower band holds the higher p
    one = pop[(pop["player_model"] == "m1") & ~pop["judge_verdict"]].sort_values("score")
    assert design["assignment"][one["item_id"].iloc[0]].endswith("|1")
    assert design["assignment"][one["item_id"].iloc[-1]].endswith("|0")


def test_without_scores_a_one_line_error_names_sampling(tmp_path, monkeypatch):
    monkeypatch.delenv("LABEL_STUDIO_URL", raising=False)
    camp, truth = _two_models(tmp_path, with_scores=False)
    before = (camp / "manifest.json").read_bytes()
    with pytest.raises(wa.ParameterError) as info:
        wa.next_round(camp, budget=20, labels=_final(camp, truth), sampling="uncertainty", push=False)
    text = str(info.value)
    assert text.startswith("sampling: 'uncertainty' needs the judge's score of every item (no judge labels")
    assert "`wa.run_judge`" in text and "\n" not in text
    for kwargs, start in (
        ({"sampling": "active"}, "sampling: expected one of adaptive, uncertainty; got 'active'"),
        ({"sampling": "uncertainty", "bands": 0}, "bands: expected a whole number ≥ 1"),
    ):
        with pytest.raises(wa.ParameterError) as info:
            wa.next_round(camp, budget=20, labels=_final(camp, truth), push=False, **kwargs)
        assert str(info.value).startswith(start), str(info.value)
    assert (camp / "manifest.json").read_bytes() == before


def test_an_item_without_a_score_is_named(tmp_path, monkeypatch):
    monkeypatch.delenv("LABEL_STUDIO_URL", raising=False)
    camp, truth = _two_models(tmp_path)
    pop = pd.read_csv(tmp_path / "items.csv")
    pop.loc[[3, 7], "score"] = np.nan
    with pytest.raises(
        wa.ParameterError, match=r"\(2 of 160 items in items \(score\) have none, e\.g\. 'm1-3'\)"
    ):
        wa.next_round(
            camp, budget=20, labels=_final(camp, truth), sampling="uncertainty", items=pop, push=False
        )


def test_a_later_round_may_not_cut_the_strata(tmp_path, monkeypatch):
    monkeypatch.delenv("LABEL_STUDIO_URL", raising=False)
    camp, truth = _two_models(tmp_path)
    wa.next_round(camp, budget=40, labels=_final(camp, truth), sampling="uncertainty", seed=2, push=False)
    pop = pd.read_csv(tmp_path / "items.csv").assign(deck=lambda f: np.where(f.index % 2, "d1", "d2"))
    with pytest.raises(wa.ParameterError, match=r"^by: 'deck' cuts the uncertainty strata fixed in round 2"):
        wa.next_round(
            camp, budget=10, labels=_final(camp, truth), by=["player_model", "deck"], items=pop, push=False
        )
    # an adaptive round over unions of the strata is fine, and π stays exact per stratum
    wa.next_round(camp, budget=10, labels=_final(camp, truth), sampling="adaptive", seed=6, push=False)
    manifest = json.loads((camp / "manifest.json").read_text())
    items = pd.read_csv(camp / "items.csv", dtype=str)
    sampled = items[items["honeypot"] == "false"].assign(
        stratum=lambda f: f["item_id"].map(manifest["uncertainty"]["assignment"])
    )
    sizes = pd.Series(manifest["uncertainty"]["assignment"]).value_counts()
    for stratum, part in sampled.groupby("stratum"):
        assert part["inclusion_probability"].astype(float).tolist() == pytest.approx(
            [len(part) / sizes[stratum]] * len(part)
        )
