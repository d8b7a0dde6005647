"""Writes of todos. Views, the API, admin and agent tools all call these; nothing else saves
a ``Todo``. Each function is atomic on its own and joins an outer transaction when there is
one (the agent's execution wraps a service call and its receipt in one durable transaction).
"""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone

from lightnote.accounts.caps import enforce_cap
from lightnote.audit import CHANNEL_SYSTEM, audit_write
from lightnote.errors import LightNoteError
from lightnote.field_checks import UNSET, checked_text, checked_title, checked_values
from lightnote.rest.versioning import (
    owned_get,
    release_idempotency_key,
    versioned_delete,
    versioned_restore,
    versioned_update,
)
from lightnote.transactions import service_atomic
from todos.models import DESCRIPTION_MAX, PRIORITIES, TITLE_MAX, Todo
from todos.recurrence import check_recurrence, next_occurrence, user_zone


def check_title(title: Any) -> str:
    """Return the trimmed title, or raise ``TODO_TITLE_REQUIRED`` / ``TODO_TITLE_TOO_LONG``."""
    return checked_title(title, prefix="TODO", max_length=TITLE_MAX)


def check_description(description: Any) -> str:
    """Return the trimmed description (None: ``""``), or raise ``TODO_DESCRIPTION_TOO_LONG``."""
    return checked_text(
        description,
        too_long="TODO_DESCRIPTION_TOO_LONG",
        max_length=DESCRIPTION_MAX,
        field="description",
    ).strip()


def priority_invalid() -> LightNoteError:
    """Return the 400 ``TODO_PRIORITY_INVALID``, its message naming the one priority range."""
    return LightNoteError(
        "TODO_PRIORITY_INVALID",
        params={
            "low": Todo.Priority.LOW,
            "normal": Todo.Priority.NORMAL,
            "high": Todo.Priority.HIGH,
        },
    )


def check_priority(priority: Any) -> int:
    if isinstance(priority, bool) or not isinstance(priority, int) or priority not in PRIORITIES:
        raise priority_invalid()
    return priority


def check_status(status: Any) -> str:
    if status not in Todo.Status.values:
        raise LightNoteError("TODO_STATUS_INVALID")
    return str(status)


def check_due_at(due_at: Any) -> datetime | None:
    if due_at is None:
        return None
    if not isinstance(due_at, datetime) or timezone.is_naive(due_at):
        raise LightNoteError("TODO_DUE_AT_INVALID")
    return due_at


def check_remind_at(remind_at: Any) -> datetime | None:
    if remind_at is None:
        return None
    if not isinstance(remind_at, datetime) or timezone.is_naive(remind_at):
        raise LightNoteError("TODO_REMIND_AT_INVALID")
    return remind_at


def check_room(*, owner: Any) -> None:
    """Refuse with 403 ``TODO_LIMIT_REACHED`` when ``owner`` has no room for one more todo.

    ``todo_create`` checks it; a create card checks it when it is issued too, so a person at
    the cap is told at once instead of on confirming (where it is checked again: a race).
    """
    enforce_cap("todo", owner=owner)


def _series_values(*, owner: Any, recurrence: Any, due_at: datetime | None) -> dict[str, Any]:
    """The columns of a todo that starts a series of ``recurrence`` at ``due_at`` (or none)."""
    if recurrence is None:
        return {"recurrence": None, "series_id": None, "series_start": None, "occurrence_at": None}
    rule = check_recurrence(recurrence, start=due_at, zone=user_zone(owner), now=timezone.now())
    return {
        "recurrence": rule,
        "series_id": uuid.uuid4(),
        "series_start": due_at,
        "occurrence_at": due_at,
    }


