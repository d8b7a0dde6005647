"""Reads of notifications, due reminders and calendar feeds."""

from __future__ import annotations

import datetime as dt
import hashlib
import uuid
from typing import Any

from django.core.exceptions import ValidationError
from django.db.models import Exists, OuterRef, QuerySet

from lightnote.errors import LightNoteError
from reminders.models import CalendarFeed, Notification, ReminderDelivery, ReminderPreference
from todos.models import Todo

# How many due reminders one scan takes; the next scan (seconds later) takes the rest.
SCAN_BATCH = 200


def reminders_due(*, now: dt.datetime, limit: int = SCAN_BATCH) -> list[tuple[uuid.UUID, Any]]:
    """Return (todo id, remind_at) of open live todos whose reminder is due and not delivered.

    Oldest first, at most ``limit``. Done and deleted todos are left out here and checked
    again, under a row lock, when delivering (``reminders.services.reminder_deliver``).
    """
    delivered = ReminderDelivery.objects.filter(
        todo_id=OuterRef("id"), remind_at=OuterRef("remind_at")
    )
    rows = (
        Todo.objects.filter(status=Todo.Status.OPEN, remind_at__lte=now)
        .exclude(Exists(delivered))
        .order_by("remind_at", "id")
        .values_list("id", "remind_at")[:limit]
    )
    return list(rows)


def notification_list(*, owner: Any) -> QuerySet[Notification]:
    """The owner's notifications, newest first."""
    return Notification.objects.filter(owner=owner).order_by("-created_at", "-id")


def notification_unread_count(*, owner: Any) -> int:
    return Notification.objects.filter(owner=owner, read_at__isnull=True).count()


def notification_get(*, owner: Any, notification_id: uuid.UUID | str) -> Notification:
    """Return the owner's notification or raise 404 (also for another user's)."""
    try:
        return Notification.objects.get(owner=owner, id=notification_id)
    except (Notification.DoesNotExist, ValidationError, ValueError):
        raise LightNoteError("NOTIFICATION_NOT_FOUND", status=404) from None


def secret_digest(secret: str) -> str:
    """The stored form of a feed secret (SHA-256: the secret itself has 256 random bits)."""
    return hashlib.sha256(secret.encode()).hexdigest()


def calendar_feed_owner(*, secret: str) -> Any | None:
    """Return the user whose feed has ``secret``, or None (never a hint of which part failed)."""
    feed = (
        CalendarFeed.objects.select_related("owner")
        .filter(secret_hash=secret_digest(secret))
        .first()
    )
    return feed.owner if feed else None


def calendar_feed_exists(*, owner: Any) -> bool:
    """Whether the owner has a live calendar address."""
    return CalendarFeed.objects.filter(owner=owner).exists()


def calendar_todos(*, owner: Any) -> QuerySet[Todo]:
    """The owner's open live todos with a due time: what the feed lists."""
    return Todo.objects.filter(owner=owner, status=Todo.Status.OPEN, due_at__isnull=False).order_by(
        "due_at", "id"
    )


def reminder_emails_on(*, user: Any) -> bool:
    return ReminderPreference.objects.filter(user=user, email_reminders=True).exists()


def reminder_email_address(*, user: Any) -> str | None:
    """Where a reminder email goes, or None: the user's address when they turned emails on.

    The one place that decides it: there is no verified-address flag yet, so a non-empty
    ``email`` stands for one.
    """
    address = (getattr(user, "email", "") or "").strip()
    if not address or not reminder_emails_on(user=user):
        return None
    return address
