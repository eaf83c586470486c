"""``wordplay-audit balderdash …``: the Balderdash study's metrics, recomputed under human labels.

Sub-commands only parse, call :mod:`analysis.balderdash` and print (``--json`` keys are listed in
docs/BALDERDASH.md).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from wordplay_audit.cli.balderdash_plan import plan_command
from wordplay_audit.cli.balderdash_text import (
    CONSTANT_HELP,
    CONVERGENCE_SHOWN,
    METRICS_SHOWN,
    lines_of,
    parse_eps,
    recompute_lines,
    verdict_reasons,
)
from wordplay_audit.cli.output import JSON_OPTION, SeedOpt, emit, records
from wordplay_audit.errors import InputError, ParameterError, check_choice

DESIGNS = ("stratified", "random")  # checked here before the export is read (the library checks again)

if TYPE_CHECKING:
    import pandas as pd

app = typer.Typer(
    rich_markup_mode=None,
    help="Balderdash: read the game database, reproduce and correct its metrics.",
    no_args_is_help=True,
    add_completion=False,
)

ExportArg = Annotated[Path, typer.Argument(help="Folder with games/players/rounds mongoexport files.")]
HumanOpt = Annotated[
    Path | None,
    typer.Option("--human", help="Labels CSV: per rater (pull's labels.csv) or final (pull's final.csv)."),
]
WordsOpt = Annotated[
    list[Path] | None, typer.Option("--words", help="Words CSV file or folder (repeatable).")
]
WEIGHTS_NOTE = (
    "1/π weights enter the PPI (stratified) estimate; Rogan–Gladen's Se/Sp and the judge audit "
    "post-stratify on deck × judge verdict without them (unbiased when π is constant there)"
)
DesignOpt = Annotated[
    str,
    typer.Option("--design", help="How people's sample was drawn: stratified (by judge verdict) or random."),
]


def _load(export: Path, words: list[Path] | None):
    from wordplay_audit.cli.memory import arrow_on_malloc, trim_heap
    from wordplay_audit.corpora.balderdash import player_round_table, read_export

    arrow_on_malloc()
    data = read_export(export, words=words, texts=False)  # no command here shows a definition
    trim_heap()
    return data, player_round_table(data)


def _labels(path: Path | None, obs: pd.DataFrame) -> pd.DataFrame | None:
    if path is None:
        return None

    from wordplay_audit.analysis.balderdash.recompute import known_items
    from wordplay_audit.analysis.judge_audit import boolean_labels
    from wordplay_audit.corpora.consensus import people_rows
    from wordplay_audit.corpora.contract import read_labels

    labels = read_labels(path, accept_final=True)  # per rater (labels.csv) or final (final.csv)
    labels = boolean_labels(labels, source=str(path))
    unknown = ~known_items(obs, labels["item_id"])  # one hashed pass (Series.isin: 14 s at 1M)
    if unknown.any():
        pos = int(unknown.nonzero()[0][0])
        raise InputError(
            f"{path} line {pos + 2}: item_id {labels['item_id'].iloc[pos]!r} names no definition in the export"
        )
    people, others = people_rows(labels)  # the index stays the file's lines (errors name them)
    if people.empty:  # every command that takes --human: "labels given" means human rows exist
        raise InputError(f"{path}: holds no human labels (rater_type 'human')")
    people.attrs["judge_rows_left_out"] = others  # counted in "skipped"
    return people


def _records(frame: pd.DataFrame) -> list[dict]:
    return records(frame)


@app.command("metrics")
def metrics_command(export: ExportArg, words: WordsOpt = None, as_json: bool = JSON_OPTION) -> None:
    """The study's LKR, TDR, DR, CGR and AS per round, game and setting (judge labels)."""
    from wordplay_audit.analysis.balderdash.metrics import balderdash_metrics, complete_games

    data, obs = _load(export, words)
    kept, dropped = complete_games(obs, data.games.set_index("game_id")["number_of_rounds"])
    if kept.empty:
        raise InputError(f"{export}: no complete game (every game lacks some of its rounds)")
    result = balderdash_metrics(kept)
    extra = data.skipped.get("games_with_extra_rounds", 0)  # every such game is left out too
    skipped = {**data.skipped, "incomplete_games_left_out": len(dropped) - extra}
    skipped.update({"games_with_extra_rounds_left_out": extra} if extra else {})
    lines = lines_of(result["settings"], METRICS_SHOWN, "per setting and model:")
    lines.append(f"skipped: {skipped}")
    payload = {"export": str(export), "skipped": skipped}
    if as_json:  # per-round records are built only when they are printed (a million rows at scale)
        payload.update(
            incomplete_games=dropped,
            settings=_records(result["settings"]),
            games=_records(result["games"]),
            rounds=_records(result["rounds"]),
        )
    emit(payload, as_json=as_json, lines=lines)


