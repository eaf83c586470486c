"""Build a judge from its command-line name: ``openai:MODEL``, ``tfidf``, ``embed``, ``exact``,
``normalized``."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from wordplay_audit.errors import ParameterError

NAMES = ("openai:MODEL", "tfidf", "embed", "exact", "normalized")
SIMILARITY = ("tfidf", "embed")


def check_judge_name(spec: str) -> str:
    """``spec`` if it names a judge; else ParameterError listing the names."""
    if spec in ("tfidf", "embed", "exact", "normalized"):
        return spec
    if spec.startswith("openai:") and spec.split(":", 1)[1].strip():
        return spec
    raise ParameterError(f"judge: expected one of {', '.join(NAMES)}; got {spec!r}")


def make_judge(  # noqa: PLR0913 - one keyword-only parameter per judge option
    spec: str,
    *,
    threshold: float | None = None,
    corpus: Iterable[str] | None = None,
    calibration: dict[str, Any] | None = None,
    max_edits: int = 1,
    base_url: str | None = None,
    temperature: float = 0.0,
    samples: int = 1,
    swap: bool = False,
    prompt: str | Path | None = None,
    timeout: float = 60.0,
    top_logprobs: int = 10,
    sampling: str = "n",
) -> Any:
    """The judge named ``spec``: ``base_url`` … ``sampling`` are the LLM judge's
    (:class:`OpenAIJudge`), ``threshold``/``corpus``/``calibration`` the similarity judges',
    ``max_edits`` the normalised match's. The TF-IDF judge needs its ``corpus`` (the texts its
    idf is fitted on: every reference and candidate of the items judged together); without one
    each batch would be fitted on itself and the verdicts would depend on the batching."""
    check_judge_name(spec)
    if spec.startswith("openai:"):
        from wordplay_audit.judges.llm import OpenAIJudge

        return OpenAIJudge(spec.split(":", 1)[1], base_url=base_url, temperature=temperature, samples=samples,
                           swap=swap, prompt=prompt, timeout=timeout, top_logprobs=top_logprobs, sampling=sampling)  # fmt: skip
    if spec == "tfidf":
        from wordplay_audit.judges.offline import TfidfJudge

        if corpus is None:
            raise ParameterError(
                "corpus: the TF-IDF judge needs the texts its idf is fitted on (every reference and "
                "candidate of the items judged together); without it each batch is fitted on itself"
            )
        return TfidfJudge(threshold, corpus=corpus, calibration=calibration)
    if spec == "embed":
        from wordplay_audit.judges.offline import EmbedJudge

        return EmbedJudge(threshold, calibration=calibration)
    from wordplay_audit.judges.match import ExactJudge, NormalizedJudge

    return ExactJudge() if spec == "exact" else NormalizedJudge(max_edits=max_edits)
