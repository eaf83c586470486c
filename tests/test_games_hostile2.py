"""Hostile inputs to the Balderdash and Wheel of Fortune readers and commands, second round.

Unknown is not false (judge drift, convergence without labels of a model's own), no silent
drop (self-votes, duplicate words, games without a words file, extra rounds, empty texts) and
one-line errors that name the line and the real rule (non-UTF-8 report lines, huge ids, null).
Expected values are worked out by hand in the comments.
"""

from __future__ import annotations

import json
import math
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from tests.support.wof_logs import ALPHA, report_text
from wordplay_audit.analysis.balderdash.convergence import convergence_table
from wordplay_audit.analysis.balderdash.drift import DriftWarning, se_sp_drift
from wordplay_audit.analysis.balderdash.plan import labels_for_corrected_rate
from wordplay_audit.corpora.balderdash import player_round_table, read_export, read_words_file
from wordplay_audit.corpora.wof.reader import read_report
from wordplay_audit.errors import InputError, ParameterError

BOM = b"\xef\xbb\xbf"


def _entry(text: str, judge: bool, knows: bool) -> dict:
    return {"definition": text, "judge_decision": judge, "llm_knows_one_of_the_defs": knows}


def documents(number_of_rounds: int = 2) -> dict[str, list[dict]]:
    """Game 7, two rounds, players 11 and 12 (model m-a) and 13 (m-b)."""
    game = {
        "game_id": 7,
        "number_of_rounds": number_of_rounds,
        "judge_llm_model_name": "judge-x",
        "receiving_vote_points": 1,
        "correct_vote_points": 2,
        "correct_definition_points": 3,
        "words_file": "data/rare_words.csv",
        "filter_words": "all",
        "history_type": "mini",
    }
    players = [
        {"player_id": 10 + k, "name": f"p{k}", "llm_name": m, "game_id": 7, "score": 0}
        for k, m in ((1, "m-a"), (2, "m-a"), (3, "m-b"))
    ]
    rounds = [
        {
            "game_id": 7,
            "round_id": 1,
            "word": "quire",
            "correct_definition": "24 sheets of paper",
            "pos": "noun",
            "players": [11, 12, 13],
            "player_definitions": {
                "11": _entry("a set of 24 sheets", True, True),
                "12": _entry("a choir", False, False),
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
            "players": [11, 12, 13],
            "player_definitions": {
                "11": _entry("a sweet", False, False),
                "12": _entry("make-up", False, True),
                "13": _entry("to paint one's face", True, True),
            },
            "votes": {"11": 12, "12": -1},
            "scores": {"11": 0, "12": 3, "13": 3},
        },
    ]
    return {"games": [game], "players": players, "rounds": rounds}


def write(folder: Path, docs: dict[str, list[dict]], *, bom_rounds: bool = False) -> Path:
    """One JSON-lines file per collection; ``bom_rounds``: a BOM in front of the rounds file
    (which sends it through the streamed, checked path instead of DuckDB's)."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, items in docs.items():
        data = "".join(json.dumps(d) + "\n" for d in items).encode("utf-8")
        (folder / f"{name}.jsonl").write_bytes((BOM if bom_rounds and name == "rounds" else b"") + data)
    return folder


# --------------------------------------------------------------------------- D1: judge drift


def test_drift_is_unknown_when_neither_test_can_run():
    # every label agrees with the judge: neither Se nor Sp varies, so no test runs
    sample = pd.DataFrame({"round_id": [1, 2, 3, 4], "human": [1, 1, 0, 0], "judge": [1, 1, 0, 0]})
    result = se_sp_drift(sample)
    assert result.drift is None
    assert "drift unknown" in result.note
    from wordplay_audit.analysis.balderdash.drift import drift_text  # the text line of the CLI and report

    line = drift_text(result.__dict__)
    assert line.startswith("Se no test, Sp no test: drift unknown")
    assert "no drift" not in line


def test_drift_from_one_test_says_so():
    # only human-true items: Sp has no item; the judge's agreement varies, so Se is tested
    sample = pd.DataFrame({"round_id": [1, 2, 3, 4, 5, 6], "human": [1] * 6, "judge": [1, 1, 0, 1, 0, 0]})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DriftWarning)
        result = se_sp_drift(sample)
    assert np.isfinite(result.se_p) and math.isnan(result.sp_p)
    assert result.drift is (result.se_p < 0.05)
    assert "drift rests on the Se test only" in result.note
    from wordplay_audit.analysis.balderdash.drift import drift_text

    assert "(from the Se test only)" in drift_text(result.__dict__)
    assert "Sp no test" in drift_text(result.__dict__)


# --------------------------------------------------------------------------- D2: no human rows


@pytest.mark.parametrize("command", ["convergence", "trend"])  # recompute refused already
def test_a_labels_file_without_human_rows_is_refused(run_cli, tmp_path, command):
    folder = write(tmp_path / "e", documents())
    labels = tmp_path / "judge_only.csv"
    labels.write_text(
        "item_id,rater,rater_type,label,question\nbd:7:1:11,judge-x,judge,true,any_sense\n",
        encoding="utf-8",
    )
    code, out, err = run_cli("balderdash", command, str(folder), "--human", str(labels), "--json")
    assert code == 2 and out == ""
    assert err.strip() == f"error: {labels}: holds no human labels (rater_type 'human')"


# --------------------------------------------------------------------------- D3: a model without labels


def test_convergence_leaves_a_model_without_labels_unknown(tmp_path):
    export = read_export(write(tmp_path / "e", documents()))
    obs = player_round_table(export)
    # people label only m-a's four definitions, agreeing with the judge's "knows" each time:
    # 11/r1 true, 12/r1 false, 11/r2 false, 12/r2 true → m-a's Se = 1, Sp = 1
    labels = pd.DataFrame(
        {
            "item_id": ["bd:7:1:11", "bd:7:1:12", "bd:7:2:11", "bd:7:2:12"],
            "rater": "r1",
            "rater_type": "human",
            "label": [True, False, False, True],
            "question": "any_sense",
        }
    )
    table = convergence_table(obs, labels, eps=[0.3], window=1)
    a = table[table["model"] == "m-a"].iloc[0]
    b = table[table["model"] == "m-b"].iloc[0]
    assert a["se"] == 1.0 and a["judge_unreachable"] is False  # 1 − 0.3 = 0.7 < Se = 1
    assert a["accuracy_pooled"] is False
    assert math.isnan(b["se"]) and math.isnan(b["sp"]) and math.isnan(b["tau"])
    assert b["judge_unreachable"] is None and b["accuracy_pooled"] is None
    assert "could not be estimated for this model (no labelled definition)" in b["judge_unreachable_reason"]
    assert b["converged_window"] is None


# --------------------------------------------------------------------------- D4: self-votes


@pytest.mark.parametrize("bom", [False, True], ids=["columnar", "streamed"])
def test_a_vote_for_ones_own_definition_is_counted(tmp_path, bom):
    docs = documents()
    docs["rounds"][0]["votes"] = {"12": -1, "13": 13}  # player 13 votes for their own definition
    export = read_export(write(tmp_path / "e", docs, bom_rounds=bom))
    assert export.skipped == {"self_votes_ignored": 1}
    table = player_round_table(export)
    row = table[(table["round_id"] == 1) & (table["player_id"] == "13")].iloc[0]
    assert row["vote"] == ""


# --------------------------------------------------------------------------- D5 and words files


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
    docs = documents()
    second = {**docs["games"][0], "game_id": 8, "words_file": "data/common_words.csv"}
    docs["games"].append(second)
    folder = write(tmp_path / "e", docs)
    _words(folder / "rare_words.csv", ["quire,['24 sheets'],noun,rare", "fard,['to paint'],verb,rare"])
    export = read_export(folder)
    # game 8 has no rounds (counted as such) and no words file for its deck common_words
    assert export.skipped == {"games_without_rounds": 1, "games_without_words_file": 1}


# --------------------------------------------------------------------------- lower severity


def test_plan_refuses_a_rate_at_the_boundary(run_cli):
    for rate in (0.0, 1.0):
        with pytest.raises(ParameterError, match="rate must lie strictly between 0 and 1"):
            labels_for_corrected_rate(rate, 0.05, se=0.74, sp=0.97)
    code, out, err = run_cli("balderdash", "plan", "--rate", "0")
    assert code == 2 and err.strip() == "error: --rate: expected a number in (0, 1), got 0.0"


@pytest.mark.parametrize("bom", [False, True], ids=["columnar", "streamed"])
@pytest.mark.parametrize("field", ["word", "correct_definition"])
def test_an_empty_word_or_reference_is_an_error(tmp_path, bom, field):
    docs = documents()
    docs["rounds"][1][field] = "  "
    with pytest.raises(InputError, match=rf"rounds\.jsonl line 2: field '{field}' is empty$"):
        read_export(write(tmp_path / "e", docs, bom_rounds=bom))


@pytest.mark.parametrize("bom", [False, True], ids=["columnar", "streamed"])
def test_an_empty_player_definition_is_counted(tmp_path, bom):
    docs = documents()
    docs["rounds"][0]["player_definitions"]["13"]["definition"] = ""
    export = read_export(write(tmp_path / "e", docs, bom_rounds=bom))
    assert export.skipped == {"empty_definitions": 1}


def test_extra_rounds_are_not_called_incomplete(run_cli, tmp_path):
    folder = write(tmp_path / "e", documents(number_of_rounds=1))  # two rounds found, one planned
    assert read_export(folder).skipped == {"games_with_extra_rounds": 1}
    code, out, err = run_cli("balderdash", "metrics", str(folder), "--json")
    assert code == 2 and "no complete game" in err  # the only game is left out
    docs = documents(number_of_rounds=1)
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
    folder = write(tmp_path / "two", docs)
    code, out, err = run_cli("balderdash", "metrics", str(folder), "--json")
    assert code == 0, err
    skipped = json.loads(out)["skipped"]
    assert skipped["games_with_extra_rounds_left_out"] == 1 and skipped["incomplete_games_left_out"] == 0


def test_a_null_document_says_null(tmp_path):
    folder = write(tmp_path / "e", documents())
    with (folder / "players.jsonl").open("a", encoding="utf-8") as handle:
        handle.write("null\n")
    with pytest.raises(InputError, match=r"players\.jsonl line 4: expected a JSON object, got null$"):
        read_export(folder)


def test_an_id_beyond_18_digits_states_the_rule(tmp_path):
    docs = documents()
    docs["players"][2]["player_id"] = 10**23
    with pytest.raises(
        InputError,
        match=r"players\.jsonl line 3: field 'player_id' must be a whole number of at most 18 digits, got 10{23}$",
    ):
        read_export(write(tmp_path / "e", docs))


# --------------------------------------------------------------------------- D8: WoF bytes


def _bad_byte_report(tmp_path: Path) -> Path:
    # ALPHA: game 0 on lines 1-4, blank 5, game 1 on line 6, blank 7, game 2 on lines 8-10
    lines = report_text(ALPHA).encode("utf-8").split(b"\n")
    assert b'"PASS"' in lines[8]
    lines[8] = lines[8].replace(b'"PASS"', b'"PA\xffSS"')  # line 9, in game 2
    path = tmp_path / "alpha.jsonl"
    path.write_bytes(b"\n".join(lines))
    return path


def test_a_report_line_that_is_not_utf8_is_named_by_its_line(tmp_path):
    path = _bad_byte_report(tmp_path)
    with pytest.raises(InputError) as caught:
        read_report(path)
    assert str(caught.value) == f"{path} line 9: not UTF-8 text (invalid start byte, byte 0xff)"


def test_a_report_line_that_is_not_utf8_drops_its_game_with_skip(tmp_path):
    log = read_report(_bad_byte_report(tmp_path), on_error="skip")
    assert log.skipped["broken_lines"] == 1 and log.skipped["games_dropped"] == 1
    assert log.skipped["lines_dropped"] == len(ALPHA[2]) == 3
    assert sorted(set(log.moves["game"])) == [k for k in range(len(ALPHA)) if k != 2]
    assert log.problems == [
        f"{tmp_path / 'alpha.jsonl'} line 9: not UTF-8 text (invalid start byte, byte 0xff)"
    ]
