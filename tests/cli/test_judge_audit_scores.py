"""`analyze judge-audit --scores`: the score metrics in the text and JSON output and the ROC and
reliability plots in the output folder; the AUC is scikit-learn's on the scored items."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
from sklearn.metrics import roc_auc_score


def test_judge_audit_scores_cli(run_cli, tmp_path):
    rng = np.random.default_rng(5)
    truth = rng.random(80) < 0.5
    score = np.clip(np.where(truth, 0.65, 0.35) + rng.normal(0, 0.2, 80), 0, 1).round(4)
    ids = [f"i{k}" for k in range(80)]
    text = [f"{s}" for s in score]
    text[0] = ""  # unknown: left out and counted
    pd.DataFrame({"item_id": ids, "rater": "j", "rater_type": "judge", "label": np.where(score >= 0.5, "true", "false"),
                  "score": text, "score_source": "logprobs"}).to_csv(tmp_path / "judge.csv", index=False)  # fmt: skip
    pd.DataFrame({"item_id": ids, "rater": "h", "rater_type": "human",
                  "label": np.where(truth, "true", "false")}).to_csv(tmp_path / "human.csv", index=False)  # fmt: skip
    args = ["analyze", "judge-audit", "--judge-labels", str(tmp_path / "judge.csv"), "--human", str(tmp_path / "human.csv"),
            "--by", "", "--scores", "--bootstrap", "0"]  # fmt: skip
    code, out, err = run_cli(*args)
    assert code == 0, err
    assert "79 scored (1 without a score, left out)" in out and "AUC" in out
    code, out, err = run_cli(*args, "--json", "--out", str(tmp_path / "out"))
    assert code == 0, err
    row = json.loads(out)["groups"][0]
    assert abs(row["auc"]["value"] - roc_auc_score(truth[1:], score[1:])) < 1e-12
    assert {"judge_roc.png", "judge_reliability.png"} <= {p.name for p in (tmp_path / "out").iterdir()}
