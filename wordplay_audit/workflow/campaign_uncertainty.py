"""Uncertainty sampling in a campaign (``annotate next --sampling uncertainty``): the design of
:mod:`wordplay_audit.analysis.active` on a campaign's population.

*The strata.* At the first uncertainty round the judge's scores cut each cell × judge verdict into
``bands`` quantile bands (:func:`~wordplay_audit.analysis.active.uncertainty_strata`); a cell is a
value of the round's ``by`` columns and of every column an earlier round stratified on (the plan's
strata, earlier rounds' ``by``), so each earlier stratum is a union of the new ones. The strata —
every item's stratum, each stratum's score range and mean probability — are written to the
manifest (``uncertainty``) and every later round reuses them; the scores are not read again.

*The scores* (in this order): the population's ``score`` column (with ``calibrated`` where
given); else the judge rows of the judge labels the campaign was planned with (the file of
``sources.judge_labels``, else the campaign's ``judge_labels.csv``) on the kind's first question,
``score`` and ``calibrated`` as ``judge run`` writes them. Every population item needs a score.
The judge's probability p̂ that an item is true is its ``calibrated`` value, else the score when it
is one (``score_source`` ``logprobs`` or ``share``; an items table's score in [0, 1]); a score that
is not a probability (a similarity) bands by rank and the allocation's prior is ½.

*A round* gives its ``budget`` by :func:`~wordplay_audit.analysis.allocation.allocate` with the
strata's mean p̂ as prior (q̃_h = (x_h + a·p̄_h)/(n_h + a)), drawn by simple random sampling within
the strata; the round records each stratum's draw probability add_h/R_h. A round must leave every
stratum with a drawn item (the pilot comes first), so every item's inclusion probability over the
rounds is positive.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from wordplay_audit.errors import InputError, ParameterError
from wordplay_audit.workflow.campaign_strata import VERDICT, metric_question, verdicts

KEY = "uncertainty"
"""The manifest's entry holding the uncertainty strata."""
PROBABILITY_SOURCES = ("logprobs", "share")
"""``score_source`` values whose score is the judge's P(true) (``judge run``)."""


def no_scores(why: str) -> ParameterError:
    return ParameterError(
        f"sampling: 'uncertainty' needs the judge's score of every item ({why}); score the items with a "
        "scored judge (`wa.run_judge`) and give its labels to the plan (judge_labels of `wa.plan_campaign`), "
        "or give the population a score column (items)"
    )


def _judge_rows(c, question: str) -> tuple[pd.DataFrame | None, str]:
    """The judge rows on ``question`` of the campaign's judge labels and their source."""
    from wordplay_audit.corpora.contract import read_labels

    source = c.source("judge_labels")
    if source is not None and source.is_file():
        labels, where = read_labels(source), str(source)
    elif c.judge_labels is not None:
        labels, where = c.judge_labels, str(c.folder / "judge_labels.csv")
    else:
        return None, "no judge labels recorded"
    rows = labels[labels["rater_type"].astype(str) == "judge"]
    if "question" in rows.columns:
        asked = rows["question"].fillna("").astype(str)
        rows = rows[(asked == question) | (asked == "")]
    judges = sorted(set(rows["rater"].astype(str)))
    if len(judges) > 1:
        raise InputError(
            f"{where}: holds the scores of {len(judges)} judges ({', '.join(judges)}); keep one judge's rows"
        )
    if rows["item_id"].duplicated().any():
        item = rows.loc[rows["item_id"].duplicated(), "item_id"].iloc[0]
        raise InputError(f"{where}: item {item!r} has two judge rows on {question or 'the question'}")
    rows = rows.copy()
    rows.attrs = {"source": where}
    return rows, where


