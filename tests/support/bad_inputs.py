"""Malformed inputs for every command, and the checks the command tests run on them.

Each case takes a good input (the fixtures ``good`` and ``more_good`` of ``tests/cli/conftest.py``,
built in a temporary folder), breaks one thing, runs the command through the console entry point
in-process (an uncaught exception fails the test with its traceback; a few cases run in a
subprocess to see stderr whole) and checks the contract: exit code 2, exactly one stderr line, no
traceback, and the output folder left exactly as it was. A BOM is not malformed: it is accepted
(exit 0) wherever text is read. The tables name every command; ``cases(table, group)`` picks
one command group's rows for the test module of that group (``tests/cli/test_<group>.py``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pandas as pd
import pytest

LABELS = (
    "item_id,rater,rater_type,label\na,r1,human,true\na,r2,human,false\nb,r1,human,true\nb,r2,human,true\n"
)


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONWARNINGS": "ignore"}
    return subprocess.run(
        [sys.executable, "-m", "wordplay_audit", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=600,
    )


def _csv_breaks(good: str) -> dict[str, Callable[[Path], None] | None]:
    header, *rows = good.splitlines()
    dropped = ",".join(c for c in header.split(",") if c != "label")
    keep = [i for i, c in enumerate(header.split(",")) if c != "label"]
    return {
        "missing file": None,
        "directory": lambda p: p.mkdir(),
        "empty file": lambda p: p.write_text(""),
        "not a table": lambda p: p.write_text('item_id,rater\n"unclosed,x\n'),
        "missing column": lambda p: p.write_text(
            "\n".join([dropped, *(",".join(r.split(",")[i] for i in keep) for r in rows)]) + "\n"
        ),
        "unknown label": lambda p: p.write_text(good.replace(",true\n", ",perhaps\n", 1)),
        "non-UTF-8": lambda p: p.write_bytes(good.encode().replace(b"r1", b"r\xff1", 1)),
        "NaN": lambda p: p.write_text(good.replace(",true\n", ",\n", 1)),
        "duplicate column": lambda p: p.write_text(
            "\n".join([header + ",label", *(r + ",x" for r in rows)]) + "\n"
        ),
    }


def _jsonl_breaks(good: str, field: str) -> dict[str, Callable[[Path], None] | None]:
    first, *rest = good.splitlines()
    doc = json.loads(first)
    without = {k: v for k, v in doc.items() if k != field}
    with_nan = json.dumps({**doc, field: float("nan")}) if isinstance(doc[field], int | float) else None
    breaks = {
        "missing file": None,
        "directory": lambda p: p.mkdir(),
        "empty file": lambda p: p.write_text(""),
        "bad JSON": lambda p: p.write_text(first[:-5] + "\n" + "\n".join(rest) + "\n"),
        "missing field": lambda p: p.write_text("\n".join([json.dumps(without), *rest]) + "\n"),
        "non-UTF-8": lambda p: p.write_bytes(good.encode().replace(b'"', b'"\xff', 1)),
        "deep nesting": lambda p: p.write_text("[" * 100_000 + "\n"),
    }
    if with_nan is not None:
        breaks["NaN"] = lambda p: p.write_text("\n".join([with_nan, *rest]) + "\n")
    return breaks


def copy_input(src: Path, dst: Path) -> Path:
    import shutil

    if src.is_dir():
        shutil.copytree(src, dst)
    else:
        shutil.copy(src, dst)
    return dst


LABEL_COMMANDS = {
    "analyze agreement": lambda lab, out: [
        "analyze",
        "agreement",
        str(lab),
        "--bootstrap",
        "0",
        "--categories",
        "true,false",
    ],
    "analyze aggregate": lambda lab, out: ["analyze", "aggregate", str(lab), "--out", str(out / "c.csv")],
}


EXPORT_COMMANDS = {
    "balderdash metrics": lambda exp, out: ["balderdash", "metrics", str(exp)],
    "balderdash convergence": lambda exp, out: ["balderdash", "convergence", str(exp), "--eps", "0.2"],
}


HUMAN_COMMANDS = {
    "balderdash recompute": lambda exp, lab, out: ["balderdash", "recompute", str(exp), "--human", str(lab)],
    "balderdash trend": lambda exp, lab, out: ["balderdash", "trend", str(exp), "--human", str(lab)],
}


def _cases():
    csv_kinds = list(_csv_breaks(LABELS))
    cases = [(name, "labels", kind) for name in LABEL_COMMANDS for kind in csv_kinds]
    cases.remove(("analyze aggregate", "labels", "unknown label"))  # any label is a category there
    cases += [(name, "export", kind) for name in EXPORT_COMMANDS for kind in _jsonl_kinds()]
    cases += [(name, "human", kind) for name in HUMAN_COMMANDS for kind in csv_kinds]
    cases += [("connections score", "gold", kind) for kind in _jsonl_kinds()]
    return cases


def _jsonl_kinds() -> list[str]:
    return [
        "missing file",
        "directory",
        "empty file",
        "bad JSON",
        "missing field",
        "non-UTF-8",
        "deep nesting",
        "NaN",
    ]


def _assert_clean_failure(result: tuple[int, str, str], out: Path, before: str, tree_digest) -> None:
    code, _, err = result
    assert code == 2, (code, err[-2000:])
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err[-2000:]
    assert "Traceback" not in err
    assert tree_digest(out) == before


def _build(good, tmp_path, out, command, slot, kind) -> list[str] | None:
    if slot in ("labels", "human"):
        target = tmp_path / "labels.csv"
        breaker = _csv_breaks(LABELS)[kind]
        if slot == "human":
            # labels whose item ids name definitions of the export
            items = _export_item_ids(good["export"])
            text = LABELS.replace("a,", f"{items[0]},").replace("b,", f"{items[1]},")
            breaker = _csv_breaks(text)[kind]
        if breaker is not None:
            breaker(target)
        if slot == "labels":
            return LABEL_COMMANDS[command](target, out)
        return HUMAN_COMMANDS[command](good["export"], target, out)
    if slot == "export":
        export = copy_input(good["export"], tmp_path / "export")
        rounds = export / "rounds.jsonl"
        text = rounds.read_text()
        rounds.unlink()
        breaker = _jsonl_breaks(text, "round_id")[kind] if kind in _jsonl_breaks(text, "round_id") else None
        if kind != "missing file" and breaker is None:
            return None
        if breaker is not None:
            breaker(rounds)
        return EXPORT_COMMANDS[command](export, out)
    data = copy_input(good["connections"], tmp_path / "data")
    model = next(p for p in sorted(data.glob("model-*.json")))
    text = model.read_text()
    model.unlink()
    breaks = _model_file_breaks(text)
    if kind not in breaks:
        return None
    if breaks[kind] is not None:
        breaks[kind](model)
    return ["connections", "score", "--data", str(data), "--out", str(out)]


def _model_file_breaks(text: str) -> dict[str, Callable[[Path], None] | None]:
    records = json.loads(text)
    first = dict(records[0])
    without = {k: v for k, v in first.items() if k != "allwords"}
    return {
        "missing file": None,
        "directory": lambda p: p.mkdir(),
        "empty file": lambda p: p.write_text(""),
        "bad JSON": lambda p: p.write_text(text[:-10]),
        "missing field": lambda p: p.write_text(json.dumps([without, *records[1:]])),
        "non-UTF-8": lambda p: p.write_bytes(text.encode().replace(b'"', b'"\xff', 1)),
        "deep nesting": lambda p: p.write_text("[" * 100_000),
        "NaN": lambda p: p.write_text(json.dumps([{**first, "score": float("nan")}, *records[1:]])),
    }


def _export_item_ids(export: Path) -> list[str]:
    from wordplay_audit.corpora.balderdash import player_round_table, read_export

    return player_round_table(read_export(export))["item_id"].tolist()[:2]


FILE_BREAKS = {
    "missing file": None,
    "directory": lambda p: p.mkdir(),
    "empty file": lambda p: p.write_text(""),
    "non-UTF-8": lambda p: p.write_bytes(b"item_id,rater\n\xff\xfe,\x80\n"),
    "not a table": lambda p: p.write_bytes(b'item_id,"\n' + b"[" * 100_000 + b"\n"),
}


FOLDER_BREAKS = {
    "missing folder": None,
    "file instead of folder": lambda p: p.write_text("x"),
    "empty folder": lambda p: p.mkdir(),
    "broken manifest": lambda p: (p.mkdir(), (p / "manifest.json").write_text('{"seed": 1, ')),
}


def _other_cases():
    file_commands = {
        "judge run": lambda f, g, out: [
            "judge",
            "run",
            str(f),
            "--judge",
            "exact",
            "--out",
            str(out / "l.csv"),
        ],
        "judge batch-write": lambda f, g, out: [
            "judge",
            "batch-write",
            str(f),
            "--judge",
            "openai:m",
            "--out",
            str(out / "b.jsonl"),
        ],
        "judge batch-read": lambda f, g, out: [
            "judge",
            "batch-read",
            str(f),
            "--judge",
            "openai:m",
            "--cache",
            str(out.parent / "cache"),
        ],
        "judge fit": lambda f, g, out: [
            "judge",
            "fit",
            str(g["items"]),
            "--human",
            str(f),
            "--judge",
            "tfidf",
            "--out",
            str(out / "fit.json"),
        ],
        "annotate plan": lambda f, g, out: [
            "annotate",
            "plan",
            str(f),
            "--n",
            "5",
            "--raters",
            "a,b",
            "--out",
            str(out / "c"),
        ],
        "analyze judge-audit": lambda f, g, out: [
            "analyze",
            "judge-audit",
            "--judge-labels",
            str(f),
            "--human",
            str(g["human"]),
            "--items",
            str(g["items"]),
        ],
        "wof metrics": lambda f, g, out: ["wof", "metrics", str(f)],
        "wof recompute": lambda f, g, out: ["wof", "recompute", str(g["wof"]), "--human", str(f)],
    }
    folder_commands = {
        "annotate status": lambda d, g, out: ["annotate", "status", str(d)],
        "annotate export-files": lambda d, g, out: [
            "annotate",
            "export-files",
            str(d),
            "--out",
            str(out / "x"),
        ],
        "annotate import-file": lambda d, g, out: [
            "annotate",
            "import-file",
            str(d),
            "--export",
            f"a={g['judge_labels']}",
            "--out",
            str(out / "x"),
        ],
        "annotate adjudicate": lambda d, g, out: [
            "annotate",
            "adjudicate",
            str(d),
            "--labels",
            str(g["judge_labels"]),
            "--adjudicator",
            "z",
        ],
        "annotate push": lambda d, g, out: ["annotate", "push", str(d)],
        "annotate pull": lambda d, g, out: ["annotate", "pull", str(d), "--out", str(out / "x")],
        "balderdash items": lambda d, g, out: ["balderdash", "items", str(d), "--out", str(out / "x")],
    }
    cases = [(name, build, kind, "file") for name, build in file_commands.items() for kind in FILE_BREAKS]
    cases += [
        (name, build, kind, "folder") for name, build in folder_commands.items() for kind in FOLDER_BREAKS
    ]
    return cases


GOOD_RUNS = {
    "judge run": ("items", 0),
    "judge batch-write": ("items", 0),
    "judge fit": ("human", 0),
    "annotate plan": ("items", 0),
    "analyze judge-audit": ("judge_labels", 0),
    "wof metrics": ("wof", 0),
    "annotate export-files": ("campaign", 0),
    "balderdash items": ("export", 0),
    "annotate push": ("campaign", 2),  # the server at 127.0.0.1:9 is down: one line, exit 2
    "annotate pull": ("campaign", 2),
}


FOLDER_FOR_FILE = {
    "analyze agreement LABELS": lambda d, g, out: ["analyze", "agreement", d, "--bootstrap", "0"],
    "analyze agreement --gold": lambda d, g, out: [
        "analyze", "agreement", g["judge_labels"], "--gold", d, "--bootstrap", "0",
    ],
    "analyze aggregate LABELS": lambda d, g, out: ["analyze", "aggregate", d, "--out", f"{out}/c.csv"],
    "analyze judge-audit --human": lambda d, g, out: [
        "analyze", "judge-audit", "--judge-labels", g["judge_labels"], "--human", d, "--items", g["items"],
    ],
    "annotate plan --honeypots": lambda d, g, out: [
        "annotate", "plan", g["items"], "--n", "5", "--raters", "a,b", "--out", f"{out}/c", "--honeypots", d,
    ],
    "annotate import-file --export": lambda d, g, out: [
        "annotate", "import-file", g["campaign"], "--export", f"a={d}", "--out", f"{out}/x",
    ],
    "annotate import-file --roster": lambda d, g, out: [
        "annotate", "import-file", g["campaign"], "--export", f"a={g['judge_labels']}", "--out", f"{out}/x",
        "--roster", d,
    ],
    "annotate status --items": lambda d, g, out: [
        "annotate", "status", g["campaign"], "--labels", g["judge_labels"], "--items", d,
    ],
    "annotate next --items": lambda d, g, out: [
        "annotate", "next", g["campaign"], "--budget", "2", "--labels", g["judge_labels"], "--items", d,
        "--no-push",
    ],
    "annotate adjudicate --labels": lambda d, g, out: [
        "annotate", "adjudicate", g["campaign"], "--labels", d, "--adjudicator", "z",
    ],
    "balderdash recompute --weights": lambda d, g, out: [
        "balderdash", "recompute", g["export"], "--human", g["human"], "--weights", d,
    ],
    "judge run --fit": lambda d, g, out: [
        "judge", "run", g["items"], "--judge", "tfidf", "--fit", d, "--out", f"{out}/l.csv",
    ],
    "judge run --prompt": lambda d, g, out: [
        "judge", "run", g["items"], "--judge", "openai:m", "--prompt", d, "--out", f"{out}/l.csv",
    ],
    "judge batch-read RESULTS": lambda d, g, out: [
        "judge", "batch-read", d, "--judge", "openai:m", "--cache", f"{out}/../cache",
    ],
    "judge batch-write --prompt": lambda d, g, out: [
        "judge", "batch-write", g["items"], "--judge", "openai:m", "--prompt", d, "--out", f"{out}/b.jsonl",
    ],
    "wof metrics --riddles": lambda d, g, out: ["wof", "metrics", g["wof"], "--riddles", d, "--out", f"{out}/m"],
    "wof recompute --human": lambda d, g, out: ["wof", "recompute", g["wof"], "--human", d],
}  # fmt: skip


BAD_PARAMETERS = [
    ["demo", "--seed", "-1"],
    ["analyze", "agreement", "LABELS", "--seed", "-1"],
    ["analyze", "agreement", "LABELS", "--bootstrap", "1000000000000"],
    ["analyze", "aggregate", "LABELS", "--out", "OUT/c.csv", "--seed", "-1"],
    ["balderdash", "simulate", "--out", "OUT", "--seed", "-1"],
    ["balderdash", "simulate", "--out", "OUT", "--rounds", "0"],
    ["balderdash", "plan", "--items", "0"],
    ["balderdash", "plan", "--items", "nan"],
    ["balderdash", "plan", "--items", "-5"],
    ["balderdash", "plan", "--fnr", "1.5"],
    ["balderdash", "convergence", "EXPORT", "--eps", "abc"],
    ["connections", "score", "--data", "DATA", "--out", ""],
    ["demo", "--out", ""],
    ["demo", "--out", "."],
]


def _group(command: str | list[str]) -> str:
    return (command if isinstance(command, str) else command[0]).split()[0]


def malformed_cases(group: str) -> list[tuple[str, str, str]]:
    """(command, slot, kind) rows of the main table for the commands of ``group``."""
    return [case for case in _cases() if _group(case[0]) == group]


def other_cases(group: str) -> list[tuple]:
    """(command, build, kind, slot) rows of the second table for the commands of ``group``."""
    return [case for case in _other_cases() if _group(case[0]) == group]


def other_case_ids(group: str) -> list[str]:
    return [f"{c}-{k}".replace(" ", "-") for c, _, k, _ in other_cases(group)]


def good_runs(group: str) -> list[str]:
    return [command for command in sorted(GOOD_RUNS) if _group(command) == group]


def folder_for_file(group: str) -> list[str]:
    return [command for command in sorted(FOLDER_FOR_FILE) if _group(command) == group]


def bad_parameters(group: str) -> list[list[str]]:
    return [args for args in BAD_PARAMETERS if _group(args) == group]


def case_id(value) -> str:
    return str(value).replace(" ", "-")


def parameters_id(args: list[str]) -> str:
    return "-".join(args).replace("/", "_")


def check_malformed_input(good, tmp_path, in_tmp, command, slot, kind, tree_digest) -> None:
    """One row of the main table: one line, exit 2, the output folder as it was."""
    out = tmp_path / "out"
    out.mkdir()
    (out / "keep.txt").write_text("a user's file")
    before = tree_digest(out)
    args = _build(good, tmp_path, out, command, slot, kind)
    if args is None:
        pytest.skip(f"{kind} does not apply to {slot}")
    _assert_clean_failure(in_tmp(*args), out, before, tree_digest)


def check_bad_parameters(good, tmp_path, in_tmp, args, tree_digest) -> None:
    """A bad option value: one line, exit 2, nothing written in the output or current folder."""
    out = tmp_path / "out"
    out.mkdir()
    (out / "keep.txt").write_text("a user's file")
    before = tree_digest(out)
    cwd_before = sorted(p.name for p in tmp_path.iterdir())
    swap = {
        "LABELS": str(good["labels"]),
        "OUT": str(out),
        "EXPORT": str(good["export"]),
        "DATA": str(good["connections"]),
    }
    argv = [
        swap.get(a.split("/")[0], a.split("/")[0]) + ("/" + a.split("/", 1)[1] if "/" in a else "")
        for a in args
    ]
    _assert_clean_failure(in_tmp(*argv), out, before, tree_digest)
    assert sorted(p.name for p in tmp_path.iterdir()) == cwd_before


def check_other_command(more_good, tmp_path, in_tmp, monkeypatch, tree_digest, build, kind, slot) -> None:
    """One row of the second table: a broken file or folder; no server or key is reachable."""
    monkeypatch.setenv("LABEL_STUDIO_URL", "http://127.0.0.1:9")  # nothing listens there
    monkeypatch.setenv("LABEL_STUDIO_API_KEY", "not-a-token")
    monkeypatch.setenv("OPENAI_API_KEY", "not-a-key")
    out = tmp_path / "out"
    out.mkdir()
    (out / "keep.txt").write_text("a user's file")
    before = tree_digest(out)
    target = tmp_path / ("input.csv" if slot == "file" else "input")
    breaker = (FILE_BREAKS if slot == "file" else FOLDER_BREAKS)[kind]
    if breaker is not None:
        breaker(target)
    _assert_clean_failure(in_tmp(*build(target, more_good, out)), out, before, tree_digest)


def check_good_run(more_good, good, tmp_path, in_tmp, monkeypatch, command) -> None:
    """With its good input each command of the second table does its work (or, needing a server
    that is down, says so): the failures come from the broken input, not from the call."""
    monkeypatch.setenv("LABEL_STUDIO_URL", "http://127.0.0.1:9")
    monkeypatch.setenv("LABEL_STUDIO_API_KEY", "not-a-token")
    builds = {name: build for name, build, _, _ in _other_cases()}
    slot, expected = GOOD_RUNS[command]
    # a judge is fitted to one question: the export's reference answers (its labels hold two)
    both = pd.read_csv(good["export"] / "labels.csv", dtype=str)
    human = tmp_path / "reference.csv"
    both[both["question"] == "reference"].to_csv(human, index=False)
    inputs = {**more_good, "export": good["export"], "human": human}
    out = tmp_path / "out"
    code, _, err = in_tmp(*builds[command](inputs[slot], more_good, out))
    assert code == expected, err
    if expected == 2:
        assert "127.0.0.1:9" in err or "server" in err.lower(), err


def check_folder_for_file(more_good, good, tmp_path, in_tmp, monkeypatch, tree_digest, command) -> None:
    """A folder given for a file: one line saying it is a folder and what file was expected (not
    "no such file", nor the system's "Is a directory"), exit 2, nothing written."""
    monkeypatch.setenv("OPENAI_API_KEY", "not-a-key")
    out = tmp_path / "out"
    out.mkdir()
    (out / "keep.txt").write_text("a user's file")
    before = tree_digest(out)
    folder = tmp_path / "a-folder"
    folder.mkdir()
    inputs = {**more_good, "export": good["export"]}
    args = [str(a) for a in FOLDER_FOR_FILE[command](str(folder), inputs, out)]
    result = in_tmp(*args)
    _assert_clean_failure(result, out, before, tree_digest)
    assert f"error: {folder}: is a folder, expected " in result[2], result[2]
