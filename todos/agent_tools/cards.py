"""What the todo tools read and show: due-time preparation, the todo a proposal names, its
snapshot and data, and the card's labels and rows (all in the subject's zone and language).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from agent.timeparse import END_OF_DAY, TimeParseError, read_time
from agent.tools.adapters import resolve_by_id_or_title
from agent.tools.base import ToolContext
from agent.tools.formatting import (
    detail,
    excerpt,
    format_local_time,
    joined,
    parse_aware,
    text,
)
from lightnote.errors import LightNoteError
from lightnote.times import rfc3339
from todos import selectors as todo_selectors
from todos import services as todo_services
from todos.models import Todo
from todos.recurrence import check_recurrence, occurrences, recurrence_text

# --- preparation helpers -----------------------------------------------------------------


def prepare_due_at(value: str | None, context: ToolContext, *, nearest: bool = False) -> str | None:
    """Return a concrete ISO time with offset in the user's zone, or None for "no due time".

    Raises ``TODO_DUE_AT_INVALID`` (vague, unreadable, self-contradictory or ambiguous) or
    ``TODO_DUE_AT_SUSPICIOUS`` (over a year ago or over ten years ahead) before any card.
    ``nearest``: a date without a year is the nearest one (a search's bound), not the next.
    """
    return prepare_due(value, context, nearest=nearest)[0]


def prepare_due(
    value: str | None, context: ToolContext, *, nearest: bool = False
) -> tuple[str | None, str | None]:
    """Return ``prepare_due_at``'s time and the text as said, when it was not plain ISO."""
    if value is None:
        return None, None
    try:
        reading = read_time(value, now=context.now, zone=context.zone, nearest=nearest)
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


def prepare_remind(value: str | None, context: ToolContext) -> str | None:
    """Return a reminder time read as a due time is, or None; refusals name the reminder."""
    try:
        return prepare_due(value, context)[0]
    except LightNoteError as error:
        if error.code == "TODO_DUE_AT_INVALID":
            raise LightNoteError("TODO_REMIND_AT_INVALID") from None
        raise


def prepare_recurrence(value: Any, due_at: str | None, context: ToolContext) -> str | None:
    """Return the canonical rule for a series starting at ``due_at``, or None for no rule.

    The service's own check (``todos.recurrence``): outside the subset is
    ``TODO_RECURRENCE_UNSUPPORTED``, with no due time ``TODO_RECURRENCE_NEEDS_DUE_AT``.
    """
    if value is None:
        return None
    start = parse_aware(due_at) if due_at else None
    return check_recurrence(value, start=start, zone=context.zone, now=context.now)


def series_start(value: Any, context: ToolContext, *, due_at: str | None) -> str | None:
    """The due time of a new series: its rule's first occurrence at or after ``due_at`` (每周一
    早上9点 said on a Wednesday: 09:00 next Monday), or, said with no time ("water the plants
    every other day", 每月最后一天交房租), from the end of today, as a date alone is due.
    ``due_at`` as it is when there is no rule.

    Rules outside the subset are refused as ``prepare_recurrence`` refuses them.
    """
    if value is None:
        return due_at
    if due_at is not None:
        base = parse_aware(due_at)
    else:
        today = context.now.astimezone(context.zone).date()
        base = datetime.combine(today, END_OF_DAY, tzinfo=context.zone)
    check_recurrence(value, start=base, zone=context.zone, now=context.now)
    first = occurrences(value, start=base, after=base, zone=context.zone, limit=1, inclusive=True)
    return first[0].astimezone(context.zone).isoformat() if first else due_at


def shifted(moment: str, before: str | None, after: str | None) -> str:
    """``moment`` moved as a due time moved from ``before`` to ``after`` (both ISO, or None:
    not moved)."""
    if not before or not after or before == after:
        return moment
    return (parse_aware(moment) + (parse_aware(after) - parse_aware(before))).isoformat()


def recurrence_details(
    recurrence: str | None, due_at: str | None, context: ToolContext
) -> list[dict[str, Any]]:
    """The card rows of a rule: the rule in words, then its next occurrences."""
    if not recurrence:
        return []
    locale = context.locale
    rows = [
        detail(
            "recurrence",
            field_label("recurrence", locale),
            recurrence_text(recurrence, locale=locale, zone=context.zone) or "",
        )
    ]
    if due_at:
        start = parse_aware(due_at)
        upcoming = occurrences(
            recurrence, start=start, after=start, zone=context.zone, inclusive=True
        )
        shown = [occurrence_label(moment, context) for moment in upcoming]
        rows.append(
            detail(
                "next_occurrences",
                text("TODO_LABEL_NEXT_OCCURRENCES", locale),
                joined(shown, locale),
                occurrences=[moment.astimezone(context.zone).isoformat() for moment in upcoming],
            )
        )
    return rows


def occurrence_label(moment: Any, context: ToolContext) -> str:
    """``2026-12-07 (周一) 09:00``: one occurrence on the user's wall clock."""
    local = moment.astimezone(context.zone)
    weekday = text(f"TODO_WEEKDAY_{local.weekday()}", context.locale)
    return f"{local:%Y-%m-%d} ({weekday}) {local:%H:%M}"


def due_reading_detail(said: str, due_at: str, context: ToolContext) -> dict[str, Any]:
    """Return the card row that shows how a natural-language due time was read.

    The words were read in the zone the user had then: the prepared time keeps that zone's
    offset, so the reading shows the words, that zone and the time there — still true after
    the user moves to another zone ("下周一上午10点 (Asia/Shanghai) → …").
    """
    moment = parse_aware(due_at)
    current = moment.astimezone(context.zone)
    read_in = (
        context.zone.key
        if current.utcoffset() == moment.utcoffset()
        else f"UTC{moment:%z}"[:-2] + ":" + f"{moment:%z}"[-2:]
    )
    reading = text(
        "TODO_DUE_AT_READING",
        context.locale,
        said=said,
        zone=read_in,
        date=f"{moment:%Y-%m-%d}",
        weekday=text(f"TODO_WEEKDAY_{moment.weekday()}", context.locale),
        time=f"{moment:%H:%M}",
    )
    return detail("due_at_reading", text("TODO_LABEL_DUE_AT_READING", context.locale), reading)


def local_iso(todo: Todo, context: ToolContext) -> str | None:
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
            "due_at": local_iso(todo, context),
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
        "due_at": local_iso(todo, context),
        "status": str(todo.status),  # a plain str, not the TextChoices member
        # The reminder and the rule only when set (``with_unset`` fills them in).
        **({"remind_at": rfc3339(todo.remind_at, context.zone)} if todo.remind_at else {}),
        **({"recurrence": todo.recurrence} if todo.recurrence else {}),
    }


