"""The todo read tool: ``query_todos``, over ``todos.selectors`` (no card, no confirmation)."""

from __future__ import annotations

from typing import Any, ClassVar

from agent.tools.adapters import listing, page_data
from agent.tools.base import DROP, ReadResult, Tool, ToolContext
from agent.tools.formatting import parse_aware, text
from agent.tools.schema import KEYWORD_ALIASES, LIMIT_ALIASES, closed_object, digits_to_int
from agent.tools.tool_registry import registry
from todos import selectors as todo_selectors
from todos.agent_tools.cards import prepare_due_at, priority_label, status_label, todo_data
from todos.agent_tools.schemas import (
    DUE_AT_SCHEMA,
    QUERY_LIMIT_DEFAULT,
    QUERY_LIMIT_MAX,
    STATUS_SCHEMA,
    normalize_status,
    optional_text,
)


@registry.register
class QueryTodosTool(Tool):
    name = "query_todos"
    capability_id = "todo.query"
    description: ClassVar[dict[str, str]] = {
        "zh-CN": "查询用户的待办，可按状态、关键词、截止时间之前过滤。只读。",
        "en": "List the user's todos, optionally by status, keyword or due before a time. "
        "Read-only.",
    }
    schema: ClassVar[dict[str, Any]] = closed_object(
        {
            "status": STATUS_SCHEMA,
            "keyword": {"type": "string", "maxLength": 200},
            "due_before": DUE_AT_SCHEMA,
            "limit": {"type": "integer", "minimum": 1, "maximum": QUERY_LIMIT_MAX},
        }
    )
    declared_aliases: ClassVar[dict[str, str]] = {
        "state": "status",
        **KEYWORD_ALIASES,
        "text": "keyword",
        "before": "due_before",
        "deadlineBefore": "due_before",
        "deadline_before": "due_before",
        **LIMIT_ALIASES,
    }

    def normalize_value(self, name: str, value: Any) -> Any:
        if name == "status":
            if isinstance(value, str) and value.strip().lower() in ("", "all", "any", "全部"):
                return DROP  # "all" is no filter
            return normalize_status(value)
        if name in ("keyword", "due_before"):
            return optional_text(value)
        if name == "limit":
            return digits_to_int(value)
        return value

    def run(self, args: dict[str, Any], context: ToolContext) -> ReadResult:
        due_before = prepare_due_at(args.get("due_before"), context)
        todos = todo_selectors.todo_list(
            owner=context.subject,
            status=args.get("status"),
            keyword=args.get("keyword"),
            due_before=parse_aware(due_before) if due_before else None,
        )
        data = page_data(
            todos,
            args.get("limit", QUERY_LIMIT_DEFAULT),
            key="todos",
            describe=lambda todo: todo_data(todo, context),
        )
        return self.read_result(data, context)

    def summarize(self, data: dict[str, Any], locale: str) -> str:
        def line(item: dict[str, Any]) -> str:
            due = item["due_at"][:16].replace("T", " ") if item["due_at"] else None
            return text(
                "TODO_RESULT_QUERY_LINE",
                locale,
                title=item["title"],
                status=status_label(item["status"], locale),
                priority=priority_label(item["priority"], locale),
                due_at=due or text("TOOL_VALUE_NOT_SET", locale),
            )

        return listing(
            data["todos"],
            count=data["count"],
            empty_code="TODO_RESULT_QUERY_EMPTY",
            head_code="TODO_RESULT_QUERY",
            line=line,
            locale=locale,
        )
