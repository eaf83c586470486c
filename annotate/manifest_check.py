"""The campaign folder's schema, checked in one place when a campaign is read
(:func:`wordplay_audit.annotate.campaign.read_campaign`), so a hand-edited or damaged
``manifest.json`` / ``items.csv`` is one line naming the file and the field, never a traceback
later and never a silent misreading (``"honeypot": "false"`` is a string, not false).

Checked: the top-level keys and their types; ``sources`` (text paths); ``design`` (``raters``: a
non-empty list of distinct names, ``overlap`` 1 … raters, optional ``overlap_share`` {raters above
``overlap``: share in (0, 1], summing to ≤ 1}, ``seed`` ≥ 0, ``strata_columns``: names);
every assignment (``rater`` one of the design's, ``position`` ≥ 1, ``item_id`` and ``uid`` text,
``honeypot`` true/false, one assignment per rater and item); every adaptive round (the fields
``annotate next`` and ``status`` read); and against ``items.csv``: its columns, unique item ids,
every assigned or drawn item present, and each sampled item's ``inclusion_probability`` in (0, 1].
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pandas as pd

from wordplay_audit.annotate.configs import KINDS
from wordplay_audit.corpora.contract import place
from wordplay_audit.errors import InputError, at_field

REQUIRED = ("format", "campaign", "campaign_id", "kind", "design", "assignments")


def _show(value: object) -> str:
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: object) -> bool:
    return (_is_int(value) or isinstance(value, float)) and math.isfinite(value)  # type: ignore[arg-type]


def _is_text(value: object) -> bool:
    return isinstance(value, str) and bool(value.strip())


class _Fields:
    """Raises the one-line error ``<manifest>: <field>: expected …, got …``."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def fail(self, field: str, expected: str, value: object) -> None:
        raise InputError(f"{at_field(self.path, field)}expected {expected}, got {_show(value)}")

    def need(self, ok: bool, field: str, expected: str, value: object) -> None:
        if not ok:
            self.fail(field, expected, value)

    def obj(self, value: object, field: str) -> dict:
        self.need(isinstance(value, dict), field, "an object", value)
        return value  # type: ignore[return-value]

    def names(self, value: object, field: str, *, empty: bool = True) -> list[str]:
        self.need(isinstance(value, list) and (empty or bool(value)), field, "a list of names", value)
        for index, name in enumerate(value):  # type: ignore[arg-type]
            self.need(_is_text(name), f"{field}[{index}]", "a name (text)", name)
        return value  # type: ignore[return-value]


def validate_manifest(manifest: object, path: Path, fmt: str) -> dict:
    """``manifest`` (parsed ``manifest.json``) if it has the campaign schema, else InputError."""
    check = _Fields(path)
    if not isinstance(manifest, dict):
        raise InputError(f"{path}: expected a JSON object (the campaign manifest), got {_show(manifest)}")
    for key in REQUIRED:
        if key not in manifest:
            raise InputError(f"{at_field(path, key)}missing")
    if manifest["format"] != fmt:
        raise InputError(f"{at_field(path, 'format')}expected {fmt!r}, got {_show(manifest['format'])}")
    for key in ("campaign", "campaign_id"):
        check.need(_is_text(manifest[key]), key, "text", manifest[key])
    check.need(manifest["kind"] in KINDS, "kind", f"one of {', '.join(KINDS)}", manifest["kind"])
    for key, value in check.obj(manifest.get("sources", {}), "sources").items():
        check.need(value is None or isinstance(value, str), f"sources.{key}", "a path (text)", value)
    raters = _design(check, check.obj(manifest["design"], "design"))
    _assignments(check, manifest["assignments"], raters)
    rounds = manifest.get("rounds", [])
    check.need(isinstance(rounds, list), "rounds", "a list of rounds", rounds)
    for index, entry in enumerate(rounds):
        _round(check, check.obj(entry, f"rounds[{index}]"), f"rounds[{index}]")
    return manifest


def _design(check: _Fields, design: dict) -> set[str]:
    for key in ("raters", "overlap", "seed", "strata_columns"):
        if key not in design:
            raise InputError(f"{at_field(check.path, 'design.' + key)}missing")
    raters = check.names(design["raters"], "design.raters", empty=False)
    check.need(len(set(raters)) == len(raters), "design.raters", "distinct names", raters)
    overlap = design["overlap"]
    check.need(_is_int(overlap) and 1 <= overlap <= len(raters), "design.overlap",
               f"a whole number of raters per item, 1 to {len(raters)}", overlap)  # fmt: skip
    check.need(_is_int(design["seed"]) and design["seed"] >= 0, "design.seed", "a whole number ≥ 0",
               design["seed"])  # fmt: skip
    check.names(design["strata_columns"], "design.strata_columns")
    shares = design.get("overlap_share", {})  # optional: {"3": 0.3} – raters per item → share of the items
    check.need(
        isinstance(shares, dict), "design.overlap_share", "a mapping of raters per item to a share", shares
    )
    for k, share in shares.items():
        field = f"design.overlap_share.{k}"
        check.need(str(k).isdigit() and _is_int(overlap) and overlap < int(k) <= len(raters), field,
                   f"a number of raters per item above design.overlap, at most {len(raters)}", k)  # fmt: skip
        check.need(isinstance(share, int | float) and not isinstance(share, bool) and 0 < share <= 1, field,
                   "a share in (0, 1]", share)  # fmt: skip
    check.need(
        sum(shares.values()) <= 1 + 1e-12, "design.overlap_share", "shares summing to at most 1", shares
    )
    return set(raters)


