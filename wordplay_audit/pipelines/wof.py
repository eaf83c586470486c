"""Wheel of Fortune (LLMike) pipelines: report files → metrics (+ items, plots); simulated runs.

Composition only: reading and writing the game's files is :mod:`wordplay_audit.corpora.wof`,
statistics :mod:`wordplay_audit.analysis.wof`; output folders go through
:func:`wordplay_audit.corpora.io.output_folder`.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from wordplay_audit.analysis.report import Section, figure_png
from wordplay_audit.analysis.wof.metrics import per_game, wof_metrics
from wordplay_audit.analysis.wof.plots import first_consonant_figure, outcome_figure
from wordplay_audit.corpora.contract import place
from wordplay_audit.corpora.io import output_folder
from wordplay_audit.corpora.wof.demo_riddles import demo_riddles
from wordplay_audit.corpora.wof.game import Rules
from wordplay_audit.corpora.wof.items import guess_items
from wordplay_audit.corpora.wof.players import POLICIES
from wordplay_audit.corpora.wof.reader import read_reports
from wordplay_audit.corpora.wof.riddles import read_riddles
from wordplay_audit.corpora.wof.simulate import simulate_games, truth_table, write_simulation
from wordplay_audit.errors import InputError, check_choice
from wordplay_audit.pipelines.outputs import write_outputs

MAX_NAMED = 20
"""Unfinished games named in the output (all are counted)."""


def unfinished_payload(games, files: dict[str, str]) -> tuple[int, list[dict]]:
    """The number of unfinished games in ``games`` (a :func:`~wordplay_audit.corpora.wof.items.game_table`
    frame) and the first :data:`MAX_NAMED` of them: item id, model, file and the line they open on."""
    left = games[~games["finished"]]
    named = [
        {
            "item_id": row.item_id,
            "model": str(row.model),
            "file": files[str(row.model)],
            "line": int(row.first_line),
        }
        for row in left.head(MAX_NAMED).itertuples(index=False)
    ]
    return len(left), named


def metrics_run(
    reports: Sequence[str | Path],
    *,
    on_error: str = "raise",
    riddles: str | Path | None = None,
    out: str | Path | None = None,
) -> dict:
    """Read the reports, compute the metrics; with ``out`` write tables, items and plots.

    Returns the ``--json`` payload: the metrics, what the reader skipped and what was written.
    """
    log = read_reports(list(reports), on_error=on_error)
    result = wof_metrics(log.moves)
    n_unfinished, unfinished = unfinished_payload(result.games, log.files)
    skipped = {**log.skipped, "unfinished_games": n_unfinished}
    payload = {
        "reports": log.files,
        "skipped": skipped,
        "problems": log.problems,
        "unfinished": unfinished,
        **result.to_dict(),
    }
    if out is not None:
        categories = None
        if riddles is not None:
            table = read_riddles(riddles)
            categories = dict(zip(table["sentence"], table["category"], strict=True))
        items, labels = guess_items(log.moves, categories=categories)
        if categories is not None:  # counted, not silent: these items' category stays empty
            payload["skipped"] = {
                **skipped,
                "items_without_category": int((items["category"] == "").sum()),
            }
        tables = {
            "models": result.models,
            "errors": result.errors,
            "first_consonants": result.first_consonants,
            "items": items,
            "judge_labels": labels,
        }
        figures = {
            "outcomes": figure_png(outcome_figure(result)),
            "first_consonants": figure_png(first_consonant_figure(result)),
        }
        with output_folder(out) as stage:
            written = write_outputs(stage, tables=tables, figures=figures, markdown=("models", "errors"))
        payload["out"] = str(out)
        payload["written"] = sorted(str(p) for p in written)
    return payload


def parse_policies(values: Sequence[str] | None) -> list[str]:
    """``--policy`` values (repeated or comma-separated), each one of the known policies."""
    names = [p.strip() for v in (values or ["frequent-consonant"]) for p in str(v).split(",") if p.strip()]
    for name in names:
        check_choice("--policy", name, POLICIES)
    return list(dict.fromkeys(names))


def simulate_run(
    out: str | Path,
    *,
    policies: Sequence[str],
    games: int,
    seed: int,
    riddles: str | Path | None = None,
    letter_loss: bool = True,
) -> dict:
    """Play ``games`` riddles per policy and write ``<policy>.jsonl`` + ``truth.csv`` to ``out``."""
    table = read_riddles(riddles) if riddles is not None else demo_riddles()
    rules = Rules(letter_loss=letter_loss)
    with output_folder(out) as stage:
        runs = {p: simulate_games(table, p, n_games=games, seed=seed, rules=rules) for p in policies}
        written = write_simulation(stage, runs)
    truth = truth_table([g for run in runs.values() for g in run])
    summary = truth.groupby("player_model")[["exact_match", "truly_solved"]].mean().reset_index()
    summary.columns = ["model", "exact_win_rate", "true_win_rate"]
    return {
        "out": str(out),
        "riddles": str(riddles) if riddles is not None else "demo",
        "seed": seed,
        "games_per_policy": games,
        "letter_loss": letter_loss,
        "written": written,
        "simulated": summary.to_dict(orient="records"),
    }


def recompute_run(
    reports: Sequence[str | Path],
    *,
    human: str | Path,
    design: str = "stratified",
    exact_is_true: bool = True,
    confidence: float = 0.95,
    on_error: str = "raise",
) -> dict:
    """Read the reports and people's labels; audit the exact-match judge, recompute wins."""
    from wordplay_audit.analysis.judge_audit import boolean_labels
    from wordplay_audit.analysis.wof.recompute import recompute_wins
    from wordplay_audit.corpora.consensus import people_rows
    from wordplay_audit.corpora.contract import is_final_labels, read_labels

    log = read_reports(list(reports), on_error=on_error)
    items, judge = guess_items(log.moves)
    labels = boolean_labels(read_labels(human, items=items, accept_final=True), source=str(human))
    people, others = people_rows(labels)  # per rater (labels.csv) or final (final.csv)
    if people.empty:
        raise InputError(f"{human}: holds no people's labels (rater_type 'human')")
    if not is_final_labels(people):
        _one_rating_each(people, str(human))
    games = per_game(log.moves)
    n_unfinished, unfinished = unfinished_payload(games, log.files)
    result = recompute_wins(
        items, judge, people, design=design, exact_is_true=exact_is_true, confidence=confidence,
        completion=games.set_index("item_id")["completion"],
    )  # fmt: skip
    skipped = {
        **log.skipped,
        "unfinished_games": n_unfinished,
        **result.skipped,
        "judge_rows_in_human_file": others,
    }
    return {
        "reports": log.files,
        "human": str(human),
        **result.to_dict(),
        "skipped": skipped,
        "unfinished": unfinished,
    }


