"""LLMike's metrics per model, from the moves table of :mod:`wordplay_audit.corpora.wof.reader`.

Per model (one report file), over its *finished* games (an unfinished game — the run was cut
off in it, :func:`~wordplay_audit.corpora.wof.items.game_table` — is neither played, won nor
lost: it is counted in ``unfinished`` and enters no other figure), with *letter moves* the
moves whose ``letter`` is one of A–Z (not the opening ``_`` nor a special error value):

* ``games``, ``wins`` (last guess = solution), ``losses``, ``win_rate`` = wins / games;
  ``unfinished``;
* ``final_budget_total`` = Σ over won games of the last move's budget (a lost game takes home
  nothing — its logged budget may even be negative, ``budget − 250`` on a refused purchase),
  ``final_budget_mean_won`` = that total / wins;
* ``letters_chosen`` = number of letter moves; ``pct_correct_letters`` = 100 × (letter moves
  with ``letter_occurences`` > 0) / letters_chosen — a letter absent *or already shown* counts
  as wrong, as the game master counts it;
* ``completion_at_win`` = mean over won games of 100 × (1 − hidden / letters) of the riddle as
  shown when the right guess was given (the last move's ``masked``; spaces excluded);
* ``vowels_bought`` = letter moves naming A, E, I, O or U (only a purchase can name a vowel);
* error taxonomy (:attr:`WofMetrics.errors`): losses by class (insufficient budget, action N/A
  = ``INSTRUCTION ERROR``, consonant N/A, vowel N/A, missing letter, wrong guess, round limit)
  as counts and percent of the model's losses;
* ``wrong_guess_words`` / ``wrong_guess_letters``: wrong-guess losses whose guess has another
  number of words (split on spaces) / letters (spaces removed) than the solution;
* first-letter strategy: ``distinct_first_pairs`` / ``distinct_first_triplets`` = number of
  different ordered first two / three letters over the games that chose that many;
  :attr:`WofMetrics.first_consonants` = per model, percent of games (that named a consonant)
  whose first consonant is each letter, beside its frequency in English text
  (:data:`ENGLISH_CONSONANT_PERCENT`).

Undefined shares (no letters, no wins, no losses) are nan. Reference: Gjinika et al. (2025),
"LLMike: Exploring Large Language Models' Abilities in Wheel of Fortune Riddles".
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from wordplay_audit.corpora.contract import require_columns
from wordplay_audit.corpora.wof.items import game_table
from wordplay_audit.corpora.wof.moves import LOSS_CLASSES, MOVE_KEYS

ENGLISH_CONSONANT_PERCENT = {"T": 9.1, "N": 6.7, "S": 6.3, "H": 6.1, "R": 6.0}
"""Frequency (percent of letters in English text) of the five most frequent consonants."""
VOWELS = frozenset("AEIOU")
_LETTERS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ")


@dataclass
class WofMetrics:
    """Result of :func:`wof_metrics`; ``to_dict()`` is the ``--json`` payload."""

    models: pd.DataFrame  # one row per model
    errors: pd.DataFrame  # model, outcome, count, percent_of_losses
    first_consonants: pd.DataFrame  # model, letter, games, percent, english_percent
    games: pd.DataFrame  # one row per game, unfinished ones too (game_table plus per-game counts)

    @property
    def unfinished(self) -> pd.DataFrame:
        """The unfinished games: ``item_id``, ``model``, ``game``, ``first_line``."""
        left = self.games[~self.games["finished"]]
        return left[["item_id", "model", "game", "first_line"]].reset_index(drop=True)

    def to_dict(self) -> dict:
        return {
            "models": self.models.to_dict(orient="records"),
            "errors": self.errors.to_dict(orient="records"),
            "first_consonants": self.first_consonants.to_dict(orient="records"),
        }


def _game_starts(moves: pd.DataFrame) -> np.ndarray:
    """True on each row whose (model, game) differs from the row before."""
    model = pd.factorize(moves["model"])[0]
    game = moves["game"].to_numpy()
    if len(moves) == 0:
        return np.zeros(0, dtype=bool)
    return np.r_[True, (model[1:] != model[:-1]) | (game[1:] != game[:-1])]


def _ordered(moves: pd.DataFrame) -> pd.DataFrame:
    """The moves with each game's rows together and in move order (sorted only if needed)."""
    starts = _game_starts(moves)
    move = moves["move"].to_numpy()
    in_order = bool(np.all(move[1:][~starts[1:]] > move[:-1][~starts[1:]]))
    heads = moves.loc[starts, ["model", "game"]].astype({"model": str})
    if in_order and not heads.duplicated().any():
        return moves.reset_index(drop=True)
    return moves.sort_values(["model", "game", "move"], kind="stable").reset_index(drop=True)


