"""The agent's todo tools: thin adapters over ``todos.services`` and ``todos.selectors``.

Discovered by ``AgentConfig.ready`` (``autodiscover_modules("agent_tools")``). Every rule a
page also needs (title, description, priority limits; ownership; versions) lives in the
services; these tools only translate between a model's proposal, the card and the service.
"""

from __future__ import annotations

from typing import Any, ClassVar

from agent.timeparse import TimeParseError, read_time
from agent.tools import (
    AWARE_ISO_PATTERN,
    DROP,
    KEYWORD_ALIASES,
    LIMIT_ALIASES,
    UUID_PATTERN,
    Compensation,
    ExecutionResult,
    ReadResult,
    Tool,
    ToolContext,
    WriteTool,
    change_detail,
    closed_object,
    detail,
    digits_to_int,
    exactly_one_of,
    excerpt,
    first_page,
    format_local_time,
    parse_aware,
    registry,
    resolve_by_id_or_title,
    strip_text,
    text,
    update_preview,
)
from agent.vocabulary import (
    PRIORITY_HIGH,
    PRIORITY_LOW,
    PRIORITY_NORMAL,
    PRIORITY_WORDS,
    STATUS_WORDS,
)
from lightnote.errors import LightNoteError
from lightnote.i18n import define_messages
from lightnote.times import rfc3339
from todos import selectors as todo_selectors
from todos import services as todo_services
from todos.models import PRIORITIES, PRIORITY_HELP, Todo

