"""Simulated Balderdash campaigns with known ground truth (the pure part; files are written by
:mod:`.writer`).

Generative model, per definition of player p (model m) in round r of a game on deck d:

* knows a sense:        K ~ Bernoulli(clip(π_{m,d} + β_m (r − 1), 0, 1))
* matches the reference: R = K ∧ Bernoulli(ρ)                       (so R ⇒ K, as in the game)
* judge's verdict:      R̂ ~ Bernoulli(Se_m) if R else Bernoulli(1 − Sp_m)
* judge's "knows":      K̂ = R̂ ∨ (K ∧ Bernoulli(κ_m)), κ_m = (Se_m − a_m)/(1 − a_m),
                        a_m = ρ Se_m + (1 − ρ)(1 − Sp_m)        (R̂ ⇒ K̂, as the framework)

so the judge's sensitivity and specificity are Se_m and Sp_m for both questions, on every deck. Players whose R̂ is true score the
definition points and do not vote; every other player votes for the reference with probability
``p_reference_vote``, otherwise uniformly for another ballot definition (reference when none).
Scores follow the framework's rules. People label a sample (stratified by model, deck and the
judge's verdict, or a simple random sample per model and deck); each of ``raters_per_item``
answers both questions correctly with probability ``rater_accuracy``.

Everything is drawn from one ``numpy.random.default_rng(seed)``: same seed, same campaign.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from wordplay_audit.corpora.balderdash.model import PLAYER_ROUND_COLUMNS
from wordplay_audit.errors import InputError

#: The player models of a simulated campaign unless given.
DEFAULT_MODELS = ("llama-3-8b", "gemma-2-9b", "gpt-4o-mini")
#: The word decks of a simulated campaign unless given.
DEFAULT_DECKS = ("basic_english_words", "balderdash_words")


@dataclass(frozen=True)
class SimConfig:
    """Parameters of a simulated campaign (see the module docstring for the model)."""

    models: tuple[str, ...] = DEFAULT_MODELS
    decks: tuple[str, ...] = DEFAULT_DECKS
    games_per_deck: int = 3
    players_per_model: int = 2
    n_rounds: int = 20
    know: Mapping[str, Mapping[str, float]] = field(default_factory=dict)
    """π_{m,d}; missing entries default to 0.8 on the first deck, 0.4 on the others."""
    slope: Mapping[str, float] = field(default_factory=dict)
    reference_share: float = 0.85
    judge_se: Mapping[str, float] = field(default_factory=dict)
    """Se_m, default 0.74 (the study's reported judge recall)."""
    judge_sp: Mapping[str, float] = field(default_factory=dict)
    """Sp_m, default 0.97."""
    p_reference_vote: float = 0.5
    receiving_vote_points: int = 1
    correct_vote_points: int = 2
    correct_definition_points: int = 3
    history_type: str = "full"
    filter_words: str = "all"
    judge_model: str = "judge-llm"
    words_per_deck: int = 200
    labels_per_stratum: int = 25
    design: str = "stratified"
    raters_per_item: int = 3
    rater_accuracy: float = 1.0

    def know_of(self, model: str, deck: str) -> float:
        default = 0.8 if deck == self.decks[0] else 0.4
        return float(self.know.get(model, {}).get(deck, default))

    def check(self) -> None:
        """Raise InputError on an impossible configuration."""
        if not self.models or not self.decks:
            raise InputError("simulation needs at least one model and one deck")
        if self.games_per_deck < 1 or self.players_per_model < 1 or self.n_rounds < 1:
            raise InputError("games_per_deck, players_per_model and n_rounds must be at least 1")
        if self.design not in ("stratified", "random"):
            raise InputError(f"design must be 'stratified' or 'random', got {self.design!r}")
        if self.n_rounds > self.words_per_deck:
            raise InputError("n_rounds cannot exceed words_per_deck")
        probs = {
            "reference_share": self.reference_share,
            "p_reference_vote": self.p_reference_vote,
            "rater_accuracy": self.rater_accuracy,
            **{f"judge_se[{k}]": v for k, v in self.judge_se.items()},
            **{f"judge_sp[{k}]": v for k, v in self.judge_sp.items()},
        }
        for name, value in probs.items():
            if not 0.0 <= float(value) <= 1.0:
                raise InputError(f"{name} must be a probability in [0, 1], got {value}")
        if self.raters_per_item < 1 or self.labels_per_stratum < 0:
            raise InputError("raters_per_item must be ≥ 1 and labels_per_stratum ≥ 0")


@dataclass
class SimulatedCampaign:
    """A simulated export (as tables), its truth and people's labels.

    ``obs`` has the columns of :func:`corpora.balderdash.player_round_table` plus ``definition``
    and ``correct_definition``; ``truth`` has ``item_id``, ``model``, ``deck``, ``round_id``,
    ``p_know``, ``true_any``, ``true_ref``; ``labels`` is a contract labels table (people only);
    ``words`` maps deck → ``word``, ``senses``, ``frequency_band``.
    """

    config: SimConfig
    seed: int
    games: pd.DataFrame
    players: pd.DataFrame
    obs: pd.DataFrame
    truth: pd.DataFrame
    labels: pd.DataFrame
    words: dict[str, pd.DataFrame]


def _words(config: SimConfig) -> dict[str, pd.DataFrame]:
    out = {}
    for d_index, deck in enumerate(config.decks):
        band = "common" if d_index == 0 else "rare"
        words = [f"{deck.split('_')[0][:4]}word{k:03d}" for k in range(config.words_per_deck)]
        out[deck] = pd.DataFrame(
            {
                "word": words,
                "senses": [[f"first sense of {w}", f"second sense of {w}"] for w in words],
                "pos": "noun",
                "frequency_band": band,
            }
        )
    return out


OBS_COLUMNS = [
    *PLAYER_ROUND_COLUMNS,
    "vote",
    "score",
    "word",
    "receiving_vote_points",
    "correct_vote_points",
    "correct_definition_points",
    "definition",
    "correct_definition",
]


def _game_row(config: SimConfig, game_id: int, deck: str, seed: int) -> dict:
    return {
        "game_id": str(game_id),
        "deck": deck,
        "words_file": f"{deck}.csv",
        "filter_words": config.filter_words,
        "history_type": config.history_type,
        "judge_model": config.judge_model,
        "number_of_rounds": config.n_rounds,
        "receiving_vote_points": config.receiving_vote_points,
        "correct_vote_points": config.correct_vote_points,
        "correct_definition_points": config.correct_definition_points,
        "random_seed": int(seed),
    }


def _draw_games(
    config: SimConfig, rng: np.random.Generator, words: dict[str, pd.DataFrame], seed: int
) -> tuple[list[dict], list[dict], pd.DataFrame]:
    """Games, players and one row per (game, round, player) with the word played."""
    game_rows, player_rows, rows = [], [], []
    game_id, player_id = 0, 0
    for deck in config.decks:
        for _ in range(config.games_per_deck):
            game_id += 1
            game_rows.append(_game_row(config, game_id, deck, seed))
            roster = []
            for model in config.models:
                for k in range(config.players_per_model):
                    player_id += 1
                    roster.append((str(player_id), model))
                    player_rows.append(
                        {
                            "player_id": str(player_id),
                            "game_id": str(game_id),
                            "name": f"{model}-{k + 1}",
                            "model": model,
                        }
                    )
            chosen = rng.choice(config.words_per_deck, size=config.n_rounds, replace=False)
            for r in range(1, config.n_rounds + 1):
                word = words[deck]["word"].iloc[int(chosen[r - 1])]
                rows.extend((str(game_id), r, pid, model, deck, word) for pid, model in roster)
    obs = pd.DataFrame(rows, columns=["game_id", "round_id", "player_id", "model", "deck", "word"])
    return game_rows, player_rows, obs


def _draw_truth_and_judge(obs: pd.DataFrame, config: SimConfig, rng: np.random.Generator) -> pd.DataFrame:
    """Draw K, R and the judge's R̂, K̂ (module docstring); set ``knows``/``true_def``; return truth."""
    n = len(obs)
    base = np.array([config.know_of(m, d) for m, d in zip(obs["model"], obs["deck"], strict=True)])
    slope = obs["model"].map(lambda m: float(config.slope.get(m, 0.0))).to_numpy()
    p_know = np.clip(base + slope * (obs["round_id"].to_numpy() - 1), 0.0, 1.0)
    se = obs["model"].map(lambda m: float(config.judge_se.get(m, 0.74))).to_numpy()
    sp = obs["model"].map(lambda m: float(config.judge_sp.get(m, 0.97))).to_numpy()
    u = rng.random((4, n))
    rho = config.reference_share
    true_any = u[0] < p_know
    true_ref = true_any & (u[1] < rho)
    judge_ref = np.where(true_ref, u[2] < se, u[2] < 1 - sp)
    a = rho * se + (1 - rho) * (1 - sp)
    kappa = np.clip(np.where(a < 1, (se - a) / np.where(a < 1, 1 - a, 1), 0.0), 0.0, 1.0)
    obs["knows"] = judge_ref | (true_any & (u[3] < kappa))
    obs["true_def"] = judge_ref
    return pd.DataFrame(
        {
            "item_id": [
                f"bd:{g}:{r}:{p}"
                for g, r, p in zip(obs["game_id"], obs["round_id"], obs["player_id"], strict=True)
            ],
            "model": obs["model"],
            "deck": obs["deck"],
            "round_id": obs["round_id"],
            "p_know": p_know,
            "true_any": true_any,
            "true_ref": true_ref,
        }
    )


def simulate_campaign(config: SimConfig | None = None, *, seed: int = 0) -> SimulatedCampaign:
    """Draw one campaign (see the module docstring); deterministic in ``seed``."""
    config = config or SimConfig()
    config.check()
    rng = np.random.default_rng(seed)
    words = _words(config)
    game_rows, player_rows, obs = _draw_games(config, rng, words, seed)
    truth = _draw_truth_and_judge(obs, config, rng)
    obs["history_type"] = config.history_type
    obs["filter_words"] = config.filter_words
    obs["judge_model"] = config.judge_model
    obs["item_id"] = truth["item_id"]
    obs["receiving_vote_points"] = float(config.receiving_vote_points)
    obs["correct_vote_points"] = float(config.correct_vote_points)
    obs["correct_definition_points"] = float(config.correct_definition_points)
    votes, scores = _play_votes(obs, config, rng)
    obs["vote"] = votes
    obs["score"] = scores
    obs["definition"] = [
        f"a definition of {w} written by player {p}"
        for w, p in zip(obs["word"], obs["player_id"], strict=True)
    ]
    ref_by_word = {
        w: s[0] for table in words.values() for w, s in zip(table["word"], table["senses"], strict=True)
    }
    obs["correct_definition"] = obs["word"].map(ref_by_word)
    labels = _human_labels(obs, truth, config, rng)
    return SimulatedCampaign(
        config=config,
        seed=seed,
        games=pd.DataFrame(game_rows),
        players=pd.DataFrame(player_rows),
        obs=obs[OBS_COLUMNS],
        truth=truth,
        labels=labels,
        words=words,
    )


def _play_votes(
    obs: pd.DataFrame, config: SimConfig, rng: np.random.Generator
) -> tuple[list[str], np.ndarray]:
    votes = [""] * len(obs)
    scores = np.zeros(len(obs))
    for _, idx in obs.groupby(["game_id", "round_id"], sort=False).indices.items():
        pids = obs["player_id"].to_numpy()[idx]
        true = obs["true_def"].to_numpy()[idx]
        position = {pid: k for k, pid in enumerate(pids)}
        ballot = [pid for pid, t in zip(pids, true, strict=True) if not t]
        for k, pid in enumerate(pids):
            if true[k]:
                scores[idx[k]] += config.correct_definition_points
                continue
            others = [b for b in ballot if b != pid]
            if not others or rng.random() < config.p_reference_vote:
                votes[idx[k]] = "-1"
                scores[idx[k]] += config.correct_vote_points
            else:
                target = others[int(rng.integers(len(others)))]
                votes[idx[k]] = target
                scores[idx[position[target]]] += config.receiving_vote_points
    return votes, scores


def _human_labels(
    obs: pd.DataFrame, truth: pd.DataFrame, config: SimConfig, rng: np.random.Generator
) -> pd.DataFrame:
    keys = ["model", "deck", "true_def"] if config.design == "stratified" else ["model", "deck"]
    chosen = []
    for _, idx in obs.groupby(keys, sort=True).indices.items():
        take = min(config.labels_per_stratum, len(idx))
        chosen.extend(rng.choice(idx, size=take, replace=False).tolist())
    chosen = np.sort(np.asarray(chosen, dtype=int))
    rows = []
    for question, column in (("reference", "true_ref"), ("any_sense", "true_any")):
        values = truth[column].to_numpy()[chosen]
        for k in range(config.raters_per_item):
            correct = rng.random(len(chosen)) < config.rater_accuracy
            said = np.where(correct, values, ~values)
            for item, label in zip(obs["item_id"].to_numpy()[chosen], said, strict=True):
                rows.append((item, f"rater{k + 1}", "human", "true" if label else "false", question))
    return pd.DataFrame(rows, columns=["item_id", "rater", "rater_type", "label", "question"])


def true_rates(campaign: SimulatedCampaign, *, by: tuple[str, ...] = ("model", "deck")) -> pd.DataFrame:
    """Realised true LKR (share of ``true_any``) and TDR (share of ``true_ref``) per ``by`` cell."""
    grouped = campaign.truth.groupby(list(by), sort=True)
    out = grouped.agg(lkr=("true_any", "mean"), tdr=("true_ref", "mean"), n=("item_id", "size")).reset_index()
    return out
