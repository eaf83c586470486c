"""Reading mongoexport files of the Balderdash database in every form, and refusing bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from wordplay_audit.corpora.balderdash import (
    PLAYER_ROUND_COLUMNS,
    decode_extended_json,
    judge_labels,
    player_round_table,
    read_export,
    read_words_file,
)
from wordplay_audit.errors import InputError


def documents() -> dict[str, list[dict]]:
    """A two-round game of three players (two models), as the framework stores it."""
    game = {
        "_id": {"$oid": "665f1c2e9b1e8a0001000001"}, "game_id": 7, "game_description": "t",
        "number_of_rounds": 2, "judge_llm_model_name": "judge-x", "random_seed": 5,
        "receiving_vote_points": 1, "correct_vote_points": 2, "correct_definition_points": 3,
        "history_window_size": 20, "llms_temperature": 0.9, "words_file": "data/rare_words.csv",
        "filter_words": "all", "history_type": "mini", "created_at": {"$date": "2024-06-01T00:00:00Z"},
    }
    players = [
        {"_id": {"$oid": f"665f1c2e9b1e8a00020000{k}"}, "player_id": 10 + k, "name": f"p{k}",
         "llm_name": model, "game_id": 7, "score": 0, "score_history": {}, "rank_history": {}}
        for k, model in ((1, "m-a"), (2, "m-a"), (3, "m-b"))
    ]
    rounds = [
        {
            "_id": {"$oid": "665f1c2e9b1e8a0003000001"}, "game_id": 7, "round_id": 1, "word": "Quire",
            "correct_definition": "24 sheets of paper", "pos": "noun", "players": [11, 12, 13],
            "player_definitions": {
                "11": {"definition": "a set of 24 sheets", "judge_decision": True, "llm_knows_one_of_the_defs": True},
                "12": {"definition": "a choir", "judge_decision": False, "llm_knows_one_of_the_defs": False},
                "13": {"definition": "a bird", "judge_decision": False, "llm_knows_one_of_the_defs": False},
            },
            "votes": {"12": -1, "13": 12},
            "scores": {"11": 3, "12": 3, "13": 0},
        },
        {
            "_id": {"$oid": "665f1c2e9b1e8a0003000002"}, "game_id": 7, "round_id": 2, "word": "fard",
            "correct_definition": "to paint the face", "pos": "verb", "players": [11, 12, 13],
            "player_definitions": {
                "11": {"definition": "a sweet", "judge_decision": False, "llm_knows_one_of_the_defs": False},
                "12": {"definition": "make-up", "judge_decision": False, "llm_knows_one_of_the_defs": True},
                "13": {"definition": "to paint one's face", "judge_decision": True, "llm_knows_one_of_the_defs": True},
            },
            "votes": {"11": 12, "12": -1},
            "scores": {"11": 0, "12": 3, "13": 3},
        },
    ]
    return {"games": [game], "players": players, "rounds": rounds}


def canonical(value, *, as_double: bool = False):
    """Canonical Extended JSON: every int wrapped, floats as $numberDouble, dates as $numberLong."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, int):
        return {"$numberInt": str(value)} if abs(value) < 2**31 else {"$numberLong": str(value)}
    if isinstance(value, float):
        return {"$numberDouble": repr(value)}
    if isinstance(value, list):
        return [canonical(v) for v in value]
    if set(value) == {"$date"}:
        return {"$date": {"$numberLong": "1717200000000"}}
    if set(value) == {"$oid"}:
        return value
    return {k: canonical(v) for k, v in value.items()}


def write(folder: Path, docs: dict[str, list[dict]], *, form: str = "lines", suffix: str = ".jsonl",
          mode: str = "relaxed") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, items in docs.items():
        encoded = []
        for k, d in enumerate(items):
            use_canonical = mode == "canonical" or (mode == "mixed" and k % 2 == 0)
            encoded.append(canonical(d) if use_canonical else d)
        if form == "array":
            text = json.dumps(encoded, indent=2)
        else:
            text = "".join(json.dumps(d) + "\n" for d in encoded)
        (folder / f"{name}{suffix}").write_text(text, encoding="utf-8")
    return folder


