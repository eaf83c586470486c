"""``wordplay-audit judge run|batch-write|batch-read|fit``: run judges over a contract items file.

Each command parses its options and calls :mod:`wordplay_audit.judges.jobs`. The API key of an
``openai:MODEL`` judge comes from ``OPENAI_API_KEY`` only (any value for a local server).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated

import typer

from wordplay_audit.cli.output import JSON_OPTION, emit
from wordplay_audit.errors import ParameterError, check_choice

app = typer.Typer(
    rich_markup_mode=None,
    help="Judge items with an LLM (any OpenAI-compatible server) or offline similarity/match judges.",
    no_args_is_help=True,
    add_completion=False,
)

ItemsArg = Annotated[
    Path, typer.Argument(help="Items CSV (item_id, game, kind, context, reference, candidate).")
]
JudgeOpt = Annotated[str, typer.Option("--judge", help="openai:MODEL, tfidf, embed, exact or normalized.")]
KindOpt = Annotated[str | None, typer.Option("--kind", help="Only items of this kind.")]
BaseUrlOpt = Annotated[str | None, typer.Option("--base-url", help="OpenAI-compatible base URL (…/v1).")]
CacheOpt = Annotated[
    Path | None,
    typer.Option("--cache", help="Cache folder (default $WORDPLAY_AUDIT_CACHE or ~/.cache/wordplay-audit)."),
]
TemperatureOpt = Annotated[float, typer.Option("--temperature", help="LLM sampling temperature.")]
SamplesOpt = Annotated[
    int, typer.Option("--samples", help="LLM samples per item; the label is their majority.")
]
SwapOpt = Annotated[
    bool, typer.Option("--swap", help="Also ask with the two texts swapped; count position flips.")
]
PromptOpt = Annotated[
    Path | None, typer.Option("--prompt", help="Prompt template file overriding the built-in ones.")
]
TopLogprobsOpt = Annotated[
    int,
    typer.Option(
        "--top-logprobs",
        help="Alternatives per token asked with log-probabilities (P(yes) is the score); 0 asks for none.",
    ),
]
SamplingOpt = Annotated[
    str,
    typer.Option(
        "--sampling",
        help="How --samples k are asked: n (one request, n=k: the prompt sent once) or calls (k requests).",
    ),
]

_FLAGS = {
    "objective": "--objective",
    "folds": "--folds",
    "top_logprobs": "--top-logprobs",
    "sampling": "--sampling",
}


@contextmanager
def _flags() -> Iterator[None]:
    """Name the command-line flag in a ParameterError the library raised about its parameter."""
    try:
        yield
    except ParameterError as exc:
        pattern = r"(?<![\w-])(" + "|".join(_FLAGS) + r")\b(=)?"
        text = re.sub(pattern, lambda m: _FLAGS[m.group(1)] + (" " if m.group(2) else ""), str(exc))
        if text == str(exc):
            raise
        raise ParameterError(text) from None


MAX_SAMPLES = 1000


def _at_least(option: str, value: float, low: float, *, strict: bool = False) -> None:
    """A finite number ≥ ``low`` (> ``low`` when ``strict``), or a one-line error naming ``option``."""
    if not (math.isfinite(value) and (value > low if strict else value >= low)):  # also nan
        raise ParameterError(
            f"{option}: expected a finite number {'>' if strict else '≥'} {low:g}; got {value!r}"
        )


def _llm_options(base_url, temperature, samples, swap, prompt, top_logprobs, sampling, timeout=60.0) -> dict:
    if not 1 <= samples <= MAX_SAMPLES:  # the queries are listed up front: 10¹² never started
        raise ParameterError(f"--samples: expected a whole number in [1, {MAX_SAMPLES}]; got {samples}")
    if base_url is not None and not base_url.strip().lower().startswith(("http://", "https://")):
        raise ParameterError(
            f"--base-url: expected an http(s) URL such as http://127.0.0.1:8000/v1; got {base_url!r}"
        )
    _at_least("--temperature", temperature, 0)
    _at_least("--timeout", timeout, 0, strict=True)
    from wordplay_audit.judges.llm import MAX_TOP_LOGPROBS, SAMPLING

    if not 0 <= top_logprobs <= MAX_TOP_LOGPROBS:
        raise ParameterError(
            f"--top-logprobs: expected a whole number in [0, {MAX_TOP_LOGPROBS}]; got {top_logprobs}"
        )
    check_choice("--sampling", sampling, SAMPLING)
    return {
        "base_url": base_url, "temperature": temperature, "samples": samples, "swap": swap,
        "prompt": prompt, "timeout": timeout, "top_logprobs": top_logprobs, "sampling": sampling,
    }  # fmt: skip


def _first_error(errors: dict[str, int]) -> str:
    """``" after <error>"`` of the first call given up (e.g. APIConnectionError), else ``""``."""
    names = [k.removeprefix("gave up after ") for k in errors if k.startswith("gave up after ")]
    return f" after {names[0]}" if names else ""


def _score_line(scores: dict[str, int], samples: int, temperature: float) -> str:
    """``  scores: 12 logprobs, 3 none`` (and a note where sample shares at temperature 0 say little)."""
    line = "  scores: " + (", ".join(f"{n} {source}" for source, n in scores.items()) or "none")
    if scores.get("share") and samples > 1 and temperature == 0:
        line += " (note: samples at --temperature 0 mostly agree, so their share says little)"
    return line


def _run_lines(payload: dict, *, samples: int = 1, temperature: float = 0.0) -> list[str]:
    lab = payload["labels"]
    target = payload["out"] or "not written (some items not judged)"
    return [
        f"{payload['judge']}: {payload['judged']} of {payload['items']} items judged → {target}",
        f"  true {lab['true']}, false {lab['false']}, unparsed {lab['unparsed']}; "
        f"position flips {payload['position_flips']}",
        _score_line(payload["scores"], samples, temperature),
        f"  queries {payload['queries']}: cached {payload['cached']}, called {payload['called']}, "
        f"retries {payload['retries']}, failed {payload['failed_queries']}",
        f"  tokens in {payload['tokens']['input']}, out {payload['tokens']['output']}"
        + (f", cost {payload['cost']:.4f}" if payload["cost"] is not None else ""),
    ]


@app.command("run")
def run_command(
    items: ItemsArg,
    judge: JudgeOpt,
    out: Annotated[
        Path,
        typer.Option("--out", help="Labels CSV to write (contract columns, votes, raw replies)."),
    ],
    kind: KindOpt = None,
    base_url: BaseUrlOpt = None,
    concurrency: Annotated[int, typer.Option("--concurrency", help="Calls in flight at most.")] = 8,
    cache: CacheOpt = None,
    fit: Annotated[
        Path | None, typer.Option("--fit", help="Threshold fit from `judge fit` (tfidf, embed).")
    ] = None,
    temperature: TemperatureOpt = 0.0,
    samples: SamplesOpt = 1,
    swap: SwapOpt = False,
    prompt: PromptOpt = None,
    top_logprobs: TopLogprobsOpt = 10,
    sampling: SamplingOpt = "n",
    max_edits: Annotated[int, typer.Option("--max-edits", help="normalized: edits allowed.")] = 1,
    timeout: Annotated[float, typer.Option("--timeout", help="Seconds per LLM call before a retry.")] = 60.0,
    attempts: Annotated[int, typer.Option("--attempts", help="Tries per call (429/5xx/timeouts).")] = 8,
    price_in: Annotated[float | None, typer.Option("--price-in", help="Price per 10⁶ input tokens.")] = None,
    price_out: Annotated[
        float | None, typer.Option("--price-out", help="Price per 10⁶ output tokens.")
    ] = None,
    progress: Annotated[
        bool, typer.Option("--progress/--no-progress", help="Progress bar on stderr.")
    ] = True,
    as_json: bool = JSON_OPTION,
) -> None:
    """Judge every item; write contract labels (true / false / unparsed) with scores and raw replies."""
    from wordplay_audit.judges.jobs import run_file
    from wordplay_audit.judges.runner import RetryPolicy

    if attempts < 1:
        raise ParameterError(f"--attempts: expected a whole number ≥ 1; got {attempts}")
    if (price_in is None) != (price_out is None):
        raise ParameterError("--price-in and --price-out: give both or neither")
    if max_edits < 0:
        raise ParameterError(f"--max-edits: expected a whole number ≥ 0; got {max_edits}")
    for option, value in (("--price-in", price_in), ("--price-out", price_out)):
        if value is not None:
            _at_least(option, value, 0)
    prices = (price_in, price_out) if price_in is not None else None
    runner = {
        "concurrency": concurrency,
        "policy": RetryPolicy(attempts=attempts),
        "prices": prices,
        "progress": progress,
    }
    options = _llm_options(base_url, temperature, samples, swap, prompt, top_logprobs, sampling, timeout)
    with _flags():
        result = run_file(
            items, judge, out, kind=kind, cache_dir=cache, fit=fit, runner=runner, max_edits=max_edits,
            **options,
        )  # fmt: skip
    payload = {**result.to_dict(), "out": None if result.failed_items else str(out)}
    emit(payload, as_json=as_json, lines=_run_lines(payload, samples=samples, temperature=temperature))
    if result.failed_items:  # exit 1 (docs/JUDGES.md): a rerun may succeed; --out not written
        typer.echo(
            f"error: {len(result.failed_items)} items not judged (retries exhausted"
            f"{_first_error(result.stats.errors)}); {out} not written; rerun to retry",
            err=True,
        )
        raise typer.Exit(1)


@app.command("batch-write")
def batch_write_command(
    items: ItemsArg,
    judge: JudgeOpt,
    out: Annotated[Path, typer.Option("--out", help="Batch API request file (JSON lines) to write.")],
    kind: KindOpt = None,
    cache: CacheOpt = None,
    temperature: TemperatureOpt = 0.0,
    samples: SamplesOpt = 1,
    swap: SwapOpt = False,
    prompt: PromptOpt = None,
    top_logprobs: TopLogprobsOpt = 10,
    as_json: bool = JSON_OPTION,
) -> None:
    """Write a batch request file (OpenAI Batch API, vLLM run-batch) for the queries not yet cached."""
    from wordplay_audit.judges.batch import OPENAI_MAX_REQUESTS
    from wordplay_audit.judges.jobs import batch_write_file

    options = _llm_options(None, temperature, samples, swap, prompt, top_logprobs, "calls")
    with _flags():
        payload = batch_write_file(items, judge, out, kind=kind, cache_dir=cache, **options)
    lines = [f"{payload['requests']} requests written to {out} ({payload['cached']} queries already cached)"]
    if payload["requests"] > OPENAI_MAX_REQUESTS:
        lines.append(
            f"  note: OpenAI's Batch API takes at most {OPENAI_MAX_REQUESTS:,} requests per file: "
            "split it (vLLM run-batch has no such limit)"
        )
    emit(payload, as_json=as_json, lines=lines)


@app.command("batch-read")
def batch_read_command(
    results: Annotated[Path, typer.Argument(help="Batch API result file (JSON lines).")],
    judge: JudgeOpt,
    cache: CacheOpt = None,
    temperature: TemperatureOpt = 0.0,
    samples: SamplesOpt = 1,
    swap: SwapOpt = False,
    prompt: PromptOpt = None,
    top_logprobs: TopLogprobsOpt = 10,
    as_json: bool = JSON_OPTION,
) -> None:
    """Read a batch result file (OpenAI Batch API or vLLM run-batch) into the cache; a later
    `judge run` with the same options then calls nothing for them."""
    from wordplay_audit.judges.jobs import batch_read_file

    options = _llm_options(None, temperature, samples, swap, prompt, top_logprobs, "calls")
    with _flags():
        payload = batch_read_file(results, judge, cache_dir=cache, **options)
    kinds = ", ".join(f"{n} {kind}" for kind, n in payload["error_kinds"].items())
    lines = [
        f"{payload['stored']} verdicts stored in {payload['cache']}, {payload['errors']} errors"
        + (f" ({kinds})" if kinds else ""),
        f"  scores (P(yes) from log-probabilities): {payload['scored']} of {payload['stored']}",
    ]
    emit(payload, as_json=as_json, lines=lines)


def _fit_figures(rates: dict) -> str:
    """``sensitivity …, specificity …, F1 … (precision …)`` of a fit (``n/a`` where undefined)."""

    def show(value: float) -> str:
        return "n/a" if value is None or value != value else f"{value:.3f}"

    return (
        f"sensitivity {show(rates['sensitivity'])}, specificity {show(rates['specificity'])}, "
        f"F1 {show(rates['f1'])} (precision {show(rates['precision'])}, J {show(rates['youden'])})"
    )


@app.command("fit")
def fit_command(
    items: ItemsArg,
    human: Annotated[Path, typer.Option("--human", help="Labels CSV with the human labels (true/false).")],
    judge: Annotated[str, typer.Option("--judge", help="tfidf or embed.")],
    out: Annotated[Path, typer.Option("--out", help="Fit JSON to write (threshold, judge id, CV figures).")],
    kind: KindOpt = None,
    folds: Annotated[int, typer.Option("--folds", help="Cross-validation folds.")] = 5,
    seed: Annotated[int, typer.Option("--seed", min=0, max=2**32 - 1, help="Seed of the fold split.")] = 0,
    objective: Annotated[
        str, typer.Option("--objective", help="youden (sensitivity + specificity − 1) or f1.")
    ] = "youden",
    labels: Annotated[
        Path | None,
        typer.Option("--labels", help="Also write the out-of-fold verdicts as a labels CSV."),
    ] = None,
    as_json: bool = JSON_OPTION,
) -> None:
    """Fit a similarity judge's threshold (and Platt calibration) on human labels, with
    cross-validated sensitivity, specificity and F1."""
    from wordplay_audit.judges.fit import OBJECTIVES
    from wordplay_audit.judges.jobs import fit_file

    check_choice("--judge", judge, ("tfidf", "embed"))
    check_choice("--objective", objective, OBJECTIVES)
    if folds < 2:
        raise ParameterError(f"--folds: expected a whole number ≥ 2; got {folds}")
    for option, path in (("--out", out), ("--labels", labels)):  # before --out is written
        if path is not None and path.is_dir():
            raise ParameterError(f"{path}: is a folder, expected a file name for {option}")
    if labels is not None and labels.resolve() == out.resolve():
        raise ParameterError(f"--labels {labels}: is also the --out file; name two files")
    with _flags():
        result = fit_file(
            items, human, judge, out, kind=kind, folds=folds, seed=seed, objective=objective, labels_out=labels
        )  # fmt: skip
    payload = {**result.to_dict(), "out": str(out)}
    ins, cv = payload["in_sample"], payload["cv"]
    lines = [
        f"{payload['judge_id']}: threshold {payload['threshold']:.4f} ({objective}) on {payload['n']} items",
        f"  in-sample {_fit_figures(ins)}",
        f"  {cv['folds']}-fold CV {_fit_figures(cv)}",
        f"  calibrated (Platt): CV Brier score {cv['brier']:.3f}",
    ]
    if cv["constant_folds"]:
        lines.append(
            f"  warning: in {cv['constant_folds']} of {cv['folds']} folds the fitted cut gave every "
            "training item one verdict (a constant); the CV figures include those folds"
        )
    left = [f"{payload['ties_left_out']} tied item(s)", f"{payload['items_unlabelled']} item(s) without a human label",
            f"{payload['labels_unmatched']} human label row(s) naming no item of {items}"]  # fmt: skip
    if any(not part.startswith("0 ") for part in left):
        lines.append("  left out: " + "; ".join(part for part in left if not part.startswith("0 ")))
    emit(payload, as_json=as_json, lines=lines)
