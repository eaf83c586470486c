"""A round's new tasks (``annotate next``): the campaign's overlap assigns the round's items to
the raters, each rater gets honeypots at the campaign's rate among their new tasks — ones they
have not had while the pool (the campaign's honeypots file, else the honeypots already in the
campaign) lasts, the shortfall counted and said — and each rater's new tasks are shuffled and
follow their earlier ones."""

from __future__ import annotations

import pandas as pd


def _honeypot_pool(c) -> tuple[pd.DataFrame, list[str]]:
    """The honeypots a round may give: the campaign's honeypots file (as planned), else the
    honeypots already in the campaign (with a note)."""
    from wordplay_audit.annotate.campaign import check_honeypots
    from wordplay_audit.corpora.tables import read_table

    inside = c.items[c.items["honeypot"].astype(str) == "true"]
    source = c.source("honeypots")
    if source is not None and source.is_file():
        return check_honeypots(read_table(source), c.kind), []
    why = f"honeypots file {str(source or '')!r} not found" if source else "no honeypots file recorded"
    return inside, [f"{why}: this round's honeypots come from the {len(inside)} already in the campaign"]


def round_assignments(
    c, new_ids: list[str], rng, overlap_share: dict | None = None
) -> tuple[pd.DataFrame, dict, list[str]]:
    """The round's assignments (overlap, ``overlap_share`` – default the campaign's –,
    honeypots, shuffled after each rater's last task), the honeypots' record and items to add,
    and notes."""
    from wordplay_audit.annotate.design import (
        assign_overlap,
        check_overlap_share,
        item_overlaps,
        pick_honeypots,
        shuffled_round,
    )

    design = c.manifest["design"]
    raters = list(design["raters"])
    overlap = int(design["overlap"])
    asked = design.get("overlap_share") if overlap_share is None else overlap_share
    shares = check_overlap_share(asked, overlap, len(raters))
    ks = item_overlaps(len(new_ids), overlap, shares, rng) if shares else overlap
    sets = assign_overlap(len(new_ids), raters, ks, rng)
    rows = [{"rater": raters[j], "item_id": item_id, "honeypot": False}
            for item_id, members in zip(new_ids, sets, strict=True) for j in members]  # fmt: skip
    rate = float(design.get("honeypot_rate") or 0.0)
    a = c.assignments
    record = {"rate": rate, "pool": 0, "added": {r: 0 for r in raters}, "short": {}}
    notes: list[str] = []
    new_pots = pd.DataFrame()
    if rate > 0 and rows:
        pool, notes = _honeypot_pool(c)
        had = {r: set(a.loc[(a["rater"] == r) & a["honeypot"], "item_id"].astype(str)) for r in raters}
        loads = {r: sum(1 for row in rows if row["rater"] == r) for r in raters}
        pick = pick_honeypots(loads, pool["item_id"].astype(str).tolist(), rate, rng, had=had)
        rows += pick.rows
        record.update(pool=len(pool), added={r: sum(1 for x in pick.rows if x["rater"] == r) for r in raters},
                      short={r: {"wanted": w, "given": g} for r, (w, g) in pick.short.items()})  # fmt: skip
        if pick.short:
            missing = sum(w - g for w, g in pick.short.values())
            who = ", ".join(f"{r} {g} of {w}" for r, (w, g) in pick.short.items())
            notes.append(f"honeypots: the pool of {len(pool)} ran out for {len(pick.short)} rater(s) ({who}; "
                         f"{missing} fewer in all): a honeypot appears once in a rater's queue")  # fmt: skip
        used = {x["item_id"] for x in pick.rows}
        known = set(c.items["item_id"].astype(str))
        new_pots = pool[pool["item_id"].astype(str).isin(used - known)]
    last = a.groupby("rater")["position"].max().reindex(raters, fill_value=0).to_dict()
    frame = shuffled_round(rows, raters, rng, last, f"{c.name}:{design['seed']}")
    return frame[list(a.columns)], {"record": record, "items": new_pots}, notes
