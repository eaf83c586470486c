"""Labelling configs: well-formed, blind, parsed back; every config accepted by the real server."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from wordplay_audit.annotate.configs import (
    COMBINATION,
    FORM_TYPES,
    KINDS,
    MEANING_TYPES,
    allowed_labels,
    judge_prediction,
    label_config,
    parse_result,
    task_data,
)
from wordplay_audit.errors import InputError, ParameterError

ITEMS = {
    "knowledge_type": {
        "item_id": "cxt:abc:0",
        "kind": "knowledge_type",
        "context": "A, B, C, D",
        "reference": "GOLD",
        "game_words": "A, B, C, D, E, F, G, H, I, J, K, L, M, N, O, P",
        "difficulty": "yellow",
        "knowledge_type": "semantic relations",
    },
    "category_name": {
        "item_id": "cx:abc:gpt4o:0",
        "kind": "category_name",
        "context": "A, B, C, D",
        "reference": "GOLD",
        "candidate": "MODEL NAME",
        "player_model": "gpt4o",
    },
    "definition": {
        "item_id": "bd:1:2:3",
        "kind": "definition",
        "context": "word",
        "reference": "ref",
        "candidate": "cand",
        "senses": "s1 | s2",
        "player_model": "llama",
        "judge_verdict": "true",
    },
    "guess": {
        "item_id": "wof:1",
        "kind": "guess",
        "context": "PHRASE",
        "reference": "A B",
        "candidate": "A C",
    },
}


def _choice(name: str, value: str) -> dict:
    return {"from_name": name, "to_name": "t_x", "type": "choices", "value": {"choices": [value]}}


@pytest.mark.parametrize("kind", KINDS)
def test_config_is_xml_with_every_data_field(kind):
    root = ET.fromstring(label_config(kind))
    data = task_data(ITEMS[kind], "u1")
    used = {el.get("value")[1:] for el in root.iter("Text")}
    assert used <= set(data)
    names = [el.get("name") for el in root.iter() if el.get("name")]
    assert len(names) == len(set(names)), "control and object names must be unique"
    assert not set(names) & set(data), "data keys never equal a control name (JSON_MIN flattens both)"


@pytest.mark.parametrize("kind", KINDS)
def test_task_data_is_blind(kind):
    data = task_data(ITEMS[kind], "u1")
    text = " ".join(data.values())
    for secret in ("gpt4o", "llama", "semantic relations", ITEMS[kind]["item_id"]):
        assert secret not in text


def test_definition_result_lands_as_two_questions():
    result = [
        _choice("reference", "true"),
        _choice("any_sense", "false"),
        {"from_name": "comment", "type": "textarea", "value": {"text": ["close"]}},
        _choice("flags", "unsure"),
    ]
    parsed = parse_result("definition", result, "x")
    assert parsed == {
        "labels": {"reference": "true", "any_sense": "false"},
        "unsure": True,
        "comment": "close",
    }


def test_taxonomy_combination_is_meaning_plus_form():
    result = [
        _choice("knowledge_type", COMBINATION),
        {"from_name": "combination", "type": "choices", "value": {"choices": ["phonology", "encyclopedic"]}},
    ]
    assert parse_result("knowledge_type", result, "x")["labels"] == {"": "encyclopedic + phonology"}
    with pytest.raises(InputError, match="one word-meaning and one word-form"):
        parse_result("knowledge_type", [_choice("knowledge_type", COMBINATION)], "task 3")


def test_taxonomy_labels_map_onto_table1():
    from wordplay_audit.analysis.connections import TAXONOMY_COLUMNS, taxonomy_column

    mapped = {taxonomy_column(label) for label in allowed_labels("knowledge_type")}
    assert mapped == set(TAXONOMY_COLUMNS)
    assert len(allowed_labels("knowledge_type")) == len(FORM_TYPES) + len(MEANING_TYPES) * (
        1 + len(FORM_TYPES)
    )


def test_unknown_choice_and_control_are_one_line_errors():
    with pytest.raises(InputError, match="maybe") as info:
        parse_result("guess", [_choice("correct", "maybe")], "export.json: [4].annotations[0]")
    assert str(info.value).startswith("export.json: [4].annotations[0]: correct")
    with pytest.raises(InputError, match="'sentiment' is not in the guess config"):
        parse_result("guess", [_choice("sentiment", "true")], "x")
    with pytest.raises(ParameterError, match="kind"):
        label_config("poem")


def test_judge_prediction_uses_stored_values():
    pred = judge_prediction("definition", {"reference": "false", "any_sense": "true"}, "judge-llm")
    assert pred["model_version"] == "judge-llm"
    assert {r["from_name"]: r["value"]["choices"] for r in pred["result"]} == {
        "reference": ["No"],
        "any_sense": ["Yes"],
    }
    assert parse_result("definition", pred["result"], "x")["labels"] == {
        "reference": "false",
        "any_sense": "true",
    }


@pytest.mark.server
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("adjudication", [False, True])
def test_server_accepts_every_config_and_its_tasks(label_studio, kind, adjudication):
    from label_studio_sdk import LabelStudio

    client = LabelStudio(base_url=label_studio.url, api_key=label_studio.token, timeout=300)
    project = client.projects.create(
        title=f"cfg {kind} {adjudication}", label_config=label_config(kind, adjudication=adjudication)
    )
    client.projects.validate_label_config(
        project.id, label_config=label_config(kind, adjudication=adjudication)
    )
    task = {"data": task_data(ITEMS[kind], "u1", earlier="a: true" if adjudication else None)}
    client.projects.import_tasks(project.id, request=[task])
    assert [t.data["uid"] for t in client.tasks.list(project=project.id)] == ["u1"]
    client.projects.delete(project.id)


@pytest.mark.server
def test_server_rejects_a_broken_config(label_studio):
    """The server check is real: a config naming a missing object is refused."""
    from label_studio_sdk import LabelStudio
    from label_studio_sdk.core.api_error import ApiError

    client = LabelStudio(base_url=label_studio.url, api_key=label_studio.token, timeout=300)
    with pytest.raises(ApiError):
        client.projects.create(
            title="broken", label_config='<View><Choices name="x" toName="nothing"/></View>'
        )
