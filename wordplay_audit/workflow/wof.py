"""Wheel of Fortune (LLMike) from Python: read the game master's report files, the study's
metrics, the final guesses as contract items, wins recomputed under people's labels (the
exact-match judge audited, win rates corrected with calibrated intervals, McNemar between
models), and simulated runs.

In a notebook::

    import wordplay_audit as wa
    log = wa.read_wof(["runs/gpt-4o.jsonl"])
    wa.wof_recompute(log, wa.read_labels("labels.csv")).to_frame("win_rates")
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np
import pandas as pd

from wordplay_audit.errors import InputError, ParameterError, check_choice, check_level
from wordplay_audit.workflow.items import Items
from wordplay_audit.workflow.results import Result, loaded, plain
from wordplay_audit.workflow.text import counted, frame_lines

__all__ = [
    "SimulatedWof",
    "WofMetricsResult",
    "WofRecompute",
    "read_wof",
    "simulate_wof",
    "wof_items",
    "wof_metrics",
    "wof_recompute",
]

OnError = Literal["raise", "skip"]


def read_wof(reports: str | Path | Sequence[str | Path], *, on_error: OnError = "raise"):
    """Read report files (or folders of them: ``<model>.jsonl`` or ``<model>/report.jsonl``)
    into a :class:`~wordplay_audit.corpora.wof.reader.WofLog` (moves, what was skipped).
    ``on_error="skip"`` leaves a game with a broken line out and counts it."""
    from wordplay_audit.corpora.wof.reader import read_reports

    check_choice("on_error", on_error, ("raise", "skip"))
    paths = [reports] if isinstance(reports, str | Path) else list(reports)
    return read_reports(paths, on_error=on_error)


def _categories(riddles: pd.DataFrame | None) -> dict[str, str] | None:
    if riddles is None:
        return None
    return dict(zip(riddles["sentence"], riddles["category"], strict=True))


MAX_NAMED = 20
"""Unfinished games named in the output (all are counted)."""


def unfinished_games(games: pd.DataFrame, files: dict[str, str]) -> tuple[int, list[dict]]:
    """The number of unfinished games (the run was cut off inside them: neither won nor lost)
    and the first :data:`MAX_NAMED`: item id, model, file and the line each opens on."""
    left = games[~games["finished"]]
    named = [{"item_id": r.item_id, "model": str(r.model), "file": files[str(r.model)], "line": int(r.first_line)}
             for r in left.head(MAX_NAMED).itertuples(index=False)]  # fmt: skip
    return len(left), named


def unfinished_lines(count: int, named: list[dict]) -> list[str]:
    """The unfinished games, counted and named (the first ones; the count is of all)."""
    if not count:
        return []
    games = ", ".join(f"{g['item_id']} ({g['file']} line {g['line']})" for g in named)
    more = f" and {count - len(named)} more" if count > len(named) else ""
    return [
        f"{count} unfinished game{'s' if count != 1 else ''} (not counted as played, won or lost): {games}{more}"
    ]


def read_riddles(path: str | Path) -> pd.DataFrame:
    """Riddles in LLMike's JSON lines (``category``, ``sentence``)."""
    from wordplay_audit.corpora.wof.riddles import read_riddles as read

    return read(path)


def wof_items(log, *, riddles: pd.DataFrame | None = None) -> Items:
    """Each game's final guess as a ``guess`` item (context = the riddle as shown, reference =
    the solution, candidate = the guess; strata ``player_model``, ``category``, ``outcome``) and
    the game master's exact-match verdicts as judge labels (rater ``wof-exact-match``).
    ``riddles`` (:func:`read_riddles`) gives each item its category."""
    from wordplay_audit.corpora.wof.items import guess_items

    items, labels = guess_items(log.moves, categories=_categories(riddles))
    skipped = dict(log.skipped)
    if riddles is not None:  # counted, not silent: these items' category stays empty
        skipped["items_without_category"] = int((items["category"] == "").sum())
    return Items(", ".join(log.files), items, labels, skipped, ("player_model", "category", "outcome"))


