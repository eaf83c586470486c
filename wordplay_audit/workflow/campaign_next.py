"""The next round of an adaptive campaign (``annotate next``): where the next labels shrink the
widest interval most, drawn, written into the campaign folder and pushed.

Steps (:func:`next_round`):

1. strata and targets of :mod:`~wordplay_audit.workflow.campaign_strata`; drawn but not yet
   labelled items count as labelled at the stratum's current share (x'_h = x_h d_h/n_h; ½ where
   nothing is labelled), so they are neither drawn again nor ignored;
2. :func:`~wordplay_audit.analysis.allocation.allocate` spreads ``budget`` labels over the
   strata; the sampling design's seeded draw (:func:`wordplay_audit.corpora.sampling.draw_round`)
   takes them from the undrawn items of each stratum (strata in sorted order, each stratum's
   new items in item-id order), the campaign's overlap assigns them to the raters;
3. each rater gets honeypots at the campaign's honeypot rate among their new tasks
   (:func:`~wordplay_audit.annotate.design.pick_honeypots`: ones they have not had while the
   pool — the campaign's honeypots file, else the honeypots already in the campaign — lasts;
   a rater the pool cannot serve in full is counted and said), and each rater's new tasks are
   shuffled and follow their earlier ones;
4. with ``sampling="uncertainty"`` the strata are the judge's uncertainty strata instead
   (``wordplay_audit.workflow.campaign_uncertainty``: fixed at the first such round, recorded
   in the manifest's ``uncertainty``), the allocation's prior their mean probability, and each
   round records every stratum's draw probability add_h/R_h;
5. every sampled item's inclusion probability becomes π_i = 1 − Π_r (1 − n_{r,s}/R_{r,s}) over
   all rounds (round 1 = the plan's strata; :func:`~wordplay_audit.corpora.sampling.inclusion_probabilities`;
   once the campaign has uncertainty strata every round is read inside them, and π is the share
   of the item's stratum drawn), with ``sampling_weight`` = 1/π and ``round``; the manifest gains ``rounds`` (allocation,
   predicted half-widths before and after, item ids, honeypots), items.csv ``score_band`` once
   the campaign has uncertainty strata;
6. it is written in one transaction (the folder's other files and sub-folders kept; refused
   when another run wrote the manifest after this one read it), then the round is pushed through
   the push's code path (only task uids not on the server are imported) when the campaign lives
   on a server; the server is reached before anything is written.
"""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np
import pandas as pd

from wordplay_audit.errors import InputError, ParameterError
from wordplay_audit.workflow.campaign_assign import round_assignments
from wordplay_audit.workflow.campaign_strata import (
    VERDICT,
    NextSpec,
    final_labels,
    labels_source,
    make_targets,
    metric_question,
    scaled_true,
    strata_counts_of,
    ties_notes,
)
from wordplay_audit.workflow.campaign_uncertainty import KEY as UNCERTAINTY
from wordplay_audit.workflow.campaign_uncertainty import floor_check, round_keys, round_strata
from wordplay_audit.workflow.results import Result, plain

__all__ = ["NextRound", "NextSpec", "next_round", "run_next"]


@dataclass
class NextRound(Result):
    """A round drawn and written (``record``: the manifest's new ``rounds`` entry with the
    campaign, the push, and the label rows naming no campaign item)."""

    title = "Adaptive round"
    main_table = "strata"

    folder: str
    record: dict

    @property
    def item_ids(self) -> list[str]:
        return list(self.record["item_ids"])

    def tables(self) -> dict[str, pd.DataFrame]:
        return {"strata": pd.DataFrame(self.record["strata"])}

    def to_dict(self) -> dict[str, Any]:
        return plain(self.record)

    def summary(self) -> list[str]:
        r = self.record
        lines = [f"round {r['round']}: {len(r['item_ids'])} items added -> {self.folder}"]
        lines.append(f"planned half-widths ({100 * r['confidence']:g} %, delta method: a planning prediction), "
                     "before -> once this round is labelled:")  # fmt: skip
        lines += [f"  {name}: {_width(r['half_width_before'][name])} -> {_width(r['half_width_after'][name])}"
                  for name in r["half_width_before"]]  # fmt: skip
        if r.get("sampling") == "uncertainty":
            rates = [s["draw_probability"] for s in r["strata"]]
            lines.append(f"uncertainty sampling: {len(rates)} strata (cell × verdict × score band), this round's "
                         f"draw probability {min(rates):.3f} … {max(rates):.3f} per undrawn item")  # fmt: skip
        pots = r.get("honeypots") or {}
        if pots.get("rate"):
            given = ", ".join(f"{k} {v}" for k, v in pots["added"].items())
            lines.append(f"honeypots at rate {pots['rate']:g}: {given} (pool of {pots['pool']})")
        lines += [
            f"pushed {p['owner']}: project {p['project_id']}, {p['imported']} tasks imported, "
            f"{p['already_there']} already there"
            for p in r["pushed"] or []
        ]
        lines += [f"note: {note}" for note in [*r["notes"], r["push_note"]] if note]
        if r["labels_unmatched"]:
            lines.append(f"note: left out {r['labels_unmatched']} label row(s) of {r['labels']} naming no item "
                         "of the campaign")  # fmt: skip
        return lines


