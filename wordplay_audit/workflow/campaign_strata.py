"""What ``annotate next`` and ``annotate status`` share: a campaign's population with its strata,
people's final labels, the counts per stratum and the targets of the allocation.

The population is the items table the campaign was planned from (``items``, or the one its
manifest records: the planned file, or ``population.csv`` in the campaign folder when the plan
was drawn from a table built in memory). Strata are the ``by`` columns × ``judge_verdict``
(:func:`wordplay_audit.corpora.sampling.stratum_keys`); per stratum N_h, the items drawn so far
d_h (every earlier round) and, per question q, the labelled ones n_q and the human-true x_q
among them (people's final labels on the metric's question: the kind's first, e.g.
``reference``; ``any_sense`` for ``lkr``).

One target per ``by`` group and metric: ``tdr`` = share human-true (linear, Σ W_h q_h), ``lkr``
= the same on ``any_sense`` (definitions only), ``fnr`` = share the judge called false among the
human-true (a ratio, delta method); see :mod:`wordplay_audit.analysis.allocation`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from wordplay_audit.errors import InputError, ParameterError, check_choice, expect_file

METRICS = ("tdr", "fnr", "lkr")
OBJECTIVES = ("max", "sum")
SAMPLINGS = ("adaptive", "uncertainty")
"""How a round draws: the strata ``by`` × verdict with the adaptive allocation, or the judge's
uncertainty strata (:mod:`~wordplay_audit.workflow.campaign_uncertainty`)."""
LKR_QUESTION = "any_sense"
VERDICT = "judge_verdict"
JUDGE_COLUMNS = {"any_sense": "judge_knows"}
"""The population's column of the judge's verdict on a question other than the first
(``judge_verdict``): Balderdash items carry the judge's any_sense decision as ``judge_knows``."""
POPULATION_FILE = "population.csv"
"""The population's copy in the campaign folder when the plan was drawn from a table in memory."""


@dataclass(frozen=True)
class NextSpec:
    """The settings of a round (``annotate next``) or of the status's predictions: ``labels``
    people's final labels (a table, or pull's ``final.csv``), ``items`` the population (a table,
    a path, or None: the campaign's)."""

    budget: int
    labels: pd.DataFrame | str | Path
    targets: tuple[str, ...] = ("tdr",)
    by: tuple[str, ...] = ("player_model",)
    seed: int = 0
    objective: str = "max"
    confidence: float = 0.95
    items: pd.DataFrame | str | Path | None = None
    sampling: str = "adaptive"
    bands: int | None = None
    overlap_share: dict | None = None  # this round's; None: the campaign's (manifest design)

    def check(self) -> None:
        """ParameterError naming the parameter for a setting outside its range."""
        if not self.targets:
            raise ParameterError("targets: give at least one of tdr, fnr, lkr")
        for metric in self.targets:
            check_choice("targets", metric, METRICS)
        if len(set(self.targets)) < len(self.targets):
            raise ParameterError(f"targets: names a metric twice ({', '.join(self.targets)})")
        for column in self.by:
            if not isinstance(column, str) or not column.strip():
                raise ParameterError(f"by: expected column names, got {column!r} among {list(self.by)}")
        check_choice("objective", self.objective, OBJECTIVES)
        ok = isinstance(self.confidence, int | float) and 0 < float(self.confidence) < 1
        if not ok:  # also nan
            raise ParameterError(
                f"confidence: expected a level strictly between 0 and 1, got {self.confidence!r}"
            )
        if isinstance(self.seed, bool) or not isinstance(self.seed, int | np.integer) or self.seed < 0:
            raise ParameterError(f"seed: expected a whole number ≥ 0, got {self.seed!r}")
        check_choice("sampling", self.sampling, SAMPLINGS)
        bands = self.bands
        if bands is not None and (
            isinstance(bands, bool) or not isinstance(bands, int | np.integer) or bands < 1
        ):
            raise ParameterError(
                f"bands: expected a whole number ≥ 1 (score bands per cell × verdict), got {bands!r}"
            )


