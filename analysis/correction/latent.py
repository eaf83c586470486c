"""A binary latent-truth model of people's ratings: each item has a true label, each rating is an
imperfect, conditionally independent measurement of it, and the fit is EM on distinct rating
patterns with weights (so a bootstrap refit of thousands of items costs a few array operations).

*Model.* Item *i* lies in post-stratum *s* (a cell × the judge's verdict, or any population of
its own prevalence) and is truly true with probability :math:`q_s`. Rater *r* says true with
probability :math:`Se_r` when it is, false with :math:`Sp_r` when it is not (``model="full"``), or
is right with :math:`a_r` either way (``model="one-coin"``), independently across raters given
the truth. Free :math:`q_s` per cell × verdict is the judge as one more conditionally
independent measurement with its own accuracy in every cell (Hui & Walter 1980: two tests, two
populations of different prevalence identify both tests' errors), without assuming the judge as
accurate in one cell as in the next. Gold items (honeypots) have a known truth: their posterior
is that truth, and they anchor the raters' accuracy.

*Fit.* EM: E-step :math:`P(T_i=1\\mid y_i) = \\sigma(\\operatorname{logit} q_s + \\sum_r
\\log\\frac{P(y_{ir}\\mid 1)}{P(y_{ir}\\mid 0)})`; M-step :math:`q_s` = the stratum's mean
posterior, :math:`Se_r = \\sum_i p_i [y_{ir}=1] / \\sum_i p_i [r \\text{ rated } i]`, :math:`Sp_r`
alike with :math:`1-p_i` (one-coin: right answers over ratings). Initialised at the majority
vote. Several fits at once: ``weights`` of shape (B, K) give B weightings of the K patterns (the
bootstrap's resamples), each fitted on its own, all in the same array operations.

*Identifiability* (:func:`check_identified`): the model is identified when ≥ ``min_overlap``
items hold three ratings, or ≥ ``min_overlap`` doubly rated items lie in two or more post-strata
(of different prevalence) of ≥ :data:`MIN_POPULATION_ITEMS` each, or ≥ ``min_overlap`` rated gold
items anchor it; and every rater has
rated ≥ ``min_rater_items`` items that another rating or a gold answer checks.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from wordplay_audit.errors import ParameterError, check_choice

__all__ = [
    "MIN_OVERLAP",
    "MIN_RATER_ITEMS",
    "MODELS",
    "LatentDesign",
    "LatentFit",
    "check_identified",
    "dependence_check",
    "dependence_line",
    "fit_latent",
    "latent_design",
]

MODELS = ("full", "one-coin")
MIN_OVERLAP = 30
"""Fewest items that check the raters against each other (module doc, *Identifiability*)."""
MIN_RATER_ITEMS = 10
"""Fewest checked items per rater."""
MIN_POPULATION_ITEMS = 10
"""Fewest doubly rated items that make a post-stratum count as a population of its own."""
_EPS = 1e-6


@dataclass(frozen=True)
class LatentDesign:
    """The labelled items as distinct patterns (K rows) and the post-strata (S rows).

    ``ratings`` (K, R) int8: 1 true, 0 false, -1 not rated by that rater; ``count`` (K,) items
    per pattern; ``stratum`` (K,) post-stratum index; ``gold`` (K,) 1/0 the known answer, -1
    none; ``weight`` (K,) each item's weight in its stratum's share of the unlabelled rest (1/π − 1
    of a ``sampling_weight``, else 1); ``strata`` one row per post-stratum with its key columns,
    ``n_items`` (all its items) and ``unlabelled``; ``raters`` the R rater names."""

    ratings: np.ndarray
    count: np.ndarray
    stratum: np.ndarray
    gold: np.ndarray
    weight: np.ndarray
    strata: pd.DataFrame
    raters: list[str]

    @property
    def n_strata(self) -> int:
        return len(self.strata)


@dataclass(frozen=True)
class LatentFit:
    """B fits (B = 1 for a point fit): ``q`` (B, S) prevalence per post-stratum, ``se``, ``sp``
    (B, R) per rater (equal under one-coin), ``posterior`` (B, K) P(true) per pattern,
    ``n_iter`` EM iterations run, ``converged`` (B,) bool."""

    q: np.ndarray
    se: np.ndarray
    sp: np.ndarray
    posterior: np.ndarray
    n_iter: int
    converged: np.ndarray


def latent_design(
    items: pd.DataFrame,
    ratings: pd.DataFrame,
    *,
    strata: list[str],
    gold: str | None = None,
    rest: pd.DataFrame | None = None,
) -> LatentDesign:
    """The :class:`LatentDesign` of ``items`` (one row per item: ``item_id``, the ``strata``
    columns, optional ``gold`` nullable-boolean column and ``sampling_weight``) and ``ratings``
    (long: ``item_id``, ``rater``, ``label`` bool; items without a rating are unlabelled).
    ``rest``: more unlabelled items as counts (the ``strata`` columns and ``n``), so a million
    unlabelled items need not be rows. A rater's second rating of an item is a ParameterError;
    ratings of items not in ``items`` too."""
    row = _checked_rows(items, ratings, strata)
    rater_codes, raters = pd.factorize(ratings["rater"].astype(str), sort=True)
    wide = np.full((len(items), len(raters)), -1, np.int8)
    wide[row, rater_codes] = ratings["label"].astype(bool).to_numpy(np.int8)
    keys = items[list(strata)].assign(_n=1)
    if rest is not None:
        keys = pd.concat([keys, rest[list(strata)].assign(_n=rest["n"].to_numpy())], ignore_index=True)
    all_codes, s_keys = _strata_codes(keys, strata)
    s_codes = all_codes[: len(items)]
    known = np.full(len(items), -1, np.int8)
    if gold is not None:
        g = pd.array(items[gold], dtype="boolean")
        has = ~pd.isna(g).astype(bool)
        known[has] = np.asarray(g[has], dtype=bool).astype(np.int8)
    v = np.ones(len(items))
    if "sampling_weight" in items.columns:
        v = np.clip(np.nan_to_num(items["sampling_weight"].to_numpy(float) - 1, nan=0.0), 0, None)
    labelled = (wide >= 0).any(axis=1) | (known >= 0)
    total = np.bincount(all_codes, keys["_n"].to_numpy(float), minlength=len(s_keys)).astype(int)
    n_lab = np.bincount(s_codes[labelled], minlength=len(s_keys))
    table = s_keys.assign(n_items=total, unlabelled=total - n_lab)
    key = np.column_stack([s_codes, known, v.view(np.int64), wide.astype(np.int64)])[labelled]
    distinct, inverse = np.unique(key, axis=0, return_inverse=True)
    count = np.bincount(inverse.ravel(), minlength=len(distinct))
    return LatentDesign(
        ratings=distinct[:, 3:].astype(np.int8), count=count.astype(float), stratum=distinct[:, 0].astype(int),
        gold=distinct[:, 1].astype(np.int8), weight=distinct[:, 2].copy().view(float),
        strata=table, raters=[str(r) for r in raters],
    )  # fmt: skip


def _checked_rows(items: pd.DataFrame, ratings: pd.DataFrame, strata: list[str]) -> np.ndarray:
    """Each rating's row in ``items``; ParameterError for a missing column, a repeated item or
    rating, or a rating of an unknown item."""
    for column in ("item_id", *strata):
        if column not in items.columns:
            raise ParameterError(f"items: lacks column {column!r} (has {', '.join(map(str, items.columns))})")
    for column in ("item_id", "rater", "label"):
        if column not in ratings.columns:
            raise ParameterError(f"ratings: lacks column {column!r}")
    if not items["item_id"].is_unique:
        raise ParameterError("items: item_id repeats; expected one row per item")
    if ratings.duplicated(["item_id", "rater"]).any():
        pos = int(np.flatnonzero(ratings.duplicated(["item_id", "rater"]).to_numpy())[0])
        raise ParameterError(f"ratings: row {pos}: rater {ratings['rater'].iloc[pos]!r} rated item "
                             f"{ratings['item_id'].astype(object).iloc[pos]!r} twice")  # fmt: skip
    row = pd.Index(items["item_id"]).get_indexer(ratings["item_id"])
    if (row < 0).any():
        pos = int(np.flatnonzero(row < 0)[0])
        raise ParameterError(
            f"ratings: row {pos}: item_id {ratings['item_id'].astype(object).iloc[pos]!r} is not in items"
        )
    return row


def _strata_codes(items: pd.DataFrame, strata: list[str]) -> tuple[np.ndarray, pd.DataFrame]:
    if not strata:
        return np.zeros(len(items), int), pd.DataFrame(index=[0])
    grouped = items.groupby(strata, sort=True, dropna=False, observed=True)
    codes = grouped.ngroup().to_numpy()
    keys = grouped.size().reset_index()[strata]
    return codes, keys


def _basis(design: LatentDesign) -> np.ndarray:
    """(K, 2R + S): each pattern's said-true and said-false indicators per rater and its
    post-stratum one-hot, so an E-step logit and an M-step's sums are one product each."""
    r, k = design.ratings, len(design.count)
    onehot = np.zeros((k, design.n_strata))
    onehot[np.arange(k), design.stratum] = 1.0
    return np.hstack([(r == 1).astype(float), (r == 0).astype(float), onehot])


