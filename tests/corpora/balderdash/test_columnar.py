"""The DuckDB reader of plain rounds files gives the streaming reader's tables, or steps aside.

The reference is the streaming reader (``read_export`` with the columnar path switched off);
every hostile variation must leave ``read_export``'s result or error exactly as it was.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from wordplay_audit.corpora.balderdash import export as export_module
from wordplay_audit.corpora.balderdash import player_round_table, read_export
from wordplay_audit.corpora.balderdash.columnar import read_rounds_columnar
from wordplay_audit.corpora.balderdash.documents import iter_objects
from wordplay_audit.corpora.balderdash.parse import parse_games, parse_players
from wordplay_audit.errors import InputError


def _game(game_id: int) -> dict:
    return {
        "_id": {"$oid": f"665f1c2e9b1e8a00010000{game_id:02d}"},
        "game_id": game_id,
        "number_of_rounds": 2,
        "judge_llm_model_name": "judge-x",
        "receiving_vote_points": 1,
        "correct_vote_points": 2,
        "correct_definition_points": 3,
        "words_file": "data/rare_words.csv",
        "filter_words": "all",
        "history_type": "mini",
    }


def _entry(text: str, judge: bool, knows: bool) -> dict:
    return {"definition": text, "judge_decision": judge, "llm_knows_one_of_the_defs": knows}


def documents() -> dict[str, list[dict]]:
    """Two games of three players; game 7 has two rounds, game 8 one (hand-written)."""
    players = [
        {"player_id": pid, "name": f"p{pid}", "llm_name": model, "game_id": game}
        for game, pids in ((7, (11, 12, 13)), (8, (21, 22, 23)))
        for pid, model in zip(pids, ("m-a", "m-a", "m-b"), strict=True)
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
                "11": _entry("a set of 24 sheets", True, True),
                "12": _entry("a choir: singers", False, False),
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
            "players": [13, 11, 12],
            "player_definitions": {
                "11": _entry("a sweet", False, False),
                "12": _entry("make-up, é ✓ 😀", False, True),
                "13": _entry("to paint one's face", True, True),
            },
            "votes": {"11": 12, "12": -1},
            "scores": {"11": 0.5, "12": 3, "13": -2.25},
        },
        {
            "game_id": 8,
            "round_id": 1,
            "word": "zax",
            "correct_definition": "a tool for cutting roof slates",
            "players": [21, 22, 23],
            "player_definitions": {
                "21": _entry("a tool", False, True),
                "22": _entry("an axe", False, False),
                "23": _entry("a fish", False, False),
            },
            "votes": {"21": 22, "22": -1, "23": 21},
            "scores": {"21": 0, "22": 2, "23": 1},
        },
    ]
    return {"games": [_game(7), _game(8)], "players": players, "rounds": rounds}


def write(folder: Path, docs: dict[str, list[dict]], rounds: bytes | None = None, **dumps) -> Path:
    """Write the three collections as JSON lines; ``rounds`` replaces the rounds file's bytes."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, items in docs.items():
        text = "".join(json.dumps(d, **dumps) + "\n" for d in items)
        (folder / f"{name}.jsonl").write_bytes(
            rounds if name == "rounds" and rounds is not None else text.encode()
        )
    return folder


def columnar(folder: Path, texts: bool = True):
    """What the columnar reader gives for ``folder`` (None: it steps aside)."""
    games = parse_games("g", iter_objects(folder / "games.jsonl"))
    players = parse_players("p", iter_objects(folder / "players.jsonl"), set(games["game_id"]))
    return read_rounds_columnar(folder / "rounds.jsonl", players, set(games["game_id"]), texts=texts)


def outcome(folder: Path, texts: bool = True):
    """The export, or the error's type and text."""
    try:
        return read_export(folder, texts=texts)
    except (InputError, UnicodeError) as exc:
        return f"{type(exc).__name__}: {exc}"


def streamed(folder: Path, monkeypatch: pytest.MonkeyPatch, texts: bool = True):
    with monkeypatch.context() as m:
        m.setattr(export_module, "read_rounds_columnar", lambda *args, **kwargs: None)
        return outcome(folder, texts)


