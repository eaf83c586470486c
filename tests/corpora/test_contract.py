"""The data contract's validators and readers."""

import pandas as pd
import pytest

from wordplay_audit.corpora.contract import (
    game_key,
    normalize_bool_label,
    read_labels,
    validate_items,
    validate_labels,
)
from wordplay_audit.errors import InputError


def items():
    return pd.DataFrame(
        {
            "item_id": ["a", "b"],
            "game": ["demo", "demo"],
            "kind": ["definition", "guess"],
            "player_model": ["m", "n"],
        }
    )


def labels():
    return pd.DataFrame(
        {
            "item_id": ["a", "a", "b"],
            "rater": ["r1", "j", "r1"],
            "rater_type": ["human", "judge", "human"],
            "label": ["true", "false", "true"],
        }
    )


def test_valid_tables_pass_and_gain_text_columns():
    out = validate_items(items())
    assert list(out["context"]) == ["", ""]
    assert len(validate_labels(labels(), items=out)) == 3


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda f: f.drop(columns="kind"), "lacks column 'kind'"),
        (lambda f: f.assign(kind=["definition", "poem"]), "row 2: kind 'poem'"),
        (lambda f: f.assign(item_id=["a", "a"]), "row 2: item_id 'a' appears twice"),
        (lambda f: f.assign(game=["demo", None]), "row 2: column 'game' is empty"),
    ],
)
def test_bad_items(change, message):
    with pytest.raises(InputError, match=message):
        validate_items(change(items()))


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda f: f.drop(columns="rater"), "lacks column 'rater'"),
        (lambda f: f.assign(rater_type=["human", "robot", "human"]), "row 2: rater_type 'robot'"),
        (lambda f: f.assign(item_id=["a", "a", "zzz"]), "row 3: item_id 'zzz' names no item"),
        (lambda f: f.assign(label=["true", "maybe", "true"]), "row 2: label 'maybe' is not one of"),
    ],
)
def test_bad_labels(change, message):
    with pytest.raises(InputError, match=message):
        validate_labels(change(labels()), items=validate_items(items()), allowed=["true", "false"])


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda f: f.assign(rater_type=["human", "robot", "human"]), "row 2: rater_type 'robot'"),
        (lambda f: f.assign(item_id=["a", "a", "zzz"]), "row 3: item_id 'zzz' names no item"),
        (lambda f: f.assign(label=["true", "maybe", "true"]), "row 2: label 'maybe' is not one of"),
        (lambda f: f.assign(rater=["r1", None, "r1"]), "row 2: column 'rater' is empty"),
        (lambda f: f.assign(rater=["r1", " ", "r1"]), "row 2: column 'rater' is empty"),
    ],
)
def test_bad_categorical_labels_same_messages(change, message):
    """Categorical columns are checked on their categories, with the same messages."""
    frame = change(labels()).astype("category")
    with pytest.raises(InputError, match=message):
        validate_labels(frame, items=validate_items(items()), allowed=["true", "false"])


def test_good_categorical_labels_pass_unchanged():
    frame = labels().astype("category")
    assert validate_labels(frame, items=validate_items(items())) is frame


def test_read_labels_names_file_line(tmp_path):
    path = tmp_path / "labels.csv"
    path.write_text("item_id,rater,rater_type,label\na,r1,human,true\na,r2,people,true\n")
    with pytest.raises(InputError, match=r"labels.csv line 3: rater_type .people."):
        read_labels(path)
    with pytest.raises(InputError, match="no such file"):
        read_labels(tmp_path / "absent.csv")
    (tmp_path / "bin.csv").write_bytes(b"\xff\xfe\x00\x01")
    with pytest.raises(InputError):
        read_labels(tmp_path / "bin.csv")


def test_game_key_is_order_and_case_free():
    assert game_key(["b", " A"]) == game_key(["A", "B"])
    assert game_key(["A", "B"]) != game_key(["A", "C"])
    assert len(game_key(["A"])) == 10


def test_bool_labels():
    assert [normalize_bool_label(v) for v in ("Yes", "no", "TRUE", 0, "1")] == [
        "true",
        "false",
        "true",
        "false",
        "true",
    ]
    with pytest.raises(ValueError):
        normalize_bool_label("perhaps")
