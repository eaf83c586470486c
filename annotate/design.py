"""Campaign design: a seeded stratified sample, k-overlap assignment, honeypots, shuffled queues.

Sample (stratified simple random sampling without replacement, Cochran 1977, ch. 5): the strata,
the fixed allocation (``proportional`` n_h ≈ n·N_h/N or ``equal`` n_h ≈ n/H, largest remainder,
capped at N_h) and the seeded draw are :mod:`wordplay_audit.corpora.sampling`'s, the design
every round of a campaign uses. Each item of stratum ``h`` then has inclusion probability
``π_h = n_h / N_h`` and sampling weight ``w_h = 1 / π_h = N_h / n_h`` (the Horvitz–Thompson
weight; ``Σ_sample w = N`` over strata that were sampled).

Assignment: each sampled item goes to ``k`` raters (``overlap``; with ``overlap_share``, e.g.
``{3: 0.3}``, a seeded random share of the items – round(0.3·n) of them – goes to 3 raters
instead, the rest to ``overlap``: a third rating on part of the sample is what a latent-class
model of the raters needs to identify their error, at a fraction of a third rating everywhere).
Raters are taken lowest current load first,
ties broken towards raters sharing fewer items with those already chosen, then at random; so
loads differ by at most one, and every pair of raters shares items once the sample is large
enough (checked: a design with a pair sharing none is refused when ``k ≥ 2``).

Honeypots: items with known answers. A rater with ``m`` assigned items gets
``round(m · r / (1 − r))`` honeypots (``r`` = ``honeypot_rate``), distinct, drawn from the
honeypot pool, so honeypots are a share ``r`` of the queue up to rounding (:func:`pick_honeypots`;
a later round gives each rater ones they have not had, while the pool lasts). Each rater's
queue (items and honeypots) is then shuffled.
"""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
import pandas as pd

from wordplay_audit.corpora.sampling import (
    ALLOCATIONS,
    draw_round,
    fixed_allocation,
    sampling_weights,
    strata_counts,
    stratum_keys,
)
from wordplay_audit.errors import ParameterError, check_choice

Allocation = Literal["proportional", "equal"]
STRATUM_COLUMN = "stratum"


@dataclass
class Design:
    """A drawn campaign. ``to_dict()`` is the manifest's design part."""

    seed: int
    n: int
    strata_columns: tuple[str, ...]
    allocation: str
    raters: tuple[str, ...]
    overlap: int
    honeypot_rate: float
    strata: pd.DataFrame  # stratum, columns, population, sampled, inclusion_probability, weight
    sample: pd.DataFrame  # sampled items with stratum, inclusion_probability, sampling_weight
    assignments: pd.DataFrame  # rater, position, item_id, uid, honeypot
    notes: list[str] = field(default_factory=list)
    overlap_share: dict[int, float] = field(default_factory=dict)  # raters → share of the items

    def to_dict(self) -> dict:
        return {
            "seed": self.seed,
            "n": self.n,
            "strata_columns": list(self.strata_columns),
            "allocation": self.allocation,
            "raters": list(self.raters),
            "overlap": self.overlap,
            **(
                {"overlap_share": {str(k): v for k, v in self.overlap_share.items()}}
                if self.overlap_share
                else {}
            ),
            "items_by_overlap": items_by_overlap(self.assignments),
            "honeypot_rate": self.honeypot_rate,
            "strata": self.strata.to_dict(orient="records"),
            "loads": self.assignments.groupby("rater")
            .size()
            .reindex(list(self.raters), fill_value=0)
            .to_dict(),
            "pairs_sharing": pair_counts(self.assignments[~self.assignments["honeypot"]], self.raters),
            "notes": list(self.notes),
        }


def uid_of(campaign: str, item_id: str) -> str:
    """The opaque task key of an item in a campaign: 16 hex digits of SHA-256(campaign NUL item_id)."""
    return hashlib.sha256(f"{campaign}\0{item_id}".encode()).hexdigest()[:16]


