"""Request and response shapes of the todo API.

Request serializers check the shape the contract documents (types, lengths, ranges, unknown
fields -> 400 ``VALIDATION_ERROR``); the services then apply the domain rules (a title of
blanks is ``TODO_TITLE_REQUIRED``) so the API and the agent answer with the same codes.

The JSON field types below are shared with ``notes.serializers``.
"""

from __future__ import annotations

import datetime as dt
import zoneinfo
from typing import Any, NoReturn

from django.conf import settings
from django.utils.dateparse import parse_datetime
from rest_framework import serializers

from lightnote.i18n import define_messages, request_locale, translate
from lightnote.serializers import StrictSerializer
from todos.models import DESCRIPTION_MAX, TITLE_MAX, Todo

define_messages(
    {
        "DATETIME_OFFSET_REQUIRED": (
            "时间必须带时区偏移，例如 2026-12-02T21:00:00+08:00。",
            "The time needs a UTC offset, e.g. 2026-12-02T21:00:00+08:00.",
        ),
        "DATETIME_INVALID": (
            "不是合法的 ISO 8601 时间，请使用例如 2026-12-02T21:00:00+08:00 的格式。",
            "Not an ISO 8601 date-time; use e.g. 2026-12-02T21:00:00+08:00.",
        ),
        "JSON_STRING_REQUIRED": ("必须是字符串。", "Must be a string."),
        "JSON_INTEGER_REQUIRED": ("必须是整数。", "Must be an integer."),
        "NOTHING_TO_CHANGE": (
            "除 version 外至少要给出一个要修改的字段。",
            "Give at least one field to change besides version.",
        ),
    }
)

# MariaDB's DATETIME stores years 1000..9999; the last year is left out because a time late
# in 9999 overflows when rendered in a zone ahead of UTC. Anything outside is a typo anyway.
_FIRST_YEAR, _LAST_YEAR = 1000, 9998


def _fail(field: serializers.Field, code: str) -> NoReturn:
    raise serializers.ValidationError(translate(code, request_locale(field.context.get("request"))))


class JSONCharField(serializers.CharField):
    """A string that must arrive as a JSON string (DRF would turn ``12`` into ``"12"``)."""

    def to_internal_value(self, data: Any) -> str:
        if not isinstance(data, str):
            _fail(self, "JSON_STRING_REQUIRED")
        return super().to_internal_value(data)


class JSONIntegerField(serializers.IntegerField):
    """An integer that must arrive as a JSON integer (not ``"2"``, ``2.0`` or ``true``)."""

    def to_internal_value(self, data: Any) -> int:
        if isinstance(data, bool) or not isinstance(data, int):
            _fail(self, "JSON_INTEGER_REQUIRED")
        return super().to_internal_value(data)


class OffsetDateTimeField(serializers.DateTimeField):
    """An ISO 8601 date-time WITH a UTC offset; a naive time is refused, never guessed."""

    def to_internal_value(self, value: Any) -> dt.datetime:
        if not isinstance(value, str):
            _fail(self, "DATETIME_INVALID")
        try:
            parsed = parse_datetime(value.strip())
        except ValueError:  # well-formed but impossible, e.g. month 13
            parsed = None
        if parsed is None:
            _fail(self, "DATETIME_INVALID")
        if parsed.utcoffset() is None:
            _fail(self, "DATETIME_OFFSET_REQUIRED")
        try:
            in_utc = parsed.astimezone(dt.UTC)
        except OverflowError:
            in_utc = None
        if in_utc is None or not _FIRST_YEAR <= in_utc.year <= _LAST_YEAR:
            _fail(self, "DATETIME_INVALID")
        return parsed


class UserZoneDateTimeField(serializers.DateTimeField):
    """Render an aware datetime in ISO 8601 with the offset of the requesting user's zone."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("read_only", True)
        super().__init__(**kwargs)

    def to_representation(self, value: dt.datetime | None) -> Any:
        if value is None:
            return None
        return value.astimezone(self._zone()).isoformat()

    def _zone(self) -> dt.tzinfo:
        request = self.context.get("request")
        name = getattr(getattr(request, "user", None), "time_zone", None)
        return zoneinfo.ZoneInfo(name or settings.LIGHTNOTE_TIME_ZONE)


def require_a_change(serializer: serializers.Serializer, attrs: dict[str, Any]) -> dict[str, Any]:
    """Refuse a PATCH that names only ``version`` (it would bump the version for nothing)."""
    if set(attrs) <= {"version"}:
        _fail(serializer, "NOTHING_TO_CHANGE")
    return attrs


class TodoSerializer(serializers.ModelSerializer):
    """A todo as the API returns it; times in the requesting user's zone."""

    due_at = UserZoneDateTimeField(allow_null=True)
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
            "status",
            "version",
            "created_at",
            "updated_at",
        ]
        read_only_fields = fields


def _title(**kwargs: Any) -> JSONCharField:
    # Blanks are not trimmed here: the service decides that "   " is TODO_TITLE_REQUIRED.
    return JSONCharField(min_length=1, max_length=TITLE_MAX, trim_whitespace=False, **kwargs)


def _description() -> JSONCharField:
    return JSONCharField(
        max_length=DESCRIPTION_MAX, allow_blank=True, trim_whitespace=False, required=False
    )


def _priority() -> JSONIntegerField:
    return JSONIntegerField(
        min_value=0, max_value=2, required=False, help_text="0 low, 1 normal, 2 high"
    )


def _due_at() -> OffsetDateTimeField:
    return OffsetDateTimeField(
        required=False, allow_null=True, help_text="ISO 8601 with an offset, or null for none"
    )


class TodoCreateSerializer(StrictSerializer):
    title = _title()
    description = _description()
    priority = _priority()
    due_at = _due_at()


class NeverPartial:
    """Keep required fields required in a PATCH body (``version``), in DRF and the schema.

    drf-spectacular documents a PATCH body as partial (every field optional); the views
    validate it whole, so ``partial`` is pinned to False and setting it is ignored.
    """

    @property
    def partial(self) -> bool:
        return False

    @partial.setter
    def partial(self, value: bool) -> None:
        pass


class TodoUpdateSerializer(NeverPartial, StrictSerializer):
    version = JSONIntegerField(min_value=1, help_text="The version this change is based on")
    title = _title(required=False)
    description = _description()
    priority = _priority()
    due_at = _due_at()
    status = serializers.ChoiceField(choices=Todo.Status.choices, required=False)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        return require_a_change(self, attrs)


class TodoListQuerySerializer(serializers.Serializer):
    """Query parameters of the list (``page`` and ``page_size`` belong to the paginator)."""

    status = serializers.ChoiceField(choices=Todo.Status.choices, required=False)


class VersionQuerySerializer(serializers.Serializer):
    """``?version=`` on DELETE: delete only if the object is still at this version."""

    version = serializers.IntegerField(min_value=1, required=False)