def fit_latent(
    design: LatentDesign,
    *,
    model: str = "full",
    weights: np.ndarray | None = None,
    start: LatentFit | None = None,
    n_iter: int = 1000,
    tol: float = 1e-7,
) -> LatentFit:
    """EM fit(s) of the latent-truth model (module doc). ``weights`` (B, K): B weightings of the
    patterns (default: ``design.count``, one fit); ``start``: a fit to start from (its first row
    for every weighting; default the majority vote). Stops when no parameter of any fit moves by
    more than ``tol`` or after ``n_iter`` iterations."""
    check_choice("model", model, MODELS)
    w = np.atleast_2d(design.count if weights is None else np.asarray(weights, float))
    if w.shape[1] != len(design.count):
        raise ParameterError(
            f"weights: expected {len(design.count)} columns (one per pattern), got {w.shape[1]}"
        )
    basis = _basis(design)
    n_r = len(design.raters)
    totals = w @ basis  # per fit: ratings said true, said false, items per stratum
    if start is None:
        votes = basis[:, : 2 * n_r].sum(axis=1)
        p = np.where(votes > 0, basis[:, :n_r].sum(axis=1) / np.maximum(votes, 1), 0.5)
        p = np.where(design.gold >= 0, design.gold, p)
        params = _m_step((w * p) @ basis, totals, n_r, model)
    else:
        params = tuple(np.repeat(a[:1], len(w), axis=0) for a in (start.q, start.se, start.sp))
    params = tuple(np.array(a, float) for a in params)
    done = np.zeros(len(w), bool)
    iterations = 0
    while iterations < n_iter and not done.all():  # only the fits still moving are iterated
        iterations += 1
        active = np.flatnonzero(~done)
        old = tuple(a[active] for a in params)
        new = _m_step((w[active] * _e_step(old, design, basis)) @ basis, totals[active], n_r, model)
        move = np.max(np.concatenate([np.abs(a - b) for a, b in zip(new, old, strict=True)], axis=1), axis=1)
        for a, b in zip(params, new, strict=True):
            a[active] = b
        done[active] = move < tol
    p = _e_step(params, design, basis)
    return LatentFit(*params, posterior=p, n_iter=iterations, converged=done)


