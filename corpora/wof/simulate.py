"""Simulated LLMike runs: scripted players over a riddle list, written as report files.

:func:`simulate_games` plays ``n_games`` riddles (a seeded permutation of the list, cycled)
with one policy; :func:`write_simulation` writes one ``<policy>.jsonl`` report per policy and
``truth.csv``, the simulation's ground truth per game: ``item_id``, ``player_model``,
``game_index``, ``category``, ``solution``, ``final_guess``, ``exact_match`` (the game
master's verdict), ``near_miss`` (the kind of misspelling, empty if none) and
``truly_solved`` (exact match or a near miss: the answer a person would accept).
The generator of a policy is seeded by ``(seed, CRC-32 of the policy name)``, so adding a
policy to a run does not change the others' games.
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from wordplay_audit.corpora.wof.game import Rules, play_game, write_report
from wordplay_audit.corpora.wof.players import make_player
from wordplay_audit.errors import ParameterError


@dataclass
class SimulatedGame:
    """One played riddle: its moves in report order and the ground truth of its final guess."""

    model: str
    index: int
    category: str
    solution: str
    moves: list[dict]
    near_miss: str

    @property
    def final_guess(self) -> str:
        return self.moves[-1]["guess"]

    @property
    def truly_solved(self) -> bool:
        return self.final_guess == self.solution or bool(self.near_miss)


def policy_rng(seed: int, policy: str) -> np.random.Generator:
    """The generator of one policy in a run with ``seed``."""
    return np.random.default_rng([int(seed), zlib.crc32(policy.encode("utf-8"))])


def simulate_games(
    riddles: pd.DataFrame,
    policy: str,
    *,
    n_games: int,
    seed: int = 0,
    rules: Rules | None = None,
    model: str | None = None,
    **player_options,
) -> list[SimulatedGame]:
    """Play ``n_games`` riddles (columns ``category``, ``sentence``) with one policy."""
    if n_games < 1:
        raise ParameterError(f"n_games: expected a positive number of games, got {n_games}")
    rules = rules or Rules()
    rng = policy_rng(seed, policy)
    player = make_player(policy, rng, vowel_cost=rules.vowel_cost, **player_options)
    order = rng.permutation(len(riddles))
    sentences = riddles["sentence"].tolist()
    categories = riddles["category"].tolist()
    games = []
    for index in range(n_games):
        k = int(order[index % len(order)])
        moves = play_game(sentences[k], categories[k], player, rng, rules)
        near = player.near_miss if moves[-1]["guess"] != sentences[k] else None
        games.append(SimulatedGame(model or policy, index, categories[k], sentences[k], moves, near or ""))
    return games


def truth_table(games: Sequence[SimulatedGame]) -> pd.DataFrame:
    """The ground truth per game (columns in the module docstring)."""
    return pd.DataFrame(
        {
            "item_id": [f"wof:{g.model}:{g.index}" for g in games],
            "player_model": [g.model for g in games],
            "game_index": [g.index for g in games],
            "category": [g.category for g in games],
            "solution": [g.solution for g in games],
            "final_guess": [g.final_guess for g in games],
            "exact_match": [g.final_guess == g.solution for g in games],
            "near_miss": [g.near_miss for g in games],
            "truly_solved": [g.truly_solved for g in games],
        }
    )


def write_simulation(folder: str | Path, runs: dict[str, list[SimulatedGame]]) -> dict[str, str]:
    """Write ``<model>.jsonl`` per run and ``truth.csv`` into ``folder`` (which the caller owns,
    e.g. the staging folder of :func:`wordplay_audit.corpora.io.output_folder`)."""
    folder = Path(folder)
    written = {}
    for model, games in runs.items():
        path = folder / f"{model}.jsonl"
        write_report(path, [g.moves for g in games])
        written[model] = path.name
    truth = pd.concat([truth_table(g) for g in runs.values()], ignore_index=True)
    truth.to_csv(folder / "truth.csv", index=False)
    written["truth"] = "truth.csv"
    return written