define_messages(
    {
        "TODO_TITLE_AMBIGUOUS": (
            "有 {count} 条待办的标题都是“{title}”，请说明是哪一条。",
            "{count} todos are titled “{title}”; say which one.",
        ),
        "TODO_STATUS_NOOP": (
            "待办「{title}」已经是这个状态，无需更改。",
            "The todo “{title}” already has that status; nothing to change.",
        ),
        "TODO_UPDATE_NOOP": (
            "没有需要修改的内容：未给出新值，或新值与当前值相同。",
            "Nothing to change: no new value was given, or it equals the current one.",
        ),
        "TODO_LABEL_TITLE": ("标题", "Title"),
        "TODO_LABEL_DESCRIPTION": ("描述", "Description"),
        "TODO_LABEL_PRIORITY": ("优先级", "Priority"),
        "TODO_LABEL_DUE_AT": ("截止时间", "Due"),
        "TODO_LABEL_DUE_AT_READING": ("截止时间的理解", "Due time read as"),
        "TODO_DUE_AT_READING": (
            "{said} → {date} ({weekday}) {time}",
            "{said} → {date} ({weekday}) {time}",
        ),
        "TODO_WEEKDAY_0": ("周一", "Mon"),
        "TODO_WEEKDAY_1": ("周二", "Tue"),
        "TODO_WEEKDAY_2": ("周三", "Wed"),
        "TODO_WEEKDAY_3": ("周四", "Thu"),
        "TODO_WEEKDAY_4": ("周五", "Fri"),
        "TODO_WEEKDAY_5": ("周六", "Sat"),
        "TODO_WEEKDAY_6": ("周日", "Sun"),
        "TODO_LABEL_STATUS": ("状态", "Status"),
        "TODO_LABEL_OVERDUE": ("逾期", "Overdue"),
        "TODO_VALUE_OVERDUE": ("截止时间已过", "The due time has passed"),
        "TODO_PRIORITY_LABEL_0": ("低", "low"),
        "TODO_PRIORITY_LABEL_1": ("普通", "normal"),
        "TODO_PRIORITY_LABEL_2": ("高", "high"),
        "TODO_STATUS_LABEL_OPEN": ("未完成", "open"),
        "TODO_STATUS_LABEL_DONE": ("已完成", "done"),
        "TODO_PREVIEW_CREATE_TITLE": ("创建待办", "Create todo"),
        "TODO_PREVIEW_CREATE_IMPACT_DUE": (
            "确认后将创建一条截止于 {due_at} 的待办。",
            "After you confirm, a todo due {due_at} will be created.",
        ),
        "TODO_PREVIEW_CREATE_IMPACT_NO_DUE": (
            "确认后将创建一条没有截止时间的待办。",
            "After you confirm, a todo with no due time will be created.",
        ),
        "TODO_PREVIEW_OVERDUE_NOTE": (
            "注意：该截止时间已过，待办会显示为逾期。",
            "Note: this due time has passed; the todo will show as overdue.",
        ),
        "TODO_PREVIEW_STATUS_TITLE_DONE": ("将待办标记为已完成", "Mark todo as done"),
        "TODO_PREVIEW_STATUS_TITLE_OPEN": ("将待办重新打开", "Reopen todo"),
        "TODO_PREVIEW_STATUS_IMPACT": (
            "确认后将把待办「{title}」从“{current}”改为“{new}”。",
            "After you confirm, the todo “{title}” will change from {current} to {new}.",
        ),
        "TODO_PREVIEW_UPDATE_TITLE": ("修改待办", "Update todo"),
        "TODO_PREVIEW_UPDATE_IMPACT": (
            "确认后将修改待办「{title}」的 {count} 项内容：{fields}。",
            "After you confirm, {count} {count:field|fields} of the todo “{title}” "
            "will change: {fields}.",
        ),
        "TODO_PREVIEW_DELETE_TITLE": ("删除待办", "Delete todo"),
        "TODO_PREVIEW_DELETE_IMPACT": (
            "确认后将把待办「{title}」移入回收站（之后可撤销或从回收站恢复）。",
            "After you confirm, the todo “{title}” moves to the trash (you can undo it, "
            "or restore it from the trash).",
        ),
        "TODO_PREVIEW_RESTORE_TITLE": ("恢复待办", "Restore todo"),
        "TODO_PREVIEW_RESTORE_IMPACT": (
            "确认后将把待办「{title}」从回收站恢复。",
            "After you confirm, the todo “{title}” comes back from the trash.",
        ),
        "TODO_RESULT_RESTORED": ("已恢复待办「{title}」。", "Restored the todo “{title}”."),
        "REPLY_TODO_RESTORED": ("已恢复待办「{title}」。", 'Restored the todo "{title}".'),
        "TODO_RESULT_CREATED": ("已创建待办「{title}」。", "Created the todo “{title}”."),
        "TODO_RESULT_STATUS": (
            "待办「{title}」已标记为{status}。",
            "The todo “{title}” is now {status}.",
        ),
        "TODO_RESULT_UPDATED": ("已更新待办「{title}」。", "Updated the todo “{title}”."),
        "TODO_RESULT_DELETED": ("已删除待办「{title}」。", "Deleted the todo “{title}”."),
        "TODO_RESULT_QUERY": ("找到 {count} 条待办：", "Found {count} {count:todo|todos}:"),
        "REPLY_TODO_CREATED": ("已为你创建待办「{title}」。", 'Created the todo "{title}".'),
        "REPLY_TODO_CREATED_DUE": (
            "已为你创建待办「{title}」，截止 {due}。",
            'Created the todo "{title}", due {due}.',
        ),
        "REPLY_TODO_DONE": (
            "已将待办「{title}」标记为完成。",
            'Marked the todo "{title}" as done.',
        ),
        "REPLY_TODO_REOPENED": (
            "已将待办「{title}」标记为未完成。",
            'Marked the todo "{title}" as open again.',
        ),
        "REPLY_TODO_UPDATED": ("已更新待办「{title}」。", 'Updated the todo "{title}".'),
        "REPLY_TODO_UPDATED_DUE": (
            "已更新待办「{title}」，截止 {due}。",
            'Updated the todo "{title}"; it is now due {due}.',
        ),
        "REPLY_TODO_DELETED": ("已删除待办「{title}」。", 'Deleted the todo "{title}".'),
        "TODO_RESULT_QUERY_EMPTY": ("没有找到符合条件的待办。", "No todo matches."),
        "TODO_RESULT_QUERY_LINE": (
            "- {title}（{status}，优先级{priority}，截止 {due_at}）",
            "- {title} ({status}, {priority} priority, due {due_at})",
        ),
    }
)

STATUSES = [Todo.Status.OPEN.value, Todo.Status.DONE.value]
QUERY_LIMIT_DEFAULT = 10
QUERY_LIMIT_MAX = 50

# A priority word's canonical name -> the stored level (the words live in agent.vocabulary,
# shared with the offline planner's grammar).
PRIORITY_LEVELS: dict[str, int] = {
    PRIORITY_LOW: Todo.Priority.LOW.value,
    PRIORITY_NORMAL: Todo.Priority.NORMAL.value,
    PRIORITY_HIGH: Todo.Priority.HIGH.value,
}

_ID_ALIASES = {"id": "todo_id", "taskId": "todo_id", "task_id": "todo_id"}
_TITLE_REF_ALIASES = {
    "todoTitle": "todo_title",
    "taskTitle": "todo_title",
    "task_title": "todo_title",
    "task": "todo_title",
    "todo": "todo_title",
}
_PRIORITY_ALIASES = {
    "importance": "priority",
    "prio": "priority",
    "level": "priority",
    "urgency": "priority",
    "priorityLevel": "priority",
    "priority_level": "priority",
}
_DUE_ALIASES = {
    "deadline": "due_at",
    "due": "due_at",
    "dueDate": "due_at",
    "due_date": "due_at",
    "dueTime": "due_at",
    "due_time": "due_at",
    "deadlineAt": "due_at",
    "deadline_at": "due_at",
    "when": "due_at",
}
_DESCRIPTION_ALIASES = {
    "desc": "description",
    "details": "description",
    "detail": "description",
    "notes": "description",
    "note": "description",
    "content": "description",
    "body": "description",
}
_STATUS_ALIASES = {"state": "status", "todoStatus": "status", "completed": "status"}

