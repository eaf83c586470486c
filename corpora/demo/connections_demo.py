"""The demo corpus: original puzzles in the Connections study's file format, written on demand.

The six puzzles, the two invented models' answers, the human players' answers and the three
simulated linguists were written for this project (they are not NYT puzzles). They are kept as
Python data and written in the study's native layout by :func:`write_demo_corpus`, so the demo
reads them back through the same reader as the real files. Quirks of the real files are
reproduced on purpose: a gold group stored as ``{"Words": [...]}``, a few-shot game marked
``exclude``, an answer whose ``categories`` is ``""``, lower-case words, a broken list literal
and a typo in a human answer, groups that are not 4 words.
"""

from __future__ import annotations

import csv
import json
import random
from pathlib import Path

# (gold name, words, knowledge type), yellow → purple
PUZZLES: list[list[tuple[str, list[str], str]]] = [
    [
        ("CITRUS FRUITS", ["LEMON", "LIME", "ORANGE", "GRAPEFRUIT"], "semantic relations"),
        ("PARTS OF A SHOE", ["SOLE", "HEEL", "TONGUE", "LACE"], "semantic relations"),
        ("CHESS PIECES", ["KING", "QUEEN", "ROOK", "BISHOP"], "encyclopedic"),
        ("___FISH", ["SWORD", "CAT", "STAR", "JELLY"], "multiword expressions"),
    ],
    [
        ("PLANETS", ["MARS", "VENUS", "SATURN", "MERCURY"], "encyclopedic"),
        ("KITCHEN UTENSILS", ["WHISK", "LADLE", "SPATULA", "TONGS"], "semantic relations"),
        ("MUSICAL TEMPOS", ["ADAGIO", "PRESTO", "LARGO", "ALLEGRO"], "encyclopedic"),
        ("___BALL", ["FOOT", "BASE", "SNOW", "EYE"], "multiword expressions"),
    ],
    [
        ("SHADES OF BLUE", ["NAVY", "COBALT", "TEAL", "AZURE"], "semantic relations"),
        ("CARD GAMES", ["RUMMY", "CRIBBAGE", "CANASTA", "EUCHRE"], "encyclopedic"),
        ("TREES", ["OAK", "MAPLE", "BIRCH", "CEDAR"], "semantic relations"),
        ("SOUND LIKE LETTERS", ["BEE", "SEA", "TEA", "YOU"], "phonology"),
    ],
    [
        ("PRECIPITATION", ["HAIL", "SLEET", "SNOW", "DRIZZLE"], "semantic relations"),
        ("PASTA SHAPES", ["PENNE", "FUSILLI", "ORZO", "RIGATONI"], "encyclopedic"),
        ("BONES", ["FEMUR", "TIBIA", "ULNA", "RADIUS"], "semantic relations"),
        ("PALINDROMES", ["KAYAK", "RADAR", "LEVEL", "CIVIC"], "orthography"),
    ],
    [
        ("COFFEE DRINKS", ["LATTE", "MOCHA", "ESPRESSO", "CORTADO"], "associative relations"),
        ("SOLIDS", ["CUBE", "CONE", "SPHERE", "PRISM"], "semantic relations"),
        ("KNOTS", ["BOWLINE", "HITCH", "SHEEPSHANK", "REEF"], "encyclopedic"),
        ("___BOARD", ["SKATE", "CHALK", "DART", "KEY"], "semantic relations + multiword expressions"),
    ],
    [
        ("GREETINGS", ["HELLO", "HOWDY", "HIYA", "GREETINGS"], "semantic relations"),
        ("DOG BREEDS", ["BOXER", "POODLE", "BEAGLE", "PUG"], "encyclopedic"),
        ("BOXING TERMS", ["JAB", "HOOK", "CROSS", "UPPERCUT"], "associative relations"),
        ("ANAGRAMS OF 'STOP'", ["POTS", "TOPS", "SPOT", "OPTS"], "orthography"),
    ],
]
FEW_SHOT = {
    "GREEK LETTERS": ["ALPHA", "BETA", "GAMMA", "DELTA"],
    "NUMBERS": ["ONE", "TWO", "THREE", "FOUR"],
    "COLOURS": ["RED", "GREEN", "BLUE", "GOLD"],
    "DIRECTIONS": ["NORTH", "SOUTH", "EAST", "WEST"],
}
DICT_FORM = (3, "PALINDROMES")  # stored as {"Words": [...]} like the real file's game 0