@dataclass
class WofMetricsResult(Result):
    """Per model: games, wins, final budget, letters, share of correct letters, completion at a
    win, vowels bought; losses by error; wrong-guess shapes; first-consonant strategy."""

    title = "Wheel of Fortune metrics"
    main_table = "models"

    log: Any
    metrics: Any  # analysis.wof.metrics.WofMetrics
    items: Items | None = None
    _pngs: dict[str, bytes] | None = field(default=None, init=False, repr=False, compare=False)

    def tables(self) -> dict[str, pd.DataFrame]:
        m = self.metrics
        out = {"models": m.models, "errors": m.errors, "first_consonants": m.first_consonants}
        if self.items is not None:
            out.update(items=self.items.items, judge_labels=self.items.labels)
        return out

    def figures(self) -> dict[str, bytes]:
        """The two plots as PNG, drawn once (the files and report.html share them)."""
        from wordplay_audit.analysis.wof.section import wof_figures

        if self._pngs is None:
            self._pngs = wof_figures(self.metrics)
        return self._pngs

    def unfinished(self) -> tuple[int, list[dict]]:
        return unfinished_games(self.metrics.games, self.log.files)

    def skipped(self) -> dict[str, int]:
        return {**self.log.skipped, "unfinished_games": self.unfinished()[0],
                **(self.items.skipped if self.items is not None else {})}  # fmt: skip

    def to_dict(self) -> dict[str, Any]:
        return plain({"reports": self.log.files, "skipped": self.skipped(), "problems": self.log.problems,
                      "unfinished": self.unfinished()[1], **self.metrics.to_dict()})  # fmt: skip

    def summary(self) -> list[str]:
        rows = [
            [
                "model",
                "games",
                "wins",
                "win %",
                "budget",
                "letters",
                "% correct",
                "completion",
                "vowels",
                "unfinished",
            ]
        ]
        for m in self.metrics.models.to_dict(orient="records"):
            rows.append([m["model"], m["games"], m["wins"], round(100 * m["win_rate"], 1), m["final_budget_total"],
                         m["letters_chosen"], round(m["pct_correct_letters"], 1), round(m["completion_at_win"], 1),
                         m["vowels_bought"], m["unfinished"]])  # fmt: skip
        from wordplay_audit.workflow.text import aligned

        lines = aligned(rows)
        lines.append("losses by error (percent of losses):")
        for e in self.metrics.errors.to_dict(orient="records"):
            if e["count"]:
                lines.append(f"  {e['model']}: {e['outcome']} {e['count']} ({e['percent_of_losses']:.1f} %)")
        lines += unfinished_lines(*self.unfinished())
        lines.append(counted(self.skipped()))
        return lines

    def section(self):
        from wordplay_audit.analysis.wof.section import wof_section

        return wof_section(self.metrics, None, title="Wheel of Fortune", skipped=self.skipped(),
                           figures=self.figures())  # fmt: skip

    def write(self, out: str | Path, *, title: str | None = None) -> list[str]:
        """Tables (CSV; ``models`` and ``errors`` also Markdown), items and judge labels, plots
        and ``report.html``."""
        from wordplay_audit.analysis.report import Report
        from wordplay_audit.corpora.io import output_folder
        from wordplay_audit.workflow.files import write_outputs

        report = Report(title or "wordplay-audit: Wheel of Fortune")
        report.add(self.section())
        with output_folder(out, option="out") as stage:
            written = write_outputs(stage, tables=self.tables(), figures=self.figures(), report=report,
                                    markdown=("models", "errors"))  # fmt: skip
        return sorted(str(p) for p in written)


def wof_metrics(log, *, riddles: pd.DataFrame | None = None) -> WofMetricsResult:
    """The study's per-model metrics from the moves of :func:`read_wof`; with ``riddles`` the
    items written beside them get their category."""
    from wordplay_audit.analysis.wof.metrics import wof_metrics as metrics

    return WofMetricsResult(log, metrics(log.moves), wof_items(log, riddles=riddles))


