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

Intervals (``CorrectionOptions(method=…)``): ``"exact"`` (default) is exact for the binomial
pieces. A cell made of whole sampling strata of its model (model × deck) gets the randomised
Clopper–Pearson predictive interval of its realised share from its own post-strata
(:mod:`analysis.correction.calibration`) for PPI and Rogan–Gladen alike; Rogan–Gladen then uses
the cell's own post-stratified Se and Sp (its point is the post-stratified share, unbiased where
the judge's accuracy differs by deck). A cell inside one sampling stratum (one round or a window
of a deck) uses its own labels the same way where it has ``min_labels`` per post-stratum, and
else, only if the caller assumes the judge as accurate in all of the stratum
(``constant_accuracy``), the Rogan–Gladen model with its stratum's Se and Sp
(``mixture_share_interval``; see :mod:`.corrected_cells`). Per-cell coverage is
measured in docs/methods/corrected-shares.md and docs/methods/rogan-gladen-ppi.md; a cell with fewer than ``min_labels``
labels in a post-stratum gets no interval and says why in ``rg_reason``/``ppi_reason``.
``"normal"`` gives the delta-method intervals above (with the model's Se and Sp).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

import numpy as np
import pandas as pd

from wordplay_audit.analysis.balderdash.corrected_cells import (
    CellUse,
    CorrectionOptions,
    ModelAccuracy,
    draws_for_model,
    missing_reason,
    ppi_cell,
    rg_cell,
)
from wordplay_audit.analysis.balderdash.corrected_frame import CellFrame, categorical_texts, question_frame
from wordplay_audit.analysis.balderdash.recompute import METRIC_QUESTION, labels_for
from wordplay_audit.analysis.correction import (
    JudgeAccuracy,
    poststratified_accuracy,
    rogan_gladen,
    seeded_rng,
)
from wordplay_audit.analysis.correction.cells import WEIGHT
from wordplay_audit.analysis.proportions import z_value
from wordplay_audit.errors import ParameterError, check_choice

__all__ = ["CorrectionOptions", "ModelAccuracy", "corrected_rates", "model_accuracy", "model_accuracy_draws"]


def model_accuracy(
    obs: pd.DataFrame, labels: pd.DataFrame, *, metric: str = "tdr", strata: Sequence[str] = ("deck",)
) -> dict[str, JudgeAccuracy]:
    """Per player model, the judge's post-stratified Se and Sp for ``metric``'s question.

    Post-strata: ``strata`` × the judge's other decision × the judge's decision (coarsened when
    a post-stratum has no label; see :func:`analysis.judge_audit.poststratified_accuracy`).
    """
    return {m: a.acc for m, a in model_accuracy_draws(obs, labels, metric=metric, strata=strata).items()}


def model_accuracy_draws(
    obs: pd.DataFrame,
    labels: pd.DataFrame,
    *,
    metric: str = "tdr",
    strata: Sequence[str] = ("deck",),
    options: CorrectionOptions | None = None,
) -> dict[str, ModelAccuracy]:
    """:func:`model_accuracy` with posterior draws of the Se and Sp generating each model's
    verdicts (what a round or window borrows)."""
    checked = labels_for(obs, labels)
    frame = question_frame(obs, checked, metric)
    opts = options or CorrectionOptions(strata=tuple(strata))
    return _accuracy_by_model(frame, tuple(strata), opts)


def _accuracy_by_model(
    frame: CellFrame, strata: Sequence[str], opts: CorrectionOptions
) -> dict[str, ModelAccuracy]:
    """Per-model accuracy; a component that a model's labels cannot estimate (no human-true or
    no human-false definition of that model) is taken from all models pooled."""
    extra = [c for c in [*strata, frame.other_col] if c in frame.data.columns]
    pooled = poststratified_accuracy(frame.data, strata=["model", *extra])
    levels = [extra, [c for c in strata if c in frame.data.columns], []]
    pooled_draws = None
    out = {}
    for model, part in frame.data.groupby("model", sort=True, observed=True):
        acc = poststratified_accuracy(part, strata=extra)
        se_ok, sp_ok = np.isfinite(acc.se), np.isfinite(acc.sp)
        if not frame.has_question:
            out[model] = ModelAccuracy(acc)
            continue
        draws = draws_for_model(part, acc, levels, opts)
        if not (se_ok and sp_ok):
            if pooled_draws is None:
                pooled_levels = [["model", *lv] for lv in levels]
                pooled_draws = draws_for_model(frame.data.assign(model="*"), pooled, pooled_levels, opts)
            draws = _swap_pooled(draws, pooled_draws, se_ok, sp_ok)
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
        out[model] = replace(draws, acc=acc)
    return out


def _swap_pooled(own: ModelAccuracy, pooled: ModelAccuracy, se_ok: bool, sp_ok: bool) -> ModelAccuracy:
    """The model's draws with Se (Sp) taken from all models pooled where its own labels hold no
    human-true (human-false) definition, as the point estimate does."""
    if own.se_draws is None or pooled.se_draws is None:
        return own if own.se_draws is None else pooled
    se = own.se_draws if se_ok else pooled.se_draws
    sp = own.sp_draws if sp_ok else pooled.sp_draws
    return replace(own, se_draws=se, sp_draws=sp)


def _rg_shares(
    data: pd.DataFrame, by: Sequence[str], acc_by_model: Mapping[str, ModelAccuracy]
) -> dict[tuple, tuple[float, float]]:
    """Per cell: its estimated share of its model's true and of its false definitions
    (Rogan–Gladen counts θ̂ n and (1 − θ̂) n over the model's cells)."""
    counts = {}
    for key, cell in data.groupby(list(by), sort=True, dropna=False, observed=True):
        key = key if isinstance(key, tuple) else (key,)
        model = dict(zip(by, key, strict=True))["model"]
        found = acc_by_model.get(model)
        theta = rogan_gladen(float(cell["judge"].mean()), found.acc, len(cell))[0] if found else np.nan
        ok = np.isfinite(theta)
        counts[key] = (model, theta * len(cell) if ok else np.nan, (1 - theta) * len(cell) if ok else np.nan)
    totals: dict[str, list[float]] = {}
    for model, pos, neg in counts.values():
        total = totals.setdefault(model, [0.0, 0.0])
        total[0] += pos
        total[1] += neg
    out = {}
    for key, (model, pos, neg) in counts.items():
        tp, tn = totals[model]
        shares = (pos / tp if tp > 0 else 1.0, neg / tn if tn > 0 else 1.0)
        out[key] = tuple(float(v) if np.isfinite(v) else 0.0 for v in shares)
    return out


def _given_accuracy(given: Mapping, opts: CorrectionOptions) -> dict[str, ModelAccuracy]:
    """Accuracy passed in: :class:`ModelAccuracy` as is, :class:`JudgeAccuracy` as assumed."""
    out = {}
    for model, value in given.items():
        if isinstance(value, ModelAccuracy):
            out[model] = value
        else:
            out[model] = ModelAccuracy.assumed(value, opts.draws, seeded_rng(opts.seed, "assumed", model))
    return out


def corrected_rates(
    obs: pd.DataFrame,
    labels: pd.DataFrame | None = None,
    *,
    metrics: Sequence[str] = ("lkr", "tdr"),
    by: Sequence[str] = ("model", "deck"),
    design: str = "stratified",
    confidence: float = 0.95,
    accuracy: Mapping[str, Mapping[str, JudgeAccuracy | ModelAccuracy]] | None = None,
    options: CorrectionOptions | None = None,
) -> pd.DataFrame:
    """Corrected LKR and TDR per ``by`` cell with Rogan–Gladen and PPI intervals.

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
        ``{metric: {model: JudgeAccuracy | ModelAccuracy}}`` to use instead of estimating it from
        ``labels`` (e.g. assumed values with zero variance).
    options
        :class:`CorrectionOptions`: sampling strata (default ``("deck",)``), interval method
        (``"exact"`` default, or ``"normal"``), ``min_labels`` (5), ``min_labels_borrowed`` (10:
        labels per judge-verdict stratum a round or window needs to borrow its stratum's Se/Sp),
        posterior ``draws``, ``seed``, ``only`` (compute only the cells where a boolean ``by``
        column is true), ``constant_accuracy`` (a part of a stratum may borrow its Se/Sp).

    Returns
    -------
    DataFrame, one row per cell and metric: ``metric``, the ``by`` columns, ``n`` definitions,
    ``n_labelled``, ``judge`` (the judge's rate), ``se``, ``sp`` of the judge for the model (the
    cell's own where Rogan–Gladen used them, see Intervals above),
    ``rg``, ``rg_unclipped`` (before clipping to [0, 1]), ``rg_low``, ``rg_high``, ``rg_reason``,
    ``rg_basis`` (where the Se and Sp behind ``rg`` come from, ``corrected_cells.BASES``: ``"own"``
    the cell's own labels, ``"stratum"`` the model × deck a round or window lies in – only with
    ``constant_accuracy`` –, ``"model"``, ``"given"``; None where ``rg`` is nan), ``rg_unknown``
    (items of a finest post-stratum without a label of the cell, counted as unknown in the
    own-label interval; nan where that interval was not built), ``ppi``, ``ppi_low``,
    ``ppi_high``, ``ppi_lambda`` (nan for the stratified design), ``ppi_pooled``, ``ppi_reason``,
    ``ppi_unknown`` (as ``rg_unknown``) and ``accuracy_pooled``. A value that cannot be computed is nan
    with the reason in ``*_reason`` (e.g. "needs any_sense labels"); the flags ``ppi_pooled``
    (a verdict stratum of the cell had no label and the model's share was used) and
    ``accuracy_pooled`` (the model's labels could not estimate Se or Sp and all models pooled
    were used) are None where nothing was computed.
    """
    by = _check_corrected_args(obs, labels, accuracy, by=by, design=design, metrics=metrics)
    opts = options or CorrectionOptions()
    if opts.only is not None and opts.only not in by:
        raise ParameterError(
            f"corrected_rates: options.only={opts.only!r} must be one of the 'by' columns {by}"
        )
    if design == "random" and WEIGHT in obs.columns:
        raise ParameterError(
            "design 'random' cannot use sampling weights: an adaptive campaign is 'stratified'"
        )
    strata = [c for c in opts.strata if c in obs.columns]
    weight = [WEIGHT] if WEIGHT in obs.columns else []  # 1/π of an adaptive campaign's items
    checked = labels_for(obs, labels) if labels is not None else None
    # item_id stays out of the cells (their row splits would take a million texts): a cell's
    # first id, which seeds its intervals, is looked up by position
    item_ids = obs["item_id"].reset_index(drop=True)
    obs = categorical_texts(
        obs[list(dict.fromkeys([*by, "model", "true_def", "knows", *strata, *weight]))]
    ).reset_index(drop=True)
    z_value(confidence)
    rows = []
    for metric in metrics:
        frame = question_frame(obs, checked, metric, item_ids)
        if accuracy is not None and metric in accuracy:
            acc_by_model = _given_accuracy(accuracy[metric], opts)
        else:
            acc_by_model = _accuracy_by_model(frame, strata, opts)
        given = accuracy is not None and metric in accuracy
        rows += _metric_rows(
            frame, metric, by, acc_by_model, None if checked is None else design, confidence, opts, not given
        )
    table = pd.DataFrame(rows, columns=_COLUMNS_HEAD + by + _COLUMNS_TAIL)
    counts = {c: table[c].astype("Int64") for c in ("rg_unknown", "ppi_unknown")}  # a count or <NA>
    return table.assign(**{c: table[c].astype(object).where(table[c].notna(), None) for c in _TEXT}, **counts)


_COLUMNS_HEAD, _TEXT = ["metric"], ("rg_reason", "rg_basis", "ppi_reason")  # text or None (object)
_COLUMNS_TAIL = ["n", "n_labelled", "judge", "se", "sp", "rg", "rg_unclipped", "rg_low", "rg_high", "rg_reason",
                 "rg_basis", "rg_unknown", "ppi", "ppi_low", "ppi_high", "ppi_lambda", "ppi_pooled", "ppi_reason", "ppi_unknown", "accuracy_pooled"]  # fmt: skip


def _metric_rows(
    frame: CellFrame, metric: str, by, acc_by_model, design, confidence: float, opts, estimated: bool = True
) -> list[dict]:
    """One row per ``by`` cell. ``estimated``: the accuracy came from the labels here (not given),
    so a cell inside one sampling stratum uses that stratum's Se and Sp (:func:`_stratum_accuracy`)."""
    pooled_by_model = dict(iter(frame.data.groupby("model", sort=True, observed=True)))
    cache: dict = {}
    shares = _rg_shares(frame.data, by, acc_by_model)
    why = missing_reason(frame.question, frame.has_question)
    rows = []
    for key, cell in frame.data.groupby(by, sort=True, dropna=False, observed=True):
        key = key if isinstance(key, tuple) else (key,)
        if opts.only is not None and not bool(key[list(by).index(opts.only)]):
            continue  # a cell the caller does not want (e.g. outside convergence's window)
        row = dict(zip(by, key, strict=True))
        model_acc = acc_by_model.get(row["model"], ModelAccuracy(JudgeAccuracy.unknown()))
        row.update(
            metric=metric,
            n=len(cell),
            n_labelled=int(cell["labelled"].sum()),
            judge=float(cell["judge"].mean()),
        )
        # the cell's own Se/Sp only where the model's accuracy came from labels (not assumed)
        whole = model_acc.counts is not None and whole_strata(
            cell, pooled_by_model[row["model"]], opts.strata
        )
        # a part of one stratum (one round of a deck) may use its own labels, and else the
        # stratum's Se/Sp, where the accuracy came from the labels here (not given)
        inside = (not whole and estimated and opts.method == "exact" and model_acc.counts is not None
                  and _one_stratum(cell, opts.strata))  # fmt: skip
        own = tuple(c for c in [frame.other_col] if c in cell.columns) if whole or inside else None
        if inside:
            model_acc = _stratum_accuracy(frame, cell, pooled_by_model[row["model"]], model_acc, opts, cache)
        seed = frame.seed_key(cell)
        # a part of the model's items that is not one whole stratum (a round, a deck's subset;
        # a union of decks too: the model's pooled Se/Sp is not theirs) borrows only if assumed
        part = not whole and len(cell) < len(pooled_by_model[row["model"]])
        use = CellUse(own, whole, seed, "stratum" if inside else "model" if estimated else "given", part)
        row.update(rg_cell(cell, model_acc, shares.get(key, (0.0, 0.0)), confidence, opts, why, use))
        if design is None or not frame.has_question:
            reason = why if design is not None else "needs human labels"
            row.update(ppi=np.nan, ppi_low=np.nan, ppi_high=np.nan, ppi_lambda=np.nan, ppi_pooled=None,
                       ppi_reason=reason)  # fmt: skip
        else:
            row.update(
                ppi_cell(cell, pooled_by_model[row["model"]], frame.other_col, design, confidence, opts, seed)
            )
        computed = np.isfinite(row["rg"])
        row["accuracy_pooled"] = (
            any(str(t).startswith("pooled") for t in model_acc.acc.strata) if computed else None
        )
        rows.append(row)
    return rows


def whole_strata(cell: pd.DataFrame, model_part: pd.DataFrame, strata) -> bool:
    """Whether ``cell`` is all of its model's items in one sampling stratum (strata columns constant)."""
    if not _one_stratum(cell, strata):
        return False
    strata = [c for c in strata if c in cell.columns]
    inside = np.logical_and.reduce([(model_part[c] == cell[c].iloc[0]).to_numpy() for c in strata])
    return int(inside.sum()) == len(cell)


def _one_stratum(cell: pd.DataFrame, strata) -> bool:
    """Whether the cell lies inside one sampling stratum of its model (its strata columns constant)."""
    cols = [c for c in strata if c in cell.columns]
    return bool(cols) and all(cell[c].nunique(dropna=False) == 1 for c in cols)


def _stratum_accuracy(
    frame: CellFrame,
    cell: pd.DataFrame,
    model_part: pd.DataFrame,
    model_acc: ModelAccuracy,
    opts,
    cache: dict,
) -> ModelAccuracy:
    """The judge's accuracy on the one sampling stratum (model × ``opts.strata``) that holds a
    cell which is not whole strata (one round of a deck): Rogan–Gladen assumes one Se and Sp for
    the cell, and the stratum's are those its labels estimate without assuming the judge is as
    accurate on every deck. A component the stratum's labels cannot estimate (no human-true or
    no human-false label) is the model's."""
    cols = [c for c in opts.strata if c in cell.columns]
    values = tuple(cell[c].iloc[0] for c in cols)
    key = (str(cell["model"].iloc[0]), *values)
    if key not in cache:
        inside = np.logical_and.reduce(
            [(model_part[c] == v).to_numpy() for c, v in zip(cols, values, strict=True)]
        )
        part = model_part[inside].assign(model="|".join(map(str, key)))
        extra = [c for c in [frame.other_col] if c in part.columns]
        acc = poststratified_accuracy(part, strata=extra)
        se_ok, sp_ok = bool(np.isfinite(acc.se)), bool(np.isfinite(acc.sp))
        draws = draws_for_model(part, acc, [extra, []], opts)
        acc = replace(acc, se=acc.se if se_ok else model_acc.acc.se, sp=acc.sp if sp_ok else model_acc.acc.sp,
                      strata=model_acc.acc.strata)  # fmt: skip
        cache[key] = replace(
            draws if se_ok and sp_ok else _swap_pooled(draws, model_acc, se_ok, sp_ok), acc=acc
        )
    return cache[key]


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
