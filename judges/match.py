"""String-match judges for guesses: exact, and normalised with a small edit distance.

*Exact*: ``true`` when candidate and reference are equal after trimming surrounding space.

*Normalised*: both texts are case-folded, accents stripped (NFKD), punctuation removed, the
articles *a*, *an*, *the* dropped as words and runs of space collapsed; then ``true`` when the
Levenshtein distance is at most ``max_edits`` — allowed only when the shorter normalised text
has at least ``min_length`` characters (so ``CAT``/``BAT`` differ while ``ELEPHANT``/``ELEPHNT``,
one deletion apart, match at ``max_edits=1``; a transposition counts two edits). The score is
``1 − distance / max(len)``. Reference: Levenshtein (1966), Soviet Physics Doklady 10:707.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

from wordplay_audit.judges.base import FALSE, TRUE, Query, Verdict, cache_key

_ARTICLES = re.compile(r"\b(?:a|an|the)\b")


def normalize_text(text: str) -> str:
    """Case-fold, strip accents and punctuation, drop articles, collapse space.

    >>> normalize_text("  The Wheel-of-Fortune!  ")
    'wheel of fortune'
    """
    decomposed = unicodedata.normalize("NFKD", str(text).casefold())
    kept = []
    for ch in decomposed:
        cat = unicodedata.category(ch)
        if cat == "Mn":
            continue
        kept.append(" " if cat.startswith(("P", "S")) else ch)
    words = _ARTICLES.sub(" ", "".join(kept)).split()
    return " ".join(words)


def levenshtein(a: str, b: str) -> int:
    """Edit distance (insertions, deletions, substitutions), two-row dynamic programme.

    >>> levenshtein("kitten", "sitting")
    3
    """
    if len(a) < len(b):
        a, b = b, a
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, start=1):
        current = [i]
        for j, cb in enumerate(b, start=1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        previous = current
    return previous[-1]


class ExactJudge:
    """``true`` iff candidate equals reference after trimming."""

    batch_size = 100_000
    judge_id = "exact@v1"
    score_kind = "match"  # 1 equal, 0 not

    def queries(self, item: Query) -> list[Query]:
        return [item]

    def key(self, query: Query) -> str:
        return cache_key(model="exact", prompt_version="v1", inputs=query.inputs(), params={})

    async def judge(self, batch: Sequence[Query]) -> list[Verdict]:
        out = []
        for q in batch:
            same = q.candidate.strip() == q.reference.strip()
            out.append(Verdict(TRUE if same else FALSE, score=float(same)))
        return out


class NormalizedJudge:
    """Normalised match with at most ``max_edits`` edits for texts of ``min_length`` or more."""

    batch_size = 100_000
    score_kind = "similarity"  # 1 − distance / longer length

    def __init__(self, *, max_edits: int = 1, min_length: int = 5) -> None:
        self.max_edits, self.min_length = int(max_edits), int(min_length)
        self.judge_id = f"normalized@v1,edits={self.max_edits},min_length={self.min_length}"

    def queries(self, item: Query) -> list[Query]:
        return [item]

    def key(self, query: Query) -> str:
        params = {"max_edits": self.max_edits, "min_length": self.min_length}
        return cache_key(model="normalized", prompt_version="v1", inputs=query.inputs(), params=params)

    def verdict(self, reference: str, candidate: str) -> Verdict:
        a, b = normalize_text(reference), normalize_text(candidate)
        distance = levenshtein(a, b)
        allowed = self.max_edits if min(len(a), len(b)) >= self.min_length else 0
        score = 1.0 - distance / max(len(a), len(b), 1)
        return Verdict(TRUE if distance <= allowed else FALSE, score=score)

    async def judge(self, batch: Sequence[Query]) -> list[Verdict]:
        return [self.verdict(q.reference, q.candidate) for q in batch]
