"""Label Studio labelling configurations and task data, generated from one place.

Every kind of the data contract (``docs/DATA.md``) has one :class:`Interface`: the texts shown
(each a task-data field filled from an item column) and the questions asked (each a Label Studio
``Choices`` control whose stored values are the labels that land in the labels table).
:func:`label_config` writes the XML, :func:`task_data` the task's ``data`` object,
:func:`judge_prediction` a judge's verdicts as a Label Studio *prediction* (review mode), and
:func:`parse_result` reads an annotation's ``result`` list back into labels.

Task data keys are ``text_<field>`` (never a control's name: JSON_MIN exports put data fields
and answers in one flat object). Blind by default: task data holds only the shown texts and the
campaign's opaque ``uid``, never
the player model, the judge's verdict, the item id (which can name the model) or others' labels.

Knowledge types follow the Connections study (Samadarshi et al. 2024, §3 and Table 1): word form
(phonology, orthography, morphology, multiword expressions), word meaning (semantic relations,
associative relations, encyclopedic), and word form + word meaning, stored as
``"<meaning> + <form>"`` like the study's released labels (e.g. ``semantic relations +
phonology``), so ``analysis.connections.taxonomy_column`` maps them onto Table 1.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from xml.sax.saxutils import quoteattr

from wordplay_audit.errors import InputError, check_choice

FORM_TYPES = ("phonology", "orthography", "morphology", "multiword expressions")
MEANING_TYPES = ("semantic relations", "associative relations", "encyclopedic")
COMBINATION = "word meaning + word form"
UNSURE = "unsure"
BOOL_CHOICES = (("Yes", "true"), ("No", "false"))


@dataclass(frozen=True)
class Question:
    """One required choice: ``name`` is the control's name, ``label`` the ``question`` column."""

    name: str
    text: str
    choices: tuple[tuple[str, str], ...]  # (shown text, stored label)
    label: str = ""


@dataclass(frozen=True)
class Interface:
    """What one kind shows (``fields``: data key, heading, item column) and asks."""

    kind: str
    title: str
    fields: tuple[tuple[str, str, str], ...]
    questions: tuple[Question, ...]
    target: str = "candidate"
    extras: tuple[str, ...] = field(default=())

    def question(self, name: str) -> Question:
        return next(q for q in self.questions if q.name == name)


_TAXONOMY_CHOICES = (
    tuple((f"word form: {t}", t) for t in FORM_TYPES)
    + tuple((f"word meaning: {t}", t) for t in MEANING_TYPES)
    + (("word form + word meaning (choose the two below)", COMBINATION),)
)

INTERFACES: dict[str, Interface] = {
    "knowledge_type": Interface(
        kind="knowledge_type",
        title="Which knowledge does this Connections category need?",
        fields=(
            ("game_words", "The game's 16 words", "game_words"),
            ("context", "The category's 4 words", "context"),
            ("reference", "Gold category name", "reference"),
            ("colour", "Colour (difficulty)", "difficulty"),
        ),
        questions=(Question("knowledge_type", "Knowledge type", _TAXONOMY_CHOICES),),
        target="context",
        extras=("combination",),
    ),
    "category_name": Interface(
        kind="category_name",
        title="Does the model's category name mean the same as the gold name?",
        fields=(
            ("context", "The 4 words", "context"),
            ("reference", "Gold category name", "reference"),
            ("candidate", "Proposed category name", "candidate"),
        ),
        questions=(Question("equivalent", "Same meaning as the gold name?", BOOL_CHOICES),),
    ),
    "definition": Interface(
        kind="definition",
        title="Does the player's definition mean the word?",
        fields=(
            ("context", "Word", "context"),
            ("reference", "Reference definition", "reference"),
            ("senses", "Other dictionary senses", "senses"),
            ("candidate", "Player's definition", "candidate"),
        ),
        questions=(
            Question(
                "reference", "Same core meaning as the reference definition?", BOOL_CHOICES, "reference"
            ),
            Question("any_sense", "Matches any listed sense of the word?", BOOL_CHOICES, "any_sense"),
        ),
    ),
    "guess": Interface(
        kind="guess",
        title="Is the final guess the solution?",
        fields=(
            ("context", "Category / riddle", "context"),
            ("reference", "Solution", "reference"),
            ("candidate", "Final guess", "candidate"),
        ),
        questions=(Question("correct", "Is the guess the solution?", BOOL_CHOICES),),
    ),
}
KINDS = tuple(INTERFACES)
ADJUDICATION_FIELD = "earlier_labels"


