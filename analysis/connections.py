"""Scores, tables and tests of the Connections study, recomputed from its raw answers.

Definitions (Samadarshi et al., 2024, §4):

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

import numpy as np
import pandas as pd
from scipy import stats
from wordplay_audit.analysis.stats_models import mcnemar_exact_p
from wordplay_audit.corpora.connections import ConnectionsData

WEIGHTS = (1, 2, 3, 4)
MATCH_MODES = ("exact", "casefold")
TAXONOMY_COLUMNS = (
    "Phonology/Orthography/Morphology",
    "Multiword Expressions",
    "Semantic Relations",
    "Associative Relations",
    "Encyclopedic",
    "Word Meaning + Word Form",
)
_FORM = {
    "phonology": "Phonology/Orthography/Morphology",
    "phonological": "Phonology/Orthography/Morphology",
    "orthography": "Phonology/Orthography/Morphology",
    "orthographical": "Phonology/Orthography/Morphology",
    "morphology": "Phonology/Orthography/Morphology",
    "morphological": "Phonology/Orthography/Morphology",
    "multiword expressions": "Multiword Expressions",
}
_MEANING = {
    "semantic relations": "Semantic Relations",
    "associative relations": "Associative Relations",
    "encyclopedic": "Encyclopedic",
}


def _canon(words: Sequence[str], match: str) -> tuple[str, ...]:
    if match not in MATCH_MODES:
        raise ValueError(f"match must be one of {', '.join(MATCH_MODES)}, got {match!r}")
    if match == "casefold":
        return tuple(sorted(str(w).strip().upper() for w in words))
    return tuple(sorted(str(w).strip() for w in words))


@dataclass(frozen=True)
class GameScore:
    unweighted: int
    weighted: int
    categorical: int
    reproduced: tuple[bool, bool, bool, bool]


def score_game(
    gold: Sequence[Sequence[str]],
    answer: Mapping[str, Sequence[str]] | None,
    *,
    yes: Collection[tuple[str, int]] = (),
    match: str = "exact",
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
    if len(gold) != 4:
        raise ValueError(f"expected 4 gold groups, got {len(gold)}")
    if not isinstance(answer, Mapping):
        return GameScore(0, 0, 0, (False, False, False, False))
    yes_set = {(str(name).strip().upper(), int(index)) for name, index in yes}
    answer_groups: dict[tuple[str, ...], list[str]] = {}
    for name, words in answer.items():
        if isinstance(words, str) or not isinstance(words, Sequence):
            continue
        answer_groups.setdefault(_canon(words, match), []).append(str(name).strip().upper())
    reproduced, named = [], []
    for index, group in enumerate(gold):
        names = answer_groups.get(_canon(group, match), [])
        reproduced.append(bool(names))
        named.append(any((n, index) in yes_set for n in names))
    unweighted = sum(reproduced)
    weighted = sum(w for w, r in zip(WEIGHTS, reproduced, strict=True) if r)
    categorical = sum(r and n for r, n in zip(reproduced, named, strict=True))
    return GameScore(unweighted, weighted, categorical, tuple(reproduced))


def match_groups(data: ConnectionsData, *, match: str = "exact") -> pd.DataFrame:
    """One row per model × game × gold group: was it reproduced, by which model group, judged how.

    Columns: ``model``, ``game_key``, ``gold_index``, ``gold_name``, ``reproduced``,
    ``model_name`` (the first reproducing model group, None if none), ``n_reproducing``
    (more than 1 when the answer repeats a group), ``decision`` (the human judgement of that
    pair: ``Yes`` if any reproducing group was judged Yes, else ``No``, None when unjudged).
    """
    gold = data.gold[["game_key", "gold_index", "gold_name", "words"]].copy()
    gold["canon"] = [_canon(w, match) for w in gold["words"]]
    answers = data.answers[["model", "game_key", "model_name", "words"]].copy()
    answers["canon"] = [_canon(w, match) for w in answers["words"]]
    judged = data.judgements.copy()
    judged["model_key"] = judged["model_name"].str.strip().str.upper()
    judged["gold_key"] = judged["gold_name"].str.strip().str.upper()
    decision_of = {
        (r.model, r.game_key, r.model_key, r.gold_key): r.decision for r in judged.itertuples(index=False)
    }
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
        for m, k, n, g in zip(merged["model"], merged["game_key"], merged["model_name"], merged["gold_name"], strict=True)
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
    ``game_index``, ``stored_score``, ``status``). Games a model did not answer score 0."""
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
    grid = pd.MultiIndex.from_product([sorted(data.answer_meta["model"].unique()), scored["game_key"]], names=["model", "game_key"])
    per_game = per_game.set_index(["model", "game_key"]).reindex(grid, fill_value=0).reset_index()
    per_game = per_game.merge(scored, on="game_key").merge(
        data.answer_meta[["model", "game_key", "stored_score", "status", "malformed"]], on=["model", "game_key"], how="left"
    )
    for column in ("unweighted", "weighted", "categorical"):
        per_game[column] = per_game[column].astype(int)
    return per_game.sort_values(["model", "game_index"]).reset_index(drop=True)


def histogram(values: pd.Series, size: int) -> list[int]:
    """Counts of the integers 0 … size−1."""
    counts = np.bincount(np.asarray(values, dtype=int), minlength=size)
    if len(counts) > size:
        raise ValueError(f"value {len(counts) - 1} outside 0..{size - 1}")
    return counts.tolist()


def reasoning_ratio(scores: pd.DataFrame) -> float:
    """The paper's ratio: mean, over games with unweighted > 0, of categorical / unweighted."""
    positive = scores[scores["unweighted"] > 0]
    if positive.empty:
        return float("nan")
    return float((positive["categorical"] / positive["unweighted"]).mean())


