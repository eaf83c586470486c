"""Reading mongoexport files of the Balderdash database in every form, and refusing bad input."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.support import balderdash_export as bd
from wordplay_audit.corpora.balderdash import (
    PLAYER_ROUND_COLUMNS,
    BalderdashExport,
    decode_extended_json,
    judge_labels,
    player_round_table,
    read_export,
    read_words_file,
)
from wordplay_audit.corpora.balderdash.frames import CATEGORY_COLUMNS, as_category
from wordplay_audit.errors import InputError


def documents() -> dict[str, list[dict]]:
    """A two-round game of three players (two models), as the framework stores it."""
    game = {
        "_id": {"$oid": "665f1c2e9b1e8a0001000001"},
        "game_id": 7,
        "game_description": "t",
        "number_of_rounds": 2,
        "judge_llm_model_name": "judge-x",
        "random_seed": 5,
        "receiving_vote_points": 1,
        "correct_vote_points": 2,
        "correct_definition_points": 3,
        "history_window_size": 20,
        "llms_temperature": 0.9,
        "words_file": "data/rare_words.csv",
        "filter_words": "all",
        "history_type": "mini",
        "created_at": {"$date": "2024-06-01T00:00:00Z"},
    }
    players = [
        {
            "_id": {"$oid": f"665f1c2e9b1e8a00020000{k}"},
            "player_id": 10 + k,
            "name": f"p{k}",
            "llm_name": model,
            "game_id": 7,
            "score": 0,
            "score_history": {},
            "rank_history": {},
        }
        for k, model in ((1, "m-a"), (2, "m-a"), (3, "m-b"))
    ]
    rounds = [
        {
            "_id": {"$oid": "665f1c2e9b1e8a0003000001"},
            "game_id": 7,
            "round_id": 1,
            "word": "Quire",
            "correct_definition": "24 sheets of paper",
            "pos": "noun",
            "players": [11, 12, 13],
            "player_definitions": {
                "11": {
                    "definition": "a set of 24 sheets",
                    "judge_decision": True,
                    "llm_knows_one_of_the_defs": True,
                },
                "12": {"definition": "a choir", "judge_decision": False, "llm_knows_one_of_the_defs": False},
                "13": {"definition": "a bird", "judge_decision": False, "llm_knows_one_of_the_defs": False},
            },
            "votes": {"12": -1, "13": 12},
            "scores": {"11": 3, "12": 3, "13": 0},
        },
        {
            "_id": {"$oid": "665f1c2e9b1e8a0003000002"},
            "game_id": 7,
            "round_id": 2,
            "word": "fard",
            "correct_definition": "to paint the face",
            "pos": "verb",
            "players": [11, 12, 13],
            "player_definitions": {
                "11": {"definition": "a sweet", "judge_decision": False, "llm_knows_one_of_the_defs": False},
                "12": {"definition": "make-up", "judge_decision": False, "llm_knows_one_of_the_defs": True},
                "13": {
                    "definition": "to paint one's face",
                    "judge_decision": True,
                    "llm_knows_one_of_the_defs": True,
                },
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


def write(
    folder: Path,
    docs: dict[str, list[dict]],
    *,
    form: str = "lines",
    suffix: str = ".jsonl",
    mode: str = "relaxed",
) -> Path:
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
    [
        ("lines", ".jsonl", "relaxed"),
        ("array", ".json", "relaxed"),
        ("lines", ".json", "canonical"),
        ("array", ".json", "canonical"),
        ("lines", ".jsonl", "mixed"),
        ("array", ".jsonl", "mixed"),
    ],
)
def test_every_export_form_gives_the_same_table(tmp_path, form, suffix, mode):
    reference = player_round_table(read_export(write(tmp_path / "ref", documents())))
    other = player_round_table(
        read_export(write(tmp_path / "x", documents(), form=form, suffix=suffix, mode=mode))
    )
    assert reference.equals(other)


def test_pretty_printed_concatenated_documents(tmp_path):
    folder = write(tmp_path / "e", documents())
    docs = documents()["rounds"]
    (folder / "rounds.jsonl").write_text(
        "".join(json.dumps(d, indent=2) + "\n" for d in docs), encoding="utf-8"
    )
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
    for name in ("player_model", "deck", "history_type", "filter_words", "judge_model"):
        assert items[name].dtype == "str", name  # plain text, as every reader's items
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
        (
            "rounds",
            0,
            ("player_definitions", "12", "judge_decision"),
            r"player_definitions\.12\.judge_decision' is missing",
        ),
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
        (
            lambda d: d["rounds"][0]["player_definitions"]["11"].update({"judge_decision": "maybe"}),
            "true or false",
        ),
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


# --------------------------------------------------------------------------- bad input


def write_lines(folder: Path, name: str, lines: list[str] | list[bytes]) -> None:
    data = b"".join((x if isinstance(x, bytes) else x.encode("utf-8")) + b"\n" for x in lines)
    (folder / f"{name}.jsonl").write_bytes(data)


def test_deep_nesting_is_one_line_error_not_recursion(tmp_path):
    folder = write(tmp_path / "e", documents())
    first = json.dumps(documents()["rounds"][0])
    write_lines(folder, "rounds", [first, "[" * 100_000])
    with pytest.raises(InputError, match=r"^.*rounds\.jsonl line 2: not valid JSON \(nested too deeply\)$"):
        read_export(folder)
    write_lines(folder, "rounds", ['{"word": ' + "[" * 100_000])
    with pytest.raises(InputError, match=r"rounds\.jsonl line 1: not valid JSON \(nested too deeply\)$"):
        read_export(folder)


@pytest.mark.parametrize(
    ("raw_round_id", "message"),
    [
        (
            "1" + "0" * 30,
            r"rounds\.jsonl line 2: field 'round_id' must be a whole number of at most 18 digits, got 10{30}$",
        ),
        (
            "1" * 5001,
            r"rounds\.jsonl line 2: not valid JSON \(Exceeds the limit \(4300 digits\).*5001 digits\)$",
        ),
        ('{"$numberLong": "' + "1" * 5001 + '"}', r"rounds\.jsonl line 2: bad Extended JSON value \(Exceeds"),
        (
            '"' + "9" * 40 + '"',
            r"rounds\.jsonl line 2: field 'round_id' must be a whole number of at most 18 digits, got '9{36}\.\.\.$",
        ),
        (
            "1e30",
            r"rounds\.jsonl line 2: field 'round_id' must be a whole number of at most 18 digits, got 1e\+30$",
        ),
    ],
)
def test_huge_round_id_is_one_line_error(tmp_path, raw_round_id, message):
    folder = write(tmp_path / "e", documents())
    lines = [json.dumps(r) for r in documents()["rounds"]]
    lines[1] = lines[1].replace('"round_id": 2', f'"round_id": {raw_round_id}')
    write_lines(folder, "rounds", lines)
    with pytest.raises(InputError, match=message) as caught:
        read_export(folder)
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize("bad", ["NaN", "Infinity", "-Infinity", "1e400", '{"$numberDouble": "NaN"}'])
def test_non_finite_score_is_refused_not_dropped(tmp_path, bad):
    folder = write(tmp_path / "e", documents())
    lines = [json.dumps(r) for r in documents()["rounds"]]
    lines[1] = lines[1].replace('"scores": {"11": 0', f'"scores": {{"11": {bad}')
    write_lines(folder, "rounds", lines)
    with pytest.raises(
        InputError, match=r"rounds\.jsonl line 2: field 'scores\.11': expected a finite number"
    ):
        read_export(folder)


@pytest.mark.parametrize("bad", ["NaN", "Infinity", "1e400", '{"$numberDouble": "-Infinity"}'])
def test_non_finite_point_value_is_refused_not_a_setting_of_its_own(tmp_path, bad):
    folder = write(tmp_path / "e", documents())
    line = json.dumps(documents()["games"][0]).replace(
        '"correct_vote_points": 2', f'"correct_vote_points": {bad}'
    )
    write_lines(folder, "games", [line])
    with pytest.raises(
        InputError, match=r"games\.jsonl line 1: field 'correct_vote_points': expected a finite"
    ):
        read_export(folder)


def test_non_finite_player_score_is_refused(tmp_path):
    folder = write(tmp_path / "e", documents())
    lines = [json.dumps(p) for p in documents()["players"]]
    lines[2] = lines[2].replace('"score": 0', '"score": NaN')
    write_lines(folder, "players", lines)
    with pytest.raises(
        InputError, match=r"players\.jsonl line 3: field 'score': expected a finite number, got nan"
    ):
        read_export(folder)


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ('"scores": {"11": 0,', '"scores": {"11": 0, "11": 5,'),  # same player's score twice
        ('"votes": {"11": 12,', '"votes": {"11": 12, "11": -1,'),  # two votes of one player
        ('"word": "fard",', '"word": "fard", "word": "quire",'),
    ],
)
def test_duplicate_keys_are_refused_not_last_one_wins(tmp_path, old, new):
    folder = write(tmp_path / "e", documents())
    lines = [json.dumps(r) for r in documents()["rounds"]]
    assert old in lines[1]
    lines[1] = lines[1].replace(old, new)
    write_lines(folder, "rounds", lines)
    with pytest.raises(
        InputError, match=r"rounds\.jsonl line 2: key '(11|word)' appears twice in one object"
    ):
        read_export(folder)


def test_duplicate_key_in_pretty_printed_document_names_the_line_it_starts_on(tmp_path):
    folder = write(tmp_path / "e", documents())
    first, second = documents()["rounds"]
    text = (
        json.dumps(first)
        + "\n"
        + json.dumps(second, indent=2).replace('"pos": "verb"', '"pos": "verb", "pos": "x"')
    )
    (folder / "rounds.jsonl").write_text(text + "\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"rounds\.jsonl line 2: key 'pos' appears twice"):
        read_export(folder)


def test_latin1_byte_names_its_line(tmp_path):
    folder = write(tmp_path / "e", documents())
    lines = [json.dumps(r).encode("utf-8") for r in documents()["rounds"]]
    lines[1] = lines[1].replace(b"make-up", "maquillé".encode("latin-1"))
    write_lines(folder, "rounds", lines)
    with pytest.raises(InputError, match=r"rounds\.jsonl line 2: not UTF-8 text"):
        read_export(folder)


def test_byte_order_marks_are_accepted(tmp_path):
    reference = player_round_table(read_export(write(tmp_path / "ref", documents())))
    folder = write(tmp_path / "bom", documents())
    for name in ("games", "players", "rounds"):
        path = folder / f"{name}.jsonl"
        path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    (folder / "rare_words.csv").write_bytes(b"\xef\xbb\xbfwords,def,POS\nQuire,\"['a', 'b']\",noun\n")
    export = read_export(folder)
    pd.testing.assert_frame_equal(player_round_table(export), reference)
    assert export.items.set_index("item_id").loc["bd:7:1:11", "senses"] == "a | b"


def test_errors_found_after_parsing_name_the_file_line_of_the_second_occurrence(tmp_path):
    folder = write(tmp_path / "e", documents())
    first, second = documents()["rounds"]
    second["round_id"] = 1
    (folder / "rounds.jsonl").write_text(json.dumps(first) + "\n\n\n\n\n\n" + json.dumps(second) + "\n")
    with pytest.raises(
        InputError, match=r"rounds\.jsonl line 7: round 1 of game 7 appears twice \(first on line 1\)$"
    ):
        read_export(folder)
    players = documents()["players"]
    pretty = json.dumps(players[1], indent=2)  # lines 2-13; player 13 on line 14, player 11 again on 15
    assert pretty.count("\n") == 11
    write_lines(
        folder, "players", [json.dumps(players[0]), pretty, json.dumps(players[2]), json.dumps(players[0])]
    )
    with pytest.raises(
        InputError, match=r"players\.jsonl line 15: player_id 11 appears twice \(first on line 1\)$"
    ):
        read_export(folder)


def test_counted_findings_show_in_skipped(tmp_path):
    docs = documents()
    del docs["rounds"][1]["scores"]["12"]  # a missing score: nan, counted, left out of AS
    docs["rounds"][0]["player_definitions"]["13"]["judge_decision"] = True  # judge true, knows false
    del docs["rounds"][0]["votes"]["13"]  # … and so it does not vote
    export = read_export(write(tmp_path / "e", docs))
    assert export.skipped == {"knows_false_but_judge_true": 1, "missing_scores": 1}
    table = player_round_table(export).set_index("item_id")
    assert np.isnan(table.loc["bd:7:2:12", "score"]) and table.loc["bd:7:1:13", "vote"] == ""


def test_json_lines_then_pretty_printed_documents_keep_their_lines(tmp_path):
    """Line-by-line reading falls back to the whole-text parser from the first multi-line document."""
    folder = write(tmp_path / "e", documents())
    first, second = documents()["rounds"]
    broken = dict(second)
    del broken["word"]
    text = json.dumps(first) + "\n" + json.dumps(broken, indent=2) + "\n"
    (folder / "rounds.jsonl").write_text(text, encoding="utf-8")
    with pytest.raises(InputError, match=r"rounds\.jsonl line 2: field 'word' is missing$"):
        read_export(folder)
    text = json.dumps(first, indent=2) + "\n" + json.dumps(broken) + "\n"
    (folder / "rounds.jsonl").write_text(text, encoding="utf-8")
    n_lines = json.dumps(first, indent=2).count("\n") + 1
    with pytest.raises(InputError, match=rf"rounds\.jsonl line {n_lines + 1}: field 'word' is missing$"):
        read_export(folder)


def test_rows_sort_by_ids_as_text_and_rounds_as_numbers(tmp_path):
    docs = documents()
    docs["rounds"][1]["round_id"] = 10
    docs["games"][0]["number_of_rounds"] = 10
    for p in docs["players"]:
        p["player_id"] += 90  # 101, 102, 103
    for r in docs["rounds"]:
        r["players"] = [p + 90 for p in r["players"]]
        for key in ("player_definitions", "votes", "scores"):
            r[key] = {str(int(k) + 90): v for k, v in r[key].items()}
        r["votes"] = {k: (v + 90 if v != -1 else v) for k, v in r["votes"].items()}
    docs["players"][0]["player_id"] = 9  # as text, "9" sorts after "102" and "103"
    for r in docs["rounds"]:
        r["players"][0] = 9
        for key in ("player_definitions", "votes", "scores"):
            if "101" in r[key]:
                r[key]["9"] = r[key].pop("101")
        r["votes"] = {k: (9 if v == 101 else v) for k, v in r["votes"].items()}
    table = player_round_table(read_export(write(tmp_path / "e", docs)))
    assert table["round_id"].tolist() == [1, 1, 1, 10, 10, 10]
    assert table["player_id"].tolist() == ["102", "103", "9"] * 2


def test_table_read_once_equals_the_table_joined_from_the_tables(tmp_path):
    """The player-round table gathered while reading equals the one joined from the tables."""
    folder = write(tmp_path / "e", documents())
    (folder / "rare_words.csv").write_text("words,def,POS,zipf\nquire,\"['x']\",noun,1.0\n", encoding="utf-8")
    export = read_export(folder)
    by_hand = BalderdashExport(
        games=export.games,
        players=export.players,
        rounds=export.rounds,
        definitions=export.definitions,
        words=export.words,
        source=export.source,
    )
    pd.testing.assert_frame_equal(player_round_table(by_hand), player_round_table(export))
    pd.testing.assert_frame_equal(by_hand.items, export.items)
    assert export.items.set_index("item_id").loc["bd:7:1:12", "frequency_band"] == "rare"


def test_low_cardinality_texts_of_the_table_are_categoricals_in_text_order(tmp_path):
    table = player_round_table(read_export(write(tmp_path / "e", documents())))
    for name in CATEGORY_COLUMNS:
        dtype = table[name].dtype
        assert isinstance(dtype, pd.CategoricalDtype) and not dtype.ordered, name
        assert list(dtype.categories) == sorted(set(table[name].astype(str))), name
    assert table.groupby("model").size().to_dict() == {"m-a": 4, "m-b": 2}
    # grouping a part shows only the categories there (pandas >= 3: observed=True by default)
    assert table[table["model"] == "m-b"].groupby("model").size().to_dict() == {"m-b": 2}
    text = pd.Series(["b", None, "a", "b"], dtype="str")
    cat = as_category(text)
    assert list(cat.cat.categories) == ["a", "b"] and cat.cat.codes.tolist() == [1, -1, 0, 1]
    assert cat.astype(object).where(cat.notna(), None).tolist() == ["b", None, "a", "b"]


def test_words_file_nan_zipf_and_duplicate_header_are_refused(tmp_path):
    path = tmp_path / "w.csv"
    path.write_text("words,def,POS,zipf\nfard,\"['x']\",verb,nan\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"w\.csv line 2: column 'zipf' must be a number"):
        read_words_file(path)
    path.write_text("words,def,def\nfard,x,y\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"w\.csv line 1: column 'def' appears twice in the header"):
        read_words_file(path)
    path.write_bytes(b"words,def\nfard,x\ncaf\xe9,y\n")
    with pytest.raises(InputError, match=r"w\.csv line 3: not UTF-8 text \(byte 0xe9\)"):
        read_words_file(path)


# --------------------------------------------------------------------------- the plain-shape path


def test_repeated_key_three_levels_deep_is_refused_on_a_plain_looking_line(tmp_path):
    """player_definitions.<id>.<key> repeated on a round of the usual shape: still refused."""
    folder = write(tmp_path / "e", documents())
    lines = [json.dumps(r) for r in documents()["rounds"]]
    assert '"judge_decision": ' in lines[1]
    lines[1] = lines[1].replace('"judge_decision": ', '"judge_decision": false, "judge_decision": ', 1)
    write_lines(folder, "rounds", lines)
    with pytest.raises(InputError, match=r"rounds\.jsonl line 2: key 'judge_decision' appears twice"):
        read_export(folder)


@pytest.mark.parametrize(
    ("collection", "row", "line", "pretty"),
    [
        ("rounds", 1, 2, False),
        ("players", 2, 3, False),
        ("games", 0, 1, False),
        ("rounds", 1, None, True),  # a pretty-printed file: the whole-text parser
    ],
)
def test_a_lone_surrogate_escape_is_a_one_line_error(tmp_path, collection, row, line, pretty):
    # "\ud800" alone decodes to a string no UTF-8 writer takes (pyarrow raised a traceback);
    # a pair ("\ud83d\ude00") is one character and stays valid
    folder = write(tmp_path / "e", documents())
    docs = documents()[collection]
    key = next(k for k, v in docs[row].items() if isinstance(v, str))
    docs[row][key] = docs[row][key] + "\ud800"
    if pretty:
        text = "\n".join(json.dumps(d, indent=2) for d in docs)
        (folder / f"{collection}.jsonl").write_text(text + "\n")
        line = 1 + sum(json.dumps(d, indent=2).count("\n") + 1 for d in docs[:row])
    else:
        write_lines(folder, collection, [json.dumps(d) for d in docs])
    with pytest.raises(
        InputError, match=rf"{collection}\.jsonl line {line}: a string holds a lone surrogate"
    ):
        read_export(folder)


def test_a_surrogate_pair_escape_reads_as_one_character(tmp_path):
    folder = write(tmp_path / "e", documents())
    lines = [json.dumps(r) for r in documents()["rounds"]]
    word = documents()["rounds"][0]["word"]
    lines[0] = lines[0].replace(f'"word": "{word}"', f'"word": "{word}\\ud83d\\ude00"')
    write_lines(folder, "rounds", lines)
    assert read_export(folder).rounds["word"].str.endswith("\U0001f600").sum() == 1


def test_words_given_by_name_are_never_ignored_silently(tmp_path):
    folder = write(tmp_path / "e", documents())  # one game, deck "rare_words"
    other = tmp_path / "common_words.csv"
    other.write_text("words,def,POS\nhello,\"['a greeting']\",noun\n", encoding="utf-8")
    with pytest.raises(
        InputError, match=r"common_words\.csv: words file matches no deck of the export \(decks: rare_words"
    ):
        read_export(folder, words=[other])
    empty = tmp_path / "decks"
    empty.mkdir()
    with pytest.raises(InputError, match=r"decks: folder holds no \.csv words file"):
        read_export(folder, words=[empty])
    matching = tmp_path / "rare_words.csv"
    matching.write_text("words,def,POS\nhello,\"['a greeting']\",noun\n", encoding="utf-8")
    assert set(read_export(folder, words=[matching]).words) == {"rare_words"}


def test_an_export_given_as_a_file_says_so(tmp_path):
    path = tmp_path / "rounds.jsonl"
    path.write_text("{}\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"rounds\.jsonl: is a file, expected a folder"):
        read_export(path)


def test_a_collection_that_is_a_folder_says_so(tmp_path):
    for name in ("games", "players"):
        (tmp_path / f"{name}.jsonl").write_text("{}\n", encoding="utf-8")
    (tmp_path / "rounds.jsonl").mkdir()  # it used to say "no rounds.json or rounds.jsonl"
    with pytest.raises(InputError, match=r"rounds\.jsonl: is a folder, expected the 'rounds' collection"):
        read_export(tmp_path)


# --- the small export of tests/support/balderdash_export.py, columnar and streamed ----------------


@pytest.mark.parametrize("bom", [False, True], ids=["columnar", "streamed"])
def test_a_vote_for_ones_own_definition_is_counted(tmp_path, bom):
    docs = bd.documents()
    docs["rounds"][0]["votes"] = {"12": -1, "13": 13}  # player 13 votes for their own definition
    export = read_export(bd.write(tmp_path / "e", docs, bom_rounds=bom))
    assert export.skipped == {"self_votes_ignored": 1}
    table = player_round_table(export)
    row = table[(table["round_id"] == 1) & (table["player_id"] == "13")].iloc[0]
    assert row["vote"] == ""


@pytest.mark.parametrize("bom", [False, True], ids=["columnar", "streamed"])
@pytest.mark.parametrize("field", ["word", "correct_definition"])
def test_an_empty_word_or_reference_is_an_error(tmp_path, bom, field):
    docs = bd.documents()
    docs["rounds"][1][field] = "  "
    with pytest.raises(InputError, match=rf"rounds\.jsonl line 2: field '{field}' is empty$"):
        read_export(bd.write(tmp_path / "e", docs, bom_rounds=bom))


@pytest.mark.parametrize("bom", [False, True], ids=["columnar", "streamed"])
def test_an_empty_player_definition_is_counted(tmp_path, bom):
    docs = bd.documents()
    docs["rounds"][0]["player_definitions"]["13"]["definition"] = ""
    export = read_export(bd.write(tmp_path / "e", docs, bom_rounds=bom))
    assert export.skipped == {"empty_definitions": 1}


def test_extra_rounds_are_not_called_incomplete(run_cli, tmp_path):
    folder = bd.write(tmp_path / "e", bd.documents(number_of_rounds=1))  # two rounds found, one planned
    assert read_export(folder).skipped == {"games_with_extra_rounds": 1}
    code, out, err = run_cli("balderdash", "metrics", str(folder), "--json")
    assert code == 2 and "no complete game" in err  # the only game is left out
    docs = bd.documents(number_of_rounds=1)
    docs["games"].append({**docs["games"][0], "game_id": 8, "number_of_rounds": 2})
    docs["players"] += [{**p, "player_id": p["player_id"] + 10, "game_id": 8} for p in docs["players"]]
    docs["rounds"] += [
        {
            **r,
            "game_id": 8,
            "players": [21, 22, 23],
            "player_definitions": {str(int(k) + 10): v for k, v in r["player_definitions"].items()},
            "votes": {str(int(k) + 10): (v if v == -1 else v + 10) for k, v in r["votes"].items()},
            "scores": {str(int(k) + 10): v for k, v in r["scores"].items()},
        }
        for r in docs["rounds"]
    ]
    folder = bd.write(tmp_path / "two", docs)
    code, out, err = run_cli("balderdash", "metrics", str(folder), "--json")
    assert code == 0, err
    skipped = json.loads(out)["skipped"]
    assert skipped["games_with_extra_rounds_left_out"] == 1 and skipped["incomplete_games_left_out"] == 0


def test_a_null_document_says_null(tmp_path):
    folder = bd.write(tmp_path / "e", bd.documents())
    with (folder / "players.jsonl").open("a", encoding="utf-8") as handle:
        handle.write("null\n")
    with pytest.raises(InputError, match=r"players\.jsonl line 4: expected a JSON object, got null$"):
        read_export(folder)


def test_an_id_beyond_18_digits_states_the_rule(tmp_path):
    docs = bd.documents()
    docs["players"][2]["player_id"] = 10**23
    with pytest.raises(
        InputError,
        match=r"players\.jsonl line 3: field 'player_id' must be a whole number of at most 18 digits, got 10{23}$",
    ):
        read_export(bd.write(tmp_path / "e", docs))


# --- words files ----------------------------------------------------------------------------------


def _words(path: Path, rows: list[str], header: str = "words,def,POS,frequency_band") -> Path:
    path.write_text(header + "\n" + "\n".join(rows) + "\n", encoding="utf-8")
    return path


def test_a_duplicate_word_names_both_lines(tmp_path):
    # line 2 holds a quoted cell over two lines, so the second row starts on line 4, the third on 5
    path = _words(
        tmp_path / "rare_words.csv",
        [
            "quire,\"['24 sheets',\n 'a choir']\",noun,rare",
            "fard,['to paint'],verb,rare",
            "Quire,['x'],noun,rare",
        ],
    )
    with pytest.raises(InputError) as caught:
        read_words_file(path)
    assert str(caught.value) == f"{path} line 5: word 'quire' appears twice (first on line 2)"


@pytest.mark.parametrize(
    ("row", "message"),
    [
        (" ,['x'],noun,rare", "line 3: column 'words' is empty"),
        (
            "fard,['x'],verb,often",
            "line 3: column 'frequency_band' must be one of rare, uncommon, common or empty",
        ),
    ],
)
def test_bad_word_rows_are_one_line_errors(tmp_path, row, message):
    path = _words(tmp_path / "rare_words.csv", ["quire,['24 sheets'],noun,rare", row])
    with pytest.raises(InputError, match=message):
        read_words_file(path)


def test_a_game_whose_deck_has_no_words_file_is_counted(tmp_path):
    docs = bd.documents()
    second = {**docs["games"][0], "game_id": 8, "words_file": "data/common_words.csv"}
    docs["games"].append(second)
    folder = bd.write(tmp_path / "e", docs)
    _words(folder / "rare_words.csv", ["quire,['24 sheets'],noun,rare", "fard,['to paint'],verb,rare"])
    export = read_export(folder)
    # game 8 has no rounds (counted as such) and no words file for its deck common_words
    assert export.skipped == {"games_without_rounds": 1, "games_without_words_file": 1}
