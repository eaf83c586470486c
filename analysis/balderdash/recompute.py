"""Balderdash metrics under human labels: replace the judge where people labelled, estimate the rest.

*Replace* (:func:`replace_labels`, :func:`recompute_scores`, :func:`replaced_round_metrics`):
where people labelled a definition, their majority label replaces ``judge_decision`` (question
``reference``) and ``llm_knows_one_of_the_defs`` (question ``any_sense``). LKR and TDR follow
directly. Scores, DR, CGR and AS follow only where the game's outcome is determined: a
definition turned true earns ``correct_definition_points`` and its vote is void, provided nobody
voted for it; any other change (a definition turned false, or a turned-true one that drew
votes) changes the ballot, so the round is flagged ``needs_replay`` and its vote-based metrics
are left undefined.

*Estimate* (:func:`corrected_rates`): the share of truly-true definitions (TDR) or truly-known
words (LKR) in a cell of the export, = human labels where present plus an estimate for the
unlabelled rest, by two methods with normal intervals:

* Rogan–Gladen (1978, Am. J. Epidemiol. 107:71): θ̂ = (p + Sp − 1)/(Se + Sp − 1), p the judge's
  rate on all N definitions of the cell and Se, Sp the judge's sensitivity and specificity for
  the player model, estimated from the human sample
  (:func:`analysis.judge_audit.poststratified_accuracy`). It uses the whole cell, not only the
  unlabelled rest: with a sample stratified on the judge's verdict the rest is selected on the
  judge's output and p = Se θ + (1 − Sp)(1 − θ) no longer holds there. Delta-method variance
  Var = [θ² Var(Se) + (1 − θ)² Var(Sp) − 2θ(1 − θ) Cov(Se, Sp)]/J²
        + [θ Se(1 − Se) + (1 − θ) Sp(1 − Sp)] / (N J²),   J = Se + Sp − 1,
  the second term being the judge's own noise on the cell's N items (Greenland 1996,
  Epidemiology 7:498, for the first).
* PPI++ (Angelopoulos, Duchi & Zrnic 2023, "PPI++: Efficient prediction-powered inference",
  mean estimation). ``design="random"`` (people labelled a simple random sample of the cell):
  θ̂ = λ f̄_u + mean_L(Y − λ f) with the power-tuned λ = Cov(Y, f) / ((1 + n/N_u) Var(f)), clipped
  to [0, 1]. ``design="stratified"`` (sample drawn within judge-verdict strata, the default): the
  rectifier is estimated stratum by stratum; as the judge's output is constant inside a
  stratum, λ cancels and θ̂ = Σ_s W_s q_s (the double-sampling estimator, Tenenbein 1970).
  Both use the variance of the realised unlabelled share, Var(Y − λ f)(1/n + 1/N_u).

The target is the realised share in the cell's definitions (what the study would report with
perfect labels), not a super-population rate. Point estimates and intervals are clipped to
[0, 1].
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from wordplay_audit.analysis.balderdash.metrics import DEFAULT_SETTING, round_metrics
from wordplay_audit.analysis.correction import (
    JudgeAccuracy,
    poststratified_accuracy,
    ppi_mean,
    rogan_gladen,
    stratified_mean,
)
from wordplay_audit.analysis.judge_audit import boolean_labels, human_consensus
from wordplay_audit.analysis.proportions import z_value

from wordplay_audit.errors import InputError

METRIC_QUESTION = {"tdr": ("reference", "true_def"), "lkr": ("any_sense", "knows")}
"""Metric → (question people answered, judge column of the player-round table)."""

_OTHER = {"true_def": "knows", "knows": "true_def"}


def _labels_for(obs: pd.DataFrame, labels: pd.DataFrame) -> pd.DataFrame:
    checked = boolean_labels(labels)
    unknown = ~checked["item_id"].isin(set(obs["item_id"]))
    if unknown.any():
        pos = int(np.flatnonzero(unknown.to_numpy())[0])
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
    consensus (left to the judge).
    """
    checked = _labels_for(obs, labels)
    out = obs.copy()
    out["true_def_judge"] = out["true_def"].astype(bool)
    out["knows_judge"] = out["knows"].astype(bool)
    skipped = {}
    for question, column in (("reference", "human_ref"), ("any_sense", "human_any")):
        consensus = human_consensus(checked, question=question)
        skipped[f"ties_{question}"] = int(consensus["tie"].sum()) if len(consensus) else 0
        mapping = dict(zip(consensus["item_id"], consensus["human"], strict=True))
        out[column] = pd.array([mapping.get(i) for i in out["item_id"]], dtype="boolean")
    has_ref = out["human_ref"].notna().to_numpy()
    has_any = out["human_any"].notna().to_numpy()
    ref = out["human_ref"].fillna(False).to_numpy(bool)
    true_def = np.where(has_ref, ref, out["true_def_judge"].to_numpy(bool))
    judge_ref = out["true_def_judge"].to_numpy(bool)
    judge_knows = out["knows_judge"].to_numpy(bool)
    from_ref_only = has_ref & ~has_any
    knows_from_ref = ref | (judge_knows & ~judge_ref)
    knows = np.where(has_any, out["human_any"].fillna(False).to_numpy(bool),
                     np.where(from_ref_only, knows_from_ref, judge_knows))
    out["knows_undetermined"] = from_ref_only & judge_ref & ~ref & ~knows_from_ref
    out["true_def"] = true_def
    out["knows"] = knows
    out["relabelled"] = out["true_def"] != out["true_def_judge"]
    out.attrs["skipped"] = skipped
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
        raise InputError(f"recompute_scores needs column {missing[0]!r} (run replace_labels on player_round_table)")
    out = replaced.copy()
    out["score"] = out["score"].astype(float)
    keys = ["game_id", "round_id"]
    changed = out["true_def"] != out["true_def_judge"]
    turned_true = changed & out["true_def"]
    turned_false = changed & ~out["true_def"]
    votes_for = out.loc[(out["vote"] != "") & (out["vote"] != "-1") & (out["vote"] != out["player_id"])]
    received = votes_for.groupby(keys + ["vote"]).size()
    idx = pd.MultiIndex.from_frame(out[keys + ["player_id"]])
    drew_votes = pd.Series(received.reindex(idx).fillna(0).to_numpy() > 0, index=out.index)
    round_changed = changed.groupby([out[k] for k in keys]).transform("any")
    replay = (turned_false | (turned_true & drew_votes)).groupby([out[k] for k in keys]).transform("any")
    status = np.where(~round_changed, "unchanged", np.where(replay, "needs_replay", "recomputed"))
    out["round_status"] = status
    rec = (out["round_status"] == "recomputed").to_numpy()
    for pos in np.flatnonzero(rec & turned_true.to_numpy()):
        row = out.iloc[pos]
        vote = row["vote"]
        if vote == "-1":
            out.iloc[pos, out.columns.get_loc("score")] -= row["correct_vote_points"]
        elif vote:
            target = (
                (out["game_id"] == row["game_id"]) & (out["round_id"] == row["round_id"]) & (out["player_id"] == vote)
            ).to_numpy()
            out.loc[target, "score"] -= row["receiving_vote_points"]
        out.iloc[pos, out.columns.get_loc("score")] += row["correct_definition_points"]
        out.iloc[pos, out.columns.get_loc("vote")] = ""
    out.loc[out["round_status"] == "needs_replay", "score"] = np.nan
    return out


