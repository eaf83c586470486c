"""Hand-made LLMike report files for the Wheel of Fortune tests (moves typed out one by one)."""

from __future__ import annotations

import json
from pathlib import Path

NA = "/"


def move(letter, masked, guess, solution, budget, reward=NA, occ=NA) -> dict:
    return {
        "letter": letter,
        "masked": masked,
        "guess": guess,
        "solution": solution,
        "budget": budget,
        "wheel_reward": reward,
        "letter_occurences": occ,
    }


ALPHA = [
    [  # 0: win after T, E (bought), H — shown "THE __T" when guessed
        move("_", "___ ___", "PASS", "THE CAT", 0),
        move("T", "T__ __T", "PASS", "THE CAT", 600, 300, 2),
        move("E", "T_E __T", "PASS", "THE CAT", 350, NA, 1),
        move("H", "THE __T", "THE CAT", "THE CAT", 850, 500, 1),
    ],
    [move("_", "___", "DOG", "DOG", 0)],  # 1: win at the opening guess
    [  # 2: a letter not in the riddle
        move("_", "___ ___", "PASS", "SUN HAT", 0),
        move("T", "___ __T", "PASS", "SUN HAT", 200, 200, 1),
        move("Z", "___ __T", "PASS", "SUN HAT", 200, 400, 0),
    ],
    [  # 3: buying a vowel without 250 $
        move("_", "___ ___", "PASS", "BIG RED", 0),
        move("INSUFFICENT BUDGET", "___ ___", "PASS", "BIG RED", -250),
    ],
    [  # 4: a wrong guess, same words, one letter too many
        move("_", "___ _____", "PASS", "ICE CREAM", 0),
        move("C", "_C_ C____", "ICE CREAMS", "ICE CREAM", 200, 100, 2),
    ],
]

BETA = [
    [
        move("_", "___ ___", "PASS", "RED HAT", 0),
        move("INSTRUCTION ERROR", "___ ___", "PASS", "RED HAT", -250),
    ],
    [
        move("_", "___", "PASS", "TOP", 0),
        move("T", "T__", "PASS", "TOP", 500, 500, 1),
        move("CONSONANT NOT ALLOWED", "T__", "PASS", "TOP", 250),
    ],
    [move("_", "____", "PASS", "BLUE", 0), move("VOWEL NOT ALLOWED", "____", "PASS", "BLUE", 0)],
    [
        move("_", "__ ___", "PASS", "NO WAY", 0),
        move("N", "N_ ___", "PASS", "NO WAY", 100, 100, 1),
        move("ERROR", "N_ ___", "PASS", "NO WAY", 100),
    ],
    [  # 4: a wrong guess with the wrong number of words, same letters
        move("_", "___ ___", "PASS", "HOT DOG", 0),
        move("T", "__T ___", "HOTDOG", "HOT DOG", 1000, 1000, 1),
    ],
    [  # 5: right guess on the 20th round: LLMike still logs ERROR; the last guess wins
        move("_", "__", "PASS", "GO", 0),
        move("G", "G_", "GO", "GO", 100, 100, 1),
        move("ERROR", "G_", "GO", "GO", 100),
    ],
]


def report_text(games: list[list[dict]], *, trailing_blank: bool = True) -> str:
    text = "\n\n".join("\n".join(json.dumps(m) for m in game) for game in games) + "\n"
    return text + "\n" if trailing_blank else text


def write_logs(folder: Path) -> Path:
    """alpha.jsonl (blank line after each game) and beta/report.jsonl (no trailing blank line)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "alpha.jsonl").write_text(report_text(ALPHA), encoding="utf-8")
    (folder / "beta").mkdir(exist_ok=True)
    (folder / "beta" / "report.jsonl").write_text(report_text(BETA, trailing_blank=False), encoding="utf-8")
    return folder


# {"letter": "T", …, "budget": 600, "wheel_reward": 300, "letter_occurences": 2}: line 2 of ALPHA
T_MOVE = json.dumps(ALPHA[0][1])


def with_line_2(tmp_path: Path, text: str) -> Path:
    """ALPHA's report with line 2 (game 0's move "T", budget 600) replaced by ``text``."""
    lines = report_text(ALPHA).splitlines()
    lines[1] = text
    path = tmp_path / "m.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path