def test_reads_the_game_as_stored(tmp_path):
    export = read_export(write(tmp_path / "e", documents()))
    table = player_round_table(export)
    assert list(table.columns[: len(PLAYER_ROUND_COLUMNS)]) == list(PLAYER_ROUND_COLUMNS)
    assert len(table) == 6
    row = table[(table["round_id"] == 1) & (table["player_id"] == "13")].iloc[0]
    assert row["game_id"] == "7" and row["model"] == "m-b" and row["deck"] == "rare_words"
    assert row["history_type"] == "mini" and row["judge_model"] == "judge-x" and row["vote"] == "12"
    assert row["item_id"] == "bd:7:1:13" and not row["true_def"] and not row["knows"]
    true_row = table[(table["round_id"] == 1) & (table["player_id"] == "11")].iloc[0]
    assert true_row["true_def"] and true_row["vote"] == ""
    assert export.skipped == {}


@pytest.mark.parametrize(
    ("form", "suffix", "mode"),
    [("lines", ".jsonl", "relaxed"), ("array", ".json", "relaxed"), ("lines", ".json", "canonical"),
     ("array", ".json", "canonical"), ("lines", ".jsonl", "mixed"), ("array", ".jsonl", "mixed")],
)
def test_every_export_form_gives_the_same_table(tmp_path, form, suffix, mode):
    reference = player_round_table(read_export(write(tmp_path / "ref", documents())))
    other = player_round_table(read_export(write(tmp_path / "x", documents(), form=form, suffix=suffix, mode=mode)))
    assert reference.equals(other)


def test_pretty_printed_concatenated_documents(tmp_path):
    folder = write(tmp_path / "e", documents())
    docs = documents()["rounds"]
    (folder / "rounds.jsonl").write_text("".join(json.dumps(d, indent=2) + "\n" for d in docs), encoding="utf-8")
    assert len(player_round_table(read_export(folder))) == 6


def test_decode_extended_json_values():
    assert decode_extended_json({"$numberLong": "9007199254740993"}) == 9007199254740993
    assert decode_extended_json({"$numberDouble": "-Infinity"}) == float("-inf")
    assert decode_extended_json({"$date": {"$numberLong": "0"}}).startswith("1970-01-01T00:00:00")
    with pytest.raises(ValueError):
        decode_extended_json({"$numberInt": "seven"})


def test_items_follow_the_contract_and_carry_strata(tmp_path):
    folder = write(tmp_path / "e", documents())
    (folder / "rare_words.csv").write_text(
        "words,def,POS,zipf\nQuire,\"['24 sheets of paper', 'a choir']\",\"['noun','noun']\",1.2\n"
        "fard,\"['to paint the face']\",\"['verb']\",2.5\n",
        encoding="utf-8",
    )
    export = read_export(folder)
    items = export.items.set_index("item_id")
    item = items.loc["bd:7:1:12"]
    assert (item["game"], item["kind"], item["context"]) == ("balderdash", "definition", "Quire")
    assert (item["reference"], item["candidate"]) == ("24 sheets of paper", "a choir")
    assert (item["player_model"], item["deck"], item["judge_verdict"]) == ("m-a", "rare_words", "false")
    assert item["senses"] == "24 sheets of paper | a choir"
    assert item["frequency_band"] == "rare"  # Zipf 1.2 < 2
    assert items.loc["bd:7:2:13", "frequency_band"] == "uncommon"  # 2 ≤ 2.5 < 3.5
    labels = judge_labels(export)
    assert set(labels["question"]) == {"reference", "any_sense"} and len(labels) == 12


