"""``wordplay-audit wof …``: LLMike (Wheel of Fortune) report files — metrics and simulation.

Sub-commands parse, call :mod:`wordplay_audit.pipelines.wof` and print (``--json`` keys in
docs/WOF.md).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from wordplay_audit.cli.output import JSON_OPTION, emit
from wordplay_audit.errors import ParameterError, check_choice

app = typer.Typer(
    rich_markup_mode=None,
    help="Wheel of Fortune (LLMike): read the game master's reports, reproduce its metrics, simulate runs.",
    no_args_is_help=True,
    add_completion=False,
)

ReportsArg = Annotated[
    list[Path],
    typer.Argument(help="Report files or folders (<model>.jsonl or <model>/report.jsonl)."),
]
OnErrorOpt = Annotated[
    str,
    typer.Option(
        "--on-error",
        help="Broken log lines: raise (stop with the file and line) or skip (leave the game out, count it).",
    ),
]
RiddlesOpt = Annotated[
    Path | None, typer.Option("--riddles", help="Riddles JSON lines (category, sentence).")
]


def _unfinished_lines(payload: dict) -> list[str]:
    """The unfinished games, counted and named (the first ones; the count is of all)."""
    count, named = payload["skipped"].get("unfinished_games", 0), payload.get("unfinished", [])
    if not count:
        return []
    games = ", ".join(f"{g['item_id']} ({g['file']} line {g['line']})" for g in named)
    more = f" and {count - len(named)} more" if count > len(named) else ""
    plural = "s" if count != 1 else ""
    return [f"{count} unfinished game{plural} (not counted as played, won or lost): {games}{more}"]


def _metric_lines(payload: dict) -> list[str]:
    lines = [
        "model             games  wins  win%   budget  letters  %correct  completion  vowels  unfinished"
    ]
    for m in payload["models"]:
        lines.append(
            f"{m['model'][:16]:<16} {m['games']:>6} {m['wins']:>5} {100 * m['win_rate']:>5.1f} "
            f"{m['final_budget_total']:>8} {m['letters_chosen']:>8} {m['pct_correct_letters']:>9.1f} "
            f"{m['completion_at_win']:>11.1f} {m['vowels_bought']:>7} {m['unfinished']:>11}"
        )
    lines.append("losses by error (percent of losses):")
    for e in payload["errors"]:
        if e["count"]:
            lines.append(f"  {e['model']}: {e['outcome']} {e['count']} ({e['percent_of_losses']:.1f} %)")
    lines += _unfinished_lines(payload)
    lines.append(f"skipped: {payload['skipped']}")
    if payload.get("out"):
        lines.append(f"wrote {payload['out']}: {', '.join(payload['written'])}")
    return lines


@app.command("metrics")
def metrics_command(
    reports: ReportsArg,
    on_error: OnErrorOpt = "raise",
    riddles: RiddlesOpt = None,
    out: Annotated[
        Path | None,
        typer.Option("--out", help="Folder for tables (CSV/Markdown), items + judge labels, plots (PNG)."),
    ] = None,
    as_json: bool = JSON_OPTION,
) -> None:
    """Per model: wins, final budget, letters, % correct letters, completion, vowels, losing
    errors, wrong-guess shapes, first-letter strategy."""
    from wordplay_audit.pipelines.wof import metrics_run

    check_choice("--on-error", on_error, ("raise", "skip"))
    if riddles is not None and out is None:  # it was ignored, even a missing file
        raise ParameterError(
            "--riddles: used only with --out (the items' categories); add --out FOLDER or drop it"
        )
    payload = metrics_run(reports, on_error=on_error, riddles=riddles, out=out)
    emit(payload, as_json=as_json, lines=_metric_lines(payload) if not as_json else None)


@app.command("simulate")
def simulate_command(
    out: Annotated[
        Path,
        typer.Option("--out", help="Folder to write <policy>.jsonl reports and truth.csv into."),
    ],
    riddles: Annotated[
        Path | None,
        typer.Option("--riddles", help="Riddles JSON lines (category, sentence); default: the demo riddles."),
    ] = None,
    policy: Annotated[
        list[str] | None,
        typer.Option(
            "--policy",
            help="frequent-consonant, random or overconfident (repeat or comma-separate).",
        ),
    ] = None,
    games: Annotated[int, typer.Option("--games", max=10**6, help="Games per policy (≤ 10⁶).")] = 80,
    seed: Annotated[int, typer.Option("--seed", min=0, help="Random seed.")] = 0,
    letter_loss: Annotated[
        bool,
        typer.Option(
            "--letter-loss/--no-letter-loss",
            help="A letter not in the riddle ends the game (LLMike's default) or sets the budget to 0.",
        ),
    ] = True,
    as_json: bool = JSON_OPTION,
) -> None:
    """Play riddles with scripted players; write the game master's report files (seeded)."""
    from wordplay_audit.pipelines.wof import parse_policies, simulate_run

    policies = parse_policies(policy)
    if not policies:  # an empty --policy ended in a traceback ("No objects to concatenate")
        raise ParameterError(
            f"--policy: no policy in {policy!r}; expected frequent-consonant, random or overconfident"
        )
    payload = simulate_run(
        out, policies=policies, games=games, seed=seed, riddles=riddles, letter_loss=letter_loss
    )
    lines = [f"wrote {out}: {', '.join(payload['written'].values())}"]
    lines += [
        f"  {s['model']}: exact-match win rate {s['exact_win_rate']:.3f}, true {s['true_win_rate']:.3f}"
        for s in payload["simulated"]
    ]
    emit(payload, as_json=as_json, lines=lines)


