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

    if isinstance(value, dict | pd.Series):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, pd.DataFrame):
        value = value.to_dict(orient="records")
    elif isinstance(value, np.ndarray):
        value = value.tolist()
    if isinstance(value, list | tuple):
        return [to_jsonable(v) for v in value]
    return _scalar(value)


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
        typer.echo(json.dumps(to_jsonable(result), indent=2, sort_keys=False))
        return
    if lines is None:
        lines = [f"{k}: {v}" for k, v in to_jsonable(result).items()]
    for line in lines:
        typer.echo(line)


JSON_OPTION = typer.Option(False, "--json", help="Print one JSON object instead of a summary.")

SeedOpt = Annotated[int, typer.Option("--seed", min=0, max=2**32 - 1, help="Random seed (0 ≤ seed < 2³²).")]
