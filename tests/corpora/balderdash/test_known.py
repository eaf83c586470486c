"""Reading the framework's known-word files: the judge's rule reproduced, items, refusals."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from tests.support.known_words import framework_frame, random_rows, write_framework_file
from wordplay_audit.corpora.balderdash.known import (
    EMPTY,
    known_items,
    mode_rule,
    model_of,
    read_known_files,
    read_known_words,
)
from wordplay_audit.errors import InputError

TIES = [
    ("tie-true-false", ["s"], [True, True, False, False, -1]),  # T,F,-1: 2,2,1 → False (smaller)
    ("tie-true-minus1", ["s"], [True, True, -1, -1, False]),  # → -1: N/A
    ("tie-true-minus2", ["s"], [True, -2, -2, True, False]),  # → -2: N/A
    ("plurality-true", ["s"], [True, True, False, -1, -2]),  # True 2 > 1,1,1 → True
    ("all-minus1", ["s"], [-1, -1, -1, -1, -1]),
    ("all-minus2", ["s"], [-2, -2, -2, -2, -2]),
    ("five-ones", ["s"], [True, False, -1, -2, True]),  # True 2 → True
    ("three-true", ["s"], [True, True, True, False, False]),
    ("three-false", ["s"], [False, False, True, True, False]),
    ("all-tied-but", ["s"], [True, False, -1, -2, False]),  # False 2 → False
]


def pandas_knows(frame: pd.DataFrame) -> list[object]:
    """The reference: pandas' mode() of each row, as the framework computes llm_knows_word."""
    cols = [f"llm{i}_judgement" for i in range(1, 6)]
    out = []
    for _, row in frame.iterrows():
        vote = row[cols].mode().values[0]
        out.append(-1 if vote == -1 or vote == -2 else int(bool(vote)))
    return out


def test_ties_and_missing_reproduce_pandas_mode(tmp_path):
    path = write_framework_file(tmp_path, "org/model-a", TIES)
    words = read_known_words(path)
    reference = pandas_knows(framework_frame(TIES))
    assert [max(v, -1) for v in words["judge_knows"]] == reference  # -1 and -2 both N/A
    assert words["file_knows"].tolist() == reference
    # hand-worked: the smallest tied value wins
    assert words.set_index("word")["judge_knows"].to_dict() == {
        "tie-true-false": 0, "tie-true-minus1": -1, "tie-true-minus2": -2, "plurality-true": 1,
        "all-minus1": -1, "all-minus2": -2, "five-ones": 1, "three-true": 1, "three-false": 0, "all-tied-but": 0,
    }  # fmt: skip
    assert words["model"].iloc[0] == "org_model-a"
    assert words["deck"].iloc[0] == "org_model-a_balderdash_words1"


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_known_counts_match_the_framework_column(tmp_path, seed):
    rng = np.random.default_rng(seed)
    rows = random_rows(rng, 200, p=(0.4, 0.3, 0.15, 0.15))
    path = write_framework_file(tmp_path, "model-b", rows)
    words = read_known_words(path)
    reference = np.array(pandas_knows(framework_frame(rows)))
    judge = np.where(words["judge_knows"].to_numpy() < 0, -1, words["judge_knows"].to_numpy())
    np.testing.assert_array_equal(judge, reference)
    written = pd.read_csv(path, keep_default_na=False, dtype=str)["llm_knows_word"].astype(str)
    assert int((words["judge_knows"] == 1).sum()) == int((written == "True").sum())
    assert int((words["judge_knows"] < 0).sum()) == int((written == "N/A").sum())


def test_mode_rule_on_every_pattern_matches_pandas():
    values = np.array([-2, -1, 0, 1])
    grid = np.array(np.meshgrid(*[values] * 5)).reshape(5, -1).T  # all 4^5 rows
    ours = mode_rule(grid)
    objects = {-2: -2, -1: -1, 0: False, 1: True}
    theirs = [pd.Series([objects[v] for v in row], dtype=object).mode().values[0] for row in grid]
    assert ours.tolist() == [int(v) if v in (-1, -2) else int(bool(v)) for v in theirs]


