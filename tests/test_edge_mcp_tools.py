"""The MCP tool list follows the spec: hints that say what each tool does, a title, and an
output schema every successful answer matches (the SDK client checks it on each call)."""

from __future__ import annotations

from typing import Any

import jsonschema
import pytest
from mcp import Client

from mcpserver import gateway
from notes import services as note_services
from tests.mcp_helpers import call, confirm_on_page, mcp_key, memory_server, page_client, propose
from todos import services as todo_services

pytestmark = pytest.mark.django_db

# (readOnlyHint, destructiveHint, idempotentHint) per tool, from the spec's definitions.
HINTS = {
    "query_todos": (True, False, True),
    "search_notes": (True, False, True),
    "card_status": (True, False, True),
    "list_capabilities": (True, False, True),
    "create_todo": (False, False, False),
    "create_note": (False, False, False),
    "set_todo_status": (False, True, True),
    "update_todo": (False, True, True),
    "update_note": (False, True, True),
    "delete_todo": (False, True, True),
}


def _tools(server: Any) -> dict[str, Any]:
    async def scenario(client: Client) -> Any:
        return await client.list_tools()

    from tests.mcp_helpers import with_client

    return {tool.name: tool for tool in with_client(server, scenario).tools}


def test_every_tool_has_hints_by_its_effect_a_title_and_an_output_schema(user: Any) -> None:
    tools = _tools(memory_server(mcp_key(user)))
    assert set(tools) == set(HINTS)
    for name, tool in tools.items():
        hints = tool.annotations
        assert (hints.read_only_hint, hints.destructive_hint, hints.idempotent_hint) == HINTS[
            name
        ], name
        assert hints.open_world_hint is False
        assert tool.title, name
        assert tool.annotations.title == tool.title
        assert tool.output_schema is not None, name
        assert tool.output_schema["type"] == "object"
        jsonschema.Draft202012Validator.check_schema(tool.output_schema)


def test_every_answer_matches_its_tools_output_schema(user: Any) -> None:
    server = memory_server(mcp_key(user))
    tools = _tools(server)
    todo = todo_services.todo_create(owner=user, title="Old title")
    note = note_services.note_create(owner=user, title="A note", content="text")
    answers = {
        "query_todos": call(server, "query_todos", {}).structured_content,
        "search_notes": call(server, "search_notes", {"query": "note"}).structured_content,
        "list_capabilities": call(server, "list_capabilities", {}).structured_content,
        "create_todo": propose(server, "create_todo", title="New"),
        "create_note": propose(server, "create_note", title="Another", content="body"),
        "set_todo_status": propose(server, "set_todo_status", todo_id=str(todo.id), status="done"),
        "update_todo": propose(server, "update_todo", todo_id=str(todo.id), title="New title"),
        "update_note": propose(server, "update_note", note_id=str(note.id), content="new"),
        "delete_todo": propose(server, "delete_todo", todo_id=str(todo.id)),
    }
    pending = answers["create_todo"]
    answers["card_status"] = call(
        server, gateway.STATUS_TOOL, {"card_id": pending["card_id"]}
    ).structured_content
    assert confirm_on_page(page_client(user), pending["card_id"]).status_code == 200
    confirmed = call(server, gateway.STATUS_TOOL, {"card_id": pending["card_id"]})
    assert confirmed.structured_content["state"] == "confirmed"
    for name, answer in [*answers.items(), ("card_status", confirmed.structured_content)]:
        jsonschema.validate(answer, tools[name].output_schema)


def test_every_enabled_capability_has_its_effect_row() -> None:
    from agent.capabilities import CAPABILITIES, ENABLED
    from mcpserver.tool_schemas import EFFECTS

    offered = {c.id for c in CAPABILITIES if c.status == ENABLED and not c.internal}
    assert offered <= set(EFFECTS)


def test_every_tool_answer_says_what_changed_from_receipts(user: Any) -> None:
    """A proposal changes nothing yet (its card waits); after the person confirms, the
    card's status counts its receipt; a read changes nothing."""

    key = mcp_key(user)
    proposed = call(memory_server(key), "create_todo", {"title": "Submit the weekly report"})
    card = proposed.structured_content
    assert card["changes"] == {
        "count": 0,
        "text": "还没有修改任何数据：1 张确认卡等你确认。",
        "items": [],
    }
    assert confirm_on_page(page_client(user), card["card_id"]).status_code == 200
    status = call(memory_server(key), "card_status", {"card_id": card["card_id"]})
    changes = status.structured_content["changes"]
    assert changes["count"] == 1
    assert [item["action_id"] for item in changes["items"]] == [card["card_id"]]
    read = call(memory_server(key), "query_todos", {})
    assert read.structured_content["changes"]["count"] == 0
