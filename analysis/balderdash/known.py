"""Known-word counts corrected by people's labels: how many words a model truly knows.

*Target.* Per model, the realised number of its deck's words whose five definitions are truly
right by the framework's own rule (:func:`~wordplay_audit.corpora.balderdash.known.mode_rule`)
applied to the truth: each definition's people's verdict in place of the judge's (a ``-2``,
no judgement, gets its truth too), ``-1`` (no definition) kept, an empty definition false. A
word is known when its true definitions outnumber both its wrong ones and its missing ones
(ties go to the smaller value, as pandas' mode breaks them: -1 < False < True).

*Why not the per-item engine.* The count is not a share of definitions: whether a word is
known depends on how its five definitions' truths fall together, and those are not
independent — a model that knows a word tends to define it right every time. An item-level
correction (:func:`~wordplay_audit.analysis.correction.engine.corrected_shares`, given here as
``definitions_true`` for the share of right definitions) treats each unlabelled definition as a
draw from its verdict's post-stratum; a word's four judge-true definitions say nothing there
about its fifth, judge-false one, though it is most likely a judge's false negative. The
word-level count needs the within-word dependence, so it has its own estimator.

*Model.* Per model m and word w: a latent rate p_w ~ Beta(α_m, β_m); each generated definition
true with probability p_w, independently given p_w; the judge's verdict given the truth with
sensitivity Se_m and specificity Sp_m, independently across definitions given their truths (a
missing judgement, -2, missing at random). With n_w definitions, labelled truths h and verdicts
j, the word's likelihood is exact:

    L_w = Σ_t g_t · B(α + t, β + n_w − t) / B(α, β),

g_t the coefficient of z^t in Π_i (c0_i + z c1_i), c1_i = P(j_i | true)·[h_i ≠ false],
c0_i = P(j_i | false)·[h_i ≠ true] (1 for a missing verdict), and P(T_w = t | data) ∝ the t-th
term: the number of true definitions of the word given its verdicts and labels.

*Design.* People's sample enters through the likelihood. Any design whose inclusion depends on
what is observed — the verdicts, the strata, earlier labels (a stratified sample within the
judge's verdicts, a random one, adaptive rounds) — is ignorable for it, so the fit respects the
design without weights; a design that chose definitions by their unseen truth would not be.

*Estimate and interval.* The posterior of (logit Se, logit Sp, log α, log β) under Jeffreys
Beta(½, ½) priors on Se and Sp and N(0, 2²) on log α, log β, approximated by sampling-importance
-resampling (a t₄ around its mode, scale the inverse Hessian, mixed with a t₄ matched to the
first one's weighted moments); per draw, each word's number
of true definitions drawn from P(T_w = t | data) and the known words counted. The estimate is
Σ_w P(known_w | data) (averaged over the draws), the interval the draws' 2.5 / 97.5 % quantiles
(at ``confidence`` 0.95): a predictive interval of the realised count of these words. A model
whose judge-true or judge-false definitions hold unlabelled items but fewer than ``min_labels``
labels gets no corrected count (the reason says so): its Se or Sp would come from the prior.
Coverage: benchmarks/sim_known_coverage.py (judge FNR 0.05–0.35, 20–150 labels per model,
stratified and random samples, latent rates U-shaped or not).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import optimize, special, stats

from wordplay_audit.analysis.correction import MIN_LABELS, corrected_shares, seeded_rng
from wordplay_audit.corpora.balderdash.known import EMPTY, SLOTS, definitions
from wordplay_audit.errors import ParameterError, check_level

__all__ = ["KnownCounts", "known_counts", "word_posteriors"]

PRIOR_SD = 2.0  # of log α and log β
NO_LABELS = "no people's labels of this model's definitions"
TOO_FEW = "the judge-{verdict} definitions hold unlabelled items but {n} label(s) (fewer than {k}): no corrected count"


@dataclass
class _Words:
    codes: np.ndarray  # words × slots: 1, 0, -2 (items), -1 (no definition), EMPTY
    truth: np.ndarray  # words × slots: 1, 0, or -1 (unlabelled / no item)
    n: np.ndarray  # definitions (items) per word
    missing: np.ndarray  # -1 slots per word
    empty: np.ndarray  # empty definitions per word (false)
    weight: np.ndarray | None = None  # words each row stands for (:func:`_patterns`)


def _patterns(w: _Words) -> tuple[_Words, np.ndarray]:
    """The distinct words (slots sorted: a word's definitions are exchangeable) with how many
    words each stands for, and each word's row among them: the likelihood is a sum over few."""
    key = np.sort((w.codes + 3) * 3 + (w.truth + 1), axis=1)
    _, first, inverse, count = np.unique(
        key, axis=0, return_index=True, return_inverse=True, return_counts=True
    )
    pick = lambda a: a[first]  # noqa: E731
    return _Words(
        pick(w.codes), pick(w.truth), pick(w.n), pick(w.missing), pick(w.empty), count
    ), inverse.ravel()


def _factors(w: _Words, se: np.ndarray, sp: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """c1, c0 (draws × words × slots): the slot's likelihood if its definition is true / false."""
    se, sp = se[:, None, None], sp[:, None, None]
    code = w.codes[None]
    c1 = np.where(code == 1, se, np.where(code == 0, 1 - se, np.where(code == -2, 1.0, 0.0)))
    c0 = np.where(code == 1, 1 - sp, np.where(code == 0, sp, 1.0))
    truth = w.truth[None]
    return np.where(truth == 0, 0.0, c1), np.where(truth == 1, 0.0, c0)


def _log_terms(w: _Words, theta: np.ndarray) -> np.ndarray:
    """log of g_t · B(α + t, β + n − t)/B(α, β) (draws × words × t = 0 … 5); -inf where t > n."""
    theta = np.atleast_2d(theta)
    se, sp = special.expit(theta[:, 0]), special.expit(theta[:, 1])
    a, b = np.exp(theta[:, 2])[:, None, None], np.exp(theta[:, 3])[:, None, None]
    c1, c0 = _factors(w, se, sp)
    g = np.zeros((*c1.shape[:2], SLOTS + 1))
    g[..., 0] = 1.0
    for i in range(SLOTS):
        g[..., 1:] = g[..., 1:] * c0[..., i, None] + g[..., :-1] * c1[..., i, None]
        g[..., 0] = g[..., 0] * c0[..., i]
    # B(α + t, β + n − t)/B(α, β) = Π_{k<t}(α + k) Π_{k<n−t}(β + k) / Π_{k<n}(α + β + k), n ≤ 5
    k = np.arange(SLOTS)[None, :]

    def rise(x: np.ndarray) -> np.ndarray:  # Σ_{k<i} log(x + k) for i = 0 … 5
        return np.concatenate([np.zeros((len(x), 1)), np.cumsum(np.log(x[:, None] + k), axis=1)], axis=1)

    up_a, up_b, up_ab = rise(a[:, 0, 0]), rise(b[:, 0, 0]), rise(a[:, 0, 0] + b[:, 0, 0])
    t = np.arange(SLOTS + 1)[None, :]
    rest = w.n[:, None] - t  # words × t
    beta = up_a[:, None, :] + up_b[:, np.maximum(rest, 0)] - up_ab[:, w.n][:, :, None]
    with np.errstate(divide="ignore"):
        return np.where(rest[None] >= 0, np.log(g) + beta, -np.inf)


def _log_posterior(w: _Words, theta: np.ndarray) -> np.ndarray:
    theta = np.atleast_2d(theta)
    loglik = special.logsumexp(_log_terms(w, theta), axis=2) @ w.weight
    se, sp = special.expit(theta[:, 0]), special.expit(theta[:, 1])
    prior = 0.5 * (np.log(se) + np.log1p(-se) + np.log(sp) + np.log1p(-sp))  # Beta(½,½) × Jacobian
    prior = (
        prior
        + stats.norm.logpdf(theta[:, 2], scale=PRIOR_SD)
        + stats.norm.logpdf(theta[:, 3], scale=PRIOR_SD)
    )
    return loglik + prior


def _batched(w: _Words, x: np.ndarray, h: float) -> tuple[float, np.ndarray, np.ndarray]:
    """−log posterior at ``x``, its central-difference gradient and Hessian, from one batched
    evaluation (1 + 2k + 4·k(k−1)/2 points)."""
    k = len(x)
    steps = [np.zeros(k)]
    steps += [s * h * np.eye(k)[i] for i in range(k) for s in (1, -1)]
    pairs = [(i, j) for i in range(k) for j in range(i + 1, k)]
    steps += [h * (a * np.eye(k)[i] + b * np.eye(k)[j]) for i, j in pairs for a, b in ((1, 1), (1, -1), (-1, 1), (-1, -1))]  # fmt: skip
    f = -_log_posterior(w, x[None] + np.array(steps))
    f0, plus, minus = f[0], f[1 : 2 * k + 1 : 2], f[2 : 2 * k + 1 : 2]
    grad = (plus - minus) / (2 * h)
    hess = np.diag((plus - 2 * f0 + minus) / h**2)
    cross = f[2 * k + 1 :].reshape(-1, 4)
    for (i, j), (pp, pm, mp, mm) in zip(pairs, cross, strict=True):
        hess[i, j] = hess[j, i] = (pp - pm - mp + mm) / (4 * h * h)
    return float(f0), grad, hess


def _normalised(log_w: np.ndarray) -> np.ndarray:
    weights = np.exp(log_w - log_w.max())
    return weights / weights.sum()


def _posterior_draws(w: _Words, draws: int, rng: np.random.Generator) -> tuple[np.ndarray, float]:
    """Draws of θ and the effective sample size: importance resampling from an equal mixture of
    a t₄ around the posterior mode (scale 1.5 × the inverse Hessian) and a t₄ matched to the
    weighted moments of the first one's draws (deterministic-mixture weights)."""

    def value_and_grad(x):
        f = -_log_posterior(w, x[None] + np.vstack([np.zeros(4), 1e-5 * np.eye(4), -1e-5 * np.eye(4)]))
        return float(f[0]), (f[1:5] - f[5:9]) / 2e-5

    start = np.array([special.logit(0.8), special.logit(0.9), np.log(0.5), np.log(0.5)])
    mode = optimize.minimize(value_and_grad, start, jac=True, method="BFGS").x
    hess = _batched(w, mode, 1e-3)[2]
    try:
        cov = np.linalg.inv(hess)
        np.linalg.cholesky(cov)
    except np.linalg.LinAlgError:
        cov = np.diag(1.0 / np.clip(np.abs(np.diag(hess)), 1e-3, None))
    first = stats.multivariate_t(loc=mode, shape=cov * 1.5, df=4)
    one = first.rvs(size=2 * draws, random_state=rng)
    with np.errstate(divide="ignore"):
        post_one = _log_posterior(w, one)
    weights = _normalised(post_one - first.logpdf(one))
    mean = weights @ one  # a second t₄ matched to the first round's weighted moments
    spread = (one - mean).T @ ((one - mean) * weights[:, None]) + 1e-6 * np.eye(4)
    second = stats.multivariate_t(loc=mean, shape=spread * 1.2, df=4)
    two = second.rvs(size=2 * draws, random_state=rng)
    candidates = np.vstack([one, two])
    with np.errstate(divide="ignore"):
        post = np.concatenate([post_one, _log_posterior(w, two)])
    mixture = np.logaddexp(first.logpdf(candidates), second.logpdf(candidates)) - np.log(2)
    weights = _normalised(post - mixture)  # deterministic-mixture importance weights
    ess = float(1.0 / np.sum(weights**2))
    return candidates[rng.choice(len(candidates), size=draws, p=weights)], ess


def _known_of(w: _Words) -> np.ndarray:
    """words × t = 0 … 5: is the word known with t true definitions (the framework's rule)."""
    t = np.arange(SLOTS + 1)[None, :]
    wrong = w.n[:, None] - t + w.empty[:, None]
    return (t > wrong) & (t > w.missing[:, None]) & (t <= w.n[:, None])


def word_posteriors(w: _Words, theta: np.ndarray) -> np.ndarray:
    """P(T_w = t | data, θ) per draw (draws × words × t)."""
    terms = _log_terms(w, theta)
    return np.exp(terms - special.logsumexp(terms, axis=2, keepdims=True))


def _arrays(words: pd.DataFrame, human: dict[str, bool]) -> _Words:
    long = definitions(words)
    codes = long["code"].to_numpy(int).reshape(-1, SLOTS)
    truth = np.asarray([-1 if (v := human.get(i)) is None else int(v) for i in long["item_id"]])
    truth = np.where(long["is_item"].to_numpy(), truth, -1).reshape(-1, SLOTS)
    n = np.isin(codes, [1, 0, -2]).sum(axis=1)
    return _Words(codes, truth, n, (codes == -1).sum(axis=1), (codes == EMPTY).sum(axis=1))


def _too_few(w: _Words, min_labels: int) -> str | None:
    if not (w.truth >= 0).any():
        return NO_LABELS
    for code, verdict in ((1, "true"), (0, "false")):
        here = w.codes == code
        labelled = int((here & (w.truth >= 0)).sum())
        if (here & (w.truth < 0)).any() and labelled < min_labels:
            return TOO_FEW.format(verdict=verdict, n=labelled, k=min_labels)
    return None


@dataclass
class KnownCounts:
    """Per model (``models``), per word (``words``: ``p_known``) and the definitions' share."""

    models: pd.DataFrame
    words: pd.DataFrame


def _model_row(w: _Words, *, draws: int, confidence: float, min_labels: int, rng) -> tuple[dict, np.ndarray]:
    reason = _too_few(w, min_labels)
    if reason is not None:
        return {"reason": reason}, np.full(len(w.n), np.nan)
    distinct, inverse = _patterns(w)
    theta, ess = _posterior_draws(distinct, draws, rng)
    post = word_posteriors(distinct, theta)[:, inverse]
    known = _known_of(w)
    p_known = (post * known[None]).sum(axis=2)  # draws × words
    cum = post.cumsum(axis=2)
    t = (rng.random(post.shape[:2])[..., None] > cum).sum(axis=2).clip(max=SLOTS)
    counts = known[np.arange(len(w.n))[None, :], t].sum(axis=1)
    tail = (1 - confidence) / 2
    se, sp = special.expit(theta[:, 0]), special.expit(theta[:, 1])
    row = {"known": float(p_known.mean(axis=0).sum()), "ci_low": float(np.quantile(counts, tail, method="lower")),
           "ci_high": float(np.quantile(counts, 1 - tail, method="higher")), "judge_se": float(se.mean()),
           "judge_sp": float(sp.mean()), "effective_draws": round(ess, 1), "reason": None}  # fmt: skip
    row["ci_low"], row["ci_high"] = min(row["ci_low"], row["known"]), max(row["ci_high"], row["known"])
    return row, p_known.mean(axis=0)


def known_counts(
    words: pd.DataFrame,
    human: dict[str, bool],
    *,
    confidence: float = 0.95,
    min_labels: int = MIN_LABELS,
    draws: int = 1000,
    seed: int = 0,
) -> KnownCounts:
    """Per model: the judge's known count (``judge_known``: the framework's ``llm_knows_word``
    True), its unknown and N/A counts, and the corrected count of truly known words with its
    interval (module doc); per word, P(known). ``words``: read_known_words' rows (several
    models allowed); ``human``: item_id → people's verdict (True/False) on the reference
    question, for the labelled definitions."""
    check_level(confidence)
    if isinstance(draws, bool) or not isinstance(draws, int | np.integer) or draws < 100:
        raise ParameterError(f"draws: expected a whole number ≥ 100, got {draws!r}")
    rows, per_word = [], []
    for model, part in words.groupby("model", sort=True):
        part = part.reset_index(drop=True)
        w = _arrays(part, human)
        judge = part["judge_knows"].to_numpy()
        base = {"model": model, "words": len(part), "judge_known": int((judge == 1).sum()),
                "judge_unknown": int((judge == 0).sum()), "judge_na": int((judge < 0).sum()),
                "file_disagrees": int((part["file_knows"].to_numpy() != np.maximum(judge, -1)).sum()),
                "definitions": int(w.n.sum()), "labelled": int((w.truth >= 0).sum()),
                "labelled_words": int((w.truth >= 0).any(axis=1).sum()), "no_definition": int(w.missing.sum()),
                "no_judgement": int((w.codes == -2).sum()), "empty_definition": int(w.empty.sum())}  # fmt: skip
        found, p_known = _model_row(w, draws=draws, confidence=confidence, min_labels=min_labels,
                                    rng=seeded_rng(seed, "known", model))  # fmt: skip
        rows.append({**base, **found})
        per_word.append(pd.DataFrame({"model": model, "word": part["word"], "judge_knows": judge,
                                      "labelled": (w.truth >= 0).sum(axis=1), "definitions": w.n, "p_known": p_known}))  # fmt: skip
    table = pd.DataFrame(rows)
    for column in ("known", "ci_low", "ci_high", "judge_se", "judge_sp", "effective_draws"):
        if column not in table.columns:
            table[column] = np.nan
    table = table.merge(_definition_shares(words, human, confidence=confidence, min_labels=min_labels, seed=seed),
                        on="model", how="left")  # fmt: skip
    return KnownCounts(table, pd.concat(per_word, ignore_index=True))


def _definition_shares(words: pd.DataFrame, human: dict[str, bool], **options) -> pd.DataFrame:
    """The share of right definitions among the judged ones, per model, by the per-item engine."""
    long = definitions(words)
    judged = long[long["code"].isin([0, 1])].reset_index(drop=True)
    frame = pd.DataFrame({"model": judged["model"], "item_id": judged["item_id"], "judge": judged["code"].eq(1),
                          "human": pd.array([human.get(i) for i in judged["item_id"]], dtype="boolean")})  # fmt: skip
    shares = corrected_shares(frame, cells=["model"], stream="known-definitions", **options)
    return shares.rename(columns={"estimate": "definitions_true", "ci_low": "definitions_true_low",
                                  "ci_high": "definitions_true_high", "reason": "definitions_reason",
                                  "judge": "definitions_judge_true"})[
        ["model", "definitions_judge_true", "definitions_true", "definitions_true_low", "definitions_true_high",
         "definitions_reason"]]  # fmt: skip