def replaced_round_metrics(rescored: pd.DataFrame, *, keep: Sequence[str] = DEFAULT_SETTING) -> pd.DataFrame:
    """:func:`~analysis.balderdash.metrics.round_metrics` on relabelled rows; DR, CGR and AS are
    nan in rounds that need a replayed vote. Adds ``needs_replay`` (bool) per row."""
    rounds = round_metrics(rescored, keep=keep)
    flag = (
        rescored.assign(r=rescored["round_status"] == "needs_replay")
        .groupby(["game_id", "round_id"])["r"].any().rename("needs_replay").reset_index()
    )
    rounds = rounds.merge(flag, on=["game_id", "round_id"], how="left")
    rounds.loc[rounds["needs_replay"], ["dr", "cgr", "as"]] = np.nan
    return rounds


# --------------------------------------------------------------------------- estimation


@dataclass
class _Frame:
    data: pd.DataFrame
    judge_col: str
    other_col: str


def _question_frame(obs: pd.DataFrame, labels: pd.DataFrame, metric: str) -> _Frame:
    question, judge_col = METRIC_QUESTION[metric]
    consensus = human_consensus(labels, question=question)
    mapping = dict(zip(consensus["item_id"], consensus["human"], strict=True))
    data = obs.copy()
    data["judge"] = data[judge_col].astype(bool)
    data["human"] = pd.array([mapping.get(i) for i in data["item_id"]], dtype="boolean")
    data["labelled"] = data["human"].notna()
    return _Frame(data, judge_col, _OTHER[judge_col])


