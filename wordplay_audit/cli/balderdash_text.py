"""Text output of the ``balderdash`` metrics, recompute and convergence commands: which columns
are shown, in which order, and the lines that say why a value is missing."""

from __future__ import annotations

from typing import TYPE_CHECKING

from wordplay_audit.errors import InputError

if TYPE_CHECKING:
    import pandas as pd

METRICS_SHOWN = ["deck", "filter_words", "history_type", "model", "n_games", "lkr_mean", "lkr_sd", "tdr_mean",
                 "tdr_sd", "dr_mean", "cgr_mean", "as_mean"]  # fmt: skip


def lines_of(frame: pd.DataFrame, columns: list[str], title: str) -> list[str]:
    cols = [c for c in columns if c in frame.columns]
    return [title, frame[cols].to_string(index=False, float_format=lambda v: f"{v:.3f}")]


_AUDIT_W = ["player_model", "n_labelled", "recall_w", "fnr_w", "fnr_w_low", "fnr_w_high", "specificity_w",
            "specificity_w_low", "specificity_w_high", "precision_w"]  # fmt: skip
_AUDIT_RAW = [
    "player_model",
    "tp",
    "fp",
    "fn",
    "tn",
    "precision",
    "recall",
    "f1",
    "fnr",
    "fnr_low",
    "fnr_high",
]
_CORRECTED = ["metric", "model", "deck", "n", "n_labelled", "judge", "rg", "rg_low", "rg_high", "ppi", "ppi_low",
              "ppi_high"]  # fmt: skip


def reason_lines(corrected: pd.DataFrame) -> list[str]:
    """One line per distinct reason a corrected value or interval is missing, and one per cell whose
    interval counts definitions as unknown (``rg_unknown``, ``ppi_unknown``)."""
    lines = []
    for column in ("rg_reason", "ppi_reason"):
        for reason, part in corrected[corrected[column].notna()].groupby(column):
            cells = ", ".join(f"{r.metric}/{r.model}/{r.deck}" for r in part.itertuples())
            lines.append(f"  {column.split('_')[0]} not shown for {cells}: {reason}")
    from wordplay_audit.analysis.correction.cells import UNKNOWN_PART

    for column in ("rg_unknown", "ppi_unknown"):
        if column not in corrected:
            continue
        for r in corrected[corrected[column].fillna(0) > 0].itertuples():
            lines.append(f"  {column.split('_')[0]} interval of {r.metric}/{r.model}/{r.deck} counts "
                         f"{int(getattr(r, column))} definition(s) as unknown ({UNKNOWN_PART})")  # fmt: skip
    return lines


def consensus_lines(counts: dict) -> list[str]:
    """Per question: people's labelled items, adjudicated ones and ties left out (with the advice
    to adjudicate them).

    >>> consensus_lines({"reference": {"items": 10, "labelled": 8, "ties": 2, "adjudicated": 1, "ties_broken": 0}})[0]
    "people's labels (reference): 10 items, 8 labelled (1 adjudicated), 2 tied"
    """
    from wordplay_audit.corpora.consensus import ties_note

    lines = []
    for question, c in counts.items():
        if c["items"]:
            lines.append(
                f"people's labels ({question}): {c['items']} items, {c['labelled']} labelled "
                f"({c['adjudicated']} adjudicated), {c['ties']} tied"
            )
            lines += [f"  {note}" for note in [ties_note(c["ties"])] if note]
    return lines


def recompute_lines(
    audits: dict,
    status: dict,
    corrected,
    replaced,
    skipped: dict | None = None,
    consensus: dict | None = None,
) -> list[str]:
    from wordplay_audit.analysis.balderdash.recompute import REPLACED_NOTE

    judge_rows = (skipped or {}).get("judge_rows_in_human_file", 0)
    lines = (
        [f"left out {judge_rows} judge row(s) of the --human file (people's labels only)"]
        if judge_rows
        else []
    )
    lines += consensus_lines(consensus or {})
    for question, table in audits.items():
        lines += lines_of(table, _AUDIT_W, f"judge accuracy ({question}), re-weighted to all judged definitions "
                        "(95 % intervals):")  # fmt: skip
        lines += lines_of(
            table, _AUDIT_RAW, f"  raw, on the labelled items only ({question}; Wilson intervals):"
        )
    lines.append(f"rounds: {status}")
    lines += lines_of(
        corrected, _CORRECTED, "corrected rates (95 % intervals; exact for the binomial pieces):"
    )
    lines += reason_lines(corrected)
    lines += lines_of(replaced, list(replaced.columns), f"replaced labels — {REPLACED_NOTE}:")
    return lines


def parse_eps(values: list[str] | None) -> tuple[float, ...]:
    from wordplay_audit.analysis.balderdash.convergence import DEFAULT_EPS

    if not values:
        return DEFAULT_EPS
    out = []
    for value in values:
        for part in str(value).split(","):
            part = part.strip()
            if not part:
                continue
            try:
                e = float(part)
            except ValueError:
                raise InputError(f"--eps: {part!r} is not a number (expected e.g. 0.1 or 0.05,0.1)") from None
            if not 0 < e < 1:
                raise InputError(f"--eps: {e} is not strictly between 0 and 1")
            out.append(e)
    if not out:  # an empty --eps ended in a traceback ("No objects to concatenate")
        raise InputError(f"--eps: no value in {values!r} (expected e.g. 0.1 or 0.05,0.1)")
    return tuple(out)


CONSTANT_HELP = (
    "Let a round or window without 5 own labels per post-stratum borrow its deck's judge Se/Sp "
    "(assumes the judge as accurate in every round; else it has no corrected value)."
)
CONVERGENCE_SHOWN = ["deck", "model", "eps", "converged_judge", "T_judge", "converged_replaced", "se", "tau",
                "judge_unreachable", "window_estimate", "window_lower", "window_basis", "converged_window"]  # fmt: skip


def verdict_reasons(table: pd.DataFrame) -> list[str]:
    """One line per verdict column and distinct reason it could not be decided."""
    lines = []
    for column in [c for c in table.columns if c.endswith("_reason")]:
        for reason in table[column].dropna().unique():
            rows = int((table[column] == reason).sum())
            lines.append(f"  {column.removesuffix('_reason')} = None in {rows} rows: {reason}")
    return lines
