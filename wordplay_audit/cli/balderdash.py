"""``wordplay-audit balderdash …``: the Balderdash study's metrics, recomputed under human labels.

Each command parses its options, makes one call of the public API (:mod:`wordplay_audit`:
``read_balderdash`` and one ``balderdash_*`` function) and prints the result (``--json`` keys
in docs/BALDERDASH.md).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from wordplay_audit.cli.balderdash_known import known_command, known_items_command
from wordplay_audit.cli.balderdash_plan import plan_command
from wordplay_audit.cli.output import JSON_OPTION, IntervalSeedOpt, SeedOpt, numbers, show

app = typer.Typer(
    rich_markup_mode=None,
    help="Balderdash: read the game database, reproduce and correct its metrics.",
    no_args_is_help=True,
    add_completion=False,
)

ExportArg = Annotated[Path, typer.Argument(help="Folder with games/players/rounds mongoexport files.")]
HumanOpt = Annotated[
    Path | None, typer.Option("--human", help="Labels CSV (item_id, rater, rater_type, label, question).")
]
WordsOpt = Annotated[
    list[Path] | None, typer.Option("--words", help="Words CSV file or folder (repeatable).")
]
DesignOpt = Annotated[
    str,
    typer.Option("--design", help="How people's sample was drawn: stratified (by judge verdict) or random."),
]
OutOpt = Annotated[Path | None, typer.Option("--out", help="Folder for the tables, plots and report.html.")]
CONSTANT_HELP = (
    "Let a round or window without 5 own labels per post-stratum borrow its deck's judge Se/Sp "
    "(assumes the judge as accurate in every round; else it has no corrected value)."
)
ConstantOpt = Annotated[bool, typer.Option("--assume-constant-accuracy", help=CONSTANT_HELP)]
EpsOpt = Annotated[list[str] | None, typer.Option("--eps", help="ε values (repeat or comma-separate).")]


def _read(export: Path, words: list[Path] | None, human: Path | None = None, *, texts: bool = False):
    """The export (without the definitions' texts unless ``texts``: no command but ``items``
    shows one) and people's labels, read with this process's memory settings (cli.memory)."""
    import wordplay_audit as wa
    from wordplay_audit.cli.memory import arrow_on_malloc, trim_heap

    arrow_on_malloc()
    data = wa.read_balderdash(export, words=words, texts=texts)
    trim_heap()
    return data, (wa.read_labels(human, accept_final=True) if human is not None else None)


@app.command("metrics")
def metrics_command(
    export: ExportArg, words: WordsOpt = None, out: OutOpt = None, as_json: bool = JSON_OPTION
) -> None:
    """The study's LKR, TDR, DR, CGR and AS per round, game and setting (judge labels)."""
    import wordplay_audit as wa

    show(wa.balderdash_metrics(_read(export, words)[0]), as_json=as_json, write=out)


@app.command("recompute")
def recompute_command(
    export: ExportArg,
    human: Annotated[Path, typer.Option("--human", help="Labels CSV from people (or pull's final.csv).")],
    words: WordsOpt = None,
    design: DesignOpt = "stratified",
    weights: Annotated[
        Path | None,
        typer.Option("--weights", help="Campaign items.csv with sampling_weight (1/π; adaptive rounds)."),
    ] = None,
    truth: Annotated[
        str,
        typer.Option("--truth", help="consensus (people's settled label) or latent (rater error carried)."),
    ] = "consensus",
    seed: IntervalSeedOpt = None,
    out: OutOpt = None,
    as_json: bool = JSON_OPTION,
) -> None:
    """Judge audit per model (re-weighted first), corrected LKR/TDR with intervals, and metrics
    under replaced labels (a sensitivity view); --weights: estimates weighted by 1/π."""
    import wordplay_audit as wa

    data, labels = _read(export, words, human)
    table = wa.read_table(weights) if weights is not None else None
    result = wa.balderdash_recompute(data, labels, design=design, weights=table, truth=truth, seed=seed)
    show(result, as_json=as_json, write=out, human=str(human), weights=str(weights) if weights else None)


