"""A game master with LLMike's rules that writes report files in LLMike's exact format.

Rules (one player, one riddle): the opening move asks for a guess with every letter hidden.
Then, at most ``Rules.max_rounds`` times while the guess is not the solution, the player
either *spins* (the wheel pays 100–1000 $ per occurrence of the consonant it then names) or
*buys a vowel* for 250 $. After a revealed letter the player guesses the riddle or says
``PASS``; a wrong guess other than ``PASS`` ends the game. The game also ends on a broken rule,
logged as a special ``letter``: a vowel named after a spin (``VOWEL NOT ALLOWED``), a consonant
named when buying (``CONSONANT NOT ALLOWED``), ``PASS`` as the vowel or an unknown action
(``INSTRUCTION ERROR``), a purchase without 250 $ (``INSUFFICENT BUDGET``, sic); these moves
log ``budget − 250`` except ``VOWEL NOT ALLOWED``, as LLMike does. A letter not in the riddle —
or already shown — ends the game (``letter_occurences`` 0); with ``Rules.letter_loss=False`` it
sets the budget to 0 and the game goes on. After the round limit an ``ERROR`` move is logged
(LLMike logs it whenever 20 rounds were played, even after a right guess on the 20th).

Moves are dicts with the keys of :data:`~wordplay_audit.corpora.wof.moves.MOVE_KEYS` in that
order; :func:`write_report` writes them as LLMike does (``json.dumps`` of each move on its own
line, a blank line after each game).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

import numpy as np

from wordplay_audit.corpora.wof.moves import NOT_APPLICABLE, OPENING, PASS, ROUND_LIMIT

VOWELS = frozenset("AEIOU")
CONSONANTS = frozenset("BCDFGHJKLMNPQRSTVWXYZ")


@dataclass(frozen=True)
class Rules:
    """The game's parameters (LLMike's defaults)."""

    wheel: tuple[int, ...] = tuple(range(100, 1001, 100))
    vowel_cost: int = 250
    max_rounds: int = 20
    letter_loss: bool = True


@dataclass
class View:
    """What the player is shown, plus ``solution`` for scripted players' recognition model."""

    category: str
    masked: str
    budget: int
    solution: str
    tried: list[str] = field(default_factory=list)

    @property
    def revealed(self) -> float:
        """Share of the riddle's letters shown (spaces excluded)."""
        letters = len(self.masked.replace(" ", ""))
        return 1.0 - self.masked.count("_") / letters if letters else 1.0


class Player(Protocol):
    """A player: the game master calls these in the order of the rules."""

    def opening(self, view: View) -> str: ...
    def action(self, view: View) -> str: ...  # "spin", "buy" or anything else (an error)
    def consonant(self, view: View, reward: int) -> str: ...
    def vowel(self, view: View) -> str: ...
    def guess(self, view: View) -> str: ...


def mask(solution: str) -> str:
    """Every letter hidden as ``_``; spaces kept."""
    return "".join(" " if c == " " else "_" for c in solution)


def reveal(letter: str, masked: str, solution: str) -> tuple[str, int]:
    """Show ``letter`` in ``masked``; return the new mask and the occurrences *newly* shown
    (0 for a letter absent or already shown, as LLMike counts it)."""
    shown = "".join(c if c == letter else m for c, m in zip(solution, masked, strict=True))
    if shown == masked:
        return masked, 0
    return shown, solution.count(letter)


def _move(letter, masked, guess, solution, budget, reward=NOT_APPLICABLE, occ=NOT_APPLICABLE) -> dict:
    return {
        "letter": letter,
        "masked": masked,
        "guess": guess,
        "solution": solution,
        "budget": budget,
        "wheel_reward": reward,
        "letter_occurences": occ,
    }


class _Game:
    def __init__(self, solution: str, category: str, player: Player, rng: np.random.Generator, rules: Rules):
        self.view = View(category, mask(solution), 0, solution)
        self.player, self.rng, self.rules = player, rng, rules
        self.moves: list[dict] = []
        self.guess = ""

    def log(self, letter: str, budget: int | None = None, reward=NOT_APPLICABLE, occ=NOT_APPLICABLE) -> None:
        v = self.view
        budget = v.budget if budget is None else budget
        self.moves.append(_move(letter, v.masked, self.guess, v.solution, budget, reward, occ))

    def reveal(self, letter: str, reward) -> bool:
        """Show a letter; log and return False when the game ends on it."""
        v = self.view
        v.tried.append(letter)
        v.masked, occ = reveal(letter, v.masked, v.solution)
        if occ == 0:
            self.log(letter, reward=reward, occ=0)
            if self.rules.letter_loss:
                return False
            v.budget = 0
            return True
        if reward != NOT_APPLICABLE:
            v.budget += reward * occ
        self.guess = self.player.guess(v)
        self.log(letter, reward=reward, occ=occ)
        return self.guess in (v.solution, PASS)

    def spin(self) -> bool:
        reward = int(self.rng.choice(self.rules.wheel))
        letter = str(self.player.consonant(self.view, reward)).upper()
        if letter not in CONSONANTS:
            self.log("VOWEL NOT ALLOWED")
            return False
        return self.reveal(letter, reward)

    def buy(self) -> bool:
        v, cost = self.view, self.rules.vowel_cost
        letter = str(self.player.vowel(v)).upper().replace(" ", "")
        for refused, error in (
            (letter == PASS, "INSTRUCTION ERROR"),
            (letter not in VOWELS, "CONSONANT NOT ALLOWED"),
            (v.budget < cost, "INSUFFICENT BUDGET"),
        ):
            if refused:
                self.log(error, budget=v.budget - cost)
                return False
        v.budget -= cost
        return self.reveal(letter, NOT_APPLICABLE)

    def play(self) -> list[dict]:
        v = self.view
        self.guess = self.player.opening(v)
        self.log(OPENING)
        rounds = 0
        while self.guess != v.solution and rounds < self.rules.max_rounds:
            rounds += 1
            action = self.player.action(v)
            if action == "spin":
                going = self.spin()
            elif action == "buy":
                going = self.buy()
            else:
                self.log("INSTRUCTION ERROR", budget=v.budget - self.rules.vowel_cost)
                going = False
            if not going:
                break
        if rounds >= self.rules.max_rounds:
            self.log(ROUND_LIMIT)
        return self.moves


def play_game(
    solution: str,
    category: str,
    player: Player,
    rng: np.random.Generator,
    rules: Rules | None = None,
) -> list[dict]:
    """Play one riddle; return its moves in report order."""
    return _Game(solution, category, player, rng, rules or Rules()).play()


def format_report(games: Iterable[list[dict]]) -> str:
    """The report text: each move ``json.dumps``-ed on its own line, a blank line after a game."""
    return "".join("".join(json.dumps(m) + "\n" for m in moves) + "\n" for moves in games)


def write_report(path: str | Path, games: Iterable[list[dict]]) -> None:
    """Write a report file (into a folder the caller owns, e.g. an ``output_folder`` stage)."""
    Path(path).write_text(format_report(games), encoding="utf-8")
