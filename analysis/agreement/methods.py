"""The consensus estimators by name: what ``wa.consensus(method=…)`` and ``analyze aggregate
--method`` fit, each giving one row per item and the per-rater (and, where the model has them,
per-item) parameters it learned.

* ``dawid-skene``: :class:`~.dawid_skene.DawidSkene` (``gold`` anchors it) – per rater a
  confusion matrix, per item the posterior;
* ``one-coin``: :class:`~wordplay_audit.analysis.agreement.one_coin.OneCoinDawidSkene` – one
  accuracy per rater, the posterior;
* ``mace``: :class:`~wordplay_audit.analysis.agreement.mace.MACE` – competence, the posterior;
* ``glad``: :class:`~.glad.GLAD` – ability α per rater, per item the posterior and difficulty;
* ``wawa``, ``zero-based-skill``: :class:`~.wawa.Wawa`, :class:`~.zero_based_skill.ZeroBasedSkill`
  – a skill per rater, per item the weighted share;
* ``gold-majority``: :class:`~.gold_majority_vote.GoldMajorityVote` (needs ``gold``) – skills on
  the gold items;
* ``weighted-majority``: :class:`~.weighted_vote.WeightedMajorityVote` (needs ``skills``).

(Majority vote with its tie policy and adjudications is :class:`~.aggregation.MajorityVote`,
which gives the final labels table instead.)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, get_args

import pandas as pd

from wordplay_audit.errors import ParameterError, check_choice

from ._common import RaterType

__all__ = ["MODEL_METHODS", "ModelMethod", "fit_consensus"]

#: A consensus estimator other than majority vote, by its name.
ModelMethod = Literal[
    "dawid-skene",
    "one-coin",
    "mace",
    "glad",
    "wawa",
    "zero-based-skill",
    "gold-majority",
    "weighted-majority",
]
#: Every :data:`ModelMethod`, in order.
MODEL_METHODS: tuple[str, ...] = get_args(ModelMethod)


def _skills(skills: pd.DataFrame | Mapping[str, float] | pd.Series) -> pd.Series:
    """Rater → skill from a Series, a mapping or a table with ``rater`` and ``skill`` columns."""
    if isinstance(skills, pd.DataFrame):
        if not {"rater", "skill"} <= set(skills.columns):
            raise ParameterError(
                f"skills: a table needs columns 'rater' and 'skill' (has {', '.join(map(str, skills.columns))})"
            )
        return pd.Series(
            pd.to_numeric(skills["skill"], errors="coerce").to_numpy(), index=skills["rater"].astype(str)
        )
    return pd.Series(skills, dtype=float)


def _check_inputs(method: str, gold: object, skills: object) -> None:
    check_choice("method", method, MODEL_METHODS)
    if gold is not None and method not in ("dawid-skene", "gold-majority"):
        raise ParameterError(
            f"gold: method {method!r} reads no gold labels (dawid-skene and gold-majority do)"
        )
    if skills is not None and method != "weighted-majority":
        raise ParameterError(
            f"skills: method {method!r} learns its own (only weighted-majority takes skills)"
        )
    if method == "gold-majority" and gold is None:
        raise ParameterError("gold: method 'gold-majority' needs the gold labels (item_id, label)")
    if method == "weighted-majority" and skills is None:
        raise ParameterError("skills: method 'weighted-majority' needs each rater's skill (rater, skill)")


def fit_consensus(
    method: str,
    rows: pd.DataFrame,
    *,
    rater_type: RaterType | None = "human",
    n_iter: int = 100,
    seed: int = 0,
    gold: pd.DataFrame | pd.Series | Mapping[str, str] | None = None,
    skills: pd.DataFrame | pd.Series | Mapping[str, float] | None = None,
) -> tuple[pd.DataFrame, dict[str, Any]]:
    """Fit the estimator ``method`` (:data:`MODEL_METHODS`) to the labels ``rows``:
    ``(consensus table, details)`` — the table one row per item (``item_id``, ``label``,
    ``posterior`` …, sorted by ``item_id``), the details the learned parameters as plain values
    (``iterations``, ``priors``, ``skills`` / ``competence`` / ``abilities`` by rater).

    ``gold`` (honeypot answers) anchors ``dawid-skene`` and is what ``gold-majority`` measures
    skills on; ``skills`` are ``weighted-majority``'s weights. Either given to a method that
    does not read it is a :class:`~wordplay_audit.errors.ParameterError`."""
    from . import (
        GLAD,
        MACE,
        DawidSkene,
        GoldMajorityVote,
        OneCoinDawidSkene,
        Wawa,
        WeightedMajorityVote,
        ZeroBasedSkill,
    )

    _check_inputs(method, gold, skills)
    who = {"rater_type": rater_type}
    build = {
        "dawid-skene": lambda: DawidSkene(n_iter=n_iter, gold=gold, **who),
        "one-coin": lambda: OneCoinDawidSkene(n_iter=n_iter, **who),
        "mace": lambda: MACE(n_iter=n_iter, seed=seed, **who),
        "glad": lambda: GLAD(n_iter=n_iter, **who),
        "wawa": lambda: Wawa(**who),
        "zero-based-skill": lambda: ZeroBasedSkill(n_iter=n_iter, **who),
        "gold-majority": lambda: GoldMajorityVote(gold, **who),
        "weighted-majority": lambda: WeightedMajorityVote(_skills(skills), **who),
    }
    model = build[method]().fit(rows)
    if method in ("dawid-skene", "one-coin"):
        details = {"iterations": model.n_iter_, "priors": model.priors_.to_dict()}
        if gold is not None:
            details["gold_items"] = len(gold)
    elif method == "mace":
        details = {"iterations": n_iter, "competence": model.competence_.to_dict()}
    elif method == "glad":
        details = {"iterations": model.n_iter_, "abilities": model.alphas_.to_dict()}
    else:
        details = {"skills": model.skills_.to_dict(), "no_weight": model.n_unlabelled_}
    return model.consensus(), details