def _width(value: float | None) -> str:
    return "±?" if value is None else f"±{value:.3f}"


Objective = Literal["max", "sum"]
Sampling = Literal["adaptive", "uncertainty"]


def next_round(
    campaign,
    *,
    budget: int,
    labels: pd.DataFrame | str | Path,
    targets: Sequence[str] = ("tdr",),
    by: Sequence[str] = ("player_model",),
    seed: int = 0,
    objective: Objective = "max",
    confidence: float = 0.95,
    items: pd.DataFrame | str | Path | None = None,
    push: bool | None = None,
    review: bool = False,
    roster=None,
    server=None,
    sampling: Sampling = "adaptive",
    bands: int | None = None,
    overlap_share: dict[int, float] | None = None,
) -> NextRound:
    """Draw the next ``budget`` items of an adaptive campaign where they shrink the widest
    (``objective="max"``) or the summed (``"sum"``) predicted half-width of the ``targets``
    (``tdr``, ``lkr``, ``fnr`` per ``by`` group) most; write the round into the campaign folder
    and push it (module docstring).

    ``sampling``: ``"adaptive"`` draws inside the strata ``by`` × judge verdict;
    ``"uncertainty"`` inside the judge's uncertainty strata — cell × verdict × ``bands`` quantile
    bands of the judge's score (default 2), fixed at the campaign's first uncertainty round and
    recorded in the manifest — with the allocation led by the judge's probability, so unsure
    items are drawn more often and every item keeps a positive probability
    (``wordplay_audit.workflow.campaign_uncertainty``; it needs the judge's scores).

    ``labels``: people's final labels so far (pull's ``final`` table, or the path of
    ``final.csv``); ``items``: the population the campaign was planned from (default: the one
    its manifest records); ``push``: None pushes when the campaign has a project on the server
    (``server``, default ``LABEL_STUDIO_URL`` when set), True always, False never; ``review``
    and ``roster`` as in :func:`~wordplay_audit.workflow.campaign.push_campaign`;
    ``overlap_share``: more raters on a share of this round's items (``{3: 0.3}``; default the
    campaign's, :func:`~wordplay_audit.workflow.campaign.plan_campaign`), recorded in the round."""
    folder = campaign if isinstance(campaign, str | Path) else campaign.folder
    spec = NextSpec(budget=budget, labels=labels, targets=tuple(targets), by=tuple(by), seed=seed,
                    objective=objective, confidence=confidence, items=items, sampling=sampling,
                    bands=bands, overlap_share=overlap_share)  # fmt: skip
    record = run_next(Path(folder), spec, push=push, review=review, roster=roster, server=server)
    return NextRound(str(folder), record)


def run_next(
    folder: Path, spec: NextSpec, *, push: bool | None = None, review: bool = False, roster=None, server=None
) -> dict:
    """Draw and write the round (one transaction), then push it (see :func:`next_round`); the
    round's record. The server is reached before anything is written, so a refused token or a
    server that is down leaves the folder as it was."""
    from wordplay_audit.annotate.campaign import MANIFEST, manifest_digest, read_campaign
    from wordplay_audit.annotate.labels_check import check_final_labels
    from wordplay_audit.annotate.roster import as_roster
    from wordplay_audit.corpora.io import output_folder

    spec.check()
    if isinstance(spec.budget, bool) or not isinstance(spec.budget, int | np.integer) or spec.budget < 1:
        raise ParameterError(f"budget: expected a positive number of items, got {spec.budget!r}")
    c = read_campaign(folder)
    people = as_roster(roster)  # checked before the server or the folder
    table = final_labels(spec.labels)
    unmatched = check_final_labels(c, table)["unmatched"]
    connected, why = _server_for(c, push) if server is None else _server_for(c, push, server)
    with output_folder(folder, option="campaign") as staging:
        if manifest_digest(folder) != c.digest:  # another run wrote the campaign since it was read
            raise InputError(
                f"{Path(folder) / MANIFEST}: the campaign changed while this run read it (another "
                "`annotate next`?); nothing written – run it again on the campaign as it is now"
            )
        record = _next_record(c, staging, spec, table)
    record = {"campaign": c.name, **record, "pushed": None, "push_note": why, "labels_unmatched": unmatched}
    if connected is not None:
        from wordplay_audit.workflow.campaign import push_campaign

        try:
            pushed = push_campaign(folder, review=review, roster=people, server=connected)
        except InputError as exc:
            raise InputError(
                f"{exc} (round {record['round']} is written to {folder}: `annotate push` sends it)"
            ) from None
        record["pushed"] = pushed.projects
        record["notes"] = [*record["notes"], *pushed.warnings]
    return record


