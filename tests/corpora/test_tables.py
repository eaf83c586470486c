"""``read_table``: a record of the wrong width is an error naming its line, and the frame's index is
the line on which each record starts (blank lines and quoted line breaks counted), on both the
pandas path and the categorical pyarrow path; JSON lines name the line that is not a JSON object.

Every expected line number below is counted by hand on the file written in the test (header =
line 1).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from wordplay_audit.corpora import tables
from wordplay_audit.corpora.contract import read_items, read_labels, read_table
from wordplay_audit.errors import InputError

HEADER = "item_id,game,kind,context,reference,candidate"
ROW = "demo,guess,c,a,a"  # the five fields after item_id
BOTH = pytest.mark.parametrize("categorical", [False, True], ids=["pandas", "arrow"])


def _write(tmp_path: Path, text: str, name: str = "items.csv") -> Path:
    path = tmp_path / name
    path.write_bytes(text.encode("utf-8") if isinstance(text, str) else text)
    return path


def _error(path: Path, *, categorical: bool = False) -> str:
    with pytest.raises(InputError) as info:
        read_table(path, categorical=categorical)
    message = str(info.value)
    assert "\n" not in message
    return message


# --- 1. short rows --------------------------------------------------------------------------


@BOTH
def test_a_row_with_fewer_fields_than_the_header_is_named(tmp_path, categorical):
    path = _write(tmp_path, f"{HEADER}\ni1,{ROW}\ni2,demo,guess\n")
    assert _error(path, categorical=categorical) == f"{path} line 3: expected 6 fields, got 3"


@BOTH
def test_a_file_cut_mid_row_without_a_final_newline_is_named(tmp_path, categorical):
    path = _write(tmp_path, f"{HEADER}\ni1,{ROW}\ni2,{ROW}\ni3,demo,gu")
    assert _error(path, categorical=categorical) == f"{path} line 4: expected 6 fields, got 3"


@BOTH
def test_a_short_row_after_a_blank_line_and_a_quoted_line_break_is_named_by_its_line(tmp_path, categorical):
    # line 2: i1 (context spans lines 2-3), line 4 blank, line 5 the short row
    path = _write(tmp_path, f'{HEADER}\ni1,demo,guess,"x\ny",a,a\n\ni2,demo,guess,c,a\n')
    assert _error(path, categorical=categorical) == f"{path} line 5: expected 6 fields, got 5"


@BOTH
def test_an_unclosed_quote_is_named_where_it_opens_and_where_it_runs_to(tmp_path, categorical):
    # line 3 opens a quote that swallows lines 3-5 as one field: one field where six were expected
    path = _write(tmp_path, f'{HEADER}\ni1,{ROW}\n"i2,{ROW}\ni3,{ROW}\ni4,{ROW}\n')
    assert _error(path, categorical=categorical) == (
        f"{path} line 3: expected 6 fields, got 1 (a quote opened here runs to line 5)"
    )


def test_judge_run_on_a_truncated_row_exits_2_with_one_line(tmp_path, capsys):
    from wordplay_audit.cli.main import main

    path = _write(tmp_path, f"{HEADER}\ni1,{ROW}\ni2,demo,guess\n")
    out = tmp_path / "judged.csv"
    code = main(["judge", "run", str(path), "--judge", "exact", "--out", str(out), "--no-progress"])
    assert code == 2
    assert capsys.readouterr().err == f"error: {path} line 3: expected 6 fields, got 3\n"
    assert not out.exists()


def test_annotate_plan_on_a_csv_cut_mid_row_exits_2_with_one_line(tmp_path, capsys):
    from wordplay_audit.cli.main import main

    path = _write(tmp_path, f"{HEADER}\ni1,{ROW}\ni2,{ROW}\ni3,demo,gu")
    out = tmp_path / "campaign"
    code = main(["annotate", "plan", str(path), "--n", "2", "--raters", "a,b", "--out", str(out)])
    assert code == 2
    assert capsys.readouterr().err == f"error: {path} line 4: expected 6 fields, got 3\n"
    assert not out.exists()


# --- 2. long rows ---------------------------------------------------------------------------


@BOTH
def test_surplus_fields_on_the_first_data_row_are_named_not_taken_for_an_index(tmp_path, categorical):
    path = _write(tmp_path, f"{HEADER}\ni1,{ROW},EXTRA,MORE\ni2,{ROW}\n")
    assert _error(path, categorical=categorical) == f"{path} line 2: expected 6 fields, got 8"


@BOTH
def test_surplus_fields_on_every_row_are_named_at_the_first(tmp_path, categorical):
    path = _write(tmp_path, f"{HEADER}\ni1,{ROW},EXTRA,MORE\ni2,{ROW},X,Y\n")
    assert _error(path, categorical=categorical) == f"{path} line 2: expected 6 fields, got 8"


@BOTH
def test_surplus_fields_further_down_name_the_files_line(tmp_path, categorical):
    # line 2 i1, line 3 blank, line 4 i2 with 8 fields (pandas would call it its line 3)
    path = _write(tmp_path, f"{HEADER}\ni1,{ROW}\n\ni2,{ROW},EXTRA,MORE\n")
    assert _error(path, categorical=categorical) == f"{path} line 4: expected 6 fields, got 8"


# --- 3. line numbers ------------------------------------------------------------------------


@BOTH
def test_lines_after_two_blank_lines(tmp_path, categorical):
    path = _write(tmp_path, f"{HEADER}\ni1,{ROW}\n\n\ni2,{ROW}\ni1,{ROW}\n")
    assert list(read_table(path, categorical=categorical).index) == [2, 5, 6]
    with pytest.raises(InputError) as info:
        read_items(path)
    assert str(info.value) == f"{path} line 6: item_id 'i1' appears twice (item_id must be unique)"


@BOTH
def test_lines_after_a_quoted_field_over_three_lines(tmp_path, categorical):
    path = _write(tmp_path, f'{HEADER}\ni1,demo,guess,"x\ny\nz",a,a\ni1,{ROW}\n')
    frame = read_table(path, categorical=categorical)
    assert list(frame.index) == [2, 5]
    assert str(frame["context"].iloc[0]) == "x\ny\nz"
    with pytest.raises(InputError) as info:
        read_items(path)
    assert str(info.value) == f"{path} line 5: item_id 'i1' appears twice (item_id must be unique)"


def test_a_categorical_labels_check_names_the_line_after_blank_lines(tmp_path):
    path = _write(tmp_path, "item_id,rater,rater_type,label\na,r1,human,true\n\nb,r1,robot,true\n", "l.csv")
    with pytest.raises(InputError) as info:
        read_labels(path, categorical=True)
    assert str(info.value) == f"{path} line 4: rater_type 'robot' is not 'human', 'judge' or 'adjudicator'"


def test_jsonl_lines_after_a_blank_line(tmp_path):
    record = '{"item_id": "i1", "game": "demo", "kind": "guess"}'
    path = _write(tmp_path, f"{record}\n\n{record}\n", "items.jsonl")
    assert list(read_table(path).index) == [1, 3]
    with pytest.raises(InputError) as info:
        read_items(path)
    assert str(info.value) == f"{path} line 3: item_id 'i1' appears twice (item_id must be unique)"


# --- 4. JSON lines that are not JSON objects ------------------------------------------------


def test_a_jsonl_line_that_is_not_json_is_named(tmp_path):
    path = _write(
        tmp_path, '{"item_id": "i1", "game": "demo", "kind": "guess"}\n{"item_id": "i2", oops}\n', "i.jsonl"
    )
    # line 2 is {"item_id": "i2", oops}: "{" 1, "item_id" 2-10, ":" 11, " " 12, "i2" 13-16, "," 17, " " 18, o 19
    message = "not JSON (Expecting property name enclosed in double quotes at column 19)"
    assert _error(path) == f"{path} line 2: {message}"


@pytest.mark.parametrize(
    ("line", "got"),
    [
        ("[1, 2]", "an array"),
        ('[["item_id", "i2"]]', "an array"),
        ("[]", "an array"),
        ("null", "null"),
        ('"i2"', "a string"),
        ("7", "a number"),
        ("true", "true/false"),
    ],
)
def test_a_jsonl_line_that_is_json_but_not_an_object_is_named(tmp_path, line, got):
    path = _write(tmp_path, '{"item_id": "i1", "game": "demo", "kind": "guess"}\n\n' + line + "\n", "i.jsonl")
    assert _error(path) == f"{path} line 3: expected a JSON object, got {got}"


def test_a_jsonl_file_with_a_bom_is_read(tmp_path):
    path = _write(tmp_path, b'\xef\xbb\xbf{"item_id": "i1", "game": "demo", "kind": "guess"}\n', "i.jsonl")
    frame = read_table(path)
    assert list(frame.columns) == ["item_id", "game", "kind"] and list(frame.index) == [1]


# --- what stays valid -----------------------------------------------------------------------


@BOTH
def test_empty_fields_and_a_missing_final_newline_stay_valid(tmp_path, categorical):
    # empty last fields are not short rows; line 4 is blank, the last line has no newline
    path = _write(tmp_path, f'{HEADER}\ni1,demo,guess,,,\ni2,demo,guess,c,"",\n\ni3,{ROW}')
    frame = read_table(path, categorical=categorical)
    assert list(frame.index) == [2, 3, 5]
    assert [str(v) for v in frame["candidate"]] == ["", "", "a"]
    assert [str(v) for v in frame["reference"]] == ["", "", "a"]


@BOTH
def test_empty_last_fields_are_not_short_rows_but_a_short_row_among_them_is(tmp_path, categorical):
    good = f"{HEADER}\ni1,demo,guess,c,a,\ni2,demo,guess,c,a,\n"
    frame = read_table(_write(tmp_path, good, "good.csv"), categorical=categorical)
    assert list(frame.index) == [2, 3] and [str(v) for v in frame["candidate"]] == ["", ""]
    path = _write(tmp_path, good + "i3,demo,guess,c,a\n")  # line 4: five fields, the last one missing
    assert _error(path, categorical=categorical) == f"{path} line 4: expected 6 fields, got 5"


@BOTH
@pytest.mark.parametrize("newline", ["\r\n", "\r"], ids=["crlf", "cr"])
def test_crlf_and_cr_line_ends_with_a_blank_line(tmp_path, categorical, newline):
    text = newline.join([HEADER, f"i1,{ROW}", "", f"i2,{ROW}", f"i1,{ROW}"]) + newline
    path = _write(tmp_path, text)
    frame = read_table(path, categorical=categorical)
    assert list(frame.index) == [2, 4, 5] and [str(v) for v in frame["candidate"]] == ["a", "a", "a"]
    with pytest.raises(InputError) as info:
        read_items(path)
    assert str(info.value) == f"{path} line 5: item_id 'i1' appears twice (item_id must be unique)"


@BOTH
def test_a_bom_and_a_whitespace_only_line(tmp_path, categorical):
    path = _write(tmp_path, ("\ufeff" + f"{HEADER}\ni1,{ROW}\n  \ni2,{ROW}\n"))
    frame = read_table(path, categorical=categorical)
    assert list(frame.columns)[0] == "item_id" and list(frame.index) == [2, 4]


@BOTH
def test_a_short_row_in_a_crlf_file_is_named(tmp_path, categorical):
    path = _write(tmp_path, f"{HEADER}\r\ni1,{ROW}\r\ni2,demo\r\n")
    assert _error(path, categorical=categorical) == f"{path} line 3: expected 6 fields, got 2"


def test_line_breaks_are_counted_across_reads(tmp_path, monkeypatch):
    """A ``\\r\\n`` split between two reads is one break (2-byte reads: ``a\\r|\\nb|\\rc|\\n\\r|\\n``)."""
    monkeypatch.setattr(tables, "_CHUNK", 2)
    path = _write(tmp_path, b"a\r\nb\rc\n\r\n", "x.csv")
    # breaks: \r\n, \r, \n, \r\n = 4 (lone \r counted), \n alone = 3; both \r\n straddle two reads
    assert tables._line_breaks(path, lone_cr=True) == (4, True)
    assert tables._line_breaks(path, lone_cr=False) == (3, True)
