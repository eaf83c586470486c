"""A definition campaign in file mode, for the ``annotate`` tests: 40 definitions in four strata
(player model × judge verdict) of 10 each; a proportional plan of 16 draws 4 per stratum
(16 × 10/40), raters ann and bob, overlap 1; ``final_labels`` answers both questions of every
sampled item."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

STRATA = (("m1", "true"), ("m1", "false"), ("m2", "true"), ("m2", "false"))


def population(prefix: str = "d") -> pd.DataFrame:
    rows = [
        {"item_id": f"{prefix}{model}{verdict[0]}{i}", "game": "balderdash", "kind": "definition",
         "context": "w", "reference": "r", "candidate": "c", "player_model": model, "judge_verdict": verdict}
        for model, verdict in STRATA
        for i in range(10)
    ]  # fmt: skip
    return pd.DataFrame(rows)


def plan_definitions(run_cli, items: str, out: str, raters: str = "ann,bob") -> None:
    code, _out, err = run_cli(
        "annotate", "plan", items, "--n", "16", "--raters", raters, "--overlap", "1",
        "--strata", "player_model,judge_verdict", "--seed", "4", "--out", out,
    )  # fmt: skip
    assert code == 0, err


def final_labels(camp: Path, path: Path) -> Path:
    sampled = pd.read_csv(camp / "items.csv", dtype=str)
    rows = []
    for i, item in enumerate(sorted(sampled["item_id"])):
        rows.append({"item_id": item, "question": "reference", "label": str(i % 2 == 0).lower()})
        rows.append({"item_id": item, "question": "any_sense", "label": str(i % 2 == 1).lower()})
    pd.DataFrame(rows).to_csv(path, index=False)
    return path


def read_manifest(camp: Path) -> dict:
    return json.loads((camp / "manifest.json").read_text(encoding="utf-8"))


def rater_uids(camp: Path, rater: str = "ann") -> list[str]:
    return [a["uid"] for a in read_manifest(camp)["assignments"] if a["rater"] == rater]