def assert_same(got, expected, texts: bool = True) -> None:
    """Same error text, or the same tables, skipped counts and row map (``texts=False``: ``got``
    was read without the definition texts, ``expected`` with them)."""
    if isinstance(expected, str) or isinstance(got, str):
        assert got == expected
        return
    for name in ("games", "players", "rounds", "definitions"):
        want = getattr(expected, name)
        if name == "definitions" and not texts:
            want = want.drop(columns="definition")
        pd.testing.assert_frame_equal(getattr(got, name), want)
    pd.testing.assert_frame_equal(player_round_table(got), player_round_table(expected))
    if texts:
        pd.testing.assert_frame_equal(got.items, expected.items)
    np.testing.assert_array_equal(got.round_rows, expected.round_rows)
    assert got.skipped == expected.skipped


def assert_same_without_texts(folder: Path, monkeypatch: pytest.MonkeyPatch, expected) -> None:
    """Read without the definition texts, on both paths: the same tables bar the texts, or the
    same error (the texts are still checked, and their colons still counted)."""
    assert_same(outcome(folder, texts=False), expected, texts=False)
    assert_same(streamed(folder, monkeypatch, texts=False), expected, texts=False)


# ----------------------------------------------------------------------------- plain files


def test_hand_written_rounds_read_columnar_with_hand_checked_values(tmp_path):
    folder = write(tmp_path / "e", documents())
    assert columnar(folder) is not None
    export = read_export(folder)
    d = export.definitions
    assert d["player_id"].tolist() == ["11", "12", "13"] * 2 + ["21", "22", "23"]
    assert d["vote"].tolist() == ["", "-1", "12", "12", "-1", "", "22", "-1", "21"]
    assert d["score"].tolist() == [3.0, 3.0, 0.0, 0.5, 3.0, -2.25, 0.0, 2.0, 1.0]
    assert d["judge_decision"].tolist() == [True, False, False, False, False, True, False, False, False]
    assert d["definition"].iloc[4] == "make-up, é ✓ 😀"
    assert export.rounds["pos"].tolist() == ["noun", "verb", ""]
    assert export.rounds["n_true"].tolist() == [1, 1, 0]


@pytest.mark.parametrize(
    "dumps",
    [
        {},
        {"separators": (",", ":")},
        {"ensure_ascii": False},
        {"separators": (",", ":"), "ensure_ascii": False},
    ],
    ids=["json.dumps", "mongoexport-compact", "utf8", "compact-utf8"],
)
def test_plain_files_read_columnar_equal_the_streamed_tables(tmp_path, monkeypatch, dumps):
    folder = write(tmp_path / "e", documents(), **dumps)
    assert columnar(folder) is not None
    assert set(columnar(folder, texts=False).definition_columns()) == {
        "round_row", "player_id", "judge_decision", "llm_knows", "vote", "score"
    }  # fmt: skip
    expected = streamed(folder, monkeypatch)
    assert_same(outcome(folder), expected)
    assert_same_without_texts(folder, monkeypatch, expected)


def test_simulated_campaign_reads_columnar_and_equals_the_streamed_tables(tmp_path, monkeypatch):
    from wordplay_audit.corpora.balderdash.simulate import SimConfig
    from wordplay_audit.corpora.balderdash.writer import simulate_to_folder

    folder = tmp_path / "sim"
    simulate_to_folder(folder, seed=2, config=SimConfig(games_per_deck=2, n_rounds=8, labels_per_stratum=8))
    assert columnar(folder) is not None
    expected = streamed(folder, monkeypatch)
    assert_same(outcome(folder), expected)
    assert_same_without_texts(folder, monkeypatch, expected)


# ----------------------------------------------------------------------------- hostile variations


def _round(k: int, change: Callable[[dict], None]) -> Callable[[dict], None]:
    def mutate(docs: dict) -> None:
        change(docs["rounds"][k])

    return mutate


def _set(path: str, value) -> Callable[[dict], None]:
    *parents, last = path.split(".")

    def change(doc: dict) -> None:
        for key in parents:
            doc = doc[key]
        doc[last] = value

    return change


