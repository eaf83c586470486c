"""Data-quality audit of the Connections study's released files.

Lists every inconsistency between the released files and a recomputation from the raw answers:
stored scores that disagree, "Yes" judgements on groups that were not clustered correctly,
answers that could not be read, human scores that disagree with the human raw answers, and the
games where the published Table 5 departs from the recomputation, each with its explanation.
Everything the reader counted (``data.notes``) is listed too.
"""

from __future__ import annotations

import pandas as pd

from wordplay_audit.analysis.connections.published import (
    PUBLISHED_TABLE5,
    SCORED_FROM_ANOTHER_VERSION,
    WORDS_DICT_EXPLANATION,
)
from wordplay_audit.analysis.connections.scores import game_scores, histogram
from wordplay_audit.corpora.connections import ConnectionsData, split_allwords

AUDIT_COLUMNS = ("file", "issue", "game_key", "detail")


def study_scorer_scores(data: ConnectionsData, matched: pd.DataFrame) -> pd.DataFrame:
    """Unweighted scores as the study's scorer produced them from these files: exact,
    case-sensitive matching, and gold groups stored as ``{"Words": [...]}`` never matched."""
    from_dict = data.gold.set_index(["game_key", "gold_index"])["words_from_dict"]
    blocked = matched.join(from_dict, on=["game_key", "gold_index"])
    blocked = blocked.assign(reproduced=blocked["reproduced"] & ~blocked["words_from_dict"].astype(bool))
    return game_scores(data, blocked.drop(columns=["words_from_dict"]))


def published_deviations(data: ConnectionsData, matched: pd.DataFrame, scores: pd.DataFrame) -> pd.DataFrame:
    """Games where the published Table 5 departs from the correct recomputation, with the reason.

    Columns: ``model``, ``game_index``, ``game_key``, ``recomputed``, ``published``, ``reason``.
    """
    emulated = study_scorer_scores(data, matched)
    both = scores.merge(
        emulated[["model", "game_key", "unweighted"]], on=["model", "game_key"], suffixes=("", "_study")
    )
    rows = []
    for row in both.itertuples(index=False):
        if row.model not in PUBLISHED_TABLE5:
            continue
        known = SCORED_FROM_ANOTHER_VERSION.get((row.model, row.game_index))
        if known is not None:
            rows.append((row.model, row.game_index, row.game_key, row.unweighted, known[0], known[1]))
        elif row.unweighted_study != row.unweighted:
            rows.append(
                (
                    row.model,
                    row.game_index,
                    row.game_key,
                    row.unweighted,
                    row.unweighted_study,
                    WORDS_DICT_EXPLANATION,
                )
            )
    return pd.DataFrame(
        rows, columns=["model", "game_index", "game_key", "recomputed", "published", "reason"]
    )


def table5_check(
    scores: pd.DataFrame, deviations: pd.DataFrame, unscored: dict[str, str] | None = None
) -> pd.DataFrame:
    """Per model: recomputed histogram, the histogram after moving the explained games to their
    published value, the published histogram, and whether the latter two agree. A model of
    ``unscored`` (its file read, no answer in it) gets None for all but ``published``, with the
    ``reason``."""
    rows = []
    unscored = unscored or {}
    for model, published in PUBLISHED_TABLE5.items():
        mine = scores[scores["model"] == model]
        if model in unscored:
            rows.append({"model": model, "recomputed": None, "explained_games": None,
                         "recomputed_with_explained_games_as_published": None, "published": published,
                         "agrees": None, "reason": unscored[model]})  # fmt: skip
            continue
        if mine.empty:
            continue
        recomputed = histogram(mine["unweighted"], 5)
        adjusted = list(recomputed)
        for dev in deviations[deviations["model"] == model].itertuples(index=False):
            adjusted[dev.recomputed] -= 1
            adjusted[dev.published] += 1
        rows.append(
            {
                "model": model,
                "recomputed": recomputed,
                "explained_games": deviations.loc[deviations["model"] == model, "game_index"].tolist(),
                "recomputed_with_explained_games_as_published": adjusted,
                "published": published,
                "agrees": adjusted == published,
                "reason": None,
            }
        )
    return pd.DataFrame(rows)


def _answer_shape_issues(data: ConnectionsData) -> pd.DataFrame:
    """Per model and game: groups not 4, groups not of 4 words, words outside the game,
    duplicated words, and case-only mismatches."""
    gold_words = {
        key: {w for ws in group for w in ws} for key, group in data.gold.groupby("game_key")["words"]
    }
    words_of = {
        r.game_key: set(split_allwords(r.allwords)) | gold_words.get(r.game_key, set())
        for r in data.games.itertuples(index=False)
    }
    rows = []
    for (model, key), group in data.answers.groupby(["model", "game_key"], sort=False):
        words = [w for ws in group["words"] for w in ws]
        vocab = words_of.get(key, set())
        upper_vocab = {w.upper() for w in vocab}
        rows.append(
            {
                "model": model,
                "game_key": key,
                "not_four_groups": len(group) != 4,
                "group_not_four_words": any(len(ws) != 4 for ws in group["words"]),
                "word_not_in_game": any(w not in vocab and w.upper() not in upper_vocab for w in words),
                "case_differs": any(w not in vocab and w.upper() in upper_vocab for w in words),
                "duplicated_word": len(set(words)) != len(words),
            }
        )
    return pd.DataFrame(rows)