def labels_source(labels: pd.DataFrame | str | Path) -> str:
    """How messages and the round's record name the labels: their file, else ``labels``."""
    if isinstance(labels, str | Path):
        return str(labels)
    return str(labels.attrs.get("source") or "labels")


def final_labels(labels: pd.DataFrame | str | Path) -> pd.DataFrame:
    """People's labels as a table: ``labels`` itself, or the file read — pull's ``final.csv``
    (final labels) or its per-rater ``labels.csv`` (settled by the one consensus in
    :func:`human_labels`); UTF-8 with or without BOM, NFC, the file's lines kept for messages.
    The one place ``next`` and ``status`` read them."""
    from wordplay_audit.corpora.contract import read_labels

    if isinstance(labels, str | Path):
        labels = read_labels(expect_file(labels, "pull's final.csv (labels)"), accept_final=True)
    if isinstance(labels, pd.DataFrame):
        if "label" in labels.columns and labels["label"].isna().any():  # pandas' empty: unresolved
            out = labels.assign(label=labels["label"].astype(object).where(labels["label"].notna(), ""))
            out.attrs = dict(labels.attrs)
            return out
        return labels
    raise ParameterError(
        f"labels: expected pull's final labels (a table, or the path of final.csv); got {type(labels).__name__}"
    )


def metric_question(kind: str, metric: str) -> str:
    """The question whose human answers a metric's strata shares count: ``lkr`` → ``any_sense``
    (the player knows a sense of the word), ``tdr`` and ``fnr`` → the kind's first question.

    >>> metric_question("definition", "lkr"), metric_question("definition", "tdr")
    ('any_sense', 'reference')
    """
    from wordplay_audit.annotate.configs import question_labels

    check_choice("targets", metric, METRICS)
    questions = question_labels(kind)
    if metric != "lkr":
        return questions[0]
    if LKR_QUESTION not in questions:
        raise ParameterError(
            f"targets: lkr needs people's {LKR_QUESTION} labels (kind definition); this campaign's kind "
            f"{kind!r} asks {', '.join(q or 'label' for q in questions)}"
        )
    return LKR_QUESTION


def human_labels(labels: pd.DataFrame, question: str, metric: str = "tdr") -> dict[str, bool]:
    """item_id → people's label on ``question`` (true/false only): a final labels table's
    resolved labels, or the consensus of per-rater labels (:mod:`wordplay_audit.corpora.consensus`;
    a tie is no label). The counts (items, labelled, ties, adjudicated) are in
    :func:`human_label_counts`."""
    resolved, _counts = _settled(labels, question, metric)
    return resolved


def human_label_counts(labels: pd.DataFrame, question: str, metric: str = "tdr") -> dict[str, int]:
    """What settling people's labels on ``question`` counted: items, labelled, ties (left out),
    adjudicated."""
    return _settled(labels, question, metric)[1]


def _settled(labels: pd.DataFrame, question: str, metric: str) -> tuple[dict[str, bool], dict[str, int]]:
    from wordplay_audit.corpora.consensus import human_labels as settle
    from wordplay_audit.corpora.consensus import people_rows
    from wordplay_audit.corpora.contract import is_final_labels

    source = labels_source(labels)
    for col in ("item_id", "label"):
        if col not in labels.columns:
            raise InputError(
                f"{source}: expected pull's final.csv or labels.csv (columns item_id, question, label)"
            )
    table = labels if is_final_labels(labels) else people_rows(labels)[0]
    if "question" in table.columns:
        table = table[table["question"].astype(str) == question]
    elif metric == "lkr":  # a table without questions answers the kind's first, not any_sense
        table = table.iloc[:0]
    people = settle(table, source=source)
    resolved = people.labels.astype(str).str.strip().str.lower()
    resolved = resolved[resolved.isin(("true", "false"))]
    if metric == "lkr" and resolved.empty:
        raise ParameterError(
            f"targets: lkr: {source} holds no {LKR_QUESTION} label (LKR is corrected by people's answers "
            f"to {LKR_QUESTION}; label it, or target tdr/fnr)"
        )
    return dict(zip(resolved.index.astype(str), resolved.to_numpy() == "true", strict=True)), people.counts


