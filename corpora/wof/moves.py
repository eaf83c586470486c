"""The game master's move format (LLMike's Wheel of Fortune report files): the keys of a move,
its special values, and one line parsed and checked.

One JSON object per move with the keys of :data:`MOVE_KEYS`. ``letter`` is ``"_"`` on a game's
first move (the opening guess), a single letter on a letter move, or one of the special values
of :data:`SPECIAL_LETTERS` on a move that ended the game with an error. ``wheel_reward`` and
``letter_occurences`` (sic) are integers or ``"/"`` (not applicable); ``budget`` is an integer
(the game master logs ``budget − 250`` on a refused vowel purchase, so it can be negative). A
game is won when its last move's ``guess`` equals ``solution``.

:func:`parse_move` reads one line and raises :class:`BadLine` saying what was expected and what
came; :mod:`~wordplay_audit.corpora.wof.reader` turns that into a message naming the file and
line (``_fast`` checks whole blocks of lines against the same rules).
"""

from __future__ import annotations

import json

from wordplay_audit.corpora.values import MAX_INT_DIGITS, surrogate_problem

#: The keys of a move, in the order LLMike writes them.
MOVE_KEYS = ("letter", "masked", "guess", "solution", "budget", "wheel_reward", "letter_occurences")
NOT_APPLICABLE = "/"
OPENING = "_"
PASS = "PASS"
"""The ``guess`` of a player who does not guess."""
SPECIAL_LETTERS = {
    "INSUFFICENT BUDGET": "insufficient_budget",  # sic, as the game master writes it
    "INSTRUCTION ERROR": "action_na",
    "CONSONANT NOT ALLOWED": "consonant_na",
    "VOWEL NOT ALLOWED": "vowel_na",
    "ERROR": "round_limit",
}
"""Special ``letter`` values of a game-ending move → the loss class they name."""
ROUND_LIMIT = "ERROR"
"""The ``letter`` of the move logged after the 20th round (also after a right guess on it)."""
LOSS_CLASSES = (
    "insufficient_budget",
    "action_na",
    "consonant_na",
    "vowel_na",
    "missing_letter",
    "wrong_guess",
    "round_limit",
)
"""Every way to lose, in the order of the error taxonomy."""
LETTERS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
VALID_LETTERS = frozenset({OPENING, *LETTERS, *SPECIAL_LETTERS})
"""Every ``letter`` a move may hold: the opening ``_``, one letter A–Z, a special value."""
INT_LIMIT = 10**MAX_INT_DIGITS
"""Integers are refused from this magnitude on (they would not fit the int64 columns)."""
_JSON_KINDS = {
    type(None): "null",
    bool: "boolean",
    int: "number",
    float: "number",
    str: "string",
    list: "array",
}


class BadLine(ValueError):
    """What is wrong with one line: its message says what was expected and what came."""


def _int_or_na(value: object, key: str) -> int | None:
    if value == NOT_APPLICABLE:
        return None
    number = _int(value, key)
    if number < 0:
        raise BadLine(f"key {key!r}: expected an integer ≥ 0 or {NOT_APPLICABLE!r}, got {number}")
    return number


def _int(value: object, key: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise BadLine(f"key {key!r}: expected an integer, got {json.dumps(value)[:40]}")
    if isinstance(value, float) and not value.is_integer():
        raise BadLine(f"key {key!r}: expected an integer, got {value}")
    if not -INT_LIMIT < value < INT_LIMIT:
        shown = str(value) if len(str(value)) <= 40 else str(value)[:37] + "..."
        raise BadLine(f"key {key!r}: expected an integer of at most {MAX_INT_DIGITS} digits, got {shown}")
    return int(value)


def _letter(value: str) -> str:
    if value not in VALID_LETTERS:
        raise BadLine(
            f"key 'letter': expected {OPENING!r}, one letter A–Z or one of "
            f"{', '.join(SPECIAL_LETTERS)}; got {json.dumps(value)[:40]}"
        )
    return value


def json_object(pairs: list[tuple[str, object]]) -> dict:
    """``object_pairs_hook`` for a move: a key given twice is refused (plain JSON keeps the last)."""
    record = dict(pairs)
    if len(record) != len(pairs):
        seen: set[str] = set()
        twice = next(k for k, _ in pairs if k in seen or seen.add(k))
        raise BadLine(f"key {twice!r} appears twice; expected each key once")
    return record


def parse_move(text: str) -> tuple:
    """One report line → ``(letter, masked, guess, solution, budget, wheel_reward, occurences)``.

    Raises ``BadLine`` with what was expected and what came.
    """
    try:
        record = json.loads(text, object_pairs_hook=json_object)
    except json.JSONDecodeError as exc:
        raise BadLine(f"expected a JSON object (one move), got {text.strip()[:40]!r} ({exc.msg})") from None
    except RecursionError:
        raise BadLine(
            f"expected a JSON object (one move), got {text.strip()[:40]!r} (nested too deeply)"
        ) from None
    if not isinstance(record, dict):
        raise BadLine(
            f"expected a JSON object (one move), got a JSON {_JSON_KINDS.get(type(record), 'value')}"
        )
    if (problem := surrogate_problem(record, text)) is not None:
        raise BadLine(problem)
    missing = [k for k in MOVE_KEYS if k not in record]
    if missing:
        raise BadLine(f"move lacks key {missing[0]!r} (expected {', '.join(MOVE_KEYS)})")
    texts = []
    for key in ("letter", "masked", "guess", "solution"):
        value = record[key]
        if not isinstance(value, str):
            raise BadLine(f"key {key!r}: expected a string, got {json.dumps(value)[:40]}")
        texts.append(value)
    if len(texts[1]) != len(texts[3]):
        raise BadLine(f"masked has {len(texts[1])} characters, solution {len(texts[3])}; expected the same")
    return (
        _letter(texts[0]),
        *texts[1:],
        _int(record["budget"], "budget"),
        _int_or_na(record["wheel_reward"], "wheel_reward"),
        _int_or_na(record["letter_occurences"], "letter_occurences"),
    )
