"""The models of a Balderdash export ranked by a corrected rate, with the uncertainty of the order.

Per level of a setting (or over the whole export), each model's corrected TDR or LKR is the
engine's cell (:func:`~wordplay_audit.analysis.balderdash.compare.setting_cells`). Two
statements of the order's uncertainty:

* *Rank probabilities* (``p_rank_1`` … ``p_rank_m``): the share of ``draws`` joint draws in which
  a model holds each rank (1 = highest), every model's rate drawn independently (the models'
  labels are disjoint) from its cell's predictive (the engine's randomised Clopper–Pearson
  confidence distribution per post-stratum, each drawn realised count carried to its rate by the
  Jeffreys Beta; :mod:`~wordplay_audit.analysis.correction.predictive_draws`) — a bootstrap over
  the correction. They describe the uncertainty; they are not a test.
* *Could be first* (``could_be_first``): a model is left out only when another model's rate is
  higher by the one-sided test of their difference (the comparison's interval, inverted),
  Holm-adjusted over that model's m − 1 tests (the union-intersection test of "it is highest");
  the set then holds the truly highest model with probability ≥ ``confidence``: leaving it out
  takes a false rejection among its own m − 1 tests, each of a true null. In the spirit of prediction-powered ranking
  (Chatzi et al., NeurIPS 2024), with the engine's exact pieces in place of their normal ones.

A model whose cell has no calibrated interval, or a post-stratum without a label, takes no part
(``reason``).
"""

from __future__ import annotations

from itertools import permutations

import numpy as np
import pandas as pd

from wordplay_audit.analysis.balderdash.compare import SETTINGS, setting_cells
from wordplay_audit.analysis.correction.intervals import MIN_LABELS, seeded_rng
from wordplay_audit.analysis.correction.predictive_draws import holm
from wordplay_audit.errors import ParameterError, check_choice, check_level

__all__ = ["ALL_LEVELS", "rank_models"]

ALL_LEVELS = "(all)"
"""The level of a ranking over the whole export (``by=None``)."""


def _level_table(cells: pd.DataFrame, pieces: dict, level, *, draws: int, confidence: float, seed: int,
                 metric: str) -> pd.DataFrame:  # fmt: skip
    part = cells[cells["level"] == level].reset_index(drop=True)
    ok = [pieces[m, level] is not None and not pieces[m, level].unknown for m in part["model"]]
    ranked = part[ok].reset_index(drop=True)
    m = len(ranked)
    table = part.assign(judge_rank=part["judge"].rank(ascending=False, method="min").astype(int))
    table["reason"] = [None if k else (r or "a post-stratum without a label: no draws") for k, r in zip(ok, part["reason"], strict=True)]  # fmt: skip
    if m == 0:
        return table.assign(rank=pd.NA, could_be_first=None)
    rng = seeded_rng(seed, "rankings", metric, level)
    free = np.column_stack([pieces[mod, level].shares("free", draws=draws, rng=rng, rate=True) for mod in ranked["model"]])  # fmt: skip
    order = np.argsort(-free, axis=1, kind="stable")
    ranks = np.empty_like(order)
    ranks[np.arange(draws)[:, None], order] = np.arange(1, m + 1)[None, :]
    probs = {f"p_rank_{k}": (ranks == k).mean(axis=0) for k in range(1, m + 1)}
    above = {}
    for i, j in permutations(range(m), 2):  # one-sided: is model j above model i?
        lo_j = pieces[ranked["model"][j], level].shares("low", draws=draws, rng=rng, rate=True)
        hi_i = pieces[ranked["model"][i], level].shares("high", draws=draws, rng=rng, rate=True)
        above[i, j] = float(np.mean(lo_j - hi_i <= 0))
    alpha = 1 - confidence
    # model i is out when some j is above it: Holm over i's m − 1 tests (its union-intersection test)
    first = [not (holm([above[i, j] for j in range(m) if j != i]) < alpha).any() for i in range(m)]
    extra = ranked[["model"]].assign(
        rank=ranked["estimate"].rank(ascending=False, method="min").astype(int),
        expected_rank=(ranks.mean(axis=0)), could_be_first=first, **probs,
    )  # fmt: skip
    return table.merge(extra, on="model", how="left")


def rank_models(
    obs: pd.DataFrame, labels: pd.DataFrame, *, by: str | None = None, metric: str = "tdr",
    confidence: float = 0.95, min_labels: int = MIN_LABELS, draws: int = 20000, seed: int = 0,
) -> pd.DataFrame:  # fmt: skip
    """Per level of ``by`` (one of :data:`~.compare.SETTINGS`; None: the whole export, level
    :data:`ALL_LEVELS`), the models with their corrected ``metric`` and interval (the engine's),
    ``rank`` by it (1 = highest), ``judge_rank`` by the judge's rate, ``expected_rank``, the
    rank probabilities ``p_rank_k`` and ``could_be_first`` (module doc), sorted by level and rank."""
    if by is not None:
        check_choice("by", by, SETTINGS)
        if by not in obs.columns:
            raise ParameterError(f"by: column {by!r} is not in the player-round table")
    check_level(confidence)
    if isinstance(draws, bool) or not isinstance(draws, int) or draws < 1000:
        raise ParameterError(f"draws: expected a whole number ≥ 1000, got {draws!r}")
    column = by or "_level"
    frame = obs if by is not None else obs.assign(_level=ALL_LEVELS)
    cells, pieces = setting_cells(
        frame, labels, by=column, metric=metric, confidence=confidence, min_labels=min_labels, seed=seed
    )
    tables = [_level_table(cells, pieces, level, draws=draws, confidence=confidence, seed=seed, metric=metric)
              for level in cells["level"].drop_duplicates()]  # fmt: skip
    out = pd.concat(tables, ignore_index=True)
    out = out.assign(metric=metric, by=by or ALL_LEVELS).sort_values(["level", "rank"], na_position="last")
    probs = sorted(
        (c for c in out.columns if c.startswith("p_rank_")), key=lambda c: int(c.rsplit("_", 1)[1])
    )
    head = ["metric", "by", "level", "model", "n", "n_labelled", "judge", "judge_rank", "estimate", "ci_low",
            "ci_high", "rank", "expected_rank", *probs, "could_be_first", "reason"]  # fmt: skip
    return out[head].reset_index(drop=True)