def population_path(c) -> Path | None:
    """The population file the campaign's manifest records (``population.csv`` in the campaign
    folder first when that is what it names)."""
    text = str(c.manifest.get("sources", {}).get("items") or "")
    if text == POPULATION_FILE and (c.folder / POPULATION_FILE).is_file():
        return c.folder / POPULATION_FILE
    return c.source("items")


def population(c, items: pd.DataFrame | str | Path | None, by: Sequence[str]) -> pd.DataFrame:
    """The items the campaign was planned from, with the plan's stratum (``_plan``), the
    ``by`` group (``_group``), this round's stratum (``_stratum``: ``by`` × judge verdict) and
    whether the judge said false (``_false``); positions 0..N−1 as the index."""
    from wordplay_audit.annotate.plan import select_kind
    from wordplay_audit.corpora.contract import read_items, validate_items
    from wordplay_audit.corpora.sampling import stratum_keys

    if items is None:
        path = population_path(c)
        if path is None or not Path(path).is_file():
            raise InputError(
                f"{c.folder}: the planned items table {str(path or '')!r} is not there; give the "
                "population (items)"
            )
        table = read_items(path)
    elif isinstance(items, str | Path):
        table = read_items(expect_file(items, "the planned items table (items)"))
    elif isinstance(items, pd.DataFrame):
        table = validate_items(items, source=items.attrs.get("source") or "items")
    else:
        raise ParameterError(
            f"items: expected the population table (or its path); got {type(items).__name__}"
        )
    source = str(table.attrs.get("source") or "items")
    pop, _kind = select_kind(table, c.kind, source)
    sampled = c.items.loc[c.items["honeypot"].astype(str) != "true", "item_id"].astype(str)
    absent = sampled[~sampled.isin(set(pop["item_id"]))]
    if len(absent):
        raise InputError(
            f"{source}: campaign item {absent.iloc[0]!r} is not in this table ({len(absent)} of the "
            f"campaign's {len(sampled)} items missing); expected the items table the campaign was "
            "planned from (items)"
        )
    missing = [col for col in (*by, VERDICT) if col not in pop.columns]
    if missing:
        raise ParameterError(
            f"by: column {missing[0]!r} is not in {source} (has {', '.join(map(str, pop.columns))}); "
            f"the strata are by × {VERDICT}"
        )
    pop["_plan"] = stratum_keys(pop, c.manifest["design"]["strata_columns"])
    pop["_group"] = stratum_keys(pop, by)
    pop["_stratum"] = stratum_keys(pop, [*by, VERDICT])
    pop["_false"] = pop[VERDICT].astype(str).str.strip().str.lower().isin(("false", "0", "no"))
    return pop


def verdicts(pop: pd.DataFrame, column: str) -> pd.Series:
    """The judge's verdicts of ``column`` as bool; InputError naming the item for another value."""
    text = pop[column].astype(str).str.strip().str.lower()
    true, false = text.isin(("true", "1", "yes")), text.isin(("false", "0", "no"))
    bad = ~(true | false).to_numpy()
    if bad.any():
        pos = int(np.flatnonzero(bad)[0])
        source = pop.attrs.get("source") or "items"
        raise InputError(
            f"{source}: item {pop['item_id'].iloc[pos]!r}: {column} {pop[column].iloc[pos]!r} is not "
            "true/false (the estimate post-stratifies on the judge's verdict)"
        )
    return pd.Series(true.to_numpy(), index=pop.index)


def drawn_flags(c, pop: pd.DataFrame) -> np.ndarray:
    """Which population items the campaign has drawn (every round so far)."""
    sampled = set(c.items.loc[c.items["honeypot"].astype(str) != "true", "item_id"].astype(str))
    return pop["item_id"].isin(sampled).to_numpy()


