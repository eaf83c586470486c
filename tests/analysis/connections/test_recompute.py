"""``connections recompute``: the categorical-reasoning (CR) score and Table 2 under a judge
corrected by a human sample, under a panel, and Tables 1–2 under a relabelled taxonomy.

Expected values come from the study's own tables computed elsewhere (``connections score``'s
per-game scores, its Table 2 shares, the paper's Table 1), from statsmodels' Fleiss' κ, and
from counts of the labels themselves."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import wordplay_audit as wa
from wordplay_audit.analysis.connections import analyze_connections, match_groups
from wordplay_audit.analysis.connections.recompute import (
    _scored_groups,
    category_frame,
    recompute_categorical,
)
from wordplay_audit.analysis.connections.taxonomy import taxonomy_column
from wordplay_audit.analysis.correction import corrected_shares
from wordplay_audit.corpora.connections import read_connections, taxonomy_item_id

pytestmark = pytest.mark.shared

TABLE1 = {"Phonology/Orthography/Morphology": 44, "Multiword Expressions": 168, "Semantic Relations": 1045,
          "Associative Relations": 137, "Encyclopedic": 266, "Word Meaning + Word Form": 92}  # fmt: skip


@pytest.fixture(scope="module")
def study(connections_dir):
    data = read_connections(connections_dir)
    return data, match_groups(data), analyze_connections(data, plots=False)


def _category_labels(result) -> pd.DataFrame:
    labels = result.labels
    return labels[labels["item_id"].str.startswith("cx:")].reset_index(drop=True)


def test_the_study_as_judge_and_as_people_gives_its_own_scores_with_zero_width(study):
    data, matched, result = study
    labels = _category_labels(result)
    out = recompute_categorical(data, matched, labels, labels)
    cr = result.scores.groupby("model")["categorical"].mean()  # `connections score`'s per-game CR
    models = out.models.set_index("model")
    assert np.allclose(models["estimate"], cr.reindex(models.index), rtol=0, atol=1e-12)
    assert (models["ci_low"] == models["estimate"]).all() and (models["ci_high"] == models["estimate"]).all()
    assert np.allclose(models["cr_study"], models["estimate"], atol=1e-12)
    ks = result.knowledge_success.set_index(["model", "knowledge_type"])["reasoned_share"]
    t2 = out.table2.set_index(["model", "knowledge_type"])
    assert np.allclose(t2["estimate"], ks.reindex(t2.index), atol=1e-12)
    assert (t2["ci_high"] - t2["ci_low"]).abs().max() == 0
    assert {k: out.table1[k] for k in TABLE1} == TABLE1  # the paper's Table 1
    assert out.counts["items_without_verdict"] == 2  # the two reproduced groups without a decision


def test_without_people_the_judge_score_is_its_true_verdicts_per_game(study):
    data, matched, result = study
    labels = _category_labels(result)
    rng = np.random.default_rng(1)
    flipped = labels.assign(rater="flippy", rater_type="judge",
                            label=np.where(rng.random(len(labels)) < 0.2, labels["label"].map({"true": "false", "false": "true"}), labels["label"]))  # fmt: skip
    out = recompute_categorical(data, matched, flipped).models.set_index("model")
    per_model = flipped.assign(model=flipped["item_id"].str.split(":").str[-2])
    expected = per_model[per_model["label"] == "true"].groupby("model").size() / 438  # 438 scored games each
    assert np.allclose(out["judge"], expected.reindex(out.index), atol=1e-12)
    assert out["estimate"].isna().all() and (out["n_labelled"] == 0).all()


@pytest.mark.slow  # the command on the whole study, about 5 s
def test_cli_json_keys_and_zero_width_identity(run_cli, connections_dir, tmp_path, study):
    _data, _matched, result = study
    labels = _category_labels(result)
    labels.to_csv(tmp_path / "decisions.csv", index=False)
    code, out, err = run_cli("connections", "recompute", "--seed", "0", "--data", str(connections_dir), "--human",
                             str(tmp_path / "decisions.csv"), "--json")  # fmt: skip
    assert code == 0, err
    models = {m["model"]: m for m in json.loads(out)["models"]}
    assert set(models["gpt4o"]) >= {
        "model",
        "games",
        "cr_judge_mean",
        "cr_corrected_mean",
        "n_human_labelled",
    }
    corrected = models["gpt4o"]["cr_corrected_mean"]
    assert (
        corrected["value"] == pytest.approx(1.212329, abs=1e-6) == corrected["ci_low"] == corrected["ci_high"]
    )
    assert models["gpt4o"]["n_human_labelled"] == models["gpt4o"]["n_items"]


def test_a_relabelled_taxonomy_gives_table1_of_its_consensus_and_fleiss_kappa(study):
    from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa

    data, matched, result = study
    taxonomy = result.labels[result.labels["item_id"].str.startswith("cxt:")]
    rng = np.random.default_rng(3)
    types = sorted(taxonomy["label"].unique())
    raters = []
    for name, noise in (("lin1", 0.0), ("lin2", 0.2), ("lin3", 0.3)):
        change = rng.random(len(taxonomy)) < noise
        raters.append(
            taxonomy.assign(
                rater=name, label=np.where(change, rng.choice(types, len(taxonomy)), taxonomy["label"])
            )
        )
    panel = pd.concat(raters, ignore_index=True)
    out = recompute_categorical(data, matched, _category_labels(result), taxonomy=panel)
    wide = panel.pivot(index="item_id", columns="rater", values="label")
    table, _ = aggregate_raters(wide.to_numpy())
    assert out.counts["taxonomy_agreement"]["fleiss_kappa"] == pytest.approx(fleiss_kappa(table), abs=1e-12)
    votes = wide.apply(lambda r: r.value_counts(), axis=1).fillna(0)
    top = votes.max(axis=1)
    clear = votes.eq(top, axis=0).sum(axis=1) == 1
    consensus = votes[clear].idxmax(axis=1).map(taxonomy_column)
    expected = {k: int((consensus == k).sum()) for k in TABLE1}
    assert {k: out.table1[k] for k in TABLE1} == expected
    assert out.counts["taxonomy_agreement"]["human_ties"] == int((~clear).sum())


@pytest.mark.slow
def test_interval_covers_the_study_cr_with_a_flipping_judge_and_a_30_percent_sample(study):
    """A judge that flips 15 % of the study's decisions, people (= the study) on a simple random
    30 % of the items: over 500 seeds per model the interval covers the CR under all decisions
    in ≥ 93 % (SE ≈ 0.01)."""
    data, matched, result = study
    gold = data.gold
    types = pd.Series(gold["knowledge_type"].map(taxonomy_column).to_numpy(),
                      index=[taxonomy_item_id(k, int(i)) for k, i in zip(gold["game_key"], gold["gold_index"], strict=True)])  # fmt: skip
    labels = _category_labels(result)
    frame, _ = category_frame(_scored_groups(data, matched, types), labels, labels)
    truth = frame["human"].astype(bool).to_numpy()
    realised = pd.Series(truth).groupby(frame["player_model"].to_numpy()).mean()
    covered = {m: 0 for m in realised.index}
    seeds = 500
    for seed in range(seeds):
        rng = np.random.default_rng(seed)
        judge = np.where(rng.random(len(frame)) < 0.15, ~truth, truth)
        sampled = rng.random(len(frame)) < 0.3
        human = pd.array(np.where(sampled, truth, False), dtype="boolean")
        human[~sampled] = pd.NA
        cells = corrected_shares(frame.assign(judge=judge, human=human), cells=["player_model"], seed=seed)
        for row in cells.itertuples():
            covered[row.player_model] += (
                row.ci_low - 1e-12 <= realised[row.player_model] <= row.ci_high + 1e-12
            )
    coverage = {m: c / seeds for m, c in covered.items()}
    assert min(coverage.values()) >= 0.93, coverage


def test_errors_name_the_file(study, tmp_path):
    data, matched, result = study
    labels = _category_labels(result)
    two = pd.concat(
        [labels.assign(rater="a", rater_type="judge"), labels.assign(rater="b", rater_type="judge")]
    )
    two.attrs["source"] = "two.csv"
    with pytest.raises(wa.InputError, match=r"^two.csv: holds verdicts of 2 judges \(a, b\)"):
        recompute_categorical(data, matched, two)
    odd = labels.assign(rater_type="judge", label="maybe")
    odd.attrs["source"] = "odd.csv"
    with pytest.raises(wa.InputError, match="odd.csv: verdict 'maybe': expected true, false or unparsed"):
        recompute_categorical(data, matched, odd)


def _panel_with_a_tie(
    labels: pd.DataFrame, rng: np.random.Generator
) -> tuple[pd.DataFrame, pd.DataFrame, int]:
    """Three raters on a 40 % sample of the category items (the third one noisy), two raters
    only on a few items that then tie, and an adjudicator settling one of those ties."""
    sample = labels[rng.random(len(labels)) < 0.4].reset_index(drop=True)
    flip = {"true": "false", "false": "true"}
    raters = [sample.assign(rater="r1"), sample.assign(rater="r2", label=np.where(rng.random(len(sample)) < 0.1, sample["label"].map(flip), sample["label"]))]  # fmt: skip
    third = sample.iloc[5:].assign(rater="r3", label=np.where(rng.random(len(sample) - 5) < 0.3, sample["label"].iloc[5:].map(flip), sample["label"].iloc[5:]))  # fmt: skip
    panel = pd.concat([*raters, third], ignore_index=True).assign(rater_type="human")
    votes = panel.groupby("item_id")["label"].agg(lambda v: v.value_counts().to_dict())
    tied = [i for i, v in votes.items() if len(v) == 2 and len(set(v.values())) == 1]
    assert tied, "the design must hold a tie"
    settled_one = (
        panel[panel["item_id"] == tied[0]]
        .iloc[:1]
        .assign(rater="boss", rater_type="adjudicator", label="true")
    )
    panel = pd.concat([panel, settled_one], ignore_index=True)
    # by hand: the majority of r1..r3, the adjudicator's label on the tie it settled, other ties left out
    expected = {}
    for item, v in votes.items():
        if item == tied[0]:
            expected[item] = "true"
        elif not (len(v) == 2 and len(set(v.values())) == 1):
            expected[item] = max(v, key=v.get)
    single = pd.DataFrame({"item_id": list(expected), "rater": "majority", "rater_type": "human", "label": list(expected.values())})  # fmt: skip
    return panel, single, len(tied) - 1


@pytest.mark.slow  # three recomputes of the whole study, about 10 s
def test_a_panel_a_final_labels_table_and_its_hand_majority_give_the_same_scores(
    study, run_cli, connections_dir, tmp_path
):
    """People's labels as raters' votes (with a tie an adjudicator settled), as the final labels
    table pull writes (wa.consensus), and as one hand-computed majority rater: one corrected CR."""
    data, matched, result = study
    labels = _category_labels(result)
    judge = labels.assign(rater="study-judge", rater_type="judge")
    panel, single, ties_left = _panel_with_a_tie(labels, np.random.default_rng(11))
    by_hand = recompute_categorical(data, matched, judge, single).models
    by_votes = recompute_categorical(data, matched, judge, panel)
    final = wa.consensus(panel).table
    by_final = recompute_categorical(data, matched, judge, final)
    columns = ["model", "estimate", "ci_low", "ci_high", "n_labelled"]
    pd.testing.assert_frame_equal(by_votes.models[columns], by_hand[columns])
    pd.testing.assert_frame_equal(by_final.models[columns], by_hand[columns])
    assert by_votes.counts["human_ties"] == by_final.counts["human_ties"] == ties_left
    assert by_votes.counts["human_adjudicated"] == by_final.counts["human_adjudicated"] == 1
    # the CLI reads pull's final.csv (the final labels table) for --human
    final.to_csv(tmp_path / "final.csv", index=False)
    judge.to_csv(tmp_path / "judge.csv", index=False)
    code, out, err = run_cli("connections", "recompute", "--seed", "0", "--data", str(connections_dir), "--judge-labels",
                             str(tmp_path / "judge.csv"), "--human", str(tmp_path / "final.csv"), "--json")  # fmt: skip
    assert code == 0, err
    gpt4o = next(m for m in json.loads(out)["models"] if m["model"] == "gpt4o")
    row = by_hand.set_index("model").loc["gpt4o"]
    assert gpt4o["cr_corrected_mean"]["value"] == pytest.approx(row["estimate"], abs=1e-9)
    assert gpt4o["n_human_labelled"] == row["n_labelled"]