def _drop(path: str) -> Callable[[dict], None]:
    *parents, last = path.split(".")

    def change(doc: dict) -> None:
        for key in parents:
            doc = doc[key]
        del doc[last]

    return change


def _changes(*changes: Callable[[dict], None]) -> Callable[[dict], None]:
    def mutate(docs: dict) -> None:
        for change in changes:
            change(docs)

    return mutate


DOC_CHANGES = {
    "string game id": _round(0, _set("game_id", "7")),
    "string round id": _round(0, _set("round_id", "1")),
    "judge as 'true'": _round(0, _set("player_definitions.11.judge_decision", "true")),
    "knows as 1": _round(0, _set("player_definitions.12.llm_knows_one_of_the_defs", 1)),
    "judge as 0": _round(0, _set("player_definitions.12.judge_decision", 0)),
    "definition a number": _round(0, _set("player_definitions.13.definition", 5)),
    "definition null": _round(0, _set("player_definitions.13.definition", None)),
    "word a number": _round(0, _set("word", 5)),
    "pos a number": _round(0, _set("pos", 5)),
    "pos null": _round(0, _set("pos", None)),
    "pos missing": _round(0, _drop("pos")),
    "vote as '12'": _round(0, _set("votes.13", "12")),
    "vote as '-1'": _round(0, _set("votes.12", "-1")),
    "vote 12.0": _round(0, _set("votes.13", 12.0)),
    "vote for a stranger": _round(0, _set("votes.13", 99)),
    "vote for a player of another round": _round(0, _set("votes.13", 21)),
    "vote 0": _round(0, _set("votes.13", 0)),
    "missing vote": _round(0, _drop("votes.13")),
    "votes missing": _round(0, _drop("votes")),
    "missing score": _round(0, _drop("scores.13")),
    "scores missing": _round(0, _drop("scores")),
    "score true": _round(0, _set("scores.13", True)),
    "score '3'": _round(0, _set("scores.13", "3")),
    "score null": _round(0, _set("scores.13", None)),
    "score 1e16": _round(0, _set("scores.13", 1e16)),
    "score of a stranger": _round(0, _set("scores.99", 1)),
    "duplicate round": lambda docs: docs["rounds"].append(copy.deepcopy(docs["rounds"][0])),
    "unknown game": _round(2, _set("game_id", 9)),
    "player of another game": _round(0, _set("players", [11, 12, 21])),
    "player listed twice": _round(0, _set("players", [11, 12, 12])),
    "no players": _round(0, _set("players", [])),
    "player id 0": _round(0, _set("players", [11, 12, 0])),
    "player id a string": _round(0, _set("players", [11, 12, "13"])),
    "round 0": _round(0, _set("round_id", 0)),
    "extra key in player_definitions": _round(0, _set("player_definitions.99", _entry("x", False, False))),
    "entry missing": _round(0, _drop("player_definitions.13")),
    "extra key in an entry": _round(0, _set("player_definitions.13.note", {"a": 1})),
    "judge true and knows false": _round(0, _set("player_definitions.12.judge_decision", True)),
    "judge true and knows false, no vote": _changes(
        _round(0, _set("player_definitions.12.judge_decision", True)), _round(0, _drop("votes.12"))
    ),
    "a true definition votes": _round(0, _set("votes.11", 12)),
    "unknown top-level key": _round(0, _set("extra", 1)),
    "canonical int": _round(0, _set("round_id", {"$numberInt": "1"})),
    "canonical int vote": _round(0, _set("votes.13", {"$numberInt": "12"})),
    "canonical double score": _round(0, _set("scores.13", {"$numberDouble": "1.5"})),
    "_id a date": _round(0, _set("_id", {"$date": "2024-06-01T00:00:00Z"})),
}


@pytest.mark.parametrize("change", list(DOC_CHANGES.values()), ids=list(DOC_CHANGES))
def test_documents_of_another_shape_step_aside_or_read_the_same(tmp_path, monkeypatch, change):
    docs = documents()
    change(docs)
    folder = write(tmp_path / "e", docs)
    expected = streamed(folder, monkeypatch)
    got = columnar(folder)
    assert got is None or not isinstance(expected, str)
    assert_same(outcome(folder), expected)
    assert_same_without_texts(folder, monkeypatch, expected)


