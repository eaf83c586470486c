"""Prompt templates for the LLM judge, one per equivalence kind, versioned; and the strict parser.

A template is a system message and a user message with the fields ``{context}``, ``{first}``
and ``{second}``: the two texts compared, the reference first in the given order and the
candidate first when swapped (to measure position bias). The version string goes into the
judge id and the cache key, so editing a template here means raising its version.

A template file (``--prompt FILE``) overrides the built-in one: its first line ``system:`` text,
the rest the user message; its version is ``file-`` plus the first 12 hex digits of its sha256.

The reply must be exactly ``yes`` or ``no`` (any case, surrounding space, quotes or a final
full stop allowed); anything else is ``unparsed`` and its raw text is kept, never read as no.

P(yes) from token log-probabilities (:func:`yes_probability`): the *answer token* is the first
token of the reply that is not only white space or the quote marks the parser allows
(``"'*```). Among that position's candidates – the token itself and its ``top_logprobs`` – a
token is a *yes* when, stripped of white space and those quote marks and case-folded, it reads
``yes`` (so ``Yes``, `` yes``, ``YES``), a *no* when it reads ``no``; every other token
(``The``, ``Maybe``, a lone quote) is left out. P(yes) = softmax over the two classes, each the
log-sum-exp of its tokens: ``P = Σ_yes e^lp / (Σ_yes e^lp + Σ_no e^lp)``. When only one class
is listed, the other is given the upper bound of its probability – the lowest listed
``top_logprobs`` probability, or what the listed tokens leave of 1 if that is less – so
truncation to the top k does not by itself give 0 or 1; with neither class listed (or no
``top_logprobs`` at all) there is no P(yes). The strict parse still decides the verdict: a
reply it cannot read is ``unparsed`` and gets no P(yes).
"""

from __future__ import annotations

import hashlib
import math
import re
import string
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from wordplay_audit.errors import InputError, expect_file
from wordplay_audit.judges.base import FALSE, TRUE, UNPARSED

#: The fields a prompt's ``user`` text fills in.
FIELDS = ("context", "first", "second")
SET_VERSION = "v1"
"""Version of the built-in set; raise it (and the kind's own) when editing a template."""

_SYSTEM = "You judge whether two short texts mean the same thing. Answer with exactly one word: yes or no."


@dataclass(frozen=True)
class Template:
    """A versioned prompt: ``system`` and ``user`` texts, ``user`` with the :data:`FIELDS`."""

    kind: str
    version: str
    system: str
    user: str

    def render(self, *, context: str, first: str, second: str) -> list[dict[str, str]]:
        """Chat messages for one query."""
        user = self.user.format(context=context, first=first, second=second)
        return [{"role": "system", "content": self.system}, {"role": "user", "content": user}]


BUILTIN: dict[str, Template] = {
    "category_name": Template(
        "category_name",
        "category_name-v1",
        _SYSTEM,
        "Four words form a group in a word puzzle: {context}\n"
        "Two people named the connection between them.\n"
        "A: {first}\n"
        "B: {second}\n"
        "Do A and B name the same connection (the same idea, even if worded differently)? "
        "Answer yes or no.",
    ),
    "definition": Template(
        "definition",
        "definition-v1",
        _SYSTEM,
        "Two definitions of the word {context}:\n"
        "A: {first}\n"
        "B: {second}\n"
        "Do A and B give the same meaning of the word? Answer yes or no.",
    ),
    "guess": Template(
        "guess",
        "guess-v1",
        _SYSTEM,
        "A puzzle: {context}\n"
        "A: {first}\n"
        "B: {second}\n"
        "Are A and B the same answer (ignoring case, spacing and trivial spelling slips)? "
        "Answer yes or no.",
    ),
}


def template_for(kind: str, *, path: str | Path | None = None) -> Template:
    """The built-in template of ``kind``, or the one in ``path`` (see the module docstring)."""
    if path is None:
        if kind not in BUILTIN:
            raise InputError(
                f"no built-in judge prompt for kind {kind!r} (have {', '.join(BUILTIN)}); "
                "give one with --prompt FILE"
            )
        return BUILTIN[kind]
    return load_template(path, kind=kind)