_TODO_ID_SCHEMA = {
    "type": "string",
    "maxLength": 64,
    "description": "The todo's id (UUID). Give this or todo_title.",
}
_TODO_TITLE_REF_SCHEMA = {
    "type": "string",
    "minLength": 1,
    "maxLength": 400,
    "description": "The exact title of one of the user's todos, instead of todo_id.",
}
_PRIORITY_SCHEMA = {
    "type": "integer",
    "enum": PRIORITIES,
    "description": PRIORITY_HELP + ".",
}
_DUE_AT_SCHEMA = {
    "type": "string",
    "maxLength": 100,
    "description": (
        "The due time as the user said it ('今晚 9 点', 'tomorrow 5pm') or ISO 8601; the "
        "server turns it into a concrete time in the user's zone."
    ),
}
_STATUS_SCHEMA = {"type": "string", "enum": STATUSES}
_PREPARED_DUE_AT = {"type": ["string", "null"], "pattern": AWARE_ISO_PATTERN}
# The due time as the user wrote it, kept only when it was not a plain ISO time, so the card
# can show how it was read ("下周一 → 2026-12-07 (周一) 23:59").
_PREPARED_DUE_AT_SAID = {"type": "string", "minLength": 1, "maxLength": 100}
_CURRENT_TODO = closed_object(
    {
        "title": {"type": "string"},
        "description": {"type": "string"},
        "priority": {"type": "integer", "enum": PRIORITIES},
        "due_at": _PREPARED_DUE_AT,
        "status": _STATUS_SCHEMA,
    },
    required=("title", "description", "priority", "due_at", "status"),
)
_VERSION_SCHEMA = {"type": "integer", "minimum": 1}
_UUID_SCHEMA = {"type": "string", "pattern": UUID_PATTERN}
CHANGE_FIELDS = ("title", "description", "priority", "due_at")


# --- value normalisation -----------------------------------------------------------------


def normalize_priority(value: Any) -> Any:
    """Map priority words and numeric strings to 0/1/2; anything else is left to the schema."""
    if isinstance(value, bool):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str):
        word = value.strip().lower()
        if not word:
            return DROP
        if word.isdigit():
            return int(word)
        name = PRIORITY_WORDS.get(word)
        return PRIORITY_LEVELS[name] if name else value
    return value


def normalize_status(value: Any) -> Any:
    """Map status words (完成 / done / reopen ...) and booleans to ``open`` / ``done``."""
    if isinstance(value, bool):
        return "done" if value else "open"
    if isinstance(value, str):
        return STATUS_WORDS.get(" ".join(value.strip().lower().split()), value)
    return value


def _optional_text(value: Any) -> Any:
    """Trim a string; an empty optional string means "not given"."""
    if isinstance(value, str):
        value = value.strip()
        return value or DROP
    return value


# --- preparation helpers -----------------------------------------------------------------


def prepare_due_at(value: str | None, context: ToolContext) -> str | None:
    """Return a concrete ISO time with offset in the user's zone, or None for "no due time".

    Raises ``TODO_DUE_AT_INVALID`` (vague, unreadable, self-contradictory or ambiguous) or
    ``TODO_DUE_AT_SUSPICIOUS`` (over a year ago or over ten years ahead) before any card.
    """
    return prepare_due(value, context)[0]


def prepare_due(value: str | None, context: ToolContext) -> tuple[str | None, str | None]:
    """Return ``prepare_due_at``'s time and the text as said, when it was not plain ISO."""
    if value is None:
        return None, None
    try:
        reading = read_time(value, now=context.now, zone=context.zone)
    except TimeParseError as error:
        if error.reason == "suspicious":
            parsed = getattr(error, "value", None)
            shown = f"{parsed:%Y-%m-%d %H:%M}" if parsed is not None else value
            raise LightNoteError("TODO_DUE_AT_SUSPICIOUS", params={"due_at": shown}) from None
        raise LightNoteError("TODO_DUE_AT_INVALID") from None
    checked = todo_services.check_due_at(reading.value)  # the service's rule: aware only
    if checked is None:
        raise LightNoteError("TODO_DUE_AT_INVALID")
    said = None if reading.plain else " ".join(value.split())
    return checked.astimezone(context.zone).isoformat(), said


