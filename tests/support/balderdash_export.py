"""A small Balderdash export written by the tests: game 7, two rounds, players 11 and 12 (model
m-a) and 13 (m-b), one JSON-lines file per collection."""

from __future__ import annotations

import json
from pathlib import Path

BOM = b"\xef\xbb\xbf"


def _entry(text: str, judge: bool, knows: bool) -> dict:
    return {"definition": text, "judge_decision": judge, "llm_knows_one_of_the_defs": knows}


def documents(number_of_rounds: int = 2) -> dict[str, list[dict]]:
    """Game 7, two rounds, players 11 and 12 (model m-a) and 13 (m-b)."""
    game = {
        "game_id": 7,
        "number_of_rounds": number_of_rounds,
        "judge_llm_model_name": "judge-x",
        "receiving_vote_points": 1,
        "correct_vote_points": 2,
        "correct_definition_points": 3,
        "words_file": "data/rare_words.csv",
        "filter_words": "all",
        "history_type": "mini",
    }
    players = [
        {"player_id": 10 + k, "name": f"p{k}", "llm_name": m, "game_id": 7, "score": 0}
        for k, m in ((1, "m-a"), (2, "m-a"), (3, "m-b"))
    ]
    rounds = [
        {
            "game_id": 7,
            "round_id": 1,
            "word": "quire",
            "correct_definition": "24 sheets of paper",
            "pos": "noun",
            "players": [11, 12, 13],
            "player_definitions": {
                "11": _entry("a set of 24 sheets", True, True),
                "12": _entry("a choir", False, False),
                "13": _entry("a bird", False, False),
            },
            "votes": {"12": -1, "13": 12},
            "scores": {"11": 3, "12": 3, "13": 0},
        },
        {
            "game_id": 7,
            "round_id": 2,
            "word": "fard",
            "correct_definition": "to paint the face",
            "pos": "verb",
            "players": [11, 12, 13],
            "player_definitions": {
                "11": _entry("a sweet", False, False),
                "12": _entry("make-up", False, True),
                "13": _entry("to paint one's face", True, True),
            },
            "votes": {"11": 12, "12": -1},
            "scores": {"11": 0, "12": 3, "13": 3},
        },
    ]
    return {"games": [game], "players": players, "rounds": rounds}


def write(folder: Path, docs: dict[str, list[dict]], *, bom_rounds: bool = False) -> Path:
    """One JSON-lines file per collection; ``bom_rounds``: a BOM in front of the rounds file
    (which sends it through the streamed, checked path instead of DuckDB's)."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, items in docs.items():
        data = "".join(json.dumps(d) + "\n" for d in items).encode("utf-8")
        (folder / f"{name}.jsonl").write_bytes((BOM if bom_rounds and name == "rounds" else b"") + data)
    return folder
