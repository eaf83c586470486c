"""Knowledge types of the gold categories (the paper's Table 1) and success per type."""

from __future__ import annotations

import pandas as pd

from wordplay_audit.corpora.connections import TAXONOMY_FILE, ConnectionsData

TAXONOMY_COLUMNS = (
    "Phonology/Orthography/Morphology",
    "Multiword Expressions",
    "Semantic Relations",
    "Associative Relations",
    "Encyclopedic",
    "Word Meaning + Word Form",
)
_POM = "Phonology/Orthography/Morphology"
_FORM = {
    "phonology": _POM,
    "phonological": _POM,
    "orthography": _POM,
    "orthographical": _POM,
    "morphology": _POM,
    "morphological": _POM,
    "multiword expressions": "Multiword Expressions",
}
_MEANING = {
    "semantic relations": "Semantic Relations",
    "associative relations": "Associative Relations",
    "encyclopedic": "Encyclopedic",
}


def taxonomy_column(knowledge_type: str | None) -> str | None:
    """Map a knowledge-type label to one of the paper's six Table 1 columns.

    Single types map to their column (phonology, orthography and morphology pooled); a
    combination (``a + b``) of a word-form type and a word-meaning type is
    ``Word Meaning + Word Form``. Anything else returns None (counted as unmapped).

    >>> taxonomy_column("encyclopedic + orthographical")
    'Word Meaning + Word Form'
    """
    if not knowledge_type:
        return None
    parts = [p.strip().lower() for p in str(knowledge_type).split("+")]
    if len(parts) == 1:
        return _FORM.get(parts[0]) or _MEANING.get(parts[0])
    forms = [p for p in parts if p in _FORM]
    meanings = [p for p in parts if p in _MEANING]
    if forms and meanings and len(forms) + len(meanings) == len(parts):
        return "Word Meaning + Word Form"
    return None


def _scored_gold(data: ConnectionsData) -> pd.DataFrame:
    scored = set(data.games.loc[data.games["scored"], "game_key"])
    return data.gold[data.gold["game_key"].isin(scored)]


def taxonomy_reason(data: ConnectionsData) -> str | None:
    """Why Table 1 is unknown (None when the taxonomy file was read)."""
    return f"{TAXONOMY_FILE} absent" if data.taxonomy_absent else None


def taxonomy_counts(data: ConnectionsData) -> dict[str, int | None]:
    """Table 1: categories of the scored games per knowledge-type column (plus ``unmapped``);
    every count None (unknown, not 0) when the taxonomy file is absent (:func:`taxonomy_reason`)."""
    if data.taxonomy_absent:
        return dict.fromkeys([*TAXONOMY_COLUMNS, "unmapped"])
    columns = _scored_gold(data)["knowledge_type"].map(taxonomy_column)
    counts = {name: int((columns == name).sum()) for name in TAXONOMY_COLUMNS}
    counts["unmapped"] = int(columns.isna().sum())
    return counts


def knowledge_type_success(data: ConnectionsData, matched: pd.DataFrame) -> pd.DataFrame:
    """Per model and taxonomy column: categories, share reproduced, share reproduced *and* named.

    Columns: ``model``, ``knowledge_type``, ``categories``, ``clustered_share``, ``reasoned_share``.
    """
    gold = _scored_gold(data)[["game_key", "gold_index", "knowledge_type"]].copy()
    gold["column"] = gold["knowledge_type"].map(taxonomy_column)
    frame = matched.merge(gold, on=["game_key", "gold_index"])
    frame["reasoned"] = frame["reproduced"] & (frame["decision"] == "Yes")
    table = (
        frame.dropna(subset=["column"])
        .groupby(["model", "column"])
        .agg(
            categories=("reproduced", "size"),
            clustered_share=("reproduced", "mean"),
            reasoned_share=("reasoned", "mean"),
        )
        .reset_index()
        .rename(columns={"column": "knowledge_type"})
    )
    order = {name: i for i, name in enumerate(TAXONOMY_COLUMNS)}
    return table.sort_values(
        ["model", "knowledge_type"], key=lambda s: s.map(order) if s.name == "knowledge_type" else s
    ).reset_index(drop=True)