def model_accuracy(
    obs: pd.DataFrame, labels: pd.DataFrame, *, metric: str = "tdr", strata: Sequence[str] = ("deck",)
) -> dict[str, JudgeAccuracy]:
    """Per player model, the judge's post-stratified Se and Sp for ``metric``'s question.

    Post-strata: ``strata`` × the judge's other decision × the judge's decision (coarsened when
    a post-stratum has no label; see :func:`analysis.judge_audit.poststratified_accuracy`).
    """
    checked = _labels_for(obs, labels)
    frame = _question_frame(obs, checked, metric)
    return _accuracy_by_model(frame, strata)


def _accuracy_by_model(frame: _Frame, strata: Sequence[str]) -> dict[str, JudgeAccuracy]:
    """Per-model accuracy; a component that a model's labels cannot estimate (no human-true or
    no human-false definition of that model) is taken from all models pooled."""
    extra = [c for c in [*strata, frame.other_col] if c in frame.data.columns]
    pooled = poststratified_accuracy(frame.data, strata=["model", *extra])
    out = {}
    for model, part in frame.data.groupby("model", sort=True):
        acc = poststratified_accuracy(part, strata=extra)
        se_ok, sp_ok = np.isfinite(acc.se), np.isfinite(acc.sp)
        if not (se_ok and sp_ok):
            acc = JudgeAccuracy(
                se=acc.se if se_ok else pooled.se,
                sp=acc.sp if sp_ok else pooled.sp,
                var_se=acc.var_se if se_ok else pooled.var_se,
                var_sp=acc.var_sp if sp_ok else pooled.var_sp,
                cov=acc.cov if (se_ok and sp_ok) else 0.0,
                n_labelled=acc.n_labelled,
                strata=acc.strata + (("pooled_se",) if not se_ok else ()) + (("pooled_sp",) if not sp_ok else ()),
            )
        out[model] = acc
    return out


def _ppi_stratified(cell: pd.DataFrame, pooled: pd.DataFrame, other_col: str, z: float) -> tuple[float, float, bool]:
    """Σ_s W_s q_s over post-strata (judge, other judge decision) of the cell's unlabelled rows."""
    unl = cell[~cell["labelled"]]
    if unl.empty:
        return 0.0, 0.0, False
    ok, used_pool, parts = False, False, []
    for keys in (["judge", other_col], ["judge"]):
        ok, used_pool, parts = True, False, []
        for key, u in unl.groupby(keys):
            key = key if isinstance(key, tuple) else (key,)
            mask = np.ones(len(cell), dtype=bool)
            pmask = np.ones(len(pooled), dtype=bool)
            for k, v in zip(keys, key, strict=True):
                mask &= (cell[k] == v).to_numpy()
                pmask &= (pooled[k] == v).to_numpy()
            lab = cell[mask & cell["labelled"].to_numpy()]
            if lab.empty:
                lab = pooled[pmask & pooled["labelled"].to_numpy()]
                used_pool = True
            if lab.empty:
                ok = False
                break
            parts.append((len(u), len(lab), int(lab["human"].astype(bool).sum())))
        if ok:
            break
    if not ok:
        return np.nan, np.nan, used_pool
    theta, var = stratified_mean(*zip(*parts, strict=True), z=z)
    return theta, var, used_pool


