"""``wordplay-audit wof …``: LLMike (Wheel of Fortune) report files — metrics, simulated runs and
wins recomputed under people's labels; each one call of the public API (``wof_metrics``,
``simulate_wof``, ``wof_recompute``; ``--json`` keys in docs/WOF.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from wordplay_audit.cli.output import JSON_OPTION, IntervalSeedOpt, show

app = typer.Typer(
    rich_markup_mode=None,
    help="Wheel of Fortune (LLMike): read the game master's reports, reproduce its metrics, simulate runs.",
    no_args_is_help=True,
    add_completion=False,
)

ReportsArg = Annotated[
    list[Path], typer.Argument(help="Report files or folders (<model>.jsonl or <model>/report.jsonl).")
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
    import wordplay_audit as wa

    log = wa.read_wof(reports, on_error=on_error)
    result = wa.wof_metrics(log, riddles=wa.read_riddles(riddles) if riddles else None)
    show(result, as_json=as_json, write=out)


@app.command("simulate")
def simulate_command(
    out: Annotated[
        Path, typer.Option("--out", help="Folder to write <policy>.jsonl reports and truth.csv into.")
    ],
    riddles: Annotated[
        Path | None,
        typer.Option("--riddles", help="Riddles JSON lines (category, sentence); default: the demo riddles."),
    ] = None,
    policies: Annotated[
        list[str] | None,
        typer.Option(
            "--policy", help="frequent-consonant, random or overconfident (repeat or comma-separate)."
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
    ] = True,  # fmt: skip
    as_json: bool = JSON_OPTION,
) -> None:
    """Play riddles with scripted players; write the game master's report files (seeded)."""
    import wordplay_audit as wa

    chosen = [p.strip() for v in (policies or ["frequent-consonant"]) for p in str(v).split(",") if p.strip()]
    result = wa.simulate_wof(out, policies=chosen, games=games, seed=seed, letter_loss=letter_loss,
                             riddles=wa.read_riddles(riddles) if riddles else None)  # fmt: skip
    show(result, as_json=as_json)


@app.command("recompute")
def recompute_command(
    reports: ReportsArg,
    human: Annotated[
        Path,
        typer.Option(
            "--human", help="People's labels CSV (item_id, rater, rater_type, label) or pull's final.csv."
        ),
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
    seed: IntervalSeedOpt = None,
    on_error: OnErrorOpt = "raise",
    out: Annotated[Path | None, typer.Option("--out", help="Folder for the tables and report.html.")] = None,
    as_json: bool = JSON_OPTION,
) -> None:
    """Audit the exact-match judge against people's labels; win rates replaced and corrected,
    McNemar tests between models under both labelings."""
    import wordplay_audit as wa

    result = wa.wof_recompute(lambda: wa.read_wof(reports, on_error=on_error), lambda: wa.read_labels(human, accept_final=True),
                              design=design, exact_is_true=exact_is_true, confidence=confidence, seed=seed)  # fmt: skip
    show(result, as_json=as_json, write=out, human=str(human))
