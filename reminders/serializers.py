"""Shapes of the notifications and calendar feed API."""

from __future__ import annotations

from rest_framework import serializers

from lightnote.rest.serializers import StrictSerializer, UserZoneDateTimeField
from reminders.models import Notification


class NotificationSerializer(serializers.ModelSerializer):
    """A notification as the API returns it; times in the requesting user's zone."""

    created_at = UserZoneDateTimeField()
    read_at = UserZoneDateTimeField(allow_null=True)

    class Meta:
        model = Notification
        fields = ["id", "kind", "todo_id", "title", "text", "created_at", "read_at"]
        read_only_fields = fields


class EmptyBodySerializer(StrictSerializer):
    """A body with no fields: anything sent in it is a 400 ``VALIDATION_ERROR``."""


class ReadAllSerializer(serializers.Serializer):
    read = serializers.IntegerField(help_text="How many notifications were unread")
    unread_count = serializers.IntegerField(help_text="Unread notifications now (0)")


class CalendarFeedSerializer(serializers.Serializer):
    url = serializers.URLField(
        help_text="The private iCalendar URL; shown once (a new POST replaces it)"
    )