_SHAPE_ISSUES = {
    "not_four_groups": "answer without 4 groups",
    "group_not_four_words": "answer group not of 4 words",
    "word_not_in_game": "answer word not in the game",
    "case_differs": "answer word differs from the game's only in case",
    "duplicated_word": "answer uses a word twice",
}


def _stored_score_issues(scores: pd.DataFrame) -> list[tuple]:
    return [
        (
            f"{r.model}.json",
            "stored score differs from recomputed",
            r.game_key,
            f"game {r.game_index}: stored {int(r.stored_score)}, recomputed {r.unweighted}",
        )
        for r in scores.itertuples(index=False)
        if pd.notna(r.stored_score) and int(r.stored_score) != r.unweighted
    ]


def _judgement_issues(data: ConnectionsData, matched: pd.DataFrame, scored_keys: set) -> list[tuple]:
    """Judgements naming no gold category / no model group / a group not clustered correctly."""
    reproduced_pairs = {
        (r.model, r.game_key, r.gold_name.strip().upper(), str(r.model_name).strip().upper())
        for r in matched.itertuples(index=False)
        if r.reproduced
    }
    gold_names = {(r.game_key, r.gold_name.strip().upper()) for r in data.gold.itertuples(index=False)}
    model_names = {
        (r.model, r.game_key, r.model_name.strip().upper()) for r in data.answers.itertuples(index=False)
    }
    found = []
    for r in data.judgements.itertuples(index=False):
        if r.game_key not in scored_keys:
            continue
        model_key, gold_key = r.model_name.strip().upper(), r.gold_name.strip().upper()
        pair = f"{r.model_name} / {r.gold_name}"
        if (r.game_key, gold_key) not in gold_names:
            found.append((f"{r.model}.json", "judgement names no gold category", r.game_key, pair))
        elif (r.model, r.game_key, model_key) not in model_names:
            found.append((f"{r.model}.json", "judgement names no model group", r.game_key, pair))
        elif (r.model, r.game_key, gold_key, model_key) not in reproduced_pairs:
            issue = (
                '"Yes" on a group not clustered correctly'
                if r.decision == "Yes"
                else "judgement on a group not clustered correctly"
            )
            found.append((f"{r.model}.json", issue, r.game_key, pair))
    return found


def _matched_issues(matched: pd.DataFrame, scored_keys: set) -> list[tuple]:
    found = []
    for r in matched.itertuples(index=False):
        if r.game_key in scored_keys and r.reproduced and pd.isna(r.decision):
            found.append(
                (
                    f"{r.model}.json",
                    "correct group without a name judgement",
                    r.game_key,
                    f"{r.model_name} / {r.gold_name}",
                )
            )
        if r.game_key in scored_keys and r.n_reproducing > 1:
            found.append(
                (
                    f"{r.model}.json",
                    "answer repeats a correct group",
                    r.game_key,
                    f"{r.gold_name} ×{r.n_reproducing}",
                )
            )
    return found


def _shape_issues(data: ConnectionsData, scored_keys: set) -> list[tuple]:
    shapes = _answer_shape_issues(data)
    if shapes.empty:
        return []
    shapes = shapes[shapes["game_key"].isin(scored_keys)]
    return [
        (f"{r.model}.json", issue, r.game_key, "")
        for column, issue in _SHAPE_ISSUES.items()
        for r in shapes[shapes[column]].itertuples(index=False)
    ]


def _case_issues(scores: pd.DataFrame, casefold_scores: pd.DataFrame) -> list[tuple]:
    both = scores.merge(
        casefold_scores[["model", "game_key", "unweighted"]],
        on=["model", "game_key"],
        suffixes=("", "_casefold"),
    )
    return [
        (
            f"{r.model}.json",
            "score depends on letter case",
            r.game_key,
            f"game {r.game_index}: exact {r.unweighted}, ignoring case {r.unweighted_casefold}",
        )
        for r in both[both["unweighted"] != both["unweighted_casefold"]].itertuples(index=False)
    ]


def _human_issues(human: pd.DataFrame) -> list[tuple]:
    return [
        (
            f"{r.level}.json",
            "stored human score differs from the raw answer's score",
            r.game_key,
            f"{r.player} ({r.level}_raw.csv line {r.row}): stored {int(r.stored_score)}, recomputed {r.unweighted}",
        )
        for r in human.itertuples(index=False)
        if pd.notna(r.stored_score) and int(r.stored_score) != r.unweighted
    ]


def quality_audit(
    data: ConnectionsData,
    matched: pd.DataFrame,
    scores: pd.DataFrame,
    human: pd.DataFrame,
    *,
    casefold_scores: pd.DataFrame | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """All inconsistencies found: a summary (``file``, ``issue``, ``count``) and the details
    (``file``, ``issue``, ``game_key``, ``detail``). ``casefold_scores`` (scores under the other
    matching rule) adds the games whose score depends on letter case."""
    scored_keys = set(data.games.loc[data.games["scored"], "game_key"])
    details = [(n["file"], n["quirk"], n["game_key"], n["detail"]) for n in data.notes]
    details += _stored_score_issues(scores)
    details += _judgement_issues(data, matched, scored_keys)
    details += _matched_issues(matched, scored_keys)
    details += _shape_issues(data, scored_keys)
    if casefold_scores is not None:
        details += _case_issues(scores, casefold_scores)
    details += _human_issues(human)
    detail_frame = pd.DataFrame(details, columns=list(AUDIT_COLUMNS))
    summary = detail_frame.groupby(["file", "issue"]).size().rename("count").reset_index()
    return summary, detail_frame
