"""``wordplay-audit judge run|batch-write|batch-read|fit``: run judges over a contract items file.

Each command parses its options and makes one call of the public API (``run_judge``,
``batch_write``, ``batch_read``, ``fit_judge``). The API key of an ``openai:MODEL`` judge comes
from ``OPENAI_API_KEY`` only (any value for a local server).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from wordplay_audit.cli.output import JSON_OPTION, ProgressOpt, show

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


@app.command("run")
def run_command(
    items: ItemsArg,
    judge: JudgeOpt,
    out: Annotated[
        Path,
        typer.Option("--out", help="Labels CSV to write (contract columns, scores, votes, raw replies)."),
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
    progress: ProgressOpt = None,
    as_json: bool = JSON_OPTION,
) -> None:
    """Judge every item; write contract labels (true / false / unparsed) with scores and raw replies."""
    import wordplay_audit as wa

    result = wa.run_judge(
        wa.read_table(items), judge=judge, kind=kind, fit=fit, cache=cache, base_url=base_url, concurrency=concurrency,
        temperature=temperature, samples=samples, swap=swap, prompt=prompt, top_logprobs=top_logprobs,
        sampling=sampling, max_edits=max_edits, timeout=timeout, attempts=attempts, price_in=price_in,
        price_out=price_out, progress=progress, out=out,
    )  # fmt: skip
    show(result, as_json=as_json, out=None if result.failed_items else str(out))
    if result.failed_items:  # exit 1 (docs/JUDGES.md): a rerun may succeed; --out not written
        errors = [
            k.removeprefix("gave up after ")
            for k in result.result.stats.errors
            if k.startswith("gave up after ")
        ]
        after = f" after {errors[0]}" if errors else ""
        typer.echo(f"error: {len(result.failed_items)} items not judged (retries exhausted{after}); {out} not "
                   "written; rerun to retry", err=True)  # fmt: skip
        raise typer.Exit(1)


@app.command("batch-write")
def batch_write_command(
    items: ItemsArg,
    judge: JudgeOpt,
    out: Annotated[Path, typer.Option("--out", help="Batch request file (JSON lines) to write.")],
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
    import wordplay_audit as wa

    result = wa.batch_write(wa.read_table(items), judge=judge, out=out, kind=kind, cache=cache, temperature=temperature,
                            samples=samples, swap=swap, prompt=prompt, top_logprobs=top_logprobs)  # fmt: skip
    show(result, as_json=as_json)


@app.command("batch-read")
def batch_read_command(
    results: Annotated[Path, typer.Argument(help="Batch result file (JSON lines, OpenAI or vLLM).")],
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
    import wordplay_audit as wa

    result = wa.batch_read(results, judge=judge, cache=cache, temperature=temperature, samples=samples, swap=swap,
                           prompt=prompt, top_logprobs=top_logprobs)  # fmt: skip
    show(result, as_json=as_json)


@app.command("fit")
def fit_command(
    items: ItemsArg,
    human: Annotated[Path, typer.Option("--human", help="Labels CSV with the human labels (true/false).")],
    judge: Annotated[str, typer.Option("--judge", help="tfidf or embed.")],
    out: Annotated[Path, typer.Option("--out", help="Fit JSON to write (threshold, judge id, CV figures).")],
    kind: KindOpt = None,
    question: Annotated[
        str | None, typer.Option("--question", help="The question of --human the judge answers.")
    ] = None,
    folds: Annotated[int, typer.Option("--folds", help="Cross-validation folds.")] = 5,
    seed: Annotated[int, typer.Option("--seed", min=0, max=2**32 - 1, help="Seed of the fold split.")] = 0,
    objective: Annotated[
        str, typer.Option("--objective", help="youden (sensitivity + specificity − 1) or f1.")
    ] = "youden",
    labels: Annotated[
        Path | None, typer.Option("--labels", help="Also write the out-of-fold verdicts as a labels CSV.")
    ] = None,
    as_json: bool = JSON_OPTION,
) -> None:
    """Fit a similarity judge's threshold (and Platt calibration) on human labels, with
    cross-validated sensitivity, specificity and F1."""
    import wordplay_audit as wa

    result = wa.fit_judge(wa.read_table(items), wa.read_labels(human, accept_final=True), judge=judge, kind=kind, question=question,
                          folds=folds, seed=seed, objective=objective)  # fmt: skip
    result.write(out, labels=labels)
    show(result, as_json=as_json, out=str(out), labels=str(labels) if labels else None)
