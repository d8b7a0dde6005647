"""What a model may send to the todo tools: aliases, argument schemas, value normalisation."""

from __future__ import annotations

from typing import Any

from agent.tools.base import DROP
from agent.tools.schema import AWARE_ISO_PATTERN, closed_object
from agent.vocabulary import (
    PRIORITY_HIGH,
    PRIORITY_LOW,
    PRIORITY_LOWER,
    PRIORITY_NORMAL,
    PRIORITY_RAISE,
    PRIORITY_STEP_WORDS,
    PRIORITY_WORDS,
    STATUS_WORDS,
)
from todos.models import PRIORITIES, PRIORITY_HELP, RECURRENCE_MAX, Todo

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

ID_ALIASES = {"id": "todo_id", "taskId": "todo_id", "task_id": "todo_id"}
TITLE_REF_ALIASES = {
    "todoTitle": "todo_title",
    "taskTitle": "todo_title",
    "task_title": "todo_title",
    "task": "todo_title",
    "todo": "todo_title",
}
PRIORITY_ALIASES = {
    "importance": "priority",
    "prio": "priority",
    "level": "priority",
    "urgency": "priority",
    "priorityLevel": "priority",
    "priority_level": "priority",
}
DUE_ALIASES = {
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
DESCRIPTION_ALIASES = {
    "desc": "description",
    "details": "description",
    "detail": "description",
    "notes": "description",
    "note": "description",
    "content": "description",
    "body": "description",
}
STATUS_ALIASES = {"state": "status", "todoStatus": "status", "completed": "status"}
REMIND_ALIASES = {
    "remindAt": "remind_at",
    "reminder": "remind_at",
    "reminder_at": "remind_at",
    "reminderAt": "remind_at",
    "remind": "remind_at",
    "remind_time": "remind_at",
    "alarm": "remind_at",
}
RECURRENCE_ALIASES = {
    "rrule": "recurrence",
    "repeat": "recurrence",
    "repeats": "recurrence",
    "recurrence_rule": "recurrence",
    "recurrenceRule": "recurrence",
    "recurring": "recurrence",
}

TODO_ID_SCHEMA = {
    "type": "string",
    "maxLength": 64,
    "description": "The todo's id (UUID). Give this or todo_title.",
}
TODO_TITLE_REF_SCHEMA = {
    "type": "string",
    "minLength": 1,
    "maxLength": 400,
    "description": "The exact title of one of the user's todos, instead of todo_id.",
}
PRIORITY_SCHEMA = {
    "type": "integer",
    "enum": PRIORITIES,
    "description": PRIORITY_HELP + ".",
}
# An edit may also move the priority one step ("raise" / "lower") from its present level.
PRIORITY_STEPS = {PRIORITY_RAISE: 1, PRIORITY_LOWER: -1}
PRIORITY_CHANGE_SCHEMA = {
    "anyOf": [
        PRIORITY_SCHEMA,
        {
            "type": "string",
            "enum": list(PRIORITY_STEPS),
            "description": "One step up or down from the todo's present priority.",
        },
    ]
}
DUE_AT_SCHEMA = {
    "type": "string",
    "maxLength": 100,
    "description": (
        "The due time as the user said it ('今晚 9 点', 'tomorrow 5pm') or ISO 8601; the "
        "server turns it into a concrete time in the user's zone."
    ),
}
STATUS_SCHEMA = {"type": "string", "enum": STATUSES}
REMIND_AT_SCHEMA = {
    "type": "string",
    "maxLength": 100,
    "description": (
        "When to remind the user, as they said it ('明天上午 9:50', 'tomorrow 9:50am') or ISO "
        "8601; the server turns it into a concrete time in the user's zone."
    ),
}
RECURRENCE_SCHEMA = {
    "type": "string",
    "maxLength": RECURRENCE_MAX,
    "description": (
        "How the todo repeats, as an RFC 5545 RRULE: FREQ=DAILY|WEEKLY|MONTHLY|YEARLY with "
        "INTERVAL (<= 365), BYDAY (MO..SU, 1MO, -1FR), BYMONTHDAY (1..31, -1 last), "
        "BYSETPOS=-1, COUNT or UNTIL; e.g. FREQ=WEEKLY;BYDAY=MO. Needs a due_at (the first "
        "occurrence)."
    ),
}
PREPARED_DUE_AT = {"type": ["string", "null"], "pattern": AWARE_ISO_PATTERN}
PREPARED_RECURRENCE = {"type": ["string", "null"], "minLength": 1, "maxLength": RECURRENCE_MAX}
# The due time as the user wrote it, kept only when it was not a plain ISO time, so the card
# can show how it was read ("下周一 → 2026-12-07 (周一) 23:59").
PREPARED_DUE_AT_SAID = {"type": "string", "minLength": 1, "maxLength": 100}
CURRENT_TODO = closed_object(
    {
        "title": {"type": "string"},
        "description": {"type": "string"},
        "priority": {"type": "integer", "enum": PRIORITIES},
        "due_at": PREPARED_DUE_AT,
        "status": STATUS_SCHEMA,
        "remind_at": PREPARED_DUE_AT,
        "recurrence": PREPARED_RECURRENCE,
    },
    required=("title", "description", "priority", "due_at", "status"),
)
CHANGE_FIELDS = ("title", "description", "priority", "due_at", "remind_at", "recurrence")


# --- value normalisation -----------------------------------------------------------------


def normalize_flag(value: Any) -> Any:
    """Map "true" / "yes" / "1" / 是 and their opposites to a boolean; else the schema judges."""
    if isinstance(value, str):
        word = value.strip().lower()
        if word in ("true", "yes", "1", "是", "对"):
            return True
        if word in ("false", "no", "0", "否", "不"):
            return False
        if not word:
            return DROP
    return value


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
        if name:
            return PRIORITY_LEVELS[name]
        return PRIORITY_STEP_WORDS.get(" ".join(word.split()), value)
    return value


def normalize_status(value: Any) -> Any:
    """Map status words (完成 / done / reopen ...) and booleans to ``open`` / ``done``."""
    if isinstance(value, bool):
        return "done" if value else "open"
    if isinstance(value, str):
        return STATUS_WORDS.get(" ".join(value.strip().lower().split()), value)
    return value


def optional_text(value: Any) -> Any:
    """Trim a string; an empty optional string means "not given"."""
    if isinstance(value, str):
        value = value.strip()
        return value or DROP
    return value
