"""A key written twice in any JSON object the Connections reader reads is an error naming the key,
the file and the record: JSON keeps the last, so the file would lose a group or contradict itself
("Yes" then "No") without a word. Also inside the Python-literal strings of an earlier
``gpt_strawberry.json``, and for two Unicode spellings of one key."""

from __future__ import annotations

import json
import unicodedata

import pytest

from tests.support.cli_checks import one_line_error
from wordplay_audit.corpora.connections import read_connections
from wordplay_audit.corpora.demo import write_demo_corpus
from wordplay_audit.errors import InputError


@pytest.fixture
def folder(tmp_path):
    return write_demo_corpus(tmp_path / "cx")


def write_with(path, index, old, new, records=None):
    """Write the JSON list at ``path`` (or ``records``) one record a line, with ``old`` replaced
    by ``new`` in the JSON text of record ``index`` (json.dumps cannot write a key twice)."""
    records = records if records is not None else json.loads(path.read_text(encoding="utf-8"))
    texts = [json.dumps(r, ensure_ascii=False) for r in records]
    assert old in texts[index], (old, texts[index][:300])
    texts[index] = texts[index].replace(old, new, 1)
    path.write_text("[\n" + ",\n".join(texts) + "\n]\n", encoding="utf-8")


CHESS = '"Chess": ["KING", "QUEEN", "ROOK", "BISHOP"]'
JUDGED = '"CHESS_#_CHESS PIECES": "Yes"'

CASES = {
    # model answer files: the same group named twice (JSON would keep the wrong one)
    "model categories": (
        "model-a.json",
        0,
        CHESS,
        '"Chess": ["SWORD", "KING", "LIME", "SOLE"], ' + CHESS,
        "[0].categories: category 'Chess' written twice",
    ),
    # the human judge's decision given twice, Yes then No (JSON would keep No)
    "model judgement Yes then No": (
        "model-a.json",
        0,
        JUDGED,
        JUDGED + ', "CHESS_#_CHESS PIECES": "No"',
        "[0].categorical_score: judgement 'CHESS_#_CHESS PIECES' written twice",
    ),
    "model judgement Yes then Yes": (
        "model-a.json",
        0,
        JUDGED,
        JUDGED + ", " + JUDGED,
        "[0].categorical_score: judgement 'CHESS_#_CHESS PIECES' written twice",
    ),
    "model record field": (
        "model-a.json",
        2,
        '"score": ',
        '"score": 1, "score": ',
        "[2]: field 'score' written twice",
    ),
    "gold category": (
        "gold_data.json",
        1,
        '"PLANETS": ',
        '"PLANETS": ["A", "B", "C", "D"], "PLANETS": ',
        "[1].categories: category 'PLANETS' written twice",
    ),
    # game 3's PALINDROMES group is stored as {"Words": [...]}, as game 0's purple group in the study
    "gold group stored as a dict": (
        "gold_data.json",
        3,
        '{"Words": [',
        '{"Words": ["KAYAK", "RADAR", "LEVEL", "NOON"], "Words": [',
        "[3].categories.PALINDROMES: field 'Words' written twice",
    ),
    "model group stored as a dict": (
        "model-a.json",
        0,
        CHESS,
        '"Chess": {"Words": ["SWORD", "KING", "LIME", "SOLE"], "Words": ["KING", "QUEEN", "ROOK", "BISHOP"]}',
        "[0].categories.Chess: field 'Words' written twice",
    ),
    "taxonomy entry": (
        "game_with_knowledge_taxonomy.json",
        0,
        '"Knowledge Type": "encyclopedic"',
        '"Knowledge Type": "semantic relations", "Knowledge Type": "encyclopedic"',
        "[0].reasoning_annotation[2]: field 'Knowledge Type' written twice",
    ),
    "human stored score": (
        "novice.json",
        0,
        '"score": ',
        '"score": 4, "score": ',
        "[0]: field 'score' written twice",
    ),
    "human categories": (
        "novice.json",
        0,
        '"CHESS PIECES": ',
        '"CHESS PIECES": ["KING", "QUEEN", "ROOK", "BISHOP"], "CHESS PIECES": ',
        "[0].categories: category 'CHESS PIECES' written twice",
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_key_written_twice_is_one_line_error_naming_key_file_and_record(run_cli, folder, tmp_path, case):
    name, index, old, new, message = CASES[case]
    write_with(folder / name, index, old, new)
    out = tmp_path / "out"
    code, stdout, err = run_cli("connections", "score", "--data", str(folder), "--out", str(out))
    one_line_error(code, stdout, err, f"{folder / name}: {message}")
    assert not out.exists()


def test_the_flat_gold_file_is_checked_too(folder):
    records = [
        {"id": k, "Categories": name, "Words in Category": str(words)}
        for k, (name, words) in enumerate(
            json.loads((folder / "gold_data.json").read_text(encoding="utf-8"))[0]["categories"].items()
        )
    ]
    path = folder / "connections_gold.json"
    write_with(path, 1, '"Categories": ', '"Categories": "SHOES", "Categories": ', records=records)
    with pytest.raises(InputError, match=r"connections_gold.json: \[1\]: field 'Categories' written twice$"):
        read_connections(folder)


def test_inside_a_python_literal_string(folder):
    # an earlier copy of gpt_strawberry.json held every field as a Python-literal string
    path = folder / "model-a.json"
    records = json.loads(path.read_text(encoding="utf-8"))
    records[0]["categorical_score"] = repr(records[0]["categorical_score"]).replace(
        "'CHESS_#_CHESS PIECES': 'Yes'", "'CHESS_#_CHESS PIECES': 'Yes', 'CHESS_#_CHESS PIECES': 'No'"
    )
    records[1]["categories"] = repr(records[1]["categories"]).replace(
        "'Planets': ", "'Planets': [], 'Planets': "
    )
    path.write_text(json.dumps(records), encoding="utf-8")
    with pytest.raises(
        InputError,
        match=r"model-a.json: \[0\].categorical_score: judgement 'CHESS_#_CHESS PIECES' written twice$",
    ):
        read_connections(folder)
    records[0]["categorical_score"] = None  # the first error gone, the second one shows
    path.write_text(json.dumps(records), encoding="utf-8")
    with pytest.raises(
        InputError, match=r"model-a.json: \[1\].categories: category 'Planets' written twice$"
    ):
        read_connections(folder)


def test_two_unicode_spellings_of_one_key_are_one_key(folder):
    nfc = "CITRUS FRUIT\u00c9"
    nfd = unicodedata.normalize("NFD", nfc)
    assert nfc != nfd
    write_with(
        folder / "model-a.json",
        0,
        '"Citrus": ',
        f'"{nfc}": ["SOLE", "HEEL", "KING", "CAT"], "{nfd}": ',
    )
    with pytest.raises(InputError, match=rf"model-a.json: \[0\].categories: category '{nfc}' written twice$"):
        read_connections(folder)
