"""Simulated campaigns of several settings as one export: one
:class:`~.simulate.SimulatedCampaign` per setting (e.g. ``correct_definition_points`` 0 and 50),
joined with their game and player ids kept apart, as a study that ran several experiments
exports them together."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from wordplay_audit.corpora.balderdash.simulate import SimConfig, SimulatedCampaign, simulate_campaign
from wordplay_audit.corpora.balderdash.tables import item_id_of
from wordplay_audit.errors import InputError

__all__ = ["merge_campaigns", "simulate_settings"]

GAME_STEP, PLAYER_STEP = 1000, 100000
"""Campaign k's game ids are shifted by k · GAME_STEP, its player ids by k · PLAYER_STEP."""


def _shift(values: pd.Series, by: int) -> pd.Series:
    return (values.astype(int) + by).astype(str)


def merge_campaigns(campaigns: Sequence[SimulatedCampaign]) -> SimulatedCampaign:
    """One campaign holding every game of ``campaigns`` (their ids shifted apart; item ids,
    votes, labels and truth follow). The first campaign's config, seed and words stand for it."""
    if not campaigns:
        raise InputError("campaigns: expected at least one simulated campaign")
    games, players, obs, truth, labels = [], [], [], [], []
    for k, c in enumerate(campaigns):
        if (
            c.games["game_id"].astype(int).max() >= GAME_STEP
            or c.players["player_id"].astype(int).max() >= PLAYER_STEP
        ):
            raise InputError(f"campaigns[{k}]: too many games or players to shift apart")  # fmt: skip
        g, p = k * GAME_STEP, k * PLAYER_STEP
        games.append(c.games.assign(game_id=_shift(c.games["game_id"], g)))
        players.append(c.players.assign(game_id=_shift(c.players["game_id"], g), player_id=_shift(c.players["player_id"], p)))  # fmt: skip
        o = c.obs.assign(game_id=_shift(c.obs["game_id"], g), player_id=_shift(c.obs["player_id"], p))
        cast = (o["vote"] != "") & (o["vote"] != "-1")
        o["vote"] = o["vote"].where(~cast, _shift(o["vote"].where(cast, "0"), p))
        ids = [
            item_id_of(a, r, b) for a, r, b in zip(o["game_id"], o["round_id"], o["player_id"], strict=True)
        ]
        rename = dict(zip(c.obs["item_id"], ids, strict=True))
        obs.append(o.assign(item_id=ids))
        truth.append(c.truth.assign(item_id=c.truth["item_id"].map(rename)))
        labels.append(c.labels.assign(item_id=c.labels["item_id"].map(rename)))
    first = campaigns[0]
    join = lambda parts: pd.concat(parts, ignore_index=True)  # noqa: E731
    return SimulatedCampaign(first.config, first.seed, join(games), join(players), join(obs), join(truth),
                             join(labels), first.words)  # fmt: skip


def simulate_settings(configs: Sequence[SimConfig], *, seed: int = 0) -> SimulatedCampaign:
    """One campaign per config (seeds ``seed · 16 + k``), merged (:func:`merge_campaigns`)."""
    return merge_campaigns([simulate_campaign(c, seed=seed * 16 + k) for k, c in enumerate(configs)])
