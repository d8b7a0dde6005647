"""The todo read tool: ``query_todos``, over ``todos.selectors`` (no card, no confirmation).

A read pages by keyset (``cursor``: the ``next`` of the page before) and names the todo page
showing the same list (``link``). A time window (``within``) is the user's day or ISO week in
their zone: :data:`WINDOWS`.
"""

from __future__ import annotations

from typing import Any, ClassVar
from urllib.parse import urlencode

from django.urls import reverse

from agent.tools.adapters import listing, page_data
from agent.tools.base import DROP, ReadResult, Tool, ToolContext
from agent.tools.formatting import parse_aware, text
from agent.tools.schema import KEYWORD_ALIASES, LIMIT_ALIASES, closed_object, digits_to_int
from agent.tools.tool_registry import registry
from todos import list_views
from todos import selectors as todo_selectors
from todos.agent_tools.cards import prepare_due_at, priority_label, status_label, todo_data
from todos.agent_tools.schemas import (
    DUE_AT_SCHEMA,
    PRIORITY_SCHEMA,
    QUERY_LIMIT_DEFAULT,
    QUERY_LIMIT_MAX,
    STATUS_SCHEMA,
    normalize_flag,
    normalize_priority,
    normalize_status,
    optional_text,
)

# A window said ("due tomorrow", 这周): the todo list's (``todos.list_views.WINDOWS``).
WINDOWS = list_views.WINDOWS
# The todo page's view showing the same todos as a read's status or "overdue".
_PAGE_VIEWS = (("overdue", True, "overdue"), ("status", "done", "done"))


def page_link(args: dict[str, Any]) -> str:
    """The todo page (``/todos/``) showing the read's list: its ``view``, ``q``, ``within``
    and ``priority``. (A day said as a bound — ``due_before`` — has no page filter.)"""
    view = next(
        (shown for key, value, shown in _PAGE_VIEWS if args.get(key) == value),
        "open" if args.get("status") == "open" else "all",
    )
    query: dict[str, Any] = {"view": view}
    if args.get("keyword"):
        query["q"] = args["keyword"]
    if args.get("within"):
        query["within"] = args["within"]
    if args.get("priority") is not None:
        query["priority"] = args["priority"]
    return f"{reverse('todo-page')}?{urlencode(query)}"


@registry.register
class QueryTodosTool(Tool):
    name = "query_todos"
    capability_id = "todo.query"
    description: ClassVar[dict[str, str]] = {
        "zh-CN": "查询用户的待办，可按状态、关键词、优先级、截止时间（不晚于某时）过滤，"
        "或只列逾期未完成的。只读。",
        "en": "List the user's todos, optionally by status, keyword, priority or due at or "
        "before a time, or only the overdue open ones. Read-only.",
    }
    schema: ClassVar[dict[str, Any]] = closed_object(
        {
            "status": STATUS_SCHEMA,
            "keyword": {"type": "string", "maxLength": 200},
            "due_before": DUE_AT_SCHEMA,
            "priority": PRIORITY_SCHEMA,
            "overdue": {
                "type": "boolean",
                "description": "Only open todos whose due time has passed.",
            },
            "within": {
                "type": "string",
                "enum": list(WINDOWS),
                "description": "Only todos due within this day or ISO week (Monday to Sunday) "
                "in the user's zone.",
            },
            "limit": {"type": "integer", "minimum": 1, "maximum": QUERY_LIMIT_MAX},
            "cursor": {
                "type": "string",
                "maxLength": 500,
                "description": "The `next` of the previous page of the same query.",
            },
        }
    )
    declared_aliases: ClassVar[dict[str, str]] = {
        "state": "status",
        **KEYWORD_ALIASES,
        "text": "keyword",
        "before": "due_before",
        "deadlineBefore": "due_before",
        "deadline_before": "due_before",
        "importance": "priority",
        "late": "overdue",
        "window": "within",
        "due_within": "within",
        "pastDue": "overdue",
        "past_due": "overdue",
        **LIMIT_ALIASES,
    }

    def normalize_value(self, name: str, value: Any) -> Any:
        if name == "status":
            if isinstance(value, str) and value.strip().lower() in ("", "all", "any", "全部"):
                return DROP  # "all" is no filter
            return normalize_status(value)
        if name in ("keyword", "due_before", "cursor"):
            return optional_text(value)
        if name == "within" and isinstance(value, str):
            return "_".join(value.strip().lower().split()) or DROP
        if name == "limit":
            return digits_to_int(value)
        if name == "priority":
            return normalize_priority(value)
        if name == "overdue":
            return normalize_flag(value)
        return value

    def run(self, args: dict[str, Any], context: ToolContext) -> ReadResult:
        # "due before Dec 1" said on Dec 2 is this year's Dec 1: the nearest, not the next
        due_before = prepare_due_at(args.get("due_before"), context, nearest=True)
        window = args.get("within")
        todos = todo_selectors.todo_list(
            owner=context.subject,
            status=args.get("status"),
            keyword=args.get("keyword"),
            due_before=parse_aware(due_before) if due_before else None,
            due_within=(
                WINDOWS[window](list_views.bounds_for(context.zone, context.now))
                if window
                else None
            ),
            priority=args.get("priority"),
            overdue_at=context.now if args.get("overdue") else None,
        )
        data = page_data(
            todos,
            args.get("limit", QUERY_LIMIT_DEFAULT),
            key="todos",
            describe=lambda todo: todo_data(todo, context),
            cursor=args.get("cursor"),
        )
        data["link"] = page_link(args)
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
            data,
            key="todos",
            empty_code="TODO_RESULT_QUERY_EMPTY",
            head_code="TODO_RESULT_QUERY",
            line=line,
            locale=locale,
        )