def _e_step(params, design: LatentDesign, basis: np.ndarray) -> np.ndarray:
    from scipy.special import expit

    q, se, sp = params
    coef = np.hstack([np.log(se) - np.log1p(-sp), np.log1p(-se) - np.log(sp), np.log(q) - np.log1p(-q)])
    p = expit(coef @ basis.T)
    gold = design.gold >= 0
    return np.where(gold, design.gold, p) if gold.any() else p


def _m_step(sums: np.ndarray, totals: np.ndarray, n_r: int, model: str):
    """(q, Se, Sp) from the posterior-weighted sums ``(w·p) @ basis`` and the weights' ``totals``
    (``w @ basis``): Se = Σ w p [said 1] / Σ w p [rated], Sp = Σ w (1−p) [said 0] / Σ w (1−p)
    [rated], q = Σ w p / Σ w per stratum."""
    yes, no, strata = sums[:, :n_r], sums[:, n_r : 2 * n_r], sums[:, 2 * n_r :]
    all_yes, all_no, mass = totals[:, :n_r], totals[:, n_r : 2 * n_r], totals[:, 2 * n_r :]
    q = np.where(mass > 0, strata / np.where(mass > 0, mass, 1), 0.5)
    if model == "one-coin":
        se = sp = (yes + all_no - no) / np.maximum(all_yes + all_no, _EPS)
    else:
        se = yes / np.maximum(yes + no, _EPS)
        sp = (all_no - no) / np.maximum(all_yes + all_no - yes - no, _EPS)
    return tuple(np.clip(a, _EPS, 1 - _EPS) for a in (q, se, sp))


