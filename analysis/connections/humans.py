"""Human players' scores from their raw answers, and paired tests of humans against models."""

from __future__ import annotations

import pandas as pd

from wordplay_audit.analysis.connections.scores import MatchMode, histogram, score_game
from wordplay_audit.analysis.proportions import mcnemar_exact_p
from wordplay_audit.corpora.connections import ConnectionsData


def human_scores(data: ConnectionsData, *, match: MatchMode = "exact") -> pd.DataFrame:
    """Score each human player's raw answer: one row per answer (``level``, ``player``, ``row``,
    ``game_key``, ``unweighted``, ``weighted``, ``stored_score``). Unmatched answers are left out
    (the reader counted them)."""
    answers = data.human_answers.dropna(subset=["game_key"])
    gold_by_game = {
        k: [list(w) for w in g.sort_values("gold_index")["words"]] for k, g in data.gold.groupby("game_key")
    }
    rows = []
    for (level, player, row, key), group in answers.groupby(
        ["level", "player", "row", "game_key"], sort=False
    ):
        answer = {f"g{i}": list(words) for i, words in zip(group["group_index"], group["words"], strict=True)}
        result = score_game(gold_by_game[key], answer, match=match)
        rows.append(
            {
                "level": level,
                "player": player,
                "row": row,
                "game_key": key,
                "unweighted": result.unweighted,
                "weighted": result.weighted,
            }
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
    paired = human.merge(
        model_scores[["game_key", "unweighted"]], on="game_key", suffixes=("_human", "_model")
    )
    result = {
        "games": int(len(paired)),
        "unweighted_hist": histogram(paired["unweighted_model"], 5),
        "mean_human": float(paired["unweighted_human"].mean()) if len(paired) else float("nan"),
        "mean_model": float(paired["unweighted_model"].mean()) if len(paired) else float("nan"),
    }
    diff = paired["unweighted_human"] - paired["unweighted_model"]
    if (diff != 0).any():
        from scipy import stats  # here: scipy.stats costs seconds of import, needed only for this test

        result["wilcoxon_p"] = float(
            stats.wilcoxon(paired["unweighted_human"], paired["unweighted_model"]).pvalue
        )
    else:
        result["wilcoxon_p"] = float("nan")
    human_all = paired["unweighted_human"] == 4
    model_all = paired["unweighted_model"] == 4
    table = [
        [int((human_all & model_all).sum()), int((human_all & ~model_all).sum())],
        [int((~human_all & model_all).sum()), int((~human_all & ~model_all).sum())],
    ]
    result["solved_table"] = table
    result["mcnemar_p"] = mcnemar_exact_p(table) if table[0][1] + table[1][0] > 0 else float("nan")
    return result
