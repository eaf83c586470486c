"""A campaign folder is replaced only by the same campaign: planning into a folder that holds
another campaign (another sample, or later rounds) would drop its draws and its link to the
projects pushed for it."""

from __future__ import annotations

from pathlib import Path

from wordplay_audit.errors import ParameterError


def keep_other_campaign(out: Path, manifest: dict) -> None:
    """ParameterError when ``out`` already holds a campaign whose sample or rounds differ from
    the one just planned (``manifest``): replacing it would drop its draws, its rounds and the
    link to the projects pushed for it. Planning the same campaign again is allowed."""
    import json

    from wordplay_audit.annotate.campaign import MANIFEST

    path = Path(out) / MANIFEST
    try:
        old = json.loads(path.read_text(encoding="utf-8-sig"))
    except (OSError, ValueError):  # no campaign there (or not one this could read): nothing to keep
        return
    if not isinstance(old, dict) or "assignments" not in old:
        return
    same = all(old.get(key) == manifest.get(key) for key in ("campaign_id", "assignments", "rounds"))
    if not same:
        raise ParameterError(
            f"out: {out} holds campaign {old.get('campaign')!r} with another sample (or later "
            "rounds); replacing it would drop its draws and its link to pushed projects – plan into "
            "a new folder, or delete this one first"
        )
