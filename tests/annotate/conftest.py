"""Offline definition campaigns the ``annotate`` tests share (no Label Studio server)."""

from __future__ import annotations

import pandas as pd
import pytest

from tests.support import campaigns
from tests.support.tables import write_csv


@pytest.fixture
def campaign_of_16(tmp_path, run_cli, monkeypatch):
    """The campaign of ``tests/support/campaigns.py`` planned offline in ``tmp_path/camp``, and
    ``tmp_path/final.csv`` answering both questions of its 16 items."""
    monkeypatch.delenv("LABEL_STUDIO_URL", raising=False)
    monkeypatch.delenv("LABEL_STUDIO_API_KEY", raising=False)
    campaigns.population().to_csv(tmp_path / "items.csv", index=False)
    campaigns.plan_definitions(run_cli, str(tmp_path / "items.csv"), str(tmp_path / "camp"))
    campaigns.final_labels(tmp_path / "camp", tmp_path / "final.csv")
    return tmp_path


@pytest.fixture
def campaign_of_12(tmp_path, run_cli, monkeypatch):
    """A definition campaign of 12 from 40 items (2 models × 2 judge verdicts × 10), and a
    final.csv labelling 2 of the sampled items on both questions."""
    monkeypatch.delenv("LABEL_STUDIO_URL", raising=False)
    items = [{"item_id": f"{m}{v[0]}{i}", "game": "balderdash", "kind": "definition", "context": "w",
              "reference": "r", "candidate": "c", "player_model": m, "judge_verdict": v}
             for m in ("m1", "m2") for v in ("true", "false") for i in range(10)]  # fmt: skip
    code, _out, err = run_cli(
        "annotate", "plan", write_csv(tmp_path / "items.csv", items), "--n", "12", "--raters", "ann,bob",
        "--overlap", "1", "--strata", "player_model,judge_verdict", "--seed", "4", "--out", str(tmp_path / "camp"),
    )  # fmt: skip
    assert code == 0, err
    sampled = sorted(pd.read_csv(tmp_path / "camp" / "items.csv", dtype=str)["item_id"])[:2]
    final = [{"item_id": i, "question": q, "label": "true", "source": "unanimous", "n_labels": 1}
             for i in sampled for q in ("reference", "any_sense")]  # fmt: skip
    return tmp_path, final
