"""Judges from Python: run one over contract items (an LLM on any OpenAI-compatible server, the
TF-IDF or embedding similarity judges, exact and normalised match) and fit a similarity judge's
threshold on human labels with cross-validated figures (``judge run``, ``fit``); the batch files
of OpenAI's Batch API and vLLM's ``run-batch`` are :mod:`~wordplay_audit.workflow.judging_batch`.

In a notebook::

    import wordplay_audit as wa
    fit = wa.fit_judge(items, human, judge="tfidf")                   # Youden's J by default
    run = wa.run_judge(items, judge="tfidf", fit=fit)
    run.labels[["item_id", "label", "score"]]
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import pandas as pd

from wordplay_audit.errors import InputError, ParameterError, check_choice
from wordplay_audit.workflow.results import Result, plain
from wordplay_audit.workflow.text import number

__all__ = ["JudgeFit", "JudgeRun", "fit_judge", "load_fit", "run_judge"]

MAX_SAMPLES = 1000


def default_cache() -> Path:
    """``$WORDPLAY_AUDIT_CACHE``, else ``~/.cache/wordplay-audit``."""
    env = os.environ.get("WORDPLAY_AUDIT_CACHE")
    return Path(env) if env else Path.home() / ".cache" / "wordplay-audit"


def judge_items(items: pd.DataFrame, kind: str | None) -> pd.DataFrame:
    """The items to judge: contract items with ``reference`` and ``candidate``, of ``kind``."""
    from wordplay_audit.corpora.contract import require_columns, validate_items

    source = str(items.attrs.get("source") or "items")
    require_columns(items, ("item_id", "game", "kind", "reference", "candidate"), "items", source)
    items = validate_items(items, source=source)
    if items.empty:
        raise InputError(f"{source}: holds no items (a header only); expected one row per item to judge")
    if kind is not None:
        items = items[items["kind"] == kind]
        if items.empty:
            raise ParameterError(f"kind: no items of kind {kind!r} in {source}")
    return items


def _finite_at_least(name: str, value: float, low: float, *, strict: bool = False) -> None:
    import math

    if not (math.isfinite(value) and (value > low if strict else value >= low)):
        raise ParameterError(
            f"{name}: expected a finite number {'>' if strict else '≥'} {low:g}; got {value!r}"
        )


def llm_options(
    judge: str, *, base_url, temperature, samples, swap, prompt, timeout, top_logprobs, sampling
) -> dict:
    """The LLM judge's options checked by name (empty for the other judges)."""
    from wordplay_audit.judges.llm import MAX_TOP_LOGPROBS, SAMPLING

    if not 1 <= samples <= MAX_SAMPLES:  # the queries are listed up front: 10¹² never started
        raise ParameterError(f"samples: expected a whole number in [1, {MAX_SAMPLES}]; got {samples}")
    if base_url is not None and not str(base_url).strip().lower().startswith(("http://", "https://")):
        raise ParameterError(
            f"base_url: expected an http(s) URL such as http://127.0.0.1:8000/v1; got {base_url!r}"
        )
    _finite_at_least("temperature", temperature, 0)
    _finite_at_least("timeout", timeout, 0, strict=True)
    if not 0 <= top_logprobs <= MAX_TOP_LOGPROBS:
        raise ParameterError(
            f"top_logprobs: expected a whole number in [0, {MAX_TOP_LOGPROBS}]; got {top_logprobs}"
        )
    check_choice("sampling", sampling, SAMPLING)
    if not judge.startswith("openai:"):
        return {}
    return {"base_url": base_url, "temperature": temperature, "samples": samples, "swap": swap, "prompt": prompt,
            "timeout": timeout, "top_logprobs": top_logprobs, "sampling": sampling}  # fmt: skip


@dataclass
class JudgeRun(Result):
    """The judge's labels (contract columns, ``score``, votes, raw replies), what the run cost,
    and the items not judged (retries exhausted: rerun to ask only those)."""

    title = "Judge run"
    main_table = "labels"

    result: Any  # judges.runner.RunResult
    samples: int = 1
    temperature: float = 0.0

    @property
    def labels(self) -> pd.DataFrame:
        return self.result.labels

    @property
    def failed_items(self) -> list[str]:
        return list(self.result.failed_items)

    def tables(self) -> dict[str, pd.DataFrame]:
        return {"labels": self.labels}

    def to_dict(self) -> dict[str, Any]:
        return plain(self.result.to_dict())

    def summary(self) -> list[str]:
        p = self.to_dict()
        lab = p["labels"]
        repeated = p["queries"] - p["cached"] - p["called"]
        scores = "; scores: " + (", ".join(f"{n} {k}" for k, n in p["scores"].items()) or "none")
        lines = [
            f"{p['judge']}: {p['judged']} of {p['items']} items judged: true {lab['true']}, false {lab['false']}, "
            f"unparsed {lab['unparsed']}; position flips {p['position_flips']}{scores}",
            f"  queries {p['queries']}: {p['cached']} answered from the cache, {p['called']} sent"
            + (f", {repeated} the same as another item's (asked once)" if repeated > 0 else "")
            + f"; retries {p['retries']}, failed {p['failed_queries']}",
            f"  tokens in {p['tokens']['input']}, out {p['tokens']['output']}"
            + (f", cost {p['cost']:.4f}" if p["cost"] is not None else ""),
        ]
        if p["scores"].get("share") and self.samples > 1 and self.temperature == 0:
            lines.append("  note: samples at temperature 0 mostly agree, so their share of yes says little")
        return lines

    def write(self, out: str | Path, *, title: str | None = None) -> list[str]:
        """The labels CSV ``out`` — only when every item was judged (a file missing items would
        pass for a whole one)."""
        from wordplay_audit.corpora.io import output_file

        del title
        if self.failed_items:
            raise InputError(
                f"{out}: not written, {len(self.failed_items)} items not judged (rerun to retry)"
            )
        with output_file(out, option="out") as tmp:
            self.labels.to_csv(tmp, index=False)
        return [str(out)]


