"""Campaign design: a seeded stratified sample, k-overlap assignment, honeypots, shuffled queues.

Sample (stratified simple random sampling without replacement, Cochran 1977, ch. 5). The
population is split into strata ``h`` by the values of the ``strata`` columns; stratum ``h``
holds ``N_h`` items of ``N`` and gets ``n_h`` sampled items:

* ``proportional``: ``n_h ≈ n · N_h / N`` (largest-remainder rounding, so ``Σ n_h = n``);
* ``equal``: ``n_h ≈ n / H`` for ``H`` strata.

Either is capped at ``N_h`` and the excess handed, one at a time, to the strata with room (in
order of the largest unrounded share). Each item of stratum ``h`` then has inclusion
probability ``π_h = n_h / N_h`` and sampling weight ``w_h = 1 / π_h = N_h / n_h`` (the
Horvitz–Thompson weight; ``Σ_sample w = N`` over strata that were sampled).

Assignment: each sampled item goes to ``k`` raters. Raters are taken lowest current load first,
ties broken towards raters sharing fewer items with those already chosen, then at random; so
loads differ by at most one, and every pair of raters shares items once the sample is large
enough (checked: a design with a pair sharing none is refused when ``k ≥ 2``).

Honeypots: items with known answers. A rater with ``m`` assigned items gets
``round(m · r / (1 − r))`` honeypots (``r`` = ``honeypot_rate``), distinct, drawn from the
honeypot pool, so honeypots are a share ``r`` of the queue up to rounding. Each rater's queue
(items and honeypots) is then shuffled.
"""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
import pandas as pd

from wordplay_audit.errors import ParameterError, check_choice

Allocation = Literal["proportional", "equal"]
ALLOCATIONS: tuple[str, ...] = ("proportional", "equal")
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

    def to_dict(self) -> dict:
        return {
            "seed": self.seed,
            "n": self.n,
            "strata_columns": list(self.strata_columns),
            "allocation": self.allocation,
            "raters": list(self.raters),
            "overlap": self.overlap,
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


def _largest_remainder(shares: np.ndarray, total: int, caps: np.ndarray) -> np.ndarray:
    """Integers ``≤ caps`` summing to ``min(total, Σ caps)``, as close to ``shares`` as rounding allows."""
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


def allocate(population: Sequence[int], n: int, allocation: str) -> np.ndarray:
    """Sample size per stratum (see the module docstring)."""
    check_choice("allocation", allocation, ALLOCATIONS)
    sizes = np.asarray(population, dtype=int)
    if allocation == "proportional":
        shares = n * sizes / sizes.sum()
    else:
        shares = np.full(len(sizes), n / len(sizes), dtype=float)
    return _largest_remainder(shares, n, sizes)


def stratified_sample(
    items: pd.DataFrame, n: int, strata: Sequence[str], allocation: str, rng: np.random.Generator
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Draw the sample; return (sampled items with weights, one row per stratum)."""
    frame = items.reset_index(drop=True).copy()
    if strata:
        keys = frame[list(strata)].astype(str).agg(" × ".join, axis=1)
    else:
        keys = pd.Series("all", index=frame.index)
    frame[STRATUM_COLUMN] = keys
    names = sorted(keys.unique())
    groups = {name: frame.index[keys == name].to_numpy() for name in names}
    sizes = np.array([len(groups[name]) for name in names])
    counts = allocate(sizes, n, allocation)
    chosen, rows = [], []
    for name, size, count in zip(names, sizes, counts, strict=True):
        picked = (
            rng.choice(groups[name], size=int(count), replace=False) if count else np.array([], dtype=int)
        )
        chosen.extend(sorted(int(i) for i in picked))
        first = frame.loc[groups[name][0]]
        rows.append(
            {
                STRATUM_COLUMN: name,
                **{col: str(first[col]) for col in strata},
                "population": int(size),
                "sampled": int(count),
                "inclusion_probability": count / size if size else float("nan"),
                "weight": size / count if count else float("nan"),
            }
        )
    table = pd.DataFrame(rows)
    sample = frame.loc[chosen].copy()
    pi = dict(zip(table[STRATUM_COLUMN], table["inclusion_probability"], strict=True))
    sample["inclusion_probability"] = sample[STRATUM_COLUMN].map(pi)
    sample["sampling_weight"] = 1.0 / sample["inclusion_probability"]
    return sample.reset_index(drop=True), table


def assign_overlap(
    n_items: int, raters: Sequence[str], k: int, rng: np.random.Generator
) -> list[tuple[int, ...]]:
    """For each item, the indices of the ``k`` raters it goes to (see the module docstring)."""
    r = len(raters)
    load = np.zeros(r, dtype=int)
    shared = np.zeros((r, r), dtype=int)
    out = []
    for _ in range(n_items):
        chosen: list[int] = []
        noise = rng.random(r)
        for _slot in range(k):
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


def _honeypot_rows(loads: dict[str, int], honeypots: pd.DataFrame | None, rate: float, rng) -> list[dict]:
    if rate == 0:
        return []
    if honeypots is None or honeypots.empty:
        raise ParameterError("honeypot_rate: is above 0 but no honeypots were given")
    pool = honeypots["item_id"].astype(str).to_numpy()
    rows = []
    for rater, m in loads.items():
        h = int(round(m * rate / (1 - rate)))
        if h > len(pool):
            raise ParameterError(
                f"honeypot_rate: rater {rater} needs {h} distinct honeypots, the file holds {len(pool)}"
            )
        rows += [
            {"rater": rater, "item_id": str(i), "honeypot": True}
            for i in rng.choice(pool, size=h, replace=False)
        ]
    return rows


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
    sets = assign_overlap(len(sample), raters, overlap, rng)
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
        seed, n, tuple(strata), allocation, raters, overlap, honeypot_rate, table, sample, assignments
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


def _shuffle_queues(frame: pd.DataFrame, raters: Sequence[str], rng: np.random.Generator) -> pd.DataFrame:
    parts = []
    for rater in raters:
        part = frame[frame["rater"] == rater].reset_index(drop=True)
        part = part.iloc[rng.permutation(len(part))].reset_index(drop=True)
        part.insert(1, "position", np.arange(1, len(part) + 1))
        parts.append(part)
    return pd.concat(parts, ignore_index=True) if parts else frame.assign(position=[])
