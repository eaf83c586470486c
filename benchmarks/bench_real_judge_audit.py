"""The judge audit on a real judge: SmolLM2-135M-Instruct behind llama-cpp-python's server
(``judges/real_server.py``), through the command line a user would type.

1. Connections: the study's ``category_name`` items (a model's name for a gold group against the
   gold name) with the study's human decisions; ``--per-model`` items per player model (seeded;
   0: all 4,310). ``judge run --judge openai:smollm2 --base-url … --cache var/real-judge-cache``,
   then ``analyze judge-audit --scores --by player_model`` (AUC with its DeLong interval, Brier,
   ECE, F1 and FNR per model with intervals).
2. A simulated Balderdash campaign (``balderdash simulate``, seed 0): ``--balderdash`` definition
   items, judged and audited against the simulation's truth. The simulated definitions are
   placeholder texts ("a definition of W written by player P") whose truth was drawn without
   looking at them: the audit must find no signal (AUC near ½), a negative control.
3. An uncertainty-sampling round on the real scores: the judged Connections items planned as a
   campaign (strata player model × the judge's verdict), then ``annotate next --sampling
   uncertainty`` (``wa.next_round``) with the study's decisions as people's labels: which score
   bands the labels go to.

Writes ``benchmarks/results/real_judge_audit.json`` (every figure) and
``benchmarks/results/real_judge_audit.csv`` (per model); the verdicts stay cached, so a rerun
calls nothing. ``make judge-audit`` runs it (the server started and stopped; or ``--base-url``).

    .venv/bin/python -m benchmarks bench_real_judge_audit -- [--per-model 100] [--balderdash 200]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import sys
import tempfile
from pathlib import Path

import pandas as pd

from benchmarks.bench_real_judge import VENV, balderdash_items, connections_items, spread
from wordplay_audit.cli.main import main as cli
from wordplay_audit.judges.real_server import RealServer

REPO = Path(__file__).resolve().parents[1]
CACHE = REPO / "var" / "real-judge-cache"
RESULTS = REPO / "benchmarks" / "results"


def _cli(*args: str) -> dict:
    """Run the command line in-process with ``--json``; its JSON output (exit 0 required)."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = cli([*args, "--json"])
    if code != 0:
        raise SystemExit(f"wordplay-audit {' '.join(args)}: exit {code}")
    return json.loads(out.getvalue())


def judge_and_audit(
    folder: Path, items: pd.DataFrame, human: pd.DataFrame, url: str, kind: str, cache: Path
) -> dict:
    folder.mkdir(parents=True, exist_ok=True)
    items.to_csv(folder / "items.csv", index=False)
    human.to_csv(folder / "human.csv", index=False)
    run = _cli("judge", "run", str(folder / "items.csv"), "--judge", "openai:smollm2", "--base-url", url,
               "--kind", kind, "--cache", str(cache), "--concurrency", "4", "--out", str(folder / "labels.csv"))  # fmt: skip
    audit = _cli("analyze", "judge-audit", "--judge-labels", str(folder / "labels.csv"), "--human",
                 str(folder / "human.csv"), "--items", str(folder / "items.csv"), "--by", "player_model",
                 "--scores", "--bootstrap", "1000", "--out", str(folder / "audit"))  # fmt: skip
    return {"run": run, "audit": audit}


def per_model(audit: dict) -> pd.DataFrame:
    rows = []
    for g in audit["groups"]:
        row = {"player_model": g["player_model"], "n": g["n"], "n_unparsed": g["n_unparsed"],
               "n_scored": g.get("n_scored")}  # fmt: skip
        for metric in ("fnr", "fpr", "f1", "auc"):
            e = g.get(metric) or {}
            row.update(
                {metric: e.get("value"), f"{metric}_low": e.get("ci_low"), f"{metric}_high": e.get("ci_high")}
            )
        row.update({"brier": g.get("brier"), "ece": g.get("ece")})
        rows.append(row)
    return pd.DataFrame(rows)


