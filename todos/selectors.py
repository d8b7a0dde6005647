"""Reads of todos, always scoped to one owner."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from django.db.models import Q, QuerySet

from lightnote.rest.versioning import owned_get, titled, trashed, trashed_get
from todos.models import Todo


def todo_list(
    *,
    owner: Any,
    status: str | None = None,
    keyword: str | None = None,
    due_before: datetime | None = None,
    due_within: tuple[datetime, datetime] | None = None,
    priority: int | None = None,
    overdue_at: datetime | None = None,
) -> QuerySet[Todo]:
    """Return the owner's todos, newest first, optionally filtered.

    ``due_before``: due at or before that instant (a day said without a time is due at its
    23:59, and "due before today" must list it). ``due_within``: ``(start, end)``, due at or
    after ``start`` and before ``end`` (a day or a week). ``overdue_at``: open and due before
    that instant (now).
    """
    todos = Todo.objects.filter(owner=owner)
    if status is not None:
        todos = todos.filter(status=status)
    if keyword:
        todos = todos.filter(Q(title__icontains=keyword) | Q(description__icontains=keyword))
    if due_before is not None:
        todos = todos.filter(due_at__lte=due_before)
    if due_within is not None:
        todos = todos.filter(due_at__gte=due_within[0], due_at__lt=due_within[1])
    if priority is not None:
        todos = todos.filter(priority=priority)
    if overdue_at is not None:
        todos = todos.filter(status=Todo.Status.OPEN, due_at__lt=overdue_at)
    return todos


def todo_get(*, owner: Any, todo_id: uuid.UUID | str) -> Todo:
    """Return the owner's todo or raise 404 ``TODO_NOT_FOUND`` (also for others' todos)."""
    return owned_get(Todo, owner=owner, obj_id=todo_id, not_found="TODO_NOT_FOUND")


def todo_find_by_title(*, owner: Any, title: str) -> list[Todo]:
    """Return the owner's todos titled ``title``, or differing from it in letter case only
    (``lightnote.rest.versioning.titled``)."""
    return titled(Todo, owner=owner, title=title)


def todo_find_by_idempotency_key(*, owner: Any, key: str) -> Todo | None:
    """Return the owner's todo created with this Idempotency-Key digest, or None."""
    return Todo.objects.filter(owner=owner, idempotency_key=key).first()


def todo_trash_list(*, owner: Any) -> QuerySet[Todo]:
    """Return the owner's deleted todos still in the trash, most recently deleted first."""
    return trashed(Todo, owner=owner)


def todo_trashed_get(*, owner: Any, todo_id: uuid.UUID | str) -> Todo:
    """Return the owner's todo from the trash or raise 404 ``TODO_NOT_FOUND``."""
    return trashed_get(Todo, owner=owner, obj_id=todo_id, not_found="TODO_NOT_FOUND")