def judge_scores(c, pop: pd.DataFrame, question: str) -> tuple[np.ndarray, np.ndarray | None, str]:
    """Per population item the judge's score, its probability of true (None: the score is not
    one) and where they come from (module doc)."""
    from wordplay_audit.corpora.contract import label_scores

    if "score" in pop.columns:
        where = f"{pop.attrs.get('source') or 'items'} (score)"
        score = label_scores(pop, source=where).to_numpy(float)
        calibrated = label_scores(pop, "calibrated", source=where).to_numpy(float)
        probability = np.isfinite(score).all() and ((score >= 0) & (score <= 1)).all()
        sources = None
    else:
        rows, where = _judge_rows(c, question)
        if rows is None:
            raise no_scores(where)
        by_item = rows.set_index(rows["item_id"].astype(str))
        score = pop["item_id"].astype(str).map(label_scores(by_item, source=where)).to_numpy(float)
        calibrated = pop["item_id"].astype(str).map(label_scores(by_item, "calibrated", source=where))
        calibrated = calibrated.to_numpy(float)
        sources = set(by_item.get("score_source", pd.Series(dtype=object)).dropna().astype(str))
        probability = bool(sources) and sources <= set(PROBABILITY_SOURCES)
    missing = ~np.isfinite(score)
    if missing.any():
        first = pop["item_id"].iloc[int(np.flatnonzero(missing)[0])]
        raise no_scores(f"{int(missing.sum())} of {len(pop)} items in {where} have none, e.g. {first!r}")
    if np.isfinite(calibrated).all():
        return score, calibrated, f"{where}: calibrated"
    return score, (score if probability else None), f"{where}: score"


def cell_columns(c, by: Sequence[str]) -> list[str]:
    """The columns of an uncertainty cell: ``by``, then the other columns the plan and earlier
    rounds stratified on (the judge's verdict aside)."""
    columns = [*by, *c.manifest["design"]["strata_columns"]]
    for entry in c.manifest.get("rounds", []):
        columns += list(entry.get("by", []))
    return [col for col in dict.fromkeys(columns) if col != VERDICT]


def fix_design(c, pop: pd.DataFrame, by: Sequence[str], bands: int, round_no: int) -> dict:
    """The uncertainty strata of the campaign (module doc), as the manifest records them."""
    from scipy.stats import rankdata

    from wordplay_audit.analysis.active import uncertainty_strata
    from wordplay_audit.corpora.sampling import stratum_keys

    question = metric_question(c.kind, "tdr")
    score, prob, where = judge_scores(c, pop, question)
    cells = cell_columns(c, by)
    missing = [col for col in cells if col not in pop.columns]
    if missing:
        raise InputError(
            f"{pop.attrs.get('source') or 'items'}: lacks column {missing[0]!r} the campaign stratified on"
        )
    on = prob if prob is not None else (rankdata(score, method="min") - 1) / max(len(score) - 1, 1)
    judge = verdicts(pop, VERDICT).to_numpy(bool)
    stratum, band = uncertainty_strata(on, judge, stratum_keys(pop, cells).to_numpy(), bands=bands)
    frame = pd.DataFrame({"stratum": stratum, "band": band, "judge": judge, "score": score,
                          "prob": np.full(len(pop), 0.5) if prob is None else prob})  # fmt: skip
    strata = [
        {"stratum": key, "verdict": bool(part["judge"].iloc[0]), "band": int(part["band"].iloc[0]),
         "items": len(part), "score_low": float(part["score"].min()), "score_high": float(part["score"].max()),
         "mean_prob": float(part["prob"].mean())}
        for key, part in frame.groupby("stratum", sort=True)
    ]  # fmt: skip
    return {
        "first_round": round_no,
        "bands": bands,
        "cells": cells,
        "question": question,
        "scores": where,
        "prior": "the judge's probability" if prob is not None else "½ (the score is not a probability)",
        "strata": strata,
        "assignment": dict(zip(pop["item_id"].astype(str), stratum.tolist(), strict=True)),
    }


def recorded(c) -> dict | None:
    """The manifest's uncertainty strata (None before the first uncertainty round)."""
    design = c.manifest.get(KEY)
    if design is None:
        return None
    at = c.folder / "manifest.json"
    ok = isinstance(design, dict) and isinstance(design.get("assignment"), dict)
    ok = ok and isinstance(design.get("strata"), list) and isinstance(design.get("cells"), list)
    if not ok:
        raise InputError(f"{at}: field {KEY!r}: expected the uncertainty strata (cells, strata, assignment)")
    return design