def _corrected_text(r: dict) -> str:
    """The corrected win rate with its interval, or what is missing and why."""
    if r["corrected"] is None or r["corrected"] != r["corrected"]:  # null / nan
        return f"– ({r['corrected_reason']})"
    if r["corrected_low"] is None or r["corrected_low"] != r["corrected_low"]:
        return f"{r['corrected']:.3f}, no interval ({r['corrected_reason']})"
    return f"{r['corrected']:.3f} [{r['corrected_low']:.3f}, {r['corrected_high']:.3f}]"


def _recompute_lines(payload: dict) -> list[str]:
    from wordplay_audit.corpora.consensus import ties_note

    lines = ["exact-match judge vs people (FNR = share of people's wins the judge calls losses):"]
    for a in payload["judge_audit"]:
        lines.append(
            f"  {a['player_model']}: labelled {a['n_labelled']}, tp {a['tp']} fn {a['fn']} fp {a['fp']} tn {a['tn']}, "
            f"FNR {a['fnr_w']:.3f} [{a['fnr_w_low']:.3f}, {a['fnr_w_high']:.3f}] (re-weighted)"
        )
    level = round(100 * payload["confidence"])
    lines.append(f"win rates (judge | replaced | corrected [{level} %], {payload['design']} sample):")
    for r in payload["win_rates"]:
        lines.append(f"  {r['model']}: {r['judge']:.3f} | {r['replaced']:.3f} | {_corrected_text(r)}")
    for t in payload["mcnemar"]:
        lines.append(
            f"McNemar {t['model_a']} vs {t['model_b']} ({t['labels']} labels): {t['pairs']} pairs, "
            f"difference {t['difference']:+.3f} [{t['difference_low']:+.3f}, {t['difference_high']:+.3f}], "
            f"p = {t['p_value']:.3g}"
        )
    lines += _unfinished_lines(payload)
    lines.append(f"skipped: {payload['skipped']}")
    lines += [note for note in [ties_note(payload["skipped"].get("ties", 0))] if note]
    return lines


@app.command("recompute")
def recompute_command(
    reports: ReportsArg,
    human: Annotated[
        Path,
        typer.Option("--human", help="People's labels: per rater (pull's labels.csv) or final (final.csv)."),
    ],
    design: Annotated[
        str,
        typer.Option(
            "--design",
            help="How the labelled games were drawn: stratified (within the judge's verdicts) or random.",
        ),
    ] = "stratified",
    exact_is_true: Annotated[
        bool,
        typer.Option(
            "--exact-is-true/--no-exact-is-true", help="Count exact matches as people's wins without a label."
        ),
    ] = True,
    confidence: Annotated[float, typer.Option("--confidence", help="Interval level.")] = 0.95,
    on_error: OnErrorOpt = "raise",
    as_json: bool = JSON_OPTION,
) -> None:
    """Audit the exact-match judge against people's labels; win rates replaced and corrected,
    McNemar tests between models under both labelings."""
    from wordplay_audit.pipelines.wof import recompute_run

    check_choice("--design", design, ("stratified", "random"))
    check_choice("--on-error", on_error, ("raise", "skip"))
    if not 0 < confidence < 1:  # also nan; checked before the reports are read
        raise ParameterError(f"--confidence: expected a level strictly between 0 and 1; got {confidence!r}")
    payload = recompute_run(
        reports,
        human=human,
        design=design,
        exact_is_true=exact_is_true,
        confidence=confidence,
        on_error=on_error,
    )
    emit(payload, as_json=as_json, lines=_recompute_lines(payload) if not as_json else None)