@app.command("recompute")
def recompute_command(
    export: ExportArg,
    human: Annotated[
        Path,
        typer.Option("--human", help="People's labels: per rater (pull's labels.csv) or final (final.csv)."),
    ],
    words: WordsOpt = None,
    design: DesignOpt = "stratified",
    weights: Annotated[
        Path | None,
        typer.Option("--weights", help="Campaign items.csv with sampling_weight (1/π; adaptive rounds)."),
    ] = None,
    out: Annotated[
        Path | None,
        typer.Option("--out", help="Folder for corrected.csv and report.html (+ the campaign's width plot)."),
    ] = None,
    as_json: bool = JSON_OPTION,
) -> None:
    """Judge audit per model (re-weighted first), corrected LKR/TDR with intervals, and metrics
    under replaced labels (a sensitivity view); --weights: estimates weighted by 1/π."""
    from wordplay_audit.analysis.balderdash.corrected import corrected_rates
    from wordplay_audit.analysis.balderdash.metrics import game_metrics, setting_metrics
    from wordplay_audit.analysis.balderdash.recompute import (
        REPLACED_NOTE,
        recompute_scores,
        replace_labels,
        replaced_rates,
        replaced_round_metrics,
    )
    from wordplay_audit.analysis.balderdash.summary import judge_audit_tables

    check_choice("--design", design, DESIGNS)
    data, obs = _load(export, words)
    labels = _labels(human, obs)
    weighted = _weighted_obs(obs, labels, weights, design)
    audits = judge_audit_tables(obs, labels)
    replaced = replace_labels(obs, labels)
    rescored = recompute_scores(replaced)
    corrected = corrected_rates(weighted, labels, design=design)
    replaced_view = replaced_rates(obs, labels, replaced=replaced)
    status = rescored.drop_duplicates(["game_id", "round_id"])["round_status"].value_counts().to_dict()
    payload = {
        "export": str(export),
        "human": str(human),
        "design": design,
        "weights": str(weights) if weights is not None else None,
        "skipped": {
            **data.skipped,
            **replaced.attrs.get("skipped", {}),
            "knows_undetermined": int(replaced["knows_undetermined"].sum()),
            "judge_rows_in_human_file": labels.attrs["judge_rows_left_out"],
        },
        "consensus": replaced.attrs["consensus"],
        "judge_audit": {q: _records(t) for q, t in audits.items()},
        "corrected": _records(corrected),
        "round_status": status,
        "replaced_note": REPLACED_NOTE,
        "replaced_rates": _records(replaced_view),
    }
    if as_json:  # the text output does not print them
        payload["replaced_settings"] = _records(
            setting_metrics(game_metrics(replaced_round_metrics(rescored)))
        )
    lines = recompute_lines(
        audits, status, corrected, replaced_view, payload["skipped"], payload["consensus"]
    )
    if weights is not None:
        payload["weights_note"] = WEIGHTS_NOTE
        lines.append(f"weights ({weights}): {WEIGHTS_NOTE}")
    if out is not None:
        from wordplay_audit.pipelines.balderdash import write_recompute_outputs

        payload["files"] = write_recompute_outputs(out, corrected, weights)
        lines.append(f"wrote {out}: {', '.join(payload['files'])}")
    emit(payload, as_json=as_json, lines=lines)