# Each model: per game, (groups as (name, words), names a human judged equivalent, malformed,
# stored score or None for "count the exact groups"). None for groups = categories "".
MODEL_A = [
    (
        [
            ("Citrus", ["LIME", "LEMON", "ORANGE", "GRAPEFRUIT"]),
            ("Shoe parts", ["SOLE", "HEEL", "TONGUE", "LACE"]),
            ("Chess", ["KING", "QUEEN", "ROOK", "BISHOP"]),
            ("Sea creatures", ["SWORD", "CAT", "STAR", "JELLY"]),
        ],
        {"Citrus", "Shoe parts", "Chess"},
        False,
        None,
    ),
    (
        [
            ("Planets", ["MARS", "VENUS", "SATURN", "MERCURY"]),
            ("Utensils", ["WHISK", "LADLE", "SPATULA", "TONGS"]),
            ("Music words", ["ADAGIO", "PRESTO", "LARGO", "EYE"]),
            ("Sports", ["FOOT", "BASE", "SNOW", "ALLEGRO"]),
        ],
        {"Planets", "Utensils"},
        False,
        None,
    ),
    (
        [
            ("Blues", ["NAVY", "COBALT", "TEAL", "AZURE"]),
            ("Trees", ["OAK", "MAPLE", "BIRCH", "CEDAR"]),
            ("Games", ["RUMMY", "CRIBBAGE", "CANASTA", "YOU"]),
            ("Drinks", ["BEE", "SEA", "TEA", "EUCHRE"]),
        ],
        {"Blues", "Trees"},
        False,
        None,
    ),
    (
        [
            ("Weather", ["HAIL", "SLEET", "SNOW", "DRIZZLE"]),
            ("Pasta", ["PENNE", "FUSILLI", "ORZO", "RIGATONI"]),
            ("Skeleton", ["FEMUR", "TIBIA", "ULNA", "RADIUS"]),
            ("Same backwards", ["KAYAK", "RADAR", "LEVEL", "CIVIC"]),
        ],
        {"Weather", "Pasta", "Skeleton", "Same backwards"},
        False,
        3,
    ),
    (
        [
            ("Cafe menu", ["latte", "mocha", "espresso", "cortado"]),
            ("Shapes", ["CUBE", "CONE", "SPHERE", "PRISM"]),
            ("Knots", ["BOWLINE", "HITCH", "SHEEPSHANK", "REEF"]),
            ("Boards", ["SKATE", "CHALK", "DART", "KEY"]),
        ],
        {"Cafe menu", "Shapes", "Knots"},
        True,
        None,
    ),
    (None, set(), True, None),
]
MODEL_B = [
    (
        [
            ("Fruit", ["LEMON", "LIME", "ORANGE", "GRAPEFRUIT"]),
            ("Footwear", ["SOLE", "HEEL", "TONGUE", "KING"]),
            ("Royalty", ["LACE", "QUEEN", "ROOK", "BISHOP"]),
            ("Fish", ["SWORD", "CAT", "STAR", "JELLY"]),
        ],
        {"Fruit", "Fish"},
        False,
        None,
    ),
    (
        [
            ("Space", ["MARS", "VENUS", "SATURN", "MERCURY"]),
            ("Cooking", ["WHISK", "LADLE", "SPATULA", "TONGS"]),
            ("Italian", ["ADAGIO", "PRESTO", "LARGO", "ALLEGRO"]),
            ("Balls", ["FOOT", "BASE", "SNOW", "EYE"]),
        ],
        {"Space", "Cooking", "Italian", "Balls"},
        False,
        None,
    ),
    (
        [
            ("Colours", ["NAVY", "COBALT", "TEAL", "AZURE"]),
            ("Wood", ["OAK", "MAPLE", "BIRCH", "CEDAR"]),
            ("Card games", ["RUMMY", "CRIBBAGE", "CANASTA", "EUCHRE"]),
            ("Letters", ["BEE", "SEA", "TEA", "YOU"]),
        ],
        {"Colours", "Wood", "Card games", "Letters"},
        False,
        None,
    ),
    (
        [
            ("Cold weather", ["HAIL", "SLEET", "SNOW", "KAYAK"]),
            ("Italian food", ["PENNE", "FUSILLI", "ORZO", "RIGATONI"]),
            ("Leg", ["FEMUR", "TIBIA", "ULNA", "RADIUS"]),
            ("Words", ["DRIZZLE", "RADAR", "LEVEL", "CIVIC"]),
        ],
        {"Italian food"},
        False,
        None,
    ),
    (
        [
            ("Coffee", ["LATTE", "MOCHA", "ESPRESSO", "CORTADO"]),
            ("Solids", ["CUBE", "CONE", "SPHERE", "PRISM"]),
            ("Sailing", ["BOWLINE", "HITCH", "REEF", "REEF"]),
            ("Boards", ["SKATE", "CHALK", "DART", "KEY"]),
        ],
        {"Coffee", "Solids", "Boards"},
        False,
        None,
    ),
    (
        [
            ("Hi", ["HELLO", "HOWDY", "HIYA", "GREETINGS"]),
            ("Dogs", ["BOXER", "POODLE", "BEAGLE", "PUG"]),
            ("Punches", ["JAB", "HOOK", "CROSS", "UPPERCUT"]),
            ("Anagrams", ["POTS", "TOPS", "SPOT", "OPTS"]),
        ],
        {"Hi", "Dogs", "Punches", "Anagrams"},
        False,
        None,
    ),
]
# human players: (player, game number, the `input` cell as typed — row 3 is a broken literal)
NOVICE_RAW = [
    (
        "P1",
        "1",
        str(
            [
                [" LEMON", " LIME", "ORANGE", " GRAPEFRUIT"],
                ["SOLE", " HEEL", " TONGUE", " LACE"],
                ["KING", "QUEEN", "SWORD", "BISHOP"],
                ["ROOK", "CAT", "STAR", "JELLY"],
            ]
        ),
    ),
    (
        "P2",
        "2",
        str(
            [
                ["MARS", "VENUS", "SATURN", "MERCURY"],
                ["WHISK", "LADLE", "SPATULA", "TONGS"],
                ["ADAGIO", "PRESTO", "LARGO", "ALLEGRO"],
                ["FOOT", "BASE", "SNOW", "EYE"],
            ]
        ),
    ),
    (
        "P1",
        "3",
        "[[' NAVY', ' COBALT', 'TEAL', ' AZURE], ['RUMMY, 'CRIBBAGE', ' CANASTA', ' BEE'], "
        "[' OAK', ' MAPEL', 'BIRCH', ' CEDAR'], ['EUCHRE', 'SEA', 'TEA', 'YOU']]",
    ),
    (
        "P3",
        "4",
        str(
            [
                ["HAIL", "SLEET", "SNOW", "KAYAK", "DRIZZLE"],
                ["PENNE", "FUSILLI", "ORZO"],
                ["FEMUR", "TIBIA", "ULNA", "RADIUS"],
                ["RADAR", "LEVEL", "CIVIC"],
            ]
        ),
    ),
]
NOVICE_STORED = [(0, 2), (1, 4), (2, 1), (3, 0)]  # (game, stored score)
TAXONOMY_COLUMNS = {
    "semantic relations": "Semantic Relations",
    "encyclopedic": "Encyclopedic",
    "multiword expressions": "Multiword Expressions",
    "associative relations": "Associative Relations",
    "phonology": "Phonology/Orthography/Morphology",
    "orthography": "Phonology/Orthography/Morphology",
    "semantic relations + multiword expressions": "Word Meaning + Word Form",
}
LINGUISTS = (("linguist-1", 0.9), ("linguist-2", 0.8), ("linguist-3", 0.7))


