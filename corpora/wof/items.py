"""One row per game, and the games as contract items with the game master's verdicts.

:func:`game_table` names each game's outcome (a win or the loss class its last move shows);
:func:`guess_items` turns each game's final guess into a ``guess`` item of the data contract
(docs/DATA.md) with the exact-match verdict as a judge label.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from wordplay_audit.corpora.wof.reader import JUDGE_NAME, SPECIAL_LETTERS


def game_table(moves: pd.DataFrame) -> pd.DataFrame:
    """One row per game: ``item_id`` (``wof:<model>:<game index>``), its last move's fields,
    ``n_moves``, ``won`` and ``outcome``.

    ``outcome`` is ``"win"`` when the last ``guess`` equals ``solution``; else the loss class:
    a special letter's class (:data:`SPECIAL_LETTERS`), ``missing_letter`` for a last move whose
    ``letter_occurences`` is 0 (a letter not in the riddle, or already shown), else
    ``wrong_guess``.
    """
    keys = ["model", "game"]
    last = moves.drop_duplicates(keys, keep="last")
    n_moves = moves.groupby(keys, observed=True, sort=False).size()
    games = last.drop(columns=["move"]).reset_index(drop=True)
    games["n_moves"] = n_moves.reindex(pd.MultiIndex.from_frame(games[keys])).to_numpy()
    games["won"] = (games["guess"] == games["solution"]).to_numpy()
    letters = games["letter"].astype(str)
    special = letters.map(SPECIAL_LETTERS)
    missing = games["letter_occurences"].fillna(-1).to_numpy() == 0
    outcome = np.where(special.notna(), special, np.where(missing, "missing_letter", "wrong_guess"))
    games["outcome"] = np.where(games["won"], "win", outcome)
    games.insert(0, "item_id", "wof:" + games["model"].astype(str) + ":" + games["game"].astype(str))
    return games


def guess_items(
    moves: pd.DataFrame, *, categories: Mapping[str, str] | None = None
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Contract items (one ``guess`` item per game) and the game master's exact-match labels.

    ``item_id`` = ``wof:<model>:<game index>``; ``context`` = the riddle as masked when the
    final guess was given (and its category when ``categories`` maps solution → category);
    ``reference`` = solution; ``candidate`` = final guess; strata ``player_model``,
    ``category``, ``outcome``. Labels: rater ``wof-exact-match`` (judge), ``true`` iff the
    final guess equals the solution.
    """
    games = game_table(moves)
    ids = games["item_id"]
    lookup = dict(categories or {})
    category = pd.Series([lookup.get(s, "") for s in games["solution"]], index=games.index, dtype=object)
    context = games["masked"].where(category == "", games["masked"] + " (category: " + category + ")")
    items = pd.DataFrame(
        {
            "item_id": ids,
            "game": "wof",
            "kind": "guess",
            "context": context,
            "reference": games["solution"],
            "candidate": games["guess"],
            "player_model": games["model"].astype(str),
            "category": category,
            "outcome": games["outcome"],
        }
    )
    labels = pd.DataFrame(
        {
            "item_id": ids,
            "rater": JUDGE_NAME,
            "rater_type": "judge",
            "label": np.where(games["won"], "true", "false"),
        }
    )
    return items, labels