def interface(kind: str) -> Interface:
    """The interface of one kind; ParameterError listing the kinds for another."""
    return INTERFACES[check_choice("kind", kind, KINDS)]


def _choices(question: Question, target: str) -> list[str]:
    lines = [
        f"  <Header value={quoteattr(question.text)}/>",
        f'  <Choices name={quoteattr(question.name)} toName={quoteattr("t_" + target)} choice="single-radio" required="true">',
    ]
    lines += [
        f"    <Choice value={quoteattr(shown)}/>"
        if _plain(stored)
        else f"    <Choice value={quoteattr(shown)} alias={quoteattr(stored)}/>"
        for shown, stored in question.choices
    ]
    lines.append("  </Choices>")
    return lines


def _plain(stored: str) -> bool:
    """Choices stored without an ``alias``: the labelling page reads ``alias="true"`` as a
    boolean and fails to render, so yes/no choices store their shown text (Yes/No)."""
    return stored in ("true", "false")


def stored_value(question: Question, label: str) -> str:
    """What Label Studio stores in a result for ``label`` (the alias, or the shown text)."""
    shown = {s: v for v, s in question.choices}[label]
    return shown if _plain(label) else label


def label_config(kind: str, *, adjudication: bool = False) -> str:
    """The Label Studio XML for ``kind``; ``adjudication`` also shows the earlier labels."""
    ui = interface(kind)
    lines = ["<View>", f"  <Header value={quoteattr(ui.title)}/>"]
    for key, heading, _column in ui.fields:
        lines += [
            f'  <Header value={quoteattr(heading)} size="6"/>',
            f'  <Text name="t_{key}" value="$text_{key}"/>',
        ]
    if adjudication:
        lines += [
            '  <Header value="Earlier labels (adjudication)" size="6"/>',
            f'  <Text name="t_{ADJUDICATION_FIELD}" value="$text_{ADJUDICATION_FIELD}"/>',
        ]
    for question in ui.questions:
        lines += _choices(question, ui.target)
    if "combination" in ui.extras:
        lines += [
            '  <View visibleWhen="choice-selected" whenTagName="knowledge_type" '
            f"whenChoiceValue={quoteattr(_TAXONOMY_CHOICES[-1][0] + ',' + COMBINATION)}>",
            '    <Header value="Which word-meaning type and which word-form type combine?"/>',
            f'    <Choices name="combination" toName="t_{ui.target}" choice="multiple">',
        ]
        lines += [f"      <Choice value={quoteattr(t)}/>" for t in MEANING_TYPES + FORM_TYPES]
        lines += ["    </Choices>", "  </View>"]
    lines += [
        f'  <Choices name="flags" toName="t_{ui.target}" choice="multiple">',
        f'    <Choice value="{UNSURE}"/>',
        "  </Choices>",
        '  <Header value="Comment (optional)" size="6"/>',
        f'  <TextArea name="comment" toName="t_{ui.target}" maxSubmissions="1" editable="true" rows="2"/>',
        "</View>",
    ]
    return "\n".join(lines) + "\n"


def _text(value: Any) -> str:
    if value is None:
        return ""
    text = str(value)
    return "" if text.lower() == "nan" else text


def task_data(item: Mapping[str, Any], uid: str, *, earlier: str | None = None) -> dict[str, str]:
    """The ``data`` of one task: the shown texts from the item's columns, and ``uid``.

    Absent or empty texts show as ``"(not given)"`` (Label Studio rejects a task lacking a field
    its config uses). Nothing else of the item goes in (blind labelling).
    """
    ui = interface(str(item["kind"]))
    data = {"uid": uid}
    for key, _heading, column in ui.fields:
        data[f"text_{key}"] = _text(item.get(column)) or "(not given)"
    if earlier is not None:
        data[f"text_{ADJUDICATION_FIELD}"] = earlier
    return data


