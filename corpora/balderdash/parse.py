"""Games, players and rounds documents parsed into typed tables (one-line errors)."""

from __future__ import annotations

import math

import pandas as pd

from wordplay_audit.corpora.balderdash.documents import Doc
from wordplay_audit.corpora.balderdash.model import FILTER_WORDS, HISTORY_TYPES, REFERENCE_VOTE
from wordplay_audit.corpora.balderdash.words import deck_of


def parse_games(source: str, docs: list[tuple[int, dict]]) -> pd.DataFrame:
    rows, seen = [], {}
    for line, data in docs:
        doc = Doc(source, line, data)
        game_id = doc.ident("game_id")
        if game_id in seen:
            raise doc.fail(f"game_id {game_id} appears twice (first on line {seen[game_id]})")
        seen[game_id] = line
        filter_words = doc.text("filter_words")
        if filter_words not in FILTER_WORDS:
            raise doc.fail(
                f"field 'filter_words' must be one of {', '.join(FILTER_WORDS)}, got {filter_words!r}"
            )
        history_type = doc.text("history_type", "unknown")
        if history_type not in (*HISTORY_TYPES, "unknown"):
            raise doc.fail(
                f"field 'history_type' must be one of {', '.join(HISTORY_TYPES)}, got {history_type!r}"
            )
        words_file = doc.text("words_file")
        number_of_rounds = doc.integer("number_of_rounds")
        if number_of_rounds < 1:
            raise doc.fail(f"field 'number_of_rounds' must be at least 1, got {number_of_rounds}")
        rows.append(
            {
                "game_id": game_id,
                "deck": deck_of(words_file),
                "words_file": words_file,
                "filter_words": filter_words,
                "history_type": history_type,
                "judge_model": doc.text("judge_llm_model_name"),
                "number_of_rounds": number_of_rounds,
                "receiving_vote_points": doc.number("receiving_vote_points"),
                "correct_vote_points": doc.number("correct_vote_points"),
                "correct_definition_points": doc.number("correct_definition_points"),
                "random_seed": data.get("random_seed"),
                "game_description": str(data.get("game_description") or ""),
            }
        )
    return pd.DataFrame(
        rows,
        columns=[
            "game_id",
            "deck",
            "words_file",
            "filter_words",
            "history_type",
            "judge_model",
            "number_of_rounds",
            "receiving_vote_points",
            "correct_vote_points",
            "correct_definition_points",
            "random_seed",
            "game_description",
        ],
    )


def parse_players(source: str, docs: list[tuple[int, dict]], games: set[str]) -> pd.DataFrame:
    rows, seen = [], {}
    for line, data in docs:
        doc = Doc(source, line, data)
        player_id = doc.ident("player_id")
        if player_id in seen:
            raise doc.fail(f"player_id {player_id} appears twice (first on line {seen[player_id]})")
        seen[player_id] = line
        game_id = doc.ident("game_id")
        if game_id not in games:
            raise doc.fail(f"game_id {game_id} names no game in the games export")
        model = doc.text("llm_name").strip()
        if not model:
            raise doc.fail("field 'llm_name' is empty")
        score = data.get("score")
        rows.append(
            {
                "player_id": player_id,
                "game_id": game_id,
                "name": str(data.get("name") or ""),
                "model": model,
                "final_score": float(score)
                if isinstance(score, int | float) and not isinstance(score, bool)
                else math.nan,
            }
        )
    return pd.DataFrame(rows, columns=["player_id", "game_id", "name", "model", "final_score"])


