"""The Connections reader on small folders written by the tests (quirks, bad input)."""

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from wordplay_audit.analysis.connections import analyze_connections, match_groups, to_contract
from wordplay_audit.corpora.connections import read_connections
from wordplay_audit.corpora.contract import game_key
from wordplay_audit.corpora.demo import write_demo_corpus
from wordplay_audit.corpora.literal import parse_groups, parse_groups_tolerant
from wordplay_audit.errors import InputError


@pytest.fixture
def folder(tmp_path):
    return write_demo_corpus(tmp_path / "cx")


def test_demo_corpus_quirks_are_counted(folder):
    data = read_connections(folder)
    q = data.quirks
    assert q[("gold_data.json", "few-shot game marked exclude")] == 1
    assert q[("gold_data.json", 'gold group stored as {"Words": [...]}')] == 1
    assert q[("model-a.json", "answer categories is not a dict")] == 1
    assert q[("model-a.json", "answer flagged malformed")] == 2
    assert q[("novice_raw.csv", "broken list literal repaired")] == 1
    assert q[("novice_raw.csv", "typo corrected to a game word")] == 1  # MAPEL -> MAPLE
    assert q[("novice_raw.csv", "groups not of 4 words")] == 1


def test_demo_scores_by_hand(folder):
    result = analyze_connections(read_connections(folder), plots=False)
    a = result.scores[result.scores["model"] == "model-a"].set_index("game_index")
    # game 0: all four reproduced -> 4, weighted 10; named citrus, shoe, chess (not "Sea creatures") -> 3
    assert tuple(a.loc[0, ["unweighted", "weighted", "categorical"]]) == (4, 10, 3)
    # game 1: planets + utensils -> 2, weighted 3
    assert tuple(a.loc[1, ["unweighted", "weighted"]]) == (2, 3)
    # game 3: all four, purple stored as {"Words"} is still read -> 4, weighted 10 (stored 3)
    assert tuple(a.loc[3, ["unweighted", "weighted", "stored_score"]]) == (4, 10, 3)
    # game 4: lower-case coffee group does not count under exact matching -> 3 (weights 2+3+4)
    assert tuple(a.loc[4, ["unweighted", "weighted"]]) == (3, 9)
    # game 5: categories "" -> 0
    assert a.loc[5, "unweighted"] == 0
    # the few-shot game 6 is not scored
    assert 6 not in a.index
    human = result.human.set_index("row")
    # P1 line 2: citrus + shoe -> 2; P2 line 3: all four -> 4;
    # P1 line 4 (broken literal, MAPEL typo): blues + trees -> 2; P3 line 5: bones only -> 1
    assert human["unweighted"].to_dict() == {2: 2, 3: 4, 4: 2, 5: 1}


def test_strings_holding_python_literals(folder):
    # a model file whose every field is a string holding a Python literal
    records = json.loads((folder / "model-b.json").read_text())
    stringly = [{k: (v if k in ("allwords", "reason") else repr(v)) for k, v in r.items()} for r in records]
    (folder / "model-c.json").write_text(json.dumps(stringly))
    result = analyze_connections(read_connections(folder), plots=False)
    assert result.models["model-c"] == result.models["model-b"]
    assert (
        result.to_dict()["quality_by_file"]["model-c.json: fields stored as strings holding Python literals"]
        == 1
    )


def test_contract_item_ids(folder):
    data = read_connections(folder)
    items, labels = to_contract(data, match_groups(data))
    key = game_key(
        "LEMON, LIME, ORANGE, GRAPEFRUIT, SOLE, HEEL, TONGUE, LACE, KING, QUEEN, ROOK, BISHOP, SWORD, CAT, STAR, JELLY".split(
            ", "
        )
    )
    assert f"cx:{key}:model-a:0" in set(items["item_id"])
    assert f"cxt:{key}:3" in set(items["item_id"])
    assert set(labels["rater_type"]) == {"human"}
    yes = labels.set_index("item_id").loc[f"cx:{key}:model-a:0", "label"]
    assert yes == "true"
    # a taxonomy item shows the game's 16 words, alphabetically (not in the gold grouping's order)
    shown = items.set_index("item_id").loc[f"cxt:{key}:3", "game_words"].split(", ")
    assert shown == sorted(
        "LEMON LIME ORANGE GRAPEFRUIT SOLE HEEL TONGUE LACE KING QUEEN ROOK BISHOP SWORD CAT STAR JELLY".split()
    )