def test_counts_what_it_skips(tmp_path):
    docs = documents()
    del docs["rounds"][0]["votes"]["12"]  # a voter without a vote
    docs["rounds"][1]["votes"]["13"] = 11  # a vote by a player whose definition was true
    del docs["rounds"][1]["scores"]["11"]
    export = read_export(write(tmp_path / "e", docs))
    assert export.skipped == {"missing_votes": 1, "votes_by_true_definitions_ignored": 1, "missing_scores": 1}


def test_incomplete_games_are_reported(tmp_path):
    docs = documents()
    docs["games"][0]["number_of_rounds"] = 3
    export = read_export(write(tmp_path / "e", docs))
    assert export.incomplete_games == ["7"] and export.skipped["incomplete_games"] == 1


def test_missing_collection_file(tmp_path):
    folder = write(tmp_path / "e", documents())
    (folder / "players.jsonl").unlink()
    with pytest.raises(InputError, match=r"no players\.json or players\.jsonl"):
        read_export(folder)


def test_non_json_line_names_file_and_line(tmp_path):
    folder = write(tmp_path / "e", documents())
    lines = (folder / "rounds.jsonl").read_text().splitlines()
    (folder / "rounds.jsonl").write_text(lines[0] + "\nthis is not json\n" + lines[1] + "\n")
    with pytest.raises(InputError, match=r"rounds\.jsonl line 2: not valid JSON"):
        read_export(folder)


def test_unclosed_json_line_names_the_line_it_starts_on():
    from wordplay_audit.corpora.balderdash import iter_json_documents

    text = '{"a": 1}\n{"a": 2\n{"a": 3}\n'
    with pytest.raises(InputError, match=r"^f\.jsonl line 2: not valid JSON \(.*found at line 3\)$"):
        list(iter_json_documents(text, "f.jsonl"))


@pytest.mark.parametrize(
    ("collection", "index", "path", "message"),
    [
        ("rounds", 1, ("word",), r"rounds\.jsonl line 2: field 'word' is missing"),
        ("games", 0, ("filter_words",), r"games\.jsonl line 1: field 'filter_words' is missing"),
        ("players", 2, ("llm_name",), r"players\.jsonl line 3: field 'llm_name' is missing"),
        ("rounds", 0, ("player_definitions", "12", "judge_decision"), r"player_definitions\.12\.judge_decision' is missing"),
    ],
)
def test_missing_field(tmp_path, collection, index, path, message):
    docs = documents()
    target = docs[collection][index]
    for key in path[:-1]:
        target = target[key]
    del target[path[-1]]
    with pytest.raises(InputError, match=message):
        read_export(write(tmp_path / "e", docs))


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda d: d["rounds"][0]["votes"].update({"13": 99}), "names player 99"),
        (lambda d: d["rounds"][1].update({"round_id": 1}), "appears twice"),
        (lambda d: d["players"][0].update({"game_id": 8}), "names no game"),
        (lambda d: d["games"][0].update({"filter_words": "some"}), "filter_words"),
        (lambda d: d["rounds"][0]["player_definitions"]["11"].update({"judge_decision": "maybe"}), "true or false"),
    ],
)
def test_inconsistent_exports_are_refused(tmp_path, mutate, message):
    docs = documents()
    mutate(docs)
    with pytest.raises(InputError, match=message):
        read_export(write(tmp_path / "e", docs))


def test_words_file_def_must_be_a_literal(tmp_path):
    path = tmp_path / "w.csv"
    path.write_text("words,def,POS\nfard,\"[__import__('os')]\",noun\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"w\.csv line 2: column 'def'"):
        read_words_file(path)


_JSONISH = st.text(alphabet=st.sampled_from(list('{}[]":,0123456789-$abc tnul\n')), max_size=80)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(junk=st.one_of(_JSONISH, st.text(max_size=80)), which=st.sampled_from(["games", "players", "rounds"]))
def test_junk_input_errors_cleanly(tmp_path_factory, junk, which):
    folder = write(tmp_path_factory.mktemp("junk"), documents())
    (folder / f"{which}.jsonl").write_text(junk, encoding="utf-8")
    try:
        read_export(folder)
    except InputError as exc:
        assert "\n" not in str(exc)