def taxonomy_column(knowledge_type: str | None) -> str | None:
    """Map a knowledge-type label to one of the paper's six Table 1 columns.

    Single types map to their column (phonology, orthography and morphology pooled); a
    combination (``a + b``) of a word-form type and a word-meaning type is
    ``Word Meaning + Word Form``. Anything else returns None (counted as unmapped).
    """
    if not knowledge_type:
        return None
    parts = [p.strip().lower() for p in str(knowledge_type).split("+")]
    if len(parts) == 1:
        return _FORM.get(parts[0]) or _MEANING.get(parts[0])
    forms = [p for p in parts if p in _FORM]
    meanings = [p for p in parts if p in _MEANING]
    if forms and meanings and len(forms) + len(meanings) == len(parts):
        return "Word Meaning + Word Form"
    return None


def taxonomy_counts(data: ConnectionsData) -> dict[str, int]:
    """Table 1: categories of the scored games per knowledge-type column (plus ``unmapped``)."""
    scored = set(data.games.loc[data.games["scored"], "game_key"])
    gold = data.gold[data.gold["game_key"].isin(scored)]
    columns = gold["knowledge_type"].map(taxonomy_column)
    counts = {name: int((columns == name).sum()) for name in TAXONOMY_COLUMNS}
    counts["unmapped"] = int(columns.isna().sum())
    return counts


def knowledge_type_success(data: ConnectionsData, matched: pd.DataFrame) -> pd.DataFrame:
    """Per model and taxonomy column: categories, share reproduced, share reproduced *and* named.

    Columns: ``model``, ``knowledge_type``, ``categories``, ``clustered_share``, ``reasoned_share``.
    """
    scored = set(data.games.loc[data.games["scored"], "game_key"])
    gold = data.gold[data.gold["game_key"].isin(scored)][["game_key", "gold_index", "knowledge_type"]].copy()
    gold["column"] = gold["knowledge_type"].map(taxonomy_column)
    frame = matched.merge(gold, on=["game_key", "gold_index"])
    frame["reasoned"] = frame["reproduced"] & (frame["decision"] == "Yes")
    table = (
        frame.dropna(subset=["column"])
        .groupby(["model", "column"])
        .agg(categories=("reproduced", "size"), clustered_share=("reproduced", "mean"), reasoned_share=("reasoned", "mean"))
        .reset_index()
        .rename(columns={"column": "knowledge_type"})
    )
    order = {name: i for i, name in enumerate(TAXONOMY_COLUMNS)}
    return table.sort_values(["model", "knowledge_type"], key=lambda s: s.map(order) if s.name == "knowledge_type" else s).reset_index(drop=True)


def human_scores(data: ConnectionsData, *, match: str = "exact") -> pd.DataFrame:
    """Score each human player's raw answer: one row per answer (``level``, ``player``, ``row``,
    ``game_key``, ``unweighted``, ``weighted``, ``stored_score``). Unmatched answers are left out
    (the reader counted them)."""
    answers = data.human_answers.dropna(subset=["game_key"])
    gold_by_game = {k: [list(w) for w in g.sort_values("gold_index")["words"]] for k, g in data.gold.groupby("game_key")}
    rows = []
    for (level, player, row, key), group in answers.groupby(["level", "player", "row", "game_key"], sort=False):
        answer = {f"g{i}": list(words) for i, words in zip(group["group_index"], group["words"], strict=True)}
        result = score_game(gold_by_game[key], answer, match="casefold" if match == "casefold" else "exact")
        rows.append(
            {"level": level, "player": player, "row": row, "game_key": key,
             "unweighted": result.unweighted, "weighted": result.weighted}
        )
    frame = pd.DataFrame(rows, columns=["level", "player", "row", "game_key", "unweighted", "weighted"])
    stored = data.human_stored.drop_duplicates(["level", "game_key"])
    return frame.merge(stored, on=["level", "game_key"], how="left")


def paired_tests(human: pd.DataFrame, model_scores: pd.DataFrame) -> dict:
    """Human answers vs one model on the same games.

    Wilcoxon signed-rank (two-sided, zero differences dropped — Wilcoxon's method) on the
    unweighted score; exact McNemar (binomial on the discordant pairs) on "solved all four".
    Returns the model's histogram on those games and both p-values (nan when undefined, e.g.
    every difference zero).
    """
    paired = human.merge(model_scores[["game_key", "unweighted"]], on="game_key", suffixes=("_human", "_model"))
    result = {
        "games": int(len(paired)),
        "unweighted_hist": histogram(paired["unweighted_model"], 5),
        "mean_human": float(paired["unweighted_human"].mean()) if len(paired) else float("nan"),
        "mean_model": float(paired["unweighted_model"].mean()) if len(paired) else float("nan"),
    }
    diff = paired["unweighted_human"] - paired["unweighted_model"]
    if (diff != 0).any():
        result["wilcoxon_p"] = float(stats.wilcoxon(paired["unweighted_human"], paired["unweighted_model"]).pvalue)
    else:
        result["wilcoxon_p"] = float("nan")
    human_all = paired["unweighted_human"] == 4
    model_all = paired["unweighted_model"] == 4
    table = [
        [int((human_all & model_all).sum()), int((human_all & ~model_all).sum())],
        [int((~human_all & model_all).sum()), int((~human_all & ~model_all).sum())],
    ]
    result["solved_table"] = table
    if table[0][1] + table[1][0] > 0:
        result["mcnemar_p"] = mcnemar_exact_p(table)
    else:
        result["mcnemar_p"] = float("nan")
    return result
