"""Serializer base that refuses unknown fields instead of ignoring them."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from lightnote.i18n import translate


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
        from lightnote.i18n import request_locale

        return request_locale(self.context.get("request"))


class StrictModelSerializer(StrictSerializer, serializers.ModelSerializer):
    """A model serializer with the same unknown-field rule."""
