"""Reminders in the Django admin: read-only (they change only through reminders.services)."""

from __future__ import annotations

from django.contrib import admin

from lightnote.admin import ReadOnlyModelAdmin
from reminders.models import Notification, ReminderDelivery


@admin.register(Notification)
class NotificationAdmin(ReadOnlyModelAdmin):
    list_display = ("title", "owner", "kind", "created_at", "read_at")
    list_filter = ("kind",)
    search_fields = ("title",)


@admin.register(ReminderDelivery)
class ReminderDeliveryAdmin(ReadOnlyModelAdmin):
    """Each delivered reminder and its email attempt (``failed``: look at the SMTP side)."""

    list_display = ("todo_id", "remind_at", "delivered_at", "email_state", "email_attempted_at")
    list_filter = ("email_state",)
