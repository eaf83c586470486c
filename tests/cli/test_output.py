"""`--json` output of tables: the column-wise path gives what converting value by value gives."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd

from wordplay_audit.cli.output import BIG, emit, records


def _by_value(frame: pd.DataFrame) -> list[dict]:
    """The reference, written out again: each value to plain JSON on its own."""

    def plain(v):
        if v is None or v is pd.NA or v is pd.NaT:
            return None
        if isinstance(v, np.bool_ | bool):
            return bool(v)
        if isinstance(v, np.integer):
            return int(v)
        if isinstance(v, np.floating | float):
            return None if not math.isfinite(float(v)) else float(v)
        if isinstance(v, list):
            return [plain(x) for x in v]
        return v

    return [{str(k): plain(v) for k, v in row.items()} for row in frame.to_dict(orient="records")]


def _frame() -> pd.DataFrame:
    return pd.DataFrame({
        "f": [1.5, np.nan, np.inf, -np.inf],
        "i": np.array([1, 2, 3, 4], dtype=np.int64),
        "b": [True, False, True, False],
        "s": ["x", None, "z", "é"],
        "arrow": pd.array(["a", None, "c", "d"], dtype="string"),
        "cat": pd.Categorical(["u", "v", None, "u"]),
        "nullable": pd.array([1, None, 3, 4], dtype="Int64"),
        "obj": [np.int64(7), [np.float64(np.nan), 2], "t", np.bool_(True)],
        0: [1.0, 2.0, 3.0, 4.0],  # a column named by a number: its key is text
    })  # fmt: skip


def test_records_equal_the_value_by_value_conversion():
    frame = _frame()
    got = records(frame)
    assert got == _by_value(frame)
    assert [type(v) for v in got[0].values()] == [float, int, bool, str, str, str, int, int, float]
    assert json.loads(json.dumps(got, allow_nan=False)) == got  # strict JSON


def test_a_long_table_is_printed_compact_and_a_short_one_indented(capsys):
    long = pd.DataFrame({"x": np.arange(BIG + 1, dtype=float)})
    emit({"rows": long}, as_json=True)
    out = capsys.readouterr().out
    assert out.count("\n") == 1 and json.loads(out)["rows"][BIG] == {"x": float(BIG)}
    emit({"rows": long.head(3)}, as_json=True)
    out = capsys.readouterr().out
    assert out.count("\n") > 3 and json.loads(out)["rows"] == [{"x": 0.0}, {"x": 1.0}, {"x": 2.0}]
