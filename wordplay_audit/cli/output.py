"""How every sub-command prints its result: ``--json`` (one JSON object) or readable lines."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Annotated, Any

import typer

from wordplay_audit.corpora.io import replaced_outputs


def _scalar(value: Any) -> Any:
    import numpy as np

    if isinstance(value, np.bool_ | bool):
        return bool(value)
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating | float):
        value = float(value)
        return None if math.isnan(value) or math.isinf(value) else value
    return value


def to_jsonable(value: Any) -> Any:
    """Turn numpy/pandas scalars and containers into plain JSON values (nan and ±inf become null)."""
    import numpy as np
    import pandas as pd

    if isinstance(value, _Records):
        return value
    if isinstance(value, dict | pd.Series):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, pd.DataFrame):
        return records(value)
    if isinstance(value, np.ndarray):
        value = value.tolist()
    if isinstance(value, list | tuple):
        return [to_jsonable(v) for v in value]
    return _scalar(value)


class _Records(list):
    """Rows already plain JSON values (:func:`records`): :func:`to_jsonable` passes them over."""


BIG = 10_000
"""A ``--json`` result holding a table longer than this is printed without indentation (the
C encoder; a million rows of ``balderdash metrics`` in seconds instead of a minute)."""


def records(frame) -> list[dict]:
    """``frame``'s rows as dicts of plain JSON values, column by column (nan, ±inf and missing
    values → None; numbers and booleans as Python's): the result :func:`to_jsonable` would give
    value by value, at a fraction of the cost for large tables."""
    import numpy as np
    import pandas as pd

    columns = []
    for name in frame.columns:
        col = frame[name]
        if col.dtype.kind == "f":
            arr = col.to_numpy(dtype=float)
            out = arr.astype(object)
            out[~np.isfinite(arr)] = None
        elif col.dtype.kind in "iub" and isinstance(col.dtype, np.dtype):
            out = col.to_numpy().astype(object)  # Python ints and bools
        elif (
            pd.api.types.is_string_dtype(col)
            and not pd.api.types.is_object_dtype(col)
            or (
                isinstance(col.dtype, pd.CategoricalDtype)
                and pd.api.types.is_string_dtype(col.cat.categories)
            )
        ):  # text: only the missing values change
            out = col.astype(object).where(col.notna(), None).tolist()
        else:  # nullable numbers and object columns: value by value
            out = [None if v is None or v is pd.NA or v is pd.NaT else to_jsonable(v) for v in col.tolist()]
        columns.append(out)
    keys = [str(c) for c in frame.columns]
    return _Records(dict(zip(keys, row, strict=True)) for row in zip(*columns, strict=True))


def _largest_table(value: Any) -> int:
    if isinstance(value, _Records):
        return len(value)
    if isinstance(value, dict):
        return max((_largest_table(v) for v in value.values()), default=0)
    return 0


def emit(result: dict[str, Any], *, as_json: bool, lines: list[str] | None = None) -> None:
    """Print ``result`` as one JSON object, or ``lines`` (a human summary) when not ``--json``;
    either names the outputs of an earlier run that this one replaced (``replaced_outputs``)."""
    replaced = replaced_outputs()
    if replaced:
        result = {**result, "replaced_outputs": replaced}
        said = [  # a folder carries the marker of an earlier run; a file is whatever was there
            f"replaced the earlier output in {p}" if Path(p).is_dir() else f"replaced the existing file {p}"
            for p in replaced
        ]
        lines = None if lines is None else [*lines, *said]
    if as_json:
        plain = to_jsonable(result)
        typer.echo(json.dumps(plain, indent=None if _largest_table(plain) > BIG else 2, sort_keys=False))
        return
    if lines is None:
        lines = [f"{k}: {v}" for k, v in to_jsonable(result).items()]
    for line in lines:
        typer.echo(line)


JSON_OPTION = typer.Option(False, "--json", help="Print one JSON object instead of a summary.")

SeedOpt = Annotated[int, typer.Option("--seed", min=0, max=2**32 - 1, help="Random seed (0 ≤ seed < 2³²).")]