@app.command("convergence")
def convergence_command(
    export: ExportArg,
    human: HumanOpt = None,
    eps: EpsOpt = None,
    window: Annotated[int, typer.Option("--window", help="Last rounds pooled for the bound rule.")] = 5,
    assume_se: Annotated[
        float | None, typer.Option("--assume-se", help="Judge sensitivity to assume (no --human).")
    ] = None,
    assume_sp: Annotated[
        float | None, typer.Option("--assume-sp", help="Judge specificity to assume (no --human).")
    ] = None,
    words: WordsOpt = None,
    design: DesignOpt = "stratified",
    assume_constant_accuracy: ConstantOpt = False,
    out: OutOpt = None,
    as_json: bool = JSON_OPTION,
) -> None:
    """Convergence of LKR (the study's Eq 6) per ε under judge, replaced and corrected labels."""
    import wordplay_audit as wa

    grid = numbers(eps, "eps")
    labels = wa.read_labels(human, accept_final=True) if human is not None else None
    result = wa.balderdash_convergence(
        lambda: _read(export, words)[0], labels, eps=grid, window=window, assume_se=assume_se, assume_sp=assume_sp, design=design,
        assume_constant_accuracy=assume_constant_accuracy,
    )  # fmt: skip
    show(result, as_json=as_json, write=out, human=str(human) if human else None)


@app.command("trend")
def trend_command(
    export: ExportArg,
    human: HumanOpt = None,
    words: WordsOpt = None,
    out: OutOpt = None,
    as_json: bool = JSON_OPTION,
) -> None:
    """Trend tests of LKR and TDR over rounds: judge labels (adjusted for the judge's errors with
    --human), replaced labels with --human, and the judge drift check."""
    import wordplay_audit as wa

    data, labels = _read(export, words, human)
    show(wa.balderdash_trend(data, labels), as_json=as_json, write=out, human=str(human) if human else None)


@app.command("report")
def report_command(
    export: ExportArg,
    out: Annotated[Path, typer.Option("--out", help="Folder for report.html and its tables.")],
    human: HumanOpt = None,
    eps: EpsOpt = None,
    words: WordsOpt = None,
    design: DesignOpt = "stratified",
    assume_constant_accuracy: ConstantOpt = False,
    seed: SeedOpt = 0,
    as_json: bool = JSON_OPTION,
) -> None:
    """The full Balderdash report of an export (metrics, judge audit, corrected rates per deck
    and per round, convergence, trend tests), as the demo writes it."""
    import wordplay_audit as wa

    grid = numbers(eps, "eps")
    data, labels = _read(export, words, human)
    result = wa.balderdash_report(data, labels, eps=grid, design=design, seed=seed,
                                  assume_constant_accuracy=assume_constant_accuracy)  # fmt: skip
    show(result, as_json=as_json, write=out)


@app.command("simulate")
def simulate_command(
    out: Annotated[Path, typer.Option("--out", help="Folder to write the export, labels and truth into.")],
    seed: SeedOpt = 0,
    games_per_deck: Annotated[int, typer.Option("--games-per-deck", min=1, max=10_000)] = 3,
    rounds: Annotated[int, typer.Option("--rounds", min=2, max=1_000)] = 20,
    players_per_model: Annotated[int, typer.Option("--players-per-model", min=1, max=100)] = 2,
    labels_per_stratum: Annotated[int, typer.Option("--labels-per-stratum", min=0, max=10**6)] = 25,
    judge_se: Annotated[float, typer.Option("--judge-se", help="Judge sensitivity for every model.")] = 0.74,
    judge_sp: Annotated[float, typer.Option("--judge-sp", help="Judge specificity for every model.")] = 0.97,
    rater_accuracy: Annotated[float, typer.Option("--rater-accuracy")] = 1.0,
    design: DesignOpt = "stratified",
    as_json: bool = JSON_OPTION,
) -> None:
    """Write a simulated campaign with ground truth (seeded, deterministic)."""
    import wordplay_audit as wa

    result = wa.simulate_balderdash(
        out, seed=seed, games_per_deck=games_per_deck, rounds=rounds, players_per_model=players_per_model,
        labels_per_stratum=labels_per_stratum, judge_se=judge_se, judge_sp=judge_sp,
        rater_accuracy=rater_accuracy, design=design,
    )  # fmt: skip
    show(result, as_json=as_json)


app.command("plan")(plan_command)


