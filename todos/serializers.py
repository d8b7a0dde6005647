"""Request and response shapes of the todo API.

Request serializers check the shape the contract documents (types, lengths, ranges, unknown
fields -> 400 ``VALIDATION_ERROR``); the services then apply the domain rules (a title of
blanks is ``TODO_TITLE_REQUIRED``) so the API and the agent answer with the same codes.

The JSON field types are the base layer's (:mod:`lightnote.rest.serializers`), shared with notes.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from lightnote.rest.serializers import (
    JSONCharField,
    JSONIntegerField,
    NeverPartial,
    OffsetDateTimeField,
    QuerySerializer,
    StrictSerializer,
    UserZoneDateTimeField,
    require_a_change,
)
from lightnote.texts.i18n import request_locale
from lightnote.times import rfc3339
from todos.models import (
    DESCRIPTION_MAX,
    PRIORITIES,
    PRIORITY_HELP,
    RECURRENCE_MAX,
    TITLE_MAX,
    Todo,
)
from todos.recurrence import OCCURRENCES_MAX, occurrences, recurrence_text, user_zone


class TodoSerializer(serializers.ModelSerializer):
    """A todo as the API returns it; times in the requesting user's zone."""

    due_at = UserZoneDateTimeField(allow_null=True)
    remind_at = UserZoneDateTimeField(allow_null=True)
    recurrence_text = serializers.SerializerMethodField(
        help_text="The repeat rule in words, in the request's language (null: no rule)"
    )
    next_occurrences = serializers.SerializerMethodField(
        help_text=f"Up to {OCCURRENCES_MAX} due times of the series from this occurrence on"
    )
    created_at = UserZoneDateTimeField()
    updated_at = UserZoneDateTimeField()

    class Meta:
        model = Todo
        fields = [
            "id",
            "title",
            "description",
            "priority",
            "due_at",
            "remind_at",
            "recurrence",
            "recurrence_text",
            "next_occurrences",
            "status",
            "version",
            "created_at",
            "updated_at",
        ]
        read_only_fields = fields

    def _zone(self) -> Any:
        return user_zone(getattr(self.context.get("request"), "user", None))

    def get_recurrence_text(self, todo: Todo) -> str | None:
        locale = request_locale(self.context.get("request"))
        return recurrence_text(todo.recurrence, locale=locale, zone=self._zone())

    @extend_schema_field({"type": "array", "items": {"type": "string", "format": "date-time"}})
    def get_next_occurrences(self, todo: Todo) -> list[str]:
        if not (todo.recurrence and todo.series_start and todo.due_at):
            return []
        zone = self._zone()
        found = occurrences(
            todo.recurrence,
            start=todo.series_start,
            after=todo.occurrence_at or todo.due_at,
            zone=zone,
            inclusive=True,
        )
        return [rfc3339(moment, zone) for moment in found]


def _title(**kwargs: Any) -> JSONCharField:
    # Blanks are not trimmed here: the service decides that "   " is TODO_TITLE_REQUIRED.
    return JSONCharField(min_length=1, max_length=TITLE_MAX, trim_whitespace=False, **kwargs)


def _description() -> JSONCharField:
    return JSONCharField(
        max_length=DESCRIPTION_MAX, allow_blank=True, trim_whitespace=False, required=False
    )


def _priority() -> JSONIntegerField:
    return JSONIntegerField(
        min_value=min(PRIORITIES),
        max_value=max(PRIORITIES),
        required=False,
        help_text=PRIORITY_HELP,
    )


def _due_at() -> OffsetDateTimeField:
    return OffsetDateTimeField(
        plausible=True,
        required=False,
        allow_null=True,
        help_text=(
            "ISO 8601 with a whole-minute offset, at most a year ago and ten years ahead "
            "(400 otherwise), or null for none"
        ),
    )


def _remind_at() -> OffsetDateTimeField:
    return OffsetDateTimeField(
        plausible=True,
        required=False,
        allow_null=True,
        help_text="When to remind (ISO 8601 with an offset), or null for no reminder",
    )


def _recurrence() -> JSONCharField:
    return JSONCharField(
        max_length=RECURRENCE_MAX,
        required=False,
        allow_null=True,
        help_text=(
            "An RFC 5545 RRULE such as FREQ=WEEKLY;BYDAY=MO (FREQ DAILY..YEARLY, INTERVAL <= "
            "365, BYDAY, BYMONTHDAY, BYSETPOS=-1, COUNT or UNTIL; 400 "
            "TODO_RECURRENCE_UNSUPPORTED otherwise); needs a due_at; null: no repeat"
        ),
    )


class TodoCreateSerializer(StrictSerializer):
    title = _title()
    description = _description()
    priority = _priority()
    due_at = _due_at()
    remind_at = _remind_at()
    recurrence = _recurrence()


class TodoUpdateSerializer(NeverPartial, StrictSerializer):
    version = JSONIntegerField(min_value=1, help_text="The version this change is based on")
    title = _title(required=False)
    description = _description()
    priority = _priority()
    due_at = _due_at()
    remind_at = _remind_at()
    recurrence = _recurrence()
    status = serializers.ChoiceField(choices=Todo.Status.choices, required=False)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        return require_a_change(self, attrs)


class TodoListQuerySerializer(QuerySerializer):
    """Query parameters of the list (``page`` and ``page_size`` belong to the paginator)."""

    status = serializers.ChoiceField(choices=Todo.Status.choices, required=False)
    trashed = serializers.BooleanField(
        required=False, default=False, help_text="1: list the trash (deleted, restorable) instead"
    )
