"""Reading LLMike report files: layout, tolerance, broken lines, the contract."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.wof_logs import ALPHA, BETA, T_MOVE, report_text, with_line_2, write_logs
from wordplay_audit.corpora.contract import validate_items, validate_labels
from wordplay_audit.corpora.wof._fast import fast_columns
from wordplay_audit.corpora.wof.items import game_table, guess_items
from wordplay_audit.corpora.wof.reader import read_report, read_reports
from wordplay_audit.corpora.wof.riddles import read_riddles
from wordplay_audit.errors import InputError, ParameterError


def test_folder_layouts_and_lines(tmp_path):
    log = read_reports(write_logs(tmp_path))
    assert set(log.files) == {"alpha", "beta"}  # alpha.jsonl and beta/report.jsonl
    alpha = log.moves[log.moves["model"] == "alpha"]
    assert len(alpha) == sum(len(g) for g in ALPHA)
    # game 2 starts after game 0 (4 lines + blank) and game 1 (1 line + blank): line 8
    assert alpha[(alpha["game"] == 2) & (alpha["move"] == 0)]["line"].item() == 8
    assert log.skipped["unterminated_last_game"] == 1  # beta has no trailing blank line
    assert log.skipped["broken_lines"] == 0
    occ = alpha["letter_occurences"]
    assert occ.isna().sum() == 1 + 1 + 1 + 2 + 1  # the openings and the INSUFFICENT BUDGET move
    assert alpha["budget"].min() == -250


def test_missing_trailing_blank_line_reads_the_same(tmp_path):
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    a.write_text(report_text(ALPHA), encoding="utf-8")
    b.write_text(report_text(ALPHA, trailing_blank=False), encoding="utf-8")
    ma, mb = read_report(a, model="m").moves, read_report(b, model="m").moves
    assert ma.equals(mb)


def test_extra_blank_lines_are_counted(tmp_path):
    path = tmp_path / "m.jsonl"
    path.write_text("\n" + report_text(ALPHA).replace("\n\n", "\n\n\n", 1), encoding="utf-8")
    log = read_report(path)
    assert log.skipped["extra_blank_lines"] == 2
    assert log.moves["game"].nunique() == len(ALPHA)


def _broken(tmp_path, bad_line: str, at: int = 2):
    lines = report_text(ALPHA).splitlines()
    lines[at - 1] = bad_line
    path = tmp_path / "broken.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("bad", "words"),
    [
        ('{"letter": "T", "masked": "T__ __T"', "expected a JSON object"),
        ("[1, 2]", "got a JSON array"),
        (json.dumps({k: v for k, v in ALPHA[0][1].items() if k != "guess"}), "lacks key 'guess'"),
        (json.dumps({**ALPHA[0][1], "budget": "600"}), "key 'budget': expected an integer"),
        (json.dumps({**ALPHA[0][1], "letter": 7}), "key 'letter': expected a string"),
        (json.dumps({**ALPHA[0][1], "solution": "THE DOG"}), "differs from the game's"),
        (json.dumps({**ALPHA[0][1], "masked": "T__"}), "masked has 3 characters"),
        (json.dumps({**ALPHA[0][1], "guess": "T\ud800"}), "lone surrogate escape (\\ud800)"),
    ],
)
def test_broken_line_names_file_and_line(tmp_path, bad, words):
    path = _broken(tmp_path, bad)
    with pytest.raises(InputError) as err:
        read_report(path)
    message = str(err.value)
    assert message.startswith(f"{path} line 2: ")
    assert words in message and "\n" not in message


def test_game_must_open_with_underscore(tmp_path):
    path = _broken(tmp_path, json.dumps({**ALPHA[0][0], "letter": "T"}), at=1)
    with pytest.raises(InputError, match=r"line 1: a game's first move has letter '_'"):
        read_report(path)


def test_skip_counts_and_keeps_indices(tmp_path):
    path = _broken(tmp_path, "not json at all")
    log = read_report(path, on_error="skip")
    assert log.skipped["broken_lines"] == 1 and log.skipped["games_dropped"] == 1
    assert log.skipped["lines_dropped"] == len(ALPHA[0])
    assert log.problems == [
        f"{path} line 2: expected a JSON object (one move), got 'not json at all' (Expecting value)"
    ]
    assert sorted(log.moves["game"].unique()) == [1, 2, 3, 4]  # game 0 left out, ids unchanged


def test_bad_options_and_paths(tmp_path):
    with pytest.raises(ParameterError, match="on_error"):
        read_report(tmp_path / "x.jsonl", on_error="ignore")
    with pytest.raises(InputError, match="no such"):
        read_reports(tmp_path / "absent")
    with pytest.raises(InputError, match="no report files"):
        read_reports(tmp_path)
    (tmp_path / "m.jsonl").write_bytes(b"\xff\xfe\n")
    with pytest.raises(InputError, match="not UTF-8"):
        read_reports(tmp_path)


def test_duplicate_model_names_refused(tmp_path):
    write_logs(tmp_path / "a")
    write_logs(tmp_path / "b")
    with pytest.raises(InputError, match="model 'alpha' already read"):
        read_reports([tmp_path / "a", tmp_path / "b"])


def test_items_and_labels_follow_the_contract(tmp_path):
    moves = read_reports(write_logs(tmp_path)).moves
    items, labels = guess_items(moves, categories={"THE CAT": "Living things"})
    validate_items(items)
    validate_labels(labels, items=items, allowed=("true", "false"))
    assert len(items) == len(ALPHA) + len(BETA)
    first = items.set_index("item_id").loc["wof:alpha:0"]
    assert first["reference"] == "THE CAT" and first["candidate"] == "THE CAT"
    assert first["context"] == "THE __T (category: Living things)"
    assert first["player_model"] == "alpha" and first["outcome"] == "win"
    wrong = items.set_index("item_id").loc["wof:alpha:4"]
    assert (wrong["candidate"], wrong["category"], wrong["outcome"]) == ("ICE CREAMS", "", "wrong_guess")
    verdict = labels.set_index("item_id")["label"]
    assert verdict["wof:alpha:0"] == "true" and verdict["wof:alpha:4"] == "false"
    assert verdict["wof:beta:5"] == "true"
    assert set(labels["rater"]) == {"wof-exact-match"} and set(labels["rater_type"]) == {"judge"}


def test_game_table_outcomes(tmp_path):
    games = game_table(read_reports(write_logs(tmp_path)).moves)
    outcome = games.set_index(["model", "game"])["outcome"]
    assert outcome["alpha"].tolist() == ["win", "win", "missing_letter", "insufficient_budget", "wrong_guess"]
    assert outcome["beta"].tolist() == [
        "action_na",
        "consonant_na",
        "vowel_na",
        "round_limit",
        "wrong_guess",
        "win",
    ]


def test_riddles_file(wof_dir):
    riddles = read_riddles(wof_dir / "WoF.jsonl")
    assert len(riddles) == 80 and riddles["category"].nunique() == 16


def test_riddles_errors(tmp_path):
    path = tmp_path / "r.jsonl"
    path.write_text('{"category": "Place", "sentence": "ROME"}\n{"category": "Place"}\n', encoding="utf-8")
    with pytest.raises(InputError, match=r"r.jsonl line 2: expected string keys"):
        read_riddles(path)


def test_fast_path_equals_line_by_line(tmp_path):
    from wordplay_audit.corpora.wof._fast import fast_columns
    from wordplay_audit.corpora.wof.demo_riddles import demo_riddles
    from wordplay_audit.corpora.wof.reader import _read_line_by_line
    from wordplay_audit.corpora.wof.simulate import simulate_games, write_simulation

    write_simulation(tmp_path, {"random": simulate_games(demo_riddles(), "random", n_games=300, seed=1)})
    write_logs(tmp_path / "hand")
    text = (tmp_path / "hand" / "alpha.jsonl").read_text(encoding="utf-8")
    (tmp_path / "blanks.jsonl").write_text("\n\n" + text.replace("\n\n", "\n\n\n"), encoding="utf-8")
    for path in (
        tmp_path / "random.jsonl",
        tmp_path / "hand" / "alpha.jsonl",
        tmp_path / "blanks.jsonl",
        tmp_path / "hand" / "beta" / "report.jsonl",
    ):
        assert fast_columns(path) is not None
        fast, slow = read_report(path, model="m"), _read_line_by_line(path, "m", "raise")
        assert fast.moves.equals(slow.moves), path
        assert {k: fast.skipped[k] for k in slow.skipped} == slow.skipped, path


@pytest.mark.parametrize(
    "change",
    [{"budget": 600.0}, {"budget": True}, {"letter_occurences": True}, {"wheel_reward": "x"}],
)
def test_fast_path_hands_odd_values_to_the_careful_path(tmp_path, change):
    from wordplay_audit.corpora.wof._fast import fast_columns

    path = _broken(tmp_path, json.dumps({**ALPHA[0][1], **change}))
    assert fast_columns(path) is None
    if change == {"budget": 600.0}:  # an integral float is read as the integer
        assert read_report(path).moves["budget"].iloc[1] == 600
    else:
        with pytest.raises(InputError, match=r"line 2: key '(budget|letter_occurences|wheel_reward)'"):
            read_report(path)


def test_empty_files_counted_or_refused(tmp_path):
    (tmp_path / "empty.jsonl").write_text("", encoding="utf-8")
    (tmp_path / "blank.jsonl").write_text("\n\n", encoding="utf-8")
    with pytest.raises(InputError, match="no game to read"):
        read_reports(tmp_path)
    (tmp_path / "m.jsonl").write_text(report_text(ALPHA), encoding="utf-8")
    log = read_reports(tmp_path)
    assert log.skipped["empty_files"] == 2 and set(log.moves["model"]) == {"m"}


def test_every_game_broken_is_refused_with_the_first_problem(tmp_path):
    path = tmp_path / "m.jsonl"
    path.write_text("not json\n\n[1]\n", encoding="utf-8")
    with pytest.raises(
        InputError, match=r"no game to read.*first problem: .*m.jsonl line 1: expected a JSON object"
    ):
        read_reports(tmp_path, on_error="skip")


def test_byte_order_mark_and_crlf_are_accepted(tmp_path):
    path = tmp_path / "m.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + report_text(ALPHA).replace("\n", "\r\n").encode("utf-8"))
    plain = tmp_path / "p.jsonl"
    plain.write_text(report_text(ALPHA), encoding="utf-8")
    assert read_report(path, model="m").moves.equals(read_report(plain, model="m").moves)


def test_a_lone_surrogate_in_a_riddle_is_a_one_line_error(tmp_path):
    path = tmp_path / "riddles.jsonl"
    rows = [{"category": "Thing", "sentence": "A CAT"}, {"category": "Thing\ud800", "sentence": "A DOG"}]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    with pytest.raises(InputError, match=r"riddles\.jsonl line 2: a string holds a lone surrogate"):
        read_riddles(path)


def test_wof_well_formed_report_still_takes_the_fast_path(tmp_path):
    path = with_line_2(tmp_path, T_MOVE)  # unchanged: every letter, key and integer is valid
    assert fast_columns(path) is not None
    assert read_report(path).moves["letter"].astype(str).tolist()[:2] == ["_", "T"]


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