@app.command("items")
def items_command(
    export: ExportArg,
    out: Annotated[Path, typer.Option("--out", help="Folder for items.csv and labels.csv (judge verdicts).")],
    words: WordsOpt = None,
    as_json: bool = JSON_OPTION,
) -> None:
    """The export's definitions as contract items (with strata) and the judge's verdicts as labels."""
    import wordplay_audit as wa

    result = wa.balderdash_items(_read(export, words, texts=True)[0])
    show(result, as_json=as_json, write=out, export=str(export))


MetricOpt = Annotated[str, typer.Option("--metric", help="tdr (true definitions) or lkr (known words).")]
LabelsOpt = Annotated[Path, typer.Option("--human", help="Labels CSV from people (or pull's final.csv).")]


@app.command("compare")
def compare_command(
    export: ExportArg,
    human: LabelsOpt,
    by: Annotated[
        str, typer.Option("--by", help="correct_definition_points, history_type, deck or filter_words.")
    ],
    metric: MetricOpt = "tdr",
    margin: Annotated[
        float, typer.Option("--margin", help="Largest difference a verdict calls no difference.")
    ] = 0.10,
    words: WordsOpt = None,
    seed: SeedOpt = 0,
    out: OutOpt = None,
    as_json: bool = JSON_OPTION,
) -> None:
    """Per model, the corrected rate in each level of a setting and the difference between
    levels with its interval, Holm-adjusted test and verdict, beside the judge's difference."""
    import wordplay_audit as wa

    data, labels = _read(export, words, human)
    result = wa.balderdash_compare(data, labels, by=by, metric=metric, margin=margin, seed=seed)
    show(result, as_json=as_json, write=out, human=str(human))


@app.command("self-preference")
def self_preference_command(
    export: ExportArg,
    human: LabelsOpt,
    judge_model: Annotated[
        str | None,
        typer.Option(
            "--judge-model", help="The player model that is the judge's (default: the export's judge)."
        ),
    ] = None,
    metric: MetricOpt = "tdr",
    words: WordsOpt = None,
    seed: SeedOpt = 0,
    out: OutOpt = None,
    as_json: bool = JSON_OPTION,
) -> None:
    """The judge's sensitivity and specificity on its own model's definitions against the other
    players', with the difference and its interval."""
    import wordplay_audit as wa

    data, labels = _read(export, words, human)
    result = wa.balderdash_self_preference(data, labels, judge_model=judge_model, metric=metric, seed=seed)
    show(result, as_json=as_json, write=out, human=str(human))


@app.command("rankings")
def rankings_command(
    export: ExportArg,
    human: LabelsOpt,
    by: Annotated[str | None, typer.Option("--by", help="Rank within each level of this setting.")] = None,
    metric: MetricOpt = "tdr",
    words: WordsOpt = None,
    seed: SeedOpt = 0,
    out: OutOpt = None,
    as_json: bool = JSON_OPTION,
) -> None:
    """The models ordered by corrected rate, with the probability of each rank and the models
    that could be first."""
    import wordplay_audit as wa

    data, labels = _read(export, words, human)
    result = wa.balderdash_rankings(data, labels, by=by, metric=metric, seed=seed)
    show(result, as_json=as_json, write=out, human=str(human))


@app.command("claims")
def claims_command(
    export: ExportArg,
    human: LabelsOpt,
    judge_model: Annotated[
        str | None,
        typer.Option("--judge-model", help="The player model that is the judge's (self-preference)."),
    ] = None,
    eps: Annotated[float, typer.Option("--eps", help="ε at which convergence is read.")] = 0.05,
    words: WordsOpt = None,
    seed: SeedOpt = 0,
    out: OutOpt = None,
    as_json: bool = JSON_OPTION,
) -> None:
    """The study's claims under people's labels: settings compared, convergence, trends, the
    leaderboard order and self-preference, each judge-based and corrected, with a verdict."""
    import wordplay_audit as wa

    data, labels = _read(export, words, human)
    result = wa.balderdash_claims_of(data, labels, judge_model=judge_model, eps=eps, seed=seed)
    show(result, as_json=as_json, write=out, human=str(human))


app.command("known-items")(known_items_command)
app.command("known")(known_command)