@dataclass
class WofRecompute(Result):
    """The exact-match judge audited against people's labels, win rates replaced and
    corrected (calibrated intervals), McNemar tests between models under both labelings."""

    title = "Wheel of Fortune wins recomputed"
    main_table = "win_rates"

    log: Any
    result: Any  # analysis.wof.recompute.WinRecompute
    skipped: dict[str, int]
    unfinished: list[dict] = field(default_factory=list)

    def tables(self) -> dict[str, pd.DataFrame]:
        return {
            "win_rates": self.result.rates,
            "judge_audit": self.result.audit,
            "mcnemar": self.result.mcnemar,
        }

    def to_dict(self) -> dict[str, Any]:
        return plain({"reports": self.log.files, **self.result.to_dict(), "skipped": self.skipped,
                      "unfinished": self.unfinished})  # fmt: skip

    def summary(self) -> list[str]:
        lines = ["exact-match judge vs people (FNR = share of people's wins the judge calls losses):"]
        audit = self.result.audit
        lines += frame_lines(audit, [c for c in ("player_model", "n_labelled", "tp", "fn", "fp", "tn", "fnr_w",
                                                 "fnr_w_low", "fnr_w_high") if c in audit.columns])  # fmt: skip
        level = round(100 * self.result.confidence)
        lines.append(f"win rates ({level} % intervals, {self.result.design} design):")
        rates = self.result.rates
        lines += frame_lines(rates, [c for c in rates.columns if not c.endswith("_reason")])
        for column in [c for c in rates.columns if c.endswith("_reason")]:
            value = column.removesuffix("_reason")
            for reason, part in rates[rates[column].notna()].groupby(column):
                for shown, models in part.groupby(part[value].notna() if value in part else False):
                    what = f"{value} interval" if shown else value
                    lines.append(f"  {what} not shown for {', '.join(models['model'])}: {reason}")
        from wordplay_audit.analysis.correction import SEED_NOTE

        lines.append("  " + SEED_NOTE.format(seed=self.result.seed))
        lines.append("McNemar tests (paired riddles):")
        lines += frame_lines(self.result.mcnemar, ["model_a", "model_b", "labels", "pairs", "difference",
                                                   "difference_low", "difference_high", "p_value"])  # fmt: skip
        from wordplay_audit.corpora.consensus import ties_note

        lines += unfinished_lines(self.skipped.get("unfinished_games", 0), self.unfinished)
        lines.append(counted(self.skipped))
        lines += [note for note in [ties_note(self.skipped.get("ties", 0))] if note]
        return lines

    def section(self):
        from wordplay_audit.analysis.report import Section
        from wordplay_audit.analysis.wof.section import _recompute_blocks

        return Section(self.title, _recompute_blocks(self.result))


def wof_recompute(
    log,
    human: pd.DataFrame,
    *,
    design: Literal["stratified", "random"] = "stratified",
    exact_is_true: bool = True,
    confidence: float = 0.95,
    seed: int | None = None,
) -> WofRecompute:
    """Audit the exact-match judge against ``human`` (people's true/false labels on the
    ``guess`` items of :func:`wof_items`) and recompute win rates per model. ``log`` and
    ``human`` may be functions returning them (called once the parameters are checked).
    ``seed``: of the randomised intervals and the paired bootstrap; None (default) draws a fresh
    one per run, recorded in the result (``seed`` in ``to_dict()``; give it to reproduce a run)."""
    from wordplay_audit.analysis.correction import randomisation_seed
    from wordplay_audit.analysis.judge_audit import boolean_labels
    from wordplay_audit.analysis.wof.metrics import per_game
    from wordplay_audit.analysis.wof.recompute import recompute_wins
    from wordplay_audit.corpora.consensus import people_rows
    from wordplay_audit.corpora.contract import is_final_labels, place, validate_labels
    from wordplay_audit.corpora.final_labels import validate_final_labels
    from wordplay_audit.corpora.wof.items import guess_items

    check_choice("design", design, ("stratified", "random"))
    check_level(confidence)
    seed = randomisation_seed(seed)
    log, human = loaded(log), loaded(human)
    source = str(human.attrs.get("source") or "human")
    items, judge = guess_items(log.moves)
    final = is_final_labels(human)
    checked = (
        validate_final_labels(human, source=source)
        if final
        else validate_labels(human, items=items, source=source)
    )
    labels = boolean_labels(checked, source=source)
    people, others = people_rows(labels)  # per rater (pull's labels.csv) or final (final.csv)
    if people.empty:
        raise InputError(f"{source}: holds no people's labels (rater_type 'human')")
    twice = people.duplicated(["item_id", "rater"]).to_numpy() if not final else np.zeros(len(people), bool)
    if twice.any():
        pos = int(twice.nonzero()[0][0])
        raise InputError(
            f"{place(people, pos, source)}rater {people['rater'].iloc[pos]!r} rated item "
            f"{people['item_id'].iloc[pos]!r} twice (keep one rating per rater and item)"
        )
    games = per_game(log.moves)
    result = recompute_wins(items, judge, people, design=design, exact_is_true=exact_is_true, confidence=confidence,
                            completion=games.set_index("item_id")["completion"], seed=seed)  # fmt: skip
    count, named = unfinished_games(games, log.files)
    skipped = {**log.skipped, "unfinished_games": count, **result.skipped, "judge_rows_in_human_file": others}
    return WofRecompute(log, result, skipped, named)


