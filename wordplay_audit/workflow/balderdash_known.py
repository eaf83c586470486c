"""The framework's known-word sets re-tested under people's labels (``balderdash known-items``,
``balderdash known``): each model's words, defined five times and judged, as contract items for
a campaign; then per model the judge's known count (the framework's ``llm_knows_word``) beside
the corrected count of truly known words with its interval, and the words to label next.

In a notebook::

    import wordplay_audit as wa
    wa.balderdash_known_items(["llama_balderdash_words1.csv"]).write("known-items")
    # plan, push, pull a campaign on known-items/items.csv, then:
    wa.balderdash_known(["llama_balderdash_words1.csv"], wa.read_labels("final.csv", accept_final=True))
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from wordplay_audit.errors import InputError, ParameterError, check_choice
from wordplay_audit.workflow.items import Items
from wordplay_audit.workflow.results import Result, plain
from wordplay_audit.workflow.text import counted, frame_lines

__all__ = ["BalderdashKnown", "balderdash_known", "balderdash_known_items"]

KNOWS_TEXT = {1: "True", 0: "False", -1: "N/A", -2: "N/A"}
SHOWN = ["model", "words", "judge_known", "known", "ci_low", "ci_high", "labelled", "labelled_words", "judge_se",
         "judge_sp", "reason"]  # fmt: skip


def _words(files: Sequence[str | Path] | pd.DataFrame) -> pd.DataFrame:
    from wordplay_audit.corpora.balderdash.known import read_known_files

    if isinstance(files, pd.DataFrame):
        return files
    if isinstance(files, str | Path):
        files = [files]
    return read_known_files(list(files))


def balderdash_known_items(files: Sequence[str | Path], *, judge: str = "judge") -> Items:
    """The known-word files' generated definitions as contract items (kind ``definition``,
    strata ``player_model``, ``deck``, ``judge_verdict`` true/false/none, ``word``, ``slot``) and
    the judge's True/False as labels (``rater`` ``judge``, ``question`` reference); the slots
    with no definition (-1), no judgement (-2) or an empty definition counted in ``skipped``."""
    from wordplay_audit.corpora.balderdash.known import known_items

    if not str(judge).strip():
        raise ParameterError("judge: expected the judge's name, got an empty string")
    words = _words(files)
    items, labels, skipped = known_items(words, judge=str(judge).strip())
    return Items(
        words.attrs.get("source", ""), items, labels, skipped, ("player_model", "deck", "judge_verdict")
    )


@dataclass
class BalderdashKnown(Result):
    """Per model the judge's known count and the corrected count of truly known words (``models``),
    P(known) per word (``words``) and the most uncertain words (``next``)."""

    title = "Balderdash known words"
    main_table = "models"

    source: str
    question: str
    confidence: float
    models: pd.DataFrame
    words: pd.DataFrame
    next: pd.DataFrame
    counts: dict[str, int] = field(default_factory=dict)

    def tables(self) -> dict[str, pd.DataFrame]:
        return {"models": self.models, "words": self.words, "next": self.next}

    def to_dict(self) -> dict[str, Any]:
        return plain({"source": self.source, "question": self.question, "confidence": self.confidence,
                      "counts": self.counts, "models": self.models, "next": self.next})  # fmt: skip

    def summary(self) -> list[str]:
        level = f"{100 * self.confidence:g} %"
        lines = [
            f"known words per model: the judge's count (the framework's llm_knows_word) and the realised count of "
            f"words whose definitions are truly right by the same rule under people's labels ({self.question} "
            f"question; {level} interval, words' five definitions modelled together):",
            *frame_lines(self.models, [c for c in SHOWN if c in self.models.columns]),
        ]
        missing = self.models[["no_definition", "no_judgement", "empty_definition", "file_disagrees"]].sum()
        note = counted({"definitions missing (-1)": missing["no_definition"], "judgements missing (-2, not read as false)":
                        missing["no_judgement"], "empty definitions": missing["empty_definition"],
                        "words whose llm_knows_word disagrees with the framework's rule": missing["file_disagrees"],
                        **self.counts})  # fmt: skip
        if note:
            lines.append(note)
        if len(self.next):
            lines.append("most uncertain words (label their unlabelled definitions next):")
            lines += frame_lines(
                self.next, ["model", "word", "judge_knows", "p_known", "labelled", "definitions"]
            )
        return lines

    def section(self):
        from wordplay_audit.analysis.report import Paragraph, Section, Table

        cols = [c for c in SHOWN if c in self.models.columns]
        return Section(self.title, [Paragraph("\n".join(self.summary()[:1])),
                                    Table(self.models[cols], caption="Known words per model"),
                                    Table(self.next, caption="Most uncertain words")])  # fmt: skip


def _human(
    words: pd.DataFrame, labels: pd.DataFrame, question: str
) -> tuple[dict[str, bool], dict[str, int]]:
    """item_id → people's verdict on ``question``; a label naming no definition of the files is an error."""
    from wordplay_audit.analysis.judge_audit import boolean_labels, human_consensus
    from wordplay_audit.corpora.balderdash.known import definitions
    from wordplay_audit.corpora.consensus import people_rows
    from wordplay_audit.corpora.contract import place

    source = str(labels.attrs.get("source") or "human")
    checked = boolean_labels(labels, source=source)
    long = definitions(words)
    unknown = ~checked["item_id"].isin(set(long.loc[long["is_item"], "item_id"]))
    if unknown.any():
        pos = int(unknown.to_numpy().nonzero()[0][0])
        raise InputError(f"{place(checked, pos, source)}item_id {checked['item_id'].iloc[pos]!r} names no definition of the known-word files")  # fmt: skip
    people, others = people_rows(checked)
    if people.empty:
        raise InputError(f"{source}: holds no human labels (rater_type 'human')")
    consensus = human_consensus(people, question=question)
    resolved = consensus[~consensus["tie"]]
    human = dict(zip(resolved["item_id"], resolved["human"].astype(bool), strict=True))
    return human, {"judge_rows_left_out": others, "tied_items_left_out": int(consensus["tie"].sum())}


