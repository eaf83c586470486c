"""The demo's judge part: two judges on the demo's category-name pairs, audited side by side.

* the TF-IDF judge, its threshold cross-validated on the demo's human labels (the verdicts shown
  are the out-of-fold ones, so the audit is not flattered by the fit);
* an LLM judge through the real ``openai`` client against the local OpenAI-compatible server
  (its scripted rule: yes when the two names share a word of three or more letters). The
  server runs on 127.0.0.1 for the duration and is sent a dummy key, never the user's.

Composition only: :mod:`wordplay_audit.judges` judges, :mod:`wordplay_audit.analysis.judge_audit_groups`
audits, :mod:`wordplay_audit.analysis.judge_audit_report` lays the section out.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd

from wordplay_audit.analysis.judge_audit_groups import judge_audit
from wordplay_audit.analysis.judge_audit_report import fnr_plot, judge_audit_section
from wordplay_audit.analysis.report import Section
from wordplay_audit.corpora.contract import LABEL_COLUMNS
from wordplay_audit.judges.base import queries_from_items
from wordplay_audit.judges.fit import fit_judge
from wordplay_audit.judges.llm import OpenAIJudge
from wordplay_audit.judges.runner import run_judge
from wordplay_audit.judges.server import LocalServer, Script


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


def run_demo_part(folder: Path, *, seed: int = 0) -> tuple[dict[str, Any], Section, dict]:
    """The part for ``wordplay-audit demo``: reads the demo corpus the Connections part wrote
    into ``folder / "connections-demo"`` and runs :func:`judge_demo` on its category names."""
    from wordplay_audit.analysis.connections.result import analyze_connections
    from wordplay_audit.corpora.connections import read_connections

    result = analyze_connections(read_connections(Path(folder) / "connections-demo"), plots=False)
    return judge_demo(result.items, result.labels, seed=seed)