def _gold_records() -> list[dict]:
    records = []
    for index, puzzle in enumerate(PUZZLES):
        categories: dict = {name: list(words) for name, words, _ in puzzle}
        if index == DICT_FORM[0]:
            categories[DICT_FORM[1]] = {"Words": categories[DICT_FORM[1]]}
        records.append(
            {"allwords": ", ".join(w for _, words, _ in puzzle for w in words), "categories": categories}
        )
    records.append(
        {
            "allwords": ", ".join(w for words in FEW_SHOT.values() for w in words),
            "exclude": True,
            "categories": FEW_SHOT,
        }
    )
    return records


def _answer(gold: dict, groups, named: set[str], malformed: bool, stored: int | None) -> dict:
    golds = [(n, v["Words"] if isinstance(v, dict) else v) for n, v in gold["categories"].items()]
    judged = {}
    exact = 0
    for name, words in groups or []:
        for gold_name, gold_words in golds:
            if sorted(words) == sorted(gold_words):
                exact += 1
                judged[f"{name.upper()}_#_{gold_name}"] = "Yes" if name in named else "No"
    return {
        "allwords": gold["allwords"],
        "reason": "Groupings: " + "; ".join(f"{n}: [{', '.join(w)}]" for n, w in groups or []),
        "categories": {name: words for name, words in groups} if groups is not None else "",
        "malformed": malformed,
        "score": stored if stored is not None else exact,
        "categorical_score": judged,
    }


