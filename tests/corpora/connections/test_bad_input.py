"""Bad input to the Connections reader and ``connections score``: one clean
error line or a counted, reported quirk — never a traceback, never silently last-one-wins."""

import json
import shutil
import unicodedata

import pytest

from wordplay_audit.analysis.connections import analyze_connections
from wordplay_audit.corpora.connections import MAX_JSON_DEPTH, read_connections
from wordplay_audit.corpora.demo import write_demo_corpus
from wordplay_audit.errors import InputError

STORED = "stored score is not a whole number 0-4 (ignored)"


@pytest.fixture
def folder(tmp_path):
    return write_demo_corpus(tmp_path / "cx")


def rewrite(path, edits):
    """Write the JSON list at ``path`` back, one record a line, with text ``edits``
    {record index: [(old, new), ...]} applied to the records' JSON text (to write what
    ``json.dumps`` cannot: duplicate keys, NaN, huge numbers)."""
    records = json.loads(path.read_text(encoding="utf-8"))
    lines = []
    for index, record in enumerate(records):
        text = json.dumps(record, ensure_ascii=False)
        for old, new in edits.get(index, []):
            assert old in text, (old, text[:200])
            text = text.replace(old, new)
        lines.append(text)
    path.write_text("[\n" + ",\n".join(lines) + "\n]\n", encoding="utf-8")


def scores_of(folder, model="model-a"):
    result = analyze_connections(read_connections(folder), plots=False)
    return result, result.scores[result.scores["model"] == model].set_index("game_index")


def one_line_error(run_cli, *args):
    code, out, err = run_cli(*args)
    assert code == 2 and err.count("\n") == 1 and "Traceback" not in err, err
    return err


# --- JSON: depth and size -----------------------------------------------------------------


def test_100000_nested_brackets_is_one_line_error(folder, run_cli, tmp_path):
    (folder / "model-b.json").write_text("[" * 100_000, encoding="utf-8")
    with pytest.raises(
        InputError, match=rf"model-b.json line 1: JSON nested deeper than {MAX_JSON_DEPTH} levels"
    ):
        read_connections(folder)
    err = one_line_error(run_cli, "connections", "score", "--data", str(folder), "--out", str(tmp_path / "o"))
    assert "model-b.json line 1: JSON nested deeper" in err
    assert not (tmp_path / "o").exists()


def test_deep_nesting_is_named_by_its_line_and_strings_do_not_count(folder):
    # 70 '[' inside a string are text, not nesting; the real nesting starts on line 3
    (folder / "model-b.json").write_text(
        '[\n{"allwords": "' + "[" * 70 + '"},\n' + "[" * 70 + "\n]", encoding="utf-8"
    )
    with pytest.raises(InputError, match=r"model-b.json line 3: JSON nested deeper"):
        read_connections(folder)


def test_a_lone_surrogate_escape_is_named_by_its_line(folder, run_cli, tmp_path):
    # "\ud800" alone is not Unicode (pyarrow raised a traceback later); a pair is one character
    path = folder / "model-b.json"
    text = path.read_text(encoding="utf-8")
    record = json.loads(text)[1]
    key = next(k for k, v in record.items() if isinstance(v, str))
    rewrite(path, {1: [(f'"{key}": "', f'"{key}": "\\ud800')]})
    with pytest.raises(InputError, match=r"model-b.json line 3: a string holds a lone surrogate escape"):
        read_connections(folder)
    err = one_line_error(run_cli, "connections", "score", "--data", str(folder), "--out", str(tmp_path / "o"))
    assert "lone surrogate" in err and not (tmp_path / "o").exists()


# --- numbers in a model answer file ------------------------------------------------------