def balderdash_known(
    files: Sequence[str | Path] | pd.DataFrame,
    human: pd.DataFrame,
    *,
    question: str = "reference",
    confidence: float = 0.95,
    draws: int = 1000,
    seed: int = 0,
    top: int = 10,
) -> BalderdashKnown:
    """Per model: the judge's known count (= the framework's ``llm_knows_word``) and the
    corrected count of truly known words with its interval
    (:mod:`wordplay_audit.analysis.balderdash.known`), and the ``top`` words whose status is
    most uncertain. ``files``: known-word CSVs (or their rows); ``human``: people's labels of
    the items :func:`balderdash_known_items` made (pull's labels.csv or final.csv)."""
    from wordplay_audit.analysis.balderdash.known import known_counts
    from wordplay_audit.corpora.balderdash.known import definitions

    check_choice("question", question, ("reference", "any_sense"))
    if isinstance(top, bool) or not isinstance(top, int) or top < 0:
        raise ParameterError(f"top: expected a whole number ≥ 0, got {top!r}")
    words = _words(files)
    truth, counts = _human(words, human, question)
    result = known_counts(words, truth, confidence=confidence, draws=draws, seed=seed)
    per_word = result.words.assign(judge_knows=result.words["judge_knows"].map(KNOWS_TEXT))
    uncertain = per_word.assign(spread=per_word["p_known"] * (1 - per_word["p_known"]))
    uncertain = uncertain[uncertain["spread"] > 0].sort_values(
        ["spread", "model", "word"], ascending=[False, True, True]
    )
    nxt = uncertain.head(top).drop(columns="spread").reset_index(drop=True)
    long = definitions(words)
    open_items = long[long["is_item"] & ~long["item_id"].isin(truth.keys())]
    ids = open_items.groupby(["model", "word"])["item_id"].agg(" ".join)
    nxt["unlabelled_items"] = [ids.get((m, w), "") for m, w in zip(nxt["model"], nxt["word"], strict=True)]
    return BalderdashKnown(
        words.attrs.get("source", ""), question, confidence, result.models, per_word, nxt, counts
    )