def check_settings(design: dict | None, by: Sequence[str], bands: int | None) -> None:
    """A round (or the status) on a campaign whose uncertainty strata are fixed: its groups must
    be unions of the strata (``by`` among the cells' columns) and ``bands`` the recorded one."""
    if design is None:
        return
    outside = [col for col in by if col not in design["cells"]]
    if outside:
        raise ParameterError(
            f"by: {outside[0]!r} cuts the uncertainty strata fixed in round {design.get('first_round')} "
            f"(cells {' × '.join(design['cells']) or 'all'}); give by among those columns"
        )
    if bands is not None and bands != design.get("bands"):
        raise ParameterError(
            f"bands: the uncertainty strata were fixed with {design.get('bands')} bands in round "
            f"{design.get('first_round')}; leave bands out or give {design.get('bands')}"
        )


def apply_design(pop: pd.DataFrame, design: dict, source: str) -> None:
    """Give ``pop`` the recorded strata (``_stratum`` per item)."""
    stratum = pop["item_id"].astype(str).map(design["assignment"])
    if stratum.isna().any():
        item = pop.loc[stratum.isna(), "item_id"].iloc[0]
        raise InputError(
            f"{source}: item {item!r} is not in the campaign's uncertainty strata ({int(stratum.isna().sum())} "
            "such items); expected the population the strata were fixed on (items)"
        )
    pop["_stratum"] = stratum.astype(str)


def priors(design: dict, strata: Sequence[str]) -> np.ndarray:
    """The recorded mean probability p̄_h of each stratum (in ``strata``' order)."""
    means = {row["stratum"]: row["mean_prob"] for row in design["strata"]}
    return np.array([float(means[s]) for s in strata], dtype=float)


def round_keys(pop: pd.DataFrame, design: dict) -> np.ndarray:
    """Each population item's uncertainty stratum (the strata of an uncertainty round)."""
    return pop["item_id"].astype(str).map(design["assignment"]).to_numpy()


def floor_check(table: pd.DataFrame, add: np.ndarray, budget: int, pilot: int) -> None:
    """ParameterError when the round leaves a stratum without a drawn item (its items could not be
    drawn: π = 0), naming the budget that reaches every stratum."""
    empty = (table["drawn"].to_numpy() + np.asarray(add)) == 0
    if empty.any():
        short = int((table["drawn"].to_numpy() < np.minimum(pilot, table["N"].to_numpy())).sum())
        raise ParameterError(
            f"budget: {budget} labels leave {int(empty.sum())} of {len(table)} uncertainty strata without a "
            f"drawn item (their items could never be drawn); give a budget of at least {short}, one per "
            "stratum still short of its pilot"
        )


def round_strata(c, spec, labels: pd.DataFrame):
    """``(pop, drawn, table, design, prior)`` of a round (or the status's prediction of one): the
    population with its strata, the drawn flags, the strata table, the uncertainty strata (fixed
    now at a campaign's first uncertainty round; None without) and the allocation's prior per
    stratum (None: ½, the adaptive allocation)."""
    from wordplay_audit.analysis.active import DEFAULT_BANDS
    from wordplay_audit.workflow.campaign_strata import campaign_strata, population

    design = recorded(c)
    check_settings(design, spec.by, spec.bands)
    if spec.sampling != "uncertainty":
        pop, drawn, table = campaign_strata(c, spec, labels)
        return pop, drawn, table, design, None
    for metric in spec.targets:  # the targets' questions before the population is read
        metric_question(c.kind, metric)
    pop = population(c, spec.items, spec.by)
    if design is None:
        bands = DEFAULT_BANDS if spec.bands is None else int(spec.bands)
        design = fix_design(c, pop, spec.by, bands, len(c.manifest.get("rounds", [])) + 2)
    pop, drawn, table = campaign_strata(c, spec, labels, design=design, pop=pop)
    return pop, drawn, table, design, priors(design, table.index)
