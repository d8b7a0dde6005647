"""The OpenAPI schema as a mobile client reads it (issue 14, item 6): the reply takes the
card's continuation_token, 202 running says to poll with Retry-After, typed facts / notices /
preview details, real examples, and tags in the order of the flow."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command

from agent.api.examples import MESSAGE_EXAMPLE
from agent.api.schemas import (
    CardSerializer,
    FactItemSerializer,
    FactSerializer,
    MessageResponseSerializer,
    NoticeSerializer,
)

REPLY = "/api/v1/agent/continuations/reply/"
CONFIRM = "/api/v1/agent/confirmations/confirm/"
STATUS = "/api/v1/agent/confirmations/status/"
MESSAGES = "/api/v1/agent/sessions/{session_id}/messages/"


@pytest.fixture(scope="module")
def schema(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    path = Path(tmp_path_factory.mktemp("schema")) / "schema.json"
    call_command(
        "spectacular", "--validate", "--fail-on-warn", "--format", "openapi-json", "--file", path
    )
    return json.loads(path.read_text())


def _json(response: dict[str, Any]) -> dict[str, Any]:
    return response["content"]["application/json"]


def _component(schema: dict[str, Any], ref: str) -> dict[str, Any]:
    return schema["components"]["schemas"][ref.rsplit("/", 1)[-1]]


def test_the_reply_endpoint_says_it_takes_the_continuation_token(schema) -> None:
    operation = schema["paths"][REPLY]["post"]

    assert "`continuation_token`" in operation["description"]
    assert "not its `token`" in operation["description"]


@pytest.mark.parametrize("path", [CONFIRM, REPLY])
def test_202_running_declares_retry_after_and_says_to_poll(schema, path) -> None:
    response = schema["paths"][path]["post"]["responses"]["202"]

    assert "Retry-After" in response["headers"]
    assert response["headers"]["Retry-After"]["schema"]["type"] == "integer"
    assert "poll" in response["description"]
    examples = _json(response)["examples"]
    assert [example["value"] for example in examples.values()] == [{"state": "running"}]


def test_every_429_and_202_declares_retry_after(schema) -> None:
    """``lightnote.rest.openapi.declare_retry_after``: the header on each such answer, none
    missed."""
    declared = [
        (path, method, status)
        for path, item in schema["paths"].items()
        for method, operation in item.items()
        for status, response in operation["responses"].items()
        if status in {"202", "429"}
        and response.get("headers", {}).get("Retry-After", {}).get("schema", {}).get("type")
        == "integer"
    ]
    answering = [
        (path, method, status)
        for path, item in schema["paths"].items()
        for method, operation in item.items()
        for status in operation["responses"]
        if status in {"202", "429"}
    ]
    assert declared == answering
    assert len({status for *_, status in answering}) == 2
    assert len(answering) >= 10


def test_confirm_and_status_show_each_settled_outcome(schema) -> None:
    for path in (CONFIRM, STATUS):
        examples = _json(schema["paths"][path]["post"]["responses"]["200"])["examples"]
        outcomes = [example["value"]["outcome"] for example in examples.values()]
        assert [outcome["ok"] for outcome in outcomes] == [True, False, None]
        assert outcomes[0]["receipt"]["resource"]["type"] == "todo"
        assert outcomes[1]["error"]["code"] == "TODO_VERSION_CONFLICT"
        assert "TODO_VERSION_CONFLICT" not in outcomes[1]["error"]["message"]


def test_facts_notices_and_preview_details_are_typed(schema) -> None:
    message = _json(schema["paths"][MESSAGES]["post"]["responses"]["200"])
    body = _component(schema, message["schema"]["$ref"])
    fact = _component(schema, body["properties"]["facts"]["items"]["$ref"])
    item = _component(schema, fact["properties"]["items"]["items"]["$ref"])
    notice = _component(schema, body["properties"]["notices"]["items"]["$ref"])
    card = _component(schema, body["properties"]["cards"]["items"]["$ref"])
    preview = _component(schema, card["properties"]["preview"]["$ref"])
    detail = _component(schema, preview["properties"]["details"]["items"]["$ref"])

    assert {"id", "type", "title", "version"} <= set(item["required"])
    assert item["properties"]["id"]["format"] == "uuid"
    assert {"capability", "status", "message"} <= set(notice["properties"])
    assert {"key", "label", "value"} == set(detail["required"])
    assert {"current", "new"} <= set(detail["properties"])


def test_the_message_example_uses_only_documented_fields() -> None:
    def fields(serializer: Any) -> set[str]:
        return set(serializer().fields)

    assert set(MESSAGE_EXAMPLE) == fields(MessageResponseSerializer)
    for fact in MESSAGE_EXAMPLE["facts"]:
        assert set(fact) <= fields(FactSerializer)
        for item in fact["items"]:
            assert set(item) <= fields(FactItemSerializer)
            assert item["id"]
    for card in MESSAGE_EXAMPLE["cards"]:
        assert set(card) <= fields(CardSerializer)
    for notice in MESSAGE_EXAMPLE["notices"]:
        assert set(notice) <= fields(NoticeSerializer)


def test_the_message_operation_shows_the_example(schema) -> None:
    examples = _json(schema["paths"][MESSAGES]["post"]["responses"]["200"])["examples"]

    (example,) = examples.values()
    assert example["value"]["cards"][0]["continuation_token"]
    assert example["value"]["facts"][0]["items"][0]["id"]


def test_tags_put_the_flow_in_order(schema) -> None:
    names = [tag["name"] for tag in schema["tags"]]
    agent = [name for name in names if name.startswith("agent ")]

    assert agent == sorted(agent)
    assert agent[:4] == [
        "agent 1. conversations",
        "agent 2. messages and cards",
        "agent 3. confirming a card",
        "agent 4. the final reply",
    ]
    assert schema["paths"][REPLY]["post"]["tags"] == ["agent 4. the final reply"]