def due_reading_detail(said: str, due_at: str, context: ToolContext) -> dict[str, Any]:
    """Return the card row that shows how a natural-language due time was read."""
    moment = parse_aware(due_at).astimezone(context.zone)
    reading = text(
        "TODO_DUE_AT_READING",
        context.locale,
        said=said,
        date=f"{moment:%Y-%m-%d}",
        weekday=text(f"TODO_WEEKDAY_{moment.weekday()}", context.locale),
        time=f"{moment:%H:%M}",
    )
    return detail("due_at_reading", text("TODO_LABEL_DUE_AT_READING", context.locale), reading)


def _local_iso(todo: Todo, context: ToolContext) -> str | None:
    return rfc3339(todo.due_at, context.zone) if todo.due_at else None


def resolve_todo(args: dict[str, Any], context: ToolContext) -> Todo:
    """Return the subject's one todo named by ``todo_id`` or exact ``todo_title``.

    None -> 404 ``TODO_NOT_FOUND`` (also for another user's id); several -> 409
    ``TODO_TITLE_AMBIGUOUS`` with the candidates, so the user can say which one.
    """
    return resolve_by_id_or_title(
        args,
        kind="todo",
        get=lambda todo_id: todo_selectors.todo_get(owner=context.subject, todo_id=todo_id),
        find=lambda title: todo_selectors.todo_find_by_title(owner=context.subject, title=title),
        candidate=lambda todo: {
            "id": str(todo.id),
            "title": todo.title,
            "status": str(todo.status),
            "priority": int(todo.priority),
            "due_at": _local_iso(todo, context),
            "created_at": todo.created_at.astimezone(context.zone).isoformat(),
            "description": excerpt(todo.description, 80),
        },
    )


def todo_snapshot(todo: Todo, context: ToolContext) -> dict[str, Any]:
    """Return the todo's present values, for the card's "current" column."""
    return {
        "title": todo.title,
        "description": todo.description,
        "priority": int(todo.priority),
        "due_at": _local_iso(todo, context),
        "status": str(todo.status),  # a plain str, not the TextChoices member
    }


def todo_data(todo: Todo, context: ToolContext) -> dict[str, Any]:
    """Return a JSON-safe description of a todo (times in the user's zone)."""
    return {"id": str(todo.id), **todo_snapshot(todo, context), "version": todo.version}


# --- display helpers ---------------------------------------------------------------------


def priority_label(priority: int, locale: str) -> str:
    return text(f"TODO_PRIORITY_LABEL_{priority}", locale)


def status_label(status: str, locale: str) -> str:
    return text(f"TODO_STATUS_LABEL_{status.upper()}", locale)


def due_label(due_at: str | None, context: ToolContext) -> str:
    if not due_at:
        return text("TOOL_VALUE_NOT_SET", context.locale)
    return format_local_time(due_at, context.zone)


def is_overdue(due_at: str | None, context: ToolContext) -> bool:
    return due_at is not None and parse_aware(due_at) < context.now


def _same_value(field: str, new: Any, current: Any) -> bool:
    if field == "due_at" and new is not None and current is not None:
        return parse_aware(new) == parse_aware(current)  # the same instant, however written
    return new == current


def _field_value(field: str, value: Any, context: ToolContext) -> str:
    if field == "priority":
        return priority_label(value, context.locale)
    if field == "due_at":
        return due_label(value, context)
    if field == "status":
        return status_label(value, context.locale)
    return value if value else text("TOOL_VALUE_NONE", context.locale)


def _field_label(field: str, locale: str) -> str:
    return text(f"TODO_LABEL_{field.upper()}", locale)


def _current_details(current: dict[str, Any], context: ToolContext) -> list[dict[str, Any]]:
    details = [
        detail(field, _field_label(field, context.locale), _field_value(field, value, context))
        for field, value in current.items()
        if field != "description" or value
    ]
    if current["status"] == "open" and is_overdue(current["due_at"], context):
        details.append(overdue_detail(context))
    return details


def overdue_detail(context: ToolContext) -> dict[str, Any]:
    return detail(
        "overdue",
        text("TODO_LABEL_OVERDUE", context.locale),
        text("TODO_VALUE_OVERDUE", context.locale),
    )


# --- tools -------------------------------------------------------------------------------


class TodoWriteTool(WriteTool):
    resource_type = "todo"

    def normalize_value(self, name: str, value: Any) -> Any:
        if name == "priority":
            return normalize_priority(value)
        if name == "status":
            return normalize_status(value)
        if name in ("todo_id", "todo_title"):
            return strip_text(value)
        if name == "due_at":
            return _optional_text(value) if value is not None else None
        return value


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
            "status": _STATUS_SCHEMA,
            "keyword": {"type": "string", "maxLength": 200},
            "due_before": _DUE_AT_SCHEMA,
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
            return _optional_text(value)
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
        page, total = first_page(todos, args.get("limit", QUERY_LIMIT_DEFAULT))
        data = {"count": total, "todos": [todo_data(todo, context) for todo in page]}
        return self.read_result(data, context)

    def summarize(self, data: dict[str, Any], locale: str) -> str:
        if not data["todos"]:
            return text("TODO_RESULT_QUERY_EMPTY", locale)
        lines = [text("TODO_RESULT_QUERY", locale, count=data["count"])]
        for item in data["todos"]:
            due = item["due_at"][:16].replace("T", " ") if item["due_at"] else None
            lines.append(
                text(
                    "TODO_RESULT_QUERY_LINE",
                    locale,
                    title=item["title"],
                    status=status_label(item["status"], locale),
                    priority=priority_label(item["priority"], locale),
                    due_at=due or text("TOOL_VALUE_NOT_SET", locale),
                )
            )
        return "\n".join(lines)


