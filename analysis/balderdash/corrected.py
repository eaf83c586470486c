"""Balderdash rates corrected for the judge's errors with a human sample.

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

from wordplay_audit.analysis.balderdash.recompute import METRIC_QUESTION, labels_for
from wordplay_audit.analysis.correction import (
    JudgeAccuracy,
    poststratified_accuracy,
    ppi_mean,
    rogan_gladen,
    stratified_mean,
)
from wordplay_audit.analysis.judge_audit import human_consensus
from wordplay_audit.analysis.proportions import z_value
from wordplay_audit.errors import ParameterError, check_choice

_OTHER = {"true_def": "knows", "knows": "true_def"}


@dataclass
class _Frame:
    data: pd.DataFrame
    judge_col: str
    other_col: str


def _question_frame(obs: pd.DataFrame, labels: pd.DataFrame | None, metric: str) -> _Frame:
    """The cell data for ``metric``: ``judge``, ``human`` (the consensus; NA where unlabelled
    or when ``labels`` is None) and ``labelled``."""
    question, judge_col = METRIC_QUESTION[metric]
    mapping = {}
    if labels is not None:
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
    checked = labels_for(obs, labels)
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
                strata=acc.strata
                + (("pooled_se",) if not se_ok else ())
                + (("pooled_sp",) if not sp_ok else ()),
            )
        out[model] = acc
    return out


def _ppi_stratified(
    cell: pd.DataFrame, pooled: pd.DataFrame, other_col: str, z: float
) -> tuple[float, float, bool]:
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
        counts[key] = (
            (model, theta * len(cell), (1 - theta) * len(cell))
            if np.isfinite(theta)
            else (model, np.nan, np.nan)
        )
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
    by = _check_corrected_args(obs, labels, accuracy, by=by, design=design, metrics=metrics)
    needed = list(
        dict.fromkeys(
            [*by, "item_id", "model", "true_def", "knows", *[c for c in strata if c in obs.columns]]
        )
    )
    obs = obs[needed]
    checked = labels_for(obs, labels) if labels is not None else None
    z = z_value(confidence)
    rows = []
    for metric in metrics:
        frame = _question_frame(obs, checked, metric)
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
            acc = acc_by_model.get(model, JudgeAccuracy.unknown())
            row.update(metric=metric, **_rg_estimate(cell, acc, shares.get(key, (0.0, 0.0)), z))
            ppi_design = None if checked is None else design
            row.update(_ppi_estimate(cell, pooled_by_model[model], frame.other_col, ppi_design, z))
            row["accuracy_pooled"] = any(str(t).startswith("pooled") for t in acc.strata)
            rows.append(row)
    columns = ["metric", *by, "n", "n_labelled", "judge", "replaced", "se", "sp", "rg", "rg_low", "rg_high",
               "ppi", "ppi_low", "ppi_high", "ppi_lambda", "ppi_pooled", "accuracy_pooled"]  # fmt: skip
    return pd.DataFrame(rows, columns=columns)


def _check_corrected_args(obs, labels, accuracy, *, by, design, metrics) -> list[str]:
    check_choice("design", design, ("stratified", "random"))
    for metric in metrics:
        check_choice("metric", metric, tuple(METRIC_QUESTION))
    by = list(by)
    if "model" not in by:
        raise ParameterError("corrected_rates: 'by' must include 'model' (the judge's accuracy is per model)")
    for column in by:
        if column not in obs.columns:
            raise ParameterError(f"corrected_rates: column {column!r} is not in the player-round table")
    if labels is None and accuracy is None:
        raise ParameterError("corrected_rates needs human labels or assumed judge accuracy")
    return by


def _clip(value: float) -> float:
    return float(np.clip(value, 0, 1)) if np.isfinite(value) else np.nan


def _rg_estimate(cell: pd.DataFrame, acc: JudgeAccuracy, shares: tuple[float, float], z: float) -> dict:
    """Rogan–Gladen on the whole cell (the unlabelled rest is selected on the judge's verdict
    when sampling is stratified, which breaks p = Se θ + (1 − Sp)(1 − θ) there), with the
    cell's counts and its replaced rate."""
    n = len(cell)
    labelled = cell["labelled"].to_numpy(bool)
    pos_lab = float(cell.loc[labelled, "human"].astype(bool).sum()) if labelled.any() else 0.0
    judge_rate = float(cell["judge"].mean())
    rg, var_rg = rogan_gladen(judge_rate, acc, n, share_pos=shares[0], share_neg=shares[1])
    half = z * np.sqrt(var_rg)
    return {
        "n": n,
        "n_labelled": int(labelled.sum()),
        "judge": judge_rate,
        "replaced": (pos_lab + float(cell.loc[~labelled, "judge"].sum())) / n,
        "se": acc.se,
        "sp": acc.sp,
        "rg": float(np.clip(rg, 0, 1)),
        "rg_low": float(np.clip(rg - half, 0, 1)),
        "rg_high": float(np.clip(rg + half, 0, 1)),
    }


def _ppi_estimate(
    cell: pd.DataFrame, pooled: pd.DataFrame, other_col: str, design: str | None, z: float
) -> dict:
    """PPI++ (random design) or the stratified double-sampling estimate of the cell's rate;
    human labels where present, the estimate for the unlabelled rest."""
    out = {"ppi": np.nan, "ppi_low": np.nan, "ppi_high": np.nan, "ppi_lambda": np.nan, "ppi_pooled": False}
    if design is None:
        return out
    lab, unl = cell[cell["labelled"]], cell[~cell["labelled"]]
    n, n_u = len(cell), len(unl)
    pos_lab = float(lab["human"].astype(bool).sum()) if len(lab) else 0.0
    if design == "random":
        y, f = lab["human"].astype(bool).to_numpy(float), lab["judge"].to_numpy(float)
        th_p, var_p, out["ppi_lambda"] = ppi_mean(y, f, unl["judge"].to_numpy(float))
        ppi = (pos_lab + n_u * th_p) / n if n_u else pos_lab / n
    else:
        th_p, var_p, out["ppi_pooled"] = _ppi_stratified(cell, pooled, other_col, z)
        ppi = (pos_lab + n_u * th_p) / n
    half = z * (n_u / n) * np.sqrt(var_p)
    out["ppi"] = _clip(ppi)
    if np.isfinite(half):
        out["ppi_low"], out["ppi_high"] = float(np.clip(ppi - half, 0, 1)), float(np.clip(ppi + half, 0, 1))
    return out