def parse_rounds(
    source: str,
    docs: list[tuple[int, dict]],
    player_game: dict[str, str],
    games: set[str],
    skipped: dict[str, int],
) -> tuple[pd.DataFrame, pd.DataFrame]:
    round_rows, def_rows, seen = [], [], {}
    for line, data in docs:
        doc = Doc(source, line, data)
        game_id = doc.ident("game_id")
        if game_id not in games:
            raise doc.fail(f"game_id {game_id} names no game in the games export")
        round_id = doc.integer("round_id")
        if round_id < 1:
            raise doc.fail(f"field 'round_id' must be 1 or more, got {round_id}")
        key = (game_id, round_id)
        if key in seen:
            raise doc.fail(f"round {round_id} of game {game_id} appears twice (first on line {seen[key]})")
        seen[key] = line
        word = doc.text("word")
        reference = doc.text("correct_definition")
        listed = doc.get("players")
        if not isinstance(listed, list) or not listed:
            raise doc.fail("field 'players' must be a non-empty list of player ids")
        player_ids = [doc.ident("players", p) for p in listed]
        if len(set(player_ids)) != len(player_ids):
            raise doc.fail("field 'players' lists a player twice")
        definitions = doc.get("player_definitions")
        votes = doc.get("votes", {})
        scores = doc.get("scores", {})
        for name, value in (("player_definitions", definitions), ("votes", votes), ("scores", scores)):
            if not isinstance(value, dict):
                raise doc.fail(f"field {name!r} must be an object keyed by player id")
        in_round = set(player_ids)
        for pid in player_ids:
            if player_game.get(pid) != game_id:
                raise doc.fail(f"player {pid} is not a player of game {game_id} in the players export")
        extra = set(definitions) - in_round
        if extra:
            raise doc.fail(f"player_definitions has player {sorted(extra)[0]} who is not in 'players'")
        extra_votes = set(votes) - in_round
        if extra_votes:
            raise doc.fail(f"votes has voter {sorted(extra_votes)[0]} who is not in 'players'")
        n_true = 0
        for pid in player_ids:
            entry = definitions.get(pid)
            if not isinstance(entry, dict):
                raise doc.fail(f"player_definitions lacks an object for player {pid}")
            where = f"player_definitions.{pid}"
            if "judge_decision" not in entry or entry["judge_decision"] is None:
                raise doc.fail(f"field '{where}.judge_decision' is missing")
            if "llm_knows_one_of_the_defs" not in entry or entry["llm_knows_one_of_the_defs"] is None:
                raise doc.fail(f"field '{where}.llm_knows_one_of_the_defs' is missing")
            judge = doc.boolean(entry["judge_decision"], f"field '{where}.judge_decision'")
            knows = doc.boolean(
                entry["llm_knows_one_of_the_defs"], f"field '{where}.llm_knows_one_of_the_defs'"
            )
            definition = entry.get("definition")
            if not isinstance(definition, str):
                raise doc.fail(f"field '{where}.definition' must be a string")
            if judge and not knows:
                skipped["knows_false_but_judge_true"] = skipped.get("knows_false_but_judge_true", 0) + 1
            n_true += judge
            vote = ""
            if pid in votes:
                target = votes[pid]
                if isinstance(target, bool) or not isinstance(target, int | str):
                    raise doc.fail(f"field 'votes.{pid}' must be a player id or -1, got {target!r}")
                target = str(target).strip()
                if target != REFERENCE_VOTE and target not in in_round:
                    raise doc.fail(f"field 'votes.{pid}' names player {target}, who is not in this round")
                if judge:
                    # the framework never lets a true definition vote; such a vote is ignored
                    skipped["votes_by_true_definitions_ignored"] = (
                        skipped.get("votes_by_true_definitions_ignored", 0) + 1
                    )
                else:
                    vote = target
            elif not judge:
                skipped["missing_votes"] = skipped.get("missing_votes", 0) + 1
            score = scores.get(pid)
            if isinstance(score, bool) or not isinstance(score, int | float):
                if score is not None:
                    raise doc.fail(f"field 'scores.{pid}' must be a number, got {score!r}")
                skipped["missing_scores"] = skipped.get("missing_scores", 0) + 1
                score = math.nan
            def_rows.append(
                {
                    "game_id": game_id,
                    "round_id": round_id,
                    "player_id": pid,
                    "definition": definition,
                    "judge_decision": judge,
                    "llm_knows": knows,
                    "vote": vote,
                    "score": float(score),
                }
            )
        round_rows.append(
            {
                "game_id": game_id,
                "round_id": round_id,
                "word": word,
                "correct_definition": reference,
                "pos": str(data.get("pos") or ""),
                "n_players": len(player_ids),
                "n_true": n_true,
            }
        )
    rounds = pd.DataFrame(
        round_rows,
        columns=["game_id", "round_id", "word", "correct_definition", "pos", "n_players", "n_true"],
    )
    definitions = pd.DataFrame(
        def_rows,
        columns=[
            "game_id",
            "round_id",
            "player_id",
            "definition",
            "judge_decision",
            "llm_knows",
            "vote",
            "score",
        ],
    )
    return rounds, definitions