@service_atomic
def todo_create(
    *,
    owner: Any,
    title: str,
    description: str = "",
    priority: int = Todo.Priority.NORMAL,
    due_at: datetime | None = None,
    remind_at: datetime | None = None,
    recurrence: str | None = None,
    idempotency_key: str | None = None,
    actor: Any = None,
    channel: str = CHANNEL_SYSTEM,
) -> Todo:
    """Create a todo for ``owner``; with ``recurrence`` it is the first of a series.
    403 ``TODO_LIMIT_REACHED`` past the cap.

    Every channel counts: a page, the API, and a confirmed card (whose receipt then records
    the refusal instead of a write).

    With ``idempotency_key`` the (owner, key) unique constraint makes a second create with
    the same key fail with ``IntegrityError``; the caller decides what that means.
    ``actor`` (default: the owner) and ``channel`` are recorded with the ``todo.created`` event.
    """
    check_room(owner=owner)
    now = timezone.now()
    due_at = check_due_at(due_at)
    todo = Todo.objects.create(
        owner=owner,
        title=check_title(title),
        description=check_description(description),
        priority=check_priority(priority),
        due_at=due_at,
        remind_at=check_remind_at(remind_at),
        **_series_values(owner=owner, recurrence=recurrence, due_at=due_at),
        idempotency_key=idempotency_key,
        created_at=now,
        updated_at=now,
    )
    _audit(TODO_CREATED, todo.pk, owner=owner, actor=actor, channel=channel)
    return todo


# The event of a change, by (status before, status after); any other change is an update.
TODO_CREATED = "todo.created"
TODO_STATUS_EVENTS: dict[tuple[str, str], str] = {
    (Todo.Status.OPEN, Todo.Status.DONE): "todo.completed",
    (Todo.Status.DONE, Todo.Status.OPEN): "todo.reopened",
}


def _audit(event_type: str, todo_id: Any, *, owner: Any, actor: Any, channel: str) -> None:
    audit_write(
        event_type, item_type="todo", item_id=todo_id, owner=owner, actor=actor, channel=channel
    )


def _next_occurrence_create(todo: Todo, *, actor: Any, channel: str) -> Todo | None:
    """Create the occurrence after ``todo`` in its series, once; None when there is none.

    Two completions of one occurrence at once both get here; the unique (series_id,
    occurrence_at) pair lets one insert win and the other's fail inside its own savepoint,
    which is expected and swallowed. The reminder keeps its offset before the due time.
    """
    if not (todo.recurrence and todo.series_id and todo.series_start and todo.occurrence_at):
        return None
    following = next_occurrence(
        todo.recurrence,
        start=todo.series_start,
        after=todo.occurrence_at,
        zone=user_zone(todo.owner),
    )
    if following is None:
        return None  # the series ended (COUNT or UNTIL)
    lead = todo.due_at - todo.remind_at if todo.due_at and todo.remind_at else None
    now = timezone.now()
    try:
        with transaction.atomic():  # a savepoint even inside durable_atomic
            following_todo = Todo.objects.create(
                owner=todo.owner,
                title=todo.title,
                description=todo.description,
                priority=todo.priority,
                due_at=following,
                remind_at=following - lead if lead is not None else None,
                recurrence=todo.recurrence,
                series_id=todo.series_id,
                series_start=todo.series_start,
                occurrence_at=following,
                created_at=now,
                updated_at=now,
            )
    except IntegrityError:
        return None  # a concurrent completion made it
    _audit(
        "todo.next_occurrence_created",
        following_todo.pk,
        owner=following_todo.owner,
        actor=actor,
        channel=channel,
    )
    return following_todo


def _changed(before: Todo, after: Todo, *, owner: Any, actor: Any, channel: str) -> Todo:
    """Record the change of ``before`` into ``after`` (completed, reopened or updated); a
    series' occurrence done makes the next."""
    event = TODO_STATUS_EVENTS.get((before.status, after.status), "todo.updated")
    _audit(event, after.pk, owner=owner, actor=actor, channel=channel)
    if event == "todo.completed":
        _next_occurrence_create(after, actor=actor, channel=channel)
    return after