@registry.register
class CreateTodoTool(TodoWriteTool):
    name = "create_todo"
    capability_id = "todo.create"
    description: ClassVar[dict[str, str]] = {
        "zh-CN": "为用户创建一条待办。需要用户确认卡片后才会执行。",
        "en": "Create a todo for the user. Runs only after the user confirms the card.",
    }
    schema: ClassVar[dict[str, Any]] = closed_object(
        {
            "title": {"type": "string", "description": "The todo's title."},
            "description": {"type": "string"},
            "priority": _PRIORITY_SCHEMA,
            "due_at": _DUE_AT_SCHEMA,
        },
        required=("title",),
    )
    prepared_schema: ClassVar[dict[str, Any]] = closed_object(
        {
            "title": {"type": "string", "minLength": 1},
            "description": {"type": "string"},
            "priority": {"type": "integer", "enum": PRIORITIES},
            "due_at": _PREPARED_DUE_AT,
            "due_at_said": _PREPARED_DUE_AT_SAID,
        },
        required=("title", "description", "priority", "due_at"),
    )
    declared_aliases: ClassVar[dict[str, str]] = {
        "taskTitle": "title",
        "task_title": "title",
        "todoTitle": "title",
        "todo_title": "title",
        "task": "title",
        "name": "title",
        **_DESCRIPTION_ALIASES,
        **_PRIORITY_ALIASES,
        **_DUE_ALIASES,
    }

    def prepare(self, args: dict[str, Any], context: ToolContext) -> dict[str, Any]:
        due_at, said = prepare_due(args.get("due_at"), context)
        prepared = {
            "title": todo_services.check_title(args.get("title")),
            "description": todo_services.check_description(args.get("description")),
            "priority": todo_services.check_priority(
                args.get("priority", Todo.Priority.NORMAL.value)
            ),
            "due_at": due_at,
        }
        if said is not None:
            prepared["due_at_said"] = said
        return prepared

    def preview(self, prepared: dict[str, Any], context: ToolContext) -> dict[str, Any]:
        locale = context.locale
        due_at = prepared["due_at"]
        overdue = is_overdue(due_at, context)
        if due_at:
            impact = text(
                "TODO_PREVIEW_CREATE_IMPACT_DUE", locale, due_at=due_label(due_at, context)
            )
        else:
            impact = text("TODO_PREVIEW_CREATE_IMPACT_NO_DUE", locale)
        if overdue:
            impact += text("TODO_PREVIEW_OVERDUE_NOTE", locale)
        details = [
            detail("title", _field_label("title", locale), prepared["title"]),
            detail("due_at", _field_label("due_at", locale), due_label(due_at, context)),
        ]
        if due_at and prepared.get("due_at_said"):
            details.append(due_reading_detail(prepared["due_at_said"], due_at, context))
        details += [
            detail(
                "priority",
                _field_label("priority", locale),
                priority_label(prepared["priority"], locale),
            ),
        ]
        if prepared["description"]:
            details.append(
                detail("description", _field_label("description", locale), prepared["description"])
            )
        if overdue:
            details.append(overdue_detail(context))
        return {
            "title": text("TODO_PREVIEW_CREATE_TITLE", locale),
            "target": prepared["title"],
            "impact": impact,
            "details": details,
        }

    def execute(self, prepared: dict[str, Any], context: ToolContext) -> ExecutionResult:
        todo = todo_services.todo_create(
            owner=context.subject,
            title=prepared["title"],
            description=prepared["description"],
            priority=prepared["priority"],
            due_at=parse_aware(prepared["due_at"]) if prepared["due_at"] else None,
        )
        return self.write_result(todo_data(todo, context), context)

    def reply_code(self, data: dict[str, Any]) -> str:
        return "REPLY_TODO_CREATED_DUE" if data.get("due_at") else "REPLY_TODO_CREATED"

    def summarize(self, data: dict[str, Any], locale: str) -> str:
        return text("TODO_RESULT_CREATED", locale, title=data["title"])

    def compensation(self, prepared: dict[str, Any], result: dict[str, Any]) -> Compensation:
        """Undo a create: delete (to the trash) the todo it made, as it was made."""
        return Compensation("delete_todo", {"todo_id": result["id"]}, result["version"])