def load_template(path: str | Path, *, kind: str) -> Template:
    """Read a template file: ``system: …`` on line 1, the user message after it."""
    path = expect_file(path, "a prompt template file")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise InputError(f"{path}: not UTF-8 text") from None
    first, _, rest = text.partition("\n")
    if not first.lower().startswith("system:"):
        raise InputError(f"{path} line 1: expected 'system: <instructions>', got {first[:40]!r}")
    user = rest.strip("\n")
    try:
        names = {f for _, f, _, _ in string.Formatter().parse(user) if f is not None}
    except ValueError as exc:
        raise InputError(f"{path} line 2: not a valid template ({exc})") from None
    unknown = sorted(names - set(FIELDS))
    if unknown:
        raise InputError(f"{path} line 2: unknown field {{{unknown[0]}}}; allowed {', '.join(FIELDS)}")
    for name in ("first", "second"):
        if name not in names:
            raise InputError(f"{path} line 2: the template must contain {{{name}}}")
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]
    return Template(kind, f"file-{digest}", first[len("system:") :].strip(), user)


_REPLY = re.compile(r"""^\s*["'*`]*\s*(yes|no)\s*[.!]?\s*["'*`]*\s*$""", re.IGNORECASE)


def parse_verdict(reply: str | None) -> str:
    """``true`` for a bare yes, ``false`` for a bare no, else ``unparsed``.

    >>> parse_verdict(" Yes."), parse_verdict("NO"), parse_verdict("No, they differ")
    ('true', 'false', 'unparsed')
    """
    if reply is None:
        return UNPARSED
    match = _REPLY.match(reply)
    if match is None:
        return UNPARSED
    return TRUE if match.group(1).lower() == "yes" else FALSE


_QUOTES = "\"'*`"


def _answer_class(token: Any) -> str | None:
    """``"yes"``, ``"no"`` or None for one token text (see the module docstring)."""
    if not isinstance(token, str):
        return None
    word = token.strip().strip(_QUOTES).strip().casefold()
    return word if word in ("yes", "no") else None


def _logprob(entry: Any) -> float | None:
    """An entry's log-probability as a float ≤ 0 (``-9999`` stands for "very unlikely"), or None."""
    value = entry.get("logprob") if isinstance(entry, dict) else None
    if isinstance(value, bool) or not isinstance(value, int | float) or value != value or value > 1e-9:
        return None
    return float(min(value, 0.0))


def yes_probability(logprobs: Any) -> float | None:
    """P(yes) from a chat choice's ``logprobs`` object (``{"content": [...]}``), or None.

    Hand check: the answer token ``Yes`` (log-probability −0.2) with alternatives ``Yes`` −0.2
    and `` no`` −1.8: P = e^−0.2 / (e^−0.2 + e^−1.8) = 1 / (1 + e^−1.6) = 0.8320.

    >>> top = [{"token": "Yes", "logprob": -0.2}, {"token": " no", "logprob": -1.8}]
    >>> round(yes_probability({"content": [{"token": "Yes", "logprob": -0.2, "top_logprobs": top}]}), 4)
    0.832
    >>> yes_probability(None) is None
    True
    """
    content = logprobs.get("content") if isinstance(logprobs, dict) else None
    if not isinstance(content, list):
        return None
    answer = next(
        (
            e
            for e in content
            if isinstance(e, dict) and str(e.get("token", "")).strip().strip(_QUOTES).strip()
        ),
        None,
    )
    top = answer.get("top_logprobs") if answer is not None else None
    if not isinstance(top, list) or not top:
        return None
    alternatives = [(e.get("token"), lp) for e in top if (lp := _logprob(e)) is not None]
    own = _logprob(answer)
    candidates = dict.fromkeys([*(((answer.get("token"), own),) if own is not None else ()), *alternatives])
    mass: dict[str, float] = {}
    for token, lp in candidates:
        kind = _answer_class(token)
        if kind is not None:
            mass[kind] = mass.get(kind, 0.0) + math.exp(lp)
    if not alternatives or not mass:
        return None
    if len(mass) == 1:  # the other class is below the listed top k: its upper bound
        listed = sum(math.exp(lp) for _, lp in candidates)
        bound = min(min(math.exp(lp) for _, lp in alternatives), max(0.0, 1.0 - listed))
        mass = {"yes": mass.get("yes", bound), "no": mass.get("no", bound)}
    total = mass["yes"] + mass["no"]
    return mass["yes"] / total if total > 0 else None
