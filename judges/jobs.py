"""File-level jobs behind ``wordplay-audit judge …``: read items, judge, write labels atomically.

Each job reads the contract's files through :mod:`wordplay_audit.corpora.contract`, calls the
judges library, and writes through :mod:`wordplay_audit.corpora.io` (a temporary file renamed
on success, so a failed or interrupted run leaves ``--out`` as it was).
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import Any

from wordplay_audit.corpora.contract import read_labels, read_table, require_columns, validate_items
from wordplay_audit.corpora.io import output_file
from wordplay_audit.errors import InputError, ParameterError
from wordplay_audit.judges.base import queries_from_items
from wordplay_audit.judges.cache import FILE_NAME, VerdictCache
from wordplay_audit.judges.make import check_judge_name, make_judge, threshold_from
from wordplay_audit.judges.runner import RunResult, run_judge


def default_cache_dir() -> Path:
    """``$WORDPLAY_AUDIT_CACHE``, else ``~/.cache/wordplay-audit``."""
    env = os.environ.get("WORDPLAY_AUDIT_CACHE")
    return Path(env) if env else Path.home() / ".cache" / "wordplay-audit"


def _items(path: Path, kind: str | None):
    table = read_table(path)  # a judge compares reference and candidate: both must be columns
    require_columns(table, ("item_id", "game", "kind", "reference", "candidate"), "items", str(path))
    items = validate_items(table, source=str(path))
    if items.empty:
        raise InputError(f"{path}: holds no items (a header only); expected one row per item to judge")
    if kind is not None:
        items = items[items["kind"] == kind]
        if items.empty:
            raise ParameterError(f"--kind {kind}: no items of that kind in {path}")
    return items


def run_file(
    items_path: Path,
    spec: str,
    out: Path,
    *,
    kind: str | None = None,
    cache_dir: Path | None = None,
    fit: Path | None = None,
    runner: dict[str, Any] | None = None,
    **judge_options: Any,
) -> RunResult:
    """Judge every item of ``items_path`` and write the labels CSV ``out`` — only when every
    item was judged: with ``result.failed_items`` ``out`` is left as it was (the answers
    received are in the cache, so a rerun asks only the rest).

    ``runner`` holds :func:`run_judge` options (concurrency, policy, prices, progress);
    ``judge_options`` go to :func:`make_judge` (max_edits, and the LLM judge's options). LLM
    judges always use the cache (``cache_dir`` or :func:`default_cache_dir`); offline judges
    only when ``cache_dir`` is given.
    """
    check_judge_name(spec)
    threshold = threshold_from(spec, fit)
    items = _items(items_path, kind)
    queries = queries_from_items(items, source=str(items_path))
    corpus = [*items["reference"], *items["candidate"]] if spec == "tfidf" else None
    if not spec.startswith("openai:"):
        judge_options = {k: v for k, v in judge_options.items() if k == "max_edits"}
    judge = make_judge(spec, threshold=threshold, corpus=corpus, **judge_options)
    folder = (
        cache_dir if cache_dir is not None else (default_cache_dir() if spec.startswith("openai:") else None)
    )
    if (
        folder is not None
        and out.resolve().parent == Path(folder).resolve()
        and out.name.startswith(FILE_NAME)
    ):
        raise ParameterError(f"--out {out}: is the judge cache's own file; name another file")
    if folder is None:
        result = run_judge(judge, queries, **(runner or {}))
    else:
        with VerdictCache(folder) as cache:
            result = run_judge(judge, queries, cache=cache, **(runner or {}))
    if not result.failed_items:  # a labels file missing items would pass for a whole one
        with output_file(out) as tmp:
            result.labels.to_csv(tmp, index=False)
    return result


def batch_write_file(
    items_path: Path,
    spec: str,
    out: Path,
    *,
    kind: str | None = None,
    cache_dir: Path | None = None,
    **llm_options: Any,
) -> dict[str, Any]:
    """Write the Batch API request file for the queries not yet in the cache."""
    from wordplay_audit.judges.batch import batch_requests, write_requests

    if not check_judge_name(spec).startswith("openai:"):
        raise ParameterError(f"--judge: batch mode needs openai:MODEL; got {spec!r}")
    judge = make_judge(spec, **llm_options)
    queries = queries_from_items(_items(items_path, kind), source=str(items_path))
    with VerdictCache(cache_dir or default_cache_dir()) as cache:
        lines, cached = batch_requests(judge, queries, cache=cache)
    with output_file(out) as tmp:
        write_requests(lines, tmp)
    return {
        "judge": judge.judge_id,
        "items": len(queries),
        "requests": len(lines),
        "cached": cached,
        "out": str(out),
    }


def batch_read_file(
    results: Path, spec: str, *, cache_dir: Path | None = None, **llm_options: Any
) -> dict[str, Any]:
    """Store a Batch API result file in the cache; a later ``judge run`` then calls nothing."""
    from wordplay_audit.judges.batch import read_results

    if not check_judge_name(spec).startswith("openai:"):
        raise ParameterError(f"--judge: batch mode needs openai:MODEL; got {spec!r}")
    judge = make_judge(spec, **llm_options)
    folder = cache_dir or default_cache_dir()
    with VerdictCache(folder) as cache:
        result = read_results(results, cache, judge_id=judge.judge_id)
    return {"judge": judge.judge_id, **result.to_dict(), "cache": str(folder)}


def fit_file(
    items_path: Path,
    human_path: Path,
    spec: str,
    out: Path,
    *,
    kind: str | None = None,
    labels_out: Path | None = None,
    **fit_options: Any,
) -> Any:
    """Fit a similarity judge's threshold (:func:`wordplay_audit.judges.fit.fit_judge`, which
    takes ``fit_options``: folds, seed, objective); write the fit as JSON and, with
    ``labels_out``, the out-of-fold verdicts as contract labels."""
    from wordplay_audit.judges.fit import fit_judge

    items = _items(items_path, kind)
    labels = read_labels(human_path, accept_final=True)  # per rater or final (pull's final.csv)
    fit = fit_judge(spec, items, labels, labels_source=str(human_path), **fit_options)
    with contextlib.ExitStack() as outputs:  # both written, or neither
        fit.save(outputs.enter_context(output_file(out)))
        if labels_out is not None:
            fit.oof_labels().to_csv(
                outputs.enter_context(output_file(labels_out, option="--labels")), index=False
            )
    return fit
