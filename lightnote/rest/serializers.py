"""Serializer bases and JSON field types every API shares.

Request serializers refuse unknown fields instead of ignoring them, take strings and
integers only as JSON strings and integers, and times only with a UTC offset; responses
render times in the requesting user's zone.
"""

from __future__ import annotations

import datetime as dt
import zoneinfo
from typing import Any, NoReturn

from django.conf import settings
from django.utils import timezone
from django.utils.dateparse import parse_datetime
from rest_framework import serializers

from lightnote.texts.i18n import define_messages, request_locale, translate
from lightnote.times import is_plausible, rfc3339

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
        "DATETIME_IMPLAUSIBLE": (
            "时间不在合理范围内（一年前到十年后），请检查年份。",
            "Outside the plausible range (a year ago to ten years ahead); check the year.",
        ),
        "JSON_STRING_REQUIRED": ("必须是字符串。", "Must be a string."),
        "JSON_INTEGER_REQUIRED": ("必须是整数。", "Must be an integer."),
        "QUERY_VALUE_REQUIRED": (
            "查询参数不能为空；不需要时请省略它。",
            "A query parameter may not be empty; leave it out instead.",
        ),
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
    """An ISO 8601 date-time WITH a whole-minute UTC offset; a naive time is refused, never
    guessed. With ``plausible=True`` (a due time) it must also lie in the window the agent
    applies (:func:`lightnote.times.is_plausible`: a year back, ten years ahead), else
    ``DATETIME_IMPLAUSIBLE``."""

    def __init__(self, *, plausible: bool = False, **kwargs: Any) -> None:
        self.plausible = plausible
        super().__init__(**kwargs)

    def to_internal_value(self, value: Any) -> dt.datetime:
        if not isinstance(value, str):
            _fail(self, "DATETIME_INVALID")
        try:
            parsed = parse_datetime(value.strip())
        except ValueError:  # well-formed but impossible, e.g. month 13
            parsed = None
        if parsed is None:
            _fail(self, "DATETIME_INVALID")
        offset = parsed.utcoffset()
        if offset is None:
            _fail(self, "DATETIME_OFFSET_REQUIRED")
        if offset.total_seconds() % 60:  # RFC 3339 offsets are hours and minutes
            _fail(self, "DATETIME_INVALID")
        try:
            in_utc = parsed.astimezone(dt.UTC)
        except OverflowError:
            in_utc = None
        if in_utc is None or not _FIRST_YEAR <= in_utc.year <= _LAST_YEAR:
            _fail(self, "DATETIME_INVALID")
        if self.plausible and not is_plausible(in_utc, now=timezone.now()):
            _fail(self, "DATETIME_IMPLAUSIBLE")
        return parsed


class UserZoneDateTimeField(serializers.DateTimeField):
    """Render an aware datetime in RFC 3339 with the offset of the requesting user's zone
    (rounded to whole minutes for a historic local mean time: :func:`lightnote.times.rfc3339`)."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("read_only", True)
        super().__init__(**kwargs)

    def to_representation(self, value: dt.datetime | None) -> Any:
        if value is None:
            return None
        return rfc3339(value, self._zone())

    def _zone(self) -> dt.tzinfo:
        request = self.context.get("request")
        name = getattr(getattr(request, "user", None), "time_zone", None)
        return zoneinfo.ZoneInfo(name or settings.LIGHTNOTE_TIME_ZONE)


def require_a_change(serializer: serializers.Serializer, attrs: dict[str, Any]) -> dict[str, Any]:
    """Refuse a PATCH that names only ``version`` (it would bump the version for nothing)."""
    if set(attrs) <= {"version"}:
        _fail(serializer, "NOTHING_TO_CHANGE")
    return attrs


class StrictSerializer(serializers.Serializer):
    """A request serializer: an unknown or read-only field in the body is a 400."""

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, dict):
            writable = {name for name, field in self.fields.items() if not field.read_only}
            unknown = sorted(set(data) - writable)
            if unknown:
                message = translate("UNKNOWN_FIELD", self._locale())
                raise serializers.ValidationError({name: [message] for name in unknown})
        return super().to_internal_value(data)

    def _locale(self) -> str | None:
        return request_locale(self.context.get("request"))


class NoBodySerializer(StrictSerializer):
    """The body of a write that takes none (a DELETE, a restore): nothing, or ``{}``."""


def refuse_body_fields(request: Any) -> None:
    """Refuse a body that names any field (400 ``VALIDATION_ERROR``), as for every body.

    An empty body and ``{}`` pass; anything else is the strict serializer's to word.
    """
    data = request.data
    if isinstance(data, dict) and not data:
        return
    NoBodySerializer(data=data, context={"request": request}).is_valid(raise_exception=True)


class StrictModelSerializer(StrictSerializer, serializers.ModelSerializer):
    """A model serializer with the same unknown-field rule."""


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


class QuerySerializer(serializers.Serializer):
    """Query parameters: a parameter given with an empty value is a 400, never "absent".

    DRF reads ``?version=`` as if it had not been sent (so a DELETE would lose its version
    check); here an empty value of a declared parameter is a ``VALIDATION_ERROR`` on it, and
    every garbage value is refused by its field as usual. Undeclared parameters pass.
    """

    def to_internal_value(self, data: Any) -> Any:
        names: list[str] = [str(name) for name in self.fields.keys()]  # noqa: SIM118
        empty = sorted(
            name
            for name in names
            if hasattr(data, "getlist") and name in data and "" in data.getlist(name)
        )
        if empty:
            message = translate("QUERY_VALUE_REQUIRED", request_locale(self.context.get("request")))
            raise serializers.ValidationError({name: [message] for name in empty})
        return super().to_internal_value(data)


class VersionQuerySerializer(QuerySerializer):
    """``?version=`` on DELETE: delete only if the object is still at this version."""

    version = serializers.IntegerField(min_value=1, required=False)