def test_missing_folder_and_files(tmp_path, folder):
    with pytest.raises(InputError, match="no such folder"):
        read_connections(tmp_path / "absent")
    (tmp_path / "a.csv").write_text("x\n", encoding="utf-8")  # it used to say "no such folder"
    with pytest.raises(InputError, match=r"a\.csv: is a file, expected a folder of the Connections"):
        read_connections(tmp_path / "a.csv")
    (folder / "gold_data.json").unlink()
    with pytest.raises(InputError, match="gold_data.json: no such file"):
        read_connections(folder)


def test_non_json_file_names_file_and_line(folder):
    (folder / "model-a.json").write_text('[\n{"allwords": "A"},\n{oops}\n]')
    with pytest.raises(InputError, match=r"model-a.json line 3: not valid JSON"):
        read_connections(folder)


def test_missing_field_and_unknown_column(folder):
    (folder / "model-a.json").write_text(json.dumps([{"allwords": "A, B"}]))
    with pytest.raises(InputError, match=r"model-a.json: \[0\]: missing field 'categories'"):
        read_connections(folder)
    write_demo_corpus(folder)  # restore model-a.json
    (folder / "novice_raw.csv").write_text("player,answer\nP1,x\n")
    with pytest.raises(InputError, match=r"novice_raw.csv line 1: missing column 'input'"):
        read_connections(folder)


def test_cli_bad_input_exit_2(run_cli, tmp_path, folder):
    code, out, err = run_cli(
        "connections", "score", "--data", str(tmp_path / "nope"), "--out", str(tmp_path / "o")
    )
    assert code == 2 and err.count("\n") == 1 and "no such folder" in err and "Traceback" not in err
    (folder / "gold_data.json").write_text("not json")
    code, out, err = run_cli("connections", "score", "--data", str(folder), "--out", str(tmp_path / "o"))
    assert code == 2 and "gold_data.json line 1: not valid JSON" in err
    assert not (tmp_path / "o").exists()  # nothing half-written
    code, out, err = run_cli(
        "connections", "score", "--data", str(folder), "--out", str(tmp_path / "o"), "--match", "x"
    )
    assert code == 2 and "--match" in err


def test_tolerant_group_parser():
    assert parse_groups_tolerant("[[' A', 'B], ['C, 'D' E']]") == [["A", "B"], ["C", "D", "E"]]
    # a typed I/l before a quote, and a missing opening bracket
    assert parse_groups_tolerant("[['X', I'MARK', 'Y'], l' CANDLE', 'Z']]") == [
        ["X", "MARK", "Y"],
        ["CANDLE", "Z"],
    ]
    groups, repaired = parse_groups("[['A', 'B'], ['C']]")
    assert groups == [["A", "B"], ["C"]] and not repaired


@settings(max_examples=200, deadline=None)
@given(st.text())
def test_group_parser_never_crashes(text):
    groups, _ = parse_groups(text)
    assert all(isinstance(w, str) and w for g in groups for w in g)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    payload=st.one_of(
        st.text(),
        st.recursive(
            st.none() | st.booleans() | st.integers() | st.text(max_size=20),
            lambda inner: (
                st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
            ),
            max_leaves=12,
        ).map(json.dumps),
    ),
    raw_input=st.text(max_size=80),
)
def test_reader_errors_cleanly_or_counts(folder, payload, raw_input):
    """Any text in a model file or a human answer: a clean InputError, or a read with counts."""
    (folder / "model-b.json").write_text(payload)
    (folder / "novice_raw.csv").write_text(
        "player,annotated,game_number,input\nP9,True,1," + json.dumps(raw_input) + "\n"
    )
    try:
        data = read_connections(folder)
    except InputError as exc:
        assert "\n" not in str(exc)
        return
    assert len(data.games) == 7


def test_games_without_a_raw_answer_are_counted(folder):
    raw = folder / "novice_raw.csv"
    raw.write_text("".join(raw.read_text().splitlines(keepends=True)[:3]))  # header + 2 answers
    result = analyze_connections(read_connections(folder), plots=False)
    # novice.json holds 4 games; lines 2 and 3 answer two of them
    assert result.humans["novice"]["games_without_raw_answer"] == 2


def test_malformed_flag_that_is_no_literal_is_its_own_quirk(folder):
    records = json.loads((folder / "model-b.json").read_text())
    records[0]["malformed"] = "maybe"
    (folder / "model-b.json").write_text(json.dumps(records))
    quirks = read_connections(folder).quirks
    assert quirks[("model-b.json", "fields stored as strings holding Python literals")] == 0
    assert quirks[("model-b.json", "malformed flag is not true/false (read as false)")] == 1