def _knowledge_type_labels(gold: list[dict]) -> list[list[str]]:
    """Three simulated linguists (accuracy .9, .8, .7 against the majority label), seed 7."""
    from wordplay_audit.corpora.connections import split_allwords
    from wordplay_audit.corpora.contract import game_key

    rng = random.Random(7)
    columns = [
        "Phonology/Orthography/Morphology",
        "Multiword Expressions",
        "Semantic Relations",
        "Associative Relations",
        "Encyclopedic",
        "Word Meaning + Word Form",
    ]
    rows = []
    for puzzle, record in zip(PUZZLES, gold, strict=False):
        key = game_key(split_allwords(record["allwords"]))
        for index, (_, _, knowledge) in enumerate(puzzle):
            truth = TAXONOMY_COLUMNS[knowledge]
            for rater, accuracy in LINGUISTS:
                label = truth if rng.random() < accuracy else rng.choice([c for c in columns if c != truth])
                rows.append([f"cxt:{key}:{index}", rater, "human", label])
    return rows


def write_demo_corpus(folder: str | Path) -> Path:
    """Write the demo corpus in the study's layout into ``folder``; return the folder.

    Files: ``gold_data.json``, ``game_with_knowledge_taxonomy.json``, ``model-a.json``,
    ``model-b.json``, ``novice.json``, ``novice_raw.csv`` and ``knowledge_type_labels.csv``
    (the linguists' labels in the data contract). Same content every time.
    """
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    gold = _gold_records()
    taxonomy = [
        {
            "allwords": record["allwords"],
            "reasoning_annotation": [
                {
                    "Categories": name,
                    "Words in Category": str(words),
                    "Complexity": "complex" if "+" in knowledge else "simple",
                    "Based On": "word meaning + word form"
                    if "+" in knowledge
                    else (
                        "word form"
                        if knowledge in ("phonology", "orthography", "multiword expressions")
                        else "word meaning"
                    ),
                    "Knowledge Type": knowledge,
                }
                for name, words, knowledge in puzzle
            ],
        }
        for puzzle, record in zip(PUZZLES, gold, strict=False)
    ] + [{"allwords": gold[-1]["allwords"], "reasoning_annotation": []}]
    few_shot = gold[-1]
    files = {
        "gold_data.json": gold,
        "game_with_knowledge_taxonomy.json": taxonomy,
        "novice.json": [
            {"allwords": gold[g]["allwords"], "categories": gold[g]["categories"], "score": s}
            for g, s in NOVICE_STORED
        ],
    }
    for name, answers, few_shot_group in (("model-a", MODEL_A, "Greek"), ("model-b", MODEL_B, "Greek")):
        records = [_answer(g, *answer) for g, answer in zip(gold, answers, strict=False)]
        # the few-shot game: an answer without score fields, as in the real files
        greek = list(FEW_SHOT["GREEK LETTERS"])
        records.append(
            {
                "allwords": few_shot["allwords"],
                "reason": f"Groupings: {few_shot_group}: [{', '.join(greek)}]",
                "categories": {few_shot_group: greek},
                "malformed": False,
            }
        )
        files[f"{name}.json"] = records
    for name, content in files.items():
        (folder / name).write_text(json.dumps(content, indent=1), encoding="utf-8")
    with (folder / "novice_raw.csv").open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["player", "annotated", "game_number", "input"])
        writer.writerows([player, "True", number, cell] for player, number, cell in NOVICE_RAW)
    with (folder / "knowledge_type_labels.csv").open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["item_id", "rater", "rater_type", "label"])
        writer.writerows(_knowledge_type_labels(gold))
    return folder
