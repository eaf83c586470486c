"""Balderdash metrics under human labels: replace the judge where people labelled, estimate the rest.

*Replace* (:func:`replace_labels`, :func:`recompute_scores`, :func:`replaced_round_metrics`):
where people labelled a definition, their majority label replaces ``judge_decision`` (question
``reference``) and ``llm_knows_one_of_the_defs`` (question ``any_sense``). LKR and TDR follow
directly. Scores, DR, CGR and AS follow only where the game's outcome is determined: a
definition turned true earns ``correct_definition_points`` and its vote is void, provided nobody
voted for it; any other change (a definition turned false, or a turned-true one that drew
votes) changes the ballot, so the round is flagged ``needs_replay`` and its vote-based metrics
are left undefined.

The estimates for the unlabelled rest are in :mod:`.corrected`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from wordplay_audit.analysis.balderdash.metrics import DEFAULT_SETTING, RoundVotes, round_metrics, round_votes
from wordplay_audit.analysis.judge_audit import boolean_labels, human_consensus
from wordplay_audit.corpora.balderdash.model import REFERENCE_VOTE
from wordplay_audit.errors import InputError

METRIC_QUESTION = {"tdr": ("reference", "true_def"), "lkr": ("any_sense", "knows")}
"""Metric → (question people answered, judge column of the player-round table)."""


def item_rows(values: pd.Series, keys) -> np.ndarray:
    """Position in ``keys`` (distinct) of every value of ``values``; -1 where it is not there.

    Arrow-backed text (the player-round table's ids) is looked up in one hashed pass in Arrow:
    pandas' ``get_indexer`` and ``isin`` first turn every one of a million ids into a Python
    object (≈ 1 s at 1M player-rounds against ≈ 0.1 s).
    """
    keys = pd.Index(keys)
    if isinstance(values.dtype, pd.CategoricalDtype):  # look up the categories, then the codes
        codes = values.cat.codes.to_numpy()
        rows = np.append(item_rows(pd.Series(values.cat.categories), keys), -1)  # code -1: missing
        return rows[codes]
    if isinstance(values.array, pd.arrays.ArrowStringArray) and keys.inferred_type in ("string", "empty"):
        import pyarrow as pa
        import pyarrow.compute as pc

        column = values.array.__arrow_array__()
        value_set = pa.array(keys.to_numpy(dtype=object), type=column.type)
        found = pc.fill_null(pc.index_in(column, value_set=value_set), -1)
        return found.to_numpy().astype(np.int64, copy=False)
    return keys.get_indexer(values)


def ids_unique(values: pd.Series) -> bool:
    """Whether every value of ``values`` differs from the others (two missing values do not):
    Arrow's hashed ``unique`` for Arrow-backed text (≈ 0.14 s at 1M ids against ≈ 0.30 s for
    pandas' ``is_unique``), else ``is_unique``.

    >>> ids_unique(pd.Series(["a", "b", None], dtype="str")), ids_unique(pd.Series(["a", None, None], dtype="str"))
    (True, False)
    """
    if isinstance(values.array, pd.arrays.ArrowStringArray):
        import pyarrow.compute as pc

        return len(pc.unique(values.array.__arrow_array__())) == len(values)
    return bool(values.is_unique)


def known_items(obs: pd.DataFrame, item_ids: pd.Series) -> np.ndarray:
    """Per value of ``item_ids`` (a few labels), whether it names a row of ``obs`` (millions)."""
    codes, distinct = pd.factorize(item_ids)
    rows = item_rows(obs["item_id"], distinct)
    hit = np.zeros(len(distinct) + 1, dtype=bool)  # the last slot: code -1 (a missing id)
    hit[rows[rows >= 0]] = True
    return hit[codes]


def labels_for(obs: pd.DataFrame, labels: pd.DataFrame) -> pd.DataFrame:
    checked = boolean_labels(labels)
    unknown = ~known_items(obs, checked["item_id"])
    if unknown.any():
        pos = int(np.flatnonzero(unknown)[0])
        raise InputError(
            f"labels row {pos + 1}: item_id {checked['item_id'].iloc[pos]!r} names no definition in the export"
        )
    return checked


def replace_labels(obs: pd.DataFrame, labels: pd.DataFrame) -> pd.DataFrame:
    """The player-round table with human consensus in place of the judge where people labelled.

    Adds ``true_def_judge``, ``knows_judge`` (the judge's values), ``human_ref``, ``human_any``
    (consensus, NA where none), ``relabelled`` (true_def changed) and ``knows_undetermined``.
    Without an ``any_sense`` label, ``knows`` = human_ref ∨ (knows_judge ∧ ¬true_def_judge): a
    reference sense people accept is a known sense; a judge "knows" that came from another sense
    stays. When the judge's "knows" rested only on its reference verdict and people rejected
    that verdict, the other senses were never judged (the framework stops at the first match):
    ``knows`` becomes False and ``knows_undetermined`` True. ``attrs["skipped"]`` counts tied
    consensus (left to the judge); ``attrs["consensus"]``, per question, people's items, labelled
    ones, ties and adjudicated ones (:attr:`corpora.consensus.HumanLabels.counts`). ``labels``:
    per rater or a final labels table (pull's ``final.csv``).
    """
    checked = labels_for(obs, labels)
    out = obs.copy(deep=False)  # copy-on-write: obs's columns are shared, not duplicated
    out["true_def_judge"] = out["true_def"].astype(bool)
    out["knows_judge"] = out["knows"].astype(bool)
    skipped, counts = {}, {}
    for question, column in (("reference", "human_ref"), ("any_sense", "human_any")):
        consensus = human_consensus(checked, question=question)
        skipped[f"ties_{question}"] = int(consensus["tie"].sum()) if len(consensus) else 0
        counts[question] = consensus.attrs["counts"]
        found = item_rows(out["item_id"], consensus["item_id"])
        human = consensus["human"].to_numpy(object)[found] if len(consensus) else found.astype(object)
        out[column] = pd.array(np.where(found >= 0, human, None), dtype="boolean")
    has_ref = out["human_ref"].notna().to_numpy()
    has_any = out["human_any"].notna().to_numpy()
    ref = out["human_ref"].fillna(False).to_numpy(bool)
    true_def = np.where(has_ref, ref, out["true_def_judge"].to_numpy(bool))
    judge_ref = out["true_def_judge"].to_numpy(bool)
    judge_knows = out["knows_judge"].to_numpy(bool)
    from_ref_only = has_ref & ~has_any
    knows_from_ref = ref | (judge_knows & ~judge_ref)
    knows = np.where(
        has_any,
        out["human_any"].fillna(False).to_numpy(bool),
        np.where(from_ref_only, knows_from_ref, judge_knows),
    )
    out["knows_undetermined"] = from_ref_only & judge_ref & ~ref & ~knows_from_ref
    out["true_def"] = true_def
    out["knows"] = knows
    out["relabelled"] = out["true_def"] != out["true_def_judge"]
    out.attrs["skipped"] = skipped
    out.attrs["consensus"] = counts
    return out


def recompute_scores(replaced: pd.DataFrame) -> pd.DataFrame:
    """Round scores and votes after :func:`replace_labels`, where they are determined.

    Adds ``round_status`` per row: ``unchanged`` (no verdict changed in the round),
    ``recomputed`` (only definitions turned true that drew no votes: each earns
    ``correct_definition_points`` and its vote is voided – a reference vote loses its
    ``correct_vote_points``, a vote for a player takes ``receiving_vote_points`` back from that
    player) or ``needs_replay`` (the ballot would change; ``score`` becomes nan). Needs the
    point columns of :func:`corpora.balderdash.player_round_table`.
    """
    needed = ["true_def_judge", "receiving_vote_points", "correct_vote_points", "correct_definition_points"]
    missing = [c for c in needed if c not in replaced.columns]
    if missing:
        raise InputError(
            f"recompute_scores needs column {missing[0]!r} (run replace_labels on player_round_table)"
        )
    out = replaced.copy(deep=False)
    out["score"] = out["score"].astype(float)
    true_def = out["true_def"].to_numpy(dtype=bool)
    changed = true_def != out["true_def_judge"].to_numpy(dtype=bool)
    turned_true, turned_false = changed & true_def, changed & ~true_def
    votes = round_votes(out)
    drew_votes = votes.received() > 0
    round_changed = _any_in_round(votes, changed)
    replay = _any_in_round(votes, turned_false | (turned_true & drew_votes))
    status = np.where(~round_changed, 0, np.where(replay, 1, 2)).astype(np.int8)
    out["round_status"] = _texts(status, ("unchanged", "needs_replay", "recomputed"))
    _void_turned_true(out, np.flatnonzero((status == 2) & turned_true), votes)
    out.loc[status == 1, "score"] = np.nan
    return out


def _texts(codes: np.ndarray, names: tuple[str, ...]):
    """``names[code]`` per row as a text array, built in Arrow from the codes (a million Python
    strings turned into Arrow text took ≈ 0.45 s, this ≈ 0.02 s)."""
    import pyarrow as pa

    texts = pa.DictionaryArray.from_arrays(pa.array(codes), pa.array(names)).cast(pa.large_string())
    return pd.array(texts, dtype="str")


def _any_in_round(votes: RoundVotes, flags: np.ndarray) -> np.ndarray:
    """Per row, whether any row of its round has ``flags`` (its own flag where it has no round)."""
    inside = votes.round_code >= 0
    return np.where(inside, votes.per_round(flags.astype(float)) > 0, flags)


def _void_turned_true(out: pd.DataFrame, rows: np.ndarray, votes: RoundVotes) -> None:
    """In place: each of ``rows`` (a definition turned true in a recomputed round) earns
    ``correct_definition_points`` and its vote is voided (a reference vote loses
    ``correct_vote_points``, a vote for a player takes ``receiving_vote_points`` back from that
    player's row of the round). All at once: the changes are sums, so their order does not matter."""
    if not len(rows):
        return
    score = out["score"].to_numpy(dtype=float, copy=True)
    vote = out["vote"].take(rows).to_numpy(dtype=object)
    points = {c: out[c].to_numpy()[rows] for c in ("correct_vote_points", "receiving_vote_points")}
    ref = vote == REFERENCE_VOTE
    np.subtract.at(score, rows[ref], points["correct_vote_points"][ref])
    cast = np.flatnonzero((vote != "") & ~ref)
    if len(cast):
        wanted = votes.vote_key[rows[cast]]  # -1: the vote names no id
        players = pd.Index(votes.player_key)
        if players.is_unique:
            targets, voters = players.get_indexer(wanted), np.arange(len(cast))
            targets[wanted < 0] = -1
        else:  # every row of the voted-for player, as a lookup per vote finds them
            found = [np.flatnonzero(votes.player_key == k) if k >= 0 else np.empty(0, int) for k in wanted]
            targets = np.concatenate(found)
            voters = np.repeat(np.arange(len(cast)), [len(f) for f in found])
        hit = targets >= 0
        np.subtract.at(score, targets[hit], points["receiving_vote_points"][cast][voters[hit]])
    np.add.at(score, rows, out["correct_definition_points"].to_numpy()[rows])
    out["score"] = score
    voided = np.zeros(len(out), dtype=bool)
    voided[rows] = True
    out["vote"] = out["vote"].mask(voided, "")


def replaced_round_metrics(rescored: pd.DataFrame, *, keep: Sequence[str] = DEFAULT_SETTING) -> pd.DataFrame:
    """:func:`~analysis.balderdash.metrics.round_metrics` on relabelled rows; DR, CGR and AS are
    nan in rounds that need a replayed vote. Adds ``needs_replay`` (bool) per row."""
    rounds = round_metrics(rescored, keep=keep)
    flag = (
        rescored.assign(r=rescored["round_status"] == "needs_replay")
        .groupby(["game_id", "round_id"])["r"]
        .any()
        .rename("needs_replay")
        .reset_index()
    )
    rounds = rounds.merge(flag, on=["game_id", "round_id"], how="left")
    rounds.loc[rounds["needs_replay"], ["dr", "cgr", "as"]] = np.nan
    return rounds


REPLACED_NOTE = (
    "sensitivity view, not an estimate: the judge's verdicts with only the labelled definitions "
    "swapped for people's; biased toward the judge's rate when few definitions are labelled"
)


def replaced_rates(
    obs: pd.DataFrame,
    labels: pd.DataFrame,
    *,
    by: Sequence[str] = ("model", "deck"),
    replaced: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """LKR and TDR per ``by`` cell under replaced labels (:func:`replace_labels`), beside the
    judge's rate: ``metric``, the ``by`` columns, ``n``, ``n_labelled`` (definitions people
    labelled for the metric's question), ``judge``, ``replaced``. A sensitivity view
    (:data:`REPLACED_NOTE`); the corrected estimates are
    :func:`~wordplay_audit.analysis.balderdash.corrected.corrected_rates`. ``replaced``:
    :func:`replace_labels` of the same ``obs`` and ``labels`` when the caller has it already."""
    if replaced is None:
        replaced = replace_labels(obs, labels)
    rows = []
    for metric, (column, human, judge) in {
        "lkr": ("knows", "human_any", "knows_judge"),
        "tdr": ("true_def", "human_ref", "true_def_judge"),
    }.items():
        grouped = replaced.groupby(list(by), sort=True, dropna=False)
        table = grouped.agg(
            n=(column, "size"),
            n_labelled=(human, lambda s: int(s.notna().sum())),
            judge=(judge, "mean"),
            replaced=(column, "mean"),
        ).reset_index()
        rows.append(table.assign(metric=metric))
    out = pd.concat(rows, ignore_index=True)
    out.attrs["note"] = REPLACED_NOTE
    return out[["metric", *by, "n", "n_labelled", "judge", "replaced"]]