def _letter_flags(letters: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """Per move: is it a letter move, does it name a vowel (computed once per distinct value)."""
    cat = letters.astype("category")
    names = cat.cat.categories.astype(str)
    is_letter = np.append(np.asarray([n in _LETTERS for n in names], dtype=bool), False)
    is_vowel = np.append(np.asarray([n in VOWELS for n in names], dtype=bool), False)
    codes = cat.cat.codes.to_numpy()
    return is_letter[codes], is_vowel[codes]


def _rank_within(gid: np.ndarray) -> np.ndarray:
    """0-based position of each row within its run of equal ``gid`` (rows grouped)."""
    if len(gid) == 0:
        return gid.copy()
    start = np.r_[True, gid[1:] != gid[:-1]]
    idx = np.arange(len(gid))
    return idx - np.maximum.accumulate(np.where(start, idx, 0))


def per_game(moves: pd.DataFrame) -> pd.DataFrame:
    """:func:`~wordplay_audit.corpora.wof.reader.game_table` plus, per game, ``letters``,
    ``correct_letters``, ``vowels``, ``first_letters`` (the first three letter moves joined),
    ``first_consonant`` and ``completion`` (percent of letters shown in the last ``masked``)."""
    moves = _ordered(moves)
    starts = _game_starts(moves)
    gid = np.cumsum(starts) - 1
    n_games = int(starts.sum())
    games = game_table(moves)
    is_letter, is_vowel = _letter_flags(moves["letter"])
    correct = is_letter & (moves["letter_occurences"].fillna(0).to_numpy() > 0)
    games["letters"] = np.bincount(gid, is_letter, n_games).astype(np.int64)
    games["correct_letters"] = np.bincount(gid, correct, n_games).astype(np.int64)
    games["vowels"] = np.bincount(gid, is_vowel, n_games).astype(np.int64)
    letters = moves["letter"].astype(str).to_numpy(dtype=object)
    rows = np.flatnonzero(is_letter)
    rank = _rank_within(gid[rows])
    firsts = np.full(n_games, "", dtype=object)
    for position in range(3):
        chosen = rows[rank == position]
        firsts[gid[chosen]] += letters[chosen]
    games["first_letters"] = firsts
    cons = rows[~is_vowel[rows]]
    first_cons = cons[_rank_within(gid[cons]) == 0]
    games["first_consonant"] = (
        pd.Series(letters[first_cons], index=gid[first_cons]).reindex(range(n_games)).to_numpy()
    )
    games["completion"] = [_completion(m) for m in games["masked"]]
    return games


def _completion(masked: str) -> float:
    letters = len(masked) - masked.count(" ")
    return 100.0 * (1.0 - masked.count("_") / letters) if letters else 100.0


def _ratio(num: pd.Series, den: pd.Series, scale: float = 1.0) -> pd.Series:
    num, den = num.astype(float), den.astype(float)
    return (scale * num / den.where(den > 0)).astype(float)


def _models(games: pd.DataFrame) -> list[str]:
    return sorted(games["model"].astype(str).unique())


def _model_rows(games: pd.DataFrame) -> pd.DataFrame:
    """The per-model figures over the finished games; every model has a row (one whose games are
    all unfinished has 0 games and null shares)."""
    models = _model_rows_finished(games[games["finished"]]).reindex(_models(games))
    counts = [c for c in models.columns if c not in ("completion_at_win",)]
    models[counts] = models[counts].fillna(0).astype(np.int64)
    unfinished = (~games["finished"]).groupby(games["model"].astype(str)).sum()
    models.insert(2, "unfinished", unfinished.reindex(models.index).astype(np.int64))
    out = models.rename_axis("model").reset_index()
    out["losses"] = out["games"] - out["wins"]
    out["win_rate"] = _ratio(out["wins"], out["games"])
    out["final_budget_mean_won"] = _ratio(out["final_budget_total"], out["wins"])
    out["pct_correct_letters"] = _ratio(out["correct_letters"], out["letters_chosen"], 100.0)
    out["letters_per_game"] = _ratio(out["letters_chosen"], out["games"])
    out["vowels_per_game"] = _ratio(out["vowels_bought"], out["games"])
    return out


def _model_rows_finished(games: pd.DataFrame) -> pd.DataFrame:
    g = games.assign(
        final_budget_won=np.where(games["won"], games["budget"], 0),
        completion_won=games["completion"].where(games["won"]),
        wrong=games["outcome"] == "wrong_guess",
    )
    guess, solution = g["guess"].astype(str), g["solution"].astype(str)
    words_differ = guess.str.count(" ") != solution.str.count(" ")
    letters_differ = guess.str.replace(" ", "").str.len() != solution.str.replace(" ", "").str.len()
    g["wrong_words"] = g["wrong"] & words_differ
    g["wrong_letters"] = g["wrong"] & letters_differ
    firsts = g["first_letters"].astype(str)
    g["pair"] = firsts.str[:2].where(firsts.str.len() >= 2)
    g["triplet"] = firsts.str[:3].where(firsts.str.len() >= 3)
    return g.groupby(g["model"].astype(str), sort=True).agg(
        games=("game", "size"),
        wins=("won", "sum"),
        final_budget_total=("final_budget_won", "sum"),
        letters_chosen=("letters", "sum"),
        correct_letters=("correct_letters", "sum"),
        completion_at_win=("completion_won", "mean"),
        vowels_bought=("vowels", "sum"),
        wrong_guesses=("wrong", "sum"),
        wrong_guess_words=("wrong_words", "sum"),
        wrong_guess_letters=("wrong_letters", "sum"),
        games_with_pair=("pair", "count"),
        distinct_first_pairs=("pair", "nunique"),
        games_with_triplet=("triplet", "count"),
        distinct_first_triplets=("triplet", "nunique"),
    )


def _errors(games: pd.DataFrame) -> pd.DataFrame:
    models = _models(games)
    done = games[games["finished"]]
    counts = pd.crosstab(done["model"].astype(str), done["outcome"]).reindex(
        index=models, columns=list(LOSS_CLASSES), fill_value=0
    )
    long = counts.stack().rename("count").reset_index()
    long.columns = ["model", "outcome", "count"]
    losses = long.groupby("model")["count"].transform("sum")
    long["percent_of_losses"] = _ratio(long["count"], losses, 100.0)
    return long


def _first_consonants(games: pd.DataFrame) -> pd.DataFrame:
    named = games[games["finished"]].dropna(subset=["first_consonant"])
    counts = (
        named.groupby([named["model"].astype(str), "first_consonant"]).size().rename("games").reset_index()
    )
    counts.columns = ["model", "letter", "games"]
    models = _models(games)
    english = pd.DataFrame(
        [(m, c) for m in models for c in ENGLISH_CONSONANT_PERCENT], columns=["model", "letter"]
    )
    table = english.merge(counts, how="outer", on=["model", "letter"]).fillna({"games": 0})
    table["games"] = table["games"].astype(np.int64)
    total = table.groupby("model")["games"].transform("sum")
    table["percent"] = _ratio(table["games"], total, 100.0)
    table["english_percent"] = table["letter"].map(ENGLISH_CONSONANT_PERCENT)
    return table.sort_values(["model", "games", "letter"], ascending=[True, False, True]).reset_index(
        drop=True
    )


def wof_metrics(moves: pd.DataFrame) -> WofMetrics:
    """Every metric of the module docstring, per model."""
    require_columns(moves, ("model", "game", "move", *MOVE_KEYS), "moves")
    games = per_game(moves)
    models = _model_rows(games)
    return WofMetrics(models, _errors(games), _first_consonants(games), games)