def judge_prediction(kind: str, verdicts: Mapping[str, str], model_version: str) -> dict | None:
    """A Label Studio prediction holding a judge's verdicts (``{question label or name: label}``)."""
    ui = interface(kind)
    result = []
    for question in ui.questions:
        value = verdicts.get(question.label) if question.label else None
        value = value if value is not None else verdicts.get(question.name, verdicts.get(""))
        stored = {s: shown for shown, s in question.choices}
        if value is None or str(value) not in stored:
            continue
        result.append(
            {
                "from_name": question.name,
                "to_name": f"t_{ui.target}",
                "type": "choices",
                "value": {"choices": [stored_value(question, str(value))]},
            }
        )
    return {"model_version": model_version, "result": result} if result else None


def _values(entry: Mapping[str, Any], where: str) -> tuple[str, list[str]]:
    value = entry.get("value") or {}
    if not isinstance(value, Mapping):
        raise InputError(f"{where}: 'value': expected an object, got {type(value).__name__}")
    for key in ("choices", "text"):
        if key in value:  # one bare string (not a list) is one answer, not one per character
            given = value[key]
            return key, [str(v) for v in (given if isinstance(given, list) else [given])]
    return str(entry.get("type", "")), []


def parse_result(kind: str, result: Sequence[Mapping[str, Any]], where: str) -> dict[str, Any]:
    """Read an annotation's ``result`` list: ``{"labels": {question: label}, "unsure", "comment"}``.

    An unknown choice or control raises :class:`InputError` naming ``where``; a taxonomy
    combination is stored as ``"<meaning> + <form>"`` and needs exactly one of each.
    """
    ui = interface(kind)
    by_name: dict[str, list[str]] = {}
    for index, entry in enumerate(result or ()):
        if not isinstance(entry, Mapping):
            raise InputError(
                f"{where}.result[{index}]: expected an answer object, got {type(entry).__name__}"
            )
        name = str(entry.get("from_name", ""))
        _kind, values = _values(entry, f"{where}.result[{index}]")
        by_name.setdefault(name, []).extend(values)
    known = {q.name for q in ui.questions} | set(ui.extras) | {"flags", "comment"}
    unknown = sorted(set(by_name) - known)
    if unknown:
        raise InputError(
            f"{where}: control {unknown[0]!r} is not in the {kind} config ({', '.join(sorted(known))})"
        )
    labels: dict[str, str] = {}
    for question in ui.questions:
        values = by_name.get(question.name, [])
        if not values:
            continue
        allowed = {stored for _shown, stored in question.choices} | {shown for shown, _ in question.choices}
        to_stored = {shown: stored for shown, stored in question.choices}
        if len(values) != 1 or values[0] not in allowed:
            expected = ", ".join(sh if sh == st else f"{sh} ({st})" for sh, st in question.choices)
            got = ", ".join(map(repr, values))
            raise InputError(
                f"{where}: {question.name}: expected one choice of {expected}; got {len(values)}: {got}"
            )
        labels[question.label] = to_stored.get(values[0], values[0])
    odd = [v for v in by_name.get("flags", []) if v != UNSURE]
    if odd:
        raise InputError(f"{where}: flags: choice {odd[0]!r} is not one of {UNSURE}")
    if labels.get("") == COMBINATION:
        labels[""] = _combination(by_name.get("combination", []), where)
    return {
        "labels": labels,
        "unsure": UNSURE in by_name.get("flags", []),
        "comment": " ".join(t.strip() for t in by_name.get("comment", []) if t.strip()),
    }


def _combination(parts: list[str], where: str) -> str:
    meanings = [p for p in parts if p in MEANING_TYPES]
    forms = [p for p in parts if p in FORM_TYPES]
    if len(meanings) != 1 or len(forms) != 1 or len(parts) != 2:
        raise InputError(
            f"{where}: combination: expected one word-meaning and one word-form type, got {', '.join(parts) or 'none'}"
        )
    return f"{meanings[0]} + {forms[0]}"


def question_labels(kind: str) -> tuple[str, ...]:
    """The values of the ``question`` column one kind produces (``""`` for a single question)."""
    return tuple(q.label for q in interface(kind).questions)


def allowed_labels(kind: str, question: str = "") -> tuple[str, ...]:
    """Every label one question can produce (taxonomy: also each meaning + form combination)."""
    ui = interface(kind)
    q = next(q for q in ui.questions if q.label == question)
    values = [stored for _shown, stored in q.choices if stored != COMBINATION]
    if kind == "knowledge_type":
        values += [f"{m} + {f}" for m in MEANING_TYPES for f in FORM_TYPES]
    return tuple(values)