def _one_rating_each(people, source: str) -> None:
    """InputError at the file line of a rater's second rating of one item (checked here, while
    the rows still carry their file lines: the statistics see a joined table)."""
    twice = people.duplicated(["item_id", "rater"]).to_numpy()
    if twice.any():
        pos = int(twice.nonzero()[0][0])
        raise InputError(
            f"{place(people, pos, source)}rater {people['rater'].iloc[pos]!r} rated item "
            f"{people['item_id'].iloc[pos]!r} twice (keep one rating per rater and item)"
        )


def run_demo_part(folder: str | Path, *, seed: int = 0, games: int = 48) -> tuple[dict, Section]:
    """The demo's Wheel of Fortune part: the demo riddles played by the three policies, written
    as report files into ``folder`` (a folder inside the demo's staging folder), read back,
    measured; scripted people (the simulation's truth) label half of the lost games; the
    exact-match judge audited and wins recomputed. Returns a JSON-ready summary and the section."""
    import numpy as np
    import pandas as pd

    from wordplay_audit.analysis.wof.recompute import recompute_wins
    from wordplay_audit.analysis.wof.section import wof_section

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    runs = {p: simulate_games(demo_riddles(), p, n_games=games, seed=seed) for p in POLICIES}
    write_simulation(folder, runs)
    log = read_reports([folder / f"{p}.jsonl" for p in POLICIES])
    metrics = wof_metrics(log.moves)
    items, judge = guess_items(
        log.moves, categories=dict(demo_riddles()[["sentence", "category"]].to_numpy())
    )
    truth = pd.read_csv(folder / "truth.csv", keep_default_na=False).set_index("item_id")
    lost = items[items["outcome"] != "win"].sample(frac=0.5, random_state=seed)
    people = pd.DataFrame(
        {
            "item_id": lost["item_id"],
            "rater": "demo-person",
            "rater_type": "human",
            "label": np.where(truth.loc[lost["item_id"], "truly_solved"], "true", "false"),
        }
    )
    people.to_csv(folder / "labels.csv", index=False)
    result = recompute_wins(items, judge, people, completion=metrics.games.set_index("item_id")["completion"])
    section = wof_section(
        metrics, result, title="Wheel of Fortune (simulated LLMike runs)", skipped=log.skipped
    )
    rates = result.rates.set_index("model")
    summary = {
        "reports": str(folder),
        "games": int(len(items)),
        "n_human_labels": int(len(people)),
        "exact_win_rate": rates["judge"].to_dict(),
        "corrected_win_rate": rates["corrected"].to_dict(),
        "true_win_rate": truth.groupby("player_model")["truly_solved"].mean().to_dict(),
    }
    return summary, section
