"""``annotate next --sampling uncertainty`` and ``annotate status`` on such a campaign as
commands (file mode, ``--no-push``), their one-line errors (exit 2, the campaign unchanged), and
``balderdash plan --adaptive`` reporting uncertainty sampling beside the allocations."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from tests.support.cli_checks import one_line_error


@pytest.fixture
def camp(tmp_path, run_cli, monkeypatch):
    """A campaign of 16 of 160 scored definitions (2 models), the final labels of its items."""
    monkeypatch.delenv("LABEL_STUDIO_URL", raising=False)
    rng = np.random.default_rng(5)
    rows, truth = [], {}
    for model in ("m1", "m2"):
        for i in range(80):
            p = float(rng.beta(0.7, 0.7))
            truth[f"{model}-{i}"] = bool(rng.random() < p)
            rows.append({"item_id": f"{model}-{i}", "game": "balderdash", "kind": "definition", "context": f"w{i}",
                         "reference": "r", "candidate": "c", "player_model": model,
                         "judge_verdict": str(p >= 0.5).lower(), "score": round(p, 5)})  # fmt: skip
    pop = pd.DataFrame(rows)
    pop.to_csv(tmp_path / "scored.csv", index=False)
    pop.drop(columns="score").to_csv(tmp_path / "unscored.csv", index=False)
    code, _out, err = run_cli("annotate", "plan", str(tmp_path / "scored.csv"), "--n", "16", "--raters", "ann",
                              "--overlap", "1", "--strata", "player_model,judge_verdict", "--out",
                              str(tmp_path / "camp"))  # fmt: skip
    assert code == 0, err

    def final() -> None:
        items = pd.read_csv(tmp_path / "camp" / "items.csv", dtype=str)
        ids = items.loc[items["honeypot"] == "false", "item_id"]
        pd.DataFrame({"item_id": ids, "question": "reference", "label": ids.map(truth).map(str).str.lower()}).to_csv(
            tmp_path / "final.csv", index=False
        )  # fmt: skip

    final()
    return tmp_path, final


def _next(run_cli, tmp, *extra):
    return run_cli("annotate", "next", str(tmp / "camp"), "--budget", "40", "--labels", str(tmp / "final.csv"),
                   "--no-push", *extra)  # fmt: skip


def test_next_and_status_with_uncertainty_sampling(camp, run_cli):
    tmp, final = camp
    code, out, err = _next(run_cli, tmp, "--sampling", "uncertainty", "--seed", "3", "--json")
    assert code == 0, err
    record = json.loads(out)
    assert record["sampling"] == "uncertainty" and len(record["item_ids"]) == 40
    assert all(0 <= s["draw_probability"] <= 1 for s in record["strata"]) and len(record["strata"]) == 8
    final()
    code, out, err = run_cli("annotate", "status", str(tmp / "camp"), "--labels", str(tmp / "final.csv"))
    assert code == 0, err
    assert "post-stratified on the uncertainty strata" in out and "after the next 40" in out


@pytest.mark.parametrize(
    ("extra", "needles"),
    [
        (["--sampling", "active"], ["--sampling: expected one of adaptive, uncertainty; got 'active'"]),
        (["--sampling", "uncertainty", "--bands", "0"], ["--bands: expected a whole number ≥ 1"]),
        (
            ["--sampling", "uncertainty", "--items", "unscored.csv"],
            [
                "--sampling: 'uncertainty' needs the judge's score of every item",
                "`wordplay-audit judge run`",
                "(--items)",
            ],
        ),  # fmt: skip
    ],
)
def test_bad_sampling_options_are_one_line_errors(camp, run_cli, tree_digest, extra, needles):
    tmp, _final = camp
    extra = [str(tmp / e) if e.endswith(".csv") else e for e in extra]
    before = tree_digest(tmp / "camp")
    one_line_error(*_next(run_cli, tmp, *extra), *needles)
    assert tree_digest(tmp / "camp") == before


def test_plan_adaptive_reports_uncertainty_sampling(run_cli):
    args = ["balderdash", "plan", "--adaptive", "--items", "120", "--models", "2", "--model-rate", "0.3,0.6",
            "--rate-halfwidth", "0.1", "--campaigns", "3", "--seed", "2"]  # fmt: skip
    code, out, err = run_cli(*args, "--json")
    assert code == 0, err
    adaptive = json.loads(out)["adaptive"]
    assert list(adaptive["methods"]) == ["proportional", "equal", "adaptive", "uncertainty"]
    method = adaptive["methods"]["uncertainty"]
    assert method["labels_mean"] > 0 and len(method["coverage_per_model"]) == 2
    assert adaptive["saving_uncertainty_vs_adaptive"]["reference"] == "adaptive"
    code, text, err = run_cli(*args)
    assert code == 0 and "uncertainty sampling " in text and "  uncertainty " in text