def _rg_shares(
    data: pd.DataFrame, by: Sequence[str], acc_by_model: Mapping[str, JudgeAccuracy]
) -> dict[tuple, tuple[float, float]]:
    """Per cell: its estimated share of its model's true and of its false definitions
    (Rogan–Gladen counts θ̂ n and (1 − θ̂) n over the model's cells)."""
    counts = {}
    for key, cell in data.groupby(list(by), sort=True, dropna=False):
        key = key if isinstance(key, tuple) else (key,)
        model = dict(zip(by, key, strict=True))["model"]
        acc = acc_by_model.get(model)
        theta = rogan_gladen(float(cell["judge"].mean()), acc, len(cell))[0] if acc is not None else np.nan
        counts[key] = (model, theta * len(cell), (1 - theta) * len(cell)) if np.isfinite(theta) else (model, np.nan, np.nan)
    totals: dict[str, list[float]] = {}
    for model, pos, neg in counts.values():
        total = totals.setdefault(model, [0.0, 0.0])
        total[0] += pos
        total[1] += neg
    out = {}
    for key, (model, pos, neg) in counts.items():
        tp, tn = totals[model]
        out[key] = (pos / tp if tp > 0 else 1.0, neg / tn if tn > 0 else 1.0)
        out[key] = tuple(float(v) if np.isfinite(v) else 0.0 for v in out[key])
    return out


