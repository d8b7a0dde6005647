"""Writes of todos. Views, the API, admin and agent tools all call these; nothing else saves
a ``Todo``. Each function is atomic on its own and joins an outer transaction when there is
one (the agent's execution wraps a service call and its receipt in one durable transaction).
"""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from django.utils import timezone

from lightnote.errors import LightNoteError
from lightnote.field_checks import UNSET, checked_text, checked_title, checked_values
from lightnote.transactions import service_atomic
from lightnote.versioning import (
    release_idempotency_key,
    versioned_delete,
    versioned_restore,
    versioned_update,
)
from todos.models import DESCRIPTION_MAX, PRIORITIES, TITLE_MAX, Todo


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


@service_atomic
def todo_create(
    *,
    owner: Any,
    title: str,
    description: str = "",
    priority: int = Todo.Priority.NORMAL,
    due_at: datetime | None = None,
    idempotency_key: str | None = None,
) -> Todo:
    """Create a todo for ``owner``.

    With ``idempotency_key`` the (owner, key) unique constraint makes a second create with
    the same key fail with ``IntegrityError``; the caller decides what that means.
    """
    now = timezone.now()
    return Todo.objects.create(
        owner=owner,
        title=check_title(title),
        description=check_description(description),
        priority=check_priority(priority),
        due_at=check_due_at(due_at),
        idempotency_key=idempotency_key,
        created_at=now,
        updated_at=now,
    )


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
) -> Todo:
    """Change the given fields if the todo is still at ``expected_version``."""
    values = checked_values(
        title=(title, check_title),
        description=(description, check_description),
        priority=(priority, check_priority),
        due_at=(due_at, check_due_at),
        status=(status, check_status),
    )
    return versioned_update(
        Todo,
        owner=owner,
        obj_id=todo_id,
        expected_version=expected_version,
        values=values,
        prefix="TODO",
    )


@service_atomic
def todo_set_status(
    *, owner: Any, todo_id: uuid.UUID | str, status: str, expected_version: int | None = None
) -> Todo:
    """Mark the todo open or done."""
    return versioned_update(
        Todo,
        owner=owner,
        obj_id=todo_id,
        expected_version=expected_version,
        values={"status": check_status(status)},
        prefix="TODO",
    )


@service_atomic
def todo_delete(
    *, owner: Any, todo_id: uuid.UUID | str, expected_version: int | None = None
) -> uuid.UUID:
    """Move the todo to the trash (at ``expected_version`` when given) and return its id."""
    return versioned_delete(
        Todo, owner=owner, obj_id=todo_id, expected_version=expected_version, prefix="TODO"
    )


@service_atomic
def todo_restore(
    *, owner: Any, todo_id: uuid.UUID | str, expected_version: int | None = None
) -> Todo:
    """Take the todo out of the trash (at ``expected_version`` when given)."""
    return versioned_restore(
        Todo, owner=owner, obj_id=todo_id, expected_version=expected_version, prefix="TODO"
    )