def test_items_and_labels(tmp_path):
    path = write_framework_file(tmp_path, "m", TIES)
    items, labels, counts = known_items(read_known_words(path), judge="llama")
    flat = [v for _, _, j in TIES for v in j]
    assert len(items) == sum(v != -1 for v in flat)
    assert counts == {
        "slots_without_a_definition_(-1)": flat.count(-1),
        "judge_labels_missing_(-2,_items_kept)": flat.count(-2),
        "empty_definitions": 0,
    }
    assert len(labels) == sum(v is True or v is False for v in flat)
    assert set(items["judge_verdict"]) == {"true", "false", "none"}
    assert (items.loc[items["judge_verdict"] == "none", "item_id"].isin(labels["item_id"])).sum() == 0
    assert set(labels["label"]) == {"true", "false"} and set(labels["rater"]) == {"llama"}
    assert items["kind"].eq("definition").all() and items["player_model"].eq("m").all()
    assert items["item_id"].is_unique and items["reference"].eq("s").all()


def test_empty_definition_is_no_item(tmp_path):
    path = write_framework_file(tmp_path, "m", [("w", ["s"], [True, True, True, False, False])])
    text = path.read_text().replace("w meaning number 4", "")
    path.write_text(text)
    words = read_known_words(path)
    assert words["code_4"].iloc[0] == EMPTY and words["judge_knows"].iloc[0] == 1
    items, _, counts = known_items(words)
    assert len(items) == 4 and counts["empty_definitions"] == 1


def _file(tmp_path, text: str, name: str = "m_balderdash_words1.csv"):
    path = tmp_path / name
    path.write_text(text)
    return path


HEADER = "words,def,POS," + ",".join(f"llm{i}_definition" for i in range(1, 6)) + ","
HEADER += ",".join(f"llm{i}_judgement" for i in range(1, 6)) + ",llm_knows_word\n"
GOOD = "cat,['a small animal'],['noun'],a,b,c,d,e,True,True,False,True,False,True\n"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (HEADER + GOOD + GOOD, "line 3: word 'cat' appears twice (first on line 2)"),
        (HEADER + GOOD.replace("True,True,False", "True,maybe,False"), "line 2: column 'llm2_judgement' is 'maybe'"),
        (HEADER + GOOD.replace(",a,b,", ",-1,b,"), "line 2: llm1_definition is '-1' but llm1_judgement is 'True'"),
        (HEADER + GOOD.replace("True,True,False,True,False,True", "-1,True,False,True,False,True"),
         "line 2: llm1_definition is 'a' but llm1_judgement is '-1'"),
        (HEADER + GOOD.replace(",True\n", ",yes\n"), "line 2: column 'llm_knows_word' is 'yes'"),
        (HEADER + GOOD.replace("['a small animal']", "['a small"), "line 2: column 'def' is not a Python list literal"),
        (HEADER.replace(",llm_knows_word", "") + GOOD.rsplit(",", 1)[0] + "\n", "lacks column 'llm_knows_word'"),
        (HEADER, "holds no word"),
    ],
)  # fmt: skip
def test_bad_input_is_one_line_naming_file_and_line(tmp_path, text, message):
    path = _file(tmp_path, text)
    with pytest.raises(InputError) as caught:
        read_known_words(path)
    assert message in str(caught.value) and str(path) in str(caught.value)
    assert "\n" not in str(caught.value)


def test_file_name_and_repeated_deck(tmp_path):
    with pytest.raises(InputError, match="expected a file named <model>_balderdash_words1.csv"):
        model_of(tmp_path / "words.csv")
    path = _file(tmp_path, HEADER + GOOD)
    other = tmp_path / "sub"
    other.mkdir()
    again = _file(other, HEADER + GOOD)
    with pytest.raises(InputError, match="read twice"):
        read_known_files([path, again])
    assert (
        model_of("x/meta-llama_Meta-Llama-3-8B-Instruct_balderdash_words1.csv")
        == "meta-llama_Meta-Llama-3-8B-Instruct"
    )