def corrected_rates(
    obs: pd.DataFrame,
    labels: pd.DataFrame | None = None,
    *,
    metrics: Sequence[str] = ("lkr", "tdr"),
    by: Sequence[str] = ("model", "deck"),
    design: str = "stratified",
    confidence: float = 0.95,
    accuracy: Mapping[str, Mapping[str, JudgeAccuracy]] | None = None,
    strata: Sequence[str] = ("deck",),
) -> pd.DataFrame:
    """Corrected LKR and TDR per ``by`` cell with Rogan–Gladen and PPI++ intervals.

    Parameters
    ----------
    obs
        :func:`corpora.balderdash.player_round_table` (judge values in ``knows``/``true_def``).
    labels
        Contract labels with people's answers (``question`` ``reference`` → TDR,
        ``any_sense`` → LKR). May be None when ``accuracy`` is given (Rogan–Gladen only).
    by
        Cell columns; must include ``model`` (Se/Sp are per model).
    design
        ``"stratified"`` (people labelled a sample within judge-verdict strata) or ``"random"``.
    accuracy
        ``{metric: {model: JudgeAccuracy}}`` to use instead of estimating it from ``labels``
        (e.g. assumed values with zero variance).

    Returns
    -------
    DataFrame, one row per cell and metric: ``metric``, the ``by`` columns, ``n`` definitions,
    ``n_labelled``, ``judge`` (the judge's rate), ``replaced`` (human where labelled, judge
    elsewhere), ``se``, ``sp`` of the judge for the model, ``rg``, ``rg_low``, ``rg_high``,
    ``ppi``, ``ppi_low``, ``ppi_high``, ``ppi_lambda`` (nan for the stratified design) and
    ``ppi_pooled`` (True when a verdict stratum of the cell had no label and the model's
    pooled stratum share was used) and ``accuracy_pooled`` (True when the model's labels could
    not estimate Se or Sp – e.g. people called none of its definitions false – and the value of
    all models pooled was used).
    """
    if design not in ("stratified", "random"):
        raise InputError(f"design must be 'stratified' or 'random', got {design!r}")
    by = list(by)
    if "model" not in by:
        raise InputError("corrected_rates: 'by' must include 'model' (the judge's accuracy is per model)")
    for column in by:
        if column not in obs.columns:
            raise InputError(f"corrected_rates: column {column!r} is not in the player-round table")
    if labels is None and accuracy is None:
        raise InputError("corrected_rates needs human labels or assumed judge accuracy")
    needed = list(dict.fromkeys([*by, "item_id", "model", "true_def", "knows", *[c for c in strata if c in obs.columns]]))
    obs = obs[needed]
    checked = _labels_for(obs, labels) if labels is not None else None
    z = z_value(confidence)
    rows = []
    for metric in metrics:
        if metric not in METRIC_QUESTION:
            raise InputError(f"metric must be 'lkr' or 'tdr', got {metric!r}")
        if checked is not None:
            frame = _question_frame(obs, checked, metric)
        else:
            data = obs.copy()
            data["judge"] = data[METRIC_QUESTION[metric][1]].astype(bool)
            data["human"] = pd.array([None] * len(data), dtype="boolean")
            data["labelled"] = False
            frame = _Frame(data, METRIC_QUESTION[metric][1], _OTHER[METRIC_QUESTION[metric][1]])
        if accuracy is not None and metric in accuracy:
            acc_by_model = dict(accuracy[metric])
        else:
            acc_by_model = _accuracy_by_model(frame, strata)
        pooled_by_model = dict(iter(frame.data.groupby("model", sort=True)))
        shares = _rg_shares(frame.data, by, acc_by_model)
        for key, cell in frame.data.groupby(by, sort=True, dropna=False):
            key = key if isinstance(key, tuple) else (key,)
            row = dict(zip(by, key, strict=True))
            model = row["model"]
            n = len(cell)
            lab = cell[cell["labelled"]]
            unl = cell[~cell["labelled"]]
            n_lab, n_u = len(lab), len(unl)
            pos_lab = float(lab["human"].astype(bool).sum()) if n_lab else 0.0
            judge_rate = float(cell["judge"].mean())
            replaced = (pos_lab + float(unl["judge"].sum())) / n
            acc = acc_by_model.get(model, JudgeAccuracy.unknown())
            # Rogan–Gladen on the whole cell: the unlabelled rest is selected on the judge's
            # verdict when sampling is stratified, which breaks p = Se θ + (1 − Sp)(1 − θ) there.
            share_pos, share_neg = shares.get(key, (0.0, 0.0))
            rg, var_rg = rogan_gladen(judge_rate, acc, n, share_pos=share_pos, share_neg=share_neg)
            rg_half = z * np.sqrt(var_rg)
            lam = np.nan
            pooled_flag = False
            if checked is None:
                ppi, ppi_half = np.nan, np.nan
            elif design == "random":
                th_p, var_p, lam = ppi_mean(
                    lab["human"].astype(bool).to_numpy(float), lab["judge"].to_numpy(float), unl["judge"].to_numpy(float)
                )
                ppi = (pos_lab + n_u * th_p) / n if n_u else pos_lab / n
                ppi_half = z * (n_u / n) * np.sqrt(var_p)
            else:
                th_p, var_p, pooled_flag = _ppi_stratified(cell, pooled_by_model[model], frame.other_col, z)
                ppi = (pos_lab + n_u * th_p) / n
                ppi_half = z * (n_u / n) * np.sqrt(var_p)
            row.update(
                metric=metric, n=n, n_labelled=n_lab, judge=judge_rate, replaced=replaced,
                se=acc.se, sp=acc.sp,
                rg=float(np.clip(rg, 0, 1)),
                rg_low=float(np.clip(rg - rg_half, 0, 1)), rg_high=float(np.clip(rg + rg_half, 0, 1)),
                ppi=float(np.clip(ppi, 0, 1)) if np.isfinite(ppi) else np.nan,
                ppi_low=float(np.clip(ppi - ppi_half, 0, 1)) if np.isfinite(ppi_half) else np.nan,
                ppi_high=float(np.clip(ppi + ppi_half, 0, 1)) if np.isfinite(ppi_half) else np.nan,
                ppi_lambda=lam, ppi_pooled=pooled_flag,
                accuracy_pooled=any(str(t).startswith("pooled") for t in acc.strata),
            )
            rows.append(row)
    columns = ["metric", *by, "n", "n_labelled", "judge", "replaced", "se", "sp", "rg", "rg_low", "rg_high",
               "ppi", "ppi_low", "ppi_high", "ppi_lambda", "ppi_pooled", "accuracy_pooled"]
    return pd.DataFrame(rows, columns=columns)
