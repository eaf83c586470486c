"""The categorical-reasoning (CR) score recomputed: under a judge of the category names corrected
by a human sample, under a panel's consensus, and Tables 1 and 2 under a relabelled taxonomy.

*Items.* A ``category_name`` item exists for each gold group a model reproduced exactly (its
name is the one judged; :func:`~wordplay_audit.analysis.connections.contract.to_contract`). A
game's CR score is the number of its gold groups reproduced and named equivalently, so a model's
mean CR over its ``G`` scored games is ``Σ_items truth / G``, and Table 2's reasoned share of a
knowledge type is ``Σ_items of the type truth / C`` (``C`` gold categories of that type): each
is a realised share of the cell's items scaled by items / G (or items / C). The share is
corrected by the one engine (:func:`~wordplay_audit.analysis.correction.corrected_shares`:
post-stratified on the judge's verdict, the randomised exact interval), then scaled.

*The judge.* Any judge's verdicts on the items (an LLM, the embedding or TF-IDF judge, or the
study's own decisions, the default). An ``unparsed`` verdict counts as judge-false in a finer
post-stratum of its own (coarsened to the verdict where it holds too few labels, then counted
unknown in the interval). An item without a verdict is left out and counts as not named, as the
study counts a reproduced group without a decision (``items_without_verdict``).

*People.* One label per item by the one consensus (the raters' majority, an adjudication
settling a tie; a tie left unsettled is no label, counted ``human_ties``), or a final labels
table (pull's ``final.csv``) as it is. With every item labelled the corrected score is the score under people's labels
with a zero-width interval; with the study's decisions as judge and as people it is the study's
CR score.

*Taxonomy.* Knowledge-type labels of several linguists on the ``knowledge_type`` items: their
majority type per category (ties counted, left out) gives Table 1 and the knowledge type of each
category in Table 2, and Fleiss' κ of the linguists stands beside the paper's 0.78.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from wordplay_audit.analysis.connections.taxonomy import TAXONOMY_COLUMNS, taxonomy_column
from wordplay_audit.analysis.correction import corrected_shares
from wordplay_audit.corpora.connections import ConnectionsData, category_item_id, taxonomy_item_id
from wordplay_audit.corpora.consensus import human_labels, people_rows
from wordplay_audit.corpora.contract import bool_labels, is_final_labels, validate_labels
from wordplay_audit.corpora.final_labels import validate_final_labels
from wordplay_audit.errors import InputError

__all__ = [
    "PAPER_KAPPA",
    "CategoricalRecompute",
    "category_frame",
    "recompute_categorical",
    "relabelled_taxonomy",
]

STUDY_JUDGE = "study-judge"
PAPER_KAPPA = 0.78
"""Fleiss' κ of the study's three linguists on the knowledge types (the paper, §3)."""


def _source(table: pd.DataFrame, name: str) -> str:
    return str(table.attrs.get("source") or name)


def _checked(labels: pd.DataFrame) -> pd.DataFrame:
    """A per-rater labels table validated, or a final labels table (pull's ``final.csv``)."""
    source = labels.attrs.get("source")
    if is_final_labels(labels):
        return (
            labels
            if labels.attrs.get("validated") == "final_labels"
            else validate_final_labels(labels, source=source)
        )
    return validate_labels(labels, source=source)


def _majority(labels: pd.DataFrame, items: set[str], source: str, *, boolean: bool) -> tuple[pd.Series, dict]:
    """People's label per item of ``items`` by the one consensus
    (:func:`~wordplay_audit.corpora.consensus.human_labels`: the raters' majority, an
    adjudication settling a tie; a tie left unsettled is no label, counted ``human_ties``); a
    final labels table (pull's ``final.csv``) is taken as it is."""
    people, _ = people_rows(labels)
    on_items = people["item_id"].astype(str).isin(items).to_numpy()
    counts = {"human_rows_on_other_items": int((~on_items).sum())}
    people = people[on_items]
    if people.empty:
        raise InputError(f"{source}: no human label names an item of the data")
    if boolean:
        people = people.copy()
        resolved = people["label"].notna().to_numpy()
        people.loc[resolved, "label"] = bool_labels(people[resolved], source=source).to_numpy()
    else:
        people = people.assign(
            label=people["label"].where(people["label"].isna(), people["label"].astype(str).str.strip())
        )
    settled = human_labels(people, source=source)
    counts["human_ties"] = settled.counts["ties"]
    counts["human_adjudicated"] = settled.counts["adjudicated"]
    winner = settled.labels
    return (winner == "true" if boolean else winner), counts


def _verdicts(judge: pd.DataFrame, items: set[str]) -> tuple[pd.DataFrame, dict]:
    """Per item the one judge's verdict: ``judge`` and ``unparsed`` (bool)."""
    source = _source(judge, "judge_labels")
    rows = judge[(judge["rater_type"] == "judge") | (judge["rater"] == STUDY_JUDGE)]
    if rows.empty:
        raise InputError(f"{source}: holds no judge rows (rater_type 'judge')")
    raters = sorted(rows["rater"].astype(str).unique())
    if len(raters) > 1:
        raise InputError(
            f"{source}: holds verdicts of {len(raters)} judges ({', '.join(raters)}); give one judge's"
        )
    rows = rows[rows["item_id"].isin(items)]
    twice = rows["item_id"].duplicated()
    if twice.any():
        raise InputError(
            f"{source}: item {rows.loc[twice, 'item_id'].iloc[0]!r} has two verdicts of {raters[0]!r}"
        )
    label = rows["label"].astype(str).str.strip().str.lower()
    bad = ~label.isin(("true", "false", "unparsed")).to_numpy()
    if bad.any():
        raise InputError(f"{source}: verdict {rows['label'].iloc[int(np.flatnonzero(bad)[0])]!r}: expected true, false or unparsed")  # fmt: skip
    frame = pd.DataFrame({"item_id": rows["item_id"].to_numpy(), "judge": (label == "true").to_numpy(),
                          "unparsed": (label == "unparsed").to_numpy()})  # fmt: skip
    return frame, {"judge": raters[0], "unparsed_verdicts": int(frame["unparsed"].sum())}


def _scored_groups(data: ConnectionsData, matched: pd.DataFrame, types: pd.Series) -> pd.DataFrame:
    """Every model × scored game × gold group with its knowledge-type column and category item id."""
    scored = set(data.games.loc[data.games["scored"], "game_key"])
    groups = matched[matched["game_key"].isin(scored)].copy()
    keys = list(zip(groups["game_key"], groups["gold_index"], strict=True))
    groups["column"] = [types.get(taxonomy_item_id(k, int(i))) for k, i in keys]
    groups["item_id"] = [
        category_item_id(k, m, int(i)) for (k, i), m in zip(keys, groups["model"], strict=True)
    ]
    groups["named"] = groups["reproduced"] & (groups["decision"] == "Yes")
    return groups


def category_frame(
    groups: pd.DataFrame, judge: pd.DataFrame, human: pd.DataFrame | None
) -> tuple[pd.DataFrame, dict]:
    """The engine's frame over the category-name items (reproduced groups with a name):
    ``player_model``, ``column``, ``judge``, ``unparsed``, ``human`` (NA where unlabelled)."""
    items = groups[groups["reproduced"] & groups["model_name"].notna()]
    ids = set(items["item_id"])
    verdicts, info = _verdicts(judge, ids)
    frame = items[["item_id", "model", "column"]].rename(columns={"model": "player_model"})
    frame = frame.merge(verdicts, on="item_id", how="inner")
    info["items_without_verdict"] = len(items) - len(frame)
    frame["human"] = pd.array([pd.NA] * len(frame), dtype="boolean")
    if human is not None:
        truth, counts = _majority(human, ids, _source(human, "human"), boolean=True)
        info.update(counts)
        frame["human"] = pd.array(frame["item_id"].map(truth), dtype="boolean")
    return frame.reset_index(drop=True), info


def _scaled(table: pd.DataFrame, denominators: pd.Series, keys: list[str]) -> pd.DataFrame:
    """The engine's shares times items / denominator (games or categories) of each cell."""
    out = table.copy()
    index = pd.MultiIndex.from_frame(out[keys]) if len(keys) > 1 else pd.Index(out[keys[0]])
    denominator = denominators.reindex(index).to_numpy(float)
    scale = out["n"].to_numpy(float) / denominator
    for column in ("judge", "estimate", "ci_low", "ci_high"):
        out[column] = out[column].to_numpy(float) * scale
    return out


def relabelled_taxonomy(data: ConnectionsData, taxonomy: pd.DataFrame) -> tuple[pd.Series, dict]:
    """The linguists' majority knowledge type per taxonomy item (``cxt:…``) as a Table 1 column,
    and their agreement: Fleiss' κ (with a bootstrap-free point, :func:`fleiss_kappa`) beside
    the paper's."""
    from wordplay_audit.analysis.agreement import fleiss_kappa

    labels = _checked(taxonomy)
    scored = set(data.games.loc[data.games["scored"], "game_key"])
    ids = {taxonomy_item_id(k, int(i)) for k, i in zip(data.gold["game_key"], data.gold["gold_index"], strict=True) if k in scored}  # fmt: skip
    winner, counts = _majority(labels, ids, _source(taxonomy, "taxonomy"), boolean=False)
    if is_final_labels(labels):  # one settled label per category: no raters to agree
        final = labels[labels["item_id"].isin(ids)]
        counts.update(raters=None, categories_labelled=int(final["label"].notna().sum()), fleiss_kappa=None,
                      fleiss_kappa_reason="final labels (one per category): no raters' agreement",
                      paper_kappa=PAPER_KAPPA)  # fmt: skip
        return winner.map(taxonomy_column), counts
    people = labels[(labels["rater_type"] == "human") & labels["item_id"].isin(ids)]
    many = people["rater"].nunique() > 1
    counts.update(
        raters=int(people["rater"].nunique()),
        categories_labelled=int(people["item_id"].nunique()),
        fleiss_kappa=float(fleiss_kappa(people)) if many else None,
        fleiss_kappa_reason=None if many else "one rater: no agreement to measure",
        paper_kappa=PAPER_KAPPA,
    )
    return winner.map(taxonomy_column), counts


@dataclass
class CategoricalRecompute:
    """Per model the CR score under the study, the judge and corrected (``models``); Table 2's
    reasoned share per knowledge type likewise (``table2``); Table 1 under the taxonomy used
    (``table1``); what was counted (``counts``)."""

    models: pd.DataFrame
    table2: pd.DataFrame
    table1: dict[str, int]
    counts: dict = field(default_factory=dict)
    confidence: float = 0.95


def recompute_categorical(
    data: ConnectionsData,
    matched: pd.DataFrame,
    judge: pd.DataFrame,
    human: pd.DataFrame | None = None,
    *,
    taxonomy: pd.DataFrame | None = None,
    confidence: float = 0.95,
    seed: int = 0,
) -> CategoricalRecompute:
    """CR scores and Table 2 under ``judge``'s verdicts, corrected by ``human``; with
    ``taxonomy`` Tables 1 and 2 under the linguists' consensus (module doc). ``matched``:
    :func:`~wordplay_audit.analysis.connections.match_groups`."""
    judge = validate_labels(judge, source=judge.attrs.get("source"))
    if human is not None:
        human = _checked(human)
    gold = data.gold
    types = pd.Series(gold["knowledge_type"].map(taxonomy_column).to_numpy(),
                      index=[taxonomy_item_id(k, int(i)) for k, i in zip(gold["game_key"], gold["gold_index"], strict=True)])  # fmt: skip
    counts: dict = {"taxonomy": "the study's (the linguists' majority as released)"}
    if taxonomy is not None:
        types, found = relabelled_taxonomy(data, taxonomy)
        counts.update(taxonomy="the given linguists' majority", taxonomy_agreement=found)
    groups = _scored_groups(data, matched, types)
    frame, info = category_frame(groups, judge, human)
    counts.update(info)
    games = groups.groupby("model")["game_key"].nunique()
    study = groups.groupby(["model", "game_key"])["named"].sum().groupby("model").mean()
    per_model = corrected_shares(frame, cells=["player_model"], post_strata=["unparsed"], confidence=confidence,
                                 seed=seed, stream="connections-cr")  # fmt: skip
    models = pd.DataFrame({"model": sorted(games.index)}).merge(
        _scaled(per_model, games, ["player_model"]).rename(columns={"player_model": "model"}), on="model", how="left"
    )  # fmt: skip
    models.insert(1, "games", models["model"].map(games).astype(int))
    models.insert(2, "cr_study", models["model"].map(study))
    typed = groups.dropna(subset=["column"])
    categories = typed.groupby(["model", "column"]).size()
    table2 = typed.groupby(["model", "column"])["named"].mean().rename("reasoned_share_study").reset_index()
    table2.insert(2, "categories", categories.to_numpy())
    cells = frame.dropna(subset=["column"])
    if len(cells):
        shares = corrected_shares(cells, cells=["player_model", "column"], post_strata=["unparsed"],
                                  confidence=confidence, seed=seed, stream="connections-table2")  # fmt: skip
        shares = _scaled(shares, categories, ["player_model", "column"]).rename(
            columns={"player_model": "model"}
        )
        table2 = table2.merge(shares, on=["model", "column"], how="left")
    order = {name: i for i, name in enumerate(TAXONOMY_COLUMNS)}
    table2 = table2.rename(columns={"column": "knowledge_type"}).sort_values(
        ["model", "knowledge_type"], key=lambda s: s.map(order) if s.name == "knowledge_type" else s
    )  # fmt: skip
    scored_types = types.reindex([taxonomy_item_id(k, int(i)) for k, i in zip(gold["game_key"], gold["gold_index"], strict=True)
                                  if k in set(data.games.loc[data.games["scored"], "game_key"])])  # fmt: skip
    table1 = {name: int((scored_types == name).sum()) for name in TAXONOMY_COLUMNS}
    table1["unmapped"] = int(scored_types.isna().sum())
    return CategoricalRecompute(models, table2.reset_index(drop=True), table1, counts, confidence)