@dataclass
class SimulatedWof(Result):
    """Report files of scripted players (one per policy) with the truth of every game."""

    title = "simulated Wheel of Fortune runs"
    main_table = "simulated"

    out: str
    written: dict[str, str]
    simulated: pd.DataFrame
    settings: dict
    truth: pd.DataFrame
    """Per game (``item_id`` of :func:`wof_items`): ``truly_solved`` (the final guess names the
    solution, near misses included), ``exact_match``, ``near_miss``, the solution and guess."""

    def tables(self) -> dict[str, pd.DataFrame]:
        return {"simulated": self.simulated, "truth": self.truth}

    def truth_labels(self, item_ids=None) -> pd.DataFrame:
        """People's labels as careful people would give them (``truly_solved``) on ``item_ids``
        (all games by default): rater ``simulated-person``."""
        truth = (
            self.truth
            if item_ids is None
            else self.truth.set_index("item_id").loc[list(item_ids)].reset_index()
        )
        return pd.DataFrame({"item_id": truth["item_id"], "rater": "simulated-person", "rater_type": "human",
                             "label": truth["truly_solved"].map({True: "true", False: "false"})})  # fmt: skip

    def to_dict(self) -> dict[str, Any]:
        return plain({"out": self.out, **self.settings, "written": self.written, "simulated": self.simulated})

    def summary(self) -> list[str]:
        lines = [f"wrote {self.out}: {', '.join(self.written.values())}"]
        lines += [f"  {s['model']}: exact-match win rate {s['exact_win_rate']:.3f}, true {s['true_win_rate']:.3f}"
                  for s in self.simulated.to_dict(orient="records")]  # fmt: skip
        return lines


def simulate_wof(
    out: str | Path,
    *,
    policies: Sequence[str] = ("frequent-consonant",),
    games: int = 80,
    seed: int = 0,
    riddles: pd.DataFrame | None = None,
    letter_loss: bool = True,
) -> SimulatedWof:
    """Play ``games`` riddles per policy (``frequent-consonant``, ``random``, ``overconfident``)
    and write ``<policy>.jsonl`` report files and ``truth.csv`` into ``out`` (seeded)."""
    from wordplay_audit.corpora.io import output_folder
    from wordplay_audit.corpora.wof.demo_riddles import demo_riddles
    from wordplay_audit.corpora.wof.game import Rules
    from wordplay_audit.corpora.wof.players import POLICIES
    from wordplay_audit.corpora.wof.simulate import simulate_games, truth_table, write_simulation

    if int(games) != games or not 1 <= games <= 10**6:
        raise ParameterError(
            f"games: expected a whole number of games per policy in 1 … 1000000, got {games!r}"
        )
    names = list(dict.fromkeys(policies))
    if not names:
        raise ParameterError(f"policies: give at least one of {', '.join(POLICIES)}")
    for name in names:
        check_choice("policies", name, POLICIES)
    table = riddles if riddles is not None else demo_riddles()
    rules = Rules(letter_loss=letter_loss)
    with output_folder(out, option="out") as stage:
        runs = {p: simulate_games(table, p, n_games=games, seed=seed, rules=rules) for p in names}
        written = write_simulation(stage, runs)
    truth = truth_table([g for run in runs.values() for g in run])
    summary = truth.groupby("player_model")[["exact_match", "truly_solved"]].mean().reset_index()
    summary.columns = ["model", "exact_win_rate", "true_win_rate"]
    settings = {"seed": seed, "games_per_policy": games, "letter_loss": letter_loss,
                "riddles": str(riddles.attrs.get("source", "given")) if riddles is not None else "demo"}  # fmt: skip
    return SimulatedWof(str(out), dict(written), summary, settings, truth)
