"""The framework's known-word files, ``<model>_balderdash_words1.csv``: read, and the judge's rule.

The framework builds its known-word sets with one script per model: the model defines each word
of the deck five times (temperature 0.9), the judge rates each definition against the word's
first dictionary sense, and the file gets one row per word with the columns ``words``, ``def``
(a Python-literal list of senses), ``POS``, ``llm1_definition`` … ``llm5_definition``,
``llm1_judgement`` … ``llm5_judgement`` and ``llm_knows_word``. A judgement is ``True`` or
``False``, ``-1`` where no definition came back (the definition cell is ``-1`` too), ``-2``
where the definition came back but no judgement did. ``llm_knows_word`` is the row's mode by
pandas' ``Series.mode()``, which sorts its ties and takes the first, so the smallest value wins
(-2 < -1 < False < True), and ``N/A`` when that mode is -1 or -2 (:func:`mode_rule`).

:func:`read_known_words` reads one file into one row per word with the judgements as codes
(:data:`CODES`), the framework's own rule recomputed (``judge_knows``) beside what the file says
(``file_knows``); :func:`known_items` turns words into the data contract, one ``definition``
item per generated definition with the judge's True/False as its labels.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from wordplay_audit.corpora.balderdash.words import _read_csv, _senses
from wordplay_audit.corpora.contract import validate_items
from wordplay_audit.errors import InputError

__all__ = ["CODES", "SLOTS", "known_items", "mode_rule", "model_of", "read_known_words"]

SLOTS = 5
"""Definitions per word."""
CODES = {"true": 1, "false": 0, "-1": -1, "-2": -2}
"""A judgement cell → its code (1 True, 0 False, -1 no definition, -2 no judgement)."""
EMPTY = -3
"""The code of a definition cell left empty with a True/False judgement (the script's initial
``""``/``False`` where it never wrote the row): the judge's False stands in the rule; it is no
item, and no right definition (people have nothing to read)."""
_NAME = re.compile(r"^(?P<model>.+)_balderdash_words\d*$")
KNOWS = {1: "True", 0: "False", -1: "N/A", -2: "N/A"}


def model_of(path: str | Path) -> str:
    """The model a known-word file is of, from its name ``<model>_balderdash_words1.csv``
    (the framework's model name with ``/`` written as ``_``)."""
    found = _NAME.match(Path(path).stem)
    if found is None:
        raise InputError(f"{path}: expected a file named <model>_balderdash_words1.csv (the framework's known-word file)")  # fmt: skip
    return found["model"]


def mode_rule(codes: np.ndarray) -> np.ndarray:
    """The framework's ``llm_knows_word`` of each row of ``codes`` (words × slots, values of
    :data:`CODES`; :data:`EMPTY` counts as False): the most frequent value, the smallest among
    tied ones (pandas' ``mode().values[0]``), as 1 (True), 0 (False), -1 or -2 (both ``N/A``).

    >>> mode_rule(np.array([[1, 1, 0, 0, -1], [1, 1, 0, -1, -2], [-2, -2, 1, 1, 0]])).tolist()
    [0, 1, -2]
    """
    values = np.where(np.asarray(codes) == EMPTY, 0, np.asarray(codes))
    order = np.array([-2, -1, 0, 1])  # ascending: argmax takes the first (smallest) of tied counts
    counts = (values[:, :, None] == order[None, None, :]).sum(axis=1)
    return order[np.argmax(counts, axis=1)]


def _code(raw: str, path: Path, line: int, column: str) -> int:
    text = raw.strip().lower()
    if text.endswith(".0"):  # a column of only -1/-2 may be written as floats
        text = text[:-2]
    if text not in CODES:
        raise InputError(
            f"{path} line {line}: column {column!r} is {raw[:40]!r}; expected True, False, -1 (no definition) or -2 (no judgement)"  # fmt: skip
        )
    return CODES[text]


def _check_columns(frame: pd.DataFrame, path: Path) -> None:
    need = ["POS", *(f"llm{i}_{k}" for k in ("definition", "judgement") for i in range(1, SLOTS + 1))]
    missing = [c for c in [*need, "llm_knows_word"] if c not in frame.columns]
    if missing:
        raise InputError(
            f"{path}: known-word file lacks column {missing[0]!r} (expected words, def, POS, llm1_definition … "
            "llm5_definition, llm1_judgement … llm5_judgement, llm_knows_word)"
        )


def read_known_words(path: str | Path) -> pd.DataFrame:
    """One known-word file, one row per word (file order).

    Columns: ``word`` (stripped, lower case), ``line`` (the file's line), ``model``
    (:func:`model_of`), ``deck`` (the file's stem, as games name their words file), ``reference``
    (the first sense: what the judge compared with), ``senses`` (every sense, `` | ``-joined),
    ``pos``, ``definition_1`` … ``definition_5`` (text; ``""`` where there is none), ``code_1``
    … ``code_5`` (:data:`CODES`, :data:`EMPTY`), ``judge_knows`` (:func:`mode_rule`) and
    ``file_knows`` (the file's ``llm_knows_word``: 1, 0, or -1 for ``N/A``).

    A cell that is not a judgement, a ``-1`` definition with a True/False/-2 judgement (or a
    ``-1`` judgement with a definition), an unreadable ``def``, an empty or repeated word: an
    :class:`InputError` naming the file and line.
    """
    path = Path(path)
    model = model_of(path)
    frame, lines = _read_csv(path)
    _check_columns(frame, path)
    rows, seen = [], {}
    for line, record in zip(lines, frame.to_dict(orient="records"), strict=True):
        word = str(record["words"]).strip().lower()
        if not word:
            raise InputError(f"{path} line {line}: column 'words' is empty")
        if word in seen:
            raise InputError(
                f"{path} line {line}: word {word[:40]!r} appears twice (first on line {seen[word]})"
            )
        seen[word] = line
        senses = _senses(str(record["def"]), path, line)
        row = {"word": word, "line": line, "model": model, "deck": path.stem, "reference": senses[0] if senses else "",
               "senses": " | ".join(senses), "pos": str(record["POS"])}  # fmt: skip
        for i in range(1, SLOTS + 1):
            text = str(record[f"llm{i}_definition"]).strip()
            code = _code(str(record[f"llm{i}_judgement"]), path, line, f"llm{i}_judgement")
            if (text == "-1") != (code == -1):
                raise InputError(
                    f"{path} line {line}: llm{i}_definition is {text[:40]!r} but llm{i}_judgement is "
                    f"{record[f'llm{i}_judgement']!r} (-1 in one means no definition: expected -1 in both)"
                )
            if code in (0, 1) and not text:
                code = EMPTY
            row[f"definition_{i}"] = "" if code == -1 else text
            row[f"code_{i}"] = code
        knows = str(record["llm_knows_word"]).strip().lower()
        if knows not in ("true", "false", "n/a"):
            raise InputError(f"{path} line {line}: column 'llm_knows_word' is {knows[:40]!r}; expected True, False or N/A")  # fmt: skip
        row["file_knows"] = {"true": 1, "false": 0, "n/a": -1}[knows]
        rows.append(row)
    out = pd.DataFrame(rows)
    if out.empty:
        raise InputError(f"{path}: the known-word file holds no word")
    codes = out[[f"code_{i}" for i in range(1, SLOTS + 1)]].to_numpy(int)
    out["judge_knows"] = mode_rule(codes)
    out.attrs["source"] = str(path)
    return out


def read_known_files(paths: Sequence[str | Path]) -> pd.DataFrame:
    """:func:`read_known_words` of each file, concatenated; two files of one deck are an error."""
    if not paths:
        raise InputError("files: expected one or more <model>_balderdash_words1.csv files")
    frames, decks = [], {}
    for path in paths:
        frame = read_known_words(path)
        deck = frame["deck"].iloc[0]
        if deck in decks:
            raise InputError(f"{path}: deck {deck!r} is read twice (also {decks[deck]})")
        decks[deck] = str(path)
        frames.append(frame)
    out = pd.concat(frames, ignore_index=True)
    out.attrs["source"] = ", ".join(decks.values())
    return out


def item_id(deck: str, word: str, slot: int) -> str:
    """The contract's id of one generated definition: ``known:<deck>:<word>:<slot>``."""
    return f"known:{deck}:{word}:{int(slot)}"


def definitions(words: pd.DataFrame) -> pd.DataFrame:
    """One row per word and slot (words × 5, word-major): ``item_id``, ``model``, ``deck``,
    ``word``, ``slot``, ``candidate`` and ``code``; ``is_item`` where a definition came back."""
    slots = range(1, SLOTS + 1)
    repeat = lambda column: np.repeat(words[column].to_numpy(object), SLOTS)  # noqa: E731
    long = pd.DataFrame({"model": repeat("model"), "deck": repeat("deck"), "word": repeat("word"),
                         "slot": np.tile(np.arange(1, SLOTS + 1), len(words)),
                         "candidate": words[[f"definition_{i}" for i in slots]].to_numpy(object).ravel(),
                         "code": words[[f"code_{i}" for i in slots]].to_numpy(int).ravel()})  # fmt: skip
    ids = (
        "known:" + long["deck"].astype(str) + ":" + long["word"].astype(str) + ":" + long["slot"].astype(str)
    )
    long.insert(0, "item_id", ids.to_numpy(object))
    long["is_item"] = np.isin(long["code"].to_numpy(), [1, 0, -2])
    return long


def known_items(
    words: pd.DataFrame, *, judge: str = "judge"
) -> tuple[pd.DataFrame, pd.DataFrame, dict[str, int]]:
    """The contract's items (one ``definition`` item per generated definition: ``context`` the
    word, ``reference`` its first sense, ``senses``, ``candidate`` the definition; strata
    ``player_model``, ``deck``, ``judge_verdict`` true/false/none, ``word``, ``slot``), the
    judge's True/False as labels (``rater`` ``judge``, ``question`` reference) and the counts of
    slots without an item or a verdict (``no_definition`` -1, ``no_judgement`` -2,
    ``empty_definition``)."""
    long = definitions(words)
    info = words.set_index(["deck", "word"])[["reference", "senses", "pos"]]
    kept = long[long["is_item"]].reset_index(drop=True)
    joined = info.reindex(pd.MultiIndex.from_arrays([kept["deck"], kept["word"]]))
    verdict = kept["code"].map({1: "true", 0: "false", -2: "none"})
    items = pd.DataFrame({"item_id": kept["item_id"], "game": "balderdash", "kind": "definition", "context": kept["word"],
                          "reference": joined["reference"].to_numpy(), "senses": joined["senses"].to_numpy(),
                          "candidate": kept["candidate"], "player_model": kept["model"], "deck": kept["deck"],
                          "judge_verdict": verdict, "word": kept["word"], "slot": kept["slot"]})  # fmt: skip
    judged = kept[kept["code"].isin([0, 1])]
    labels = pd.DataFrame({"item_id": judged["item_id"], "rater": judge, "rater_type": "judge",
                           "label": judged["code"].map({1: "true", 0: "false"}), "question": "reference"})  # fmt: skip
    counts = {"slots_without_a_definition_(-1)": int((long["code"] == -1).sum()),
              "judge_labels_missing_(-2,_items_kept)": int((long["code"] == -2).sum()),
              "empty_definitions": int((long["code"] == EMPTY).sum())}  # fmt: skip
    source = words.attrs.get("source")
    return validate_items(items, source=source), labels.reset_index(drop=True), counts


def true_known(words: pd.DataFrame, truth: dict[str, bool]) -> np.ndarray:
    """The framework's rule on the truth (1 known, 0 unknown, -1 N/A per word): each definition's
    truth in place of the judge's verdict (all of a word's definitions must be in ``truth``),
    ``-1`` kept, an empty definition false."""
    long = definitions(words)
    values = [truth[i] if item else None for i, item in zip(long["item_id"], long["is_item"], strict=True)]
    codes = np.where(long["is_item"], [int(v) if v is not None else 0 for v in values], long["code"])
    return np.maximum(mode_rule(codes.reshape(-1, SLOTS)), -1)


def simulate_known_words(
    rng: np.random.Generator, *, model: str = "sim", rates: np.ndarray | int = 300, se: float = 0.74,
    sp: float = 0.97, missing: tuple[float, float] = (0.02, 0.02),
) -> tuple[pd.DataFrame, dict[str, bool]]:  # fmt: skip
    """A known-word file's rows (as :func:`read_known_words` returns them) with known truth: per
    word a rate p (``rates``, or that many words with p ~ Beta(0.6, 0.6)), five definitions true
    with probability p, the judge's verdict with ``se``/``sp``; ``missing``: the chance that a
    definition has no definition (-1) and no judgement (-2). Returns the rows and item_id → truth."""
    p_no_definition, p_no_judgement = missing
    rate = rng.beta(0.6, 0.6, size=int(rates)) if np.ndim(rates) == 0 else np.asarray(rates, float)
    n_words = len(rate)
    truth = rng.random((n_words, SLOTS)) < rate[:, None]
    said = np.where(truth, rng.random((n_words, SLOTS)) < se, rng.random((n_words, SLOTS)) >= sp)
    codes = np.where(said, 1, 0)
    codes = np.where(rng.random((n_words, SLOTS)) < p_no_judgement, -2, codes)
    codes = np.where(rng.random((n_words, SLOTS)) < p_no_definition, -1, codes)
    deck = f"{model}_balderdash_words1"
    rows = pd.DataFrame({"word": [f"w{k}" for k in range(n_words)], "line": np.arange(2, n_words + 2), "model": model,
                         "deck": deck, "reference": "", "senses": "", "pos": ""})  # fmt: skip
    for i in range(SLOTS):
        rows[f"definition_{i + 1}"] = np.where(codes[:, i] == -1, "", "definition")
        rows[f"code_{i + 1}"] = codes[:, i]
    rows["judge_knows"] = mode_rule(codes)
    rows["file_knows"] = np.maximum(rows["judge_knows"], -1)
    truths = {item_id(deck, f"w{k}", i + 1): bool(truth[k, i]) for k in range(n_words) for i in range(SLOTS) if codes[k, i] != -1}  # fmt: skip
    return rows, truths
