"""Scores of the Connections study, recomputed from its raw answers (Samadarshi et al., 2024, §4).

* **unweighted clustering score** — the number of gold groups (0–4) that the answer reproduces
  exactly: some answer group holds exactly the gold group's four words.
* **weighted clustering score** — the same groups weighted by difficulty, yellow 1, green 2,
  blue 3, purple 4 (0–10).
* **categorical reasoning score** — the number of gold groups both reproduced exactly and whose
  model category name a human judged to mean the same as the gold name ("Yes").

Word comparison (``match``): ``"exact"`` compares words after stripping outer white space,
case-sensitively, as multisets (an answer group ``[A, A, B, C]`` is not ``{A, B, C, D}``);
this is how the study scored. ``"casefold"`` also ignores case.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
import pandas as pd

from wordplay_audit.corpora.connections import ConnectionsData
from wordplay_audit.errors import ParameterError, check_choice

MatchMode = Literal["exact", "casefold"]
MATCH_MODES: tuple[MatchMode, ...] = ("exact", "casefold")
WEIGHTS = (1, 2, 3, 4)


def canonical_group(words: Sequence[str], match: MatchMode) -> tuple[str, ...]:
    """The sorted words of a group as compared under ``match`` (a multiset key).

    >>> canonical_group([" b", "A"], "exact"), canonical_group(["b", "A"], "casefold")
    (('A', 'b'), ('A', 'B'))
    """
    check_choice("match", match, MATCH_MODES)
    if match == "casefold":
        return tuple(sorted(str(w).strip().upper() for w in words))
    return tuple(sorted(str(w).strip() for w in words))


@dataclass(frozen=True)
class GameScore:
    """The three scores of one answer and which gold groups (yellow → purple) it reproduced."""

    unweighted: int
    weighted: int
    categorical: int
    reproduced: tuple[bool, bool, bool, bool]


def score_game(
    gold: Sequence[Sequence[str]],
    answer: Mapping[str, Sequence[str]] | None,
    *,
    yes: Collection[tuple[str, int]] = (),
    match: MatchMode = "exact",
) -> GameScore:
    """Score one answer against the four gold groups (yellow → purple).

    ``answer`` maps a model category name to its words; anything that is not a mapping (a
    malformed answer) scores 0. ``yes`` holds the (model category name, gold index) pairs a
    human judged equivalent; names compare case-insensitively. A gold group counts for the
    categorical score when any answer group reproducing it was judged "Yes".

    >>> g = [["A", "B", "C", "D"], ["E", "F", "G", "H"], ["I", "J", "K", "L"], ["M", "N", "O", "P"]]
    >>> score_game(g, {"x": ["D", "C", "B", "A"], "y": ["M", "N", "O", "P"]}, yes={("X", 0)})
    GameScore(unweighted=2, weighted=5, categorical=1, reproduced=(True, False, False, True))
    """
    check_choice("match", match, MATCH_MODES)
    if len(gold) != 4:
        raise ParameterError(f"gold: expected 4 gold groups, got {len(gold)}")
    if not isinstance(answer, Mapping):
        return GameScore(0, 0, 0, (False, False, False, False))
    yes_set = {(str(name).strip().upper(), int(index)) for name, index in yes}
    answer_groups: dict[tuple[str, ...], list[str]] = {}
    for name, words in answer.items():
        if isinstance(words, str) or not isinstance(words, Sequence):
            continue
        answer_groups.setdefault(canonical_group(words, match), []).append(str(name).strip().upper())
    reproduced, named = [], []
    for index, group in enumerate(gold):
        names = answer_groups.get(canonical_group(group, match), [])
        reproduced.append(bool(names))
        named.append(any((n, index) in yes_set for n in names))
    unweighted = sum(reproduced)
    weighted = sum(w for w, r in zip(WEIGHTS, reproduced, strict=True) if r)
    categorical = sum(r and n for r, n in zip(reproduced, named, strict=True))
    return GameScore(unweighted, weighted, categorical, tuple(reproduced))


def _decisions(data: ConnectionsData) -> dict[tuple[str, str, str, str], str]:
    """(model, game key, MODEL NAME, GOLD NAME) → decision of the released judgements."""
    judged = data.judgements
    return {
        (m, k, str(n).strip().upper(), str(g).strip().upper()): d
        for m, k, n, g, d in zip(
            judged["model"],
            judged["game_key"],
            judged["model_name"],
            judged["gold_name"],
            judged["decision"],
            strict=True,
        )
    }


def match_groups(data: ConnectionsData, *, match: MatchMode = "exact") -> pd.DataFrame:
    """One row per model × game × gold group: was it reproduced, by which model group, judged how.

    Columns: ``model``, ``game_key``, ``gold_index``, ``gold_name``, ``reproduced``,
    ``model_name`` (the first reproducing model group, None if none), ``n_reproducing``
    (more than 1 when the answer repeats a group), ``decision`` (the human judgement of that
    pair: ``Yes`` if any reproducing group was judged Yes, else ``No``, None when unjudged).
    """
    check_choice("match", match, MATCH_MODES)
    gold = data.gold[["game_key", "gold_index", "gold_name", "words"]].copy()
    gold["canon"] = [canonical_group(w, match) for w in gold["words"]]
    answers = data.answers[["model", "game_key", "model_name", "words"]].copy()
    answers["canon"] = [canonical_group(w, match) for w in answers["words"]]
    decision_of = _decisions(data)
    frames = []
    for model in sorted(data.answer_meta["model"].unique()):
        mine = answers[answers["model"] == model]
        merged = gold.merge(mine, on=["game_key", "canon"], how="left", suffixes=("", "_answer"))
        merged["model"] = model
        frames.append(merged)
    merged = pd.concat(frames, ignore_index=True)
    merged["reproduced"] = merged["model_name"].notna()
    merged["decision"] = [
        decision_of.get((m, k, n.strip().upper(), g.strip().upper())) if isinstance(n, str) else None
        for m, k, n, g in zip(
            merged["model"], merged["game_key"], merged["model_name"], merged["gold_name"], strict=True
        )
    ]
    merged["yes"] = merged["decision"] == "Yes"
    merged["no"] = merged["decision"] == "No"
    out = (
        merged.groupby(["model", "game_key", "gold_index"], sort=False)
        .agg(
            gold_name=("gold_name", "first"),
            reproduced=("reproduced", "any"),
            model_name=("model_name", "first"),
            n_reproducing=("reproduced", "sum"),
            yes=("yes", "any"),
            no=("no", "any"),
        )
        .reset_index()
    )
    out["decision"] = np.select([out["yes"], out["no"]], ["Yes", "No"], default=None)
    out["model_name"] = out["model_name"].astype(object).where(out["reproduced"], None)
    return out.drop(columns=["yes", "no"])


def game_scores(data: ConnectionsData, matched: pd.DataFrame) -> pd.DataFrame:
    """Per model and scored game: ``unweighted``, ``weighted``, ``categorical`` (and the game's
    ``game_index``, ``stored_score``, ``status``, ``malformed``). Games a model did not answer
    score 0."""
    scored = data.games.loc[data.games["scored"], ["game_key", "game_index"]]
    frame = matched.merge(scored[["game_key"]], on="game_key")
    frame = frame.assign(
        w=np.where(frame["reproduced"], frame["gold_index"] + 1, 0),
        named=frame["reproduced"] & (frame["decision"] == "Yes"),
    )
    per_game = (
        frame.groupby(["model", "game_key"])
        .agg(unweighted=("reproduced", "sum"), weighted=("w", "sum"), categorical=("named", "sum"))
        .reset_index()
    )
    models = sorted(data.answer_meta["model"].unique())
    grid = pd.MultiIndex.from_product([models, scored["game_key"]], names=["model", "game_key"])
    per_game = per_game.set_index(["model", "game_key"]).reindex(grid, fill_value=0).reset_index()
    meta = data.answer_meta[["model", "game_key", "stored_score", "status", "malformed"]]
    per_game = per_game.merge(scored, on="game_key").merge(meta, on=["model", "game_key"], how="left")
    for column in ("unweighted", "weighted", "categorical"):
        per_game[column] = per_game[column].astype(int)
    return per_game.sort_values(["model", "game_index"]).reset_index(drop=True)


def histogram(values: pd.Series, size: int) -> list[int]:
    """Counts of the integers 0 … size−1.

    >>> histogram(pd.Series([0, 4, 4, 2]), 5)
    [1, 0, 1, 0, 2]
    """
    counts = np.bincount(np.asarray(values, dtype=int), minlength=size)
    if len(counts) > size:
        raise ParameterError(f"values: {len(counts) - 1} outside 0..{size - 1}")
    return counts.tolist()


def reasoning_ratio(scores: pd.DataFrame) -> float:
    """The paper's ratio: mean, over games with unweighted > 0, of categorical / unweighted
    (nan when no game has unweighted > 0)."""
    positive = scores[scores["unweighted"] > 0]
    if positive.empty:
        return float("nan")
    return float((positive["categorical"] / positive["unweighted"]).mean())
