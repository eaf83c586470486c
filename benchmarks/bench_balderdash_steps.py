"""The ``balderdash`` steps on a seeded simulated export: this project's time against an anchor.

The export (written by :func:`write_export`, the simulator's campaigns merged into one
mongoexport folder with people's labels) has 4 models and 2 decks in two experiments: a
*leaderboard* (every model in each game, ``history_type`` full, 1 player per model) and a
*convergence* experiment (4 copies of one model per game, ``history_type`` mini), 25 rounds a
game. ``--size 3600`` is 6 leaderboard and 3 convergence games per deck (and model); a size of
``k × 3600`` multiplies the games by k.

Per step, in this process, one run each:

* ``metrics``, ``recompute``, ``convergence --eps 0.1``: this project's time only;
* ``trend``: ``wa.balderdash_trend`` against the *plain loop* — the same GEE (Binomial,
  exchangeable, bias-reduced sandwich) and mixed models (random intercepts for game and player
  within game) fitted over the same cells, judge and replaced labels, with statsmodels'
  defaults through its formula interface, as a researcher would write them
  (:func:`plain_loop`; no adjusted draws, which the plain loop does not have — those are
  timed in the project's figure);
* ``report``: ``wa.balderdash_report`` from the four results and ``.write`` against the sum of
  the four steps' times.

Run:
    .venv/bin/python -m benchmarks bench_balderdash_steps -- [--sizes 3600,36000] [--keep DIR]
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from wordplay_audit.corpora.balderdash.simulate import SimConfig, SimulatedCampaign, simulate_campaign
from wordplay_audit.corpora.balderdash.writer import write_campaign

MODELS = ("llama-3-8b", "gemma-2-9b", "gpt-4o-mini", "mistral-7b")
DECKS = ("basic_english_words", "balderdash_words")
ROUNDS = 25


def _offset(campaign: SimulatedCampaign, games: int, players: int) -> SimulatedCampaign:
    """The campaign with game and player ids shifted (so campaigns can share one export)."""
    g = lambda s: (s.astype(int) + games).astype(str)  # noqa: E731
    p = lambda s: (s.astype(int) + players).astype(str)  # noqa: E731
    obs = campaign.obs.copy()
    obs["game_id"], obs["player_id"] = g(obs["game_id"]), p(obs["player_id"])
    votes = obs["vote"].astype(str)
    shift = (votes != "") & (votes != "-1")
    obs.loc[shift, "vote"] = p(votes[shift])
    old_ids = campaign.obs["item_id"].to_numpy()
    new_ids = ("bd:" + obs["game_id"] + ":" + obs["round_id"].astype(str) + ":" + obs["player_id"]).to_numpy()
    rename = dict(zip(old_ids, new_ids, strict=True))
    obs["item_id"] = new_ids
    truth = campaign.truth.assign(item_id=new_ids)
    labels = campaign.labels.assign(item_id=campaign.labels["item_id"].map(rename))
    games_frame = campaign.games.assign(game_id=g(campaign.games["game_id"]))
    players_frame = campaign.players.assign(
        game_id=g(campaign.players["game_id"]), player_id=p(campaign.players["player_id"])
    )
    return dataclasses.replace(
        campaign, obs=obs, truth=truth, labels=labels, games=games_frame, players=players_frame
    )


def _merge(campaigns: list[SimulatedCampaign]) -> SimulatedCampaign:
    parts, games, players = [], 0, 0
    for c in campaigns:
        parts.append(_offset(c, games, players))
        games += len(c.games)
        players += len(c.players)
    cat = lambda name: pd.concat([getattr(c, name) for c in parts], ignore_index=True)  # noqa: E731
    return dataclasses.replace(
        parts[0], obs=cat("obs"), truth=cat("truth"), labels=cat("labels"), games=cat("games"),
        players=cat("players"),
    )  # fmt: skip


def campaign(size: int = 3600, *, seed: int = 0, labels_per_stratum: int = 25) -> SimulatedCampaign:
    """The merged leaderboard + convergence campaign of ``size`` definitions (a multiple of 3600)."""
    if size % 3600:
        raise SystemExit(f"--sizes: {size} is not a multiple of 3600")
    k = size // 3600
    common = dict(decks=DECKS, n_rounds=ROUNDS, labels_per_stratum=labels_per_stratum)
    slope = {"gemma-2-9b": 0.01}  # one model's LKR rises over rounds, the others' stay level
    leaderboard = SimConfig(models=MODELS, games_per_deck=6 * k, players_per_model=1, history_type="full",
                            slope=slope, **common)  # fmt: skip
    parts = [simulate_campaign(leaderboard, seed=seed)]
    for j, model in enumerate(MODELS):
        convergence = SimConfig(models=(model,), games_per_deck=3 * k, players_per_model=4,
                                history_type="mini", slope=slope, **common)  # fmt: skip
        parts.append(simulate_campaign(convergence, seed=seed * 100 + j + 1))
    return _merge(parts)


def write_export(folder: Path, size: int = 3600, *, seed: int = 0) -> Path:
    """Write the export of :func:`campaign` (with ``labels.csv``) into ``folder``; return it."""
    write_campaign(campaign(size, seed=seed), folder)
    return folder


# --------------------------------------------------------------------------- the anchor


def plain_loop(obs: pd.DataFrame) -> int:
    """What a researcher would write: per outcome, label set and cell (model × history type and
    pooled per model), ``smf.gee`` and ``smf.mixedlm`` with statsmodels' defaults. ``obs``
    carries the judge's labels and, in ``labels`` = replaced, the replaced ones."""
    import statsmodels.api as sm
    import statsmodels.formula.api as smf

    fits = 0
    last = obs["round_id"].max()
    obs = obs.assign(x=(obs["round_id"] - (last + 1) / 2) / (last - 1),
                     player=obs["game_id"] + ":" + obs["player_id"])  # fmt: skip
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for (_, outcome, model), block in obs.groupby(["labels", "outcome", "model"]):
            cells = [part for _, part in block.groupby("history_type")] + [block]
            for cell in cells:
                cell = cell.assign(y=cell["value"].astype(float))
                if cell["y"].nunique() < 2:
                    continue
                gee = smf.gee("y ~ x", "game_id", cell, family=sm.families.Binomial(),
                              cov_struct=sm.cov_struct.Exchangeable())  # fmt: skip
                gee.fit(cov_type="bias_reduced")
                smf.mixedlm("y ~ x", cell, groups="game_id", vc_formula={"player": "0 + C(player)"}).fit()
                fits += 2
    return fits


