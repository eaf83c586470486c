"""``wa.balderdash_recompute(..., truth=...)`` and ``balderdash recompute --truth``: one table,
one set of column names, the estimand named, and the designs that cannot identify rater error
refused."""

from __future__ import annotations

import json

import numpy as np
import pytest

import wordplay_audit as wa
from wordplay_audit.errors import ParameterError


@pytest.fixture(scope="module")
def export(tmp_path_factory):
    from wordplay_audit.corpora.balderdash.simulate import SimConfig
    from wordplay_audit.corpora.balderdash.writer import simulate_to_folder

    folder = tmp_path_factory.mktemp("bd_latent")
    config = SimConfig(games_per_deck=3, n_rounds=12, labels_per_stratum=20, rater_accuracy=0.9)
    simulate_to_folder(folder, seed=4, config=config)
    return folder


@pytest.fixture(scope="module")
def both(export):
    data, labels = wa.read_balderdash(export), wa.read_labels(export / "labels.csv")
    return (wa.balderdash_recompute(data, labels),
            wa.balderdash_recompute(data, labels, truth="latent", n_boot=300))  # fmt: skip


def test_same_corrected_columns_and_rows_either_way(both):
    consensus, latent = both
    shared = ["metric", "model", "deck", "n", "n_labelled", "judge", "rg", "rg_low", "rg_high", "ppi",
              "ppi_low", "ppi_high", "rg_reason", "ppi_reason"]  # fmt: skip
    assert set(shared) <= set(consensus.corrected.columns) and set(shared) <= set(latent.corrected.columns)
    keys = ["metric", "model", "deck", "n", "n_labelled"]
    assert consensus.corrected[keys].equals(latent.corrected[keys])
    judge = consensus.corrected["judge"].to_numpy()
    np.testing.assert_allclose(latent.corrected["judge"].to_numpy(), judge)
    rows = latent.corrected
    assert (rows["ppi_low"] <= rows["ppi"]).all() and (rows["ppi"] <= rows["ppi_high"]).all()
    np.testing.assert_array_equal(rows["rg"].to_numpy(), rows["ppi"].to_numpy())


def test_judge_audit_keeps_its_column_names(both):
    consensus, latent = both
    assert set(latent.audits) == set(consensus.audits)
    for question, table in latent.audits.items():
        wanted = ["player_model", "n_labelled", "fnr_w", "fnr_w_low", "fnr_w_high", "specificity_w",
                  "specificity_w_low", "specificity_w_high", "recall_w", "precision_w"]  # fmt: skip
        assert set(wanted) <= set(table.columns) and set(wanted) <= set(consensus.audits[question].columns)
        assert (table["fnr_w_low"] <= table["fnr_w"]).all() and (table["fnr_w"] <= table["fnr_w_high"]).all()
        np.testing.assert_allclose(table["fnr_w"], 1 - table["recall_w"])


def test_json_names_the_truth_and_text_says_what_the_intervals_cover(both):
    consensus, latent = both
    assert consensus.to_dict()["truth"] == "consensus" and latent.to_dict()["truth"] == "latent"
    out = latent.to_dict()
    assert {"rater_accuracy", "dependence", "truth_note"} <= set(out)
    text = "\n".join(latent.summary())
    assert "truth: latent" in text and "bootstrap intervals of the latent truth" in text
    assert "conditional-dependence check (reference)" in text
    assert "truth: consensus" in "\n".join(consensus.summary())


def test_unknown_truth_and_final_labels_are_refused(export, tmp_path):
    data, labels = wa.read_balderdash(export), wa.read_labels(export / "labels.csv")
    with pytest.raises(ParameterError, match="^truth: "):
        wa.balderdash_recompute(data, labels, truth="gold")
    final = labels.drop_duplicates(["item_id", "question"])[["item_id", "label", "question"]]
    with pytest.raises(ParameterError, match="^truth: 'latent' needs each rater's labels"):
        wa.balderdash_recompute(data, final, truth="latent", n_boot=100)


def test_one_rater_per_item_is_refused_by_the_cli_in_one_line(run_cli, tmp_path):
    from wordplay_audit.corpora.balderdash.simulate import SimConfig
    from wordplay_audit.corpora.balderdash.writer import simulate_to_folder

    config = SimConfig(
        games_per_deck=2, n_rounds=8, labels_per_stratum=10, raters_per_item=1, rater_accuracy=0.9
    )
    simulate_to_folder(tmp_path, seed=1, config=config)
    code, out, err = run_cli("balderdash", "recompute", str(tmp_path), "--human", str(tmp_path / "labels.csv"),
                             "--truth", "latent")  # fmt: skip
    assert code == 2 and out == ""
    assert err.strip().count("\n") == 0 and "--truth: 'latent' needs a second rating on ≥ 30 items" in err


def test_cli_latent_json(run_cli, export):
    code, out, err = run_cli("balderdash", "recompute", str(export), "--human", str(export / "labels.csv"),
                             "--truth", "latent", "--json")  # fmt: skip
    assert code == 0, err
    data = json.loads(out)
    assert data["truth"] == "latent"
    assert {r["metric"] for r in data["corrected"]} == {"lkr", "tdr"}
    assert {"se", "se_low", "se_high", "sp", "sp_low", "sp_high"} <= set(
        data["rater_accuracy"]["reference"][0]
    )


def test_constant_sampling_weights_change_nothing(export):
    """Equal 1/π on every label: each stands for the same share of its rest, so the latent
    estimates equal the unweighted ones (the weights path is taken: items carry the column)."""
    from wordplay_audit.analysis.balderdash.latent_cells import latent_rates
    from wordplay_audit.analysis.balderdash.recompute import labels_for

    data = wa.read_balderdash(export)
    labels = labels_for(data.obs, wa.read_labels(export / "labels.csv"))
    plain = latent_rates(data.obs, labels, n_boot=200).corrected
    weighted = latent_rates(data.obs.assign(sampling_weight=4.0), labels, n_boot=200).corrected
    np.testing.assert_allclose(weighted["ppi"].to_numpy(), plain["ppi"].to_numpy(), atol=1e-9)