def _server_for(c, push: bool | None, server=None):
    """(server, None) when the round is to be pushed, else (None, why not)."""
    import os

    from wordplay_audit.annotate.server import URL_ENV, Server, rater_marker

    if push is False:
        return None, "not pushed (push=False, --no-push)"
    if server is None and push is None and not os.environ.get(URL_ENV):
        return None, f"file mode ({URL_ENV} not set): send the new tasks with `annotate export-files`"
    server = server if server is not None else Server()
    if push is None and not any(
        server.find_project(rater_marker(c.manifest["campaign_id"], r)) for r in c.raters
    ):
        return None, f"not pushed: the campaign has no project on {server.url} yet (run `annotate push`)"
    return server, None


def _next_record(c, staging: Path, spec: NextSpec, labels: pd.DataFrame) -> dict:
    """Draw the next round into ``staging`` (a copy of the campaign folder); return its record."""
    from wordplay_audit.analysis.allocation import AllocationOptions, allocate

    pop, drawn, table, design, prior = round_strata(c, spec, labels)
    counts = strata_counts_of(table)
    targets = make_targets(table, counts, spec.targets, c.kind, lambda q: scaled_true(table, q))
    options = AllocationOptions(objective=spec.objective, confidence=spec.confidence)
    result = allocate(counts, targets, spec.budget, options, prior=prior)
    if spec.sampling == "uncertainty":
        floor_check(table, result.add, spec.budget, options.pilot)
    rng = np.random.default_rng(spec.seed)
    new_ids = _draw(pop, drawn, table.index, result.add, rng)
    first = metric_question(c.kind, spec.targets[0])
    record = {
        "round": len(c.manifest.get("rounds", [])) + 2,
        "seed": spec.seed,
        "budget": spec.budget,
        "by": list(spec.by),
        "targets": list(spec.targets),
        "objective": spec.objective,
        "confidence": spec.confidence,
        "sampling": spec.sampling,
        "labels": labels_source(spec.labels),
        "question": first,
        "strata": _strata_rows(table, result.add, first, prior),
        **result.to_dict(),
        "item_ids": new_ids,
        "human_labels": table.attrs.get("human_labels", {}),
    }
    judge, notes = _judge_labels(c, new_ids)
    notes = [*ties_notes(record["human_labels"]), *notes]
    assignments, pots, pot_notes = round_assignments(c, new_ids, rng, spec.overlap_share)
    if spec.overlap_share is not None:
        record["overlap_share"] = {str(k): v for k, v in spec.overlap_share.items()}
    record["honeypots"] = pots["record"]
    record["notes"] = [*record["notes"], *notes, *pot_notes]
    _write_round(c, staging, pop, record, judge, assignments, pots["items"], design)
    return record


def _strata_rows(table: pd.DataFrame, add, first: str, prior) -> list[dict]:
    """The round's record per stratum: counts, the labels added and this round's draw probability
    add_h/R_h of each undrawn item (R_h = N_h − drawn_h); with the uncertainty prior p̄_h."""
    from wordplay_audit.analysis.active import draw_probabilities

    rate = draw_probabilities(add, table["N"].to_numpy() - table["drawn"].to_numpy())
    rows = [
        {"stratum": s, "population": int(row.N), "drawn_before": int(row.drawn),
         "labelled": int(row[f"n_{first}"]), "human_true": int(row[f"x_{first}"]), "add": int(a),
         "draw_probability": float(p)}
        for (s, row), a, p in zip(table.iterrows(), add, rate, strict=True)
    ]  # fmt: skip
    if prior is not None:
        for row, m in zip(rows, prior, strict=True):
            row["mean_prob"] = float(m)
    return rows


def _draw(pop: pd.DataFrame, drawn: np.ndarray, strata, add, rng) -> list[str]:
    """The round's item ids: the sampling design's draw of ``add`` items per stratum (in
    ``strata``' order) from the undrawn ones, each stratum's in item-id order."""
    from wordplay_audit.corpora.sampling import draw_round

    counts = {name: int(k) for name, k in zip(strata, add, strict=True)}
    flags = draw_round(pop["_stratum"].to_numpy(), counts, drawn, rng)
    chosen = pop.loc[flags, ["_stratum", "item_id"]]
    out: list[str] = []
    for name in strata:
        out += sorted(chosen.loc[chosen["_stratum"] == name, "item_id"].tolist())
    return out