@registry.register
class SetTodoStatusTool(TodoWriteTool):
    name = "set_todo_status"
    capability_id = "todo.status.set"
    description: ClassVar[dict[str, str]] = {
        "zh-CN": "把用户的一条待办标记为完成（done）或重新打开（open）。需要用户确认。",
        "en": "Mark one of the user's todos done, or reopen it. Runs only after confirmation.",
    }
    schema: ClassVar[dict[str, Any]] = closed_object(
        {
            "todo_id": _TODO_ID_SCHEMA,
            "todo_title": _TODO_TITLE_REF_SCHEMA,
            "status": _STATUS_SCHEMA,
        },
        required=("status",),
        **exactly_one_of("todo_id", "todo_title"),
    )
    prepared_schema: ClassVar[dict[str, Any]] = closed_object(
        {
            "todo_id": _UUID_SCHEMA,
            "status": _STATUS_SCHEMA,
            "expected_version": _VERSION_SCHEMA,
            "current": closed_object(
                {"title": {"type": "string"}, "status": _STATUS_SCHEMA},
                required=("title", "status"),
            ),
        },
        required=("todo_id", "status", "expected_version", "current"),
    )
    declared_aliases: ClassVar[dict[str, str]] = {
        **_ID_ALIASES,
        **_TITLE_REF_ALIASES,
        "title": "todo_title",
        "name": "todo_title",
        **_STATUS_ALIASES,
        "done": "status",
        "isDone": "status",
        "is_done": "status",
    }

    def prepare(self, args: dict[str, Any], context: ToolContext) -> dict[str, Any]:
        todo = resolve_todo(args, context)
        status = todo_services.check_status(args["status"])
        if todo.status == status:
            raise LightNoteError("TODO_STATUS_NOOP", status=409, params={"title": todo.title})
        return {
            "todo_id": str(todo.id),
            "status": status,
            "expected_version": todo.version,
            "current": {"title": todo.title, "status": str(todo.status)},
        }

    def preview(self, prepared: dict[str, Any], context: ToolContext) -> dict[str, Any]:
        locale = context.locale
        title = prepared["current"]["title"]
        current = status_label(prepared["current"]["status"], locale)
        new = status_label(prepared["status"], locale)
        return {
            "title": text(f"TODO_PREVIEW_STATUS_TITLE_{prepared['status'].upper()}", locale),
            "target": title,
            "impact": text(
                "TODO_PREVIEW_STATUS_IMPACT", locale, title=title, current=current, new=new
            ),
            "details": [
                detail("title", _field_label("title", locale), title),
                change_detail("status", _field_label("status", locale), current, new, locale),
            ],
        }

    def execute(self, prepared: dict[str, Any], context: ToolContext) -> ExecutionResult:
        todo = todo_services.todo_set_status(
            owner=context.subject,
            todo_id=prepared["todo_id"],
            status=prepared["status"],
            expected_version=prepared["expected_version"],
        )
        return self.write_result(todo_data(todo, context), context)

    def reply_code(self, data: dict[str, Any]) -> str:
        return "REPLY_TODO_REOPENED" if data.get("status") == "open" else "REPLY_TODO_DONE"

    def compensation(self, prepared: dict[str, Any], result: dict[str, Any]) -> Compensation:
        """Undo a status change: set the status it had before (reopen / mark done)."""
        return Compensation(
            "set_todo_status",
            {"todo_id": prepared["todo_id"], "status": prepared["current"]["status"]},
            result["version"],
        )

    def summarize(self, data: dict[str, Any], locale: str) -> str:
        return text(
            "TODO_RESULT_STATUS",
            locale,
            title=data["title"],
            status=status_label(data["status"], locale),
        )


