from __future__ import annotations

import uuid
from typing import ClassVar

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from lightnote.rest.versioning import LiveManager

TITLE_MAX = 200
RECURRENCE_MAX = 200  # todos.recurrence checks the same limit
DESCRIPTION_MAX = 2000


class Todo(models.Model):
    """A user's todo. Written only through ``todos.services``; ``version`` +1 per change."""

    class Status(models.TextChoices):
        OPEN = "open", "open"
        DONE = "done", "done"

    class Priority(models.IntegerChoices):
        LOW = 0, "low"
        NORMAL = 1, "normal"
        HIGH = 2, "high"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="todos"
    )
    title = models.CharField(max_length=TITLE_MAX)
    description = models.TextField(max_length=DESCRIPTION_MAX, blank=True, default="")
    priority = models.PositiveSmallIntegerField(choices=Priority.choices, default=Priority.NORMAL)
    due_at = models.DateTimeField(null=True, blank=True)
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.OPEN)
    # When to remind the owner (a notification, once per (todo, remind_at): reminders app).
    remind_at = models.DateTimeField(null=True, blank=True)
    # An RRULE of the subset ``todos.recurrence`` reads, or null for a one-off todo.
    recurrence = models.CharField(max_length=RECURRENCE_MAX, null=True, blank=True)
    # A recurring todo's series: the first todo's id, the series' first due time (the rule's
    # DTSTART) and this occurrence's own due time as the series made it. The unique pair
    # (series_id, occurrence_at) lets two completions at once make the next one only once.
    series_id = models.UUIDField(null=True, blank=True, editable=False)
    series_start = models.DateTimeField(null=True, blank=True, editable=False)
    occurrence_at = models.DateTimeField(null=True, blank=True, editable=False)
    version = models.PositiveIntegerField(default=1)
    # Set only by a direct-API create with an Idempotency-Key: the unique pair is the fence
    # that stops a retried request from creating a twin even if Redis lost its claim.
    idempotency_key = models.CharField(max_length=64, null=True, blank=True, editable=False)
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    updated_at = models.DateTimeField(default=timezone.now)
    # Set when deleted: the row is in the trash, restorable until ``purge_trash`` removes it.
    deleted_at = models.DateTimeField(null=True, blank=True, editable=False)

    # The fields a cached list filters on: changing one may shrink a list
    # (lightnote.rest.list_counts).
    LIST_FILTER_FIELDS: ClassVar[tuple[str, ...]] = ("status",)

    all_objects = models.Manager()  # the trash included
    objects = LiveManager()  # the default (Meta): live rows only: reads, writes, lists, admin

    class Meta:
        verbose_name = _("todo")
        verbose_name_plural = _("todos")
        default_manager_name = "objects"
        ordering = ["-created_at", "id"]
        # Each list's filter and sort, owner first: the live rows (``deleted_at`` IS NULL is
        # an equality here) in list order, so a page reads its rows straight off the index and
        # the capped count reads the index alone (no row lookups).
        indexes = [
            models.Index(
                fields=["owner", "deleted_at", "-created_at", "id"], name="todo_owner_live_idx"
            ),
            models.Index(
                fields=["owner", "deleted_at", "status", "-created_at", "id"],
                name="todo_owner_live_status_idx",
            ),
            # The reminder scan: open live todos by remind_at (reminders.selectors).
            models.Index(fields=["remind_at", "status"], name="todo_remind_at_idx"),
        ]
        constraints = [
            models.UniqueConstraint(
                fields=["owner", "idempotency_key"], name="todo_unique_owner_idempotency_key"
            ),
            models.UniqueConstraint(
                fields=["series_id", "occurrence_at"], name="todo_unique_series_occurrence"
            ),
        ]

    def __str__(self) -> str:
        return self.title


# The one priority range (0 low .. 2 high): the model, the services, the serializers, the
# agent's schemas and the texts all read it from here.
PRIORITIES: list[int] = [int(value) for value in Todo.Priority.values]
PRIORITY_HELP = ", ".join(f"{value} {label}" for value, label in Todo.Priority.choices)