def _lines() -> list[str]:
    return [json.dumps(d) for d in documents()["rounds"]]


def _text(lines: list[str]) -> bytes:
    return "".join(line + "\n" for line in lines).encode()


BYTE_CHANGES: dict[str, Callable[[], bytes]] = {
    "blank line": lambda: _text(_lines()[:1] + [""] + _lines()[1:]),
    "blank line at the start": lambda: b"\n" + _text(_lines()),
    "blank line at the end": lambda: _text(_lines()) + b"\n",
    "no newline at the end": lambda: _text(_lines())[:-1],
    "blank-only line": lambda: _text(_lines()[:1] + ["   "] + _lines()[1:]),
    "BOM": lambda: b"\xef\xbb\xbf" + _text(_lines()),
    "BOM on a later line": lambda: _text(_lines()[:1]) + b"\xef\xbb\xbf" + _text(_lines()[1:]),
    "CRLF": lambda: _text(_lines()).replace(b"\n", b"\r\n"),
    "leading blank": lambda: _text([" " + line for line in _lines()]),
    "form feed at the end of a line": lambda: _text([_lines()[0] + "\f", *_lines()[1:]]),
    "JSON array": lambda: json.dumps(documents()["rounds"], indent=2).encode(),
    "JSON array on one line": lambda: json.dumps(documents()["rounds"]).encode(),
    "pretty-printed": lambda: "".join(json.dumps(d, indent=2) + "\n" for d in documents()["rounds"]).encode(),
    "pretty-printed from line 2": lambda: (
        _lines()[0] + "\n" + json.dumps(documents()["rounds"][1], indent=1)
    ).encode(),
    "two documents on a line": lambda: (_lines()[0] + " " + _lines()[1] + "\n" + _lines()[2] + "\n").encode(),
    "trailing comma in an object": lambda: (
        _text(_lines()).replace(b'"scores": {', b'"scores": {"13": 0, ', 1).replace(b"}}\n", b"},}\n", 1)
    ),
    "trailing comma in a list": lambda: _text(_lines()).replace(b"[11, 12, 13]", b"[11, 12, 13 ,]", 1),
    "NaN score": lambda: _text(_lines()).replace(b'"13": 0}', b'"13": NaN}', 1),
    "Infinity score": lambda: _text(_lines()).replace(b'"13": 0}', b'"13": -Infinity}', 1),
    "1e400 score": lambda: _text(_lines()).replace(b'"13": 0}', b'"13": 1e400}', 1),
    "huge integer score": lambda: _text(_lines()).replace(b'"13": 0}', b'"13": ' + b"9" * 30 + b"}", 1),
    "huge round id": lambda: _text(_lines()).replace(b'"round_id": 1', b'"round_id": 1000000000000000000', 1),
    "negative zero vote": lambda: _text(_lines()).replace(b'"13": 12}', b'"13": -0}', 1),
    "exponent vote": lambda: _text(_lines()).replace(b'"13": 12}', b'"13": 1.2e1}', 1),
    "repeated top-level key": lambda: _text(_lines()).replace(
        b'"word": "Quire"', b'"word": "Quire", "word": "Q"', 1
    ),
    "repeated unknown key": lambda: _text(_lines()).replace(
        b'"word": "Quire"', b'"x": 1, "word": "Quire", "x": 2', 1
    ),
    "repeated key inside an unknown value": lambda: _text(_lines()).replace(
        b'"word":', b'"x": {"a": 1, "a": 2}, "word":', 1
    ),
    "repeated key in an entry": lambda: _text(_lines()).replace(
        b'"definition": "a bird"', b'"definition": "a bird", "definition": "b"', 1
    ),
    "repeated unknown key in an entry": lambda: _text(_lines()).replace(
        b'"definition": "a bird"', b'"x": 1, "definition": "a bird", "x": 1', 1
    ),
    "repeated vote": lambda: _text(_lines()).replace(b'"13": 12}', b'"13": 12, "13": -1}', 1),
    "repeated $oid": lambda: _text(_lines()).replace(
        b'{"$oid": "665f1c2e9b1e8a0003000001"}', b'{"$oid": "a", "$oid": "b"}', 1
    ),
    "bad wrapper in an unknown key": lambda: _text(_lines()).replace(
        b'"word":', b'"x": {"$numberInt": "x"}, "word":', 1
    ),
    "escaped key name": lambda: _text(_lines()).replace(b'"word":', b'"\\u0077ord":', 1),
    "escaped colon in a text": lambda: _text(_lines()).replace(b"a bird", b"a bird\\u003a yes", 1),
    "escaped vote key": lambda: _text(_lines()).replace(b'"13": 12}', b'"\\u0031\\u0033": 12}', 1),
    "deep nesting in an unknown key": lambda: _text(_lines()).replace(
        b'"word":', b'"x": ' + b"[" * 3000 + b"]" * 3000 + b', "word":', 1
    ),
    "NUL escape": lambda: _text(_lines()).replace(b"a bird", b"a\\u0000bird", 1),
    "lone surrogate": lambda: _text(_lines()).replace(b"a bird", b"a\\ud800bird", 1),
    "lone low surrogate": lambda: _text(_lines()).replace(b"a bird", b"a\\udc00bird", 1),
    "surrogate pair": lambda: _text(_lines()).replace(
        b"a bird", b'a\\ud83d\\ude00 bird \\u00e9\\/\\\\\\"\\t', 1
    ),
    "raw tab in a text": lambda: _text(_lines()).replace(b"a bird", b"a\tbird", 1),
    "invalid UTF-8": lambda: _text(_lines()).replace(b"a bird", b"a \xff bird", 1),
    "UTF-8 surrogate bytes": lambda: _text(_lines()).replace(b"a bird", b"a \xed\xa0\x80 bird", 1),
    "overlong UTF-8": lambda: _text(_lines()).replace(b"a bird", b"a \xc0\xaf bird", 1),
    "colons and braces in texts": lambda: _text(_lines()).replace(b"a bird", b"a: {bird} [x], y:", 1),
    "tricky floats": lambda: (
        _text(_lines())
        .replace(b'"13": 0}', b'"13": 2.2250738585072011e-308}', 1)
        .replace(b'"12": 3,', b'"12": 0.1e1,', 1)
    ),
    "empty file": lambda: b"",
}