def uncertainty_round(
    folder: Path,
    items: pd.DataFrame,
    labels: pd.DataFrame,
    human: pd.DataFrame,
    *,
    plan: int,
    budget: int,
    by: list[str] | None = None,
) -> dict:
    """Plan the judged items as a campaign, then one uncertainty round on the judge's scores."""
    import wordplay_audit as wa

    judged = labels[labels["label"].isin(["true", "false"]) & labels["score"].notna()]
    pop = items.merge(judged[["item_id", "label", "score"]], on="item_id").rename(
        columns={"label": "judge_verdict"}
    )
    by = [] if by is None else by  # a campaign of 100 scored items: the verdict × 2 score bands
    wa.plan_campaign(
        pop, out=folder, n=plan, raters=["ann"], overlap=1, strata=[*by, "judge_verdict"], seed=0
    )
    planned = pd.read_csv(folder / "items.csv", dtype=str)["item_id"]
    final = human[human["item_id"].isin(planned)].assign(question="")[["item_id", "question", "label"]]
    try:
        result = wa.next_round(
            folder, budget=budget, labels=final, sampling="uncertainty", seed=1, push=False, by=by
        )
    except wa.ParameterError as exc:  # too few scored items for the strata: said, not hidden
        return {"left_out_unscored": int(len(items) - len(pop)), "error": str(exc)}
    manifest = json.loads((folder / "manifest.json").read_text())
    strata = manifest["uncertainty"]["strata"] if "strata" in manifest.get("uncertainty", {}) else None
    return {"left_out_unscored": int(len(items) - len(pop)), "round": result.to_dict(), "strata": strata}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-model", type=int, default=100, help="Connections items per model (0: all)")
    parser.add_argument("--balderdash", type=int, default=200)
    parser.add_argument("--base-url", default=None)
    parser.add_argument("--venv", type=Path, default=VENV)
    parser.add_argument("--cache", type=Path, default=CACHE)
    parser.add_argument("--plan", type=int, default=60, help="items of the campaign's first round")
    parser.add_argument("--budget", type=int, default=120, help="labels of the uncertainty round")
    args = parser.parse_args()
    os.environ.setdefault("OPENAI_API_KEY", "local")
    server = None if args.base_url else RealServer(args.venv).start()
    url = args.base_url or server.base_url
    try:
        with tempfile.TemporaryDirectory() as tmp:
            tmp = Path(tmp)
            cx_items, cx_human = connections_items()
            if args.per_model:
                cx_items = spread(cx_items, args.per_model * cx_items["player_model"].nunique())
                cx_human = cx_human[cx_human["item_id"].isin(cx_items["item_id"])]
            cx = judge_and_audit(tmp / "cx", cx_items, cx_human, url, "category_name", args.cache)
            cx_labels = pd.read_csv(tmp / "cx" / "labels.csv", dtype={"label": str})
            cx["uncertainty"] = uncertainty_round(
                tmp / "campaign", cx_items, cx_labels, cx_human, plan=args.plan, budget=args.budget
            )
            bd_items, bd_truth = balderdash_items(tmp / "bd")
            bd_items = spread(bd_items, args.balderdash)
            bd_truth = bd_truth[bd_truth["item_id"].isin(bd_items["item_id"])]
            bd_truth = bd_truth.assign(rater="simulated-truth", rater_type="human")[
                ["item_id", "rater", "rater_type", "label"]
            ]
            bd = judge_and_audit(tmp / "bdj", bd_items, bd_truth, url, "definition", args.cache)
    finally:
        if server is not None:
            server.stop()
    figures = {"command": "make judge-audit  (= python -m benchmarks bench_real_judge_audit -- "
               f"--per-model {args.per_model} --balderdash {args.balderdash})",
               "connections": cx, "balderdash": bd}  # fmt: skip
    (RESULTS / "real_judge_audit.json").write_text(json.dumps(figures, indent=1, default=str) + "\n")
    table = pd.concat(
        [per_model(cx["audit"]).assign(data="connections"), per_model(bd["audit"]).assign(data="balderdash")]
    )
    table.to_csv(RESULTS / "real_judge_audit.csv", index=False)
    print(table.to_string(index=False))
    print(f"wrote {RESULTS / 'real_judge_audit.json'} and .csv", file=sys.stderr)


if __name__ == "__main__":
    main()