@registry.register
class UpdateTodoTool(TodoWriteTool):
    name = "update_todo"
    capability_id = "todo.update"
    nullable = frozenset({"due_at"})  # an explicit null clears the due time
    description: ClassVar[dict[str, str]] = {
        "zh-CN": "修改用户一条待办的标题、描述、优先级或截止时间（due_at 为 null 表示清除）。"
        "需要用户确认。",
        "en": "Change a todo's title, description, priority or due time (due_at null clears "
        "it). Runs only after confirmation.",
    }
    schema: ClassVar[dict[str, Any]] = closed_object(
        {
            "todo_id": _TODO_ID_SCHEMA,
            "todo_title": _TODO_TITLE_REF_SCHEMA,
            "title": {"type": "string", "description": "The new title."},
            "description": {"type": "string"},
            "priority": _PRIORITY_SCHEMA,
            "due_at": {**_DUE_AT_SCHEMA, "type": ["string", "null"]},
        },
        **exactly_one_of("todo_id", "todo_title"),
    )
    prepared_schema: ClassVar[dict[str, Any]] = closed_object(
        {
            "todo_id": _UUID_SCHEMA,
            "expected_version": _VERSION_SCHEMA,
            "title": {"type": "string", "minLength": 1},
            "description": {"type": "string"},
            "priority": {"type": "integer", "enum": PRIORITIES},
            "due_at": _PREPARED_DUE_AT,
            "due_at_said": _PREPARED_DUE_AT_SAID,
            "current": _CURRENT_TODO,
        },
        required=("todo_id", "expected_version", "current"),
        anyOf=[{"required": [field]} for field in CHANGE_FIELDS],
    )
    declared_aliases: ClassVar[dict[str, str]] = {
        **_ID_ALIASES,
        **_TITLE_REF_ALIASES,
        "newTitle": "title",
        "new_title": "title",
        **_DESCRIPTION_ALIASES,
        "newDescription": "description",
        "new_description": "description",
        **_PRIORITY_ALIASES,
        "newPriority": "priority",
        "new_priority": "priority",
        **_DUE_ALIASES,
        "newDueAt": "due_at",
        "new_due_at": "due_at",
    }

    def prepare(self, args: dict[str, Any], context: ToolContext) -> dict[str, Any]:
        todo = resolve_todo(args, context)
        current = todo_snapshot(todo, context)
        wanted: dict[str, Any] = {}
        if "title" in args:
            wanted["title"] = todo_services.check_title(args["title"])
        if "description" in args:
            wanted["description"] = todo_services.check_description(args["description"])
        if "priority" in args:
            wanted["priority"] = todo_services.check_priority(args["priority"])
        said = None
        if "due_at" in args:
            wanted["due_at"], said = prepare_due(args["due_at"], context)
        changes = {
            field: value
            for field, value in wanted.items()
            if not _same_value(field, value, current[field])
        }
        if not changes:
            raise LightNoteError("TODO_UPDATE_NOOP")
        if said is not None and changes.get("due_at"):
            changes["due_at_said"] = said
        return {
            "todo_id": str(todo.id),
            "expected_version": todo.version,
            **changes,
            "current": current,
        }

    def preview(self, prepared: dict[str, Any], context: ToolContext) -> dict[str, Any]:
        locale = context.locale
        current = prepared["current"]
        fields = [field for field in CHANGE_FIELDS if field in prepared]
        details = [detail("title", _field_label("title", locale), current["title"])]
        for field in fields:
            old = _field_value(field, current[field], context)
            new = _field_value(field, prepared[field], context)
            details.append(change_detail(field, _field_label(field, locale), old, new, locale))
            if field == "due_at" and prepared["due_at"] and prepared.get("due_at_said"):
                details.append(
                    due_reading_detail(prepared["due_at_said"], prepared["due_at"], context)
                )
        if prepared.get("due_at") and is_overdue(prepared["due_at"], context):
            details.append(overdue_detail(context))
        return update_preview(
            title_code="TODO_PREVIEW_UPDATE_TITLE",
            impact_code="TODO_PREVIEW_UPDATE_IMPACT",
            target=current["title"],
            changed_labels=[_field_label(field, locale) for field in fields],
            details=details,
            locale=locale,
        )

    def execute(self, prepared: dict[str, Any], context: ToolContext) -> ExecutionResult:
        changes = {field: prepared[field] for field in CHANGE_FIELDS if field in prepared}
        if "due_at" in changes:
            changes["due_at"] = parse_aware(changes["due_at"]) if changes["due_at"] else None
        todo = todo_services.todo_update(
            owner=context.subject,
            todo_id=prepared["todo_id"],
            expected_version=prepared["expected_version"],
            **changes,
        )
        return self.write_result(todo_data(todo, context), context)

    def reply_code(self, data: dict[str, Any]) -> str:
        return "REPLY_TODO_UPDATED_DUE" if data.get("due_at") else "REPLY_TODO_UPDATED"

    def summarize(self, data: dict[str, Any], locale: str) -> str:
        return text("TODO_RESULT_UPDATED", locale, title=data["title"])

    def compensation(self, prepared: dict[str, Any], result: dict[str, Any]) -> Compensation:
        """Undo an update: put back the values it changed, as the card's snapshot shows them.

        The snapshot is exact: the update ran only at ``expected_version``, the version the
        snapshot was read at.
        """
        previous = {
            field: prepared["current"][field] for field in CHANGE_FIELDS if field in prepared
        }
        return Compensation(
            "update_todo", {"todo_id": prepared["todo_id"], **previous}, result["version"]
        )


