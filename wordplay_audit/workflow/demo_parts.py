"""The demo's parts that need more than one call: the judges on the demo's category names
(TF-IDF fitted by cross-validation, an LLM judge through the real ``openai`` client against the
local server), a simulated Balderdash campaign in the export format analysed as a user's export
would be, and simulated LLMike runs with people's labels on half of the lost games."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from wordplay_audit.analysis.report import Section


@contextlib.contextmanager
def _local_key() -> Iterator[None]:
    """``OPENAI_API_KEY`` set to a dummy value for the local server, the previous value restored."""
    previous = os.environ.get("OPENAI_API_KEY")
    os.environ["OPENAI_API_KEY"] = "sk-local-demo"
    try:
        yield
    finally:
        if previous is None:
            os.environ.pop("OPENAI_API_KEY", None)
        else:
            os.environ["OPENAI_API_KEY"] = previous


def judge_demo(
    items: pd.DataFrame, labels: pd.DataFrame, *, seed: int = 0
) -> tuple[dict[str, Any], Section, dict]:
    """Judge the ``category_name`` items with both judges and audit them against ``labels``.

    Returns the demo part's (summary, section, files) like the other demo parts.
    """
    from wordplay_audit.analysis.judge_audit_groups import judge_audit
    from wordplay_audit.analysis.judge_audit_report import fnr_plot, judge_audit_section
    from wordplay_audit.corpora.contract import LABEL_COLUMNS
    from wordplay_audit.judges.base import queries_from_items
    from wordplay_audit.judges.fit import fit_judge
    from wordplay_audit.judges.llm import OpenAIJudge
    from wordplay_audit.judges.runner import run_judge
    from wordplay_audit.judges.server import LocalServer, Script

    pairs = items[items["kind"] == "category_name"]
    human = labels[labels["item_id"].isin(pairs["item_id"]) & (labels["rater_type"] == "human")]
    counts = human["label"].value_counts()
    folds = int(min(5, counts.get("true", 0), counts.get("false", 0)))
    fit = fit_judge("tfidf", pairs, human, folds=max(folds, 2), seed=seed, objective="youden")
    with _local_key(), LocalServer(Script(rule="overlap")) as server:
        llm = OpenAIJudge("local-demo", base_url=server.base_url)
        run = run_judge(llm, queries_from_items(pairs), progress=False)
    verdicts = pd.concat([fit.oof_labels(), run.labels[list(LABEL_COLUMNS)]], ignore_index=True)
    audit = judge_audit(verdicts, human, pairs, by=["player_model"], n_boot=1000, seed=seed, min_cell=5)
    section = judge_audit_section(audit, title="Judges on the demo's category names: TF-IDF and an LLM judge")
    summary = {
        "judges": {
            "pairs": int(len(pairs)),
            "tfidf": {"judge_id": fit.judge_id, "cv_f1": fit.cv["f1"], "in_sample_f1": fit.in_sample["f1"]},
            "llm": {"judge_id": run.judge_id, "calls": run.stats.called, **run.to_dict()["labels"]},
        }
    }
    files = {
        "tables": {"judges/audit": audit.table(), "judges/verdicts": verdicts},
        "figures": {"judge_fnr": fnr_plot(audit)},
    }
    return summary, section, files


def judge_part(folder: Path, *, seed: int = 0) -> tuple[dict[str, Any], Section, dict]:
    """The part for ``wordplay-audit demo``: reads the demo corpus the Connections part wrote
    into ``folder / "connections-demo"`` and runs :func:`judge_demo` on its category names."""
    from wordplay_audit.analysis.connections.result import analyze_connections
    from wordplay_audit.corpora.connections import read_connections

    result = analyze_connections(read_connections(Path(folder) / "connections-demo"), plots=False)
    return judge_demo(result.items, result.labels, seed=seed)


DEMO_MODELS = ("omniscient-llm", "average-llm")


def demo_config():
    """A small campaign (one model knows every word) that runs in a few seconds."""
    from wordplay_audit.corpora.balderdash import SimConfig

    return SimConfig(
        models=DEMO_MODELS,
        games_per_deck=2,
        players_per_model=2,
        n_rounds=12,
        know={"omniscient-llm": {"basic_english_words": 1.0, "balderdash_words": 1.0}},
        labels_per_stratum=20,
    )


def balderdash_part(folder: str | Path, seed: int = 0) -> tuple[dict[str, Any], Section]:
    """Write the simulated export into ``folder`` and analyse it; return a JSON-ready summary
    and the report section."""
    from wordplay_audit.analysis.balderdash.report import balderdash_section
    from wordplay_audit.analysis.balderdash.summary import analyze_balderdash
    from wordplay_audit.corpora.balderdash import (
        player_round_table,
        read_export,
        simulate_to_folder,
        true_rates,
    )
    from wordplay_audit.corpora.contract import read_labels

    folder = Path(folder)
    campaign = simulate_to_folder(folder, seed=seed, config=demo_config())
    export = read_export(folder)
    obs = player_round_table(export)
    labels = read_labels(folder / "labels.csv")
    # the demo's judge is as accurate in every round (its simulator), so its rounds may borrow
    result = analyze_balderdash(
        obs, labels, eps=(0.1, 0.2, 0.3), skipped=export.skipped, seed=seed, constant_accuracy=True
    )
    section = balderdash_section(result, title="Balderdash (simulated demo campaign)")
    conv = result.convergence
    omni = conv[(conv["model"] == "omniscient-llm") & (conv["eps"] == 0.1)]
    truth = true_rates(campaign)
    summary = {
        "export": str(folder),
        "n_definitions": int(len(obs)),
        "n_human_labels": int(len(labels)),
        "judge_fnr": {
            str(r["player_model"]): float(r["fnr_w"])
            for r in result.audits["reference"].to_dict(orient="records")
        },
        "omniscient_true_lkr": float(truth.loc[truth["model"] == "omniscient-llm", "lkr"].mean()),
        "omniscient_judge_lkr": float(obs.loc[obs["model"] == "omniscient-llm", "knows"].mean()),
        "omniscient_converged_eps_0.1": {
            "judge_labels": bool(omni["converged_judge"].all()),
            "window_bound": bool(omni["converged_window"].fillna(False).all()),
        },
        "window_lower_bound": [float(v) for v in omni["window_lower"].to_numpy() if np.isfinite(v)],
    }
    return summary, section


def wof_part(folder: str | Path, *, seed: int = 0, games: int = 48) -> tuple[dict, Section]:
    """The demo's Wheel of Fortune part: the demo riddles played by the three policies, written
    as report files into ``folder`` (a folder inside the demo's staging folder), read back,
    measured; scripted people (the simulation's truth) label half of the lost games; the
    exact-match judge audited and wins recomputed. Returns a JSON-ready summary and the section."""
    from wordplay_audit.analysis.wof.metrics import wof_metrics
    from wordplay_audit.analysis.wof.recompute import recompute_wins
    from wordplay_audit.analysis.wof.section import wof_section
    from wordplay_audit.corpora.wof.demo_riddles import demo_riddles
    from wordplay_audit.corpora.wof.items import guess_items
    from wordplay_audit.corpora.wof.players import POLICIES
    from wordplay_audit.corpora.wof.reader import read_reports
    from wordplay_audit.corpora.wof.simulate import simulate_games, write_simulation

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    runs = {p: simulate_games(demo_riddles(), p, n_games=games, seed=seed) for p in POLICIES}
    write_simulation(folder, runs)
    log = read_reports([folder / f"{p}.jsonl" for p in POLICIES])
    metrics = wof_metrics(log.moves)
    items, judge = guess_items(
        log.moves, categories=dict(demo_riddles()[["sentence", "category"]].to_numpy())
    )
    truth = pd.read_csv(folder / "truth.csv", keep_default_na=False).set_index("item_id")
    lost = items[items["outcome"] != "win"].sample(frac=0.5, random_state=seed)
    people = pd.DataFrame(
        {
            "item_id": lost["item_id"],
            "rater": "demo-person",
            "rater_type": "human",
            "label": np.where(truth.loc[lost["item_id"], "truly_solved"], "true", "false"),
        }
    )
    people.to_csv(folder / "labels.csv", index=False)
    result = recompute_wins(
        items, judge, people, completion=metrics.games.set_index("item_id")["completion"], seed=seed
    )
    section = wof_section(
        metrics, result, title="Wheel of Fortune (simulated LLMike runs)", skipped=log.skipped
    )
    rates = result.rates.set_index("model")
    summary = {
        "reports": str(folder),
        "games": int(len(items)),
        "n_human_labels": int(len(people)),
        "exact_win_rate": rates["judge"].to_dict(),
        "corrected_win_rate": rates["corrected"].to_dict(),
        "true_win_rate": truth.groupby("player_model")["truly_solved"].mean().to_dict(),
    }
    return summary, section