def test_non_finite_and_huge_stored_scores_are_counted_not_scored(folder, run_cli, tmp_path):
    rewrite(
        folder / "model-a.json",
        {
            0: [('"score": 4', '"score": NaN')],
            1: [('"score": 2', '"score": Infinity')],
            2: [('"score": ', '"score": 1e400, "x": ')],
            3: [('"score": 3', '"score": ' + "9" * 5001)],
        },
    )
    result, a = scores_of(folder)
    assert result.to_dict()["quality_by_file"][f"model-a.json: {STORED}"] == 4
    # the games are still scored from their groups (as in test_demo_scores_by_hand)
    assert a.loc[0, "unweighted"] == 4 and a.loc[1, "unweighted"] == 2 and a.loc[3, "unweighted"] == 4
    assert a.loc[[0, 1, 2, 3], "stored_score"].isna().all()
    code, out, err = run_cli(
        "connections", "score", "--data", str(folder), "--out", str(tmp_path / "o"), "--json"
    )
    assert code == 0 and "Traceback" not in err
    assert json.loads(out)["quality"][STORED] == 4


def test_stored_score_out_of_range_is_counted(folder):
    rewrite(folder / "model-a.json", {0: [('"score": 4', '"score": 7')], 1: [('"score": 2', '"score": 2.5')]})
    result, _ = scores_of(folder)
    assert result.to_dict()["quality_by_file"][f"model-a.json: {STORED}"] == 2


# --- duplicate keys -----------------------------------------------------------------------


def test_field_written_twice_in_a_record_is_an_error(folder, run_cli, tmp_path):
    rewrite(folder / "model-a.json", {2: [('"score": ', '"score": 1, "score": ')]})
    with pytest.raises(InputError, match=r"model-a.json: \[2\]: field 'score' written twice"):
        read_connections(folder)
    one_line_error(run_cli, "connections", "score", "--data", str(folder), "--out", str(tmp_path / "o"))


def test_gold_category_written_twice_is_an_error(folder):
    rewrite(folder / "gold_data.json", {1: [('"PLANETS": ', '"PLANETS": ["A", "B", "C", "D"], "PLANETS": ')]})
    with pytest.raises(
        InputError, match=r"gold_data.json: \[1\].categories: category 'PLANETS' written twice"
    ):
        read_connections(folder)


# --- novice_raw.csv ----------------------------------------------------------------------------


def human_rows(folder):
    return analyze_connections(read_connections(folder), plots=False).human


def test_duplicated_human_row_is_counted_and_scored_once(folder):
    path = folder / "novice_raw.csv"
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    path.write_text("".join(lines + [lines[2]]), encoding="utf-8")  # line 3 (P2) again as line 6
    data = read_connections(folder)
    assert data.quirks[("novice_raw.csv", "duplicate answer row (not scored again)")] == 1
    human = analyze_connections(data, plots=False).human
    assert human["row"].tolist() == [2, 3, 4, 5]


def test_second_answer_of_a_player_to_one_game_is_counted_and_not_scored(folder):
    path = folder / "novice_raw.csv"
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    other = lines[2].replace("['MARS', 'VENUS', 'SATURN', 'MERCURY']", "['MARS', 'VENUS', 'SATURN', 'FOOT']")
    path.write_text("".join(lines + [other]), encoding="utf-8")
    data = read_connections(folder)
    assert data.quirks[("novice_raw.csv", "second answer of a player to one game (not scored)")] == 1
    assert analyze_connections(data, plots=False).human["row"].tolist() == [2, 3, 4, 5]


def test_bom_is_read(folder):
    before = human_rows(folder)
    path = folder / "novice_raw.csv"
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    assert human_rows(folder).equals(before)


def test_latin1_byte_names_file_and_line(folder, run_cli, tmp_path):
    path = folder / "novice_raw.csv"
    path.write_bytes(path.read_bytes().replace(b"'VENUS'", "'VÉNUS'".encode("latin-1")))
    with pytest.raises(InputError, match=r"novice_raw.csv line 3: not UTF-8 text \(byte 0xc9\)"):
        read_connections(folder)
    one_line_error(run_cli, "connections", "score", "--data", str(folder), "--out", str(tmp_path / "o"))


def test_200000_character_field_is_one_line_error(folder, run_cli, tmp_path):
    path = folder / "novice_raw.csv"
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    lines.insert(3, 'P7,True,9,"' + "A" * 200_000 + '"\n')  # becomes line 4
    path.write_text("".join(lines), encoding="utf-8")
    with pytest.raises(
        InputError, match=r"novice_raw.csv line 4: not readable as CSV \(field larger than field limit"
    ):
        read_connections(folder)
    one_line_error(run_cli, "connections", "score", "--data", str(folder), "--out", str(tmp_path / "o"))


