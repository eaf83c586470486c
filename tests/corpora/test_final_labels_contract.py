"""The final labels table of the contract: its reader and validator (one-line errors naming the
file and its line), the per-rater reader refusing it with a message that says what it is, and the
adjudicator's rater type."""

from __future__ import annotations

import pandas as pd
import pytest

from wordplay_audit.corpora.consensus import consensus
from wordplay_audit.corpora.contract import read_labels, validate_labels
from wordplay_audit.corpora.final_labels import read_final_labels, validate_final_labels
from wordplay_audit.errors import InputError

HEADER = "item_id,question,label,n_raters,n_votes,settled_by\n"
GOOD = "a,reference,true,2,2,unanimous\nb,reference,,2,1,tie\n"


def _write(tmp_path, text: str, name: str = "final.csv"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_round_trip_through_a_file(tmp_path):
    labels = pd.DataFrame(
        {
            "item_id": ["a", "a", "b", "b", "b", "c"],
            "rater": ["p", "q", "p", "q", "judy", "p"],
            "rater_type": ["human", "human", "human", "human", "adjudicator", "human"],
            "label": ["true", "false", "true", "true", "false", "true"],
            "question": "reference",
        }
    )
    final = consensus(labels)
    path = tmp_path / "final.csv"
    final.to_csv(path, index=False)
    assert path.read_text().splitlines() == [
        "item_id,question,label,n_raters,n_votes,settled_by",
        "a,reference,,2,1,tie",
        "b,reference,false,2,0,adjudicated",
        "c,reference,true,1,1,single",
    ]
    back = read_final_labels(path)
    assert back["label"].isna().tolist() == [True, False, False]
    assert back["n_raters"].tolist() == [2, 2, 1] and back["settled_by"].tolist() == [
        "tie",
        "adjudicated",
        "single",
    ]
    assert (
        read_labels(path, accept_final=True)[["item_id", "label"]]
        .fillna("")
        .equals(back[["item_id", "label"]].fillna(""))
    )


def test_a_hand_made_table_of_one_label_per_item_is_final(tmp_path):
    back = read_final_labels(_write(tmp_path, "item_id,label\nx,true\ny,\n"))
    assert back["settled_by"].isna().tolist() == [True, False]  # unknown where a label was given
    assert back["settled_by"].iloc[1] == "tie" and back["label"].isna().tolist() == [False, True]
    assert back["n_raters"].isna().all()


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        ("a,reference,true,2,2,unanimous\na,reference,false,1,1,single\n",
         "line 3: item 'a', question 'reference' has a final label already; expected one row per item and question"),
        ("a,reference,true,2,2,vote\n", "line 2: settled_by 'vote' is not one of single, unanimous, majority, "
         "adjudicated, tie, tie_first, tie_random"),
        ("a,reference,true,2,2,unanimous\nb,reference,,2,1,majority\n",
         "line 3: label is empty but settled_by is 'majority' (an empty label is a 'tie')"),
        ("a,reference,true,2,1,tie\n", "line 2: settled_by 'tie' needs an empty label"),
        ("a,reference,true,two,2,unanimous\n", "line 2: n_raters 'two': expected a whole number ≥ 0"),
        ("a,reference,true,2,1.5,majority\n", "line 2: n_votes '1.5': expected a whole number ≥ 0"),
        ("a,reference,true,2,3,majority\n", "line 2: n_votes 3 exceeds n_raters 2"),
        (",reference,true,2,2,unanimous\n", "line 2: column 'item_id' is empty"),
    ],
)  # fmt: skip
def test_bad_final_labels_one_line_naming_file_and_line(tmp_path, rows, message):
    path = _write(tmp_path, HEADER + rows)
    with pytest.raises(InputError) as info:
        read_final_labels(path)
    text = str(info.value)
    assert text.startswith(f"{path} ") and message in text and "\n" not in text


def test_a_per_rater_table_is_not_final(tmp_path):
    path = _write(tmp_path, "item_id,rater,rater_type,label\na,p,human,true\n", "labels.csv")
    with pytest.raises(InputError) as info:
        read_final_labels(path)
    assert str(info.value).startswith(f"{path}: has column 'rater': a per-rater labels table")


def test_the_per_rater_reader_says_what_a_final_table_is(tmp_path):
    path = _write(tmp_path, HEADER + GOOD)
    with pytest.raises(InputError) as info:
        read_labels(path)  # analyze agreement, adjudicate: they need the raters
    assert str(info.value) == (
        f"{path}: is a final labels table (one consensus label per item, as pull's final.csv); "
        "expected per-rater labels (item_id, rater, rater_type, label), as pull's labels.csv"
    )
    assert read_labels(path, accept_final=True)["settled_by"].tolist() == ["unanimous", "tie"]


def test_final_labels_naming_no_item(tmp_path):
    path = _write(tmp_path, HEADER + GOOD)
    items = pd.DataFrame({"item_id": ["a"], "game": "demo", "kind": "guess"})
    with pytest.raises(InputError, match=r"final\.csv line 3: item_id 'b' names no item$"):
        read_labels(path, items=items, accept_final=True)


def test_adjudicator_is_a_rater_type_of_the_contract():
    labels = pd.DataFrame(
        {"item_id": ["a"], "rater": ["judy"], "rater_type": ["adjudicator"], "label": ["x"]}
    )
    assert validate_labels(labels)["rater_type"].tolist() == ["adjudicator"]
    with pytest.raises(InputError, match="rater_type 'boss' is not 'human', 'judge' or 'adjudicator'"):
        validate_labels(labels.assign(rater_type="boss"))


def test_validator_without_a_file_names_the_row():
    frame = pd.DataFrame({"item_id": ["a", "b"], "label": ["x", "y"], "settled_by": ["single", "tie"]})
    with pytest.raises(InputError, match=r"^final labels row 2: settled_by 'tie' needs an empty label"):
        validate_final_labels(frame)