def stratified_sample(
    items: pd.DataFrame, n: int, strata: Sequence[str], allocation: str, rng: np.random.Generator
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Draw the sample; return (sampled items with weights, one row per stratum). The strata,
    the allocation and the draw are :mod:`wordplay_audit.corpora.sampling`'s; the sample lists
    the strata in sorted order, each stratum's items in the table's order."""
    frame = items.reset_index(drop=True).copy()
    keys = stratum_keys(frame, strata)
    frame[STRATUM_COLUMN] = keys
    counts = strata_counts(keys)
    names, sizes = list(counts.index), counts["N"].to_numpy()
    sampled = fixed_allocation(sizes, n, allocation)
    flags = draw_round(
        keys.to_numpy(), dict(zip(names, sampled, strict=True)), np.zeros(len(frame), bool), rng
    )
    order = {name: i for i, name in enumerate(names)}
    chosen = sorted(np.flatnonzero(flags), key=lambda i: (order[keys.iloc[i]], i))
    pi = dict(zip(names, sampled / sizes, strict=True))
    rows = []
    for name, size, count in zip(names, sizes, sampled, strict=True):
        first = frame.loc[int(np.flatnonzero((keys == name).to_numpy())[0])]
        rows.append(
            {
                STRATUM_COLUMN: name,
                **{col: str(first[col]) for col in strata},
                "population": int(size),
                "sampled": int(count),
                "inclusion_probability": pi[name],
                "weight": size / count if count else float("nan"),
            }
        )
    table = pd.DataFrame(rows)
    sample = frame.loc[chosen].copy()
    sample["inclusion_probability"] = sample[STRATUM_COLUMN].map(pi)
    sample["sampling_weight"] = sampling_weights(sample["inclusion_probability"].to_numpy(float))
    return sample.reset_index(drop=True), table


def check_overlap_share(overlap_share, overlap: int, n_raters: int) -> dict[int, float]:
    """``overlap_share`` as {raters: share}, checked: whole numbers above ``overlap`` and at most
    ``n_raters``, shares in (0, 1] summing to at most 1 (ParameterError naming it otherwise)."""
    if not overlap_share:
        return {}
    if not isinstance(overlap_share, dict):
        raise ParameterError(f"overlap_share: expected a mapping of raters per item to a share, got {overlap_share!r}")  # fmt: skip
    out = {}
    for k, share in overlap_share.items():
        kk = int(k) if isinstance(k, int | np.integer | str) and str(k).strip().isdigit() else None
        if kk is None or not overlap < kk <= n_raters:
            raise ParameterError(f"overlap_share: raters per item {k!r} must be a whole number in {overlap + 1}..{n_raters} (above overlap {overlap}, at most the raters)")  # fmt: skip
        if isinstance(share, bool) or not isinstance(share, int | float) or not 0 < share <= 1:
            raise ParameterError(f"overlap_share: the share at {kk} raters must lie in (0, 1], got {share!r}")
        out[kk] = float(share)
    if sum(out.values()) > 1 + 1e-12:
        raise ParameterError(f"overlap_share: the shares sum to {sum(out.values()):g} > 1")
    return dict(sorted(out.items()))


def item_overlaps(
    n_items: int, overlap: int, overlap_share: dict[int, float], rng: np.random.Generator
) -> np.ndarray:
    """Raters per item: round(share·n) items at each ``overlap_share`` level, in a seeded random
    order, ``overlap`` for the rest.

    >>> ks = item_overlaps(10, 2, {3: 0.3}, np.random.default_rng(0))
    >>> sorted(ks.tolist())
    [2, 2, 2, 2, 2, 2, 2, 3, 3, 3]
    """
    ks = np.full(n_items, overlap, dtype=int)
    counts = [(k, int(round(share * n_items))) for k, share in overlap_share.items()]
    order, start = rng.permutation(n_items), 0
    for k, m in counts:
        m = min(m, n_items - start)
        ks[order[start : start + m]] = k
        start += m
    return ks


def items_by_overlap(assignments: pd.DataFrame) -> dict[str, int]:
    """How many (non-honeypot) items went to each number of raters: ``{"2": 70, "3": 30}``."""
    sizes = assignments.loc[~assignments["honeypot"].astype(bool)].groupby("item_id").size()
    return {str(k): int(v) for k, v in sizes.value_counts().sort_index().items()}


def assign_overlap(
    n_items: int, raters: Sequence[str], k: int | Sequence[int], rng: np.random.Generator
) -> list[tuple[int, ...]]:
    """For each item, the indices of the ``k`` raters it goes to (see the module docstring);
    ``k`` one number for every item or one per item (:func:`item_overlaps`)."""
    r = len(raters)
    load = np.zeros(r, dtype=int)
    shared = np.zeros((r, r), dtype=int)
    per_item = np.broadcast_to(np.asarray(k, dtype=int), (n_items,))
    out = []
    for i in range(n_items):
        chosen: list[int] = []
        noise = rng.random(r)
        for _slot in range(int(per_item[i])):
            best, best_key = -1, None
            for j in range(r):
                if j in chosen:
                    continue
                key = (load[j], sum(shared[j, c] for c in chosen), noise[j])
                if best_key is None or key < best_key:
                    best, best_key = j, key
            chosen.append(best)
        for a, b in itertools.combinations(chosen, 2):
            shared[a, b] += 1
            shared[b, a] += 1
        load[chosen] += 1
        out.append(tuple(sorted(chosen)))
    return out


def pair_counts(assignments: pd.DataFrame, raters: Sequence[str]) -> dict[str, int]:
    """Items shared by each pair of raters (``"a|b"`` → count)."""
    sets = {r: set(assignments.loc[assignments["rater"] == r, "item_id"]) for r in raters}
    return {f"{a}|{b}": len(sets[a] & sets[b]) for a, b in itertools.combinations(raters, 2)}


def _check(n: int, raters: Sequence[str], k: int, rate: float, population: int) -> None:
    if n < 1:
        raise ParameterError(f"n: expected a positive number of items, got {n}")
    if n > population:
        raise ParameterError(f"n: {n} is more than the {population} items in the table")
    if len(set(raters)) != len(raters) or not raters or any(not str(r).strip() for r in raters):
        raise ParameterError(f"raters: expected distinct non-empty names, got {','.join(raters)!r}")
    if not 1 <= k <= len(raters):
        raise ParameterError(f"overlap: expected 1..{len(raters)} (the number of raters), got {k}")
    if not 0 <= rate < 1:
        raise ParameterError(f"honeypot_rate: expected a share in [0, 1), got {rate}")


def honeypots_wanted(m: int, rate: float) -> int:
    """Honeypots for a queue of ``m`` items at ``rate``: round(m · r / (1 − r)).

    >>> honeypots_wanted(18, 0.1), honeypots_wanted(0, 0.1)
    (2, 0)
    """
    return int(round(m * rate / (1 - rate)))


@dataclass
class HoneypotPick:
    """Honeypot assignments of one round and, per rater, how many the pool could not give
    (``short``: rater → (wanted, given); only raters who got fewer than they should)."""

    rows: list[dict]
    short: dict[str, tuple[int, int]] = field(default_factory=dict)  #: rater → (wanted, given)


def pick_honeypots(
    loads: dict[str, int],
    pool: Sequence[str],
    rate: float,
    rng: np.random.Generator,
    *,
    had: dict[str, set[str]] | None = None,
) -> HoneypotPick:
    """Each rater's honeypots for ``loads`` new items (:func:`honeypots_wanted`), distinct, drawn
    from ``pool`` without those the rater ``had`` already (a task appears once in a rater's
    project); where too few are left the rater gets them all and :attr:`HoneypotPick.short`
    counts the rest."""
    ids = np.asarray([str(i) for i in pool], dtype=object)
    pick = HoneypotPick([])
    for rater, m in loads.items():
        wanted = honeypots_wanted(m, rate)
        seen = (had or {}).get(rater, set())
        left = ids[[i not in seen for i in ids]] if seen else ids
        size = min(wanted, len(left))
        if size < wanted:
            pick.short[rater] = (wanted, size)
        if size:
            pick.rows += [{"rater": rater, "item_id": str(i), "honeypot": True}
                          for i in rng.choice(left, size=size, replace=False)]  # fmt: skip
    return pick


def _honeypot_rows(loads: dict[str, int], honeypots: pd.DataFrame | None, rate: float, rng) -> list[dict]:
    if rate == 0:
        return []
    if honeypots is None or honeypots.empty:
        raise ParameterError("honeypot_rate: is above 0 but no honeypots were given")
    pool = honeypots["item_id"].astype(str).to_numpy()
    pick = pick_honeypots(loads, pool, rate, rng)
    if pick.short:
        rater, (wanted, _given) = next(iter(pick.short.items()))
        raise ParameterError(
            f"honeypot_rate: rater {rater} needs {wanted} distinct honeypots, the file holds {len(pool)}"
        )
    return pick.rows


@dataclass(frozen=True)
class DesignSpec:
    """What the user asks for: ``n`` items stratified by ``strata`` with ``allocation``, each to
    ``overlap`` of ``raters``, honeypots a share ``honeypot_rate`` of each queue, from ``seed``."""

    n: int
    raters: Sequence[str]
    strata: Sequence[str] = ()
    allocation: Allocation = "proportional"
    overlap: int = 2
    honeypot_rate: float = 0.0
    seed: int = 0
    overlap_share: dict | None = None  # {raters: share of the items}, e.g. {3: 0.3}


def design_campaign(
    items: pd.DataFrame,
    spec: DesignSpec,
    *,
    honeypots: pd.DataFrame | None = None,
    campaign: str = "campaign",
) -> Design:
    """Draw a whole campaign (sample, assignment, honeypots, shuffled queues) from one seed."""
    n, strata, allocation, overlap = spec.n, tuple(spec.strata), spec.allocation, spec.overlap
    honeypot_rate, seed = spec.honeypot_rate, spec.seed
    raters = spec.raters
    check_choice("allocation", allocation, ALLOCATIONS)
    raters = tuple(str(r).strip() for r in raters)
    _check(n, raters, overlap, honeypot_rate, len(items))
    shares = check_overlap_share(spec.overlap_share, overlap, len(raters))
    for column in strata:
        if not isinstance(column, str) or not column.strip():
            raise ParameterError(f"strata: expected column names, got {column!r} among {list(strata)}")
        if strata.count(column) > 1:
            raise ParameterError(f"strata: names column {column!r} twice")
    missing = [c for c in strata if c not in items.columns]
    if missing:
        raise ParameterError(
            f"strata: column {missing[0]!r} is not in the items table "
            f"(has {', '.join(map(str, items.columns))})"
        )
    rng = np.random.default_rng(seed)
    sample, table = stratified_sample(items, n, strata, allocation, rng)
    ks = item_overlaps(len(sample), overlap, shares, rng) if shares else overlap
    sets = assign_overlap(len(sample), raters, ks, rng)
    rows = [
        {"rater": raters[j], "item_id": item_id, "honeypot": False}
        for item_id, members in zip(sample["item_id"], sets, strict=True)
        for j in members
    ]
    loads = {r: sum(1 for row in rows if row["rater"] == r) for r in raters}
    rows += _honeypot_rows(loads, honeypots, honeypot_rate, rng)
    assignments = _shuffle_queues(pd.DataFrame(rows, columns=["rater", "item_id", "honeypot"]), raters, rng)
    assignments["uid"] = [uid_of(campaign, i) for i in assignments["item_id"]]
    design = Design(
        seed,
        n,
        tuple(strata),
        allocation,
        raters,
        overlap,
        honeypot_rate,
        table,
        sample,
        assignments,
        overlap_share=shares,
    )
    uncovered = [p for p, c in pair_counts(assignments[~assignments["honeypot"]], raters).items() if c == 0]
    if overlap >= 2 and uncovered:
        raise ParameterError(
            f"n: {n} items at overlap {overlap} leave rater pair {uncovered[0]} without shared items "
            "(pairwise agreement needs them); sample more items or raise overlap"
        )
    if overlap == 1 and len(raters) > 1:
        design.notes.append(
            "overlap 1: no item is rated twice, so agreement between raters cannot be estimated"
        )
    empty = table.loc[table["sampled"] == 0, STRATUM_COLUMN].tolist()
    if empty:
        design.notes.append(
            f"{len(empty)} strata got no sampled item (weight undefined): {', '.join(empty[:5])}"
        )
    return design


def _shuffle_queues(
    frame: pd.DataFrame, raters: Sequence[str], rng: np.random.Generator, after: dict[str, int] | None = None
) -> pd.DataFrame:
    """Each rater's rows of ``frame`` in a random order, numbered ``position`` from 1 (or from
    after the rater's last position in ``after``: a later round's tasks follow the earlier ones)."""
    parts = []
    for rater in raters:
        part = frame[frame["rater"] == rater].reset_index(drop=True)
        part = part.iloc[rng.permutation(len(part))].reset_index(drop=True)
        start = 1 + int((after or {}).get(rater, 0))
        part.insert(1, "position", np.arange(start, start + len(part)))
        parts.append(part)
    return pd.concat(parts, ignore_index=True) if parts else frame.assign(position=[])


def shuffled_round(
    rows: list[dict], raters: Sequence[str], rng: np.random.Generator, after: dict[str, int], campaign: str
) -> pd.DataFrame:
    """A later round's assignments (``rows``: rater, item_id, honeypot): each rater's new tasks
    shuffled and numbered after their ``after`` last position, with their ``uid``."""
    frame = pd.DataFrame(rows, columns=["rater", "item_id", "honeypot"])
    out = _shuffle_queues(frame, raters, rng, after)
    out["uid"] = [uid_of(campaign, i) for i in out["item_id"]]
    return out
