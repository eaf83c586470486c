"""Prompt templates for the LLM judge, one per equivalence kind, versioned; and the strict parser.

A template is a system message and a user message with the fields ``{context}``, ``{first}``
and ``{second}``: the two texts compared, the reference first in the given order and the
candidate first when swapped (to measure position bias). The version string goes into the
judge id and the cache key, so editing a template here means raising its version.

A template file (``--prompt FILE``) overrides the built-in one: its first line ``system:`` text,
the rest the user message; its version is ``file-`` plus the first 12 hex digits of its sha256.

The reply must be exactly ``yes`` or ``no`` (any case, surrounding space, quotes or a final
full stop allowed); anything else is ``unparsed`` and its raw text is kept, never read as no.
"""

from __future__ import annotations

import hashlib
import re
import string
from dataclasses import dataclass
from pathlib import Path

from wordplay_audit.errors import InputError, expect_file
from wordplay_audit.judges.base import FALSE, TRUE, UNPARSED

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