@service_atomic
def todo_forget_idempotency_key(*, owner: Any, todo_id: uuid.UUID | str, key: str) -> bool:
    """Release ``key`` from the owner's todo it created, so the key may create anew.

    For a key past its retention (24 h). Updates the control column only, with no version
    bump: the todo itself does not change. Returns True when the todo still held the key.
    """
    return release_idempotency_key(Todo, owner=owner, obj_id=todo_id, key=key)


@service_atomic
def todo_update(
    *,
    owner: Any,
    todo_id: uuid.UUID | str,
    expected_version: int | None,
    title: Any = UNSET,
    description: Any = UNSET,
    priority: Any = UNSET,
    due_at: Any = UNSET,
    status: Any = UNSET,
    remind_at: Any = UNSET,
    recurrence: Any = UNSET,
    actor: Any = None,
    channel: str = CHANNEL_SYSTEM,
) -> Todo:
    """Change the given fields if the todo is still at ``expected_version``.

    A new ``recurrence`` starts a new series at the (new or present) due time; null stops
    the repeating. Marking an occurrence done creates the next one (once).
    """
    values = checked_values(
        title=(title, check_title),
        description=(description, check_description),
        priority=(priority, check_priority),
        due_at=(due_at, check_due_at),
        status=(status, check_status),
        remind_at=(remind_at, check_remind_at),
    )
    before = owned_get(Todo, owner=owner, obj_id=todo_id, not_found="TODO_NOT_FOUND")
    effective_due = values.get("due_at", before.due_at)
    if recurrence is not UNSET and recurrence != before.recurrence:
        values.update(_series_values(owner=owner, recurrence=recurrence, due_at=effective_due))
    elif before.recurrence and effective_due is None:
        raise LightNoteError("TODO_RECURRENCE_NEEDS_DUE_AT")
    after = versioned_update(
        Todo,
        owner=owner,
        obj_id=before.pk,
        expected_version=expected_version,
        values=values,
        prefix="TODO",
        current=before,
    )
    return _changed(before, after, owner=owner, actor=actor, channel=channel)


@service_atomic
def todo_set_status(
    *,
    owner: Any,
    todo_id: uuid.UUID | str,
    status: str,
    expected_version: int | None = None,
    actor: Any = None,
    channel: str = CHANNEL_SYSTEM,
) -> Todo:
    """Mark the todo open or done; an occurrence of a series done creates the next (once)."""
    values = {"status": check_status(status)}
    before = owned_get(Todo, owner=owner, obj_id=todo_id, not_found="TODO_NOT_FOUND")
    after = versioned_update(
        Todo,
        owner=owner,
        obj_id=before.pk,
        expected_version=expected_version,
        values=values,
        prefix="TODO",
        current=before,
    )
    return _changed(before, after, owner=owner, actor=actor, channel=channel)


@service_atomic
def todo_delete(
    *,
    owner: Any,
    todo_id: uuid.UUID | str,
    expected_version: int | None = None,
    actor: Any = None,
    channel: str = CHANNEL_SYSTEM,
) -> uuid.UUID:
    """Move the todo to the trash (at ``expected_version`` when given) and return its id."""
    deleted_id = versioned_delete(
        Todo, owner=owner, obj_id=todo_id, expected_version=expected_version, prefix="TODO"
    )
    _audit("todo.deleted", deleted_id, owner=owner, actor=actor, channel=channel)
    return deleted_id


@service_atomic
def todo_restore(
    *,
    owner: Any,
    todo_id: uuid.UUID | str,
    expected_version: int | None = None,
    actor: Any = None,
    channel: str = CHANNEL_SYSTEM,
) -> Todo:
    """Take the todo out of the trash (at ``expected_version`` when given)."""
    todo = versioned_restore(
        Todo, owner=owner, obj_id=todo_id, expected_version=expected_version, prefix="TODO"
    )
    _audit("todo.restored", todo.pk, owner=owner, actor=actor, channel=channel)
    return todo
