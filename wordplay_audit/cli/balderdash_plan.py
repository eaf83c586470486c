"""``wordplay-audit balderdash plan``: human labels for chosen interval widths, the trend test's
power, and with ``--adaptive`` the labels an adaptive campaign saves and uncertainty sampling needs (seeded
simulation).

Registered on the ``balderdash`` group by :mod:`wordplay_audit.cli.balderdash`.
"""

from __future__ import annotations

from typing import Annotated

import typer

from wordplay_audit.cli.output import JSON_OPTION, SeedOpt, numbers, show

ModelList = Annotated[
    str | None,
    typer.Option(help="With --adaptive: one value per model, comma-separated (default: the scalar option)."),
]


def plan_command(
    fnr: Annotated[float, typer.Option("--fnr", help="Expected judge false-negative rate.")] = 0.26,
    fnr_halfwidth: Annotated[float, typer.Option("--fnr-halfwidth")] = 0.05,
    true_share: Annotated[
        float, typer.Option("--true-share", help="Share of labelled definitions people call true.")
    ] = 0.5,
    rate: Annotated[float, typer.Option("--rate", help="Expected true LKR or TDR.")] = 0.5,
    rate_halfwidth: Annotated[float, typer.Option("--rate-halfwidth")] = 0.05,
    se: Annotated[float, typer.Option("--se", help="Expected judge sensitivity.")] = 0.74,
    sp: Annotated[float, typer.Option("--sp", help="Expected judge specificity.")] = 0.97,
    items: Annotated[float, typer.Option("--items", help="Definitions per model (inf = many).")] = float(
        "inf"
    ),
    trend_slope: Annotated[
        float, typer.Option("--trend-slope", help="Log-odds change of LKR from first to last round.")
    ] = 1.0,
    games: Annotated[int, typer.Option("--games", help="Games per model and setting.")] = 5,
    rounds: Annotated[int, typer.Option("--rounds", help="Rounds per game.")] = 20,
    players: Annotated[int, typer.Option("--players", help="Players of the model per game.")] = 3,
    confidence: Annotated[float, typer.Option("--confidence")] = 0.95,
    adaptive: Annotated[
        bool,
        typer.Option(
            "--adaptive",
            help="Simulate labels needed and coverage under proportional, equal, adaptive allocation and uncertainty sampling.",
        ),
    ] = False,
    models: Annotated[
        int | None, typer.Option("--models", min=1, max=50, help="With --adaptive: number of models (4).")
    ] = None,
    decks: Annotated[
        int, typer.Option("--decks", min=1, max=20, help="With --adaptive: decks per model.")
    ] = 1,
    model_rate: ModelList = None,
    model_se: ModelList = None,
    model_sp: ModelList = None,
    campaigns: Annotated[
        int, typer.Option("--campaigns", min=2, max=10_000, help="With --adaptive: simulated campaigns.")
    ] = 20,
    batch: Annotated[
        int, typer.Option("--batch", min=1, max=10_000, help="With --adaptive: labels per round.")
    ] = 20,
    seed: SeedOpt = 0,
    as_json: bool = JSON_OPTION,
) -> None:
    """Human labels per model for a chosen interval width on FNR and on corrected rates, and the
    trend test's power for a slope, games and rounds (seeded simulation, 2000 replications);
    with --adaptive, the labels an adaptive campaign and uncertainty sampling need against fixed allocations."""
    import wordplay_audit as wa

    per_model = {name: numbers(value, name) for name, value in
                 (("model_rate", model_rate), ("model_se", model_se), ("model_sp", model_sp))}  # fmt: skip
    result = wa.plan_labels(
        fnr=fnr, fnr_halfwidth=fnr_halfwidth, true_share=true_share, rate=rate, rate_halfwidth=rate_halfwidth,
        se=se, sp=sp, items=items, trend_slope=trend_slope, games=games, rounds=rounds, players=players,
        confidence=confidence, adaptive=adaptive, models=models, decks=decks, campaigns=campaigns, batch=batch,
        seed=seed, **per_model,
    )  # fmt: skip
    show(result, as_json=as_json)
