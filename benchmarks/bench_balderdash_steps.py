"""The ``balderdash`` steps on a seeded simulated export: this project's time against an anchor.

The export (written by :func:`write_export`, the simulator's campaigns merged into one
mongoexport folder with people's labels) has 4 models and 2 decks in two experiments: a
*leaderboard* (every model in each game, ``history_type`` full, 1 player per model) and a
*convergence* experiment (4 copies of one model per game, ``history_type`` mini), 25 rounds a
game. ``--sizes 3600`` is 6 leaderboard and 3 convergence games per deck (and model); a size of
``k × 3600`` multiplies the games by k.

Per step, in this process, one run each:

* ``metrics``, ``recompute``, ``convergence --eps 0.1``: this project's time only;
* ``trend``: ``wa.balderdash_trend`` against the *plain loop* — the same GEE (Binomial,
  exchangeable, bias-reduced sandwich) and mixed models (random intercepts for game and player
  within game) fitted over the same cells, judge and replaced labels, with statsmodels'
  defaults through its formula interface, as a researcher would write them
  (:func:`plain_loop`, with the misclassification-adjusted GEE per Se/Sp draw too);
* ``report``: the four steps, then ``wa.balderdash_report`` from their results and ``.write``,
  against the sum of the four steps' times;
* with ``--before PKG``, ``balderdash_trend`` of another package tree in a child process (how
  the figures before and after were taken: ``git archive`` an earlier commit, link its rooms
  into its ``wordplay_audit/``).

Wall and CPU seconds (this process's) are both printed: on a shared machine the CPU ratio is
the steadier one. Run:
    .venv/bin/python -m benchmarks bench_balderdash_steps -- [--sizes 3600,36000] [--before PKG]
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


def plain_loop(obs: pd.DataFrame, se_sp: dict[str, dict[str, tuple]], *, draws: int = 20) -> int:
    """What a researcher would write: per label set, outcome and cell (model × history type, and
    pooled per model), ``smf.gee`` and ``smf.mixedlm`` with statsmodels' defaults, and under the
    judge's labels the same GEE with the misclassification link for ``draws`` Se/Sp draws
    (``se_sp``: outcome → model → counts, as the trend uses). ``obs``: :func:`_long`'s rows."""
    import statsmodels.api as sm
    import statsmodels.formula.api as smf
    from scipy import special

    from wordplay_audit.analysis.balderdash.misclassification import draw_se_sp
    from wordplay_audit.analysis.balderdash.trend import _model_rng
    from wordplay_audit.analysis.stats_models import MisclassifiedLogit

    fits = 0
    last = obs["round_id"].max()
    obs = obs.assign(x=(obs["round_id"] - (last + 1) / 2) / (last - 1),
                     player=obs["game_id"] + ":" + obs["player_id"], y=obs["value"].astype(float))  # fmt: skip
    exchangeable = sm.cov_struct.Exchangeable
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for (labels, outcome, model), block in obs.groupby(["labels", "outcome", "model"]):
            parts = [part for _, part in block.groupby("history_type")]
            for cell in parts + ([block] if len(parts) > 1 else []):
                if cell["y"].nunique() < 2:
                    continue
                gee = smf.gee(
                    "y ~ x", "game_id", cell, family=sm.families.Binomial(), cov_struct=exchangeable()
                )
                naive = gee.fit(cov_type="bias_reduced").params.iloc[1]
                try:
                    smf.mixedlm(
                        "y ~ x",
                        cell,
                        groups="game_id",
                        re_formula="1",
                        vc_formula={"player": "0 + C(player)"},
                    ).fit()
                except np.linalg.LinAlgError:
                    pass
                fits += 2
                counts = se_sp.get(outcome, {}).get(model) if labels == "judge" else None
                if counts is None:
                    continue
                rate = cell["y"].mean()
                for se, sp in zip(*draw_se_sp(counts, draws, _model_rng(0, model)), strict=True):
                    link = MisclassifiedLogit(se, sp)
                    start = [special.logit(np.clip((rate - 1 + sp) / (se + sp - 1), 0.02, 0.98)), naive]
                    family = sm.families.Binomial(link=link, check_link=False)
                    try:
                        smf.gee("y ~ x", "game_id", cell, family=family, cov_struct=exchangeable()).fit(
                            start_params=np.asarray(start), cov_type="bias_reduced"
                        )
                    except (np.linalg.LinAlgError, ValueError):
                        pass
                    fits += 1
    return fits


def _long(obs: pd.DataFrame, replaced: pd.DataFrame) -> pd.DataFrame:
    keep = ["game_id", "round_id", "player_id", "model", "history_type"]
    parts = []
    for name, frame in (("judge", obs), ("replaced", replaced)):
        for outcome in ("knows", "true_def"):
            parts.append(frame[keep].assign(labels=name, outcome=outcome, value=frame[outcome].to_numpy()))
    return pd.concat(parts, ignore_index=True)


# --------------------------------------------------------------------------- the run


