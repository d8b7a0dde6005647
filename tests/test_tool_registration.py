"""Tool registration against the capability table (article section 17, "工具注册测试")."""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

import pytest
from django.apps import apps
from django.core.exceptions import ImproperlyConfigured

from agent.capabilities import (
    CAPABILITIES,
    capability_by_id,
    capability_by_tool,
    capability_for_unknown_tool,
)
from agent.tools import Tool, ToolRegistry, closed_object, registry
from notes.agent_tools import CreateNoteTool, DiscardNoteTool, SearchNotesTool, UpdateNoteTool
from todos.agent_tools import (
    CreateTodoTool,
    DeleteTodoTool,
    QueryTodosTool,
    RestoreTodoTool,
    SetTodoStatusTool,
    UpdateTodoTool,
)

ALL_TOOL_CLASSES = [
    QueryTodosTool,
    SearchNotesTool,
    CreateTodoTool,
    SetTodoStatusTool,
    UpdateTodoTool,
    DeleteTodoTool,
    CreateNoteTool,
    UpdateNoteTool,
    RestoreTodoTool,
    DiscardNoteTool,
]
# Compensation-only tools (issue 15): registered, never offered to a planner or over MCP.
INTERNAL_TOOL_NAMES = {"restore_todo", "discard_note"}
API_TOOL_NAMES = {
    "query_todos",
    "search_notes",
    "create_todo",
    "set_todo_status",
    "update_todo",
    "delete_todo",
    "create_note",
    "update_note",
}


def _write_tool(**attributes: Any) -> Tool:
    """Return an instance of a minimal, otherwise valid write tool with ``attributes``."""
    defaults: dict[str, Any] = {
        "name": "archive_todo",
        "capability_id": "todo.archive",
        "is_write": True,
        "risk": "low",
        "confirmation": "default",
        "description": {"zh-CN": "归档待办", "en": "Archive a todo"},
        "schema": closed_object({"todo_id": {"type": "string"}}),
        "prepared_schema": closed_object({"todo_id": {"type": "string"}}),
    }
    return type("ProbeTool", (Tool,), {**defaults, **attributes})()


# --- the article's three registration tests ---------------------------------------------


def test_write_tool_without_capability_is_refused_at_registration() -> None:
    probe = ToolRegistry()
    with pytest.raises(ImproperlyConfigured, match="write tool 'archive_todo' has no capability"):
        probe.register(_write_tool())
    assert probe.get("archive_todo") is None


def test_write_tool_with_mismatched_risk_is_refused() -> None:
    class RiskyCreateTodo(CreateTodoTool):
        risk = "high"  # the registry says low

    probe = ToolRegistry()
    with pytest.raises(ImproperlyConfigured, match="risk 'high' differs from the registry's 'low'"):
        probe.register(RiskyCreateTodo)
    assert probe.get("create_todo") is None


def test_write_tool_that_switches_confirmation_off_is_refused() -> None:
    class SilentCreateTodo(CreateTodoTool):
        confirmation = "none"

    probe = ToolRegistry()
    with pytest.raises(ImproperlyConfigured, match="may not switch confirmation off"):
        probe.register(SilentCreateTodo)
    assert probe.get("create_todo") is None


# --- more ways a tool can disagree with the table -----------------------------------------


def test_write_tool_whose_confirmation_policy_differs_is_refused() -> None:
    class LaxStatusTool(SetTodoStatusTool):
        confirmation = "default"  # the registry says always

    with pytest.raises(ImproperlyConfigured, match="confirmation 'default' differs"):
        ToolRegistry().register(LaxStatusTool)


@pytest.mark.parametrize(
    ("name", "capability_id", "status"),
    [
        ("delete_note", "note.delete", "planned"),
        ("remove_note", "", "planned"),
        ("delete_account", "account.delete", "forbidden"),
        ("close_account", "", "forbidden"),
    ],
)
def test_planned_or_forbidden_capability_with_a_tool_is_refused(
    name: str, capability_id: str, status: str
) -> None:
    tool = _write_tool(name=name, capability_id=capability_id, risk=None, confirmation="always")
    with pytest.raises(ImproperlyConfigured, match=f"is {status} and may not have a tool"):
        ToolRegistry().register(tool)