def with_unset(snapshot: dict[str, Any]) -> dict[str, Any]:
    """A snapshot with the fields it leaves out when unset given as None."""
    return {"remind_at": None, "recurrence": None, **snapshot}


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


def same_value(field: str, new: Any, current: Any) -> bool:
    if field in ("due_at", "remind_at") and new is not None and current is not None:
        return parse_aware(new) == parse_aware(current)  # the same instant, however written
    return new == current


def field_value(field: str, value: Any, context: ToolContext) -> str:
    if field == "priority":
        return priority_label(value, context.locale)
    if field in ("due_at", "remind_at"):
        return due_label(value, context)
    if field == "recurrence":
        shown = recurrence_text(value, locale=context.locale, zone=context.zone)
        return shown or text("TOOL_VALUE_NOT_SET", context.locale)
    if field == "status":
        return status_label(value, context.locale)
    return value if value else text("TOOL_VALUE_NONE", context.locale)


def field_label(field: str, locale: str) -> str:
    return text(f"TODO_LABEL_{field.upper()}", locale)


# Rows a card shows only when the todo has a value for them.
OPTIONAL_ROWS = frozenset({"description", "remind_at", "recurrence"})


def current_details(current: dict[str, Any], context: ToolContext) -> list[dict[str, Any]]:
    details = [
        detail(field, field_label(field, context.locale), field_value(field, value, context))
        for field, value in current.items()
        if field not in OPTIONAL_ROWS or value
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