def _weighted_obs(obs: pd.DataFrame, labels: pd.DataFrame, weights: Path | None, design: str) -> pd.DataFrame:
    """``obs`` with the campaign's 1/π (``--weights``) as ``sampling_weight``, or as it is."""
    if weights is None:
        return obs
    if design == "random":
        raise ParameterError("--weights: needs --design stratified (an adaptive campaign samples by verdict)")
    from wordplay_audit.pipelines.balderdash import with_sampling_weights

    return with_sampling_weights(obs, labels, weights)


@app.command("convergence")
def convergence_command(
    export: ExportArg,
    human: HumanOpt = None,
    eps: Annotated[
        list[str] | None, typer.Option("--eps", help="ε values (repeat or comma-separate).")
    ] = None,
    window: Annotated[int, typer.Option("--window", help="Last rounds pooled for the bound rule.")] = 5,
    assume_se: Annotated[
        float | None, typer.Option("--assume-se", help="Judge sensitivity to assume (no --human).")
    ] = None,
    assume_sp: Annotated[
        float | None, typer.Option("--assume-sp", help="Judge specificity to assume (no --human).")
    ] = None,
    words: WordsOpt = None,
    design: DesignOpt = "stratified",
    constant: Annotated[bool, typer.Option("--assume-constant-accuracy", help=CONSTANT_HELP)] = False,
    as_json: bool = JSON_OPTION,
) -> None:
    """Convergence of LKR (the study's Eq 6) per ε under judge, replaced and corrected labels."""
    from wordplay_audit.analysis.balderdash.convergence import convergence_table
    from wordplay_audit.analysis.correction import JudgeAccuracy

    check_choice("--design", design, DESIGNS)  # the library says "design"
    if window < 1:  # the library's message says "window"
        raise ParameterError(f"--window: expected a whole number of rounds ≥ 1, got {window}")
    grid = parse_eps(eps)
    assumed = (assume_se, assume_sp)
    if human is not None and assumed != (None, None):  # they were ignored without a word
        raise ParameterError(
            "--assume-se/--assume-sp: used only without --human (with --human the judge's Se and Sp "
            "are estimated from the labels); drop them or --human"
        )
    if None in assumed and assumed != (None, None):
        raise ParameterError("--assume-se/--assume-sp: give both or neither")
    for name, v in (("--assume-se", assume_se), ("--assume-sp", assume_sp)):
        if v is not None and not 0 <= v <= 1:  # also nan
            raise ParameterError(f"{name}: expected a number in [0, 1]; got {v}")
    _, obs = _load(export, words)
    labels = _labels(human, obs)
    accuracy = None
    if assume_se is not None and assume_sp is not None:
        acc = JudgeAccuracy(assume_se, assume_sp, 0.0, 0.0, 0.0, 0, ("assumed",))
        accuracy = {m: acc for m in obs["model"].unique()}
    table = convergence_table(
        obs, labels, eps=grid, window=window, accuracy=accuracy, design=design, constant_accuracy=constant
    )
    payload = {
        "export": str(export),
        "human": str(human) if human else None,
        "eps": list(grid),
        "window": window,
        "assume_constant_accuracy": constant,
        "convergence": _records(table),
    }
    lines = lines_of(
        table, CONVERGENCE_SHOWN, "convergence of LKR (T nan = never; None = cannot tell, see below):"
    )
    lines += verdict_reasons(table)
    emit(payload, as_json=as_json, lines=lines)