def test_header_with_a_column_twice_is_an_error(folder):
    path = folder / "novice_raw.csv"
    text = path.read_text(encoding="utf-8").replace(
        "player,annotated,game_number,input", "player,input,game_number,input", 1
    )
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError, match=r"novice_raw.csv line 1: column 'input' appears 2 times"):
        read_connections(folder)


# --- Unicode normal form ------------------------------------------------------------------------


def test_nfc_and_nfd_spellings_are_one_name_and_one_word(folder):
    nfc_name, nfd_name = "CITRUS FRUITÉ", unicodedata.normalize("NFD", "CITRUS FRUITÉ")
    nfc_word, nfd_word = "LÉMON", unicodedata.normalize("NFD", "LÉMON")
    assert nfc_name != nfd_name and nfc_word != nfd_word
    # gold in NFC; the taxonomy's name and the model's words and judgement key in NFD
    rewrite(folder / "gold_data.json", {0: [('"CITRUS FRUITS"', f'"{nfc_name}"'), ("LEMON", nfc_word)]})
    rewrite(
        folder / "game_with_knowledge_taxonomy.json",
        {0: [("LEMON", nfd_word), ('"CITRUS FRUITS"', f'"{nfd_name}"')]},
    )
    rewrite(
        folder / "model-a.json",
        {0: [("LEMON", nfd_word), ("CITRUS_#_CITRUS FRUITS", f"CITRUS_#_{nfd_name}")]},
    )
    result, a = scores_of(folder)
    assert tuple(a.loc[0, ["unweighted", "weighted", "categorical"]]) == (4, 10, 3)
    by_file = result.to_dict()["quality_by_file"]
    for issue in (
        "model-a.json: game not in gold",
        "game_with_knowledge_taxonomy.json: game not in gold",
        "game_with_knowledge_taxonomy.json: category name differs from gold (matched by words)",
        "model-a.json: judgement names no gold category",
    ):
        assert issue not in by_file
    assert by_file["model-b.json: game not in gold"] == 1  # model-b still spells it LEMON


# --- text that reaches a plot -------------------------------------------------------------------


@pytest.mark.parametrize("name", ["a$b$", r"m$\notacommand$"])
def test_model_file_name_with_dollars_is_plotted_literally(folder, name):
    shutil.copy(folder / "model-b.json", folder / f"{name}.json")
    result = analyze_connections(read_connections(folder), plots=True)
    assert name in result.models
    assert result.figures["unweighted_scores"].startswith(b"\x89PNG")


# --- the output folder --------------------------------------------------------------------------


def test_empty_out_is_refused(folder, run_cli):
    err = one_line_error(run_cli, "connections", "score", "--data", str(folder), "--out", "")
    assert "--out" in err


def test_failed_run_leaves_an_earlier_output_as_it_was(folder, run_cli, tmp_path):
    out = tmp_path / "o"
    code, _, err = run_cli("connections", "score", "--data", str(folder), "--out", str(out))
    assert code == 0, err
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    (folder / "model-b.json").write_text("[" * 100_000, encoding="utf-8")
    one_line_error(run_cli, "connections", "score", "--data", str(folder), "--out", str(out))
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cx", "o"]  # no staging debris, no lock


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[]", r"gold_data.json: no games \(an empty list\)"),
        ("{}", r"gold_data.json: expected a JSON list of game records, got an object"),
        ("", r"gold_data.json line 1: not valid JSON"),
    ],
)
def test_gold_file_without_games(folder, text, message):
    (folder / "gold_data.json").write_text(text, encoding="utf-8")
    with pytest.raises(InputError, match=message):
        read_connections(folder)


def test_gold_with_every_game_excluded(folder):
    records = json.loads((folder / "gold_data.json").read_text(encoding="utf-8"))
    (folder / "gold_data.json").write_text(
        json.dumps([{**r, "exclude": True} for r in records]), encoding="utf-8"
    )
    with pytest.raises(InputError, match=r"gold_data.json: no game to score \(all 7 are excluded"):
        read_connections(folder)
