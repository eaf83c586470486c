"""One row per game, and the games as contract items with the game master's verdicts.

:func:`game_table` names each game's outcome (a win, the loss class its last move shows, or
``unfinished``); :func:`guess_items` turns each finished game's final guess into a ``guess`` item
of the data contract (docs/DATA.md) with the exact-match verdict as a judge label.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from wordplay_audit.corpora.wof.moves import LETTERS, PASS, ROUND_LIMIT, SPECIAL_LETTERS

JUDGE_NAME = "wof-exact-match"
"""The rater of the game master's verdicts (the exact match of a final guess and the solution)."""
UNFINISHED = "unfinished"
"""The outcome of a game whose last move is not one that ends a game (a run cut off in it)."""


def _plays_on_after_a_miss(moves: pd.DataFrame, last: np.ndarray) -> list[str]:
    """The models in whose file some game goes on after a letter not in the riddle (LLMike's
    ``no_letter_loss``: the miss sets the budget to 0 and play goes on). With letter loss the
    only move after a miss is the round limit's ``ERROR`` (a miss on the 20th round), so that
    one is no sign. ``moves`` hold each game's rows together, in move order."""
    missed = (
        moves["letter"].isin(LETTERS).to_numpy() & (moves["letter_occurences"].fillna(-1) == 0).to_numpy()
    )
    letters = moves["letter"].to_numpy(dtype=object)
    next_is_limit = np.r_[letters[1:] == ROUND_LIMIT, False]
    return [str(m) for m in moves.loc[missed & ~last & ~next_is_limit, "model"].unique()]


def game_table(moves: pd.DataFrame) -> pd.DataFrame:
    """One row per game: ``item_id`` (``wof:<model>:<game index>``), its last move's fields,
    ``first_line`` (the line of its opening move), ``n_moves``, ``won``, ``finished`` and
    ``outcome``.

    A game is *finished* when its last move is one after which LLMike's game master ends a game:
    a right guess (``guess`` = ``solution``, then ``won``); a special letter
    (:data:`SPECIAL_LETTERS`); a letter A–Z followed by a guess other than ``PASS`` (a wrong
    guess); a letter whose ``letter_occurences`` is 0 (absent, or already shown) — unless the
    model's file shows the rule without letter loss (a game going on after such a letter, with a
    move other than ``ERROR``). The
    game master plays on after a wrong opening guess and after ``PASS``, so a game whose last
    move is the opening ``_`` without the right guess, or a shown letter followed by ``PASS``, was
    cut off: its outcome is ``unfinished`` — neither won nor lost (``won`` and ``finished``
    False).

    ``outcome`` of a finished game: ``"win"``; else the loss class — a special letter's class,
    ``missing_letter`` for a last letter with 0 occurrences, else ``wrong_guess``.
    """
    keys = ["model", "game"]
    is_last = ~moves.duplicated(keys, keep="last").to_numpy()
    last = moves[is_last]
    per_game = moves.groupby(keys, observed=True, sort=False)["line"].agg(["first", "size"])
    games = last.drop(columns=["move"]).reset_index(drop=True)
    per_game = per_game.reindex(pd.MultiIndex.from_frame(games[keys]))
    games["first_line"] = per_game["first"].to_numpy()
    games["n_moves"] = per_game["size"].to_numpy()
    games["won"] = (games["guess"] == games["solution"]).to_numpy()
    letters = games["letter"].astype(str)
    special = letters.map(SPECIAL_LETTERS)
    is_letter = letters.isin(LETTERS).to_numpy()
    missing = is_letter & (games["letter_occurences"].fillna(-1).to_numpy() == 0)
    missing_ends = ~games["model"].isin(_plays_on_after_a_miss(moves, is_last)).to_numpy()
    guessed = is_letter & (games["guess"] != PASS).to_numpy()
    games["finished"] = (
        games["won"].to_numpy() | special.notna().to_numpy() | (missing & missing_ends) | (guessed & ~missing)
    )
    outcome = np.where(special.notna(), special, np.where(missing, "missing_letter", "wrong_guess"))
    outcome = np.where(games["finished"], outcome, UNFINISHED)
    games["outcome"] = np.where(games["won"], "win", outcome)
    games.insert(0, "item_id", "wof:" + games["model"].astype(str) + ":" + games["game"].astype(str))
    return games


def guess_items(
    moves: pd.DataFrame, *, categories: Mapping[str, str] | None = None
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Contract items (one ``guess`` item per finished game; an unfinished game has no final
    guess to judge) and the game master's exact-match labels.

    ``item_id`` = ``wof:<model>:<game index>``; ``context`` = the riddle as masked when the
    final guess was given (and its category when ``categories`` maps solution → category);
    ``reference`` = solution; ``candidate`` = final guess; strata ``player_model``,
    ``category``, ``outcome``. Labels: rater ``wof-exact-match`` (judge), ``true`` iff the
    final guess equals the solution.
    """
    games = game_table(moves)
    games = games[games["finished"]].reset_index(drop=True)
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