def test_tool_claiming_another_tools_capability_is_refused() -> None:
    tool = _write_tool(name="make_todo", capability_id="todo.create")
    with pytest.raises(ImproperlyConfigured, match=r"gives 'todo\.create' to tool 'create_todo'"):
        ToolRegistry().register(tool)


def test_read_tool_declared_as_write_is_refused() -> None:
    class WritingQuery(QueryTodosTool):
        is_write = True

    with pytest.raises(ImproperlyConfigured, match="read/write kind differs"):
        ToolRegistry().register(WritingQuery)


def test_tool_with_an_open_schema_is_refused() -> None:
    class OpenSchemaCreate(CreateTodoTool):
        schema: ClassVar[dict[str, Any]] = {
            "type": "object",
            "properties": {"title": {"type": "string"}},
        }

    with pytest.raises(ImproperlyConfigured, match="additionalProperties: false"):
        ToolRegistry().register(OpenSchemaCreate)


def test_tool_with_an_open_nested_prepared_object_is_refused() -> None:
    class OpenCurrent(DeleteTodoTool):
        prepared_schema: ClassVar[dict[str, Any]] = closed_object(
            {"todo_id": {"type": "string"}, "current": {"type": "object"}}
        )

    with pytest.raises(ImproperlyConfigured, match="every object in prepared_schema"):
        ToolRegistry().register(OpenCurrent)


def test_alias_to_an_unknown_property_is_refused() -> None:
    class BadAlias(CreateTodoTool):
        declared_aliases: ClassVar[dict[str, str]] = {"taskTitle": "headline"}

    with pytest.raises(ImproperlyConfigured, match="alias 'taskTitle' -> 'headline'"):
        ToolRegistry().register(BadAlias)


def test_tool_without_both_descriptions_is_refused() -> None:
    class EnglishOnly(CreateTodoTool):
        description: ClassVar[dict[str, str]] = {"en": "Create a todo"}

    with pytest.raises(ImproperlyConfigured, match="needs a description"):
        ToolRegistry().register(EnglishOnly)


def test_the_same_name_registered_by_two_classes_is_refused() -> None:
    class OtherCreate(CreateTodoTool):
        pass

    probe = ToolRegistry()
    probe.register(CreateTodoTool)
    with pytest.raises(ImproperlyConfigured, match="registered twice"):
        probe.register(OtherCreate)


# --- completeness -------------------------------------------------------------------------


def test_validate_complete_refuses_an_enabled_capability_without_its_tool() -> None:
    probe = ToolRegistry()
    for tool_class in ALL_TOOL_CLASSES:
        if tool_class is not UpdateNoteTool:
            probe.register(tool_class)
    with pytest.raises(ImproperlyConfigured, match=r"without a registered tool: note\.update$"):
        probe.validate_complete()
    probe.register(UpdateNoteTool)
    probe.validate_complete()