def _assignments(check: _Fields, assignments: object, raters: set[str]) -> None:
    check.need(isinstance(assignments, list), "assignments", "a list of assignments", assignments)
    seen: dict[tuple[str, str], int] = {}
    for index, entry in enumerate(assignments):  # type: ignore[arg-type]
        at = f"assignments[{index}]"
        entry = check.obj(entry, at)
        for key in ("rater", "position", "item_id", "uid", "honeypot"):
            if key not in entry:
                raise InputError(f"{at_field(check.path, f'{at}.{key}')}missing")
        check.need(entry["rater"] in raters, f"{at}.rater", "a rater of design.raters", entry["rater"])
        position = entry["position"]
        check.need(_is_int(position) and position >= 1, f"{at}.position", "a whole number ≥ 1", position)
        for key in ("item_id", "uid"):
            check.need(_is_text(entry[key]), f"{at}.{key}", "text", entry[key])
        check.need(isinstance(entry["honeypot"], bool), f"{at}.honeypot", "true/false", entry["honeypot"])
        key = (entry["rater"], entry["item_id"])
        if key in seen:
            raise InputError(
                f"{at_field(check.path, at)}rater {key[0]!r} is assigned item {key[1]!r} a second time "
                f"(also assignments[{seen[key]}]); expected one assignment per rater and item"
            )
        seen[key] = index


def _round(check: _Fields, entry: dict, at: str) -> None:
    kinds = {
        "round": (lambda v: _is_int(v) and v >= 2, "a round number ≥ 2"),
        "budget": (lambda v: _is_int(v) and v >= 1, "a whole number ≥ 1"),
        "by": (lambda v: isinstance(v, list) and all(_is_text(x) for x in v), "a list of column names"),
        "targets": (lambda v: isinstance(v, list) and v and all(_is_text(x) for x in v), "a list of metrics"),
        "objective": (_is_text, "text (max or sum)"),
        "confidence": (lambda v: _is_number(v) and 0 < v < 1, "a level between 0 and 1"),
        "item_ids": (lambda v: isinstance(v, list) and all(_is_text(x) for x in v), "a list of item ids"),
        "half_width_before": (_widths, "an object of target: half-width"),
        "half_width_after": (_widths, "an object of target: half-width"),
    }
    for key, (ok, expected) in kinds.items():
        if key not in entry:
            raise InputError(f"{at_field(check.path, f'{at}.{key}')}missing")
        check.need(bool(ok(entry[key])), f"{at}.{key}", expected, entry[key])


def _widths(value: object) -> bool:
    return isinstance(value, dict) and all(v is None or _is_number(v) for v in value.values())


def validate_campaign_items(items: pd.DataFrame, manifest: dict, path: Path) -> None:
    """``items.csv`` against the manifest (see the module docstring); InputError naming its line."""
    columns = ("item_id", "kind", "honeypot")
    lacking = [c for c in columns if c not in items.columns]
    if lacking:
        raise InputError(
            f"{path} line 1: no column {lacking[0]!r} (expected the campaign's items: "
            f"{', '.join(columns)}, …); got {', '.join(map(str, items.columns)) or 'no columns'}"
        )
    ids = items["item_id"].astype(str)
    dup = ids.duplicated().to_numpy()
    if dup.any():
        pos = int(dup.nonzero()[0][0])
        raise InputError(
            f"{place(items, pos, str(path), what='items')}item_id {ids.iloc[pos]!r} appears twice"
        )
    known = set(ids)
    for index, entry in enumerate(manifest["assignments"]):
        if entry["item_id"] not in known:
            raise InputError(
                f"{at_field(path.parent / 'manifest.json', f'assignments[{index}].item_id')}item "
                f"{entry['item_id']!r} is not in {path} (truncated or edited campaign folder?)"
            )
    for index, entry in enumerate(manifest.get("rounds", [])):
        absent = [i for i in entry["item_ids"] if i not in known]
        if absent:
            raise InputError(
                f"{at_field(path.parent / 'manifest.json', f'rounds[{index}].item_ids')}item "
                f"{absent[0]!r} is not in {path} (truncated or edited campaign folder?)"
            )
    flag = items["honeypot"].astype(str).str.strip()
    bad = (~flag.isin(("true", "false"))).to_numpy()
    if bad.any():
        pos = int(bad.nonzero()[0][0])
        raise InputError(f"{place(items, pos, str(path), what='items')}honeypot: expected true/false, "
                         f"got {flag.iloc[pos]!r}")  # fmt: skip
    if "inclusion_probability" in items.columns:
        sampled = (flag != "true").to_numpy()
        pi = pd.to_numeric(items["inclusion_probability"], errors="coerce").to_numpy(float)
        wrong = sampled & ~((pi > 0) & (pi <= 1))
        if wrong.any():
            pos = int(wrong.nonzero()[0][0])
            raise InputError(
                f"{place(items, pos, str(path), what='items')}inclusion_probability: expected a "
                f"probability in (0, 1], got {str(items['inclusion_probability'].iloc[pos])!r}"
            )