def strata_table(pop: pd.DataFrame, drawn: np.ndarray, humans: dict[str, dict[str, bool]]) -> pd.DataFrame:
    """Per stratum (sorted): group, judge-false flag, ``N`` and ``drawn``
    (:func:`~wordplay_audit.corpora.sampling.strata_counts`) and, per question q, labelled
    ``n_q`` and human-true ``x_q`` among the drawn items."""
    from wordplay_audit.corpora.sampling import strata_counts

    counts = strata_counts(pop["_stratum"], drawn)
    frame = pd.DataFrame({"stratum": pop["_stratum"], "group": pop["_group"], "false": pop["_false"]})
    sums = {}
    for question, human in humans.items():
        label = pop["item_id"].map(human)
        frame[f"n_{question}"] = label.notna().to_numpy() & drawn
        frame[f"x_{question}"] = (label == True).to_numpy() & drawn  # noqa: E712 (NA-safe)
        sums.update({f"n_{question}": (f"n_{question}", "sum"), f"x_{question}": (f"x_{question}", "sum")})
    table = frame.groupby("stratum", sort=True).agg(
        group=("group", "first"), false=("false", "first"), **sums
    )
    table = table.join(counts)
    return table[["group", "false", "N", "drawn", *sums]]


def scaled_true(table: pd.DataFrame, question: str) -> np.ndarray:
    """x'_h = x_h d_h/n_h: drawn but unlabelled items count at the stratum's share (d/2 if none)."""
    d, n, x = (table[c].to_numpy(float) for c in ("drawn", f"n_{question}", f"x_{question}"))
    return np.where(n > 0, x * d / np.maximum(n, 1), d / 2)


def make_targets(table: pd.DataFrame, counts, metrics, kind: str, true_of) -> list:
    """One target per metric and group; ``true_of(question)`` gives the x per stratum."""
    from wordplay_audit.analysis.allocation import fnr_target, linear_target

    out = []
    for metric in metrics:
        question = metric_question(kind, metric)
        x = true_of(question)
        for group in sorted(table["group"].unique()):
            members = (table["group"] == group).to_numpy()
            if metric == "fnr":
                out.append(fnr_target(f"fnr {group}", counts, members, table["false"].to_numpy(), x))
            else:
                out.append(linear_target(f"{metric} {group}", counts, members, x))
    return out


def campaign_strata(
    c, spec: NextSpec, labels: pd.DataFrame, *, design: dict | None = None, pop: pd.DataFrame | None = None
) -> tuple[pd.DataFrame, np.ndarray, pd.DataFrame]:
    """The population (with strata: ``by`` × verdict, or the uncertainty strata of ``design``),
    the drawn flags and :func:`strata_table` for ``spec``'s targets (each target's question
    checked before the labels are read); ``pop``: the population already read."""
    questions = {m: metric_question(c.kind, m) for m in spec.targets}
    pop = population(c, spec.items, spec.by) if pop is None else pop
    if design is not None:
        from wordplay_audit.workflow.campaign_uncertainty import apply_design

        apply_design(pop, design, str(pop.attrs.get("source") or "items"))
    humans: dict[str, dict[str, bool]] = {}
    counts: dict[str, dict[str, int]] = {}
    for metric, question in questions.items():
        if question not in humans or metric == "lkr":
            humans[question], counts[question] = _settled(labels, question, metric)
    drawn = drawn_flags(c, pop)
    table = strata_table(pop, drawn, humans)
    table.attrs["human_labels"] = counts  # per question: items, labelled, ties (left out), adjudicated
    return pop, drawn, table


def ties_notes(counts: dict[str, dict[str, int]]) -> list[str]:
    """The ties-left-out line of each question (:func:`wordplay_audit.corpora.consensus.ties_note`)."""
    from wordplay_audit.corpora.consensus import ties_note

    notes = [(q, ties_note(c.get("ties", 0))) for q, c in counts.items()]
    return [f"{q or 'label'}: {note}" for q, note in notes if note]


def strata_counts_of(table: pd.DataFrame, column: str = "drawn"):
    """The allocation's :class:`~wordplay_audit.analysis.allocation.StrataCounts` of ``table``:
    N_h and ``column`` (drawn, or labelled ``n_<question>``) per stratum."""
    from wordplay_audit.analysis.allocation import StrataCounts

    return StrataCounts(table["N"].to_numpy(float), table[column].to_numpy(float))
