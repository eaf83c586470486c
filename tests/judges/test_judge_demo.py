"""The demo's judge part: both judges run offline (local server), the audit is laid out, and
model text reaches the page escaped."""

from __future__ import annotations

import os

import pandas as pd

from wordplay_audit.analysis.report import Report
from wordplay_audit.workflow.demo_parts import judge_demo


def test_judge_demo_part_offline_and_escaped(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    refs = ["CITRUS FRUITS", "PARTS OF A SHOE", "CHESS PIECES", "PLANETS", "TREES", "PASTA SHAPES"] * 3
    cands = ["Citrus", "Shoe parts", "<script>x</script>", "Planets", "Woods", "Noodles"] * 3
    n = len(refs)
    items = pd.DataFrame({
        "item_id": [f"cx{i}" for i in range(n)], "game": "demo", "kind": "category_name",
        "context": "A, B, C, D", "reference": refs, "candidate": cands,
        "player_model": ["a", "b"] * (n // 2),
    })  # fmt: skip
    labels = pd.DataFrame({"item_id": items["item_id"], "rater": "p", "rater_type": "human",
                           "label": ["true", "true", "false", "true", "false", "true"] * 3})  # fmt: skip
    summary, section, files = judge_demo(items, labels, seed=0)
    assert summary["judges"]["pairs"] == n
    # six distinct pairs, asked once each (repeats answered by the same key), all parsed
    assert summary["judges"]["llm"]["calls"] == 6 and summary["judges"]["llm"]["unparsed"] == 0
    audit = files["tables"]["judges/audit"]
    assert set(audit["judge"]) == {
        summary["judges"]["tfidf"]["judge_id"] + ",cv",
        summary["judges"]["llm"]["judge_id"],
    }
    html = _render(section)
    assert "<script>x" not in html
    assert os.environ.get("OPENAI_API_KEY") is None  # the dummy key was removed again


def _render(section) -> str:
    report = Report("demo")
    report.add(section)
    return report.render()