@app.command("trend")
def trend_command(
    export: ExportArg, human: HumanOpt = None, words: WordsOpt = None, as_json: bool = JSON_OPTION
) -> None:
    """Trend tests of LKR and TDR over rounds: judge labels (adjusted for the judge's errors with
    --human), replaced labels with --human, and the judge drift check."""
    from wordplay_audit.analysis.balderdash.summary import trend_analysis

    _, obs = _load(export, words)
    labels = _labels(human, obs)
    result = trend_analysis(obs, labels)
    table = result.table
    payload: dict = {"export": str(export), "human": str(human) if human else None, **result.to_dict()}
    shown = [
        c
        for c in (
            "labels",
            "outcome",
            "model",
            "history_type",
            "games",
            "slope",
            "gee_p_t",
            "gee_ci_low",
            "gee_ci_high",
            "twostage_p",
            "adj_slope",
            "adj_p",
            "note",
        )
        if c in table.columns
    ]
    lines = [
        "trend over rounds (slope per first-to-last round, logit scale; p from t with G-1 df):",
        table[shown].to_string(index=False),
    ]
    from wordplay_audit.analysis.balderdash.drift import drift_text

    lines += [f"judge drift ({outcome}): {drift_text(drift)}" for outcome, drift in result.drift.items()]
    emit(payload, as_json=as_json, lines=lines)


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
    from wordplay_audit.corpora.balderdash import (
        DEFAULT_MODELS,
        SimConfig,
        simulate_campaign,
        true_rates,
    )
    from wordplay_audit.corpora.balderdash.writer import write_campaign
    from wordplay_audit.corpora.io import output_folder
    from wordplay_audit.corpora.values import check_number

    check_choice("--design", design, DESIGNS)  # the library says "design"
    for name, value in (
        ("--judge-se", judge_se),
        ("--judge-sp", judge_sp),
        ("--rater-accuracy", rater_accuracy),
    ):
        check_number(value, name, low=0.0, high=1.0, error=ParameterError)
    config = SimConfig(
        games_per_deck=games_per_deck,
        n_rounds=rounds,
        players_per_model=players_per_model,
        labels_per_stratum=labels_per_stratum,
        design=design,
        rater_accuracy=rater_accuracy,
        judge_se={m: judge_se for m in DEFAULT_MODELS},
        judge_sp={m: judge_sp for m in DEFAULT_MODELS},
    )
    campaign = simulate_campaign(config, seed=seed)
    with output_folder(out) as staging:
        write_campaign(campaign, staging)
    payload = {
        "out": str(out),
        "seed": seed,
        "n_definitions": len(campaign.obs),
        "n_labels": len(campaign.labels),
        "true_rates": _records(true_rates(campaign)),
    }
    emit(
        payload,
        as_json=as_json,
        lines=[f"wrote {out} ({len(campaign.obs)} definitions, {len(campaign.labels)} labels)"],
    )


app.command("plan")(plan_command)


@app.command("items")
def items_command(
    export: ExportArg,
    out: Annotated[Path, typer.Option("--out", help="Folder for items.csv and labels.csv (judge verdicts).")],
    words: WordsOpt = None,
    as_json: bool = JSON_OPTION,
) -> None:
    """The export's definitions as contract items (with strata) and the judge's verdicts as labels."""
    from wordplay_audit.corpora.balderdash_items import balderdash_items, write_balderdash_items
    from wordplay_audit.corpora.io import output_folder

    items, labels, skipped = balderdash_items(export, words=words)
    with output_folder(out) as staging:
        files = write_balderdash_items(staging, items, labels)
    strata = [
        c
        for c in ("player_model", "deck", "round_id", "judge_verdict", "frequency_band")
        if c in items.columns
    ]
    payload = {
        "export": str(export),
        "out": str(out),
        "files": files,
        "n_items": len(items),
        "n_judge_labels": len(labels),
        "strata": strata,
        "skipped": skipped,
    }
    emit(
        payload,
        as_json=as_json,
        lines=[f"wrote {out}: {len(items)} definition items, {len(labels)} judge labels"],
    )
