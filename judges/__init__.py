"""Every network call to a model: judges behind one protocol, the runner (retries, cache,
concurrency) and the local OpenAI-compatible test server. Names load on first use (``openai``
is imported only when an LLM judge is made)."""

from wordplay_audit import lazy_exports

_EXPORTS = {
    "Judge": "base",
    "Query": "base",
    "Verdict": "base",
    "TransientJudgeError": "base",
    "cache_key": "base",
    "queries_from_items": "base",
    "batch_requests": "batch",
    "write_requests": "batch",
    "read_results": "batch",
    "VerdictCache": "cache",
    "ThresholdFit": "fit",
    "fit_judge": "fit",
    "fit_threshold": "fit",
    "best_threshold": "fit",
    "load_fit": "fit",
    "fit_platt": "fit",
    "platt_probability": "fit",
    "OpenAIJudge": "llm",
    "make_judge": "make",
    "ExactJudge": "match",
    "NormalizedJudge": "match",
    "normalize_text": "match",
    "TfidfJudge": "offline",
    "EmbedJudge": "offline",
    "embed_available": "offline",
    "Template": "prompts",
    "template_for": "prompts",
    "load_template": "prompts",
    "parse_verdict": "prompts",
    "yes_probability": "prompts",
    "RetryPolicy": "runner",
    "RunResult": "runner",
    "RunStats": "runner",
    "FatalJudgeError": "runner",
    "run_judge": "runner",
    "LocalServer": "server",
}
_SUBMODULES = ()
__all__ = sorted([*_EXPORTS, *_SUBMODULES])
__getattr__ = lazy_exports(__name__, _EXPORTS, _SUBMODULES)
