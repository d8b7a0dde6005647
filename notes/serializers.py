"""Request and response shapes of the note API (the rules themselves live in the services)."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from lightnote.rest.serializers import (
    JSONCharField,
    JSONIntegerField,
    NeverPartial,
    QuerySerializer,
    StrictSerializer,
    UserZoneDateTimeField,
    require_a_change,
)
from notes.models import CONTENT_MAX, TAG_MAX, TAGS_MAX, TITLE_MAX, Note


class NoteSerializer(serializers.ModelSerializer):
    """A note as the API returns it; times in the requesting user's zone."""

    tags = serializers.ListField(child=serializers.CharField(), read_only=True)
    created_at = UserZoneDateTimeField()
    updated_at = UserZoneDateTimeField()

    class Meta:
        model = Note
        fields = ["id", "title", "content", "tags", "version", "created_at", "updated_at"]
        read_only_fields = fields


def _title(**kwargs: Any) -> JSONCharField:
    # Blanks are not trimmed here: the service decides that "   " is NOTE_TITLE_REQUIRED.
    return JSONCharField(min_length=1, max_length=TITLE_MAX, trim_whitespace=False, **kwargs)


def _content() -> JSONCharField:
    return JSONCharField(
        max_length=CONTENT_MAX, allow_blank=True, trim_whitespace=False, required=False
    )


def _tags() -> serializers.ListField:
    return serializers.ListField(
        child=JSONCharField(min_length=1, max_length=TAG_MAX, trim_whitespace=False),
        max_length=TAGS_MAX,
        required=False,
        help_text=f"At most {TAGS_MAX} tags of 1 to {TAG_MAX} characters; duplicates are merged",
    )


class NoteCreateSerializer(StrictSerializer):
    title = _title()
    content = _content()
    tags = _tags()


class NoteUpdateSerializer(NeverPartial, StrictSerializer):
    version = JSONIntegerField(min_value=1, help_text="The version this change is based on")
    title = _title(required=False)
    content = _content()
    tags = _tags()

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        return require_a_change(self, attrs)


class NoteListQuerySerializer(QuerySerializer):
    """Query parameters of the list (``page`` and ``page_size`` belong to the paginator)."""

    # Not trimmed before the length check: the declared maxLength is of the value as sent
    # (trimmed first, 200 characters with spaces around them passed). Trimmed after it.
    q = serializers.CharField(
        max_length=200,
        required=False,
        trim_whitespace=False,
        help_text="Words in the title or content",
    )
    tag = serializers.CharField(
        max_length=TAG_MAX, required=False, trim_whitespace=False, help_text="An exact tag"
    )

    def validate_q(self, value: str) -> str:
        return value.strip()

    def validate_tag(self, value: str) -> str:
        return value.strip()

    trashed = serializers.BooleanField(
        required=False, default=False, help_text="1: list the trash (deleted, restorable) instead"
    )