@pytest.mark.parametrize("make", list(BYTE_CHANGES.values()), ids=list(BYTE_CHANGES))
def test_odd_bytes_step_aside_or_read_the_same(tmp_path, monkeypatch, make):
    folder = write(tmp_path / "e", documents(), rounds=make())
    expected = streamed(folder, monkeypatch)
    got = columnar(folder)
    assert got is None or not isinstance(expected, str)
    assert_same(outcome(folder), expected)
    assert_same_without_texts(folder, monkeypatch, expected)


@pytest.mark.parametrize(
    ("name", "plain"),
    [
        ("surrogate pair", True),
        ("colons and braces in texts", True),
        ("tricky floats", True),
        ("NUL escape", True),
    ],
)
def test_texts_and_numbers_duckdb_reads_exactly_stay_columnar(tmp_path, monkeypatch, name, plain):
    folder = write(tmp_path / "e", documents(), rounds=BYTE_CHANGES[name]())
    assert (columnar(folder) is not None) == plain
    expected = streamed(folder, monkeypatch)
    assert_same(outcome(folder), expected)
    assert_same_without_texts(folder, monkeypatch, expected)


def test_a_rounds_file_above_the_size_limit_is_streamed(tmp_path, monkeypatch):
    from wordplay_audit.corpora.balderdash import columnar as columnar_module

    folder = write(tmp_path / "e", documents())
    assert columnar(folder) is not None
    monkeypatch.setattr(columnar_module, "MAX_BYTES", (folder / "rounds.jsonl").stat().st_size - 1)
    assert columnar(folder) is None
    assert_same(outcome(folder), streamed(folder, monkeypatch))


def test_an_export_read_without_texts_refuses_to_build_items(tmp_path):
    export = read_export(write(tmp_path / "e", documents()), texts=False)
    assert "definition" not in export.definitions.columns
    with pytest.raises(ValueError, match="texts=False"):
        export.items  # noqa: B018 - the property builds the table