@registry.register
class DeleteTodoTool(TodoWriteTool):
    name = "delete_todo"
    capability_id = "todo.delete"
    description: ClassVar[dict[str, str]] = {
        "zh-CN": "删除用户的一条待办（移入回收站）。需要用户确认。",
        "en": "Delete one of the user's todos (it moves to the trash). Runs only after "
        "confirmation.",
    }
    schema: ClassVar[dict[str, Any]] = closed_object(
        {"todo_id": _TODO_ID_SCHEMA, "todo_title": _TODO_TITLE_REF_SCHEMA},
        **exactly_one_of("todo_id", "todo_title"),
    )
    prepared_schema: ClassVar[dict[str, Any]] = closed_object(
        {"todo_id": _UUID_SCHEMA, "expected_version": _VERSION_SCHEMA, "current": _CURRENT_TODO},
        required=("todo_id", "expected_version", "current"),
    )
    declared_aliases: ClassVar[dict[str, str]] = {
        **_ID_ALIASES,
        **_TITLE_REF_ALIASES,
        "title": "todo_title",
        "name": "todo_title",
    }

    def prepare(self, args: dict[str, Any], context: ToolContext) -> dict[str, Any]:
        todo = resolve_todo(args, context)
        return {
            "todo_id": str(todo.id),
            "expected_version": todo.version,
            "current": todo_snapshot(todo, context),
        }

    def preview(self, prepared: dict[str, Any], context: ToolContext) -> dict[str, Any]:
        title = prepared["current"]["title"]
        return {
            "title": text("TODO_PREVIEW_DELETE_TITLE", context.locale),
            "target": title,
            "impact": text("TODO_PREVIEW_DELETE_IMPACT", context.locale, title=title),
            "details": _current_details(prepared["current"], context),
        }

    def execute(self, prepared: dict[str, Any], context: ToolContext) -> ExecutionResult:
        deleted_id = todo_services.todo_delete(
            owner=context.subject,
            todo_id=prepared["todo_id"],
            expected_version=prepared["expected_version"],
        )
        data = {"id": str(deleted_id), **prepared["current"], "deleted": True}
        return self.write_result(data, context)

    def reply_code(self, data: dict[str, Any]) -> str:
        return "REPLY_TODO_DELETED"

    def summarize(self, data: dict[str, Any], locale: str) -> str:
        return text("TODO_RESULT_DELETED", locale, title=data["title"])

    def compensation(self, prepared: dict[str, Any], result: dict[str, Any]) -> Compensation:
        """Undo a delete: restore the todo from the trash.

        The delete ran only at ``expected_version`` and bumped it once, so the trashed todo
        is at ``expected_version + 1`` unless it changed since (then the undo is refused).
        """
        return Compensation(
            "restore_todo", {"todo_id": prepared["todo_id"]}, prepared["expected_version"] + 1
        )


@registry.register
class RestoreTodoTool(TodoWriteTool):
    """Internal (compensation-only): take a todo an agent card deleted out of the trash."""

    name = "restore_todo"
    capability_id = "todo.restore"
    description: ClassVar[dict[str, str]] = {
        "zh-CN": "从回收站恢复一条待办（仅用于撤销删除）。需要用户确认。",
        "en": "Restore a todo from the trash (only as the undo of a delete). Runs only after "
        "confirmation.",
    }
    schema: ClassVar[dict[str, Any]] = closed_object(
        {"todo_id": _TODO_ID_SCHEMA}, required=("todo_id",)
    )
    prepared_schema: ClassVar[dict[str, Any]] = closed_object(
        {"todo_id": _UUID_SCHEMA, "expected_version": _VERSION_SCHEMA, "current": _CURRENT_TODO},
        required=("todo_id", "expected_version", "current"),
    )

    def prepare(self, args: dict[str, Any], context: ToolContext) -> dict[str, Any]:
        todo = todo_selectors.todo_trashed_get(owner=context.subject, todo_id=args["todo_id"])
        return {
            "todo_id": str(todo.id),
            "expected_version": todo.version,
            "current": todo_snapshot(todo, context),
        }

    def preview(self, prepared: dict[str, Any], context: ToolContext) -> dict[str, Any]:
        title = prepared["current"]["title"]
        return {
            "title": text("TODO_PREVIEW_RESTORE_TITLE", context.locale),
            "target": title,
            "impact": text("TODO_PREVIEW_RESTORE_IMPACT", context.locale, title=title),
            "details": _current_details(prepared["current"], context),
        }

    def execute(self, prepared: dict[str, Any], context: ToolContext) -> ExecutionResult:
        todo = todo_services.todo_restore(
            owner=context.subject,
            todo_id=prepared["todo_id"],
            expected_version=prepared["expected_version"],
        )
        return self.write_result(todo_data(todo, context), context)

    def reply_code(self, data: dict[str, Any]) -> str:
        return "REPLY_TODO_RESTORED"

    def summarize(self, data: dict[str, Any], locale: str) -> str:
        return text("TODO_RESULT_RESTORED", locale, title=data["title"])
