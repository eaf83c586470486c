"""Scripted, seeded players for the game master (:mod:`.game`).

Every policy shares one *recognition* model: the player knows the riddle once at least
``solve_at`` of its letters are shown, and then guesses it (``PASS`` before). What differs:

``frequent-consonant``
    names untried consonants in English frequency order (:data:`CONSONANT_ORDER`) and buys
    the next untried vowel of ``E A O I U`` whenever it holds 250 $ or more.
``random``
    picks spin or buy with equal chance and any untried letter of the alphabet, so it breaks
    every rule now and then (a vowel after a spin, a consonant when buying, buying without
    money) and, with probability ``p_instruction``, answers with no valid action.
``overconfident``
    letters as ``frequent-consonant``, but guesses early (``solve_at`` 0.35) and, with
    probability ``p_near``, misspells its guess: a dropped article (``A``, ``AN``, ``THE``), a
    dropped, doubled or swapped letter. Such a near miss means the solution (a person would
    accept it) but fails the game master's exact match: the simulation's ground truth records it.

Each player draws from the generator it is given, so a run is reproducible from its seed.
"""

from __future__ import annotations

from typing import Literal

import numpy as np

from wordplay_audit.corpora.wof.game import View
from wordplay_audit.corpora.wof.moves import PASS
from wordplay_audit.errors import check_choice

#: The consonants from the most to the least frequent in English text.
CONSONANT_ORDER = "TNSHRDLCMWFGYPBVKJXQZ"
VOWEL_ORDER = "EAOIU"
ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
ARTICLES = ("A", "AN", "THE")
Policy = Literal["frequent-consonant", "random", "overconfident"]
#: The scripted player policies by name.
POLICIES: tuple[str, ...] = ("frequent-consonant", "random", "overconfident")


class ScriptedPlayer:
    """Base policy: frequency-ordered letters; guesses once ``solve_at`` of the letters show."""

    name = "frequent-consonant"

    def __init__(self, rng: np.random.Generator, *, solve_at: float = 0.6, vowel_cost: int = 250):
        self.rng = rng
        self.solve_at = solve_at
        self.vowel_cost = vowel_cost
        self.near_miss: str | None = None  # the kind of the last near-miss guess, if any

    def opening(self, view: View) -> str:
        self.near_miss = None
        return self.guess(view)

    def _next(self, order: str, view: View) -> str | None:
        return next((c for c in order if c not in view.tried), None)

    def action(self, view: View) -> str:
        if view.budget >= self.vowel_cost and self._next(VOWEL_ORDER, view) is not None:
            return "buy"
        return "spin"

    def consonant(self, view: View, reward: int) -> str:  # noqa: ARG002
        return self._next(CONSONANT_ORDER, view) or "Z"

    def vowel(self, view: View) -> str:
        return self._next(VOWEL_ORDER, view) or "E"

    def guess(self, view: View) -> str:
        return view.solution if view.revealed >= self.solve_at else PASS


class RandomPlayer(ScriptedPlayer):
    """Spin or buy at random; any untried letter at random (rules get broken)."""

    name = "random"

    def __init__(self, rng: np.random.Generator, *, p_instruction: float = 0.02, **kwargs):
        super().__init__(rng, **kwargs)
        self.p_instruction = p_instruction

    def _any(self, view: View) -> str:
        left = [c for c in ALPHABET if c not in view.tried] or list(ALPHABET)
        return left[int(self.rng.integers(len(left)))]

    def action(self, view: View) -> str:  # noqa: ARG002
        if self.rng.random() < self.p_instruction:
            return "solve"
        return "spin" if self.rng.random() < 0.5 else "buy"

    def consonant(self, view: View, reward: int) -> str:  # noqa: ARG002
        return self._any(view)

    def vowel(self, view: View) -> str:
        return self._any(view)


class OverconfidentPlayer(ScriptedPlayer):
    """Frequency-ordered letters, early guesses, near-miss spellings with probability ``p_near``."""

    name = "overconfident"

    def __init__(self, rng: np.random.Generator, *, solve_at: float = 0.35, p_near: float = 0.6, **kwargs):
        super().__init__(rng, solve_at=solve_at, **kwargs)
        self.p_near = p_near

    def guess(self, view: View) -> str:
        if view.revealed < self.solve_at:
            return PASS
        if self.rng.random() >= self.p_near:
            return view.solution
        kind, text = near_miss(view.solution, self.rng)
        self.near_miss = kind if text != view.solution else None
        return text


def near_miss(solution: str, rng: np.random.Generator) -> tuple[str, str]:
    """A misspelling that still names ``solution``: ``(kind, text)``.

    Kinds: ``article`` (an article word dropped, when the riddle has one), else one of
    ``dropped`` (a letter left out), ``doubled`` (a letter written twice), ``swapped`` (two
    neighbouring letters of a word exchanged, when they differ).
    """
    words = solution.split(" ")
    articles = [i for i, w in enumerate(words) if w in ARTICLES]
    if articles and len(words) > 1:
        drop = articles[int(rng.integers(len(articles)))]
        return "article", " ".join(w for i, w in enumerate(words) if i != drop)
    positions = [i for i, c in enumerate(solution) if c != " "]
    i = positions[int(rng.integers(len(positions)))]
    kind = ("dropped", "doubled", "swapped")[int(rng.integers(3))]
    swappable = i + 1 < len(solution) and solution[i + 1] not in (" ", solution[i])
    if kind == "swapped" and swappable:
        return kind, solution[:i] + solution[i + 1] + solution[i] + solution[i + 2 :]
    if kind == "dropped" and len(positions) > 1:
        return kind, solution[:i] + solution[i + 1 :]
    return "doubled", solution[:i] + solution[i] + solution[i:]


def make_player(policy: Policy | str, rng: np.random.Generator, **kwargs) -> ScriptedPlayer:
    """The player of a policy name (one of :data:`POLICIES`)."""
    check_choice("policy", policy, POLICIES)
    cls = {
        "frequent-consonant": ScriptedPlayer,
        "random": RandomPlayer,
        "overconfident": OverconfidentPlayer,
    }
    return cls[policy](rng, **kwargs)
