"""Checks of the trend tests' inputs: 0/1 outcomes, rounds, the player-round frame, Se/Sp counts."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from wordplay_audit.corpora.contract import normalize_bool_label, require_columns
from wordplay_audit.errors import InputError

OUTCOMES = ("knows", "true_def")
ID_COLUMNS = ("game_id", "round_id", "player_id")


def rescale_rounds(
    rounds: Sequence[int] | np.ndarray | pd.Series, *, last_round: int | None = None
) -> np.ndarray:
    r"""Rescale 1-based rounds to :math:`x = (r - (R + 1)/2)/(R - 1)`.

    :math:`(R + 1)/2` is the mean of rounds 1..R, and R is ``last_round`` or else the largest
    round given, so x runs from −0.5 (round 1) to 0.5 (round R); for R = 20,
    x = (r − 10.5)/19. A slope per unit x is the change from the first to the last round.
    Shape: (n,) in, (n,) out. R must be at least 2.

    >>> rescale_rounds([1, 20]).tolist()
    [-0.5, 0.5]
    """
    values = np.asarray(rounds, dtype=float)
    if values.size == 0:
        raise InputError("rounds: no values to rescale")
    last = float(values.max()) if last_round is None else float(last_round)
    if last < 2:
        raise InputError(f"rounds: need a last round of at least 2 to rescale, got {last:g}")
    return (values - (last + 1.0) / 2.0) / (last - 1.0)


# --------------------------------------------------------------------------- validation


def _where_row(mask: pd.Series) -> int:
    """1-based position of the first True in ``mask`` (the row number shown in messages)."""
    return int(np.flatnonzero(mask.to_numpy())[0]) + 1


def as_binary(values: pd.Series, column: str, what: str) -> np.ndarray:
    """0/1 floats from a bool, 0/1 or true/false column; InputError naming the first bad row."""
    if values.isna().any():
        raise InputError(
            f"{what} row {_where_row(values.isna())}: column {column!r} is "
            "missing; drop or resolve such rows before the trend tests"
        )
    if pd.api.types.is_bool_dtype(values):
        return values.to_numpy(dtype=float)
    if pd.api.types.is_numeric_dtype(values):
        numeric = values.to_numpy(dtype=float)
        bad = ~np.isin(numeric, (0.0, 1.0))
        if bad.any():
            pos = int(np.flatnonzero(bad)[0])
            raise InputError(
                f"{what} row {pos + 1}: column {column!r} is {values.iloc[pos]!r}, expected True/False or 1/0"
            )
        return numeric
    out = np.empty(len(values))
    for pos, value in enumerate(values.tolist()):
        if isinstance(value, bool | np.bool_):
            out[pos] = float(value)
            continue
        try:
            out[pos] = 1.0 if normalize_bool_label(value) == "true" else 0.0
        except ValueError:
            raise InputError(
                f"{what} row {pos + 1}: column {column!r} is {value!r}, expected True/False or 1/0"
            ) from None
    return out


def as_rounds(values: pd.Series, column: str, what: str) -> np.ndarray:
    numeric = pd.to_numeric(values, errors="coerce")
    bad = numeric.isna() | (numeric < 1) | (numeric != np.floor(numeric))
    if bad.any():
        pos = int(np.flatnonzero(bad.to_numpy())[0])
        raise InputError(
            f"{what} row {pos + 1}: column {column!r} is {values.iloc[pos]!r}, expected a whole number >= 1"
        )
    return numeric.to_numpy(dtype=int)


def check_frame(frame: object, required: Sequence[str], what: str) -> pd.DataFrame:
    require_columns(frame, required, what)
    if frame.empty:
        raise InputError(f"{what} table has no rows")
    return frame


def validate_obs(obs: object, outcome: str, by: tuple[str, ...]) -> pd.DataFrame:
    if outcome not in OUTCOMES:
        raise InputError(f"outcome must be one of {', '.join(OUTCOMES)}, got {outcome!r}")
    if not by or any(not isinstance(c, str) for c in by):
        raise InputError(f"by must be a non-empty sequence of column names, got {by!r}")
    if len(set(by)) != len(by) or set(by) & {*ID_COLUMNS, outcome}:
        raise InputError(f"by must name distinct grouping columns other than ids and outcome, got {by!r}")
    frame = check_frame(obs, (*ID_COLUMNS, *by, outcome), "obs")
    for column in ("game_id", "player_id", *by):
        empty = frame[column].isna() | (frame[column].astype(str).str.strip() == "")
        if empty.any():
            raise InputError(f"obs row {_where_row(empty)}: column {column!r} is empty")
    clean = pd.DataFrame({column: frame[column].astype(str).to_numpy() for column in by})
    clean["game_id"] = frame["game_id"].astype(str).to_numpy()
    clean["player_id"] = frame["player_id"].astype(str).to_numpy()
    clean["round_id"] = as_rounds(frame["round_id"], "round_id", "obs")
    clean["y"] = as_binary(frame[outcome], outcome, "obs")
    dup = clean.duplicated([*by, *ID_COLUMNS])
    if dup.any():
        pos = int(np.flatnonzero(dup.to_numpy())[0])
        row = clean.iloc[pos]
        raise InputError(
            f"obs row {pos + 1}: game {row['game_id']!r}, round {row['round_id']}, player "
            f"{row['player_id']!r} appears twice in one cell; filter (e.g. one judge_model) or "
            "add the distinguishing column to by"
        )
    return clean


def validate_se_sp(se_sp: object) -> dict[str, tuple[int, int, int, int]]:
    if not isinstance(se_sp, Mapping):
        raise InputError(f"se_sp must map model -> (TP, FN, TN, FP), got {type(se_sp).__name__}")
    out: dict[str, tuple[int, int, int, int]] = {}
    for model, counts in se_sp.items():
        ok = isinstance(counts, Sequence) and len(counts) == 4
        if ok:
            try:
                ints = tuple(int(c) for c in counts)
                ok = all(i == c and i >= 0 for i, c in zip(ints, counts, strict=True))
            except (TypeError, ValueError):
                ok = False
        if not ok:
            raise InputError(f"se_sp[{model!r}] must be four counts (TP, FN, TN, FP) >= 0, got {counts!r}")
        out[str(model)] = ints  # type: ignore[assignment]
    return out