def load_fit(fit: str | Path, *, judge: str):
    """A threshold fit written by :meth:`JudgeFit.write` (``judge fit --out``) for ``judge``."""
    from wordplay_audit.judges.fit import load_fit as load

    return load(fit, judge=judge)


def _fitted(judge: str, fit) -> Any:
    """The ThresholdFit of a similarity judge (required for those); None for the others."""
    from wordplay_audit.judges.make import SIMILARITY

    if judge not in SIMILARITY:
        return None
    if fit is None:
        raise ParameterError(
            f"fit: the {judge} judge needs a threshold fitted on human labels (`wa.fit_judge`)"
        )
    if isinstance(fit, JudgeFit):
        return fit.fit
    return load_fit(fit, judge=judge) if isinstance(fit, str | Path) else fit


def run_judge(
    items: pd.DataFrame,
    *,
    judge: str,
    kind: str | None = None,
    fit=None,
    cache: str | Path | None = None,
    base_url: str | None = None,
    concurrency: int = 8,
    temperature: float = 0.0,
    samples: int = 1,
    swap: bool = False,
    prompt: str | Path | None = None,
    top_logprobs: int = 10,
    sampling: Literal["n", "calls"] = "n",
    max_edits: int = 1,
    timeout: float = 60.0,
    attempts: int = 8,
    price_in: float | None = None,
    price_out: float | None = None,
    progress: bool | None = None,
    out: str | Path | None = None,
) -> JudgeRun:
    """Judge every item: ``judge`` is ``openai:MODEL`` (any OpenAI-compatible server at
    ``base_url``; the key from ``OPENAI_API_KEY``), ``tfidf``/``embed`` (with a ``fit``:
    :func:`fit_judge`'s result or its file), ``exact`` or ``normalized``. LLM verdicts are
    cached in ``cache`` (default ``$WORDPLAY_AUDIT_CACHE``, else ``~/.cache/wordplay-audit``; offline judges only when given), so a
    rerun asks only what is missing; a failed item is listed, not dropped. With ``out`` the
    labels CSV is written when every item was judged (:meth:`JudgeRun.write`)."""
    from wordplay_audit.judges.base import queries_from_items
    from wordplay_audit.judges.cache import FILE_NAME, VerdictCache
    from wordplay_audit.judges.make import check_judge_name, make_judge
    from wordplay_audit.judges.runner import RetryPolicy
    from wordplay_audit.judges.runner import run_judge as run

    check_judge_name(judge)
    llm = llm_options(judge, base_url=base_url, temperature=temperature, samples=samples, swap=swap, prompt=prompt,
                       timeout=timeout, top_logprobs=top_logprobs, sampling=sampling)  # fmt: skip
    if attempts < 1:
        raise ParameterError(f"attempts: expected a whole number ≥ 1; got {attempts}")
    if (price_in is None) != (price_out is None):
        raise ParameterError("price_in, price_out: give both or neither")
    if max_edits < 0:
        raise ParameterError(f"max_edits: expected a whole number ≥ 0; got {max_edits}")
    for name, value in (("price_in", price_in), ("price_out", price_out)):
        if value is not None:
            _finite_at_least(name, value, 0)
    fitted = _fitted(judge, fit)
    chosen = judge_items(items, kind)
    queries = queries_from_items(chosen, source=str(items.attrs.get("source") or "items"))
    corpus = [*chosen["reference"], *chosen["candidate"]] if judge == "tfidf" else None
    made = make_judge(judge, threshold=None if fitted is None else fitted.threshold, corpus=corpus, max_edits=max_edits,
                      calibration=None if fitted is None else fitted.calibration, **llm)  # fmt: skip
    folder = cache if cache is not None else (default_cache() if judge.startswith("openai:") else None)
    if out is not None and folder is not None and Path(out).resolve().parent == Path(folder).resolve():
        if Path(out).name.startswith(FILE_NAME):
            raise ParameterError(f"out: {out} is the judge cache's own file; name another file")
    options = {"concurrency": concurrency, "policy": RetryPolicy(attempts=attempts), "progress": progress,
               "prices": (price_in, price_out) if price_in is not None else None}  # fmt: skip
    with VerdictCache(folder) if folder is not None else contextlib.nullcontext() as store:
        result = run(made, queries, cache=store, **options)
    found = JudgeRun(result, samples=samples, temperature=temperature)
    if out is not None and not found.failed_items:
        found.write(out)
    return found