def test_app_refuses_to_start_when_an_enabled_capability_has_no_tool(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delitem(registry._tools, "delete_todo")
    with pytest.raises(ImproperlyConfigured, match=r"todo\.delete"):
        apps.get_app_config("agent").ready()


def test_the_started_registry_holds_exactly_the_api_tools() -> None:
    registry.validate_complete()
    assert {tool.name for tool in registry.tools()} == API_TOOL_NAMES
    enabled = {cap.tool for cap in CAPABILITIES if cap.status == "enabled"}
    assert enabled == API_TOOL_NAMES | INTERNAL_TOOL_NAMES
    internal = {cap.tool for cap in CAPABILITIES if cap.internal}
    assert internal == INTERNAL_TOOL_NAMES
    assert {tool.name for tool in registry.all_tools()} == API_TOOL_NAMES | INTERNAL_TOOL_NAMES


@pytest.mark.parametrize("tool", registry.tools(), ids=lambda tool: tool.name)
def test_registered_tool_agrees_with_its_capability(tool: Tool) -> None:
    capability = capability_by_tool(tool.name)
    assert capability is not None
    assert capability.id == tool.capability_id
    assert capability.risk == tool.risk
    assert capability.confirmation == tool.confirmation
    assert tool.is_write == (capability.kind == "write")
    if tool.is_write:
        assert tool.confirmation in ("default", "always")


# --- the capability table -----------------------------------------------------------------


def test_capability_table_matches_the_api_contract() -> None:
    table = {
        cap.id: (cap.tool, cap.status, cap.kind, cap.risk, cap.confirmation) for cap in CAPABILITIES
    }
    assert table == {
        "todo.query": ("query_todos", "enabled", "read", None, "none"),
        "note.search": ("search_notes", "enabled", "read", None, "none"),
        "todo.create": ("create_todo", "enabled", "write", "low", "default"),
        "todo.status.set": ("set_todo_status", "enabled", "write", "low", "always"),
        "todo.update": ("update_todo", "enabled", "write", "medium", "always"),
        "todo.delete": ("delete_todo", "enabled", "write", "high", "always"),
        "note.create": ("create_note", "enabled", "write", "low", "default"),
        "note.update": ("update_note", "enabled", "write", "medium", "always"),
        "todo.restore": ("restore_todo", "enabled", "write", "low", "always"),
        "note.discard": ("discard_note", "enabled", "write", "medium", "always"),
        "note.delete": (None, "planned", None, None, None),
        "account.delete": (None, "forbidden", None, None, None),
    }


@pytest.mark.parametrize("capability_id", ["note.delete", "account.delete"])
def test_planned_and_forbidden_capabilities_carry_guidance_in_both_languages(
    capability_id: str,
) -> None:
    capability = capability_by_id(capability_id)
    assert capability is not None
    assert capability.guidance is not None
    assert set(capability.guidance) == {"zh-CN", "en"}
    assert all(text.strip() for text in capability.guidance.values())


@pytest.mark.parametrize(
    ("tool_name", "expected"),
    [
        ("delete_note", "note.delete"),
        ("deleteNote", "note.delete"),
        ("Delete-Note", "note.delete"),
        ("note.delete", "note.delete"),
        ("remove_note", "note.delete"),
        ("delete_account", "account.delete"),
        ("deleteAccount", "account.delete"),
        ("close_account", "account.delete"),
        ("account.delete", "account.delete"),
        ("create_todo", None),  # enabled: it has a real tool, no guidance
        ("launch_rocket", None),
        ("", None),
    ],
)
def test_unknown_tool_names_map_to_planned_or_forbidden_capabilities(
    tool_name: str, expected: str | None
) -> None:
    capability = capability_for_unknown_tool(tool_name)
    assert (capability.id if capability else None) == expected


# --- what the model is offered ------------------------------------------------------------


def test_openai_function_names_are_exactly_the_tool_names() -> None:
    specs = registry.openai_tools(include_writes=True)
    assert [spec["function"]["name"] for spec in specs] == [tool.name for tool in registry.tools()]
    assert {spec["function"]["name"] for spec in specs} == API_TOOL_NAMES
    assert all(spec["type"] == "function" for spec in specs)
    reads = registry.openai_tools(include_writes=False)
    assert {spec["function"]["name"] for spec in reads} == {"query_todos", "search_notes"}


@pytest.mark.parametrize("tool", registry.tools(), ids=lambda tool: tool.name)
def test_every_schema_is_closed(tool: Tool) -> None:
    spec = tool.openai_spec()
    assert spec["function"]["parameters"]["additionalProperties"] is False
    assert spec["function"]["parameters"]["type"] == "object"
    assert spec["function"]["description"]
    assert tool.schema["additionalProperties"] is False
    if tool.is_write:
        assert tool.prepared_schema["additionalProperties"] is False


def test_docs_list_every_tool_with_its_aliases_risk_and_confirmation() -> None:
    doc = (Path(__file__).resolve().parents[1] / "docs" / "agent-tools.md").read_text("utf-8")
    for tool in registry.all_tools():  # the internal (compensation-only) ones too
        assert f"### `{tool.name}`" in doc
        section = doc.split(f"### `{tool.name}`", 1)[1].split("\n### ", 1)[0]
        assert f"risk **{tool.risk or '—'}**" in section
        assert f"confirmation **`{tool.confirmation}`**" in section
        for alias in tool.aliases:
            assert f"`{alias}`" in section, f"{tool.name}: alias {alias} is not documented"
