"""Write a simulated Balderdash campaign in the framework's exact export format.

The campaign itself is drawn by :func:`.simulate.simulate_campaign`; this
module only writes files, as ``mongoexport`` would (JSON lines, relaxed Extended JSON, an
``_id`` of ``{"$oid": …}`` per document, ``{"$date": …}`` timestamps):

``games.jsonl``, ``players.jsonl``, ``rounds.jsonl``, one words CSV per deck (``words``,
``def`` as a Python-literal list, ``POS``, ``frequency_band``), ``labels.csv`` (people's labels
in the contract), ``truth.csv`` (per definition: ``p_know``, ``true_any``, ``true_ref``) and
``truth.json`` (the configuration and realised true rates per model and deck).
Files are written to temporary names and renamed, so a failure leaves no half-written file.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict
from pathlib import Path

import pandas as pd

from wordplay_audit.corpora.balderdash.simulate import (
    SimConfig,
    SimulatedCampaign,
    simulate_campaign,
    true_rates,
)

_EPOCH_DAY = pd.Timestamp("2024-06-01T00:00:00Z")


def _oid(*parts: object) -> dict[str, str]:
    digest = hashlib.sha1(":".join(map(str, parts)).encode("utf-8")).hexdigest()[:24]
    return {"$oid": digest}


def _date(offset_seconds: int) -> dict[str, str]:
    stamp = _EPOCH_DAY + pd.Timedelta(seconds=offset_seconds)
    return {"$date": stamp.strftime("%Y-%m-%dT%H:%M:%S.000Z")}


def _as_int(value: str) -> int | str:
    return int(value) if str(value).lstrip("-").isdigit() else value


def _game_documents(campaign: SimulatedCampaign) -> list[dict]:
    return [
        {
            "_id": _oid("games", campaign.seed, g["game_id"]),
            "game_id": _as_int(g["game_id"]),
            "game_description": f"simulated campaign, seed {campaign.seed}",
            "number_of_rounds": int(g["number_of_rounds"]),
            "judge_llm_model_name": g["judge_model"],
            "random_seed": int(g["random_seed"]),
            "receiving_vote_points": int(g["receiving_vote_points"]),
            "correct_vote_points": int(g["correct_vote_points"]),
            "correct_definition_points": int(g["correct_definition_points"]),
            "history_window_size": 20,
            "llms_temperature": 0.9,
            "words_file": g["words_file"],
            "filter_words": g["filter_words"],
            "history_type": g["history_type"],
            "game_rules_prompt_file": "prompts/game_rules.txt",
            "generate_definition_prompt_file": "prompts/user_generate_definition.txt",
            "vote_definition_prompt_file": "prompts/vote_definition.txt",
            "created_at": _date(3600 * k),
        }
        for k, g in enumerate(campaign.games.to_dict(orient="records"))
    ]


def _player_documents(campaign: SimulatedCampaign) -> list[dict]:
    obs = campaign.obs
    totals = obs.groupby("player_id")["score"].sum()
    history = obs.sort_values(["game_id", "round_id"]).groupby("player_id")
    players = []
    for p in campaign.players.to_dict(orient="records"):
        rows = history.get_group(p["player_id"])
        cumulative = rows["score"].cumsum().astype(int).tolist()
        players.append(
            {
                "_id": _oid("players", campaign.seed, p["player_id"]),
                "player_id": _as_int(p["player_id"]),
                "name": p["name"],
                "llm_name": p["model"],
                "game_id": _as_int(p["game_id"]),
                "score": int(totals.get(p["player_id"], 0)),
                "score_history": {str(r): s for r, s in zip(rows["round_id"], cumulative, strict=True)},
                "rank_history": {},
            }
        )
    return players


def _round_document(seed: int, game_id: str, round_id: int, part: pd.DataFrame) -> dict:
    pids = part["player_id"]
    return {
        "_id": _oid("rounds", seed, game_id, round_id),
        "game_id": _as_int(game_id),
        "round_id": int(round_id),
        "word": part["word"].iloc[0],
        "correct_definition": part["correct_definition"].iloc[0],
        "pos": "noun",
        "players": [_as_int(p) for p in pids],
        "player_definitions": {
            str(p): {"definition": d, "judge_decision": bool(t), "llm_knows_one_of_the_defs": bool(k)}
            for p, d, t, k in zip(pids, part["definition"], part["true_def"], part["knows"], strict=True)
        },
        "votes": {str(p): _as_int(v) for p, v in zip(pids, part["vote"], strict=True) if v != ""},
        "scores": {str(p): int(s) for p, s in zip(pids, part["score"], strict=True)},
    }


def campaign_documents(campaign: SimulatedCampaign) -> dict[str, list[dict]]:
    """The three collections as lists of relaxed-Extended-JSON documents."""
    rounds = [
        _round_document(campaign.seed, game_id, round_id, part)
        for (game_id, round_id), part in campaign.obs.groupby(["game_id", "round_id"], sort=False)
    ]
    return {"games": _game_documents(campaign), "players": _player_documents(campaign), "rounds": rounds}


def write_campaign(campaign: SimulatedCampaign, out_dir: str | Path) -> dict[str, Path]:
    """Write the export, words files, labels and truth of ``campaign`` into ``out_dir`` (a
    command writes into the staging folder of :func:`wordplay_audit.corpora.io.output_folder`)."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    written: dict[str, Path] = {}
    for name, documents in campaign_documents(campaign).items():
        path = out / f"{name}.jsonl"
        path.write_text(
            "".join(json.dumps(d, ensure_ascii=False) + "\n" for d in documents), encoding="utf-8"
        )
        written[name] = path
    for deck, table in campaign.words.items():
        frame = pd.DataFrame(
            {
                "words": table["word"],
                "def": [repr(list(s)) for s in table["senses"]],
                "POS": [repr([p] * len(s)) for p, s in zip(table["pos"], table["senses"], strict=True)],
                "frequency_band": table["frequency_band"],
            }
        )
        path = out / f"{deck}.csv"
        path.write_text(frame.to_csv(index=False), encoding="utf-8")
        written[f"words:{deck}"] = path
    (out / "labels.csv").write_text(campaign.labels.to_csv(index=False), encoding="utf-8")
    written["labels"] = out / "labels.csv"
    (out / "truth.csv").write_text(campaign.truth.to_csv(index=False), encoding="utf-8")
    written["truth"] = out / "truth.csv"
    summary = {
        "seed": campaign.seed,
        "config": {k: (dict(v) if isinstance(v, dict) else v) for k, v in asdict(campaign.config).items()},
        "true_rates": true_rates(campaign).to_dict(orient="records"),
    }
    (out / "truth.json").write_text(json.dumps(summary, indent=2, default=str) + "\n", encoding="utf-8")
    written["truth_json"] = out / "truth.json"
    return written


def simulate_to_folder(
    out_dir: str | Path, *, seed: int = 0, config: SimConfig | None = None
) -> SimulatedCampaign:
    """Draw a campaign with ``seed`` and write it to ``out_dir``; return the campaign."""
    campaign = simulate_campaign(config, seed=seed)
    write_campaign(campaign, out_dir)
    return campaign