def _timed(function, what: str = ""):
    wall, cpu = time.perf_counter(), time.process_time()
    value = function()
    spent = (time.perf_counter() - wall, time.process_time() - cpu)
    if what:  # as it goes (a long run shows its steps before the table)
        print(f"  {what}: {spent[0]:.2f} s wall, {spent[1]:.2f} s cpu", file=sys.stderr, flush=True)
    return value, spent


BEFORE = """
import sys, time, json
import statsmodels.api, statsmodels.formula.api  # imported before the clock, as in the parent
import wordplay_audit as wa
from wordplay_audit.analysis.balderdash import summary, trend
data = wa.read_balderdash(sys.argv[1], texts=False)
labels = wa.read_labels(sys.argv[1] + "/labels.csv")
wall, cpu = time.perf_counter(), time.process_time()
wa.balderdash_trend(data, labels)
print(json.dumps([time.perf_counter() - wall, time.process_time() - cpu]))
"""


def before(folder: Path, package: Path) -> tuple[float, float]:
    """``balderdash_trend`` of another checkout's package tree (``--before``), in a child."""
    import json
    import os
    import subprocess

    env = {**os.environ, "PYTHONPATH": str(package)}
    out = subprocess.run([sys.executable, "-c", BEFORE, str(folder)], env=env, check=True,
                         capture_output=True, text=True, cwd="/")  # fmt: skip
    wall, cpu = json.loads(out.stdout.strip().splitlines()[-1])
    return wall, cpu


def run(folder: Path, size: int, seed: int, package: Path | None = None) -> list[dict]:
    import statsmodels.api  # noqa: F401  (imported before any clock, in the child too)
    import statsmodels.formula.api  # noqa: F401

    import wordplay_audit as wa
    from wordplay_audit.analysis.balderdash.recompute import replace_labels
    from wordplay_audit.analysis.balderdash.summary import OUTCOME_QUESTION, pseudo_counts

    write_export(folder, size, seed=seed)
    data = wa.read_balderdash(folder, texts=False)
    labels = wa.read_labels(folder / "labels.csv")
    metrics, t_metrics = _timed(lambda: wa.balderdash_metrics(data), "metrics")
    recompute, t_recompute = _timed(lambda: wa.balderdash_recompute(data, labels), "recompute")
    convergence, t_convergence = _timed(
        lambda: wa.balderdash_convergence(data, labels, eps=[0.1]), "convergence"
    )
    trend, t_trend = _timed(lambda: wa.balderdash_trend(data, labels), "trend")
    people = wa.workflow.balderdash.human_rows(data, labels)
    long = _long(data.obs, replace_labels(data.obs, people))
    se_sp = {
        o: pseudo_counts(recompute.audits[q])
        for o, (q, _, _) in OUTCOME_QUESTION.items()
        if q in recompute.audits
    }
    _, t_plain = _timed(lambda: plain_loop(long, se_sp), "plain loop")
    parts = tuple(sum(t[k] for t in (t_metrics, t_recompute, t_convergence, t_trend)) for k in (0, 1))
    with tempfile.TemporaryDirectory() as out:

        def report():
            result = wa.balderdash_report(
                data, labels, metrics=metrics, recompute=recompute, convergence=convergence, trend=trend
            )
            result.write(Path(out) / "report")

        _, t_report = _timed(report, "report's own work")
    fell_back = int((trend.analysis.table["mixed_optimizer"] == "lbfgs").sum())
    n = len(data.obs)
    row = lambda step, t, anchor="", a=(np.nan, np.nan), note="": {  # noqa: E731
        "size": n, "step": step, "wall_s": t[0], "cpu_s": t[1], "anchor": anchor, "anchor_wall_s": a[0],
        "anchor_cpu_s": a[1], "note": note}  # fmt: skip
    rows = [row("metrics", t_metrics), row("recompute", t_recompute), row("convergence", t_convergence),
            row("trend", t_trend, "plain statsmodels loop", t_plain, f"{fell_back} mixed fits fell back")]  # fmt: skip
    if package is not None:
        rows.append(row("trend", t_trend, f"before ({package})", before(folder, package)))
    total = (t_report[0] + parts[0], t_report[1] + parts[1])
    rows.append(row("report", total, "sum of its parts", parts, f"own work {t_report[0]:.1f} s wall"))
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="3600,36000")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--keep", type=Path, default=None, help="Write the exports here and keep them.")
    parser.add_argument("--before", type=Path, default=None,
                        help="A package tree (wordplay_audit/ with its rooms) whose trend to time too.")  # fmt: skip
    args = parser.parse_args(argv)
    rows = []
    for size in (int(s) for s in args.sizes.split(",")):
        with tempfile.TemporaryDirectory() as tmp:
            folder = (args.keep or Path(tmp)) / f"export-{size}"
            rows += run(folder, size, args.seed, args.before)
        frame = pd.DataFrame(rows)
        frame["ratio_wall"] = frame["wall_s"] / frame["anchor_wall_s"]
        frame["ratio_cpu"] = frame["cpu_s"] / frame["anchor_cpu_s"]
        print(frame.to_string(index=False, float_format=lambda v: f"{v:.2f}"), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
