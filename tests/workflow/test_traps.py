"""Traps a notebook user met in the Python API, each now an error or fixed: a campaign planned
from Python lacked the marker file (so `annotate` refused to replace it) and a missing folder
raised a raw OSError; the TF-IDF judge built without its corpus fitted each batch on itself."""

from __future__ import annotations

import pandas as pd
import pytest

import wordplay_audit as wa


def _items(n: int = 12) -> pd.DataFrame:
    return pd.DataFrame({"item_id": [f"i{k}" for k in range(n)], "game": "g", "kind": "guess", "context": "c",
                         "reference": [f"word{k}" for k in range(n)], "candidate": [f"word{k % 3}" for k in range(n)],
                         "player_model": ["m1", "m2"] * (n // 2)})  # fmt: skip


def test_plan_campaign_from_python_into_a_missing_folder_writes_a_campaign_the_cli_accepts(tmp_path, run_cli):
    out = tmp_path / "deep" / "campaign"  # its parent does not exist either
    plan = wa.plan_campaign(
        _items(), out=out, n=8, raters=["ann", "bob"], overlap=2, strata=["player_model"], seed=1
    )
    assert (out / ".wordplay-audit").is_file()  # the marker: the folder is this toolkit's output
    assert wa.open_campaign(out).name == "campaign" == plan.to_dict()["campaign"]
    assert (out / "population.csv").is_file()  # an in-memory population is kept for later rounds
    items = tmp_path / "items.csv"
    _items().to_csv(items, index=False)
    code, _out, err = run_cli("annotate", "plan", str(items), "--n", "8", "--raters", "ann,bob", "--seed", "1",
                              "--strata", "player_model", "--out", str(out))  # fmt: skip
    assert code == 0, err  # the same campaign planned again replaces the folder (it carries the marker)


def test_the_tfidf_judge_needs_its_corpus():
    from wordplay_audit.judges import make_judge

    with pytest.raises(
        wa.ParameterError, match="^corpus: the TF-IDF judge needs the texts its idf is fitted on"
    ):
        make_judge("tfidf", threshold=0.5)
    assert make_judge("tfidf", threshold=0.5, corpus=["a b", "b c"]).threshold == 0.5


def test_a_judge_with_its_corpus_scores_a_pair_the_same_in_any_batch():
    """With the corpus the idf is fixed, so a pair's score does not depend on the other pairs of
    its batch; without one (the trap) it does."""
    import asyncio

    from wordplay_audit.judges import Query, TfidfJudge, make_judge

    items = _items(40)
    queries = [Query(item_id=r.item_id, kind="guess", context="c", reference=r.reference, candidate=r.candidate)
               for r in items.itertuples()]  # fmt: skip
    fitted = make_judge("tfidf", threshold=0.5, corpus=[*items["reference"], *items["candidate"]])
    pair = queries[4]  # word4 against word1: a partial match, whose score hangs on the idf
    alone = asyncio.run(fitted.judge([pair]))[0].score
    assert alone == asyncio.run(fitted.judge(queries))[4].score
    unfitted = TfidfJudge(0.5)  # each batch's own idf
    assert (
        asyncio.run(unfitted.judge([pair, queries[5]]))[0].score
        != asyncio.run(unfitted.judge(queries))[4].score
    )
