"""Uncertainty sampling through the campaign workflow holds its level: simulated campaigns (plan
16 of 200 scored definitions of two models, two uncertainty rounds, people's labels = the
truth), each model's interval from ``wa.campaign_status`` against the model's realised TDR.
Expected: at least the nominal 95 % less 3 binomial SEs (the randomised exact interval may be
conservative, never short)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import wordplay_audit as wa

pytestmark = pytest.mark.slow

CAMPAIGNS = 60


def _campaign(tmp, c: int) -> list[bool]:
    rng = np.random.default_rng([20270301, c])
    rows, truth = [], {}
    for model in ("m1", "m2"):
        for i in range(100):
            p = float(rng.beta(0.7, 0.7))
            truth[f"{model}-{i}"] = bool(rng.random() < p)
            rows.append({"item_id": f"{model}-{i}", "game": "balderdash", "kind": "definition", "context": f"w{i}",
                         "reference": "r", "candidate": "c", "player_model": model,
                         "judge_verdict": str(p >= 0.5).lower(), "score": p})  # fmt: skip
    pop = pd.DataFrame(rows)
    folder = tmp / f"c{c}"
    wa.plan_campaign(pop, out=folder, n=16, raters=["ann"], overlap=1, strata=["player_model", "judge_verdict"],
                     seed=c)  # fmt: skip

    def final() -> pd.DataFrame:
        items = pd.read_csv(folder / "items.csv", dtype=str)
        ids = items.loc[items["honeypot"] == "false", "item_id"]
        return pd.DataFrame({"item_id": ids, "question": "reference",
                             "label": ids.map(truth).map({True: "true", False: "false"})})  # fmt: skip

    for budget, seed in ((40, 1), (30, 2)):
        wa.next_round(folder, budget=budget, labels=final(), sampling="uncertainty", seed=seed, push=False)
    rows = wa.campaign_status(folder, labels=final()).to_dict()["adaptive"]["targets"]
    out = []
    for row in rows:
        model = row["target"].split(" ", 1)[1]
        realised = np.mean([v for k, v in truth.items() if k.startswith(f"{model}-")])
        assert row["ci_low"] is not None, row
        out.append(row["ci_low"] - 1e-12 <= realised <= row["ci_high"] + 1e-12)
    return out


def test_uncertainty_campaigns_cover(tmp_path, monkeypatch):
    monkeypatch.delenv("LABEL_STUDIO_URL", raising=False)
    hits = [hit for c in range(CAMPAIGNS) for hit in _campaign(tmp_path, c)]
    share = float(np.mean(hits))
    assert share >= 0.95 - 3 * np.sqrt(0.95 * 0.05 / len(hits)), (share, len(hits))