def _long(obs: pd.DataFrame, replaced: pd.DataFrame) -> pd.DataFrame:
    keep = ["game_id", "round_id", "player_id", "model", "history_type"]
    parts = []
    for name, frame in (("judge", obs), ("replaced", replaced)):
        for outcome in ("knows", "true_def"):
            parts.append(frame[keep].assign(labels=name, outcome=outcome, value=frame[outcome].to_numpy()))
    return pd.concat(parts, ignore_index=True)


# --------------------------------------------------------------------------- the run


def _timed(function):
    start = time.perf_counter()
    value = function()
    return value, time.perf_counter() - start


def run(folder: Path, size: int, seed: int) -> list[dict]:
    import wordplay_audit as wa
    from wordplay_audit.analysis.balderdash.recompute import replace_labels

    write_export(folder, size, seed=seed)
    data = wa.read_balderdash(folder, texts=False)
    labels = wa.read_labels(folder / "labels.csv")
    rows = []
    metrics, t_metrics = _timed(lambda: wa.balderdash_metrics(data))
    recompute, t_recompute = _timed(lambda: wa.balderdash_recompute(data, labels))
    convergence, t_convergence = _timed(lambda: wa.balderdash_convergence(data, labels, eps=[0.1]))
    trend, t_trend = _timed(lambda: wa.balderdash_trend(data, labels))
    people = wa.workflow.balderdash.human_rows(data, labels)
    long = _long(data.obs, replace_labels(data.obs, people))
    _, t_plain = _timed(lambda: plain_loop(long))
    parts = t_metrics + t_recompute + t_convergence + t_trend
    with tempfile.TemporaryDirectory() as out:

        def report():
            result = wa.balderdash_report(
                data, labels, metrics=metrics, recompute=recompute, convergence=convergence, trend=trend
            )
            result.write(Path(out) / "report")

        _, t_report = _timed(report)
    fell_back = int(trend.analysis.table["note"].str.contains("fell back", regex=False).sum())
    n = len(data.obs)
    rows += [
        {"size": n, "step": "metrics", "project_s": t_metrics, "anchor": "", "anchor_s": np.nan},
        {"size": n, "step": "recompute", "project_s": t_recompute, "anchor": "", "anchor_s": np.nan},
        {"size": n, "step": "convergence", "project_s": t_convergence, "anchor": "", "anchor_s": np.nan},
        {"size": n, "step": "trend", "project_s": t_trend, "anchor": "plain statsmodels loop",
         "anchor_s": t_plain, "note": f"{fell_back} fits fell back"},
        {"size": n, "step": "report", "project_s": t_report + parts, "anchor": "sum of its parts",
         "anchor_s": parts, "note": f"report's own work {t_report:.1f} s"},
    ]  # fmt: skip
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="3600,36000")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--keep", type=Path, default=None, help="Write the exports here and keep them.")
    args = parser.parse_args(argv)
    rows = []
    for size in (int(s) for s in args.sizes.split(",")):
        with tempfile.TemporaryDirectory() as tmp:
            folder = (args.keep or Path(tmp)) / f"export-{size}"
            rows += run(folder, size, args.seed)
        frame = pd.DataFrame(rows)
        frame["ratio"] = frame["project_s"] / frame["anchor_s"]
        print(frame.to_string(index=False, float_format=lambda v: f"{v:.2f}"), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