@dataclass
class JudgeFit(Result):
    """A similarity judge's threshold (Youden's J by default), its Platt calibration, and its
    in-sample and cross-validated sensitivity, specificity and F1."""

    title = "Judge fit"
    main_table = "oof_labels"

    fit: Any  # judges.fit.ThresholdFit
    source: str = "items"

    def tables(self) -> dict[str, pd.DataFrame]:
        return {"oof_labels": self.fit.oof_labels()}

    def to_dict(self) -> dict[str, Any]:
        return plain(self.fit.to_dict())

    def summary(self) -> list[str]:
        p = self.to_dict()

        def figures(r: dict) -> str:
            return (f"sensitivity {number(r['sensitivity'])}, specificity {number(r['specificity'])}, "
                    f"F1 {number(r['f1'])} (precision {number(r['precision'])}, J {number(r['youden'])})")  # fmt: skip

        ins, cv = p["in_sample"], p["cv"]
        lines = [
            f"{p['judge_id']}: threshold {p['threshold']:.4f} ({p['objective']}) on {p['n']} items",
            f"  in-sample {figures(ins)}",
            f"  {cv['folds']}-fold cross-validated {figures(cv)}",
            f"  calibrated (Platt): cross-validated Brier score {number(cv['brier'])}",
        ]
        if cv["constant_folds"]:
            lines.append(f"  warning: in {cv['constant_folds']} of {cv['folds']} folds the fitted cut gave every "
                         "training item one verdict (a constant); the cross-validated figures include those folds")  # fmt: skip
        left = [(p["ties_left_out"], "tied item(s)"), (p["items_unlabelled"], "item(s) without a human label"),
                (p["labels_unmatched"], f"human label row(s) naming no item of {self.source} (of this kind)")]  # fmt: skip
        if any(n for n, _ in left):
            lines.append("  left out: " + ", ".join(f"{n} {what}" for n, what in left if n))
        return lines

    def write(
        self, out: str | Path, *, labels: str | Path | None = None, title: str | None = None
    ) -> list[str]:
        """The fit as JSON ``out`` and, with ``labels``, the out-of-fold verdicts as a labels CSV
        (both written, or neither)."""
        from wordplay_audit.corpora.io import output_file

        del title
        for name, path in (("out", out), ("labels", labels)):
            if path is not None and Path(path).is_dir():
                raise ParameterError(f"{name}: {path} is a folder, expected a file name")
        if labels is not None and Path(labels).resolve() == Path(out).resolve():
            raise ParameterError(f"labels: {labels} is also the fit's file; name two files")
        with contextlib.ExitStack() as outputs:
            self.fit.save(outputs.enter_context(output_file(out, option="out")))
            if labels is not None:
                self.fit.oof_labels().to_csv(
                    outputs.enter_context(output_file(labels, option="labels")), index=False
                )
        return [str(p) for p in (out, labels) if p is not None]


def fit_judge(
    items: pd.DataFrame,
    human: pd.DataFrame,
    *,
    judge: Literal["tfidf", "embed"],
    kind: str | None = None,
    question: str | None = None,
    folds: int = 5,
    seed: int = 0,
    objective: Literal["youden", "f1"] = "youden",
) -> JudgeFit:
    """Fit a similarity judge's threshold on ``human`` labels of ``items`` (several raters vote
    by majority; ties left out, counted) with ``folds``-fold cross-validation; a cut that calls
    every item the same is refused. ``question``: the one question of ``human`` the judge answers
    (labels that answer several, e.g. Balderdash's ``reference`` and ``any_sense``)."""
    from wordplay_audit.judges.fit import OBJECTIVES
    from wordplay_audit.judges.fit import fit_judge as fit

    check_choice("judge", judge, ("tfidf", "embed"))
    check_choice("objective", objective, OBJECTIVES)
    if folds < 2:
        raise ParameterError(f"folds: expected a whole number ≥ 2; got {folds}")
    chosen = judge_items(items, None)
    source = str(human.attrs.get("source") or "human")
    if question is not None:
        from wordplay_audit.workflow.agreement import select_labels

        human, _ = select_labels(human, question=question, rater_type="all")
    found = fit(
        judge, chosen, human, kind=kind, labels_source=source, folds=folds, seed=seed, objective=objective
    )
    return JudgeFit(found, str(items.attrs.get("source") or "items"))
