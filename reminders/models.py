"""Notifications, the record of each reminder delivered, the email opt-in and calendar feeds.

Written only through ``reminders.services``.
"""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from todos.models import TITLE_MAX


class Notification(models.Model):
    """Something the user is told in the app (the bell, the list, the API)."""

    class Kind(models.TextChoices):
        REMINDER = "reminder", "reminder"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notifications"
    )
    kind = models.CharField(max_length=16, choices=Kind.choices, default=Kind.REMINDER)
    # The todo it is about; kept as a plain id so purging the todo keeps the notification.
    todo_id = models.UUIDField(null=True, blank=True)
    title = models.CharField(max_length=TITLE_MAX)
    text = models.CharField(max_length=400)
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    read_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = _("notification")
        verbose_name_plural = _("notifications")
        ordering = ["-created_at", "-id"]
        indexes = [
            models.Index(fields=["owner", "-created_at", "-id"], name="notification_owner_idx"),
            models.Index(fields=["owner", "read_at"], name="notification_unread_idx"),
        ]

    def __str__(self) -> str:
        return self.title


class ReminderDelivery(models.Model):
    """One reminder delivered: the unique (todo, remind_at) pair makes it happen once.

    Inserted in the same transaction as its notification, so a worker that dies before the
    commit leaves neither and the next scan delivers it; a second worker's insert fails.
    The email is outside the transaction: ``email_state`` records its one attempt.
    """

    class EmailState(models.TextChoices):
        NONE = "none", "not sent (not opted in or no address)"
        PENDING = "pending", "to be sent after commit"
        SENT = "sent", "sent"
        FAILED = "failed", "the attempt failed"

    todo_id = models.UUIDField()
    remind_at = models.DateTimeField()
    notification = models.OneToOneField(
        Notification, on_delete=models.CASCADE, related_name="delivery"
    )
    delivered_at = models.DateTimeField(default=timezone.now)
    email_state = models.CharField(
        max_length=8, choices=EmailState.choices, default=EmailState.NONE
    )
    email_attempted_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = _("reminder delivery")
        verbose_name_plural = _("reminder deliveries")
        constraints = [
            models.UniqueConstraint(fields=["todo_id", "remind_at"], name="reminder_delivery_once")
        ]

    def __str__(self) -> str:
        return f"{self.todo_id} @ {self.remind_at:%Y-%m-%d %H:%M}"


class ReminderPreference(models.Model):
    """A user's choice to get reminders by email too (off until turned on in /settings/)."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="reminder_preference"
    )
    email_reminders = models.BooleanField(default=False)

    def __str__(self) -> str:
        return f"{self.user}: email {'on' if self.email_reminders else 'off'}"


class CalendarFeed(models.Model):
    """A user's private iCalendar URL: only the SHA-256 of its secret is stored."""

    owner = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="calendar_feed"
    )
    secret_hash = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return f"{self.owner} calendar feed"
