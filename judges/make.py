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
    raise ParameterError(f"--judge: expected one of {', '.join(NAMES)}; got {spec!r}")


def make_judge(
    spec: str,
    *,
    threshold: float | None = None,
    corpus: Iterable[str] | None = None,
    calibration: dict[str, Any] | None = None,
    max_edits: int = 1,
    **llm_options: Any,
) -> Any:
    """The judge named ``spec``; ``llm_options`` go to :class:`OpenAIJudge` (base_url, temperature,
    samples, swap, prompt, timeout, top_logprobs, sampling), ``threshold``/``corpus``/``calibration``
    to the similarity judges."""
    check_judge_name(spec)
    if spec.startswith("openai:"):
        from wordplay_audit.judges.llm import OpenAIJudge

        return OpenAIJudge(spec.split(":", 1)[1], **llm_options)
    if spec == "tfidf":
        from wordplay_audit.judges.offline import TfidfJudge

        return TfidfJudge(threshold, corpus=corpus, calibration=calibration)
    if spec == "embed":
        from wordplay_audit.judges.offline import EmbedJudge

        return EmbedJudge(threshold, calibration=calibration)
    from wordplay_audit.judges.match import ExactJudge, NormalizedJudge

    return ExactJudge() if spec == "exact" else NormalizedJudge(max_edits=max_edits)


def fit_from(spec: str, fit: str | Path | None) -> Any:
    """The :class:`~wordplay_audit.judges.fit.ThresholdFit` of a similarity judge from ``--fit
    FILE`` (required for those); None for other judges."""
    if spec not in SIMILARITY:
        return None
    if fit is None:
        raise ParameterError(
            f"--judge {spec}: needs --fit FILE (a threshold fitted on human labels by `judge fit`)"
        )
    from wordplay_audit.judges.fit import load_fit

    return load_fit(fit, judge=spec)
