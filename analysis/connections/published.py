"""Numbers published in Samadarshi et al. (2024) and facts about the study's own scoring that the
released files cannot show."""

from __future__ import annotations

PUBLISHED_TABLE5 = {
    "gemini1.5pro": [161, 153, 90, 10, 24],
    "claude3.5sonnet": [87, 138, 117, 17, 79],
    "gpt4o": [112, 140, 111, 10, 65],
    "llama3.1405B": [146, 150, 93, 2, 47],
    "mistral2large": [185, 149, 80, 3, 21],
}
"""Table 5: frequency of unweighted clustering scores 0–4 over the 438 scored games."""

PUBLISHED_TABLE1 = {
    "Phonology/Orthography/Morphology": 44,
    "Multiword Expressions": 168,
    "Semantic Relations": 1045,
    "Associative Relations": 137,
    "Encyclopedic": 266,
    "Word Meaning + Word Form": 92,
}
"""Table 1: knowledge types over the 1,752 categories."""

SCORED_FROM_ANOTHER_VERSION = {
    ("claude3.5sonnet", 416): (
        1,
        'the released record has "categories": "" (score 0); the study\'s per-game output scores it 1, '
        "so the study scored another version of this record",
    ),
}
"""The study's per-game score output for Claude 3.5 Sonnet has unweighted 1 (weighted 2,
categorical 1) for this game, whose released record has ``"categories": ""`` (malformed): the
study scored a version of the file in which that record held parsed groups."""

WORDS_DICT_EXPLANATION = (
    'the gold group is stored as {"Words": [...]}; the study\'s scorer sorted that dict (giving '
    "['Words']), so no answer could reproduce it: a correct reproduction was scored one lower"
)