def check_identified(
    design: LatentDesign, *, min_overlap: int = MIN_OVERLAP, min_rater_items: int = MIN_RATER_ITEMS
) -> None:
    """Refuse, with a one-line :class:`ParameterError` that says what the campaign would need, a
    design whose rater error the model cannot identify (module doc): one rating per item; two
    ratings and a single population (no judge or cell of another prevalence); a rater seen on
    too few checked items."""
    n_ratings = (design.ratings >= 0).sum(axis=1)
    gold = design.gold >= 0
    triple = float(design.count[n_ratings >= 3].sum())
    anchored = float(design.count[gold & (n_ratings >= 1)].sum())
    double = np.bincount(design.stratum[n_ratings >= 2], design.count[n_ratings >= 2], design.n_strata)
    populations = int((double >= MIN_POPULATION_ITEMS).sum())
    if triple < min_overlap and (populations < 2 or double.sum() < min_overlap) and anchored < min_overlap:
        if double.sum() < min_overlap:
            raise ParameterError(
                f"truth: 'latent' needs a second rating on ≥ {min_overlap} items spread over two post-strata "
                f"(e.g. the judge's verdicts) or a third on ≥ {min_overlap} (now {int(double.sum())} with two, "
                f"{int(triple)} with three)"
            )
        raise ParameterError(
            f"truth: 'latent' — two ratings and one population do not identify rater error; needs a third "
            f"rating on ≥ {min_overlap} items (now {int(triple)}), or ≥ {MIN_POPULATION_ITEMS} doubly rated "
            f"items in a second post-stratum of another prevalence (e.g. the judge's verdict), or ≥ "
            f"{min_overlap} rated gold items (now {int(anchored)})"
        )
    checked = (n_ratings >= 2) | gold
    seen = design.count[checked] @ (design.ratings[checked] >= 0)
    for name, n in zip(design.raters, seen, strict=True):
        if n < min_rater_items:
            raise ParameterError(
                f"truth: 'latent' — rater {name!r} rated {int(n)} item(s) another rating or a gold answer "
                f"checks; needs ≥ {min_rater_items} (or leave the rater out)"
            )


def dependence_check(design: LatentDesign, fit: LatentFit) -> pd.DataFrame:
    """Per pair of raters who rated ≥ 10 items in common: their observed agreements, those the
    fitted model expects (conditional independence given the truth, from each item's stratum
    prevalence) and z = (observed − expected)/√Σ P(1 − P). A large positive z (≥ 3) says the
    pair agrees more than independent errors allow (errors shared on hard items): the latent
    intervals are then too narrow. Columns ``rater_a``, ``rater_b``, ``n``, ``agree``,
    ``expected``, ``z``, sorted by z descending."""
    q = fit.q[0][design.stratum]
    se, sp = fit.se[0], fit.sp[0]
    rows = []
    r = design.ratings
    for a in range(len(design.raters)):
        for b in range(a + 1, len(design.raters)):
            both = (r[:, a] >= 0) & (r[:, b] >= 0) & (design.gold < 0)
            n = float(design.count[both].sum())
            if n < 10:
                continue
            agree_if_true = se[a] * se[b] + (1 - se[a]) * (1 - se[b])
            agree_if_false = sp[a] * sp[b] + (1 - sp[a]) * (1 - sp[b])
            prob = q[both] * agree_if_true + (1 - q[both]) * agree_if_false
            c = design.count[both]
            observed = float(c @ (r[both, a] == r[both, b]))
            expected = float(c @ prob)
            sd = float(np.sqrt(c @ (prob * (1 - prob))))
            rows.append((design.raters[a], design.raters[b], int(n), observed, expected,
                         (observed - expected) / sd if sd > 0 else np.nan))  # fmt: skip
    out = pd.DataFrame(rows, columns=["rater_a", "rater_b", "n", "agree", "expected", "z"])
    return out.sort_values("z", ascending=False, ignore_index=True)


DEPENDENT_Z = 3.0
"""A pair's excess agreement (z) from which :func:`dependence_line` flags shared errors."""


def dependence_line(table: pd.DataFrame) -> str:
    """One line on :func:`dependence_check`'s table: the pair that agrees most beyond the model,
    flagged at z ≥ :data:`DEPENDENT_Z` (the flagged pair is not always the one that shares errors)."""
    if not len(table):
        return "conditional-dependence check: no rater pair shares ≥ 10 items"
    top = table.iloc[0]
    flag = " ← errors look shared: latent intervals too narrow" if top["z"] >= DEPENDENT_Z else ""
    return (f"conditional-dependence check: largest excess agreement {top['rater_a']}–{top['rater_b']} "
            f"z = {top['z']:.1f} ({int(top['agree'])} agree vs {top['expected']:.1f} expected of {int(top['n'])}){flag}")  # fmt: skip