def _pi(c, pop: pd.DataFrame, rounds: list[dict], design: dict | None) -> np.ndarray:
    """π of every population item over the plan's round and every later round. Once the campaign
    has uncertainty strata every round is read inside them: each round's strata are unions of
    them, and a simple random sample of a union is, given how many fell in each part, one of each
    part; π telescopes to the share of the item's stratum drawn (exact per stratum)."""
    from wordplay_audit.corpora.sampling import inclusion_probabilities, stratum_keys

    sampled = c.items[c.items["honeypot"].astype(str) != "true"]
    later = {i for r in rounds for i in r["item_ids"]}
    first = pop["item_id"].isin(set(sampled["item_id"]) - later).to_numpy()
    fixed = None if design is None else round_keys(pop, design)
    history = [(pop["_plan"].to_numpy() if fixed is None else fixed, first)]
    for r in rounds:
        keys = stratum_keys(pop, [*r["by"], VERDICT]).to_numpy() if fixed is None else fixed
        history.append((keys, pop["item_id"].isin(r["item_ids"]).to_numpy()))
    return inclusion_probabilities(history)


def _items_table(c, pop: pd.DataFrame, record: dict, pi: np.ndarray, pots: pd.DataFrame, design):
    """items.csv with the new items (and new honeypots) appended and every sampled item's π,
    weight and round (and its ``score_band`` once the campaign has uncertainty strata)."""
    from wordplay_audit.analysis.active import BAND
    from wordplay_audit.annotate.design import STRATUM_COLUMN
    from wordplay_audit.corpora.sampling import sampling_weights

    items = c.items.copy()
    items.attrs = {}
    if "round" not in items.columns:
        items["round"] = np.where(items["honeypot"].astype(str) == "true", "", "1")
    new = pop[pop["item_id"].isin(record["item_ids"])].drop(columns=["_group", "_stratum", "_false"])
    new = new.rename(columns={"_plan": STRATUM_COLUMN}).assign(honeypot="false", round=str(record["round"]))
    parts = [items.astype(object), new.astype(object)]
    if len(pots):
        parts.append(pots.assign(honeypot="true", round="").astype(object))
    items = pd.concat(parts, ignore_index=True)
    by_id = dict(zip(pop["item_id"], pi, strict=True))
    sampled = items["honeypot"].astype(str) != "true"
    probability = items.loc[sampled, "item_id"].map(by_id)
    items.loc[sampled, "inclusion_probability"] = probability
    items.loc[sampled, "sampling_weight"] = sampling_weights(probability.to_numpy(float))
    if design is not None:  # the band of the item's uncertainty stratum ("cell|verdict|band")
        stratum = items.loc[sampled, "item_id"].astype(str).map(design["assignment"])
        items.loc[sampled, BAND] = stratum.str.rsplit("|", n=1).str[-1]
    return items


def _judge_labels(c, new_ids: list[str]) -> tuple[pd.DataFrame | None, list[str]]:
    """The campaign's judge labels with the new items' rows from ``sources.judge_labels``."""
    from wordplay_audit.corpora.contract import read_labels

    if c.judge_labels is None:
        return None, []
    source = c.source("judge_labels")
    if source is None or not source.is_file():
        text = str(source or "")
        return c.judge_labels, [f"judge labels {text!r} not found: review shows no verdict on new items"]
    labels = read_labels(source)
    new = labels[(labels["rater_type"] == "judge") & labels["item_id"].isin(set(new_ids))]
    return pd.concat([c.judge_labels.astype(object), new.astype(object)], ignore_index=True), []


def _write_round(c, staging: Path, pop, record: dict, judge, assignments: pd.DataFrame, pots, design) -> None:  # noqa: PLR0913  # fmt: skip
    from wordplay_audit.annotate.campaign import MANIFEST, write_manifest
    from wordplay_audit.corpora.io import MARKER

    rounds = [*c.manifest.get("rounds", []), record]
    pi = _pi(c, pop, rounds, design)
    manifest = dict(c.manifest)
    manifest["rounds"] = rounds
    if design is not None:
        manifest[UNCERTAINTY] = design
    manifest["assignments"] = pd.concat([c.assignments, assignments]).to_dict(orient="records")
    for path in c.folder.iterdir():  # everything else of the folder goes over as it is
        if path.name in (MANIFEST, "items.csv", MARKER):
            continue
        if path.is_dir() and not path.is_symlink():
            shutil.copytree(path, staging / path.name, symlinks=True)
        else:
            shutil.copy2(path, staging / path.name, follow_symlinks=False)
    _items_table(c, pop, record, pi, pots, design).to_csv(staging / "items.csv", index=False)
    if judge is not None:
        judge.to_csv(staging / "judge_labels.csv", index=False)
    write_manifest(staging, manifest)
