"""The sampling design of a labelling campaign: strata, fixed allocations, the seeded stratified
draw, inclusion probabilities across rounds and the sampling weights 1/π.

One implementation below every room that samples or weights: ``annotate plan`` (the first
round), ``annotate next`` (later rounds), ``balderdash plan --adaptive`` (its simulated fixed
allocations) and the estimators that weight labels by 1/π. The variance-based allocations
(Neyman, the adaptive greedy rule) are statistics and live in
:mod:`wordplay_audit.analysis.allocation`; they take the strata counts from here.

*Strata.* An item's stratum is the values of the stratifying columns joined by `` × ``
(:func:`stratum_keys`; ``all`` without columns); strata are taken in sorted order.

*Fixed allocations* of n items over strata of sizes N_h (Cochran, *Sampling Techniques*, 3rd
ed. 1977, ch. 5): ``proportional`` n_h ≈ n·N_h/N, ``equal`` n_h ≈ n/H (:func:`fixed_shares`).
:func:`fixed_allocation` rounds them by the largest remainder, caps each at N_h and hands the
excess, one at a time, to the strata with room in order of the largest remainder (then the
largest share), so Σ n_h = min(n, N). :func:`top_up` gives a later batch at fixed shares: each
label to the stratum furthest below its share of the new total.

*The draw* (:func:`draw_round`): per stratum, in the order given, ``k`` items by simple random
sampling without replacement from the items of the stratum not drawn in an earlier round, all
from one seeded generator (a stratum with k = 0 takes nothing from it).

*Inclusion probabilities across rounds* (:func:`inclusion_probabilities`): round r draws n_rs
items of the R_rs not yet drawn in its sampling stratum s; π_i = 1 − Π_r (1 − n_{r,s_r(i)} /
R_{r,s_r(i)}) (the per-round conditional form). It is exact when every round's R_rs are fixed by
the earlier allocations — every round samples the same strata, or unions of the earlier
rounds' strata, where π telescopes to (items drawn in the stratum)/N_h; when a later round
samples finer strata than an earlier one, R_rs is random and π_i is the conditional
approximation. The weight of a drawn item is 1/π_i (:func:`sampling_weights`; Horvitz &
Thompson 1952, JASA 47:663).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from wordplay_audit.errors import ParameterError, check_choice

__all__ = [
    "ALLOCATIONS",
    "ALL",
    "draw_round",
    "fixed_allocation",
    "fixed_shares",
    "inclusion_probabilities",
    "largest_remainder",
    "sampling_weights",
    "strata_counts",
    "stratum_keys",
    "top_up",
]

ALLOCATIONS: tuple[str, ...] = ("proportional", "equal")
ALL = "all"
"""The one stratum of a design without stratifying columns."""
JOIN = " × "


def stratum_keys(frame: pd.DataFrame, columns: Sequence[str]) -> pd.Series:
    """Each row's stratum: the values of ``columns`` as text joined by `` × `` (``all`` without
    columns), on ``frame``'s index.

    >>> f = pd.DataFrame({"model": ["m1", "m2"], "verdict": [True, False]})
    >>> stratum_keys(f, ["model", "verdict"]).tolist(), stratum_keys(f, []).tolist()
    (['m1 × True', 'm2 × False'], ['all', 'all'])
    """
    if not columns:
        return pd.Series(ALL, index=frame.index)
    return frame[list(columns)].astype(str).agg(JOIN.join, axis=1)


def strata_counts(strata: Sequence[str] | pd.Series, drawn: Sequence[bool] | None = None) -> pd.DataFrame:
    """Per stratum (sorted, the index): ``N`` items and ``drawn`` of them (0 without ``drawn``).

    >>> strata_counts(["b", "a", "b"], [True, False, False]).to_dict(orient="index")
    {'a': {'N': 1, 'drawn': 0}, 'b': {'N': 2, 'drawn': 1}}
    """
    keys = np.asarray(strata, dtype=object)
    flags = np.zeros(len(keys), dtype=bool) if drawn is None else np.asarray(drawn, dtype=bool)
    if len(flags) != len(keys):
        raise ParameterError("drawn: expected one flag per item, as many as strata")
    frame = pd.DataFrame({"stratum": keys, "N": 1, "drawn": flags.astype(int)})
    table = frame.groupby("stratum", sort=True)[["N", "drawn"]].sum()
    table.index.name = None
    return table


def fixed_shares(population: Sequence[int], allocation: str) -> np.ndarray:
    """The share of the sample each stratum gets: N_h/N (``proportional``) or 1/H (``equal``).

    >>> fixed_shares([10, 30], "proportional").tolist(), fixed_shares([10, 30], "equal").tolist()
    ([0.25, 0.75], [0.5, 0.5])
    """
    check_choice("allocation", allocation, ALLOCATIONS)
    sizes = np.asarray(population, dtype=float)
    if allocation == "proportional":
        return sizes / sizes.sum()
    return np.full(len(sizes), 1 / len(sizes), dtype=float)


def largest_remainder(shares: np.ndarray, total: int, caps: np.ndarray) -> np.ndarray:
    """Whole numbers ≤ ``caps`` summing to min(``total``, Σ ``caps``), as close to the real
    ``shares`` as rounding allows: the floors first, then one each, over and over, to the strata
    with room in order of the largest remainder (ties: the larger share, then the first).

    >>> largest_remainder(np.array([2.5, 7.5]), 10, np.array([10, 10])).tolist()
    [2, 8]
    >>> largest_remainder(np.array([5.0, 5.0]), 10, np.array([2, 100])).tolist()
    [2, 8]
    """
    shares = np.asarray(shares, dtype=float)
    caps = np.asarray(caps, dtype=int)
    counts = np.minimum(np.floor(shares).astype(int), caps)
    remainder = shares - np.floor(shares)
    order = np.lexsort((np.arange(len(shares)), -shares, -remainder))  # remainder first
    left = min(total, int(caps.sum())) - int(counts.sum())
    while left > 0:
        moved = False
        for index in order:
            if left == 0:
                break
            if counts[index] < caps[index]:
                counts[index] += 1
                left -= 1
                moved = True
        if not moved:
            break
    return counts


def fixed_allocation(population: Sequence[int], n: int, allocation: str) -> np.ndarray:
    """Items per stratum for a sample of ``n`` (see the module docstring).

    Proportional over strata of 20, 30 and 50 items, n = 15: shares 3, 4.5, 7.5; floors 3, 4, 7
    and the one left over to the larger remainder of the two tied at 0.5, the larger share:

    >>> fixed_allocation([20, 30, 50], 15, "proportional").tolist()
    [3, 4, 8]
    """
    sizes = np.asarray(population, dtype=int)
    return largest_remainder(fixed_shares(sizes, allocation) * n, n, sizes)


def top_up(population: Sequence[int], have: Sequence[int], batch: int, shares: Sequence[float]) -> np.ndarray:
    """A later batch at fixed ``shares``: each of ``batch`` labels, one at a time, to the stratum
    with room furthest below its share of the new total (Σ have + batch); returns the labels
    added per stratum.

    >>> top_up([10, 10], [4, 0], 4, [0.5, 0.5]).tolist()
    [0, 4]
    """
    big_n = np.asarray(population, dtype=int)
    n = np.asarray(have, dtype=int)
    share = np.asarray(shares, dtype=float)
    add = np.zeros(len(big_n), dtype=int)
    goal = (n.sum() + batch) * share
    for _ in range(batch):
        room = n + add < big_n
        if not room.any():
            break
        deficit = np.where(room, goal - (n + add), -np.inf)
        add[np.argmax(deficit)] += 1
    return add


def draw_round(
    strata: Sequence[str] | np.ndarray,
    counts: Mapping[str, int],
    taken: Sequence[bool] | np.ndarray,
    rng: np.random.Generator,
) -> np.ndarray:
    """One round of the stratified draw: for each stratum s of ``counts`` (in its order),
    ``counts[s]`` items by simple random sampling without replacement from the items of s not
    yet ``taken``. Returns the round's flags, one per item (the length of ``strata``).

    >>> flags = draw_round(["a", "a", "b", "b"], {"a": 1, "b": 2}, [True, False, False, False],
    ...                    np.random.default_rng(0))
    >>> flags.tolist()
    [False, True, True, True]
    """
    keys = np.asarray(strata)
    taken = np.asarray(taken, dtype=bool)
    if len(taken) != len(keys):
        raise ParameterError("taken: expected one flag per item, as many as strata")
    flags = np.zeros(len(keys), dtype=bool)
    for stratum, k in counts.items():
        if int(k) != k or k < 0:
            raise ParameterError(
                f"counts: stratum {stratum!r} asks for {k!r} items; expected a whole number ≥ 0"
            )
        if not k:
            continue
        pool = np.flatnonzero((keys == stratum) & ~taken)
        if k > len(pool):
            raise ParameterError(
                f"counts: round draws {k} from stratum {stratum!r} with {len(pool)} items left"
            )
        flags[rng.choice(pool, size=int(k), replace=False)] = True
    return flags


def inclusion_probabilities(rounds: Sequence[tuple[Sequence[str], Sequence[bool]]]) -> np.ndarray:
    """π_i = 1 − Π_r (1 − n_{r,s}/R_{r,s}) for every item (the per-round conditional form; see
    the module docstring).

    ``rounds`` lists, per round, ``(stratum_of_item, drawn)``: the round's sampling stratum of
    every item and the flags of the items it drew; n_{r,s} = items of s drawn in round r,
    R_{r,s} = items of s not drawn in an earlier round.

    Two rounds over one stratum of 10 items drawing 2, then 4 of the 8 left: π = 1 − (1 − 2/10)
    (1 − 4/8) = 0.6 = 6/10 for every item:

    >>> strata = ["s"] * 10
    >>> pi = inclusion_probabilities([(strata, [True] * 2 + [False] * 8),
    ...                               (strata, [False] * 2 + [True] * 4 + [False] * 4)])
    >>> np.round(pi, 12).tolist() == [0.6] * 10
    True
    """
    if not rounds:
        raise ParameterError("rounds: give at least one round")
    size = len(rounds[0][1])
    taken = np.zeros(size, dtype=bool)
    miss = np.ones(size, dtype=float)
    for strata, drawn in rounds:
        strata, drawn = np.asarray(strata), np.asarray(drawn, dtype=bool)
        if len(strata) != size or len(drawn) != size:
            raise ParameterError("rounds: every round needs one stratum and one flag per item")
        if (drawn & taken).any():
            raise ParameterError("rounds: an item was drawn in two rounds")
        for s in np.unique(strata):
            at = strata == s
            remaining = int((at & ~taken).sum())
            if remaining:
                miss[at] *= 1 - int((at & drawn).sum()) / remaining
        taken |= drawn
    return 1 - miss


def sampling_weights(pi: Sequence[float] | np.ndarray) -> np.ndarray:
    """The Horvitz–Thompson weight 1/π of each item (nan where π is 0: never drawn).

    >>> sampling_weights([0.5, 0.25, 0.0]).tolist()
    [2.0, 4.0, nan]
    """
    p = np.asarray(pi, dtype=float)
    if ((p < 0) | (p > 1)).any():
        raise ParameterError("pi: inclusion probabilities must lie in [0, 1]")
    with np.errstate(divide="ignore"):
        return np.where(p > 0, 1 / np.where(p > 0, p, 1), np.nan)
